//! Member rules checked on a reply's value: ranges, lengths, patterns, item counts, allowed values.
//!
//! Each failed rule is an issue of kind [`IssueKind::Rule`] with the member's path and a message
//! that states the rule and the value found ("Must be at most 1000; got 1500.").

use serde_json::Value;

use crate::result::{IssueKind, ResultIssue};
pub(crate) use crate::shape::number as num;
use crate::shape::{plural, RuleTarget, Rules};

use crate::read::findings::Findings;
use crate::read::parse::number;
use crate::read::path::Path;
use crate::read::text::clip;

/// A value a rule can look at, borrowed from the reply: the checks never allocate unless they fail.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seen<'a> {
    Number(f64),
    Text(&'a str),
    Items(usize),
    Other,
}

impl<'a> Seen<'a> {
    /// What the rules of a place whose rule target is `target` see in `value`: where number rules
    /// apply, a string holding a number (a `Decimal` written `"12.50"`) is seen as that number.
    pub(crate) fn of(value: &'a Value, target: RuleTarget) -> Seen<'a> {
        match value {
            Value::Number(n) => n.as_f64().map_or(Seen::Other, Seen::Number),
            Value::String(s) if target.is(RuleTarget::Number) => number::in_text(s)
                .and_then(|n| n.as_f64())
                .map_or(Seen::Text(s), Seen::Number),
            Value::String(s) => Seen::Text(s),
            Value::Array(items) => Seen::Items(items.len()),
            _ => Seen::Other,
        }
    }
}

/// Checks `rules` on `value`, at a place whose rule target is `target` (a `null` value passes:
/// nullness is the shape's business).
pub(crate) fn check(
    rules: &Rules,
    value: &Value,
    target: RuleTarget,
    path: &Path<'_>,
    issues: &mut Findings,
) {
    if value.is_null() || rules.is_empty() {
        return;
    }
    for message in failures(rules, Seen::of(value, target)) {
        issues.push(ResultIssue::at(path.pointer(), IssueKind::Rule, message));
    }
    if rules.unique_items {
        if let Value::Array(items) = value {
            for (index, first) in repeats(items) {
                issues.push(ResultIssue::at(
                    path.index(index).pointer(),
                    IssueKind::Rule,
                    format!("Every element must be different; this one repeats element {first}."),
                ));
            }
        }
    }
    if let Some(message) = not_allowed(rules, value) {
        issues.push(ResultIssue::at(path.pointer(), IssueKind::Rule, message));
    }
}

/// The messages of every rule `value` breaks, without paths (a repeated element is named by its
/// index): for checks that place the issues themselves, such as an intent file's member rules.
/// Where the rules are number rules, a string holding a number is checked as that number.
#[cfg(feature = "catalog")]
pub(crate) fn messages(rules: &Rules, value: &Value) -> Vec<String> {
    if value.is_null() || rules.is_empty() {
        return Vec::new();
    }
    let target = if has_number_rules(rules) {
        RuleTarget::Number
    } else {
        RuleTarget::Other
    };
    let mut out = failures(rules, Seen::of(value, target));
    if rules.unique_items {
        if let Value::Array(items) = value {
            if let Some((index, first)) = repeats(items).into_iter().next() {
                out.push(format!(
                    "Every element must be different; element {index} repeats element {first}."
                ));
            }
        }
    }
    out.extend(not_allowed(rules, value));
    out
}

#[cfg(feature = "catalog")]
fn has_number_rules(rules: &Rules) -> bool {
    rules.minimum.is_some()
        || rules.maximum.is_some()
        || rules.exclusive_minimum.is_some()
        || rules.exclusive_maximum.is_some()
        || rules.multiple_of.is_some()
}

/// The message when the value is not one of the rules' allowed values.
fn not_allowed(rules: &Rules, value: &Value) -> Option<String> {
    let allowed = rules.allowed.as_ref()?;
    if allowed.iter().any(|a| same(a, value)) {
        return None;
    }
    let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
    Some(format!(
        "Must be one of {}; got {}.",
        list.join(", "),
        clip(&value.to_string())
    ))
}

/// True when `a` and `b` are the same JSON value (numbers compared by value: `1` equals `1.0`).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

/// `(index, index of the earlier equal element)` for each element that repeats an earlier one.
pub(crate) fn repeats(items: &[Value]) -> Vec<(usize, usize)> {
    let mut seen: std::collections::HashMap<String, usize> =
        std::collections::HashMap::with_capacity(items.len());
    let mut out = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let key = canonical(item);
        if let Some(first) = seen.get(&key) {
            out.push((index, *first));
        } else {
            seen.insert(key, index);
        }
    }
    out
}

/// A text form equal for equal values (numbers by value, object members in any order).
fn canonical(value: &Value) -> String {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", inner.join(","))
        }
        Value::Object(map) => {
            let mut inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), canonical(v)))
                .collect();
            inner.sort();
            format!("{{{}}}", inner.join(","))
        }
        other => other.to_string(),
    }
}

/// The messages of the failed number, length and count rules on `seen`.
pub(crate) fn failures(rules: &Rules, seen: Seen<'_>) -> Vec<String> {
    let mut out = Vec::new();
    match seen {
        Seen::Number(v) => {
            if let Some(min) = rules.minimum.filter(|min| v < *min) {
                out.push(format!("Must be at least {}; got {}.", num(min), num(v)));
            }
            if let Some(min) = rules.exclusive_minimum.filter(|min| v <= *min) {
                out.push(format!(
                    "Must be greater than {}; got {}.",
                    num(min),
                    num(v)
                ));
            }
            if let Some(max) = rules.maximum.filter(|max| v > *max) {
                out.push(format!("Must be at most {}; got {}.", num(max), num(v)));
            }
            if let Some(max) = rules.exclusive_maximum.filter(|max| v >= *max) {
                out.push(format!("Must be less than {}; got {}.", num(max), num(v)));
            }
            if let Some(step) = rules.multiple_of.filter(|step| !is_multiple(v, *step)) {
                out.push(format!(
                    "Must be a multiple of {}; got {}.",
                    num(step),
                    num(v)
                ));
            }
        }
        Seen::Text(text) => {
            if rules.min_length.is_some() || rules.max_length.is_some() {
                let count = text.chars().count() as u64;
                let bounds = (rules.min_length, rules.max_length);
                count_failures(&mut out, count, bounds, "be", "character");
            }
            if let Some(pattern) = rules.pattern.as_ref().filter(|p| !p.is_match(text)) {
                out.push(format!(
                    "Must match the regular expression {}; got {}.",
                    pattern.as_str(),
                    Value::from(clip(text))
                ));
            }
        }
        Seen::Items(count) => {
            let bounds = (rules.min_items, rules.max_items);
            count_failures(&mut out, count as u64, bounds, "have", "element");
        }
        Seen::Other => {}
    }
    out
}

/// The findings of a count (a text's characters, a list's elements) outside its `(min, max)`
/// bounds: "Must be at least 3 characters; got 2.", "Must have at most 5 elements; got 6.".
fn count_failures(
    out: &mut Vec<String>,
    count: u64,
    (min, max): (Option<u64>, Option<u64>),
    verb: &str,
    unit: &str,
) {
    if let Some(min) = min.filter(|min| count < *min) {
        out.push(format!(
            "Must {verb} at least {min} {}; got {count}.",
            plural(min, unit)
        ));
    }
    if let Some(max) = max.filter(|max| count > *max) {
        out.push(format!(
            "Must {verb} at most {max} {}; got {count}.",
            plural(max, unit)
        ));
    }
}

fn is_multiple(v: f64, step: f64) -> bool {
    if step == 0.0 || !step.is_finite() {
        return true;
    }
    let ratio = v / step;
    (ratio - ratio.round()).abs() <= 1e-9 * ratio.abs().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_state_rule_and_value() {
        let rules = Rules {
            maximum: Some(1000.0),
            multiple_of: Some(5.0),
            ..Rules::default()
        };
        assert_eq!(
            failures(&rules, Seen::Number(1502.0)),
            vec![
                "Must be at most 1000; got 1502.",
                "Must be a multiple of 5; got 1502."
            ]
        );
        assert!(failures(&rules, Seen::Number(0.3 * 10.0 / 3.0 * 5.0)).is_empty());
    }

    #[test]
    fn lengths_count_characters() {
        let rules = Rules {
            max_length: Some(2),
            ..Rules::default()
        };
        assert!(failures(&rules, Seen::Text("éé")).is_empty());
        assert_eq!(
            failures(&rules, Seen::Text("ééé")),
            vec!["Must be at most 2 characters; got 3."]
        );
    }

    #[test]
    fn repeats_compare_numbers_by_value() {
        let items = vec![
            serde_json::json!(1),
            serde_json::json!(1.0),
            serde_json::json!(2),
        ];
        assert_eq!(repeats(&items), vec![(1, 0)]);
    }
}

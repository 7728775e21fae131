//! An intent file's rules: read from the file, stated to the model, checked on every reply.

use serde::Deserialize;
use serde_json::Value;

use super::path::RulePath;
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{Pattern, RuleTarget, Rules};

/// The rules on one member as written in an intent file (JSON Schema's keyword names).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct RawRules {
    minimum: Option<f64>,
    maximum: Option<f64>,
    exclusive_minimum: Option<f64>,
    exclusive_maximum: Option<f64>,
    multiple_of: Option<f64>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<String>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique_items: Option<bool>,
    #[serde(rename = "enum")]
    allowed: Option<Vec<Value>>,
}

/// The rules on one member, compiled.
#[derive(Debug, Clone)]
pub(crate) struct MemberRule {
    pub(crate) path: RulePath,
    pub(crate) rules: Rules,
    /// The kind of value the rules need (`None` when only `enum` is set).
    pub(crate) target: Option<RuleTarget>,
}

impl MemberRule {
    /// Compiles the rules at `path`, refusing contradictions and rules of mixed kinds.
    pub(crate) fn compile(path: &str, raw: RawRules) -> Result<MemberRule, String> {
        let path = RulePath::parse(path)?;
        let at = |message: String| format!("rule `{path}`: {message}");
        let pattern = match &raw.pattern {
            Some(source) => Some(Pattern::new(source).map_err(|e| {
                at(format!(
                    "`pattern` is not a valid regular expression ({})",
                    regex_reason(&e.to_string())
                ))
            })?),
            None => None,
        };
        if let Some(m) = raw.multiple_of {
            if m.is_nan() || m <= 0.0 {
                return Err(at(format!(
                    "`multipleOf` must be greater than 0, not {}",
                    number(m)
                )));
            }
        }
        for (name, value) in [
            ("minimum", raw.minimum),
            ("maximum", raw.maximum),
            ("exclusiveMinimum", raw.exclusive_minimum),
            ("exclusiveMaximum", raw.exclusive_maximum),
        ] {
            if value.is_some_and(|v| !v.is_finite()) {
                return Err(at(format!("`{name}` must be a finite number")));
            }
        }
        let lower = bound(raw.minimum, raw.exclusive_minimum, f64::max);
        let upper = bound(raw.maximum, raw.exclusive_maximum, f64::min);
        if let (Some((lo, lo_open)), Some((hi, hi_open))) = (lower, upper) {
            if lo > hi || (lo == hi && (lo_open || hi_open)) {
                return Err(at(format!(
                    "no number fits: the lower bound {} is not below the upper bound {}",
                    number(lo),
                    number(hi)
                )));
            }
        }
        for (what, min, max) in [
            ("minLength", raw.min_length, raw.max_length),
            ("minItems", raw.min_items, raw.max_items),
        ] {
            if let (Some(min), Some(max)) = (min, max) {
                if min > max {
                    return Err(at(format!(
                        "`{what}` ({min}) is greater than its maximum ({max})"
                    )));
                }
            }
        }
        if raw.allowed.as_ref().is_some_and(Vec::is_empty) {
            return Err(at("`enum` is empty; list at least one allowed value".into()));
        }
        let rules = Rules {
            minimum: raw.minimum,
            maximum: raw.maximum,
            exclusive_minimum: raw.exclusive_minimum,
            exclusive_maximum: raw.exclusive_maximum,
            multiple_of: raw.multiple_of,
            min_length: raw.min_length,
            max_length: raw.max_length,
            pattern,
            min_items: raw.min_items,
            max_items: raw.max_items,
            unique_items: raw.unique_items.unwrap_or(false),
            allowed: raw.allowed,
        };
        if rules.is_empty() {
            return Err(at("it sets no rule; remove it or add one".into()));
        }
        let target = target_of(&rules).map_err(at)?;
        Ok(MemberRule {
            path,
            rules,
            target,
        })
    }

    /// The prompt's rule line: `- lines[].quantity: at least 1; at most 1000`.
    pub(crate) fn line(&self) -> String {
        format!(
            "- {}: {}",
            self.path.display_name(),
            self.rules.statements().join("; ")
        )
    }

    /// Checks the rules on every value the path reaches in `root` (the reply's value).
    pub(crate) fn check(&self, root: &Value, out: &mut Vec<ResultIssue>) {
        for (pointer, value) in self.path.select(root) {
            for message in violations(&self.rules, value) {
                out.push(ResultIssue::at(pointer.clone(), IssueKind::Rule, message));
            }
        }
    }
}

/// The tighter of an inclusive and an exclusive bound, with whether it is exclusive.
fn bound(
    inclusive: Option<f64>,
    exclusive: Option<f64>,
    tighter: fn(f64, f64) -> f64,
) -> Option<(f64, bool)> {
    match (inclusive, exclusive) {
        (Some(i), Some(e)) => {
            let t = tighter(i, e);
            Some((t, t == e))
        }
        (Some(i), None) => Some((i, false)),
        (None, Some(e)) => Some((e, true)),
        (None, None) => None,
    }
}

/// The one kind of value the rules need, or why they mix kinds.
fn target_of(rules: &Rules) -> Result<Option<RuleTarget>, String> {
    let number = rules.minimum.is_some()
        || rules.maximum.is_some()
        || rules.exclusive_minimum.is_some()
        || rules.exclusive_maximum.is_some()
        || rules.multiple_of.is_some();
    let text = rules.min_length.is_some() || rules.max_length.is_some() || rules.pattern.is_some();
    let items = rules.min_items.is_some() || rules.max_items.is_some() || rules.unique_items;
    let kinds: Vec<(RuleTarget, &str)> = [
        (number, RuleTarget::Number, "number"),
        (text, RuleTarget::Text, "text"),
        (items, RuleTarget::Items, "list"),
    ]
    .into_iter()
    .filter(|(set, _, _)| *set)
    .map(|(_, target, name)| (target, name))
    .collect();
    match kinds.as_slice() {
        [] => Ok(None),
        [(target, _)] => Ok(Some(*target)),
        [(_, a), (_, b), ..] => Err(format!(
            "it mixes {a} rules and {b} rules; one member is either a number, a text or a list"
        )),
    }
}

/// What a rule kind applies to, in words.
pub(crate) fn target_name(target: RuleTarget) -> &'static str {
    match target {
        RuleTarget::Number => "number",
        RuleTarget::Text => "text",
        RuleTarget::Items => "list",
        RuleTarget::Other => "other",
    }
}

/// The messages of every rule `value` breaks (the reader's own rule checks). A value of another
/// kind is left to the shape check.
pub(crate) fn violations(rules: &Rules, value: &Value) -> Vec<String> {
    crate::read::rule_messages(rules, value)
}

pub(crate) use crate::shape::number;

/// The reason of a regex error, without the pattern and caret lines it is shown with.
pub(crate) fn regex_reason(text: &str) -> String {
    let last = text.lines().map(str::trim).rfind(|l| !l.is_empty());
    let reason = last.unwrap_or(text);
    reason.strip_prefix("error: ").unwrap_or(reason).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(path: &str, raw: Value) -> Result<MemberRule, String> {
        MemberRule::compile(path, serde_json::from_value(raw).unwrap())
    }

    #[test]
    fn checks_numbers_texts_lists_and_enums_with_pointers() {
        let quantity = rule("lines[].quantity", json!({"minimum": 1, "maximum": 10})).unwrap();
        let mut issues = Vec::new();
        quantity.check(
            &json!({"lines": [{"quantity": 0}, {"quantity": 5}, {"quantity": 11}]}),
            &mut issues,
        );
        let shown: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "/value/lines/0/quantity: Must be at least 1; got 0.",
                "/value/lines/2/quantity: Must be at most 10; got 11."
            ]
        );
        let tags = rule("tags", json!({"uniqueItems": true, "maxItems": 2})).unwrap();
        let mut issues = Vec::new();
        tags.check(&json!({"tags": ["a", "b", "a"]}), &mut issues);
        assert_eq!(issues.len(), 2);
        let level = rule("$", json!({"enum": ["low", "high"]})).unwrap();
        assert_eq!(
            violations(&level.rules, &json!("mid")),
            vec![r#"Must be one of "low", "high"; got "mid"."#]
        );
        let step = rule("$", json!({"multipleOf": 0.1})).unwrap();
        assert!(violations(&step.rules, &json!(0.3)).is_empty());
        assert_eq!(violations(&step.rules, &json!(0.35)).len(), 1);
    }

    #[test]
    fn refuses_contradictions_and_mixed_kinds() {
        assert!(rule("a", json!({"minimum": 5, "maximum": 1}))
            .unwrap_err()
            .contains("no number fits"));
        assert!(rule("a", json!({"minimum": 1, "maxLength": 3}))
            .unwrap_err()
            .contains("mixes number rules and text rules"));
        assert!(rule("a", json!({"pattern": "("}))
            .unwrap_err()
            .contains("not a valid regular expression"));
        assert!(rule("a", json!({"multipleOf": 0})).is_err());
        assert!(rule("a", json!({"enum": []})).is_err());
        assert!(rule("a", json!({})).is_err());
    }
}

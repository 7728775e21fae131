//! An intent file's rules: read from the file, stated to the model, checked on every reply.

use serde::Deserialize;
use serde_json::Value;

use super::path::{RulePath, Step};
use crate::result::{IssueKind, ResultIssue};
use crate::shape::rule_table::{
    conflict, count_conflict, misfit, multiple_of_refusal, range_conflict, RuleKind, RuleNaming,
};
use crate::shape::{rule_line, Pattern, RuleTarget, Rules};

/// Intent files name rules by their JSON Schema keywords.
const KEYWORD: RuleNaming = RuleNaming::Keyword;

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
    /// The first rule that needs a kind of member (`None` when only `enum` is set): every other
    /// rule set is of its family.
    pub(crate) kind: Option<RuleKind>,
}

impl MemberRule {
    /// Compiles the rules at `path`, refusing what the rule table refuses (rules of two families,
    /// two bounds on one side, a range no number fits, ...) in the derive's words.
    pub(crate) fn compile(path: &str, raw: RawRules) -> Result<MemberRule, String> {
        let path = RulePath::parse(path)?;
        let at = |message: &str| format!("rule `{path}`: {message}");
        let pattern = match &raw.pattern {
            Some(source) => Some(Pattern::new(source).map_err(|e| {
                at(&format!(
                    "`pattern` is not a valid regular expression ({})",
                    regex_reason(&e.to_string())
                ))
            })?),
            None => None,
        };
        for (kind, value) in [
            (RuleKind::Minimum, raw.minimum),
            (RuleKind::Maximum, raw.maximum),
            (RuleKind::ExclusiveMinimum, raw.exclusive_minimum),
            (RuleKind::ExclusiveMaximum, raw.exclusive_maximum),
            (RuleKind::MultipleOf, raw.multiple_of),
        ] {
            if value.is_some_and(|v| !v.is_finite()) {
                return Err(at(&format!(
                    "`{}` must be a finite number",
                    kind.name(KEYWORD)
                )));
            }
        }
        if raw.allowed.as_ref().is_some_and(Vec::is_empty) {
            return Err(at("`enum` is empty; list at least one allowed value"));
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
        let set = set_kinds(&rules);
        if set.is_empty() {
            return Err(at("it sets no rule; remove it or add one"));
        }
        refusal(&rules, &set).map_or(Ok(()), |(message, values)| {
            Err(match values {
                Some(values) => format!("{} ({values})", at(message)),
                None => at(message),
            })
        })?;
        let kind = set.iter().copied().find(|k| k.family().is_some());
        Ok(MemberRule { path, rules, kind })
    }

    /// A rule at `path` that sets nothing but needs a member of kind `target` (`None`: any), for
    /// checks that only ask whether a path fits a kind of value (an intent test's `matches`).
    pub(crate) fn needing(path: RulePath, target: Option<RuleTarget>) -> MemberRule {
        let kind = target.and_then(|target| {
            RuleKind::ALL
                .into_iter()
                .find(|kind| kind.family() == Some(target))
        });
        MemberRule {
            path,
            rules: Rules::default(),
            kind,
        }
    }

    /// Why the rules do not apply to a member whose rule target is `target`, or `None`.
    pub(crate) fn misfit(&self, target: RuleTarget) -> Option<&'static str> {
        self.kind.and_then(|kind| misfit(kind, target, KEYWORD))
    }

    /// The prompt's rule line, worded as the derive's: `` - `quantity` of each element of `lines`: at least 1; at most 1000 ``.
    pub(crate) fn line(&self) -> String {
        let steps = Step::member_steps(self.path.steps());
        rule_line(&steps, false, &self.rules.statements())
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

/// The rules set, in the table's order.
fn set_kinds(rules: &Rules) -> Vec<RuleKind> {
    RuleKind::ALL
        .into_iter()
        .filter(|kind| match kind {
            RuleKind::Minimum => rules.minimum.is_some(),
            RuleKind::Maximum => rules.maximum.is_some(),
            RuleKind::ExclusiveMinimum => rules.exclusive_minimum.is_some(),
            RuleKind::ExclusiveMaximum => rules.exclusive_maximum.is_some(),
            RuleKind::MultipleOf => rules.multiple_of.is_some(),
            RuleKind::MinLength => rules.min_length.is_some(),
            RuleKind::MaxLength => rules.max_length.is_some(),
            RuleKind::Pattern => rules.pattern.is_some(),
            RuleKind::MinItems => rules.min_items.is_some(),
            RuleKind::MaxItems => rules.max_items.is_some(),
            RuleKind::UniqueItems => rules.unique_items,
            RuleKind::Allowed => rules.allowed.is_some(),
        })
        .collect()
}

/// The first thing the rule table refuses in `rules` (whose set rules are `set`), with the values
/// involved for the message.
fn refusal(rules: &Rules, set: &[RuleKind]) -> Option<(&'static str, Option<String>)> {
    for (i, &a) in set.iter().enumerate() {
        for &b in &set[i + 1..] {
            if let Some(message) = conflict(a, b, KEYWORD) {
                return Some((message, None));
            }
        }
    }
    let lows = [
        (RuleKind::Minimum, rules.minimum),
        (RuleKind::ExclusiveMinimum, rules.exclusive_minimum),
    ];
    let highs = [
        (RuleKind::Maximum, rules.maximum),
        (RuleKind::ExclusiveMaximum, rules.exclusive_maximum),
    ];
    for (low, lo) in lows {
        for (high, hi) in highs {
            if let (Some(lo), Some(hi)) = (lo, hi) {
                if let Some(message) = range_conflict(low, lo, high, hi, KEYWORD) {
                    let values = format!(
                        "{} {}, {} {}",
                        low.name(KEYWORD),
                        number(lo),
                        high.name(KEYWORD),
                        number(hi)
                    );
                    return Some((message, Some(values)));
                }
            }
        }
    }
    for (low, min, high, max) in [
        (
            RuleKind::MinLength,
            rules.min_length,
            RuleKind::MaxLength,
            rules.max_length,
        ),
        (
            RuleKind::MinItems,
            rules.min_items,
            RuleKind::MaxItems,
            rules.max_items,
        ),
    ] {
        if let (Some(min), Some(max)) = (min, max) {
            if let Some(message) = count_conflict(low, min, high, max, KEYWORD) {
                let values = format!("{} {min}, {} {max}", low.name(KEYWORD), high.name(KEYWORD));
                return Some((message, Some(values)));
            }
        }
    }
    let step = rules.multiple_of?;
    multiple_of_refusal(step, KEYWORD)
        .map(|message| (message, Some(format!("got {}", number(step)))))
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
        assert_eq!(
            rule("a", json!({"minimum": 5, "maximum": 1})).unwrap_err(),
            "rule `a`: conflicting rules: `minimum` and `maximum` leave no number that satisfies \
             both (minimum 5, maximum 1)"
        );
        assert_eq!(
            rule("a", json!({"minimum": 1, "maxLength": 3})).unwrap_err(),
            "rule `a`: conflicting rules: number rules and text rules cannot be set on one \
             member; a member is a number, a text or a list"
        );
        assert_eq!(
            rule("a", json!({"minLength": 4, "maxLength": 3})).unwrap_err(),
            "rule `a`: conflicting rules: `minLength` is greater than `maxLength` (minLength 4, \
             maxLength 3)"
        );
        assert!(rule("a", json!({"pattern": "("}))
            .unwrap_err()
            .contains("not a valid regular expression"));
        assert_eq!(
            rule("a", json!({"multipleOf": 0})).unwrap_err(),
            "rule `a`: `multipleOf` must be greater than 0 (got 0)"
        );
        assert!(rule("a", json!({"enum": []})).is_err());
        assert!(rule("a", json!({})).is_err());
    }

    /// The derive refuses `minimum` with `exclusive_minimum`; so does the catalog, in the same
    /// words (the keyword names aside).
    #[test]
    fn refuses_an_inclusive_and_an_exclusive_bound_on_one_side_as_the_derive_does() {
        assert_eq!(
            rule("price", json!({"minimum": 0, "exclusiveMinimum": 0})).unwrap_err(),
            "rule `price`: conflicting rules: `minimum` and `exclusiveMinimum` both bound the \
             number from below; keep one"
        );
        assert_eq!(
            rule("price", json!({"exclusiveMaximum": 9, "maximum": 10})).unwrap_err(),
            "rule `price`: conflicting rules: `maximum` and `exclusiveMaximum` both bound the \
             number from above; keep one"
        );
        let open = rule(
            "price",
            json!({"exclusiveMinimum": 0, "exclusiveMaximum": 0}),
        );
        assert_eq!(
            open.unwrap_err(),
            "rule `price`: conflicting rules: `exclusiveMinimum` and `exclusiveMaximum` leave no \
             number that satisfies both (exclusiveMinimum 0, exclusiveMaximum 0)"
        );
        assert!(rule("price", json!({"exclusiveMinimum": 0, "maximum": 5})).is_ok());
    }

    /// A text rule needs a member whose JSON form is text: a `Uuid` is one, for the derive too.
    #[test]
    fn text_rules_fit_what_the_rule_table_calls_text() {
        let id = rule("id", json!({"pattern": "^[0-9a-f-]{36}$"})).unwrap();
        assert_eq!(id.misfit(RuleTarget::Text), None);
        assert!(id
            .misfit(RuleTarget::Number)
            .unwrap()
            .starts_with("text rules (`minLength`, `maxLength`, `pattern`) apply only to text"));
        let tags = rule("tags", json!({"enum": ["a"]})).unwrap();
        assert_eq!(tags.misfit(RuleTarget::Other), None);
    }
}

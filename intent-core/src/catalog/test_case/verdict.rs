//! Judging a call's outcome against a test: the differences from an expected answer, each at
//! its JSON pointer, and the checks that fail.

use std::fmt;

use serde_json::Value;

use super::{Condition, Expectation, IntentTest, MemberCheck};
use crate::catalog::path::Step;
use crate::result::{IssueKind, ResultIssue};

/// The longest value shown in a message, in characters.
const MAX_SHOWN_CHARS: usize = 200;

/// The most differences listed for one test.
const MAX_DIFFERENCES: usize = 20;

/// Why a call's outcome fails `test` (see [`IntentTest::evaluate`]).
pub(super) fn evaluate(
    test: &IntentTest,
    value: Option<&Value>,
    issues: &[ResultIssue],
) -> Vec<String> {
    let provider_failure = issues.iter().find(|i| i.kind == IssueKind::Provider);
    match (&test.expectation, value) {
        (Expectation::Fails, None) => match provider_failure {
            Some(issue) => vec![format!(
                "expected the answers to be refused, but a provider failed: {issue}"
            )],
            None => Vec::new(),
        },
        (Expectation::Fails, Some(value)) => vec![format!(
            "expected the call to fail, but it answered {}",
            shown(value)
        )],
        (_, None) => {
            let why: Vec<String> = issues.iter().map(ToString::to_string).collect();
            vec![format!(
                "expected an answer, but the call failed: {}",
                if why.is_empty() {
                    "no issue was reported".to_owned()
                } else {
                    why.join("; ")
                }
            )]
        }
        (Expectation::Value(expected), Some(actual)) => {
            let mut out = Vec::new();
            differences(expected, actual, &mut String::new(), &mut out);
            if out.len() > MAX_DIFFERENCES {
                let more = out.len() - MAX_DIFFERENCES;
                out.truncate(MAX_DIFFERENCES);
                out.push(format!("… and {more} more differences"));
            }
            out
        }
        (Expectation::Checks(checks), Some(actual)) => checks
            .iter()
            .flat_map(|check| check.evaluate(actual))
            .collect(),
    }
}

impl MemberCheck {
    fn evaluate(&self, root: &Value) -> Vec<String> {
        let selected = self.path.select(root);
        if selected.is_empty() {
            // A check on every element (or every value) holds when there is none; a check on one
            // member fails when the member is absent, unless it asks for null.
            let every = self
                .path
                .steps()
                .iter()
                .any(|s| matches!(s, Step::Items | Step::Values));
            let wants_null = self
                .conditions
                .iter()
                .all(|c| matches!(c, Condition::Equals(Value::Null)));
            return if every || wants_null {
                Vec::new()
            } else {
                vec![format!("`{}`: the answer has no value there", self.path())]
            };
        }
        let mut out = Vec::new();
        for (pointer, value) in selected {
            let at = match pointer.strip_prefix("/value").unwrap_or(&pointer) {
                "" => String::new(),
                rest => format!(" at {rest}"),
            };
            for condition in &self.conditions {
                if let Some(why) = condition.failure(value) {
                    out.push(format!("`{}`{at}: {why}", self.path()));
                }
            }
        }
        out
    }
}

impl fmt::Display for MemberCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.conditions.iter().map(Condition::words).collect();
        write!(f, "`{}` {}", self.path(), words.join(" and "))
    }
}

impl Condition {
    fn words(&self) -> String {
        match self {
            Condition::Equals(v) => format!("equals {}", shown(v)),
            Condition::Contains(v) => format!("contains {}", shown(v)),
            Condition::Matches(p) => format!("matches {}", p.as_str()),
        }
    }

    /// Why `value` fails the condition, or `None` when it holds.
    fn failure(&self, value: &Value) -> Option<String> {
        match self {
            Condition::Equals(expected) => (!same(expected, value))
                .then(|| format!("expected {}, got {}", shown(expected), shown(value))),
            Condition::Contains(needle) => {
                match (value, needle) {
                    (Value::String(text), Value::String(part)) => (!text.contains(part.as_str()))
                        .then(|| {
                            format!(
                                "expected a text that contains {}, got {}",
                                shown(needle),
                                shown(value)
                            )
                        }),
                    (Value::Array(items), _) => (!items.iter().any(|item| same(needle, item)))
                        .then(|| {
                            format!(
                                "expected a list that contains {}, got {}",
                                shown(needle),
                                shown(value)
                            )
                        }),
                    _ => Some(format!(
                        "expected a text or a list that contains {}, got {}",
                        shown(needle),
                        shown(value)
                    )),
                }
            }
            Condition::Matches(pattern) => match value {
                Value::String(text) if pattern.is_match(text) => None,
                Value::String(_) => Some(format!(
                    "expected a text that matches {}, got {}",
                    pattern.as_str(),
                    shown(value)
                )),
                _ => Some(format!(
                    "expected a text that matches {}, got {}",
                    pattern.as_str(),
                    shown(value)
                )),
            },
        }
    }
}

/// JSON equality with numbers compared by value (`5` equals `5.0`).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Every place where `actual` differs from `expected`, each with its JSON pointer.
fn differences(expected: &Value, actual: &Value, at: &mut String, out: &mut Vec<String>) {
    let place = |at: &str| {
        if at.is_empty() {
            String::new()
        } else {
            format!("at {at}: ")
        }
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                let len = at.len();
                at.push('/');
                at.push_str(&key.replace('~', "~0").replace('/', "~1"));
                match a.get(key) {
                    Some(got) => differences(value, got, at, out),
                    None => out.push(format!(
                        "{}expected {}, got nothing",
                        place(at),
                        shown(value)
                    )),
                }
                at.truncate(len);
            }
            for (key, value) in a {
                if !e.contains_key(key) {
                    out.push(format!(
                        "{}`{key}` is not expected, got {}",
                        place(at),
                        shown(value)
                    ));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (value, got)) in e.iter().zip(a).enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                differences(value, got, at, out);
                at.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => out.push(format!(
            "{}expected {} elements, got {}: expected {}, got {}",
            place(at),
            e.len(),
            a.len(),
            shown(expected),
            shown(actual)
        )),
        _ if same(expected, actual) => {}
        _ => out.push(format!(
            "{}expected {}, got {}",
            place(at),
            shown(expected),
            shown(actual)
        )),
    }
}

/// A value as compact JSON, cut at [`MAX_SHOWN_CHARS`] characters.
pub(super) fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_differ_at_their_pointers() {
        let mut out = Vec::new();
        differences(
            &json!({"a": 1, "b": [1, 2], "c": {"d": "x"}, "gone": true}),
            &json!({"a": 1.0, "b": [1, 3], "c": {"d": "y"}, "extra": null}),
            &mut String::new(),
            &mut out,
        );
        assert_eq!(
            out,
            [
                "at /b/1: expected 2, got 3",
                "at /c/d: expected \"x\", got \"y\"",
                "at /gone: expected true, got nothing",
                "`extra` is not expected, got null",
            ]
        );
    }

    #[test]
    fn numbers_are_the_same_by_value() {
        assert!(same(&json!(5), &json!(5.0)));
        assert!(same(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!same(&json!(5), &json!("5")));
        assert!(same(&json!({"a": [1]}), &json!({"a": [1.0]})));
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(500));
        assert_eq!(shown(&long).chars().count(), MAX_SHOWN_CHARS + 1);
    }
}

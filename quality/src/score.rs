//! Scoring a run, exactly as the case set's `score.py` does: a case scores the share of its members
//! that are right (1 for a scalar answer that is right), and is exact when every member is.
//!
//! Strings compare case- and space-insensitively with commas dropped; members named in the case
//! set's `contains_members` pass when the expected text is contained in the answer; numbers compare
//! within 1e-6 (a numeric string counts as its number); lists compare as sorted sets of texts; an
//! expected `null` passes for `null` or an empty string.

use serde_json::Value;

use crate::cases::{Case, CaseSet};
use crate::run::Row;

/// The totals of a scored run.
///
/// ```
/// use intent_quality::{score_rows, CaseSet, Row};
///
/// let set: CaseSet = serde_json::from_str(r#"{"cases": [
///     {"id": "a", "kind": "severity", "intent": "Rate.", "input": "typo", "expect": "Cosmetic"}
/// ]}"#).unwrap();
/// let rows = [Row { id: "a".into(), output: Some("cosmetic".into()), error: None, calls: 1, tokens_in: 10, tokens_out: 2, retried_on: vec![] }];
/// let summary = score_rows(&set, &rows);
/// assert_eq!((summary.cases, summary.exact), (1, 1));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Cases scored.
    pub cases: usize,
    /// Cases with a verified answer.
    pub answered: usize,
    /// Cases with every member right.
    pub exact: usize,
    /// The mean share of members right, from 0 to 1.
    pub field: f64,
    /// Model calls over the run.
    pub calls: u64,
    /// Input tokens over the run.
    pub tokens_in: u64,
    /// Output tokens over the run.
    pub tokens_out: u64,
    /// The cases that scored below 1: id, score, answer and error.
    pub misses: Vec<(String, f64, Option<Value>, Option<String>)>,
}

/// Scores `rows` against the cases of `set` (rows whose id is not in the set are skipped).
pub fn score_rows(set: &CaseSet, rows: &[Row]) -> Summary {
    let mut summary = Summary::default();
    let mut field = 0.0;
    for row in rows {
        let Some(case) = set.cases.iter().find(|c| c.id == row.id) else {
            continue;
        };
        let s = score_case(set, case, row.output.as_ref());
        summary.cases += 1;
        summary.answered += usize::from(row.output.is_some());
        summary.exact += usize::from(s == 1.0);
        field += s;
        summary.calls += row.calls;
        summary.tokens_in += row.tokens_in;
        summary.tokens_out += row.tokens_out;
        if s < 1.0 {
            summary
                .misses
                .push((row.id.clone(), s, row.output.clone(), row.error.clone()));
        }
    }
    summary.field = field / summary.cases.max(1) as f64;
    summary
}

/// One case's score, from 0 to 1.
pub fn score_case(set: &CaseSet, case: &Case, output: Option<&Value>) -> f64 {
    let Some(out) = output else { return 0.0 };
    let contains = |member: &str| set.contains_members.iter().any(|m| m == member);
    let marks = |expected: &serde_json::Map<String, Value>, got: Option<&Value>| {
        expected
            .iter()
            .map(|(k, e)| {
                let g = got.and_then(|g| g.get(k));
                same(contains(k), e, g)
            })
            .collect::<Vec<bool>>()
    };
    match &case.expect {
        Value::String(expected) => f64::from(u8::from(norm_str(expected) == norm(out))),
        Value::Array(expected) => {
            let Some(out) = out.as_array().filter(|o| o.len() == expected.len()) else {
                return 0.0;
            };
            let all: Vec<bool> = expected
                .iter()
                .zip(out)
                .flat_map(|(e, o)| match e.as_object() {
                    Some(e) => marks(e, Some(o).filter(|o| o.is_object())),
                    None => vec![same(false, e, Some(o))],
                })
                .collect();
            share(&all)
        }
        Value::Object(expected) => {
            if !out.is_object() {
                return 0.0;
            }
            share(&marks(expected, Some(out)))
        }
        other => f64::from(u8::from(same(false, other, Some(out)))),
    }
}

fn share(marks: &[bool]) -> f64 {
    if marks.is_empty() {
        return 0.0;
    }
    marks.iter().filter(|m| **m).count() as f64 / marks.len() as f64
}

fn same(contains: bool, expected: &Value, got: Option<&Value>) -> bool {
    match expected {
        Value::Null => matches!(got, None | Some(Value::Null)) || got == Some(&Value::from("")),
        Value::Bool(b) => got == Some(&Value::Bool(*b)),
        Value::Number(n) => {
            let got = got.and_then(|g| match g {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            });
            matches!((n.as_f64(), got), (Some(e), Some(g)) if (e - g).abs() < 1e-6)
        }
        Value::Array(expected) => match got {
            Some(Value::Array(got)) => {
                let mut e: Vec<String> = expected.iter().map(norm).collect();
                let mut g: Vec<String> = got.iter().map(norm).collect();
                e.sort();
                g.sort();
                e == g
            }
            _ => false,
        },
        _ => match got {
            None | Some(Value::Null) => false,
            Some(got) if contains => norm(got).contains(&norm(expected)),
            Some(got) => norm(expected) == norm(got),
        },
    }
}

/// A value's text as Python's `str` gives it, lower-cased, commas dropped, spaces collapsed.
fn norm(value: &Value) -> String {
    match value {
        Value::String(s) => norm_str(s),
        Value::Bool(true) => "true".to_owned(),
        Value::Bool(false) => "false".to_owned(),
        Value::Null => "none".to_owned(),
        other => norm_str(&other.to_string()),
    }
}

fn norm_str(text: &str) -> String {
    text.to_lowercase()
        .replace(',', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set() -> CaseSet {
        serde_json::from_value(json!({
            "contains_members": ["street"],
            "cases": [
                {"id": "s", "kind": "shipment", "intent": "", "input": "", "expect":
                    {"street": "Elm Road 2", "postcode": null, "city": "Leeds"}},
                {"id": "e", "kind": "expense", "intent": "", "input": "", "expect":
                    [{"item": "Taxi", "amount": 23.4}, {"item": "hotel", "amount": 129.0}]},
                {"id": "m", "kind": "meeting", "intent": "", "input": "", "expect":
                    {"attendees": ["Priya", "Marco"], "remote": true}}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn members_score_as_score_py_does() {
        let set = set();
        let got = json!({"street": "221 elm road 2, west", "postcode": "", "city": "LEEDS"});
        assert_eq!(score_case(&set, &set.cases[0], Some(&got)), 1.0);
        let got = json!({"street": "Elm", "postcode": "LS1", "city": "Leeds"});
        assert!((score_case(&set, &set.cases[0], Some(&got)) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(score_case(&set, &set.cases[0], None), 0.0);
    }

    #[test]
    fn lists_need_the_same_length_and_numbers_may_be_strings() {
        let set = set();
        let got = json!([{"item": "taxi", "amount": "23.4"}, {"item": "Hotel", "amount": 129}]);
        assert_eq!(score_case(&set, &set.cases[1], Some(&got)), 1.0);
        let short = json!([{"item": "taxi", "amount": 23.4}]);
        assert_eq!(score_case(&set, &set.cases[1], Some(&short)), 0.0);
    }

    #[test]
    fn string_lists_compare_as_sorted_texts_and_bools_exactly() {
        let set = set();
        let got = json!({"attendees": ["marco", "PRIYA"], "remote": true});
        assert_eq!(score_case(&set, &set.cases[2], Some(&got)), 1.0);
        let got = json!({"attendees": ["marco"], "remote": "true"});
        assert_eq!(score_case(&set, &set.cases[2], Some(&got)), 0.0);
    }
}

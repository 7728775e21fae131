//! Copied examples: a reply that is a worked example's output, given for an input that is not
//! that example's.
//!
//! Small models often answer with an example's output word for word. Such a reply reads and
//! verifies (it has the right shape), so without this check it would be returned as a success
//! carrying the example's values. A reply is taken for a copy of example *n* when:
//!
//! - its value equals example *n*'s output (as JSON, with or without the `{"value": ...}`
//!   envelope; as text, whitespace aside, for a text result),
//! - the call's input is not example *n*'s input, and
//! - the output carries something taken from example *n*'s input that this input does not have:
//!   a text of at least 3 characters, or a number of at least 2 digits, found in the example's
//!   input and not in this one (case aside).
//!
//! The last condition keeps answers that are legitimately the same for two inputs (a label such
//! as `"positive"`, a `true`, a count of 1) from being taken for copies: they carry nothing of
//! the example's input. The finding names the example ("Example 1") and goes back to the model
//! like any other, with kind [`IssueKind::CopiedExample`].

use serde_json::Value;

use crate::options::IntentExample;
use crate::result::{IssueKind, ResultIssue};

/// The issue of a reply that copies one of `examples` for `input`, if it does.
pub(in crate::attempt) fn copied_example(
    examples: &[IntentExample],
    input: &str,
    reply: &str,
) -> Option<ResultIssue> {
    if examples.is_empty() {
        return None;
    }
    let reply_value = comparable(reply);
    let input_lower = input.to_lowercase();
    examples.iter().enumerate().find_map(|(i, example)| {
        if example.input.trim() == input.trim() || comparable(&example.output) != reply_value {
            return None;
        }
        let example_input = example.input.to_lowercase();
        let mut leaves = Vec::new();
        collect_leaves(&reply_value, &mut leaves);
        let taken = leaves.iter().find(|leaf| {
            let leaf = leaf.to_lowercase();
            example_input.contains(&leaf) && !input_lower.contains(&leaf)
        })?;
        let n = i + 1;
        Some(ResultIssue::new(
            IssueKind::CopiedExample,
            format!(
                "The answer is Example {n}'s output, copied: it carries \"{taken}\" from Example {n}'s input, which the input above does not contain. The examples show the format only; take every value from the input above."
            ),
        ))
    })
}

/// A reply or an example output as a value to compare: its JSON without the `{"value": ...}`
/// envelope, or its text with runs of whitespace made one space.
fn comparable(text: &str) -> Value {
    let trimmed = text.trim();
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(mut object)) if object.len() == 1 && object.contains_key("value") => {
            object.remove("value").unwrap_or(Value::Null)
        }
        Ok(value) => value,
        Err(_) => Value::String(trimmed.split_whitespace().collect::<Vec<_>>().join(" ")),
    }
}

/// The texts (3 characters or more) and numbers (2 digits or more) in `value`, the leaves that
/// can show where a value came from.
fn collect_leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if s.trim().chars().count() >= 3 => out.push(s.trim().to_owned()),
        Value::Number(n) => {
            let text = n.to_string();
            if text.chars().filter(char::is_ascii_digit).count() >= 2 {
                out.push(text);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_leaves(v, out)),
        Value::Object(members) => members.values().for_each(|v| collect_leaves(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sam() -> Vec<IntentExample> {
        vec![
            IntentExample::new(
                "Hi, I need 3 chairs. Lee",
                r#"{"value": {"contact": "Lee", "quantity": 3}}"#,
            ),
            IntentExample::new(
                "Sam from Acme: please send 12 units of B-7.",
                r#"{"value": {"contact": "Sam", "sku": "B-7", "quantity": 12}}"#,
            ),
        ]
    }

    /// Whether `reply`, given for `input`, is taken for a copy of one of [`sam`]'s examples.
    fn copies_sam(input: &str, reply: &str) -> bool {
        copied_example(&sam(), input, reply).is_some()
    }

    #[test]
    fn a_copy_of_an_example_for_another_input_names_the_example() {
        let issue = copied_example(
            &sam(),
            "Dana here: 40 of A-1192 please.",
            r#"{"value":{"contact":"Sam","sku":"B-7","quantity":12}}"#,
        )
        .unwrap();
        assert_eq!(issue.kind, IssueKind::CopiedExample);
        assert!(
            issue
                .message
                .starts_with("The answer is Example 2's output, copied"),
            "{}",
            issue.message
        );
        // Without the envelope, and as the example's own input: the same answer and no copy.
        assert!(copies_sam(
            "Dana: 40 of A-1192",
            r#"{"contact": "Sam", "sku": "B-7", "quantity": 12}"#
        ));
        assert!(!copies_sam(
            " Sam from Acme: please send 12 units of B-7.",
            r#"{"value":{"contact":"Sam","sku":"B-7","quantity":12}}"#
        ));
    }

    #[test]
    fn an_answer_that_takes_nothing_from_the_example_input_is_not_a_copy() {
        let labels = vec![IntentExample::new("I love it", "positive")];
        assert!(copied_example(&labels, "Great product", "positive").is_none());
        // The same values, present in this input too: the model read them from it.
        assert!(!copies_sam(
            "Sam again: 12 more of B-7.",
            r#"{"value":{"contact":"Sam","sku":"B-7","quantity":12}}"#
        ));
        // A different answer is never a copy.
        assert!(!copies_sam(
            "Dana: 40 of A-1192",
            r#"{"value":{"contact":"Dana","sku":"A-1192","quantity":40}}"#
        ));
    }
}

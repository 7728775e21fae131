//! Empty list answers that are suspicious: the policy.
//!
//! A small model asked for a list often answers `[]` although the input plainly holds items: the
//! empty list has the right shape and passes every check, so it would be returned as a success.
//! The policy, for a call whose result is a list (`Vec<E>` and the other sequences, also inside an
//! `Option`):
//!
//! - an empty list answer to an input that is not empty (the input's text is not empty, `""`,
//!   `[]`, `{}` or `null`) is a finding ([`IssueKind::Empty`]) and the call retries with it;
//! - this happens **once per call**: when the next attempt answers an empty list again, the answer
//!   is taken as honest and returned. An input that truly holds no items costs one extra attempt;
//!   a call with `max_attempts = 1` never retries and takes the empty list at once;
//! - lists inside a result (a struct's `lines`) are not judged: many are honestly empty (tags,
//!   notes). State `#[intent(min_items = 1)]` on a member that must hold an item;
//! - collection calls (`map_each`, `map_values`) are not concerned: their chunks are checked for one
//!   answer per input element instead.
//!
//! Whether the answer is an empty list is decided on the reply's text once the reader has accepted
//! it as the list: its answer holds `[]` and no `[` that opens an element. The decision never
//! flags a list that holds an element; prose with brackets around an empty answer may hide one
//! (the call then takes the empty answer, as it would without this policy).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::input::SerializedInput;
use crate::read::split_reasoning;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{Node, TypeInfo};

/// The policy for one call: whether it applies, and whether the call has used its one retry.
pub(in crate::attempt) struct EmptyListPolicy {
    applies: bool,
    flagged: AtomicBool,
}

impl EmptyListPolicy {
    /// The policy for a call of the type `info` on `input` that may make `max_attempts` attempts.
    pub(in crate::attempt) fn new(
        info: &TypeInfo,
        input: &SerializedInput,
        max_attempts: u32,
    ) -> Self {
        EmptyListPolicy {
            applies: max_attempts > 1 && is_list(info) && !is_empty_input(&input.text),
            flagged: AtomicBool::new(false),
        }
    }

    /// The finding for `text`, a reply the reader accepted, when it is an empty list the call has
    /// not questioned yet.
    pub(in crate::attempt) fn check(&self, text: &str) -> Option<ResultIssue> {
        if !self.applies || !is_empty_list(text) || self.flagged.swap(true, Ordering::Relaxed) {
            return None;
        }
        Some(ResultIssue::at(
            format!("/{ENVELOPE_PROPERTY}"),
            IssueKind::Empty,
            "The answer is an empty list, but the input is not empty. Read the input again: return every item in it that the intent asks for; if it truly holds none, return an empty list again.",
        ))
    }
}

/// True when the result's root, an `Option` peeled, is a sequence.
fn is_list(info: &TypeInfo) -> bool {
    let graph = info.graph();
    let mut id = info.root();
    loop {
        match graph.node(id) {
            Node::Option(inner) => id = *inner,
            Node::Seq { .. } => return true,
            _ => return false,
        }
    }
}

/// True for an input with nothing in it.
fn is_empty_input(text: &str) -> bool {
    matches!(text.trim(), "" | "\"\"" | "[]" | "{}" | "null")
}

/// True when the answer of `text` (its reasoning set aside) holds an empty array and no array
/// with an element.
fn is_empty_list(text: &str) -> bool {
    let (answer, _) = split_reasoning(text);
    let bytes = answer.as_bytes();
    let mut empty = false;
    for (at, _) in answer.match_indices('[') {
        let next = bytes[at + 1..]
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .copied();
        match next {
            Some(b']') => empty = true,
            _ => return false,
        }
    }
    empty
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Intent;

    use crate::attempt::checks::text_input as input;

    #[test]
    fn an_empty_list_is_questioned_once_per_call() {
        let policy = EmptyListPolicy::new(&<Vec<u32>>::type_info(), &input("3 apples, 2 pears"), 3);
        let issue = policy.check("{\"value\": []}").expect("questioned");
        assert_eq!(issue.kind, IssueKind::Empty);
        assert_eq!(issue.path.as_deref(), Some("/value"));
        assert!(policy.check("{\"value\": []}").is_none());
    }

    #[test]
    fn a_list_with_an_element_or_an_empty_input_is_not_questioned() {
        let policy = EmptyListPolicy::new(&<Vec<Vec<u32>>>::type_info(), &input("[1]"), 3);
        assert!(policy.check("[[], [1]]").is_none());
        assert!(policy.check("{\"value\": [ [ ] , []]}").is_none());
        assert!(policy.check("{\"value\": [ ]}").is_some());
        for empty in ["", "  ", "\"\"", "[]", "{}", "null"] {
            let policy = EmptyListPolicy::new(&<Vec<u32>>::type_info(), &input(empty), 3);
            assert!(policy.check("[]").is_none(), "{empty:?}");
        }
    }

    #[test]
    fn only_list_results_are_judged() {
        let text = input("some text");
        assert!(
            EmptyListPolicy::new(&<Option<Vec<u32>>>::type_info(), &text, 3)
                .check("[]")
                .is_some()
        );
        assert!(
            EmptyListPolicy::new(&<Option<Vec<u32>>>::type_info(), &text, 3)
                .check("null")
                .is_none()
        );
        assert!(
            EmptyListPolicy::new(&<serde_json::Value>::type_info(), &text, 3)
                .check("[]")
                .is_none()
        );
    }

    #[test]
    fn reasoning_before_the_answer_is_not_read() {
        let policy = EmptyListPolicy::new(&<Vec<u32>>::type_info(), &input("x"), 3);
        assert!(policy.check("<think>maybe [1]</think>[]").is_some());
    }
}

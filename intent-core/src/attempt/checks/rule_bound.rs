//! Rule bounds given as answers: the policy.
//!
//! The output requirements state each member's rules ("`salaryMin`, when not null: must not be below 1"),
//! and a small model sometimes answers with the number it read there: `1` for a salary the input
//! does not give, or for one it does. Such a value passes its rule (it is the rule's own bound), so
//! without this check it would be returned as a success. The policy, for a call whose result type
//! has members with an inclusive numeric bound (`minimum`, `maximum`):
//!
//! - a member whose answer is exactly one of its own rule's bounds, where the call's input does
//!   not contain that number (as a number: `1` is not found in `10` or `1.5`), is a finding
//!   ([`IssueKind::CopiedRule`]) naming the member and its JSON path, and the call retries with it;
//! - this happens **once per call**: when the next attempt answers the bound again, the answer is
//!   taken as honest and returned. An answer that truly is the bound and is not written as a number
//!   in the input ("one unit" for a `quantity` of at least 1) costs one extra attempt; a call with
//!   `max_attempts = 1` never retries and takes it at once;
//! - exclusive bounds cannot be met by their own number and are not concerned; collection calls
//!   (`map_each`, `map_values`) are not either, their chunks being checked for one answer per
//!   input element instead.
//!
//! The finding says the rule bounds the value rather than giving it, and that the bound is the
//! right answer again if the input means it, so a model that was right keeps its answer.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use crate::input::SerializedInput;
use crate::read::join_pointer;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{member_subject, number, MemberStep, Seg, TypeInfo};

/// A member with inclusive numeric bounds.
struct Bounded {
    path: Vec<Seg>,
    bounds: Vec<f64>,
    nullable: bool,
}

/// The policy for one call: the members it watches, and whether the call has used its one retry.
pub(in crate::attempt) struct BoundPolicy<'a> {
    members: Vec<Bounded>,
    input: &'a str,
    flagged: AtomicBool,
}

impl<'a> BoundPolicy<'a> {
    /// The policy for a call of the type `info` on `input` that may make `max_attempts` attempts.
    pub(in crate::attempt) fn new(
        info: &TypeInfo,
        input: &'a SerializedInput,
        max_attempts: u32,
    ) -> Self {
        let mut members = Vec::new();
        if max_attempts > 1 {
            info.graph()
                .for_each_ruled_member(info.root(), |path, rules, nullable| {
                    let bounds: Vec<f64> = rules.minimum.into_iter().chain(rules.maximum).collect();
                    if !bounds.is_empty() {
                        members.push(Bounded {
                            path: path.to_vec(),
                            bounds,
                            nullable,
                        });
                    }
                });
        }
        BoundPolicy {
            members,
            input: &input.text,
            flagged: AtomicBool::new(false),
        }
    }

    /// True when the policy may question an answer, so the caller reads the answer's JSON.
    pub(in crate::attempt) fn applies(&self) -> bool {
        !self.members.is_empty() && !self.flagged.load(Ordering::Relaxed)
    }

    /// The findings for `answer`, the JSON of an answer that passed every check, when it gives a
    /// bound the input does not contain and the call has not questioned one yet.
    pub(in crate::attempt) fn check(&self, answer: &Value) -> Vec<ResultIssue> {
        if !self.applies() {
            return Vec::new();
        }
        let mut issues = Vec::new();
        for member in &self.members {
            let mut found = Vec::new();
            values_at(
                answer,
                &member.path,
                format!("/{ENVELOPE_PROPERTY}"),
                &mut found,
            );
            for (pointer, value) in found {
                let Some(n) = value.as_f64() else { continue };
                if !member.bounds.contains(&n) || contains_number(self.input, n) {
                    continue;
                }
                issues.push(issue(member, pointer, n));
            }
        }
        if !issues.is_empty() && self.flagged.swap(true, Ordering::Relaxed) {
            return Vec::new();
        }
        issues
    }
}

/// The finding for `member`, answered `n` at `pointer`.
fn issue(member: &Bounded, pointer: String, n: f64) -> ResultIssue {
    let steps: Vec<MemberStep<'_>> = member.path.iter().map(Seg::step).collect();
    let subject = member_subject(&steps);
    let n = number(n);
    let otherwise = if member.nullable {
        ", or null if it states none"
    } else {
        ""
    };
    ResultIssue::at(
        pointer,
        IssueKind::CopiedRule,
        format!(
            "{subject} is {n}, the bound its rule states, and the input does not contain {n}. A rule bounds the value; it does not give it. Give the value the input states{otherwise}; if the input does mean {n}, return {n} again."
        ),
    )
}

/// Every value of `value` at `path`, with its JSON pointer below `pointer`.
fn values_at<'v>(
    value: &'v Value,
    path: &[Seg],
    pointer: String,
    out: &mut Vec<(String, &'v Value)>,
) {
    let Some((step, rest)) = path.split_first() else {
        out.push((pointer, value));
        return;
    };
    match (step, value) {
        (Seg::Member(name), Value::Object(object)) => {
            if let Some(member) = object.get(name) {
                values_at(member, rest, join_pointer(&pointer, name), out);
            }
        }
        (Seg::Each, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                values_at(item, rest, join_pointer(&pointer, &i.to_string()), out);
            }
        }
        (Seg::EachValue, Value::Object(object)) => {
            for (key, item) in object {
                values_at(item, rest, join_pointer(&pointer, key), out);
            }
        }
        (Seg::Index(i), Value::Array(items)) => {
            if let Some(item) = items.get(*i) {
                values_at(item, rest, join_pointer(&pointer, &i.to_string()), out);
            }
        }
        // An enum variant's members sit below its tag; a value of another form holds none.
        (_, Value::Object(object)) if object.len() == 1 => {
            if let Some(inner) = object.values().next() {
                values_at(inner, path, pointer, out);
            }
        }
        _ => {}
    }
}

/// True when `text` holds `n` written as a number: its digits not inside a longer number.
fn contains_number(text: &str, n: f64) -> bool {
    let written = number(n);
    let bytes = text.as_bytes();
    text.match_indices(&written).any(|(at, _)| {
        let end = at + written.len();
        let before = |back: usize| at.checked_sub(back).map(|i| bytes[i]);
        let digit_before = before(1).is_some_and(|b| b.is_ascii_digit())
            || (matches!(before(1), Some(b'.' | b','))
                && before(2).is_some_and(|b| b.is_ascii_digit()))
            // `-1` is another number than 1; `5-1` is a range that holds it.
            || (n >= 0.0
                && before(1) == Some(b'-')
                && !before(2).is_some_and(|b| b.is_ascii_digit()));
        let digit_after = bytes.get(end).is_some_and(u8::is_ascii_digit)
            || (matches!(bytes.get(end), Some(b'.' | b','))
                && bytes.get(end + 1).is_some_and(u8::is_ascii_digit));
        !digit_before && !digit_after
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Intent;

    fn input(text: &str) -> SerializedInput {
        crate::input::serialize(text, usize::MAX).expect("a text input")
    }

    #[test]
    fn a_number_is_found_only_as_a_whole_number() {
        assert!(contains_number("Suite 1, Leeds", 1.0));
        assert!(contains_number("1", 1.0));
        assert!(contains_number("between 1 and 9", 9.0));
        assert!(!contains_number("10 units", 1.0));
        assert!(!contains_number("1.5 kg", 1.0));
        assert!(!contains_number("2,1 kg", 1.0));
        assert!(!contains_number("21", 1.0));
        assert!(!contains_number("one unit", 1.0));
        assert!(contains_number("at 0.5 each", 0.5));
        assert!(!contains_number("at 10.5 each", 0.5));
        assert!(!contains_number("it fell by -1", 1.0));
        assert!(contains_number("for 5-1 votes", 1.0));
        assert!(contains_number("it fell by -1", -1.0));
    }

    #[test]
    fn values_are_found_at_their_paths() {
        let json: Value = serde_json::json!({"lines": [{"q": 1}, {"q": 2}], "total": 3});
        let mut out = Vec::new();
        values_at(
            &json,
            &[
                Seg::Member("lines".into()),
                Seg::Each,
                Seg::Member("q".into()),
            ],
            "/value".into(),
            &mut out,
        );
        let found: Vec<(String, Value)> = out.into_iter().map(|(p, v)| (p, v.clone())).collect();
        assert_eq!(
            found,
            vec![
                ("/value/lines/0/q".to_owned(), Value::from(1)),
                ("/value/lines/1/q".to_owned(), Value::from(2))
            ]
        );
    }

    #[test]
    fn a_type_without_bounds_has_nothing_to_watch() {
        let text = input("anything");
        assert!(!BoundPolicy::new(&<u32>::type_info(), &text, 3).applies());
        assert!(!BoundPolicy::new(&<Vec<String>>::type_info(), &text, 3).applies());
    }
}

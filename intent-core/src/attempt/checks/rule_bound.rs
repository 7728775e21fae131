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
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{member_subject, number, BoundedMember as Bounded, MemberStep, Seg, TypeInfo};
use crate::trust::{answer_values_at, contains_number};

/// The policy for one call: the members it watches, and whether the call has used its one retry.
pub(in crate::attempt) struct BoundPolicy<'a> {
    members: &'a [Bounded],
    input: &'a str,
    flagged: AtomicBool,
}

impl<'a> BoundPolicy<'a> {
    /// The policy for a call of the type `info` on `input` that may make `max_attempts` attempts.
    pub(in crate::attempt) fn new(
        info: &'a TypeInfo,
        input: &'a SerializedInput,
        max_attempts: u32,
    ) -> Self {
        BoundPolicy {
            members: if max_attempts > 1 {
                info.bounded_members()
            } else {
                &[]
            },
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
        for member in self.members {
            answer_values_at(answer, &member.path, &mut |at, value| {
                let Some(n) = value.as_f64() else { return };
                if member.bounds.contains(&n) && !contains_number(self.input, n) {
                    issues.push(issue(member, at.pointer(), n));
                }
            });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Intent;

    use crate::attempt::checks::text_input as input;

    #[test]
    fn a_type_without_bounds_has_nothing_to_watch() {
        let text = input("anything");
        assert!(!BoundPolicy::new(&<u32>::type_info(), &text, 3).applies());
        assert!(!BoundPolicy::new(&<Vec<String>>::type_info(), &text, 3).applies());
    }
}

//! Sample values in member descriptions: the policy.
//!
//! A doc comment that gives a sample (`/// The product code, such as A-1192.`) tells the model the
//! form of a value, and a small model answers with the sample for inputs that hold another one:
//! the answer reads, verifies and passes every rule, so without this check it would be returned
//! as a success carrying the description's value. Samples are the words after `such as`, `e.g.`,
//! `for example` and `for instance` (a quoted text, or one word; more words joined by `or` or a
//! comma when they hold a digit or are quoted), and every backticked word. The policy:
//!
//! - a text or number member whose answer equals one of its own description's samples (compared
//!   as the grounded members compare: without case, white space and punctuation differences, a
//!   number as a number), where the input does not contain that sample, is a finding
//!   ([`IssueKind::CopiedExample`]) naming the member and its JSON path;
//! - this happens **once per call**: when the next attempt answers a sample again, the answer is
//!   taken as honest. A call with `max_attempts = 1` never retries and takes it at once;
//! - enum and `bool` members are not concerned (their values are choices a description may
//!   well name), nor collection calls (their chunks are checked for one answer per element).
//!
//! `AnswerChecks::sample_values` turns it off.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

use super::ground::{number_readings, Grounds};
use super::paths::{answer_values_at, quoted, At};
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{member_subject, MemberStep, SampledMember as Sampled, Seg, TypeInfo};

/// The policy for one call: the members it watches (found once per type), and whether the call
/// has used its one retry.
pub(crate) struct SamplePolicy<'a> {
    members: &'a [Sampled],
    flagged: AtomicBool,
}

impl<'a> SamplePolicy<'a> {
    /// The policy for a call of the type `info` that may make `max_attempts` attempts.
    pub(crate) fn new(info: &'a TypeInfo, max_attempts: u32) -> Self {
        SamplePolicy {
            members: if max_attempts > 1 {
                info.sampled_members()
            } else {
                &[]
            },
            flagged: AtomicBool::new(false),
        }
    }

    /// True when the policy may question an answer, so the caller reads the answer's JSON.
    pub(crate) fn applies(&self) -> bool {
        !self.members.is_empty() && !self.flagged.load(Ordering::Relaxed)
    }

    /// The findings for `answer` (the value inside the envelope) when it gives a sample the
    /// input (`grounds`) does not contain and the call has not questioned one yet; a value at a
    /// pointer in `skip` (already found wanting) is not questioned again.
    pub(crate) fn check(
        &self,
        answer: &Value,
        grounds: &Grounds,
        skip: &[ResultIssue],
    ) -> Vec<ResultIssue> {
        if !self.applies() {
            return Vec::new();
        }
        let mut issues = Vec::new();
        for member in self.members {
            answer_values_at(answer, &member.path, &mut |at, value| {
                leaves_of(value, at, &mut |at, leaf| {
                    let Some(sample) = member.samples.iter().find(|s| equals(leaf, s)) else {
                        return;
                    };
                    if grounds.contains(sample) {
                        return;
                    }
                    let pointer = at.pointer();
                    if skip
                        .iter()
                        .any(|i| i.path.as_deref() == Some(pointer.as_str()))
                    {
                        return;
                    }
                    issues.push(issue(member, pointer, leaf, sample));
                })
            });
        }
        if !issues.is_empty() && self.flagged.swap(true, Ordering::Relaxed) {
            return Vec::new();
        }
        issues
    }
}

/// Calls `visit` with the texts and numbers of `value` (a list's elements too) and where each
/// sits below `at`.
fn leaves_of(value: &Value, at: &At<'_>, visit: &mut dyn FnMut(&At<'_>, &Value)) {
    match value {
        Value::String(_) | Value::Number(_) => visit(at, value),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                leaves_of(item, &At::Element(at, i), visit);
            }
        }
        _ => {}
    }
}

/// True when `value` is `sample`: the same folded text, or the same number.
fn equals(value: &Value, sample: &str) -> bool {
    match value {
        Value::String(text) => {
            fold_eq(text, sample) || {
                let readings = number_readings(text);
                number_readings(sample).iter().any(|n| readings.contains(n))
            }
        }
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|n| number_readings(sample).contains(&n)),
        _ => false,
    }
}

/// The same text without case, white space and punctuation differences (compared as it is
/// folded, without writing either text out).
fn fold_eq(a: &str, b: &str) -> bool {
    let mut a_folded = a
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .peekable();
    a_folded.peek().is_some()
        && a_folded.eq(b
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase))
}

/// The finding for `member`, answered `value` (its description's `sample`) at `pointer`.
fn issue(member: &Sampled, pointer: String, value: &Value, sample: &str) -> ResultIssue {
    let steps: Vec<MemberStep<'_>> = member.path.iter().map(Seg::step).collect();
    let subject = member_subject(&steps);
    let otherwise = if member.nullable {
        ", or null if it states none"
    } else {
        ""
    };
    let value = quoted(value);
    ResultIssue::at(
        pointer,
        IssueKind::CopiedExample,
        format!(
            "{subject} is `{value}`, the sample its description gives (\"{sample}\"), and the input does not contain it. A description's sample shows the form only; give the value the input states{otherwise}; if the input does mean `{value}`, return it again."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_equals_its_value_as_grounded_members_compare() {
        assert!(equals(&Value::from("a-1192"), "A-1192"));
        assert!(equals(&Value::from(40), "40"));
        assert!(equals(&Value::from("1,200"), "1200"));
        assert!(!equals(&Value::from("A-11920"), "A-1192"));
    }
}

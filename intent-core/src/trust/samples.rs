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
use super::paths::{answer_values_at, quoted};
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{member_subject, MemberStep, Node, Scalar, Seg, TypeInfo};

/// Where a sample starts, lower case.
const MARKERS: [&str; 4] = ["such as", "e.g.", "for example", "for instance"];

/// The samples a description names, in order, each once.
pub(crate) fn samples_in(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |sample: &str| {
        let sample = sample.trim();
        if !sample.is_empty()
            && sample.chars().any(char::is_alphanumeric)
            && sample.chars().count() <= 80
            && !out.iter().any(|s| s == sample)
        {
            out.push(sample.to_owned());
        }
    };
    let lower = doc.to_lowercase();
    // Lower-casing keeps byte offsets only for text whose case change keeps lengths; otherwise
    // only the backticked samples are read.
    if lower.len() == doc.len() {
        for marker in MARKERS {
            for (at, _) in lower.match_indices(marker) {
                let before = lower[..at].chars().next_back();
                if before.is_some_and(char::is_alphanumeric) {
                    continue;
                }
                let mut rest = &doc[at + marker.len()..];
                loop {
                    rest = rest.trim_start_matches([' ', ',', ':', '\t', '\n']);
                    let Some((sample, after, quoted)) = one_sample(rest) else {
                        break;
                    };
                    push(sample);
                    // More samples: ", B-7" or " or B-7", when they look like values.
                    let next = after
                        .strip_prefix(", or ")
                        .or_else(|| after.strip_prefix(" or "))
                        .or_else(|| after.strip_prefix(", "));
                    match next {
                        Some(next) => {
                            let looks = match one_sample(next) {
                                Some((s, _, q)) => q || s.chars().any(|c| c.is_ascii_digit()),
                                None => false,
                            };
                            if !looks || !(quoted || sample.chars().any(|c| c.is_ascii_digit())) {
                                break;
                            }
                            rest = next;
                        }
                        None => break,
                    }
                }
            }
        }
    }
    let mut rest = doc;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else { break };
        push(&after[..close]);
        rest = &after[close + 1..];
    }
    out
}

/// The sample at the start of `text`: a quoted text, or one word without the punctuation that
/// ends it; with the text after it and whether it was quoted.
fn one_sample(text: &str) -> Option<(&str, &str, bool)> {
    let first = text.chars().next()?;
    let close = match first {
        '"' => Some('"'),
        '\'' => Some('\''),
        '`' => Some('`'),
        '“' => Some('”'),
        '‘' => Some('’'),
        _ => None,
    };
    if let Some(close) = close {
        let body = &text[first.len_utf8()..];
        let end = body.find(close)?;
        return Some((&body[..end], &body[end + close.len_utf8()..], true));
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    let word = text[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
    let word = word.trim_start_matches(['(', '[']);
    if word.is_empty() {
        return None;
    }
    // The rest starts where the word ends, its trailing punctuation included.
    let consumed = text[..end].rfind(word).map_or(end, |at| at + word.len());
    Some((word, &text[consumed..], false))
}

/// A member whose description names samples.
struct Sampled {
    path: Vec<Seg>,
    samples: Vec<String>,
    nullable: bool,
}

/// The policy for one call: the members it watches, and whether the call has used its one retry.
pub(crate) struct SamplePolicy {
    members: Vec<Sampled>,
    flagged: AtomicBool,
}

impl SamplePolicy {
    /// The policy for a call of the type `info` that may make `max_attempts` attempts.
    pub(crate) fn new(info: &TypeInfo, max_attempts: u32) -> Self {
        let mut members = Vec::new();
        if max_attempts > 1 {
            let graph = info.graph();
            graph.for_each_member(info.root(), |path, field, nullable| {
                let Some(doc) = field.doc.as_deref() else {
                    return;
                };
                if !is_text_or_number(info, field.ty) {
                    return;
                }
                let samples = samples_in(doc);
                if !samples.is_empty() {
                    members.push(Sampled {
                        path: path.to_vec(),
                        samples,
                        nullable,
                    });
                }
            });
        }
        SamplePolicy {
            members,
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
        for member in &self.members {
            for (pointer, value) in answer_values_at(answer, &member.path) {
                let mut leaves = Vec::new();
                leaves_of(value, pointer, &mut leaves);
                for (pointer, leaf) in leaves {
                    if skip
                        .iter()
                        .any(|i| i.path.as_deref() == Some(pointer.as_str()))
                    {
                        continue;
                    }
                    let Some(sample) = member.samples.iter().find(|s| equals(leaf, s)) else {
                        continue;
                    };
                    if grounds.contains(sample) {
                        continue;
                    }
                    issues.push(issue(member, pointer, leaf, sample));
                }
            }
        }
        if !issues.is_empty() && self.flagged.swap(true, Ordering::Relaxed) {
            return Vec::new();
        }
        issues
    }
}

/// True when the member's type (options and newtypes looked through, and a list's elements) is
/// text or a number: the members a sample can be copied into.
fn is_text_or_number(info: &TypeInfo, id: crate::shape::NodeId) -> bool {
    let graph = info.graph();
    let mut id = id;
    for _ in 0..=graph.len() {
        id = graph.resolve(graph.strip_option(id));
        match graph.node(id) {
            Node::Seq { item, .. } => id = *item,
            Node::Scalar(
                Scalar::String
                | Scalar::Char
                | Scalar::Int(_)
                | Scalar::Float(_)
                | Scalar::Decimal
                | Scalar::Uuid
                | Scalar::Url,
            ) => return true,
            _ => return false,
        }
    }
    false
}

/// The texts and numbers of `value` (a list's elements too), with their pointers.
fn leaves_of<'v>(value: &'v Value, pointer: String, out: &mut Vec<(String, &'v Value)>) {
    match value {
        Value::String(_) | Value::Number(_) => out.push((pointer, value)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                leaves_of(
                    item,
                    crate::read::join_pointer(&pointer, &i.to_string()),
                    out,
                );
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

/// The same text without case, white space and punctuation differences.
fn fold_eq(a: &str, b: &str) -> bool {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (a, b) = (fold(a), fold(b));
    !a.is_empty() && a == b
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
    fn samples_are_read_after_their_markers_and_in_backticks() {
        assert_eq!(samples_in("The product code, such as A-1192."), ["A-1192"]);
        assert_eq!(
            samples_in("A code such as A-1192 or B-7, in capitals."),
            ["A-1192", "B-7"]
        );
        assert_eq!(
            samples_in("The sender (e.g. \"Sam (Contoso)\") as written."),
            ["Sam (Contoso)"]
        );
        assert_eq!(samples_in("For example: 40."), ["40"]);
        assert_eq!(
            samples_in("The status, `open` or `closed`."),
            ["open", "closed"]
        );
        assert_eq!(
            samples_in("A city such as Paris, London or Rome."),
            ["Paris"]
        );
        assert!(samples_in("A plain description.").is_empty());
        // A marker inside a word is no marker.
        assert!(samples_in("Pseudosuch as").is_empty());
    }

    #[test]
    fn a_sample_equals_its_value_as_grounded_members_compare() {
        assert!(equals(&Value::from("a-1192"), "A-1192"));
        assert!(equals(&Value::from(40), "40"));
        assert!(equals(&Value::from("1,200"), "1200"));
        assert!(!equals(&Value::from("A-11920"), "A-1192"));
    }
}

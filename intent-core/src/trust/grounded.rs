//! Grounded members: values that must be copied from the input.
//!
//! A member marked `#[intent(from_input)]` (or every text member of a struct so marked, or a
//! member an intent file gives `from_input: true`) says that its value is the input's own text:
//! a name, a code, a phrase. An answer whose value the input does not contain ([`Grounds`]
//! decides, without case, white space and punctuation differences, and a number as a number) is a
//! finding of kind [`IssueKind::NotInInput`] at the value's JSON path, sent back like any other.
//! Unlike the policies that question a plausible answer once, this one has no way out: the member
//! was declared to come from the input, so an answer the input does not hold is never taken,
//! however often it is given. `null` is always allowed where the type allows it (the input gives
//! none); an empty text is not a value copied from anywhere.
//!
//! A list of texts is checked element by element; in a collection call (`map_each`,
//! `map_values`) each element's answer is checked against that element's own input, and in a
//! stream before an element is delivered.

use std::borrow::Cow;

use serde_json::Value;

use super::ground::Grounds;
use super::paths::{quoted, values_at, At, ANSWER};
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{member_subject, GroundedMember as Member, MemberStep, Seg, TypeInfo};

/// The grounded members of a result type: borrowed from its [`TypeInfo`], where they are found
/// once per type, or owned (an intent file's rules, a list's elements).
#[derive(Debug, Clone, Default)]
pub(crate) struct Grounded<'m> {
    members: Cow<'m, [Member]>,
}

impl Grounded<'_> {
    /// The members of `info`'s type that must come from the input.
    pub(crate) fn of(info: &TypeInfo) -> Grounded<'_> {
        Grounded {
            members: Cow::Borrowed(info.grounded_members()),
        }
    }

    /// Adds the member at `path` (an intent file's rule); `nullable` words its finding.
    #[cfg(feature = "catalog")]
    pub(crate) fn add(&mut self, path: Vec<Seg>, nullable: bool) {
        self.members.to_mut().push(Member { path, nullable });
    }

    /// True when no member must come from the input.
    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The members of one element of a list result: the paths below the list's elements.
    pub(crate) fn of_elements(&self) -> Grounded<'static> {
        let members = self
            .members
            .iter()
            .filter_map(|m| match m.path.split_first() {
                Some((Seg::Each, rest)) => Some(Member {
                    path: rest.to_vec(),
                    nullable: m.nullable,
                }),
                _ => None,
            })
            .collect();
        Grounded {
            members: Cow::Owned(members),
        }
    }

    /// The findings on `answer` (the value inside the envelope), each at its pointer below
    /// `root` (`/value`, or an element's `/value/3`), for every grounded value `grounds` does not
    /// hold.
    pub(crate) fn check_at(
        &self,
        answer: &Value,
        grounds: &Grounds,
        root: &At<'_>,
    ) -> Vec<ResultIssue> {
        let mut issues = Vec::new();
        for member in self.members.iter() {
            values_at(answer, &member.path, root, &mut |at, value| {
                check_value(member, value, at, true, grounds, &mut issues)
            });
        }
        issues
    }

    /// [`check_at`](Self::check_at) below the envelope, `/value`.
    pub(crate) fn check(&self, answer: &Value, grounds: &Grounds) -> Vec<ResultIssue> {
        self.check_at(answer, grounds, &ANSWER)
    }
}

/// Checks one grounded value: a text or number against `grounds`, the elements of a list, the
/// text members of an object (an intent file's member that is an object); `whole` when `value`
/// is the member itself rather than a part of it.
fn check_value(
    member: &Member,
    value: &Value,
    at: &At<'_>,
    whole: bool,
    grounds: &Grounds,
    out: &mut Vec<ResultIssue>,
) {
    let held = match value {
        Value::Null | Value::Bool(_) => return,
        Value::String(text) => !text.trim().is_empty() && grounds.contains(text),
        Value::Number(n) => n.as_f64().is_some_and(|n| grounds.contains_number(n)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_value(member, item, &At::Element(at, i), false, grounds, out);
            }
            return;
        }
        Value::Object(members) => {
            for (key, item) in members {
                if matches!(item, Value::String(_) | Value::Number(_)) {
                    check_value(member, item, &At::Member(at, key), false, grounds, out);
                }
            }
            return;
        }
    };
    if !held {
        out.push(finding(member, value, &at.pointer(), whole));
    }
}

/// The finding for `value`, which the input does not hold.
fn finding(member: &Member, value: &Value, pointer: &str, whole: bool) -> ResultIssue {
    let steps: Vec<MemberStep<'_>> = member.path.iter().map(Seg::step).collect();
    let subject = member_subject(&steps);
    let otherwise = if member.nullable {
        ", or null if it gives none"
    } else {
        ""
    };
    let what = match value {
        Value::String(text) if text.trim().is_empty() => {
            return ResultIssue::at(
                pointer,
                IssueKind::NotInInput,
                format!(
                    "{} is empty, but it must be copied from the input; give the value as the input writes it{otherwise}.",
                    capitalized(&subject)
                ),
            )
        }
        other => quoted(other),
    };
    let head = if whole {
        format!("{} is `{what}`", capitalized(&subject))
    } else {
        format!("{} holds `{what}`", capitalized(&subject))
    };
    ResultIssue::at(
        pointer,
        IssueKind::NotInInput,
        format!(
            "{head}, which the input does not contain; give the value as the input writes it{otherwise}."
        ),
    )
}

/// `subject` starting with a capital when it is a phrase ("each element of `tags`"), not a
/// member name.
fn capitalized(subject: &str) -> String {
    let mut chars = subject.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => subject.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sku() -> Grounded<'static> {
        let mut grounded = Grounded::default();
        grounded.add(vec![Seg::Member("sku".into())], false);
        grounded.add(vec![Seg::Member("tags".into())], false);
        grounded.add(vec![Seg::Member("note".into())], true);
        grounded
    }

    #[test]
    fn a_value_the_input_lacks_is_named_at_its_path() {
        let grounds = Grounds::of_text("Dana: 40 of a 1192, tags red and blue");
        let issues = sku().check(
            &json!({"sku": "A-1192", "tags": ["Red", "green"], "note": "rush"}),
            &grounds,
        );
        let shown: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "/value/tags/1: `tags` holds `green`, which the input does not contain; give the value as the input writes it.",
                "/value/note: `note` is `rush`, which the input does not contain; give the value as the input writes it, or null if it gives none."
            ]
        );
        assert!(issues.iter().all(|i| i.kind == IssueKind::NotInInput));
        assert!(sku()
            .check(&json!({"sku": "a1192", "tags": [], "note": null}), &grounds)
            .is_empty());
        let empty = sku().check(&json!({"sku": " ", "tags": []}), &grounds);
        assert!(empty[0].message.starts_with("`sku` is empty"));
    }

    #[test]
    fn the_members_of_a_list_element_are_its_paths_below_the_list() {
        let mut grounded = Grounded::default();
        grounded.add(vec![Seg::Each, Seg::Member("name".into())], false);
        let element = grounded.of_elements();
        let grounds = Grounds::of_text("Ada and Grace");
        assert!(element
            .check_at(&json!({"name": "Ada"}), &grounds, &At::Element(&ANSWER, 0))
            .is_empty());
        let issues = element.check_at(&json!({"name": "Alan"}), &grounds, &At::Element(&ANSWER, 1));
        assert_eq!(issues[0].path.as_deref(), Some("/value/1/name"));
    }
}

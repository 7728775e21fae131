//! Reading a reply: lenient about form, strict about content.
//!
//! [`read_reply`] turns a model's reply text into the result type, or into every issue that keeps
//! it from being one. It works in four steps:
//!
//! 1. **Find the answer.** Reasoning blocks (`<think>…</think>`, `<thinking>`, `<reasoning>`) are
//!    skipped, every candidate JSON value in the reply is listed (bare, enveloped, fenced, after or
//!    between prose), and the one answer is decided by written rules: a value cut off is
//!    truncation, never a part of itself; two different answers are refused naming both; prose may
//!    surround the answer but JSON debris may not. The JSON may be loose: `//` and `/* */`
//!    comments, trailing commas, single-quoted strings, unquoted member names and Unicode white
//!    space are read. A reply that is a JSON string holding an object or array
//!    (`"{\"value\": 3}"`) is read as that object or array when the type is not itself a string.
//!    Numbers that break JSON's grammar (`0789`, `3/4`, `4,250`), `NaN`, numbers beyond a double,
//!    broken `\u` escapes and nesting deeper than [`MAX_DEPTH`] are refused.
//! 2. **Unwrap the envelope.** `{"value": X}` yields `X`; a bare `X` is accepted too. An object with
//!    `value` *and* other members is refused unless the type could be such an object itself (a map,
//!    a JSON object, or a struct with its own member named `value`); for such types a reply
//!    `{"value": X}` is read as the envelope when `X` fits the type and as the value itself otherwise.
//! 3. **Verify** the value against the type's shape, reporting every violation with its JSON
//!    pointer (`/value/lines/2/sku`), at most [`MAX_FINDINGS`] of them and a count of the rest:
//!    required members present, `null` only where the type is an `Option`, enums by name (any case,
//!    never a number), integers in range and whole (never read from a number whose fraction a
//!    double lost, such as `1.0000000000000000001`), arrays of the right length, set elements
//!    unique, dates in ISO 8601, and each member's rules (a `Decimal` written as a string has its
//!    number rules checked on the number it holds). Along the way member names written in another
//!    case are mapped to their wire names, numbers written as strings are read as numbers, and enum
//!    names are put in their canonical case. Members the type does not know are ignored, as serde
//!    ignores them. A member named twice is refused.
//! 4. **Deserialize** the normalized value with serde, the final authority; a serde error is an
//!    issue with its path.
//!
//! What each place of a shape accepts (`null`, what a string means, an integer's range, which
//! rules apply) is decided once, in the shape's table, which every step asks.
//!
//! A reply that is exactly one well-formed `{"value": ...}` (alone, or alone in a code fence)
//! takes a fast path: serde reads the text straight into the type in one pass, with no
//! intermediate `serde_json::Value`, while every value it reads is checked against the shape. The
//! fast path never changes an outcome: whatever fails a check goes through the steps above.
//!
//! For a `String` result (a text result) the reply itself, reasoning blocks removed and trimmed,
//! is the value; an empty reply is an issue.

mod answer;
mod fast;
mod findings;
pub(crate) mod json;
mod locate;
mod parse;
pub(crate) mod partial;
mod path;
mod text;
mod verify;

pub(crate) use findings::MAX_FINDINGS;
#[allow(unused_imports)] // Named by the docs above.
pub(crate) use parse::MAX_DEPTH;
#[allow(unused_imports)]
pub(crate) use verify::{MAX_WALK_DEPTH, MAX_WALK_STEPS};

pub(crate) use answer::Answer;
pub(crate) use findings::bounded as bounded_findings;
pub(crate) use json::{
    deserialize, read_json, read_reply_json, read_schema_reply, read_value_with,
};
pub(crate) use locate::{answer_start, split_reasoning};
pub(crate) use path::join as join_pointer;
pub(crate) use path::push_token as push_pointer_token;
#[cfg(feature = "catalog")]
pub(crate) use verify::rules::messages as rule_messages;
pub(crate) use verify::schema::RuntimeSchema;

use std::borrow::Cow;

use serde_json::Value;

use crate::intent::Intent;
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{TargetKind, TypeInfo};

/// Reads a reply's text into a `T`, or every issue found.
///
/// ```
/// use intent_core::read::read_reply;
/// use intent_core::Intent;
///
/// let info = <Vec<u8>>::type_info();
/// let read: Vec<u8> = read_reply(&info, "Sure:\n```json\n{\"value\": [1, \"2\", 3,]}\n```").unwrap();
/// assert_eq!(read, vec![1, 2, 3]);
///
/// let issues = read_reply::<Vec<u8>>(&info, r#"{"value": [1, 300, 2.5]}"#).unwrap_err();
/// assert_eq!(issues.len(), 2);
/// assert_eq!(issues[0].path.as_deref(), Some("/value/1"));
/// assert_eq!(issues[0].message, "Must be a whole number from 0 to 255 (byte); got 300.");
///
/// // A reply cut off at the token limit is refused, never read as a part of itself.
/// let issues = read_reply::<Vec<u8>>(&info, r#"{"value": [1, 2, 3]"#).unwrap_err();
/// assert!(issues[0].message.starts_with("The reply's JSON ends before its object is closed"));
/// ```
pub fn read_reply<T: Intent>(info: &TypeInfo, text: &str) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        return read_text(text);
    }
    read_typed(info, text)
}

/// Reads a reply for a JSON (not text) result: the fast path, else the locator and the lenient
/// path.
fn read_typed<T: serde::de::DeserializeOwned>(
    info: &TypeInfo,
    text: &str,
) -> Result<T, Vec<ResultIssue>> {
    let answer = after_leading_reasoning(text);
    if let Some(value) = fast::read::<T>(info, answer) {
        return Ok(value);
    }
    answer::deserialize(locate::locate(info, text)?.value)
}

/// Reads `text`, the JSON of the element at `index` of a reply whose answer is a list (`info`
/// describes the list, `Vec<E>`), as the reply's reading reads it there: as the list of that
/// one element, so the same fast path, rules and repairs apply; findings point at the element's
/// place in the reply.
pub(crate) fn read_list_element<E: serde::de::DeserializeOwned>(
    info: &TypeInfo,
    index: usize,
    text: &str,
) -> Result<E, Vec<ResultIssue>> {
    use crate::schema::ENVELOPE_PROPERTY;
    if let Some(element) = fast::read_element::<E>(info, text) {
        return Ok(element);
    }
    let mut wrapped = String::with_capacity(text.len() + ENVELOPE_PROPERTY.len() + 8);
    for part in ["{\"", ENVELOPE_PROPERTY, "\":[", text, "]}"] {
        wrapped.push_str(part);
    }
    let at = || format!("/{ENVELOPE_PROPERTY}/{index}");
    match read_typed::<Vec<E>>(info, &wrapped) {
        Ok(mut list) if list.len() == 1 => list.pop().ok_or_else(Vec::new),
        Ok(list) => Err(vec![ResultIssue::at(
            at(),
            IssueKind::Shape,
            format!("Expected one element here; read {}.", list.len()),
        )]),
        Err(issues) => {
            let one = format!("/{ENVELOPE_PROPERTY}/0");
            Err(issues
                .into_iter()
                .map(|mut issue| {
                    let below = issue.path.as_deref().and_then(|p| p.strip_prefix(&one));
                    issue.path = Some(format!("{}{}", at(), below.unwrap_or_default()));
                    issue
                })
                .collect())
        }
    }
}

/// `text` after the reasoning blocks it starts with, so a reasoning model's well-formed answer
/// still takes the fast path (which then needs the rest to be exactly one object).
fn after_leading_reasoning(text: &str) -> &str {
    match locate::scan::leading_blocks_end(text) {
        Some(end) => &text[end..],
        None => text,
    }
}

/// A text result: the reply without its reasoning blocks, trimmed.
fn read_text<T: Intent>(text: &str) -> Result<T, Vec<ResultIssue>> {
    let (answer, _) = split_reasoning(text);
    let trimmed = answer.trim();
    if trimmed.is_empty() {
        return Err(vec![ResultIssue::new(
            IssueKind::Parse,
            "The reply was empty. Answer with the text the intent asks for.",
        )]);
    }
    serde_json::from_value(Value::String(trimmed.to_owned()))
        .map_err(|e| vec![ResultIssue::new(IssueKind::Shape, e.to_string())])
}

/// The text of a text result, as [`read_text`] reads it.
pub(crate) fn text_value(text: &str) -> Cow<'_, str> {
    match split_reasoning(text) {
        (Cow::Borrowed(answer), _) => Cow::Borrowed(answer.trim()),
        (Cow::Owned(answer), _) => Cow::Owned(answer.trim().to_owned()),
    }
}

//! The reader's other ways in: a value that is already JSON, a reply read with its normalized
//! JSON, and the lenient path alone (for tests that hold every path to one outcome).

use serde_json::Value;

use crate::intent::Intent;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{TargetKind, TypeInfo};

use super::answer::{self, Answer};
use super::findings::Findings;
use super::verify::scalar::describe;
use super::verify::schema::RuntimeSchema;
use super::{locate, read_text, text_value};

/// Reads a value that is already JSON (the `<result>` itself, not its envelope) into a `T`: the
/// same verification, normalization and rules as [`read_reply`](super::read_reply), without
/// parsing text. Issue paths start at `/value`. A text result takes a JSON string that is not
/// empty once trimmed, and is that string trimmed.
///
/// ```
/// use intent_core::__internals::read_value;
/// use intent_core::Intent;
///
/// let info = <Vec<u8>>::type_info();
/// assert_eq!(read_value::<Vec<u8>>(&info, serde_json::json!([1, "2"])).unwrap(), vec![1, 2]);
/// let issues = read_value::<Vec<u8>>(&info, serde_json::json!([300])).unwrap_err();
/// assert_eq!(issues[0].path.as_deref(), Some("/value/0"));
/// ```
pub fn read_value<T: Intent>(info: &TypeInfo, value: Value) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        let at = || format!("/{ENVELOPE_PROPERTY}");
        return match value {
            Value::String(text) if !text.trim().is_empty() => {
                let text = if text.trim().len() == text.len() {
                    text
                } else {
                    text.trim().to_owned()
                };
                serde_json::from_value(Value::String(text))
                    .map_err(|e| vec![ResultIssue::at(at(), IssueKind::Shape, e.to_string())])
            }
            Value::String(_) => Err(vec![ResultIssue::at(
                at(),
                IssueKind::Shape,
                "Must be a non-empty string.",
            )]),
            other => Err(vec![ResultIssue::at(
                at(),
                IssueKind::Shape,
                format!("Must be a non-empty string; got {}.", describe(&other)),
            )]),
        };
    }
    read_value_with(info, value, &[])
}

/// [`read_value`] of a part of a reply read before, whose numbers that lost their fraction as
/// doubles (`lossy`, from its [`Answer`]) no integer is read from.
pub(crate) fn read_value_with<T: Intent>(
    info: &TypeInfo,
    value: Value,
    lossy: &[u64],
) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        return read_value(info, value);
    }
    answer::deserialize(answer::verify(info, value, Findings::new(), lossy)?)
}

/// A reply read as any JSON (`serde_json::Value`), with what [`read_value_with`] needs to read its
/// parts later.
pub(crate) fn read_json(text: &str) -> Result<Answer, Vec<ResultIssue>> {
    locate::locate(&<Value as Intent>::type_info(), text)
}

/// Reads a reply into a `T` and also returns the reply's value as normalized JSON (envelope
/// removed, member and enum names in their wire spelling, numbers from strings read as numbers),
/// for checks written over JSON, such as an intent file's rules. For a text result the JSON is the
/// text as [`read_reply`](super::read_reply) reads it, as a string.
///
/// ```
/// use intent_core::__internals::read_reply_json;
/// use intent_core::Intent;
///
/// let info = <Vec<u8>>::type_info();
/// let (read, json) = read_reply_json::<Vec<u8>>(&info, "{\"value\": [1, \"2\", /* three */ 3,]}").unwrap();
/// assert_eq!(read, vec![1, 2, 3]);
/// assert_eq!(json, serde_json::json!([1, 2, 3]));
/// ```
pub fn read_reply_json<T: Intent>(
    info: &TypeInfo,
    text: &str,
) -> Result<(T, Value), Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        let value = read_text(text)?;
        return Ok((value, Value::String(text_value(text).into_owned())));
    }
    let json = locate::locate(info, text)?.value;
    let value = answer::deserialize(&json)?;
    Ok((value, json))
}

/// The lenient path alone (the fast path skipped): used by tests that hold the two paths to the
/// same outcome.
#[cfg(feature = "__internals")]
pub fn read_reply_lenient<T: Intent>(info: &TypeInfo, text: &str) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        return read_text(text);
    }
    answer::deserialize(locate::locate(info, text)?.value)
}

/// Reads a reply whose answer a runtime JSON Schema describes (`client.transform`, an intent file
/// whose shape is a schema): the answer is located and read as any JSON, as for a
/// `serde_json::Value`, but `null` too may answer, as the schema says; then the value is verified
/// against the whole schema ([`RuntimeSchema::check`]). The value comes back with the schema's
/// findings (none when it passed), so that other checks on the JSON can add theirs.
pub(crate) fn read_schema_reply(
    schema: &RuntimeSchema,
    text: &str,
) -> Result<(Value, Vec<ResultIssue>), Vec<ResultIssue>> {
    // `Option<Value>`: any JSON, `null` included; the schema decides.
    let value = locate::locate(&<Option<Value> as Intent>::type_info(), text)?.value;
    let issues = schema.check(&value);
    Ok((value, issues))
}

/// Deserializes a verified JSON value into a `T` with serde, the final authority; a serde error
/// is an issue at its path under `/value`.
pub(crate) fn deserialize<T: serde::de::DeserializeOwned>(
    value: Value,
) -> Result<T, Vec<ResultIssue>> {
    answer::deserialize(value)
}

//! Input serialization: what the model sees under `## Input (<label>)`.
//!
//! - A string passes through unchanged (so does `Some(string)`); `None` and `()` become `null`.
//! - Dates and times are written in ISO 8601 in their serde form, which loses nothing and is the
//!   same at the root as nested in a struct: a `NaiveDate` as `2026-03-04`, a `NaiveTime` as
//!   `09:15:30.250` (chrono writes a fraction of a second in groups of three digits: ISO 8601 and
//!   exact), a `DateTime<Utc>` as
//!   `2026-10-11T14:05:06.789Z`. A date at the root is written without JSON quotes, like a string.
//! - Other simple values at the root are written as their JSON text (`42`, `3.5`, `true`), except
//!   an enum's unit variant and a `char`, written as their name or character without quotes, and a
//!   float that is not finite, written `NaN`, `Infinity` or `-Infinity`.
//! - `serde_json::Value`, `Map` and `RawValue` are written as their JSON text (a `Value::String`
//!   keeps its quotes).
//! - Everything else is compact JSON with serde's own names (`rename`, `rename_all`).
//!
//! The label describes the value's type in the same C#-like notation as result types
//! (`Email\n where Email { string from; string body }`): `string` for text, `JSON` for `serde_json`
//! values, `DateOnly (yyyy-MM-dd)` for a date, and the structure a derived (or hand-written)
//! `Serialize` gives, read from the value (the first element stands for a list or map). A serialized
//! input longer than `max_input_chars` characters is refused: nothing is truncated. The label is
//! not counted.

use serde::Serialize;

use crate::attachment::{self, Attachment};
use crate::error::IntentError;

mod probe;

/// An input ready for the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerializedInput {
    /// The input as the model reads it.
    pub text: String,
    /// The label in `## Input (<label>)`.
    pub label: String,
    /// The attachments sent with the input, in order: those met in the input itself, then those
    /// attached to the call. A collection's chunk holds its elements' attachments, element after
    /// element.
    pub attachments: Vec<Attachment>,
}

/// Serializes an input, refusing one longer than `max_chars` characters.
///
/// # Errors
///
/// [`IntentError::InputTooLong`] when the text has more than `max_chars` characters, and
/// [`IntentError::InputSerialization`] when the value cannot be written as JSON (a map with keys
/// that are not strings, a `Serialize` implementation that fails).
#[cfg(any(test, feature = "__internals"))]
pub fn serialize<I: Serialize + ?Sized>(
    input: &I,
    max_chars: usize,
) -> Result<SerializedInput, IntentError> {
    let probed = probe::probe(input)?;
    let text = match probed.root_text {
        Some(text) => text,
        None => serde_json::to_string(input)
            .map_err(|e| IntentError::InputSerialization(e.to_string()))?,
    };
    check_length(&text, max_chars)?;
    Ok(SerializedInput {
        text,
        label: probed.label,
        attachments: Vec::new(),
    })
}

/// [`serialize`], where the input may be an [`Attachment`] or carry some as members: each is
/// written as its place in the list (`<attachment 1: image/png, 48213 bytes>`), checked, and
/// kept in [`SerializedInput::attachments`]. An input that is an attachment is labelled
/// `attachment`.
///
/// # Errors
///
/// As [`serialize`], and [`IntentError::Attachment`] for an attachment that fails its checks.
pub fn serialize_with_attachments<I: Serialize + ?Sized>(
    input: &I,
    max_chars: usize,
) -> Result<SerializedInput, IntentError> {
    let (serialized, attachments) = attachment::capturing(|restart| {
        let probed = probe::probe(input)?;
        let text = match probed.root_text {
            Some(text) => text,
            None => {
                // The probe met the attachments once already; the text's pass numbers them anew.
                restart();
                serde_json::to_string(input)
                    .map_err(|e| IntentError::InputSerialization(e.to_string()))?
            }
        };
        Ok::<_, IntentError>((text, probed.label))
    });
    let (text, mut label) = serialized?;
    for attachment in &attachments {
        attachment.check()?;
    }
    let root = std::any::type_name::<I>().trim_start_matches('&');
    if root == std::any::type_name::<Attachment>() {
        label = "attachment".to_owned();
    }
    check_length(&text, max_chars)?;
    Ok(SerializedInput {
        text,
        label,
        attachments,
    })
}

/// Refuses a text longer than `max_chars` characters.
pub(crate) fn check_length(text: &str, max_chars: usize) -> Result<(), IntentError> {
    // Bytes bound characters from above: only count when the bytes exceed the limit.
    if text.len() > max_chars {
        let chars = text.chars().count();
        if chars > max_chars {
            return Err(IntentError::InputTooLong {
                chars,
                limit: max_chars,
            });
        }
    }
    Ok(())
}

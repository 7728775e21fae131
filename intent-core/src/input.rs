//! Input serialization: what the model sees under `## Input (<label>)`.
//!
//! Strings pass through unchanged; `null` stays `null`; dates and times are written in ISO 8601 as
//! their serde form (which loses nothing); `serde_json` values are written as their JSON text; every
//! other value is compact JSON. The label describes the value's own structure, in the same C#-like
//! notation as result types (`Email\n where Email { string from; string body }`), `string` for text
//! and `JSON` for `serde_json` values. A serialized input longer than `max_input_chars` is refused:
//! nothing is truncated.

use serde::Serialize;

use crate::error::IntentError;

mod probe;

/// An input ready for the prompt.
///
/// ```
/// let input = intent_core::input::serialize("Hello", 100).unwrap();
/// assert_eq!((input.text.as_str(), input.label.as_str()), ("Hello", "string"));
///
/// let input = intent_core::input::serialize(&serde_json::json!({"a": [1, 2]}), 100).unwrap();
/// assert_eq!((input.text.as_str(), input.label.as_str()), (r#"{"a":[1,2]}"#, "JSON"));
///
/// let error = intent_core::input::serialize("too long", 3).unwrap_err();
/// assert!(error.to_string().contains("max_input_chars (3)"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SerializedInput {
    /// The input as the model reads it.
    pub text: String,
    /// The label in `## Input (<label>)`.
    pub label: String,
}

/// Serializes an input, refusing one longer than `max_chars` characters.
pub fn serialize<I: Serialize + ?Sized>(
    input: &I,
    max_chars: usize,
) -> Result<SerializedInput, IntentError> {
    let type_name = std::any::type_name::<I>();
    let serialized = if is_json_value(type_name) {
        let text = serde_json::to_string(input)
            .map_err(|e| IntentError::InputSerialization(e.to_string()))?;
        SerializedInput {
            text,
            label: "JSON".to_owned(),
        }
    } else {
        let probed = probe::probe(input)?;
        let text = match probed.root_text {
            Some(text) => text,
            None => serde_json::to_string(input)
                .map_err(|e| IntentError::InputSerialization(e.to_string()))?,
        };
        SerializedInput {
            text,
            label: probed.label,
        }
    };
    check_length(&serialized.text, max_chars)?;
    Ok(serialized)
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

fn is_json_value(type_name: &str) -> bool {
    let name = type_name.trim_start_matches('&');
    name == "serde_json::value::Value"
        || name.starts_with("serde_json::map::Map<")
        || name == "serde_json::value::RawValue"
        || name == "alloc::boxed::Box<serde_json::raw::RawValue>"
        || name == "serde_json::raw::RawValue"
}

//! What the providers' message parts share: the list of parts a message with attachments becomes
//! (each attachment as the provider writes it, and the text, first or last as the provider's docs
//! place it), and the typed text part `{"type", "text"}`. Where an API takes a plain string, a
//! message of text alone is sent as one.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::attachment::Attachment;

/// A megabyte, as the providers state their attachment limits.
pub(crate) const MB: usize = 1024 * 1024;

/// Where a message's text stands among its attachments.
#[derive(Clone, Copy)]
pub(crate) enum TextAt {
    /// Before the attachments (OpenAI's examples).
    First,
    /// After the attachments (Anthropic's and Google's advice: the media before the question).
    Last,
}

/// A message's content as a list of parts: `text` (the text part), and each attachment as `part`
/// writes it, given its number from 1.
pub(crate) fn serialize_parts<'a, S, T, P>(
    serializer: S,
    text: T,
    text_at: TextAt,
    attachments: &'a [Attachment],
    part: impl Fn(usize, &'a Attachment) -> P,
) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    T: Serialize,
    P: Serialize,
{
    let mut parts = serializer.serialize_seq(Some(attachments.len() + 1))?;
    if let TextAt::First = text_at {
        parts.serialize_element(&text)?;
    }
    for (i, attachment) in attachments.iter().enumerate() {
        parts.serialize_element(&part(i + 1, attachment))?;
    }
    if let TextAt::Last = text_at {
        parts.serialize_element(&text)?;
    }
    parts.end()
}

/// Writes the map of one entry `{key: value}`: a part (or a part's source) that holds one thing,
/// named by what it is.
pub(crate) fn one_entry<S, V>(serializer: S, key: &str, value: &V) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    V: Serialize + ?Sized,
{
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry(key, value)?;
    map.end()
}

/// The typed text part `{"type": kind, "text": text}`.
#[derive(Serialize)]
pub(crate) struct TypedText<'a> {
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) text: &'a str,
}

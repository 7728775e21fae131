//! What the providers' message parts share: the list of parts a message with attachments becomes
//! (each attachment as the provider writes it, and the text, first or last as the provider's docs
//! place it), a message of text alone sent as a plain string where the API takes one, and the
//! typed text part `{"type", "text"}`.

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

/// A message's content where the API takes a plain string: `text` alone when there is no
/// attachment, else the list of parts, the text as the typed part `{"type": text_kind, "text"}`.
pub(crate) fn serialize_content<'a, S, P>(
    serializer: S,
    text: &str,
    text_kind: &'static str,
    text_at: TextAt,
    attachments: &'a [Attachment],
    part: impl Fn(usize, &'a Attachment) -> P,
) -> Result<S::Ok, S::Error>
where
    S: Serializer,
    P: Serialize,
{
    if attachments.is_empty() {
        return serializer.serialize_str(text);
    }
    let text = TypedText {
        kind: text_kind,
        text,
    };
    serialize_parts(serializer, text, text_at, attachments, part)
}

/// `{"type": kind, "text": text}`.
struct TypedText<'a> {
    kind: &'static str,
    text: &'a str,
}

impl Serialize for TypedText<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", self.kind)?;
        map.serialize_entry("text", self.text)?;
        map.end()
    }
}

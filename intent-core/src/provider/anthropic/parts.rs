//! The user message's content with attachments, for the Messages API.
//!
//! Wire facts (Anthropic docs, "Vision" and "PDF support", and the Messages API reference,
//! `ImageBlockParam`, `DocumentBlockParam`, `Base64ImageSource`, `URLImageSource`,
//! `Base64PDFSource`, `URLPDFSource`, 2026):
//!
//! - `content` becomes a list of blocks: each attachment, in order, then `{"type": "text",
//!   "text"}`: Anthropic recommends images and documents before the text that asks about them.
//! - An image is `{"type": "image", "source": {"type": "base64", "media_type", "data"}}` or
//!   `{"type": "image", "source": {"type": "url", "url"}}`; a PDF is the same with
//!   `"type": "document"` (and `"title"`, the file name, when there is one).
//! - Images: `image/jpeg`, `image/png`, `image/gif`, `image/webp`. Limits: 5 MB per image (the
//!   API measures the base64 data, which is what is checked here), 32 MB per request (standard
//!   endpoints; checked on the base64 data of all attachments), 100 images per request (models
//!   with a 200k-token context; others take 600: the lower count is checked).

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::attachment::provider_limits::{
    is_https, AttachmentRules, Measure, GIF, JPEG, PNG, WEBP,
};
use crate::attachment::{Attachment, Base64, Kind, Source};
use crate::provider::message_parts::{serialize_parts, TextAt, TypedText, MB};
use crate::request::AiRequest;

/// What the Messages API takes.
pub(crate) static RULES: AttachmentRules = AttachmentRules::new(
    "Anthropic Messages",
    &[JPEG, PNG, GIF, WEBP],
    Measure::Base64,
)
.at_most(100, 5 * MB, 32 * MB, 32 * MB)
.urls(
    |_, url| is_https(url) || url.starts_with("http://"),
    "use an http(s) URL",
);

/// The user message's `content`: the text alone when there is no attachment, else the blocks.
/// With prompt caching, the intent (the head of the text, the same for every call of a call
/// site) is its own first block, marked where the stable prefix ends (`super::wire`), then the
/// attachments, then the rest of the text.
pub(crate) struct UserContent<'a> {
    text: &'a str,
    attachments: &'a [Attachment],
    /// The intent block marked for caching, when the request asks for caching and the text has
    /// an input after its intent.
    cached_intent: Option<&'a str>,
}

impl<'a> UserContent<'a> {
    /// The request's user message, with its attachments; `cached_intent`, the head of its text
    /// to mark for caching.
    pub(crate) fn of(request: &'a AiRequest, cached_intent: Option<&'a str>) -> Self {
        UserContent {
            text: &request.user,
            attachments: &request.attachments,
            cached_intent,
        }
    }
}

/// A text block marked for caching: `{"type": "text", "text", "cache_control": {"type":
/// "ephemeral"}}`.
#[derive(Serialize)]
pub(crate) struct CachedText<'a> {
    pub(crate) r#type: &'static str,
    pub(crate) text: &'a str,
    pub(crate) cache_control: CacheControl,
}

impl<'a> CachedText<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        CachedText {
            r#type: "text",
            text,
            cache_control: CacheControl {
                r#type: "ephemeral",
            },
        }
    }
}

/// `{"type": "ephemeral"}`: the cache's default lifetime, 5 minutes.
#[derive(Serialize)]
pub(crate) struct CacheControl {
    r#type: &'static str,
}

impl Serialize for UserContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(intent) = self.cached_intent {
            let rest = &self.text[intent.len()..];
            let mut blocks = serializer.serialize_seq(Some(self.attachments.len() + 2))?;
            blocks.serialize_element(&CachedText::new(intent))?;
            for attachment in self.attachments {
                blocks.serialize_element(&Block(attachment))?;
            }
            blocks.serialize_element(&TypedText {
                kind: "text",
                text: rest,
            })?;
            return blocks.end();
        }
        if self.attachments.is_empty() {
            return serializer.serialize_str(self.text);
        }
        let text = TypedText {
            kind: "text",
            text: self.text,
        };
        serialize_parts(serializer, text, TextAt::Last, self.attachments, |_, a| {
            Block(a)
        })
    }
}

struct Block<'a>(&'a Attachment);

impl Serialize for Block<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let attachment = self.0;
        let mut map = serializer.serialize_map(None)?;
        let is_pdf = attachment.kind() == Kind::Pdf;
        map.serialize_entry("type", if is_pdf { "document" } else { "image" })?;
        map.serialize_entry("source", &BlockSource(attachment))?;
        if let (true, Some(name)) = (is_pdf, attachment.filename()) {
            map.serialize_entry("title", name)?;
        }
        map.end()
    }
}

struct BlockSource<'a>(&'a Attachment);

impl Serialize for BlockSource<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self.0.source() {
            Source::Bytes(bytes) => {
                map.serialize_entry("type", "base64")?;
                map.serialize_entry("media_type", self.0.media_type())?;
                map.serialize_entry("data", &Base64(bytes))?;
            }
            Source::Url(url) => {
                map.serialize_entry("type", "url")?;
                map.serialize_entry("url", url)?;
            }
        }
        map.end()
    }
}

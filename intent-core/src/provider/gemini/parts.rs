//! A Gemini message's `parts` with attachments.
//!
//! Wire facts (ai.google.dev/gemini-api/docs: "Image understanding", "Document understanding",
//! "File input methods"; firebase.google.com/docs/ai-logic/input-file-requirements; the REST
//! `Part` type, whose JSON names are camelCase; 2026):
//!
//! - An attachment is `{"inlineData": {"mimeType", "data"}}` (base64 data) or
//!   `{"fileData": {"mimeType", "fileUri"}}`; each comes before the text part, as Google's
//!   examples place a single image before its prompt.
//! - `fileData` is sent only for a file uploaded with the Files API (a URI under
//!   `https://generativelanguage.googleapis.com/`): other URLs are refused before sending, since
//!   which external URLs a model fetches depends on the model.
//! - Images: PNG, JPEG, WebP, HEIC, HEIF (no GIF); PDFs. Limits: 100 MB of inline data per
//!   request (raised from 20 MB in January 2026) and 50 MB per PDF, both on the base64 data;
//!   3000 images per request.

use serde::{Serialize, Serializer};

use crate::attachment::provider_limits::{AttachmentRules, Measure, JPEG, PNG, WEBP};
use crate::attachment::{Attachment, Base64, Source};
use crate::provider::message_parts::{one_entry, serialize_parts, TextAt, MB};

/// Where the Files API's files live: the only URIs sent as `fileData`.
const FILES_API: &str = "https://generativelanguage.googleapis.com/";

/// The images `generateContent` takes.
const IMAGE_TYPES: &[&str] = &[PNG, JPEG, WEBP, "image/heic", "image/heif"];

/// What a URL Gemini would refuse should be instead.
const URL_ADVICE: &str = "Gemini is sent only the URIs of files uploaded with its Files API (https://generativelanguage.googleapis.com/...); attach the bytes instead";

/// What `generateContent` takes.
pub(super) static RULES: AttachmentRules =
    AttachmentRules::new("Gemini generateContent", IMAGE_TYPES, Measure::Base64)
        .at_most(3000, 100 * MB, 50 * MB, 100 * MB)
        .urls(|_, url| url.starts_with(FILES_API), URL_ADVICE);

/// A message's `parts`: each attachment, then the text.
pub(super) struct Parts<'a> {
    pub(super) text: &'a str,
    pub(super) attachments: &'a [Attachment],
}

impl Serialize for Parts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = TextPart(self.text);
        serialize_parts(serializer, text, TextAt::Last, self.attachments, |_, a| {
            Inlined(a)
        })
    }
}

struct TextPart<'a>(&'a str);

impl Serialize for TextPart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        one_entry(serializer, "text", self.0)
    }
}

struct Inlined<'a>(&'a Attachment);

impl Serialize for Inlined<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mime_type = self.0.media_type();
        match self.0.source() {
            Source::Bytes(bytes) => {
                let data = Base64(bytes);
                one_entry(serializer, "inlineData", &Inline { mime_type, data })
            }
            Source::Url(file_uri) => one_entry(
                serializer,
                "fileData",
                &FileData {
                    mime_type,
                    file_uri,
                },
            ),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Inline<'a> {
    mime_type: &'a str,
    data: Base64<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileData<'a> {
    mime_type: &'a str,
    file_uri: &'a str,
}

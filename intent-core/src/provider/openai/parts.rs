//! The user message's content with attachments, for Chat Completions and for the Responses API.
//!
//! Wire facts (OpenAI API reference, "Chat: create" and "Responses: create", and the guides
//! "Images and vision" and "File inputs"; checked against the openai-openapi spec as generated in
//! `openai-client-base` 0.12, `ChatCompletionRequestMessageContentPartFile`, and the Responses
//! `ResponseInputImage` type, 2026):
//!
//! - Chat Completions: `content` becomes a list of parts: `{"type": "text", "text"}`, then per
//!   attachment, in order, `{"type": "image_url", "image_url": {"url", "detail"?}}` (`url` a
//!   `data:<type>;base64,...` URL or an http(s) URL; `detail` `auto`, `low` or `high`), or for a
//!   PDF `{"type": "file", "file": {"filename", "file_data"}}` with `file_data` a data URL. Chat
//!   takes no PDF by URL (only `file_id` after an upload): such an attachment is refused.
//! - Responses: `content` is a list of `{"type": "input_text", "text"}`, then
//!   `{"type": "input_image", "image_url", "detail"}` (`detail` is required by the API's types:
//!   `auto` unless set) and `{"type": "input_file", "filename", "file_data"}` or
//!   `{"type": "input_file", "file_url"}` for a PDF.
//! - Images: PNG, JPEG, WebP and non-animated GIF; up to 500 images per request; 20 MB per image
//!   and 50 MB per file (the limits checked here, on the files' own bytes, before sending).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::OpenAiApi;
use crate::attachment::provider_limits::{
    is_https, AttachmentRules, Measure, GIF, JPEG, PNG, WEBP,
};
use crate::attachment::{Attachment, DataUrl, Kind, Source};
use crate::provider::message_parts::{serialize_parts, TextAt, TypedText, MB};

const IMAGE_TYPES: &[&str] = &[PNG, JPEG, WEBP, GIF];

/// What Chat Completions takes.
pub(crate) static CHAT_RULES: AttachmentRules =
    AttachmentRules::new("OpenAI Chat Completions", IMAGE_TYPES, Measure::Raw)
        .at_most(500, 20 * MB, 50 * MB, 50 * MB)
        .urls(chat_takes_url, CHAT_URL_ADVICE);

/// What Chat Completions fetches by URL: images only.
fn chat_takes_url(kind: Kind, url: &str) -> bool {
    kind == Kind::Image && (is_https(url) || url.starts_with("http://"))
}

/// What a PDF URL should be instead, for Chat Completions.
const CHAT_URL_ADVICE: &str = "Chat Completions takes images by URL, but a PDF only as bytes (Attachment::from_path or from_bytes), or use OpenAiApi::Responses";

/// What the Responses API takes.
pub(crate) static RESPONSES_RULES: AttachmentRules =
    AttachmentRules::new("OpenAI Responses", IMAGE_TYPES, Measure::Raw)
        .at_most(500, 20 * MB, 50 * MB, 50 * MB)
        .urls(
            |_, url| is_https(url) || url.starts_with("http://"),
            "use an http(s) URL",
        );

/// The user message's `content`: the text alone when there is no attachment, else the parts.
pub(crate) struct UserContent<'a> {
    pub(crate) text: &'a str,
    pub(crate) attachments: &'a [Attachment],
    pub(crate) api: OpenAiApi,
}

impl<'a> UserContent<'a> {
    /// A message of text alone.
    pub(crate) fn text(text: &'a str) -> Self {
        UserContent {
            text,
            attachments: &[],
            api: OpenAiApi::ChatCompletions,
        }
    }

    /// The request's user message, with its attachments.
    pub(crate) fn of(request: &'a crate::request::AiRequest, api: OpenAiApi) -> Self {
        UserContent {
            text: &request.user,
            attachments: &request.attachments,
            api,
        }
    }
}

impl Serialize for UserContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.attachments.is_empty() {
            return serializer.serialize_str(self.text);
        }
        let text = TypedText {
            kind: match self.api {
                OpenAiApi::ChatCompletions => "text",
                OpenAiApi::Responses => "input_text",
            },
            text: self.text,
        };
        serialize_parts(
            serializer,
            text,
            TextAt::First,
            self.attachments,
            |index, attachment| AttachmentPart {
                attachment,
                index,
                api: self.api,
            },
        )
    }
}

struct AttachmentPart<'a> {
    attachment: &'a Attachment,
    index: usize,
    api: OpenAiApi,
}

/// A URL, or the bytes as a data URL.
struct Location<'a>(&'a Attachment);

impl Serialize for Location<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.source() {
            Source::Url(url) => serializer.serialize_str(url),
            Source::Bytes(bytes) => DataUrl {
                media_type: self.0.media_type(),
                bytes,
            }
            .serialize(serializer),
        }
    }
}

struct ImageUrl<'a>(&'a Attachment);

impl Serialize for ImageUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("url", &Location(self.0))?;
        if let Some(detail) = self.0.detail() {
            map.serialize_entry("detail", &detail)?;
        }
        map.end()
    }
}

struct ChatFile<'a> {
    attachment: &'a Attachment,
    filename: &'a str,
}

impl Serialize for ChatFile<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("filename", self.filename)?;
        map.serialize_entry("file_data", &Location(self.attachment))?;
        map.end()
    }
}

impl Serialize for AttachmentPart<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let attachment = self.attachment;
        let default_name;
        let filename = match attachment.filename() {
            Some(name) => name,
            None => {
                default_name = format!("attachment-{}.pdf", self.index);
                &default_name
            }
        };
        let mut map = serializer.serialize_map(None)?;
        match (self.api, attachment.kind()) {
            (OpenAiApi::ChatCompletions, Kind::Pdf) => {
                map.serialize_entry("type", "file")?;
                map.serialize_entry(
                    "file",
                    &ChatFile {
                        attachment,
                        filename,
                    },
                )?;
            }
            (OpenAiApi::ChatCompletions, _) => {
                map.serialize_entry("type", "image_url")?;
                map.serialize_entry("image_url", &ImageUrl(attachment))?;
            }
            (OpenAiApi::Responses, Kind::Pdf) => {
                map.serialize_entry("type", "input_file")?;
                match attachment.source() {
                    Source::Url(url) => map.serialize_entry("file_url", url)?,
                    Source::Bytes(_) => {
                        map.serialize_entry("filename", filename)?;
                        map.serialize_entry("file_data", &Location(attachment))?;
                    }
                }
            }
            (OpenAiApi::Responses, _) => {
                map.serialize_entry("type", "input_image")?;
                map.serialize_entry("image_url", &Location(attachment))?;
                let detail = attachment.detail().map_or("auto", |d| d.as_str());
                map.serialize_entry("detail", detail)?;
            }
        }
        map.end()
    }
}

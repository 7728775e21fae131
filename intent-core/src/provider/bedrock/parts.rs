//! The user message's content with attachments, for Bedrock's Converse API.
//!
//! Wire facts (Amazon Bedrock API reference, `ContentBlock`, `ImageBlock`, `DocumentBlock`,
//! `ImageSource`, `DocumentSource`, `S3Location`; "Supported models and model features" of the
//! Converse API):
//!
//! - `content` is a list of blocks: each attachment, in order, then `{"text"}`.
//! - An image is `{"image": {"format": "png" | "jpeg" | "gif" | "webp", "source": {"bytes"}}}`,
//!   the bytes base64 in the JSON body; a PDF is `{"document": {"format": "pdf", "name",
//!   "source": {"bytes"}}}`, its `name` made of letters, digits, single spaces, hyphens,
//!   parentheses and square brackets. By URL, only an S3 object: `"source": {"s3Location":
//!   {"uri": "s3://..."}}`.
//! - Limits: images of at most 3.75 MB and documents of at most 4.5 MB (the file's own bytes),
//!   at most 20 images in a request (and 5 documents: the count checked is the images').

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::attachment::provider_limits::{AttachmentRules, Measure, GIF, JPEG, PNG, WEBP};
use crate::attachment::{Attachment, Base64, Kind, Source};
use crate::provider::message_parts::{one_entry, serialize_parts, TextAt};
use crate::request::AiRequest;

/// What the Converse API takes.
pub(crate) static RULES: AttachmentRules = AttachmentRules::new(
    "Amazon Bedrock Converse",
    &[JPEG, PNG, GIF, WEBP],
    Measure::Raw,
)
.at_most(20, 3_932_160, 4_718_592, 20 * 3_932_160)
.urls(
    |_, url| url.starts_with("s3://"),
    "attach the bytes, or an s3:// URL",
);

/// The user message's `content` blocks.
pub(crate) struct UserContent<'a> {
    text: &'a str,
    attachments: &'a [Attachment],
}

impl<'a> UserContent<'a> {
    /// The request's user message, with its attachments.
    pub(crate) fn of(request: &'a AiRequest) -> Self {
        UserContent {
            text: &request.user,
            attachments: &request.attachments,
        }
    }
}

/// A text block, `{"text"}`.
#[derive(Serialize)]
pub(crate) struct TextBlock<'a> {
    pub(crate) text: &'a str,
}

impl Serialize for UserContent<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = TextBlock { text: self.text };
        serialize_parts(serializer, text, TextAt::Last, self.attachments, Block)
    }
}

struct Block<'a>(usize, &'a Attachment);

impl Serialize for Block<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Block(number, attachment) = *self;
        if attachment.kind() == Kind::Pdf {
            let document = Inner {
                format: "pdf",
                name: Some(document_name(attachment.filename(), number)),
                attachment,
            };
            return one_entry(serializer, "document", &document);
        }
        let format = attachment
            .media_type()
            .strip_prefix("image/")
            .unwrap_or("png");
        let image = Inner {
            format,
            name: None,
            attachment,
        };
        one_entry(serializer, "image", &image)
    }
}

struct Inner<'a> {
    format: &'a str,
    name: Option<String>,
    attachment: &'a Attachment,
}

impl Serialize for Inner<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("format", self.format)?;
        if let Some(name) = &self.name {
            map.serialize_entry("name", name)?;
        }
        map.serialize_entry("source", &SourceOf(self.attachment))?;
        map.end()
    }
}

struct SourceOf<'a>(&'a Attachment);

impl Serialize for SourceOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.source() {
            Source::Bytes(bytes) => one_entry(serializer, "bytes", &Base64(bytes)),
            Source::Url(url) => one_entry(serializer, "s3Location", &S3 { uri: url }),
        }
    }
}

#[derive(Serialize)]
struct S3<'a> {
    uri: &'a str,
}

/// A document's `name`: the file's name without its extension, in the characters Bedrock
/// takes (others become `-`, runs of spaces one), else `document-N`.
fn document_name(filename: Option<&str>, number: usize) -> String {
    let stem = filename
        .map(|f| f.rsplit_once('.').map_or(f, |(stem, _)| stem))
        .unwrap_or_default();
    let mut name = String::with_capacity(stem.len());
    for c in stem.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, ' ' | '-' | '(' | ')' | '[' | ']') {
            c
        } else {
            '-'
        };
        if !(c == ' ' && name.ends_with(' ')) {
            name.push(c);
        }
    }
    let name = name.trim();
    if name.is_empty() {
        format!("document-{number}")
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_name_keeps_only_the_characters_bedrock_takes() {
        assert_eq!(
            document_name(Some("Q3  report_final.pdf"), 1),
            "Q3 report-final"
        );
        assert_eq!(document_name(Some(".pdf"), 2), "document-2");
        assert_eq!(document_name(None, 3), "document-3");
    }
}

//! [`Attachment`]: an image or a document sent with a call's input.
//!
//! An attachment holds its bytes (a [`Bytes`], shared: every attempt, every fallback and every
//! clone of a request points at the same buffer) or a URL the provider fetches. Its media type is
//! given, read from the file's magic number ([`Attachment::from_bytes`]: PNG, JPEG, GIF, WebP,
//! PDF) or told from the URL's extension. Nothing about an attachment is copied or encoded until
//! a provider writes its request body, where the base64 text is written straight into the body.
//!
//! Attach one with [`AiCall::attach`](crate::AiCall::attach), or pass it as the call's input
//! itself (alone, or as a member of the input struct): the prompt's `## Input (...)` section then
//! lists each attachment, in order, with its media type and size, so the model knows the parts
//! belong to the input.
//!
//! Bad input is refused before anything is sent, each error naming the attachment and the rule:
//! an empty file, bytes of an unknown type, a file that is cut short (a PNG without its `IEND`
//! chunk, a PDF without `%%EOF`), bytes labelled with a type their signature contradicts, a file
//! over [`Attachment::MAX_BYTES`], a path that does not exist or is a directory, a URL that is not
//! `http` or `https`. Each provider checks its own limits (sizes per kind, per request, and a count)
//! and the kinds it takes before it sends: see the provider modules.

mod capture;
pub(crate) mod chunk_budget;
mod encode;
mod prompt;
pub(crate) mod provider_limits;
mod sniff;
mod tokens;

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use serde::{Serialize, Serializer};

use crate::error::IntentError;

pub(crate) use capture::{capturing, capturing_in, Scope};
pub(crate) use encode::{Base64, DataUrl};
pub(crate) use prompt::describe_attachments;
pub(crate) use tokens::estimate as estimate_tokens;

/// An image or a document sent with a call's input.
///
/// It holds its bytes (shared: every attempt, every fallback and every clone of a request points
/// at the same buffer, and cloning is cheap) or a URL the provider fetches. Its media type is
/// given, read from the file's magic number ([`Attachment::from_bytes`]: PNG, JPEG, GIF, WebP,
/// PDF) or told from the URL's extension. Nothing is copied or encoded until a provider writes
/// its request body.
///
/// Attach one with [`AiCall::attach`](crate::AiCall::attach), or pass it as the call's input
/// (alone, or as a member of the input struct): the prompt's `## Input (...)` section then lists
/// each attachment, in order, with its media type and size. Bad input is refused before anything
/// is sent, each error naming the attachment and the rule: an empty file, bytes of an unknown
/// type, a file cut short (a PNG without its `IEND` chunk, a PDF without `%%EOF`), bytes labelled
/// with a type their signature contradicts, a file over [`Attachment::MAX_BYTES`], a path that
/// does not exist or is a directory, a URL that is not `http` or `https`. Each provider checks
/// its own limits (sizes per kind, per request, and a count) and the kinds it takes before it
/// sends.
///
/// ```
/// use intent_core::Attachment;
///
/// # let png_bytes = vec![
/// #     0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
/// #     0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F,
/// #     0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8,
/// #     0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00,
/// #     0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
/// # ];
/// let png = Attachment::from_bytes(png_bytes)?;
/// assert_eq!(png.media_type(), "image/png");
/// assert!(png.is_image());
///
/// let pdf = Attachment::new(b"%PDF-1.7\n%%EOF\n".to_vec(), "application/pdf").with_filename("invoice.pdf");
/// assert_eq!(pdf.filename(), Some("invoice.pdf"));
/// assert_eq!(pdf.size(), Some(15));
///
/// let remote = Attachment::url("https://example.com/receipt.jpg")?;
/// assert_eq!(remote.media_type(), "image/jpeg");
/// assert_eq!(remote.source_url(), Some("https://example.com/receipt.jpg"));
/// # Ok::<(), intent_core::IntentError>(())
/// ```
#[derive(Clone)]
pub struct Attachment {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    source: Source,
    media_type: Cow<'static, str>,
    filename: Option<String>,
    detail: Option<ImageDetail>,
    /// The hex SHA-256 of the bytes (or of the URL), computed once, for cache keys.
    digest: OnceLock<String>,
    /// Where a collection's element held it: its place among the element's attachments and the
    /// element (`element 5`), for the chunk's prompt.
    origin: Option<(usize, Arc<str>)>,
    /// A PDF's pages as its bytes show them, counted once, for the rate limiter's estimate.
    pages: OnceLock<u32>,
}

/// Where an attachment's content is.
#[derive(Clone)]
pub(crate) enum Source {
    /// The bytes, sent inline (base64 in the body).
    Bytes(Bytes),
    /// A URL the provider fetches.
    Url(String),
}

/// How closely an image is looked at: OpenAI's `detail` (`low` costs a fixed, small number of
/// tokens; `high` looks at the image in tiles). Other providers have no such setting and ignore it.
///
/// ```
/// use intent_core::ImageDetail;
///
/// assert_eq!(ImageDetail::Low.as_str(), "low");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ImageDetail {
    /// The model chooses.
    Auto,
    /// A low-resolution look: fewer tokens.
    Low,
    /// A high-resolution look.
    High,
}

impl ImageDetail {
    /// The wire name: `auto`, `low` or `high`.
    ///
    /// ```
    /// assert_eq!(intent_core::ImageDetail::High.as_str(), "high");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ImageDetail::Auto => "auto",
            ImageDetail::Low => "low",
            ImageDetail::High => "high",
        }
    }
}

impl Serialize for ImageDetail {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// What an attachment is, as the providers tell their content parts apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `image/*`.
    Image,
    /// `application/pdf`.
    Pdf,
    /// Anything else: no provider here takes it.
    Other,
}

impl Attachment {
    /// The largest attachment taken at all, in bytes (100 MiB, the most any provider here takes
    /// inline: Gemini's request limit). Each provider has smaller limits of its own, checked
    /// before it sends.
    pub const MAX_BYTES: usize = 100 * 1024 * 1024;

    /// An attachment of `bytes` with the given media type (`image/png`, `application/pdf`).
    ///
    /// The bytes are checked when the attachment is attached to a call (empty, too large, cut
    /// short, or contradicting `media_type` by their signature): a call with a bad attachment
    /// fails before anything is sent.
    ///
    /// ```
    /// let photo = intent_core::Attachment::new(vec![0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xD9], "image/jpeg");
    /// assert_eq!(photo.media_type(), "image/jpeg");
    /// ```
    pub fn new(bytes: impl Into<Bytes>, media_type: impl Into<String>) -> Attachment {
        Attachment::make(
            Source::Bytes(bytes.into()),
            Cow::Owned(media_type.into().trim().to_ascii_lowercase()),
        )
    }

    /// An attachment of `bytes`, its media type read from their magic number (PNG, JPEG, GIF,
    /// WebP, PDF).
    ///
    /// # Errors
    ///
    /// [`IntentError::Attachment`] when the bytes are empty, larger than [`Attachment::MAX_BYTES`],
    /// of none of those types, or cut short.
    ///
    /// ```
    /// use intent_core::Attachment;
    ///
    /// let pdf = Attachment::from_bytes(b"%PDF-1.4\n...\n%%EOF".to_vec())?;
    /// assert_eq!(pdf.media_type(), "application/pdf");
    /// assert!(Attachment::from_bytes(b"plain words".to_vec()).is_err());
    /// assert!(Attachment::from_bytes(Vec::new()).is_err());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Attachment, IntentError> {
        let bytes = bytes.into();
        let Some(media_type) = sniff::media_type(&bytes) else {
            if bytes.is_empty() {
                return Err(refused("the attachment is empty (0 bytes)"));
            }
            return Err(refused(format!(
                "the attachment's {} bytes start with none of the known signatures (PNG, JPEG, GIF, WebP, PDF); give its media type with Attachment::new(bytes, media_type)",
                bytes.len()
            )));
        };
        let attachment = Attachment::make(Source::Bytes(bytes), Cow::Borrowed(media_type));
        attachment.check()?;
        Ok(attachment)
    }

    /// An attachment of the file at `path`, its media type read from its magic number; the file
    /// name is kept (OpenAI and Anthropic show it to the model for documents).
    ///
    /// # Errors
    ///
    /// [`IntentError::Attachment`] when the path does not exist, is not a file, cannot be read,
    /// is larger than [`Attachment::MAX_BYTES`] (checked before it is read), or its bytes are
    /// refused as by [`Attachment::from_bytes`].
    ///
    /// ```
    /// let error = intent_core::Attachment::from_path("/no/such/receipt.png").unwrap_err();
    /// assert!(error.to_string().contains("/no/such/receipt.png"));
    /// ```
    pub fn from_path(path: impl AsRef<Path>) -> Result<Attachment, IntentError> {
        let path = path.as_ref();
        let shown = path.display();
        let metadata = std::fs::metadata(path)
            .map_err(|e| refused(format!("the file {shown} cannot be read: {e}")))?;
        if metadata.is_dir() {
            return Err(refused(format!("{shown} is a directory; attach a file")));
        }
        if !metadata.is_file() {
            return Err(refused(format!("{shown} is not a regular file")));
        }
        if metadata.len() > Self::MAX_BYTES as u64 {
            return Err(refused(format!(
                "the file {shown} has {} bytes, more than the {} bytes an attachment may have (Attachment::MAX_BYTES); nothing was read",
                metadata.len(),
                Self::MAX_BYTES
            )));
        }
        let bytes = std::fs::read(path)
            .map_err(|e| refused(format!("the file {shown} cannot be read: {e}")))?;
        let attachment = Attachment::from_bytes(bytes)
            .map_err(|e| refused(format!("the file {shown}: {}", reason(&e))))?;
        Ok(match path.file_name().and_then(|n| n.to_str()) {
            Some(name) => attachment.with_filename(name),
            None => attachment,
        })
    }

    /// An attachment the provider fetches from `url`, its media type told from the URL path's
    /// extension (`.png`, `.jpg`/`.jpeg`, `.gif`, `.webp`, `.pdf`).
    ///
    /// Providers that take only bytes (Gemini, for most URLs) refuse it before sending.
    ///
    /// # Errors
    ///
    /// [`IntentError::Attachment`] when the URL is not `http://` or `https://`, or its extension
    /// names no known type: then use [`Attachment::url_with_type`].
    ///
    /// ```
    /// use intent_core::Attachment;
    ///
    /// assert_eq!(Attachment::url("https://example.com/a/scan.PDF?v=2")?.media_type(), "application/pdf");
    /// assert!(Attachment::url("file:///etc/passwd").is_err());
    /// assert!(Attachment::url("https://example.com/image").is_err());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn url(url: impl Into<String>) -> Result<Attachment, IntentError> {
        let url = url.into();
        check_url(&url)?;
        let Some(media_type) = type_from_extension(&url) else {
            return Err(refused(format!(
                "the media type of {url} cannot be told from its extension; give it with Attachment::url_with_type(url, media_type)"
            )));
        };
        Ok(Attachment::make(
            Source::Url(url),
            Cow::Borrowed(media_type),
        ))
    }

    /// An attachment the provider fetches from `url`, of the given media type.
    ///
    /// # Errors
    ///
    /// [`IntentError::Attachment`] when the URL is not `http://` or `https://`.
    ///
    /// ```
    /// let image = intent_core::Attachment::url_with_type("https://example.com/render?id=7", "image/png")?;
    /// assert_eq!(image.media_type(), "image/png");
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn url_with_type(
        url: impl Into<String>,
        media_type: impl Into<String>,
    ) -> Result<Attachment, IntentError> {
        let url = url.into();
        check_url(&url)?;
        Ok(Attachment::make(
            Source::Url(url),
            Cow::Owned(media_type.into().trim().to_ascii_lowercase()),
        ))
    }

    /// The same attachment with the file name providers show for a document.
    ///
    /// ```
    /// let pdf = intent_core::Attachment::new(b"%PDF-1.7\n%%EOF".to_vec(), "application/pdf").with_filename("q3.pdf");
    /// assert_eq!(pdf.filename(), Some("q3.pdf"));
    /// ```
    pub fn with_filename(mut self, filename: impl Into<String>) -> Attachment {
        Arc::make_mut(&mut self.inner).filename = Some(filename.into());
        self
    }

    /// The same attachment with an image detail (OpenAI's `detail`; ignored by the others).
    ///
    /// ```
    /// use intent_core::{Attachment, ImageDetail};
    ///
    /// let image = Attachment::url("https://example.com/a.png")?.with_detail(ImageDetail::Low);
    /// assert_eq!(image.detail(), Some(ImageDetail::Low));
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn with_detail(mut self, detail: ImageDetail) -> Attachment {
        Arc::make_mut(&mut self.inner).detail = Some(detail);
        self
    }

    /// The media type, lowercase (`image/png`).
    ///
    /// ```
    /// assert_eq!(intent_core::Attachment::new(vec![1], "Image/PNG").media_type(), "image/png");
    /// ```
    pub fn media_type(&self) -> &str {
        &self.inner.media_type
    }

    /// The file name, when one was given or the attachment was read from a path.
    ///
    /// ```
    /// assert_eq!(intent_core::Attachment::new(vec![1], "image/png").filename(), None);
    /// ```
    pub fn filename(&self) -> Option<&str> {
        self.inner.filename.as_deref()
    }

    /// The image detail, when one was set.
    ///
    /// ```
    /// assert_eq!(intent_core::Attachment::new(vec![1], "image/png").detail(), None);
    /// ```
    pub fn detail(&self) -> Option<ImageDetail> {
        self.inner.detail
    }

    /// The bytes, unless the attachment is a URL.
    ///
    /// ```
    /// let a = intent_core::Attachment::new(vec![1, 2, 3], "image/png");
    /// assert_eq!(a.bytes().map(|b| b.len()), Some(3));
    /// ```
    pub fn bytes(&self) -> Option<&Bytes> {
        match &self.inner.source {
            Source::Bytes(bytes) => Some(bytes),
            Source::Url(_) => None,
        }
    }

    /// The URL, when the provider is to fetch the attachment.
    ///
    /// ```
    /// assert_eq!(intent_core::Attachment::new(vec![1], "image/png").source_url(), None);
    /// ```
    pub fn source_url(&self) -> Option<&str> {
        match &self.inner.source {
            Source::Bytes(_) => None,
            Source::Url(url) => Some(url),
        }
    }

    /// The number of bytes, unless the attachment is a URL.
    ///
    /// ```
    /// assert_eq!(intent_core::Attachment::new(vec![0; 10], "image/png").size(), Some(10));
    /// ```
    pub fn size(&self) -> Option<usize> {
        self.bytes().map(Bytes::len)
    }

    /// Whether the media type is an image (`image/*`).
    ///
    /// ```
    /// assert!(!intent_core::Attachment::new(vec![1], "application/pdf").is_image());
    /// ```
    pub fn is_image(&self) -> bool {
        self.kind() == Kind::Image
    }

    pub(crate) fn kind(&self) -> Kind {
        let media_type = self.media_type();
        if media_type.starts_with("image/") {
            Kind::Image
        } else if media_type == sniff::PDF {
            Kind::Pdf
        } else {
            Kind::Other
        }
    }

    pub(crate) fn source(&self) -> &Source {
        &self.inner.source
    }

    /// The hex SHA-256 of the bytes (or of the URL), computed once and shared by every clone.
    pub(crate) fn digest(&self) -> &str {
        self.inner.digest.get_or_init(|| {
            use sha2::{Digest, Sha256};
            let hash = match &self.inner.source {
                Source::Bytes(bytes) => Sha256::digest(bytes),
                Source::Url(url) => Sha256::digest(url.as_bytes()),
            };
            hash.iter().map(|b| format!("{b:02x}")).collect()
        })
    }

    /// The bytes' length once base64-encoded, as providers with limits on the encoded data count it.
    pub(crate) fn encoded_len(&self) -> usize {
        self.size().map_or(0, |n| n.div_ceil(3) * 4)
    }

    /// Refuses bytes that are empty, too large, cut short, or of a type their signature
    /// contradicts. A URL passes: its content is the provider's to fetch.
    pub(crate) fn check(&self) -> Result<(), IntentError> {
        let Some(bytes) = self.bytes() else {
            return Ok(());
        };
        let what = self.summary();
        if bytes.is_empty() {
            return Err(refused(format!("the attachment ({what}) is empty")));
        }
        if self.media_type().is_empty() {
            return Err(refused("the attachment has an empty media type"));
        }
        if bytes.len() > Self::MAX_BYTES {
            return Err(refused(format!(
                "the attachment ({what}) is larger than the {} bytes an attachment may have (Attachment::MAX_BYTES)",
                Self::MAX_BYTES
            )));
        }
        if let Some(actual) = sniff::media_type(bytes) {
            if actual != self.media_type() {
                return Err(refused(format!(
                    "the attachment is labelled {} but its bytes are {actual}",
                    self.media_type()
                )));
            }
            if let Some(rule) = sniff::truncation(actual, bytes) {
                return Err(refused(format!(
                    "the attachment ({what}) is cut short or damaged: {rule}"
                )));
            }
        } else if matches!(
            self.media_type(),
            sniff::PNG | sniff::JPEG | sniff::GIF | sniff::WEBP | sniff::PDF
        ) {
            return Err(refused(format!(
                "the attachment is labelled {} but its bytes do not start with that format's signature",
                self.media_type()
            )));
        }
        Ok(())
    }

    /// `image/png, 48213 bytes, "receipt.png"` or `image/png at https://...` (without the URL's
    /// query): what a prompt, a `Debug` and an error say of an attachment, never its bytes.
    pub(crate) fn summary(&self) -> String {
        let mut text = match &self.inner.source {
            Source::Bytes(bytes) => format!("{}, {} bytes", self.media_type(), bytes.len()),
            Source::Url(url) => format!("{} at {}", self.media_type(), bare_url(url)),
        };
        if let Some(name) = self.filename() {
            text.push_str(&format!(", \"{name}\""));
        }
        text
    }

    /// The same attachment (its bytes shared, its digest kept) remembering that it is the
    /// `place`-th attachment of `scope` (a collection's element: `element 5`).
    pub(crate) fn placed(&self, place: usize, scope: Arc<str>) -> Attachment {
        let mut placed = self.clone();
        Arc::make_mut(&mut placed.inner).origin = Some((place, scope));
        placed
    }

    /// The pages of a PDF as its bytes show them (at least one; one for a URL), counted once and
    /// shared by every clone: for the rate limiter's estimate.
    pub(crate) fn pages_seen(&self) -> u32 {
        *self.inner.pages.get_or_init(|| match &self.inner.source {
            Source::Bytes(bytes) => tokens::pdf_pages(bytes),
            Source::Url(_) => 1,
        })
    }

    /// `attachment 2 of element 5`, for an attachment a collection's element carries.
    pub(crate) fn origin(&self) -> Option<String> {
        self.inner
            .origin
            .as_ref()
            .map(|(place, scope)| format!("attachment {place} of {scope}"))
    }

    fn make(source: Source, media_type: Cow<'static, str>) -> Attachment {
        Attachment {
            inner: Arc::new(Inner {
                source,
                media_type,
                filename: None,
                detail: None,
                digest: OnceLock::new(),
                origin: None,
                pages: OnceLock::new(),
            }),
        }
    }
}

impl fmt::Debug for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Attachment");
        debug.field("media_type", &self.media_type());
        match &self.inner.source {
            Source::Bytes(bytes) => debug.field("size", &bytes.len()),
            Source::Url(url) => debug.field("url", &bare_url(url)),
        };
        if let Some(name) = self.filename() {
            debug.field("filename", &name);
        }
        if let Some(detail) = self.detail() {
            debug.field("detail", &detail);
        }
        debug.finish()
    }
}

impl PartialEq for Attachment {
    fn eq(&self, other: &Attachment) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.media_type() == other.media_type()
                && self.filename() == other.filename()
                && self.detail() == other.detail()
                && match (&self.inner.source, &other.inner.source) {
                    (Source::Bytes(a), Source::Bytes(b)) => a == b,
                    (Source::Url(a), Source::Url(b)) => a == b,
                    _ => false,
                })
    }
}

impl Eq for Attachment {}

/// Inside a call's input (the input itself, or a member of it), an attachment is written as a
/// reference to its place in the list of attachments (`<attachment 1: image/png, 48213 bytes>`)
/// and sent as a content part; inside a collection's element, as its place among that element's
/// attachments (`<attachment 1 of element 5: image/png, 48213 bytes>`). Anywhere else it has no
/// JSON form: serializing it fails, rather than drop its content silently.
impl Serialize for Attachment {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match capture::capture(self) {
            Some((n, None)) => {
                serializer.collect_str(&format_args!("<attachment {n}: {}>", self.summary()))
            }
            Some((n, Some(scope))) => serializer.collect_str(&format_args!(
                "<attachment {n} of {scope}: {}>",
                self.summary()
            )),
            None => Err(serde::ser::Error::custom(
                "an Attachment is sent as a call's input, a member of it, a collection's element or a member of one, or with AiCall::attach; it has no JSON form elsewhere",
            )),
        }
    }
}

/// Checks the attachments a collection's element carries (as [`Attachment::check`]): the first
/// refused is the element's issue, naming its place, and nothing is sent for the element.
pub(crate) fn check_element(attachments: &[Attachment]) -> Result<(), crate::result::ResultIssue> {
    for (i, attachment) in attachments.iter().enumerate() {
        if let Err(error) = attachment.check() {
            return Err(crate::result::ResultIssue::new(
                crate::result::IssueKind::Input,
                format!(
                    "The element's attachment {} is refused: {}. Nothing was sent for it.",
                    i + 1,
                    reason(&error)
                ),
            ));
        }
    }
    Ok(())
}

/// An attachment's part of a cache key: what it is and the hash of its content, never the bytes.
pub(crate) fn cache_part(attachment: &Attachment) -> String {
    let source = match attachment.source() {
        Source::Bytes(_) => "bytes",
        Source::Url(_) => "url",
    };
    format!(
        "attachment={source};{};{};{};{}",
        attachment.media_type(),
        attachment.detail().map_or("", ImageDetail::as_str),
        attachment.filename().unwrap_or(""),
        attachment.digest()
    )
}

/// An attachment as a cassette records it: what it is and the hash of its content, never the
/// bytes; a URL without its query or fragment, which may carry a signature.
pub(crate) fn recorded(attachment: &Attachment) -> serde_json::Value {
    let mut record = serde_json::Map::new();
    record.insert("media_type".into(), attachment.media_type().into());
    match attachment.source() {
        Source::Bytes(bytes) => {
            record.insert("size".into(), bytes.len().into());
        }
        Source::Url(url) => {
            record.insert("url".into(), bare_url(url).into());
        }
    }
    if let Some(name) = attachment.filename() {
        record.insert("filename".into(), name.into());
    }
    if let Some(detail) = attachment.detail() {
        record.insert("detail".into(), detail.as_str().into());
    }
    record.insert("sha256".into(), attachment.digest().into());
    serde_json::Value::Object(record)
}

/// A URL without its query and fragment, which may carry a signature (an S3 presigned URL's
/// `X-Amz-Signature`): what prompts, `Debug`, errors and cassettes show. The provider is sent the
/// whole URL.
fn bare_url(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

fn check_url(url: &str) -> Result<(), IntentError> {
    let scheme_ok = url.split_once("://").is_some_and(|(scheme, rest)| {
        matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https")
            && !rest.is_empty()
            && !rest.starts_with('/')
    });
    if !scheme_ok {
        return Err(refused(format!(
            "the attachment URL {url:?} is not an http:// or https:// URL"
        )));
    }
    if url.chars().any(char::is_whitespace) {
        return Err(refused(format!(
            "the attachment URL {url:?} contains whitespace"
        )));
    }
    Ok(())
}

fn type_from_extension(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let last = path.rsplit('/').next().unwrap_or(path);
    let (_, extension) = last.rsplit_once('.')?;
    Some(match extension.to_ascii_lowercase().as_str() {
        "png" => sniff::PNG,
        "jpg" | "jpeg" => sniff::JPEG,
        "gif" => sniff::GIF,
        "webp" => sniff::WEBP,
        "pdf" => sniff::PDF,
        _ => return None,
    })
}

fn refused(reason: impl Into<String>) -> IntentError {
    IntentError::Attachment(reason.into())
}

fn reason(error: &IntentError) -> String {
    match error {
        IntentError::Attachment(reason) => reason.clone(),
        other => other.to_string(),
    }
}

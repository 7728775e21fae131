//! What a provider takes as attachments, and the check of a request against it, run by each
//! provider before it writes a body: a refusal names the provider, the attachment (its place,
//! media type and size) and the rule or limit, and nothing is sent.

use crate::error::{ProviderError, ProviderErrorKind};

use super::{Attachment, Kind, Source};

/// How a provider measures an attachment's size against its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measure {
    /// The file's own bytes.
    Raw,
    /// The base64 text sent in the body (a third more).
    Base64,
}

/// The attachments one provider API takes.
#[derive(Debug)]
pub(crate) struct AttachmentRules {
    /// The API, as refusals name it: "OpenAI Chat Completions".
    pub(crate) api: &'static str,
    /// The image media types it takes.
    pub(crate) image_types: &'static [&'static str],
    /// Whether it takes PDFs.
    pub(crate) takes_pdf: bool,
    /// Whether it fetches an attachment of this kind from this URL.
    pub(crate) takes_url: fn(Kind, &str) -> bool,
    /// What a refused URL should be instead.
    pub(crate) url_advice: &'static str,
    /// How many attachments one request carries and how large they may be.
    pub(crate) limits: Limits,
}

/// How many attachments one request may carry and how large they may be, as one provider API
/// (or a collection chunk's budget) counts them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The most attachments in one request.
    pub(crate) max_count: usize,
    /// The largest image, in `measure` bytes.
    pub(crate) max_image: usize,
    /// The largest PDF, in `measure` bytes.
    pub(crate) max_pdf: usize,
    /// The most inline attachment bytes in one request, in `measure` bytes.
    pub(crate) max_total: usize,
    /// How sizes are measured.
    pub(crate) measure: Measure,
}

impl Limits {
    /// The size of `attachment` as these limits measure it.
    pub(crate) fn size(&self, attachment: &Attachment) -> usize {
        match self.measure {
            Measure::Raw => attachment.size().unwrap_or(0),
            Measure::Base64 => attachment.encoded_len(),
        }
    }

    /// The limit on one attachment of `kind`, and what that attachment is called ("PDF",
    /// "image").
    pub(crate) fn per_attachment(&self, kind: Kind) -> (usize, &'static str) {
        match kind {
            Kind::Pdf => (self.max_pdf, "PDF"),
            _ => (self.max_image, "image"),
        }
    }

    /// How a size is measured, as a message says it after the figure ("" or " as base64").
    pub(crate) fn measured(&self) -> &'static str {
        match self.measure {
            Measure::Raw => "",
            Measure::Base64 => " as base64",
        }
    }
}

impl AttachmentRules {
    /// The rules of `api`: the image types it takes, PDFs, sizes measured by `measure`; no
    /// attachment by URL and no limit until [`urls`](Self::urls) and [`at_most`](Self::at_most)
    /// say otherwise.
    pub(crate) const fn new(
        api: &'static str,
        image_types: &'static [&'static str],
        measure: Measure,
    ) -> Self {
        AttachmentRules {
            api,
            image_types,
            takes_pdf: true,
            takes_url: |_, _| false,
            url_advice: "attach the bytes instead",
            limits: Limits {
                max_count: usize::MAX,
                max_image: usize::MAX,
                max_pdf: usize::MAX,
                max_total: usize::MAX,
                measure,
            },
        }
    }

    /// At most `count` attachments in one request, images of `image` bytes, PDFs of `pdf` and
    /// `total` bytes in all (as `measure` counts them).
    pub(crate) const fn at_most(
        mut self,
        count: usize,
        image: usize,
        pdf: usize,
        total: usize,
    ) -> Self {
        self.limits.max_count = count;
        self.limits.max_image = image;
        self.limits.max_pdf = pdf;
        self.limits.max_total = total;
        self
    }

    /// The URLs it fetches an attachment from (`takes`), and what a refused one should be
    /// instead (`advice`).
    pub(crate) const fn urls(
        mut self,
        takes: fn(Kind, &str) -> bool,
        advice: &'static str,
    ) -> Self {
        self.takes_url = takes;
        self.url_advice = advice;
        self
    }

    /// Refuses a request's attachments if any breaks a rule: the first one found, in order.
    pub(crate) fn check(
        &self,
        attachments: &[Attachment],
        provider: &str,
    ) -> Result<(), ProviderError> {
        if attachments.is_empty() {
            return Ok(());
        }
        let refuse = |message: String| {
            ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!("{message}; nothing was sent"),
            )
            .with_provider(provider)
        };
        let limits = &self.limits;
        if attachments.len() > limits.max_count {
            return Err(refuse(format!(
                "{} takes at most {} attachments in one request; this one has {}",
                self.api,
                limits.max_count,
                attachments.len()
            )));
        }
        let mut total = 0usize;
        for (i, attachment) in attachments.iter().enumerate() {
            let which = || format!("attachment {} ({})", i + 1, attachment.summary());
            let kind = attachment.kind();
            let type_ok = match kind {
                Kind::Image => self.image_types.contains(&attachment.media_type()),
                Kind::Pdf => self.takes_pdf,
                Kind::Other => false,
            };
            if !type_ok {
                return Err(refuse(format!(
                    "{} cannot take {}: it takes images as {}{}",
                    self.api,
                    which(),
                    self.image_types.join(", "),
                    if self.takes_pdf {
                        " and documents as application/pdf"
                    } else {
                        ", and no documents"
                    }
                )));
            }
            match attachment.source() {
                Source::Url(url) => {
                    if !(self.takes_url)(kind, url) {
                        return Err(refuse(format!(
                            "{} cannot fetch {} from a URL: {}",
                            self.api,
                            which(),
                            self.url_advice
                        )));
                    }
                }
                Source::Bytes(_) => {
                    let size = limits.size(attachment);
                    let (limit, what) = limits.per_attachment(kind);
                    if size > limit {
                        return Err(refuse(format!(
                            "{} is {size} bytes{}, more than {}'s limit of {limit} bytes per {what}",
                            which(),
                            limits.measured(),
                            self.api
                        )));
                    }
                    total = total.saturating_add(size);
                }
            }
        }
        if total > limits.max_total {
            return Err(refuse(format!(
                "the request's {} attachments are {total} bytes{} together, more than {}'s limit of {} bytes per request",
                attachments.len(),
                limits.measured(),
                self.api,
                limits.max_total
            )));
        }
        Ok(())
    }
}

/// The bytes the attachments add to a body, for sizing it before it is written.
pub(crate) fn body_len(attachments: &[Attachment]) -> usize {
    attachments
        .iter()
        .map(|a| a.encoded_len() + a.source_url().map_or(0, str::len) + a.media_type().len() + 96)
        .sum()
}

/// Whether `url` is plain `https`: what most providers' fetchers take.
pub(crate) fn is_https(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
}

pub(crate) use super::sniff::{GIF, JPEG, PNG, WEBP};

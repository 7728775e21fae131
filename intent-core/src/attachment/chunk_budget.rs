//! The attachments one collection chunk's request may carry, so that chunk planning keeps every
//! chunk within the per-request limits of whichever provider answers it.
//!
//! A chunk may be sent to the primary provider or to any fallback, so it must fit the smallest
//! limits among them. The limits per provider API (each provider module's `AttachmentRules`,
//! checked again by the provider before it sends) are:
//!
//! | API | attachments per request | per image | per PDF | per request | measured on |
//! |---|---|---|---|---|---|
//! | Anthropic Messages | 100 | 5 MB | 32 MB | 32 MB | the base64 text |
//! | OpenAI Chat Completions, Responses | 500 | 20 MB | 50 MB | 50 MB | the file's bytes |
//! | Gemini `generateContent` | 3000 | 100 MB | 50 MB | 100 MB | the base64 text |
//!
//! A provider does not say which table is its own, so a chunk is planned within the smallest of
//! each column, [`CHUNK_BUDGET`]: Anthropic's, on every count. A chunk so planned is taken by any
//! provider this library ships, whichever of them the client falls back to. An attachment given
//! by URL counts towards the number of attachments only: its size is the provider's to find.

use super::provider_limits::{Limits, Measure};
use super::Attachment;

const MB: usize = 1024 * 1024;

/// How much a set of attachments weighs against a [`RequestBudget`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Load {
    /// The number of attachments.
    pub(crate) count: usize,
    /// Their inline size, as the budget measures it.
    pub(crate) size: usize,
}

/// The attachment limits one request is planned within.
#[derive(Debug)]
pub(crate) struct RequestBudget {
    /// Whose limits they are, as refusals name them.
    pub(crate) source: &'static str,
    /// The limits themselves.
    pub(crate) limits: Limits,
}

/// The budget of a collection chunk's request: the smallest limits among the providers this
/// library ships (see the [module docs](self)).
pub(crate) const CHUNK_BUDGET: RequestBudget = RequestBudget {
    source: "the smallest among the providers (Anthropic Messages)",
    limits: Limits {
        max_count: 100,
        max_image: 5 * MB,
        max_pdf: 32 * MB,
        max_total: 32 * MB,
        measure: Measure::Base64,
    },
};

impl RequestBudget {
    /// What `attachments` weigh.
    pub(crate) fn load(&self, attachments: &[Attachment]) -> Load {
        Load {
            count: attachments.len(),
            size: attachments
                .iter()
                .fold(0usize, |sum, a| sum.saturating_add(self.limits.size(a))),
        }
    }

    /// Whether a request already carrying `used` can take `more` as well.
    pub(crate) fn fits(&self, used: Load, more: Load) -> bool {
        used.count.saturating_add(more.count) <= self.limits.max_count
            && used.size.saturating_add(more.size) <= self.limits.max_total
    }

    /// Why one element's `attachments` fit in no request, as an issue's message (`None` when
    /// they fit): the first limit broken, naming the attachment, its size and the limit.
    pub(crate) fn refusal(&self, attachments: &[Attachment]) -> Option<String> {
        let limits = &self.limits;
        let measured = limits.measured();
        if attachments.len() > limits.max_count {
            return Some(format!(
                "The element carries {} attachments, more than the {} one request may carry (the limit of attachments per request, {}); nothing was sent for it.",
                attachments.len(),
                limits.max_count,
                self.source
            ));
        }
        for (i, attachment) in attachments.iter().enumerate() {
            let (limit, what) = limits.per_attachment(attachment.kind());
            let size = limits.size(attachment);
            if attachment.bytes().is_some() && size > limit {
                return Some(format!(
                    "The element's attachment {} ({}) is {size} bytes{measured}, more than the limit of {limit} bytes per {what} ({}); nothing was sent for it.",
                    i + 1,
                    attachment.summary(),
                    self.source
                ));
            }
        }
        let load = self.load(attachments);
        if load.size > limits.max_total {
            return Some(format!(
                "The element's {} attachments are {} bytes{measured} together, more than the limit of {} bytes per request ({}); nothing was sent for it.",
                load.count, load.size, limits.max_total, self.source
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pdf(size: usize) -> Attachment {
        Attachment::new(vec![0u8; size], "application/pdf")
    }

    #[test]
    fn an_element_over_a_limit_is_refused_with_the_limit_named() {
        let budget = &CHUNK_BUDGET;
        assert_eq!(budget.refusal(&[pdf(1000)]), None);
        let many: Vec<Attachment> = (0..101).map(|_| pdf(10)).collect();
        let message = budget.refusal(&many).unwrap();
        assert!(
            message.contains("101 attachments, more than the 100"),
            "{message}"
        );
        let image = Attachment::new(vec![0u8; 4 * MB], "image/png");
        let message = budget.refusal(&[image]).unwrap();
        assert!(
            message.contains("limit of 5242880 bytes per image"),
            "{message}"
        );
        let message = budget.refusal(&[pdf(13 * MB), pdf(13 * MB)]).unwrap();
        assert!(message.contains("bytes per request"), "{message}");
        let url = Attachment::url("https://example.com/a.pdf").unwrap();
        assert_eq!(budget.load(&[url]), Load { count: 1, size: 0 });
    }

    #[test]
    fn a_request_takes_more_while_both_count_and_size_fit() {
        let budget = &CHUNK_BUDGET;
        let half = budget.load(&[pdf(13 * MB)]);
        assert!(budget.fits(Load::default(), half));
        assert!(!budget.fits(half, half), "two 17 MB base64 PDFs pass 32 MB");
        let one = Load { count: 1, size: 1 };
        assert!(budget.fits(Load { count: 99, size: 0 }, one));
        assert!(!budget.fits(
            Load {
                count: 100,
                size: 0
            },
            one
        ));
    }
}

//! The tokens attachments are estimated at before a request is sent, for the rate limiter (see
//! [`estimate_tokens`](crate::ratelimit::estimate_tokens)). The reply's usage corrects the
//! estimate, so it only has to be of the right size, and rather high than low.
//!
//! - An image: [`IMAGE_TOKENS`] (1,600). Anthropic counts about width × height / 750 tokens for an
//!   image, which it scales down to about 1.15 megapixels first: at most about 1,600. OpenAI counts
//!   85 tokens at `detail: low`, and 85 + 170 per 512-pixel tile at `high` (1,445 at most, after
//!   its scaling to 2048 × 768); Gemini 258 per 768-pixel tile. Reading the image's size would
//!   refine it for one provider; the ceiling holds for all.
//! - A PDF: [`PDF_PAGE_TOKENS`] (3,000) per page. Anthropic gives 1,500 to 3,000 tokens of text a
//!   page, plus the page as an image; OpenAI sends each page's text and image too; Gemini 258 a
//!   page. The pages are counted as the page objects (`/Type /Page`) found in the file's bytes,
//!   once per attachment, at least one: pages kept in compressed object streams are not seen, and
//!   a PDF given by URL is counted as one page.
//! - Anything else: one image's worth.

use std::sync::LazyLock;

use super::{Attachment, Kind};

/// The tokens one image is estimated at.
pub(crate) const IMAGE_TOKENS: u64 = 1_600;

/// The tokens one page of a PDF is estimated at.
pub(crate) const PDF_PAGE_TOKENS: u64 = 3_000;

/// The tokens `attachments` are estimated at.
pub(crate) fn estimate(attachments: &[Attachment]) -> u64 {
    attachments
        .iter()
        .map(|attachment| match attachment.kind() {
            Kind::Pdf => PDF_PAGE_TOKENS.saturating_mul(u64::from(attachment.pages_seen())),
            Kind::Image | Kind::Other => IMAGE_TOKENS,
        })
        .fold(0, u64::saturating_add)
}

/// The page objects of a PDF's bytes, at least one: `/Type /Page` (with or without the space),
/// not `/Type /Pages`.
pub(super) fn pdf_pages(bytes: &[u8]) -> u32 {
    static PAGE: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
        regex::bytes::Regex::new(r"/Type\s*/Page(?:[^A-Za-z0-9]|$)").expect("a valid pattern")
    });
    let found = PAGE.find_iter(bytes).count();
    u32::try_from(found).unwrap_or(u32::MAX).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_count_a_ceiling_and_pdfs_their_pages() {
        let png = Attachment::new(vec![0x89, b'P', b'N', b'G'], "image/png");
        assert_eq!(estimate(&[png.clone(), png]), 2 * IMAGE_TOKENS);
        let three = b"%PDF-1.7\n1 0 obj << /Type /Pages /Count 3 >> endobj\n\
            2 0 obj << /Type /Page >> endobj 3 0 obj <</Type/Page/Parent 1 0 R>> endobj\n\
            4 0 obj << /Type /Page\n>> endobj\n%%EOF\n";
        let pdf = Attachment::from_bytes(three.to_vec()).unwrap();
        assert_eq!(estimate(&[pdf]), 3 * PDF_PAGE_TOKENS);
        // No page object found (compressed, or a URL): one page.
        let bare = Attachment::from_bytes(b"%PDF-1.7\n%%EOF\n".to_vec()).unwrap();
        assert_eq!(estimate(&[bare]), PDF_PAGE_TOKENS);
        let remote = Attachment::url("https://example.com/terms.pdf").unwrap();
        assert_eq!(estimate(&[remote]), PDF_PAGE_TOKENS);
        assert_eq!(estimate(&[]), 0);
    }
}

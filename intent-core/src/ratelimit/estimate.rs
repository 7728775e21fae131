//! The tokens a request is charged before it is sent.
//!
//! No tokenizer is bundled (each model family has its own), so the estimate is the request's
//! UTF-8 bytes over four (system message, user message and the JSON schema, which the provider
//! also reads) plus the reply it may produce: its `max_output_tokens`, or
//! 1,024 ([`DEFAULT_OUTPUT_TOKENS`]) when it sets none. Four bytes a token is the usual figure for English
//! and JSON; text in scripts of several bytes a character is over-counted rather than under.
//! Attachments add 1,600 tokens an image and 3,000 a PDF page (the pages the file's bytes show):
//! the highest the providers count, see `attachment::tokens`. The estimate only has to hold until
//! the reply's usage corrects it.

use std::io;

use crate::request::AiRequest;

/// The request bytes counted as one token.
pub(crate) const BYTES_PER_TOKEN: u64 = 4;

/// The output tokens charged for a request that sets no `max_output_tokens`.
pub(crate) const DEFAULT_OUTPUT_TOKENS: u64 = 1024;

/// The tokens `request` is charged before it is sent: its UTF-8 bytes (system and user
/// messages, the JSON schema) over 4, plus 1,600 an attached image and 3,000 a PDF page, plus its
/// `max_output_tokens`, or 1,024 when it sets none.
///
/// ```
/// use intent_core::AiRequest;
/// use intent_core::ratelimit::estimate_tokens;
///
/// let mut request = AiRequest::new("", "x".repeat(400));
/// request.max_output_tokens = Some(50);
/// assert_eq!(estimate_tokens(&request), 100 + 50);
///
/// // An image adds 1,600 tokens.
/// request.attachments.push(intent_core::Attachment::new(vec![0x89, b'P', b'N', b'G'], "image/png"));
/// assert_eq!(estimate_tokens(&request), 100 + 1600 + 50);
/// # Ok::<(), intent_core::IntentError>(())
/// ```
pub fn estimate_tokens(request: &AiRequest) -> u64 {
    let schema = request.schema.as_ref().map_or(0, |schema| {
        let mut counter = ByteCounter(0);
        // Writing to a counter cannot fail; a schema that does not serialize is not counted.
        let _ = serde_json::to_writer(&mut counter, schema);
        counter.0
    });
    let bytes = (request.system.len() as u64)
        .saturating_add(request.user.len() as u64)
        .saturating_add(schema);
    let output = request
        .max_output_tokens
        .map_or(DEFAULT_OUTPUT_TOKENS, u64::from);
    bytes
        .div_ceil(BYTES_PER_TOKEN)
        .saturating_add(crate::attachment::estimate_tokens(&request.attachments))
        .saturating_add(output)
}

/// Counts the bytes written to it, keeping none.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_and_the_default_output_are_counted() {
        let request = AiRequest::new("abcd", "efgh").with_format(
            crate::ResponseFormat::JsonSchema,
            Some(serde_json::json!({"type": "string"})),
        );
        // 8 bytes of messages, 17 of schema: 25 bytes, 7 tokens; no max_output_tokens.
        assert_eq!(estimate_tokens(&request), 7 + DEFAULT_OUTPUT_TOKENS);
    }
}

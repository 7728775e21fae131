//! OpenAI's token counts, which Chat Completions and the Responses API report under different
//! names but with the same details: one mapping for both.

use serde::Deserialize;

use crate::result::Usage;

/// The details of OpenAI's token counts (`*_tokens_details`).
#[derive(Deserialize)]
pub(crate) struct TokenDetails {
    #[serde(default, deserialize_with = "super::lenient")]
    cached_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient")]
    reasoning_tokens: Option<u64>,
}

/// Our usage from OpenAI's counts, which Chat Completions and the Responses API report under
/// different names but with the same details.
pub(crate) fn usage(
    input: Option<u64>,
    output: Option<u64>,
    input_details: Option<TokenDetails>,
    output_details: Option<TokenDetails>,
) -> Usage {
    Usage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        cached_tokens: input_details.and_then(|d| d.cached_tokens).unwrap_or(0),
        reasoning_tokens: output_details.and_then(|d| d.reasoning_tokens).unwrap_or(0),
        calls: 1,
    }
}

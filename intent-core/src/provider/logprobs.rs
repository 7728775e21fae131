//! Log probabilities of a reply's tokens: what each API is asked, and how each reply gives them.
//!
//! | API | asked with | given as |
//! |---|---|---|
//! | OpenAI Chat Completions (and llama.cpp, vLLM) | `"logprobs": true` | `choices[0].logprobs.content[] {token, logprob, bytes}`, per delta when streamed |
//! | OpenAI Responses | `"include": ["message.output_text.logprobs"]` | `output[].content[]` of type `output_text`: `logprobs[] {token, logprob, bytes}` |
//! | Gemini `generateContent` | `generationConfig.responseLogprobs: true` | `candidates[0].logprobsResult.chosenCandidates[] {token, logProbability}` |
//! | Anthropic Messages | refused before sending: the API gives none | |
//!
//! Sources: OpenAI's `openapi.yaml` (`ChatCompletionTokenLogprob`: `bytes` the token's UTF-8
//! bytes or null; `ResponseLogProb`; `CreateResponse.include`), Gemini's REST reference
//! (`GenerationConfig.responseLogprobs`, `LogprobsResult.chosenCandidates`; protobuf JSON leaves a
//! `logProbability` of 0 out), pydantic-ai's Responses cassettes with logprobs (`-0.0` is a
//! logprob), and replies recorded from llama.cpp's server (Qwen2.5 0.5B): its Chat reply read
//! whole lists the end-of-sequence token (`"token": ""`, `"bytes": []`), which is not in the
//! text and is dropped here; streamed, it is not sent.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ProviderError, ProviderErrorKind};
use crate::request::AiRequest;

/// One token of a reply and its log probability, as the provider gave them.
///
/// ```
/// use intent_core::provider::TokenLogprob;
///
/// let token = TokenLogprob::new("refund", -0.01);
/// assert!((token.probability() - 0.99).abs() < 0.001);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TokenLogprob {
    /// The token's text.
    pub token: String,
    /// The token's UTF-8 bytes, when the provider gives them (a token may hold part of a
    /// character, whose `token` text cannot show it).
    pub bytes: Option<Vec<u8>>,
    /// The natural logarithm of the token's probability (0 or less).
    pub logprob: f64,
}

impl TokenLogprob {
    /// A token with its log probability.
    pub fn new(token: impl Into<String>, logprob: f64) -> Self {
        TokenLogprob {
            token: token.into(),
            bytes: None,
            logprob,
        }
    }

    /// The same token, with its UTF-8 bytes.
    ///
    /// ```
    /// let token = intent_core::provider::TokenLogprob::new("é", -0.5).with_bytes(vec![195, 169]);
    /// assert_eq!(token.text_bytes(), &[195, 169]);
    /// ```
    pub fn with_bytes(mut self, bytes: Vec<u8>) -> Self {
        self.bytes = Some(bytes);
        self
    }

    /// The token's probability, 0 to 1.
    pub fn probability(&self) -> f64 {
        self.logprob.exp().clamp(0.0, 1.0)
    }

    /// The bytes the token adds to the reply's text: its `bytes`, else its text's.
    pub fn text_bytes(&self) -> &[u8] {
        self.bytes.as_deref().unwrap_or(self.token.as_bytes())
    }
}

/// A token as OpenAI's APIs (and llama.cpp's) write it; its `top_logprobs` are not read.
#[derive(Deserialize)]
pub(crate) struct WireToken {
    #[serde(default)]
    token: String,
    logprob: f64,
    #[serde(default)]
    bytes: Option<Vec<u8>>,
}

impl WireToken {
    /// The token, or `None` for an end-of-sequence token (no text and no bytes), which is not
    /// part of the reply's text.
    fn into_token(self) -> Option<TokenLogprob> {
        let empty = self.token.is_empty() && self.bytes.as_ref().is_none_or(Vec::is_empty);
        if empty || !self.logprob.is_finite() {
            return None;
        }
        Some(TokenLogprob {
            token: self.token,
            bytes: self.bytes,
            logprob: self.logprob.min(0.0),
        })
    }
}

/// A Chat Completions choice's (or streamed delta's) `logprobs`.
#[derive(Deserialize, Default)]
pub(crate) struct ChatLogprobs {
    #[serde(default)]
    content: Option<Vec<WireToken>>,
}

/// The tokens of a Chat Completions choice or delta; `None` when it gave none.
pub(crate) fn chat(logprobs: Option<ChatLogprobs>) -> Option<Vec<TokenLogprob>> {
    let content = logprobs?.content?;
    Some(
        content
            .into_iter()
            .filter_map(WireToken::into_token)
            .collect(),
    )
}

/// The tokens of a Responses API reply's `output` items (its `output_text` parts, in order);
/// `None` when no part gave any.
pub(crate) fn responses(items: &[Value]) -> Option<Vec<TokenLogprob>> {
    let mut tokens: Option<Vec<TokenLogprob>> = None;
    let parts = items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("message"))
        .filter_map(|item| item.get("content").and_then(Value::as_array))
        .flatten()
        .filter(|part| part.get("type").and_then(Value::as_str) == Some("output_text"));
    for part in parts {
        let Some(list) = part.get("logprobs").and_then(Value::as_array) else {
            continue;
        };
        let out = tokens.get_or_insert_with(Vec::new);
        out.extend(
            list.iter()
                .filter_map(|t| WireToken::deserialize(t).ok())
                .filter_map(WireToken::into_token),
        );
    }
    tokens
}

/// Gemini's `logprobsResult`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GeminiLogprobs {
    #[serde(default)]
    chosen_candidates: Option<Vec<GeminiToken>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GeminiToken {
    #[serde(default)]
    token: String,
    /// Left out by protobuf's JSON when it is 0.
    #[serde(default)]
    log_probability: f64,
}

/// The tokens of a Gemini candidate; `None` when it gave none.
pub(crate) fn gemini(result: Option<GeminiLogprobs>) -> Option<Vec<TokenLogprob>> {
    let chosen = result?.chosen_candidates?;
    Some(
        chosen
            .into_iter()
            .filter(|t| !t.token.is_empty() && t.log_probability.is_finite())
            .map(|t| TokenLogprob::new(t.token, t.log_probability.min(0.0)))
            .collect(),
    )
}

/// The Responses API's `include` entry that asks for the output text's log probabilities.
pub(crate) const RESPONSES_INCLUDE: &str = "message.output_text.logprobs";

/// The Responses API's `include` of `request`: the log probabilities, when asked for.
pub(crate) fn responses_include(request: &AiRequest) -> Option<[&'static str; 1]> {
    request.logprobs.then_some([RESPONSES_INCLUDE])
}

/// Chat Completions' `logprobs` field, flattened into its body.
#[derive(Serialize, Default, Debug)]
pub(crate) struct ChatRequest {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    logprobs: bool,
}

/// The Chat Completions field of `request`.
pub(crate) fn chat_request(request: &AiRequest) -> ChatRequest {
    ChatRequest {
        logprobs: request.logprobs,
    }
}

/// Refuses a request that asks for log probabilities of `api`, which gives none.
pub(crate) fn refuse_unsupported(
    request: &AiRequest,
    api: &str,
    provider: &str,
) -> Result<(), ProviderError> {
    if !request.logprobs {
        return Ok(());
    }
    Err(ProviderError::new(
        ProviderErrorKind::InvalidRequest,
        format!(
            "{api} gives no log probabilities; turn `logprobs` off for this provider, or name a provider that gives them (OpenAI, Gemini, llama.cpp, vLLM)"
        ),
    )
    .with_provider(provider))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_end_of_sequence_token_is_dropped() {
        let logprobs: ChatLogprobs = serde_json::from_value(json!({"content": [
            {"id": 3925, "token": "OK", "bytes": [79, 75], "logprob": -0.179, "top_logprobs": []},
            {"id": 151645, "token": "", "bytes": [], "logprob": -0.678, "top_logprobs": []}
        ]}))
        .unwrap();
        let tokens = chat(Some(logprobs)).unwrap();
        assert_eq!(tokens.len(), 1);
        assert_eq!(tokens[0].text_bytes(), b"OK");
        assert!(chat(None).is_none());
        assert!(chat(Some(ChatLogprobs::default())).is_none());
    }

    #[test]
    fn responses_and_gemini_tokens_are_read() {
        let items = vec![json!({"type": "message", "content": [
            {"type": "output_text", "text": "The", "logprobs": [{"token": "The", "logprob": -0.0, "bytes": [84, 104, 101], "top_logprobs": []}]}
        ]})];
        let tokens = responses(&items).unwrap();
        assert_eq!(tokens[0].token, "The");
        assert_eq!(tokens[0].probability(), 1.0);
        assert!(responses(&[
            json!({"type": "message", "content": [{"type": "output_text", "text": "x"}]})
        ])
        .is_none());
        let result: GeminiLogprobs = serde_json::from_value(json!({"chosenCandidates": [
            {"token": "{\"", "logProbability": -0.25}, {"token": "value"}
        ]}))
        .unwrap();
        let tokens = gemini(Some(result)).unwrap();
        assert_eq!(tokens.len(), 2);
        assert_eq!(tokens[1].logprob, 0.0);
    }
}

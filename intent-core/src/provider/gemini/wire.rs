//! The body and reply of Gemini's `generateContent`.
//!
//! Wire facts, checked against googleapis/python-genai (`google/genai/types.py`: `GenerationConfig`,
//! `ThinkingConfig`, `ThinkingLevel`, `Part`, `Candidate`, `FinishReason`, `BlockedReason`,
//! `GenerateContentResponseUsageMetadata`; `models.py` for the camelCase names; August 2026) and
//! ai.google.dev/gemini-api/docs (structured-output, thinking):
//!
//! - Body: `systemInstruction: {"parts": [{"text"}]}`, `contents: [{"role": "user", "parts":
//!   [{"text"}]}]`, `generationConfig: {responseMimeType ("text/plain" or "application/json"),
//!   responseJsonSchema (needs the JSON mime type), maxOutputTokens, temperature, thinkingConfig:
//!   {thinkingBudget (0 turns thinking off), thinkingLevel (MINIMAL, LOW, MEDIUM, HIGH),
//!   includeThoughts}}`. A budget and a level in one request are refused (400); `thinkingConfig`
//!   is refused by models that do not think, so it is sent only when asked for.
//! - Reply: `candidates[0].content.parts[]` of `{"text"}` and `{"text", "thought": true}` (thought
//!   summaries, returned with `includeThoughts`), `candidates[0].finishReason`,
//!   `promptFeedback.blockReason` (no candidates when the prompt was blocked), `modelVersion`,
//!   `usageMetadata {promptTokenCount (cached content included), candidatesTokenCount,
//!   cachedContentTokenCount, thoughtsTokenCount, toolUsePromptTokenCount, totalTokenCount}`,
//!   where the total is prompt + candidates + tool-use prompt + thoughts: thoughts are *not* in
//!   `candidatesTokenCount`, so [`Usage::output_tokens`] adds them.
//! - Finish reasons: `STOP`; `MAX_TOKENS`; `SAFETY`, `RECITATION`, `BLOCKLIST`,
//!   `PROHIBITED_CONTENT`, `SPII`, `IMAGE_SAFETY`, `IMAGE_PROHIBITED_CONTENT`, `IMAGE_RECITATION`
//!   (the provider stopped the reply); `LANGUAGE` (an unsupported language), `OTHER` ("all other
//!   reasons that stopped the token generation"), `MALFORMED_FUNCTION_CALL`,
//!   `UNEXPECTED_TOOL_CALL`, `TOO_MANY_TOOL_CALLS` (this library sends no tools),
//!   `MALFORMED_RESPONSE`, `MISSING_THOUGHT_SIGNATURE`, `NO_IMAGE`, `IMAGE_OTHER`,
//!   `FINISH_REASON_UNSPECIFIED` ("the finish reason is unspecified"), and any name added later:
//!   none of these is a normal end, so each is [`FinishReason::Abnormal`] by name and fails its
//!   attempt (js-genai `types.FinishReason`, Firebase AI `FinishReason`, December 2026). Block
//!   reasons: `SAFETY`, `OTHER`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `IMAGE_SAFETY`.
//! - Prompt caching: Gemini caches implicitly (2.5 models and later) and reports
//!   `cachedContentTokenCount`; explicit caches are separate resources (`cachedContents`) this
//!   library does not create, so nothing is sent for `AiRequest::prompt_caching`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::provider::http::{answering_model, no_answer, read_reply};
use crate::provider::tool_wire::Conversation;
use crate::provider::transport::ApiKey;
use crate::provider::{AiResponse, FinishReason, ProviderError};
use crate::request::ReasoningEffort;
use crate::result::Usage;

/// The response MIME type of a JSON reply.
pub(super) const JSON_MIME_TYPE: &str = "application/json";
/// The response MIME type of a text reply.
pub(super) const TEXT_MIME_TYPE: &str = "text/plain";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerateBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) system_instruction: Option<Content<'a>>,
    pub(super) contents: Conversation<'a, Content<'a>>,
    #[serde(flatten)]
    pub(super) tools: super::tools::Tools,
    pub(super) generation_config: GenerationConfig<'a>,
}

#[derive(Serialize)]
pub(super) struct Content<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) role: Option<&'static str>,
    /// The attachments, then the text (`super::parts`).
    pub(super) parts: super::parts::Parts<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerationConfig<'a> {
    pub(super) response_mime_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) response_json_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) thinking_config: Option<ThinkingConfig>,
    #[serde(flatten)]
    pub(super) sampling: crate::provider::sampling::SamplingFields<'a>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) response_logprobs: bool,
}

#[derive(Serialize, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub(super) struct ThinkingConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_budget: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_level: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    include_thoughts: Option<bool>,
}

impl ThinkingConfig {
    /// The thinking settings of a request, `None` when it sets none. A budget wins over an effort
    /// (Gemini refuses both); thoughts are asked for whenever thinking is on, so the reply's
    /// reasoning is kept.
    pub(super) fn of(
        budget: Option<u32>,
        effort: Option<ReasoningEffort>,
    ) -> Option<ThinkingConfig> {
        match (budget, effort) {
            (Some(0), _) => Some(ThinkingConfig {
                thinking_budget: Some(0),
                thinking_level: None,
                include_thoughts: None,
            }),
            (Some(budget), _) => Some(ThinkingConfig {
                thinking_budget: Some(budget),
                thinking_level: None,
                include_thoughts: Some(true),
            }),
            (None, Some(effort)) => Some(ThinkingConfig {
                thinking_budget: None,
                thinking_level: Some(match effort {
                    ReasoningEffort::Low => "LOW",
                    ReasoningEffort::Medium => "MEDIUM",
                    ReasoningEffort::High => "HIGH",
                }),
                include_thoughts: Some(true),
            }),
            (None, None) => None,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerateReply {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) candidates: Option<Vec<Candidate>>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) prompt_feedback: Option<PromptFeedback>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) usage_metadata: Option<UsageMetadata>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) model_version: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Candidate {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) content: Option<CandidateContent>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) finish_reason: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) logprobs_result: Option<crate::provider::logprobs::GeminiLogprobs>,
}

#[derive(Deserialize)]
pub(super) struct CandidateContent {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) parts: Option<Vec<Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PromptFeedback {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) block_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct UsageMetadata {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    prompt_token_count: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    candidates_token_count: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    cached_content_token_count: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    thoughts_token_count: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    tool_use_prompt_token_count: Option<u64>,
}

/// Our finish reason for Gemini's: only `STOP` (or none, on a reply that ended) is a normal end.
pub(super) fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("STOP") => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(
            "SAFETY"
            | "RECITATION"
            | "BLOCKLIST"
            | "PROHIBITED_CONTENT"
            | "SPII"
            | "IMAGE_SAFETY"
            | "IMAGE_PROHIBITED_CONTENT"
            | "IMAGE_RECITATION",
        ) => FinishReason::ContentFilter,
        Some(other) => FinishReason::Abnormal(other.to_owned()),
    }
}

/// Reads a `generateContent` reply.
pub(super) fn parse(body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    let reply: GenerateReply = read_reply(body, "generateContent", key)?;
    let model = answering_model(reply.model_version, model);
    let usage = usage(reply.usage_metadata.unwrap_or_default());
    let Some(candidate) = reply.candidates.and_then(|c| c.into_iter().next()) else {
        if let Some(reason) = reply.prompt_feedback.and_then(|f| f.block_reason) {
            // The prompt itself was blocked: no candidate, and nothing to read.
            tracing::debug!(block_reason = %reason, "gemini blocked the prompt");
            let mut response = AiResponse::new(String::new(), model);
            response.finish_reason = FinishReason::ContentFilter;
            response.usage = usage;
            return Ok(response);
        }
        return Err(no_answer(
            reply.error.as_ref(),
            "candidates",
            "the reply has no candidates[0]",
        ));
    };
    let mut text = String::new();
    let mut reasoning = String::new();
    let parts = candidate.content.and_then(|c| c.parts).unwrap_or_default();
    for part in &parts {
        match part_text(part) {
            Some((piece, true)) => reasoning.push_str(piece),
            Some((piece, false)) => text.push_str(piece),
            None => {}
        }
    }
    let mut response = AiResponse::new(text, model);
    response.finish_reason = finish_reason(candidate.finish_reason.as_deref());
    response.reasoning = (!reasoning.trim().is_empty()).then_some(reasoning);
    response.usage = usage;
    response.logprobs = crate::provider::logprobs::gemini(candidate.logprobs_result);
    (response.tool_calls, response.vendor_turn) = super::tools::calls_of(&parts);
    Ok(response)
}

/// A part's text, and whether it is a thought (`"thought": true`), when it has text.
pub(super) fn part_text(part: &Value) -> Option<(&str, bool)> {
    let text = part.get("text").and_then(Value::as_str)?;
    Some((
        text,
        part.get("thought").and_then(Value::as_bool) == Some(true),
    ))
}

pub(super) fn usage(metadata: UsageMetadata) -> Usage {
    let thoughts = metadata.thoughts_token_count.unwrap_or(0);
    Usage {
        input_tokens: metadata
            .prompt_token_count
            .unwrap_or(0)
            .saturating_add(metadata.tool_use_prompt_token_count.unwrap_or(0)),
        output_tokens: metadata
            .candidates_token_count
            .unwrap_or(0)
            .saturating_add(thoughts),
        cached_tokens: metadata.cached_content_token_count.unwrap_or(0),
        reasoning_tokens: thoughts,
        calls: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_finish_reason_maps() {
        assert_eq!(finish_reason(Some("STOP")), FinishReason::Stop);
        assert_eq!(finish_reason(None), FinishReason::Stop);
        assert_eq!(finish_reason(Some("MAX_TOKENS")), FinishReason::Length);
        for filtered in [
            "SAFETY",
            "RECITATION",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_RECITATION",
        ] {
            assert_eq!(
                finish_reason(Some(filtered)),
                FinishReason::ContentFilter,
                "{filtered}"
            );
        }
        for named in [
            "LANGUAGE",
            "OTHER",
            "MALFORMED_FUNCTION_CALL",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "NO_IMAGE",
            "IMAGE_OTHER",
            "FINISH_REASON_UNSPECIFIED",
            "MALFORMED_RESPONSE",
            "A_REASON_ADDED_LATER",
        ] {
            assert_eq!(
                finish_reason(Some(named)),
                FinishReason::Abnormal(named.to_owned())
            );
        }
    }

    #[test]
    fn a_budget_wins_over_an_effort_and_zero_turns_thinking_off() {
        let both = ThinkingConfig::of(Some(2048), Some(ReasoningEffort::High)).unwrap();
        assert_eq!(
            serde_json::to_value(&both).unwrap(),
            serde_json::json!({"thinkingBudget": 2048, "includeThoughts": true})
        );
        let off = ThinkingConfig::of(Some(0), Some(ReasoningEffort::High)).unwrap();
        assert_eq!(
            serde_json::to_value(&off).unwrap(),
            serde_json::json!({"thinkingBudget": 0})
        );
        assert_eq!(ThinkingConfig::of(None, None), None);
    }
}

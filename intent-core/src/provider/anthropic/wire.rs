//! The body and the reply of Anthropic's Messages API, `POST {base}/v1/messages`.
//!
//! Wire facts (Anthropic's Messages API reference, "Extended thinking", "Prompt caching"):
//!
//! - Body: `model`; `max_tokens` (required); `system` (the plain text, or with prompt caching one
//!   `{"type": "text", "text", "cache_control": {"type": "ephemeral"}}` block); `messages`, one
//!   `user` message with the attachments as blocks (`parts`); `temperature` (only when asked, and
//!   never with thinking); the sampling fields; `thinking` (`{"type": "enabled",
//!   "budget_tokens"}` or `{"type": "disabled"}`); `output_config.format` (`{"type":
//!   "json_schema", "schema"}`) for a strict schema; `stream` for a streamed reply.
//! - Prompt caching: the prefix up to a block marked `cache_control` is cached (5 minutes by
//!   default), in the order tools, system, messages, with at most 4 marks. Only the system block
//!   is marked: the prompt's examples follow its input, so a mark after them would cover the
//!   input too and no other call would share that prefix. A prefix shorter than the model's
//!   minimum (1024 to 4096 tokens) is silently not cached.
//! - Reply: `content` blocks (`text`, `thinking`, `redacted_thinking`, ...), `stop_reason`
//!   (`end_turn`, `stop_sequence`, `max_tokens`, `model_context_window_exceeded`, `refusal`),
//!   `model`, `usage` (`input_tokens` without the cache's, `cache_creation_input_tokens`,
//!   `cache_read_input_tokens`, `output_tokens` with the thinking).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{parts, tools, Anthropic};
use crate::provider::http::{
    answering_model, no_answer, read_reply, request_body, strict_schema, Call,
};
use crate::provider::transport::ApiKey;
use crate::provider::{AiResponse, FinishReason, ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, ResponseFormat, SharedSchema};
use crate::result::Usage;

/// The smallest thinking budget Anthropic takes, in tokens.
const MIN_THINKING_BUDGET: u32 = 1024;

/// The JSON body for `request`; `stream` asks for the reply as an event stream.
pub(super) fn body(
    settings: &Anthropic,
    call: Call<'_>,
    stream: bool,
) -> Result<Vec<u8>, ProviderError> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    let output_config = match request.format {
        ResponseFormat::Text | ResponseFormat::JsonObject => None,
        ResponseFormat::JsonSchema => Some(OutputConfig {
            format: OutputFormat {
                kind: "json_schema",
                schema: strict_schema(request, provider)?,
            },
        }),
    };
    parts::RULES.check(&request.attachments, provider)?;
    let reply_limit = request
        .max_output_tokens
        .unwrap_or(settings.default_max_tokens);
    let thinking = match request.thinking_budget {
        None => None,
        Some(0) => Some(Thinking::Disabled),
        Some(budget) if budget < MIN_THINKING_BUDGET => {
            return Err(ProviderError::new(
                ProviderErrorKind::InvalidRequest,
                format!(
                    "Anthropic's extended thinking takes a thinking_budget of at least {} tokens (or 0 for none); the request asks for {budget}",
                    MIN_THINKING_BUDGET
                ),
            )
            .with_provider(provider));
        }
        Some(budget) => Some(Thinking::Enabled {
            budget_tokens: budget,
        }),
    };
    crate::provider::logprobs::refuse_unsupported(request, "Anthropic's Messages API", provider)?;
    let thinks = matches!(thinking, Some(Thinking::Enabled { .. }));
    let max_tokens = match thinking {
        // The budget counts in max_tokens, which must exceed it: the reply keeps its own limit.
        Some(Thinking::Enabled { budget_tokens }) => budget_tokens.saturating_add(reply_limit),
        _ => reply_limit,
    };
    let body = MessagesBody {
        model,
        max_tokens,
        system: System::of(request),
        messages: tools::Messages {
            user: Message {
                role: "user",
                content: parts::UserContent::of(request),
            },
            tools: request.tools.as_deref(),
        },
        tools: tools::tools(request, thinks, provider)?,
        // Thinking is refused with a changed temperature.
        temperature: request
            .temperature
            .filter(|_| settings.send_temperature && !thinks),
        sampling: crate::provider::sampling::anthropic(request, provider)?,
        thinking,
        output_config,
        stream: stream.then_some(true),
    };
    request_body(&body, request, provider)
}

#[derive(Serialize)]
struct MessagesBody<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<System<'a>>,
    messages: tools::Messages<'a, Message<'a>>,
    #[serde(flatten)]
    tools: tools::Tools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(flatten)]
    sampling: crate::provider::sampling::AnthropicSampling<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Thinking {
    Enabled { budget_tokens: u32 },
    Disabled,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: parts::UserContent<'a>,
}

#[derive(Serialize)]
struct OutputConfig<'a> {
    format: OutputFormat<'a>,
}

#[derive(Serialize)]
struct OutputFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    schema: &'a SharedSchema,
}

#[derive(Deserialize)]
struct MessagesReply {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    model: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    content: Option<Vec<Value>>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    stop_reason: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<MessagesUsage>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    error: Option<Value>,
}

#[derive(Deserialize, Default)]
pub(super) struct MessagesUsage {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) cache_creation_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    pub(super) cache_read_input_tokens: Option<u64>,
}

/// Reads a Messages API reply.
pub(super) fn parse(body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    let reply: MessagesReply = read_reply(body, "Messages API", key)?;
    let Some(blocks) = reply.content else {
        return Err(no_answer(
            reply.error.as_ref(),
            "content",
            "the reply has no content",
        ));
    };
    let block_texts = |kind: &'static str, field: &'static str| {
        blocks
            .iter()
            .filter(move |b| b.get("type").and_then(Value::as_str) == Some(kind))
            .filter_map(move |b| b.get(field).and_then(Value::as_str))
    };
    let text: String = block_texts("text", "text").collect();
    let reasoning = block_texts("thinking", "thinking")
        .filter(|t| !t.trim().is_empty())
        .collect::<Vec<_>>()
        .join(THINKING_SEPARATOR);
    let finish_reason = stop_reason(reply.stop_reason.as_deref());
    let refusal = (finish_reason == FinishReason::Refusal).then(|| text.trim().to_owned());
    let mut response = AiResponse::new(text, answering_model(reply.model, model));
    response.finish_reason = finish_reason;
    response.refusal = refusal;
    response.reasoning = (!reasoning.is_empty()).then_some(reasoning);
    response.usage = reply.usage.unwrap_or_default().usage();
    (response.tool_calls, response.vendor_turn) = tools::calls_of(&blocks);
    Ok(response)
}

/// What sets two thinking blocks apart in the reply's reasoning.
pub(super) const THINKING_SEPARATOR: &str = "\n\n";

/// Why the model stopped, from the reply's `stop_reason`.
pub(super) fn stop_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("refusal") => FinishReason::Refusal,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

impl MessagesUsage {
    /// The usage of one call: input counts the cache writes and reads, which `input_tokens`
    /// leaves out.
    pub(super) fn usage(&self) -> Usage {
        let cache_read = self.cache_read_input_tokens.unwrap_or(0);
        Usage {
            input_tokens: self
                .input_tokens
                .unwrap_or(0)
                .saturating_add(self.cache_creation_input_tokens.unwrap_or(0))
                .saturating_add(cache_read),
            output_tokens: self.output_tokens.unwrap_or(0),
            cached_tokens: cache_read,
            // Anthropic counts thinking in output_tokens and reports no separate figure.
            reasoning_tokens: 0,
            calls: 1,
        }
    }
}

/// Anthropic's `system`: the plain text, or one text block marked for caching.
#[derive(Serialize)]
#[serde(untagged)]
enum System<'a> {
    Text(&'a str),
    Cached([CachedText<'a>; 1]),
}

#[derive(Serialize)]
struct CachedText<'a> {
    r#type: &'static str,
    text: &'a str,
    cache_control: CacheControl,
}

#[derive(Serialize)]
struct CacheControl {
    r#type: &'static str,
}

impl<'a> System<'a> {
    /// The `system` of `request`, none when it is empty; a cached block when it asks for caching.
    fn of(request: &'a AiRequest) -> Option<Self> {
        let text = request.system.as_str();
        if text.is_empty() {
            return None;
        }
        Some(if request.prompt_caching {
            System::Cached([CachedText {
                r#type: "text",
                text,
                cache_control: CacheControl {
                    r#type: "ephemeral",
                },
            }])
        } else {
            System::Text(text)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::provider::http::caching_request as request;

    #[test]
    fn anthropic_marks_the_system_block_only_when_asked() {
        let cached = serde_json::to_value(System::of(&request("sys", "u"))).unwrap();
        assert_eq!(
            cached,
            serde_json::json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}])
        );
        let plain = serde_json::to_value(System::of(&AiRequest::new("sys", "u"))).unwrap();
        assert_eq!(plain, serde_json::json!("sys"));
        assert!(System::of(&request("", "u")).is_none());
    }
}

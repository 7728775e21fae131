//! The body and the reply of Anthropic's Messages API, `POST {base}/v1/messages`.
//!
//! Wire facts (Anthropic's Messages API reference, "Extended thinking", "Prompt caching"):
//!
//! - Body: `model`; `max_tokens` (required); `system` (the plain text, or with prompt caching one
//!   `{"type": "text", "text", "cache_control": {"type": "ephemeral"}}` block); `messages`, one
//!   `user` message with the attachments as blocks (`parts`); `temperature` (when set; refused
//!   with thinking on, see `provider::plan`); the sampling fields; `thinking` (`{"type":
//!   "enabled", "budget_tokens"}` or `{"type": "disabled"}`); `output_config.format` (`{"type":
//!   "json_schema", "schema"}`) for a strict schema and `output_config.effort` (`low`, `medium`,
//!   `high`; "Effort", platform.claude.com/docs/en/build-with-claude/effort, and pydantic-ai's
//!   cassette `test_anthropic_opus_46_features[effort].yaml`) for a reasoning effort; `stream`
//!   for a streamed reply.
//! - Prompt caching: the prefix up to a block marked `cache_control` is cached (5 minutes by
//!   default), in the order tools, system, messages, with at most 4 marks ("Prompt caching",
//!   platform.claude.com/docs/en/build-with-claude/prompt-caching). Two are sent: the system
//!   block, and the intent's text, sent as the user message's first text block (before the
//!   attachments and the input, which vary from call to call; the prompt's examples follow its
//!   input, so a mark after them would cover the input too and no other call would share that
//!   prefix). A text block with `cache_control` in a message is as pydantic-ai's cassette
//!   `test_anthropic_mid_conversation_system/test_inline_system_prompt_cache_prefix_is_reused.yaml`
//!   sends it. The strict schema counts in the prefix: changing `output_config.format` changes
//!   what is cached. A prefix shorter than the model's minimum (1024 to 4096 tokens, `models`)
//!   is silently not cached by Anthropic: the attempt's record says so (`provider::plan`).
//! - Reply: `content` blocks (`text`, `thinking`, `redacted_thinking`, ...), `stop_reason`
//!   (`end_turn`, `stop_sequence`, `max_tokens`, `model_context_window_exceeded`, `refusal`),
//!   `model`, `usage` (`input_tokens` without the cache's, `cache_creation_input_tokens`,
//!   `cache_read_input_tokens`, `output_tokens` with the thinking, and on newer models
//!   `output_tokens_details.thinking_tokens`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parts::CachedText;
use super::{parts, tools, Anthropic};
use crate::provider::http::{
    answering_model, intent_and_input, no_answer, read_reply, request_body, strict_schema, Call,
};
use crate::provider::models::Maker;
use crate::provider::plan::{plan, Asker, Plan};
use crate::provider::sampling;
use crate::provider::tool_wire::Conversation;
use crate::provider::transport::ApiKey;
use crate::provider::{AiResponse, FinishReason, ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, ReasoningEffort, ResponseFormat, SharedSchema};
use crate::result::Usage;

/// The smallest thinking budget Anthropic takes, in tokens.
const MIN_THINKING_BUDGET: u32 = 1024;

/// What `call`'s model settings become on the Messages API (see `provider::plan`).
pub(super) fn plan_of(settings: &Anthropic, call: Call<'_>) -> Result<Plan, ProviderError> {
    let asker = Asker {
        maker: Maker::Anthropic,
        api: "Anthropic Messages",
        provider: call.provider,
        model: call.model,
        send_temperature: settings.send_temperature,
    };
    plan(asker, call.request)
}

/// The JSON body for `request`; `stream` asks for the reply as an event stream.
pub(super) fn body(
    settings: &Anthropic,
    call: Call<'_>,
    stream: bool,
) -> Result<Vec<u8>, ProviderError> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    let plan = plan_of(settings, call)?;
    let format = match request.format {
        ResponseFormat::Text | ResponseFormat::JsonObject => None,
        ResponseFormat::JsonSchema => Some(OutputFormat {
            kind: "json_schema",
            schema: strict_schema(request, provider)?,
        }),
    };
    let output_config =
        (format.is_some() || plan.reasoning_effort.is_some()).then_some(OutputConfig {
            format,
            effort: plan.reasoning_effort,
        });
    parts::RULES.check(&request.attachments, provider)?;
    let reply_limit = request
        .max_output_tokens
        .unwrap_or(settings.default_max_tokens);
    let thinking = match plan.thinking_budget {
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
        messages: Conversation {
            user: Message {
                role: "user",
                content: parts::UserContent::of(request, cached_intent(request)),
            },
            tools: request.tools.as_deref(),
            round: tools::round_messages,
        },
        tools: tools::tools(request, thinks, provider)?,
        temperature: plan.temperature,
        sampling: sampling::ANTHROPIC.fields(request, plan.top_p, provider)?,
        thinking,
        output_config,
        stream: stream.then_some(true),
    };
    request_body(&body, request, provider)
}

/// The head of the user message to mark for caching: its intent, when the request asks for
/// caching and the message has an input after it (a message that is all intent is the same for
/// every call, and the system block's mark is where a shared prefix ends).
fn cached_intent(request: &AiRequest) -> Option<&str> {
    if !request.prompt_caching {
        return None;
    }
    let (intent, input) = intent_and_input(&request.user);
    (!intent.is_empty() && !input.is_empty()).then_some(intent)
}

#[derive(Serialize)]
struct MessagesBody<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<System<'a>>,
    messages: Conversation<'a, Message<'a>>,
    #[serde(flatten)]
    tools: tools::Tools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(flatten)]
    sampling: crate::provider::sampling::SamplingFields<'a>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<OutputFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    effort: Option<ReasoningEffort>,
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
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    cache_read_input_tokens: Option<u64>,
    /// `{"thinking_tokens"}`: how many of `output_tokens` were thinking (Claude 4.6 and later, as
    /// the vendor fixture `anthropic-messages/anthropic-claude-opus-5-reasoning-high.1.json`
    /// records it).
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output_tokens_details: Option<OutputDetails>,
}

#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct OutputDetails {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    thinking_tokens: Option<u64>,
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
    /// The counts of `newer` that are present replace these.
    pub(super) fn replace_with(&mut self, newer: MessagesUsage) {
        let MessagesUsage {
            input_tokens,
            output_tokens,
            cache_creation_input_tokens,
            cache_read_input_tokens,
            output_tokens_details,
        } = newer;
        if output_tokens_details.is_some() {
            self.output_tokens_details = output_tokens_details;
        }
        for (count, newer) in [
            (&mut self.input_tokens, input_tokens),
            (&mut self.output_tokens, output_tokens),
            (
                &mut self.cache_creation_input_tokens,
                cache_creation_input_tokens,
            ),
            (&mut self.cache_read_input_tokens, cache_read_input_tokens),
        ] {
            if newer.is_some() {
                *count = newer;
            }
        }
    }

    /// The usage of one call: input counts the cache writes and reads, which `input_tokens`
    /// leaves out.
    pub(super) fn usage(&self) -> Usage {
        Usage::one_call_with_cache_apart(
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
            self.output_tokens,
            // Counted in output_tokens too; models before 4.6 report no separate figure.
            self.output_tokens_details.and_then(|d| d.thinking_tokens),
        )
    }
}

/// Anthropic's `system`: the plain text, or one text block marked for caching.
#[derive(Serialize)]
#[serde(untagged)]
enum System<'a> {
    Text(&'a str),
    Cached([CachedText<'a>; 1]),
}

impl<'a> System<'a> {
    /// The `system` of `request`, none when it is empty; a cached block when it asks for caching.
    fn of(request: &'a AiRequest) -> Option<Self> {
        let text = request.system.as_str();
        if text.is_empty() {
            return None;
        }
        Some(if request.prompt_caching {
            System::Cached([CachedText::new(text)])
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

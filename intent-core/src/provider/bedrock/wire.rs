//! The body and the reply of Amazon Bedrock's Converse API,
//! `POST {base}/model/{modelId}/converse` (and `/converse-stream`, the same body).
//!
//! Wire facts (Amazon Bedrock API reference, `Converse`, `InferenceConfiguration`,
//! `ToolConfiguration`, `SystemContentBlock`, `CachePointBlock`, `ConverseOutput`, `TokenUsage`;
//! the replies' shapes as recorded in pydantic-ai's cassettes, `tests/models/cassettes/test_bedrock/`):
//!
//! - Body: `messages` (one `user` message, its `content` blocks from `parts`); `system`, a list of
//!   `{"text"}` blocks, with `{"cachePoint": {"type": "default"}}` after it when the request asks
//!   for prompt caching; `inferenceConfig` (`maxTokens`, `temperature`, `topP`,
//!   `stopSequences`); `additionalModelRequestFields` for what only the model takes (Claude's
//!   `thinking: {"type": "enabled", "budget_tokens"}`).
//! - A strict schema goes as one tool whose `inputSchema.json` is the schema and
//!   `toolChoice: {"tool": {"name"}}`, which forces the model to call it: the reply's
//!   `toolUse.input` is the answer, a JSON object, read as the reply's text. Converse has no seed
//!   and no log probabilities: both are refused, as is a JSON schema with Claude's thinking,
//!   which refuses a forced tool, and a changed temperature with thinking, which Claude refuses.
//!   The caller's own tools are not offered on Converse yet: a request with tools is refused.
//! - Reply: `output.message.content` blocks (`text`, `toolUse {toolUseId, name, input}`,
//!   `reasoningContent {reasoningText {text, signature}}` or `{redactedContent}`), `stopReason`
//!   (`end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, `guardrail_intervened`,
//!   `content_filtered`, `model_context_window_exceeded`), `usage` (`inputTokens` without the
//!   cache's, `outputTokens`, `cacheReadInputTokens`, `cacheWriteInputTokens`).
//! - Errors are `{"message"}` with the exception named in `x-amzn-ErrorType` (and `__type` in
//!   some bodies): `ThrottlingException` (429) and `ServiceUnavailableException` (503) are
//!   retried by the transport, `ValidationException` (400) and `AccessDeniedException` (403)
//!   are not; a model the region does not offer is a 400 `ValidationException` or a 404
//!   `ResourceNotFoundException` naming it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parts::{self, TextBlock};
use crate::provider::http::{read_reply, request_body, strict_schema, Call};
use crate::provider::transport::ApiKey;
use crate::provider::{AiResponse, FinishReason, ProviderError, ProviderErrorKind};
use crate::request::{ResponseFormat, SharedSchema};
use crate::result::{IssueKind, ResultIssue, Usage};

/// The tool's description, for a forced tool whose input is the answer.
const ANSWER_TOOL: &str =
    "Give the answer: the tool's input is the whole answer, as its schema says.";
/// The smallest thinking budget Claude takes, in tokens.
const MIN_THINKING_BUDGET: u32 = 1024;

fn refuse(provider: &str, message: String) -> ProviderError {
    ProviderError::new(ProviderErrorKind::InvalidRequest, message).with_provider(provider)
}

/// What the body of `call` leaves out, each a notice for the attempt's record: prompt caching
/// with no system prompt (the cache point follows the system prompt, so nothing would be
/// cached), and a reasoning effort beside a thinking budget (Converse takes the budget only).
pub(super) fn notices(call: Call<'_>) -> Vec<ResultIssue> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    let mut notices = Vec::new();
    let mut notice = |setting: &str, why: &str| {
        notices.push(ResultIssue::new(
            IssueKind::Request,
            format!(
                "`{setting}` was not sent to {provider} (Amazon Bedrock Converse, model {model}): {why}."
            ),
        ));
    };
    if request.prompt_caching && request.system.is_empty() {
        notice(
            "prompt_caching",
            "the cache point follows the system prompt, and this request has none, so nothing would be cached",
        );
    }
    if request.reasoning_effort.is_some() && request.thinking_budget.is_some() {
        notice(
            "reasoning_effort",
            "Converse takes no effort; the thinking budget is sent instead",
        );
    }
    notices
}

/// The JSON body of `call`.
pub(super) fn body(call: Call<'_>) -> Result<Vec<u8>, ProviderError> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    parts::RULES.check(&request.attachments, provider)?;
    crate::provider::logprobs::refuse_unsupported(
        request,
        "Amazon Bedrock's Converse API",
        provider,
    )?;
    if request.seed.is_some() {
        return Err(refuse(
            provider,
            "Amazon Bedrock's Converse API takes no seed; leave `seed` unset for this provider"
                .into(),
        ));
    }
    if request.tools.is_some() {
        return Err(refuse(
            provider,
            "BedrockProvider does not offer tools to the model: leave out `.tool(..)` and use \
             OutputMode::Native (the default) with this provider"
                .into(),
        ));
    }
    if let Some(effort) = request.reasoning_effort {
        if request.thinking_budget.is_none() {
            return Err(refuse(provider, format!(
                "Amazon Bedrock's Converse API takes no reasoning effort ({}) for {model}; set `thinking_budget` instead (Claude models), or leave `reasoning_effort` unset",
                effort.as_str()
            )));
        }
    }
    let thinking = match request.thinking_budget {
        None | Some(0) => None,
        Some(budget) if !model.contains("anthropic.") => {
            return Err(refuse(provider, format!(
                "a thinking budget ({budget} tokens) is sent to Claude models on Bedrock only; {model} is not one: leave `thinking_budget` unset"
            )));
        }
        Some(budget) if budget < MIN_THINKING_BUDGET => {
            return Err(refuse(provider, format!(
                "Claude's extended thinking takes a thinking_budget of at least {MIN_THINKING_BUDGET} tokens (or 0 for none); the request asks for {budget}"
            )));
        }
        Some(budget) => Some(budget),
    };
    if thinking.is_some() && request.temperature.is_some() {
        return Err(refuse(provider, format!(
            "Claude's extended thinking on Bedrock takes no changed temperature: leave `temperature` or `thinking_budget` unset for {model}"
        )));
    }
    let tool_config = match request.format {
        ResponseFormat::Text | ResponseFormat::JsonObject => None,
        ResponseFormat::JsonSchema => {
            if thinking.is_some() {
                return Err(refuse(provider, format!(
                    "{model} on Bedrock cannot think while forced to answer through a tool, which is how a strict schema is sent: leave `thinking_budget` unset, or ask for JSON without a schema"
                )));
            }
            let name = request.schema_name.as_str();
            Some(ToolConfig {
                tools: [ToolEntry {
                    tool_spec: ToolSpec {
                        name,
                        description: ANSWER_TOOL,
                        input_schema: InputSchema {
                            json: strict_schema(request, provider)?,
                        },
                    },
                }],
                tool_choice: ToolChoice {
                    tool: NamedTool { name },
                },
            })
        }
    };
    let max_tokens = match thinking {
        // The budget counts in maxTokens, which must exceed it: the reply keeps its own limit.
        Some(budget) => Some(budget.saturating_add(request.max_output_tokens.unwrap_or(4096))),
        None => request.max_output_tokens,
    };
    let mut system = Vec::new();
    if !request.system.is_empty() {
        system.push(SystemBlock::Text(TextBlock {
            text: &request.system,
        }));
        if request.prompt_caching {
            system.push(SystemBlock::CachePoint {
                cache_point: CachePoint { kind: "default" },
            });
        }
    }
    let body = ConverseBody {
        messages: [Message {
            role: "user",
            content: parts::UserContent::of(request),
        }],
        system,
        inference_config: InferenceConfig {
            max_tokens,
            // Refused above with thinking on, as Claude refuses it.
            temperature: request.temperature,
            top_p: request.top_p,
            stop_sequences: (!request.stop.is_empty()).then_some(request.stop.as_slice()),
        },
        tool_config,
        additional_model_request_fields: thinking.map(|budget_tokens| AdditionalFields {
            thinking: Thinking {
                kind: "enabled",
                budget_tokens,
            },
        }),
    };
    request_body(&body, request, provider)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConverseBody<'a> {
    messages: [Message<'a>; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<SystemBlock<'a>>,
    inference_config: InferenceConfig<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<ToolConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_model_request_fields: Option<AdditionalFields>,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: parts::UserContent<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum SystemBlock<'a> {
    Text(TextBlock<'a>),
    CachePoint {
        #[serde(rename = "cachePoint")]
        cache_point: CachePoint,
    },
}

#[derive(Serialize)]
struct CachePoint {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InferenceConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_sequences: Option<&'a [String]>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolConfig<'a> {
    tools: [ToolEntry<'a>; 1],
    tool_choice: ToolChoice<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolEntry<'a> {
    tool_spec: ToolSpec<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolSpec<'a> {
    name: &'a str,
    description: &'static str,
    input_schema: InputSchema<'a>,
}

#[derive(Serialize)]
struct InputSchema<'a> {
    json: &'a SharedSchema,
}

#[derive(Serialize)]
struct ToolChoice<'a> {
    tool: NamedTool<'a>,
}

#[derive(Serialize)]
struct NamedTool<'a> {
    name: &'a str,
}

#[derive(Serialize)]
struct AdditionalFields {
    thinking: Thinking,
}

#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Deserialize)]
struct ConverseReply {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output: Option<Output>,
    #[serde(
        default,
        rename = "stopReason",
        deserialize_with = "crate::provider::lenient"
    )]
    stop_reason: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<ConverseUsage>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    message: Option<String>,
}

#[derive(Deserialize)]
struct Output {
    message: Option<OutputMessage>,
}

#[derive(Deserialize)]
struct OutputMessage {
    #[serde(default)]
    content: Vec<Value>,
}

/// Converse's token usage, whole or in a stream's `metadata` event.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct ConverseUsage {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    cache_read_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    cache_write_input_tokens: Option<u64>,
}

impl ConverseUsage {
    /// The usage of one call: input counts the cache reads and writes, which `inputTokens`
    /// leaves out.
    pub(super) fn usage(&self) -> Usage {
        Usage::one_call_with_cache_apart(
            self.input_tokens,
            self.cache_write_input_tokens,
            self.cache_read_input_tokens,
            self.output_tokens,
            None,
        )
    }
}

/// Reads a Converse reply: the forced tool's input when the model called it, else the text.
pub(super) fn parse(body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    let reply: ConverseReply = read_reply(body, "Bedrock Converse", key)?;
    let Some(content) = reply.output.and_then(|o| o.message).map(|m| m.content) else {
        let why = reply.message.map_or_else(
            || "the reply has no output.message".to_owned(),
            |m| format!("the reply carries an error instead of output.message: {m}"),
        );
        return Err(ProviderError::new(ProviderErrorKind::Decode, why));
    };
    let mut text = String::new();
    let mut reasoning = Vec::new();
    let mut answer = None;
    for block in &content {
        if let Some(t) = block.get("text").and_then(Value::as_str) {
            text.push_str(t);
        } else if let Some(input) = block.get("toolUse").and_then(|t| t.get("input")) {
            answer.get_or_insert_with(|| input.to_string());
        } else if let Some(t) = block
            .pointer("/reasoningContent/reasoningText/text")
            .and_then(Value::as_str)
        {
            reasoning.push(t);
        }
    }
    let finish_reason = stop_reason(reply.stop_reason.as_deref(), answer.is_some());
    let mut response = AiResponse::new(answer.unwrap_or(text), model);
    response.finish_reason = finish_reason;
    let reasoning: String = reasoning.concat();
    response.reasoning = (!reasoning.trim().is_empty()).then_some(reasoning);
    response.usage = reply.usage.unwrap_or_default().usage();
    Ok(response)
}

/// Why the model stopped, from `stopReason`; `tool_use` is a natural end when the answer came
/// through the forced tool.
pub(super) fn stop_reason(reason: Option<&str>, answered_by_tool: bool) -> FinishReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("tool_use") if answered_by_tool => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("guardrail_intervened" | "content_filtered") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

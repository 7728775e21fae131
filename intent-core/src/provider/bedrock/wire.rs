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
//! - The caller's tools go in the same `toolConfig.tools` as `{"toolSpec": {"name",
//!   "description", "inputSchema": {"json"}}}`, beside the schema's tool when there is one, with
//!   `toolChoice` `{"auto": {}}` (the model calls a tool, or answers with the schema's tool or in
//!   text), `{"any": {}}` for a forced call, and for an answer round the schema's tool forced
//!   (`{"auto": {}}` with Claude's thinking, which refuses a forced tool; Converse has no
//!   `none`, and a request whose messages hold `toolUse` blocks must carry `toolConfig`). A
//!   round goes back as an `assistant` message with the model's content blocks as they came
//!   (`reasoningContent` with its signature, `text`, `toolUse {toolUseId, name, input}`), then a
//!   `user` message of `{"toolResult": {"toolUseId", "content": [{"text"}], "status": "success"
//!   | "error"}}` blocks, one per call, as pydantic-ai's cassette
//!   `test_bedrock_anthropic_tool_with_thinking.yaml` records a second round the API accepted.
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
use serde_json::{json, Value};

use super::parts::{self, TextBlock};
use crate::provider::http::{read_reply, request_body, strict_schema, Call};
use crate::provider::tool_wire::{arguments_object, calls_and_turn, turn_of, Conversation};
use crate::provider::transport::ApiKey;
use crate::provider::{
    AiResponse, FinishReason, ProviderError, ProviderErrorKind, ToolCall,
    ToolChoice as ToolsChoice, ToolRound,
};
use crate::request::{AiRequest, ResponseFormat, SharedSchema};
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
    let tool_config = tool_config(call, thinking.is_some())?;
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
        messages: Conversation {
            user: Message {
                role: "user",
                content: parts::UserContent::of(request),
            },
            tools: request.tools.as_deref(),
            round: round_messages,
        },
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

/// The `toolConfig` of `call`: the schema's tool, the caller's tools, or both; `None` when
/// the request offers neither.
fn tool_config(call: Call<'_>, thinks: bool) -> Result<Option<ToolConfig<'_>>, ProviderError> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    let answer = match request.format {
        ResponseFormat::JsonSchema => Some(request.schema_name.as_str()),
        ResponseFormat::Text | ResponseFormat::JsonObject => None,
    };
    let answer_entry = |name| -> Result<ToolEntry<'_>, ProviderError> {
        Ok(ToolEntry {
            tool_spec: ToolSpec {
                name,
                description: ANSWER_TOOL,
                input_schema: InputSchema {
                    json: SchemaJson::Shared(strict_schema(request, provider)?),
                },
            },
        })
    };
    let Some(offered) = request.tools.as_deref() else {
        let Some(name) = answer else {
            return Ok(None);
        };
        if thinks {
            return Err(refuse(provider, format!(
                "{model} on Bedrock cannot think while forced to answer through a tool, which is how a strict schema is sent: leave `thinking_budget` unset, or ask for JSON without a schema"
            )));
        }
        return Ok(Some(ToolConfig {
            tools: vec![answer_entry(name)?],
            tool_choice: ToolChoice::Tool(NamedTool { name }),
        }));
    };
    let mut tools = Vec::with_capacity(offered.definitions.len() + 1);
    for definition in offered.definitions.iter() {
        if Some(definition.name.as_str()) == answer {
            return Err(refuse(provider, format!(
                "a tool is named `{}`, the name the answer's schema goes under on Bedrock: give the tool another name",
                definition.name
            )));
        }
        tools.push(ToolEntry {
            tool_spec: ToolSpec {
                name: &definition.name,
                description: &definition.description,
                input_schema: InputSchema {
                    json: SchemaJson::Value(&definition.parameters),
                },
            },
        });
    }
    if let Some(name) = answer {
        tools.push(answer_entry(name)?);
    }
    let tool_choice = match (offered.choice, answer) {
        (ToolsChoice::Required, _) if thinks => {
            return Err(refuse(provider, format!(
                "{model} on Bedrock refuses a forced tool call (OutputMode::Tool) together with extended thinking (thinking_budget)"
            )));
        }
        (ToolsChoice::Required, _) => ToolChoice::Any(Empty {}),
        (ToolsChoice::None, Some(name)) if !thinks => ToolChoice::Tool(NamedTool { name }),
        _ => ToolChoice::Auto(Empty {}),
    };
    Ok(Some(ToolConfig { tools, tool_choice }))
}

/// A round of the `messages` list: the model's turn as it came (or rebuilt), then one `user`
/// message of `toolResult` blocks.
fn round_messages(round: &ToolRound) -> [Value; 2] {
    let content = turn_of(
        round,
        |text| json!({"text": text}),
        |call| tool_use(&call.id, &call.name, arguments_object(&call.arguments)),
    );
    let results: Vec<Value> = round
        .results
        .iter()
        .map(|result| {
            json!({"toolResult": {
                "toolUseId": result.call_id,
                "content": [{"text": result.content}],
                "status": if result.is_error { "error" } else { "success" },
            }})
        })
        .collect();
    [
        json!({"role": "assistant", "content": content}),
        json!({"role": "user", "content": results}),
    ]
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConverseBody<'a> {
    messages: Conversation<'a, Message<'a>>,
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
    tools: Vec<ToolEntry<'a>>,
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
    description: &'a str,
    input_schema: InputSchema<'a>,
}

#[derive(Serialize)]
struct InputSchema<'a> {
    json: SchemaJson<'a>,
}

/// A tool's input schema: the answer's (shared, serialized once) or a caller tool's.
#[derive(Serialize)]
#[serde(untagged)]
enum SchemaJson<'a> {
    Shared(&'a SharedSchema),
    Value(&'a Value),
}

/// `{"auto": {}}`, `{"any": {}}` or `{"tool": {"name"}}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum ToolChoice<'a> {
    Auto(Empty),
    Any(Empty),
    Tool(NamedTool<'a>),
}

#[derive(Serialize)]
struct Empty {}

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

/// What a request offered, for reading its reply: the name its schema's tool goes under, and
/// whether the caller's tools were offered too.
#[derive(Default, Clone, Copy)]
pub(super) struct Offered<'a> {
    answer: Option<&'a str>,
    callers: bool,
}

impl<'a> Offered<'a> {
    /// The name the schema's tool goes under, when the answer has a schema.
    pub(super) fn answer(self) -> Option<&'a str> {
        self.answer
    }

    pub(super) fn of(request: &'a AiRequest) -> Self {
        Offered {
            answer: (request.format == ResponseFormat::JsonSchema)
                .then_some(request.schema_name.as_str()),
            callers: request.tools.is_some(),
        }
    }
}

/// Reads a Converse reply: the schema's tool input when the model called it, else the text; a
/// call of another tool, when the caller's tools were offered, is a tool call (its turn kept
/// for the next round, each `toolUse` as the API takes it back).
pub(super) fn parse(
    body: &[u8],
    model: &str,
    key: &ApiKey,
    offered: Offered<'_>,
) -> Result<AiResponse, ProviderError> {
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
    let mut calls = Vec::new();
    for block in &content {
        if let Some(t) = block.get("text").and_then(Value::as_str) {
            text.push_str(t);
        } else if let Some(tool_use) = block.get("toolUse") {
            let name = tool_use.get("name").and_then(Value::as_str).unwrap_or("");
            let input = tool_use.get("input").cloned().unwrap_or_else(|| json!({}));
            if offered.callers && Some(name) != offered.answer {
                let id = tool_use
                    .get("toolUseId")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                calls.push(ToolCall::new(id, name, input.to_string()));
            } else {
                answer.get_or_insert_with(|| input.to_string());
            }
        } else if let Some(t) = block
            .pointer("/reasoningContent/reasoningText/text")
            .and_then(Value::as_str)
        {
            reasoning.push(t);
        }
    }
    let by_tool = answer.is_some() || !calls.is_empty();
    let finish_reason = stop_reason(reply.stop_reason.as_deref(), by_tool);
    let turn: Vec<Value> = if calls.is_empty() {
        Vec::new()
    } else {
        content.iter().map(turn_block).collect()
    };
    let (calls, vendor_turn) = calls_and_turn(calls, &turn);
    let mut response = AiResponse::new(answer.unwrap_or(text), model);
    response.finish_reason = finish_reason;
    let reasoning: String = reasoning.concat();
    response.reasoning = (!reasoning.trim().is_empty()).then_some(reasoning);
    response.usage = reply.usage.unwrap_or_default().usage();
    response.tool_calls = calls;
    response.vendor_turn = vendor_turn;
    Ok(response)
}

/// A block of the model's turn as Converse takes it back: a `toolUse` with its `toolUseId`,
/// `name` and `input` only (a reply's may carry more, such as `type`), any other as it came.
fn turn_block(block: &Value) -> Value {
    let Some(call) = block.get("toolUse") else {
        return block.clone();
    };
    let field = |name| call.get(name).and_then(Value::as_str).unwrap_or("");
    let input = call.get("input").cloned().unwrap_or_else(|| json!({}));
    tool_use(field("toolUseId"), field("name"), input)
}

/// A `toolUse` block as Converse takes it back.
fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"toolUse": {"toolUseId": id, "name": name, "input": input}})
}

/// Why the model stopped, from `stopReason`; `tool_use` is a natural end when the answer came
/// through the schema's tool, or the model called the caller's tools.
pub(super) fn stop_reason(reason: Option<&str>, answered_by_tool: bool) -> FinishReason {
    match reason {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("tool_use") if answered_by_tool => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("guardrail_intervened" | "content_filtered") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

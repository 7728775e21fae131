//! OpenAI's Responses API, `POST {base}/responses`: the body and the reply of
//! [`OpenAiApi::Responses`](super::OpenAiApi::Responses). The provider, its key and its transport
//! are the generic provider's; this module knows the wire format only.
//!
//! Wire facts, checked against OpenAI's OpenAPI spec (`openai/openai-openapi`, `openapi.yaml`,
//! `CreateResponse`, `Response`, `ResponseUsage`, `TextResponseFormatJsonSchema`, `Reasoning`,
//! `OutputMessage`, `ReasoningItem`), August 2026:
//!
//! - Body: `model`; `instructions` (the system message); `input`, a list of
//!   `{"role":"user","content":TEXT}` messages; `text.format` is `{"type":"text"}`,
//!   `{"type":"json_object"}` or `{"type":"json_schema","name","schema","strict":true}` (flat: no
//!   `json_schema` wrapper, unlike Chat Completions; `name` is `[A-Za-z0-9_-]{1,64}`);
//!   `max_output_tokens` (at least 16, reasoning tokens included); `temperature` (left out for
//!   reasoning models, with a notice: see `provider::plan`); `reasoning: {"effort":
//!   "low"|"medium"|"high", "summary": "auto"}` (the summaries are what
//!   [`AiResponse::reasoning`] holds: without `summary` the API returns none; pydantic-ai's
//!   cassette `test_openai_responses_model_thinking_part.yaml` sends `{effort, summary}`);
//!   `prompt_cache_key` (with prompt caching on: see `prompt_cache`); `store` (true by default:
//!   sent `false`, so OpenAI keeps no copy of the reply); `stream: true` for the event stream
//!   (`events/responses.rs`).
//! - Reply: `status` (`completed`, `incomplete`, `failed`, `cancelled`, `queued`, `in_progress`),
//!   `incomplete_details.reason` (`max_output_tokens`, `content_filter`), `error {code, message}`
//!   (`server_error`, `rate_limit_exceeded`, `invalid_prompt`, ...), `output` items:
//!   `{"type":"message","content":[{"type":"output_text","text"} | {"type":"refusal","refusal"}]}`
//!   and `{"type":"reasoning","summary":[{"type":"summary_text","text"}],"content":
//!   [{"type":"reasoning_text","text"}]}`. `output_text` is an SDK convenience, not on the wire.
//! - Usage: `input_tokens` (cached included), `input_tokens_details.cached_tokens`,
//!   `output_tokens` (reasoning included), `output_tokens_details.reasoning_tokens`.
//! - HTTP errors have Chat Completions' `{"error":{"message","type","param","code"}}` form and go
//!   through the shared transport.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parts::{UserContent, RESPONSES_RULES};
use super::{usage, OpenAiApi, TokenDetails};
use crate::provider::http::{answering_model, read_reply, request_body, strict_schema, Call};
use crate::provider::sampling;
use crate::provider::transport::ApiKey;
use crate::provider::{AiResponse, FinishReason, ProviderError, ProviderErrorKind};
use crate::request::{ReasoningEffort, ResponseFormat, SharedSchema};

/// The smallest `max_output_tokens` the Responses API takes.
pub(crate) const MIN_MAX_OUTPUT_TOKENS: u32 = 16;

/// The JSON body of `request` for the Responses API.
///
/// # Errors
///
/// A strict-schema request without a schema, or a `max_output_tokens` below 16 (which the API
/// refuses), fails here, before anything is sent.
pub(super) fn body(call: Call<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    let refuse = |message: String| {
        ProviderError::new(ProviderErrorKind::InvalidRequest, message).with_provider(provider)
    };
    if let Some(limit) = request
        .max_output_tokens
        .filter(|&l| l < MIN_MAX_OUTPUT_TOKENS)
    {
        return Err(refuse(format!(
            "the Responses API takes max_output_tokens of at least {MIN_MAX_OUTPUT_TOKENS}; the request asks for {limit}"
        )));
    }
    let format = match request.format {
        ResponseFormat::Text => Format::Text,
        ResponseFormat::JsonObject => Format::JsonObject,
        ResponseFormat::JsonSchema => Format::JsonSchema {
            name: &request.schema_name,
            strict: true,
            schema: strict_schema(request, provider)?,
        },
    };
    RESPONSES_RULES.check(&request.attachments, provider)?;
    let plan = super::plan_of(super::OpenAiApi::Responses, call)?;
    let body = ResponsesBody {
        model,
        instructions: (!request.system.is_empty()).then_some(request.system.as_str()),
        input: super::tools::ResponsesInput {
            user: InputMessage {
                role: "user",
                content: UserContent::of(request, OpenAiApi::Responses),
            },
            tools: request.tools.as_deref(),
        },
        tools: super::tools::responses_tools(request),
        max_output_tokens: request.max_output_tokens,
        temperature: plan.temperature,
        reasoning: plan.reasoning_effort.map(|effort| Reasoning {
            effort,
            summary: REASONING_SUMMARY,
        }),
        sampling: sampling::RESPONSES.fields(request, plan.top_p, provider)?,
        text: Text { format },
        prompt_cache_key: super::prompt_cache_key(request),
        include: crate::provider::logprobs::responses_include(request),
        store: false,
        stream: stream.then_some(true),
    };
    request_body(&body, request, provider)
}

#[derive(Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    input: super::tools::ResponsesInput<'a, InputMessage<'a>>,
    #[serde(flatten)]
    tools: super::tools::OfferedTools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Reasoning>,
    #[serde(flatten)]
    sampling: crate::provider::sampling::SamplingFields<'a>,
    text: Text<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    include: Option<[&'static str; 1]>,
    store: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
}

#[derive(Serialize)]
struct InputMessage<'a> {
    role: &'static str,
    content: UserContent<'a>,
}

/// The reasoning summaries asked for with a reasoning effort: `auto`, the most detailed summary
/// the model gives (`Reasoning.summary`: `auto`, `concise` or `detailed`).
const REASONING_SUMMARY: &str = "auto";

#[derive(Serialize)]
struct Reasoning {
    effort: ReasoningEffort,
    summary: &'static str,
}

#[derive(Serialize)]
struct Text<'a> {
    format: Format<'a>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Format<'a> {
    Text,
    JsonObject,
    JsonSchema {
        name: &'a str,
        strict: bool,
        schema: &'a SharedSchema,
    },
}

#[derive(Deserialize)]
pub(super) struct ResponsesReply {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    model: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    status: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    error: Option<ReplyError>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    incomplete_details: Option<IncompleteDetails>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output: Option<Vec<Value>>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<ResponsesUsage>,
}

#[derive(Deserialize)]
struct ReplyError {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    code: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    message: Option<String>,
}

#[derive(Deserialize)]
struct IncompleteDetails {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct ResponsesUsage {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    input_tokens_details: Option<TokenDetails>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output_tokens_details: Option<TokenDetails>,
}

/// The text, refusal and reasoning of a reply's `output` items.
#[derive(Default)]
struct Output {
    text: String,
    refusal: String,
    reasoning: String,
    /// The text of the messages in the `commentary` phase, kept apart from the answer.
    commentary: String,
}

/// True when a `message` item is intermediate commentary, not the answer: `"phase":
/// "commentary"` ("Labels an `assistant` message as intermediate commentary (`commentary`) or the
/// final answer (`final_answer`)", `MessagePhase` in `openapi.yaml`; gpt-5.3-codex and later, as
/// recorded in the vendor fixture `openai-responses/openai-phase.1.json`).
pub(super) fn is_commentary(item: &Value) -> bool {
    item.get("phase").and_then(Value::as_str) == Some("commentary")
}

/// Appends `piece` to `into`, a blank line between the two when `into` already holds text.
fn push_part(into: &mut String, piece: &str) {
    if !into.is_empty() {
        into.push_str("\n\n");
    }
    into.push_str(piece);
}

impl Output {
    fn read(items: &[Value]) -> Output {
        let mut output = Output::default();
        for item in items {
            let parts = |field: &str| {
                item.get(field)
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
            };
            match item.get("type").and_then(Value::as_str) {
                Some("message") if is_commentary(item) => {
                    let text: String = parts("content")
                        .iter()
                        .filter(|p| p.get("type").and_then(Value::as_str) == Some("output_text"))
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect();
                    push_part(&mut output.commentary, &text);
                }
                Some("message") => {
                    for part in parts("content") {
                        match part.get("type").and_then(Value::as_str) {
                            Some("output_text") => push_str(&mut output.text, part, "text"),
                            Some("refusal") => push_str(&mut output.refusal, part, "refusal"),
                            _ => {}
                        }
                    }
                }
                Some("reasoning") => {
                    // The reasoning text itself when the server returns it (open-weight models),
                    // else the summaries.
                    let content = parts("content");
                    let pieces = if content.is_empty() {
                        parts("summary")
                    } else {
                        content
                    };
                    for piece in pieces {
                        let text = piece.get("text").and_then(Value::as_str).unwrap_or("");
                        push_part(&mut output.reasoning, text);
                    }
                }
                _ => {}
            }
        }
        if !output.commentary.trim().is_empty() {
            let commentary = std::mem::take(&mut output.commentary);
            push_part(&mut output.reasoning, &commentary);
        }
        output
    }
}

fn push_str(into: &mut String, part: &Value, field: &str) {
    if let Some(text) = part.get(field).and_then(Value::as_str) {
        into.push_str(text);
    }
}

/// Reads a Responses API reply.
pub(super) fn parse(body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    let reply: ResponsesReply = read_reply(body, "Responses API", key)?;
    read(reply, model)
}

/// Reads a Responses API `Response` object: a reply read whole, or the `response` of a stream's
/// `response.completed`, `response.incomplete` or `response.failed` event.
pub(super) fn read(reply: ResponsesReply, model: &str) -> Result<AiResponse, ProviderError> {
    let status = reply.status.as_deref();
    if let Some(error) = reply
        .error
        .filter(|_| matches!(status, None | Some("failed")))
    {
        let code = error.code.unwrap_or_default();
        let kind = match code.as_str() {
            "server_error" => ProviderErrorKind::Server,
            "rate_limit_exceeded" => ProviderErrorKind::RateLimited,
            _ => ProviderErrorKind::InvalidRequest,
        };
        let message = error.message.unwrap_or_default();
        return Err(ProviderError::new(
            kind,
            format!("the response failed ({code}): {message}"),
        ));
    }
    let finish_reason = match status {
        None | Some("completed") => FinishReason::Stop,
        Some("incomplete") => match reply.incomplete_details.and_then(|d| d.reason).as_deref() {
            Some("max_output_tokens") => FinishReason::Length,
            Some("content_filter") => FinishReason::ContentFilter,
            Some(other) => FinishReason::Other(other.to_owned()),
            None => FinishReason::Other("incomplete".to_owned()),
        },
        Some(other) => {
            return Err(ProviderError::new(
                if other == "failed" || other == "cancelled" {
                    ProviderErrorKind::Server
                } else {
                    ProviderErrorKind::Decode
                },
                format!("the response has status {other:?} and no answer"),
            ))
        }
    };
    let Some(items) = reply.output else {
        return Err(ProviderError::new(
            ProviderErrorKind::Decode,
            "the reply has no output",
        ));
    };
    let output = Output::read(&items);
    let refused = !output.refusal.trim().is_empty();
    let counts = reply.usage.unwrap_or_default();
    let mut response = AiResponse::new(output.text, answering_model(reply.model, model));
    response.finish_reason = if refused {
        FinishReason::Refusal
    } else {
        finish_reason
    };
    response.refusal = refused.then_some(output.refusal);
    response.reasoning = (!output.reasoning.trim().is_empty()).then_some(output.reasoning);
    response.logprobs = crate::provider::logprobs::responses(&items);
    response.tool_calls = items
        .iter()
        .filter_map(super::tools::responses_call)
        .collect();
    response.usage = usage(
        counts.input_tokens,
        counts.output_tokens,
        counts.input_tokens_details,
        counts.output_tokens_details,
        None,
    );
    Ok(response)
}

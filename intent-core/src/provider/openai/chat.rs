//! Chat Completions, `POST {base}/chat/completions`: the body and the reply of
//! [`OpenAiApi::ChatCompletions`](super::OpenAiApi::ChatCompletions), the API every
//! OpenAI-compatible server speaks (Azure's v1 endpoint, Ollama, llama.cpp, vLLM).
//!
//! Wire facts (OpenAI's `openapi.yaml`, `CreateChatCompletionRequest` and
//! `CreateChatCompletionResponse`; llama.cpp's server README; vLLM's "Reasoning Outputs"; Ollama's
//! OpenAI compatibility page):
//!
//! - Body: `model`; `messages` (`system`, then `user` with the attachments as parts, see
//!   `parts`); `max_completion_tokens` or `max_tokens` ([`MaxTokensField`]); `temperature`;
//!   `reasoning_effort`; the sampling fields; `prompt_cache_key` (with prompt caching on);
//!   `response_format` none for text, `{"type":"json_object"}`, or `{"type":"json_schema",
//!   "json_schema":{"name","strict":true,"schema"}}`; `stream` and `stream_options.include_usage`
//!   for a streamed reply.
//! - Reply: `choices[0].message` with `content` (a string, or parts with `text`), `refusal`, and
//!   the reasoning of llama.cpp and DeepSeek (`reasoning_content`) or vLLM and Ollama
//!   (`reasoning`); `choices[0].finish_reason` (`stop`, `length`, `content_filter`); `model`;
//!   `usage` (`prompt_tokens`, `completion_tokens`, `prompt_tokens_details.cached_tokens`,
//!   `completion_tokens_details.reasoning_tokens`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{parts, tools, usage, MaxTokensField, OpenAiApi, TokenDetails};
use crate::provider::http::{
    answering_model, no_answer, read_reply, request_body, strict_schema, Call,
};
use crate::provider::transport::ApiKey;
use crate::provider::{logprobs, sampling};
use crate::provider::{AiResponse, FinishReason, ProviderError};
use crate::request::{ReasoningEffort, ResponseFormat, SharedSchema};
use crate::result::Usage;

/// The JSON body for `request`; `stream` asks for the reply as an event stream, with usage.
pub(super) fn body(
    call: Call<'_>,
    stream: bool,
    max_tokens_field: MaxTokensField,
) -> Result<Vec<u8>, ProviderError> {
    let (request, model, provider) = (call.request, call.model, call.provider);
    let response_format = match request.format {
        ResponseFormat::Text => None,
        ResponseFormat::JsonObject => Some(WireFormat::JsonObject),
        ResponseFormat::JsonSchema => Some(WireFormat::JsonSchema {
            json_schema: WireSchema {
                name: &request.schema_name,
                strict: true,
                schema: strict_schema(request, provider)?,
            },
        }),
    };
    let (max_completion_tokens, max_tokens) = match max_tokens_field {
        MaxTokensField::MaxCompletionTokens => (request.max_output_tokens, None),
        MaxTokensField::MaxTokens => (None, request.max_output_tokens),
    };
    parts::CHAT_RULES.check(&request.attachments, provider)?;
    let plan = super::plan_of(super::OpenAiApi::ChatCompletions, call)?;
    let system = (!request.system.is_empty()).then(|| Message {
        role: "system",
        content: parts::UserContent::text(&request.system),
    });
    let user = Some(Message {
        role: "user",
        content: parts::UserContent::of(request, OpenAiApi::ChatCompletions),
    });
    let body = ChatBody {
        model,
        messages: tools::ChatMessages {
            head: system.into_iter().chain(user).collect(),
            tools: request.tools.as_deref(),
        },
        tools: tools::chat_tools(request),
        max_completion_tokens,
        max_tokens,
        temperature: plan.temperature,
        reasoning_effort: plan.reasoning_effort,
        prompt_cache_key: super::prompt_cache_key(request),
        sampling: sampling::CHAT.fields(request, plan.top_p, provider)?,
        logprobs: logprobs::chat_request(request),
        response_format,
        stream: stream.then_some(true),
        stream_options: stream.then_some(StreamOptions {
            include_usage: true,
        }),
    };
    request_body(&body, request, provider)
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: tools::ChatMessages<'a, Message<'a>>,
    #[serde(flatten)]
    tools: tools::OfferedTools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<ReasoningEffort>,
    #[serde(flatten)]
    sampling: sampling::SamplingFields<'a>,
    #[serde(flatten)]
    logprobs: logprobs::ChatRequest,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_cache_key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<WireFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: parts::UserContent<'a>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireFormat<'a> {
    JsonObject,
    JsonSchema { json_schema: WireSchema<'a> },
}

#[derive(Serialize)]
struct WireSchema<'a> {
    name: &'a str,
    strict: bool,
    schema: &'a SharedSchema,
}

#[derive(Deserialize)]
struct ChatReply {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    model: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    choices: Option<Vec<Choice>>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<ChatUsage>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    message: Option<ChoiceMessage>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    finish_reason: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    logprobs: Option<logprobs::ChatLogprobs>,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    content: Option<Value>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    refusal: Option<String>,
    /// llama.cpp (`--reasoning-format deepseek`) and DeepSeek.
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    reasoning_content: Option<String>,
    /// vLLM (`--reasoning-parser`) and Ollama.
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    reasoning: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    tool_calls: Option<Vec<tools::ChatCallIn>>,
}

#[derive(Deserialize, Default)]
pub(super) struct ChatUsage {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    completion_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    prompt_tokens_details: Option<TokenDetails>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    completion_tokens_details: Option<TokenDetails>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    total_tokens: Option<u64>,
}

/// Reads a Chat Completions reply.
pub(super) fn parse(body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    match fast::parse_reply(body, model) {
        Some(response) => Ok(response),
        None => parse_lenient(body, model, key),
    }
}

/// Reads a Chat Completions reply field by field, each field that only informs read as `None`
/// when it has another type.
fn parse_lenient(body: &[u8], sent_model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    let reply: ChatReply = read_reply(body, "Chat Completions", key)?;
    let choice = reply.choices.and_then(|c| c.into_iter().next());
    let Some(choice) = choice else {
        return Err(no_answer(
            reply.error.as_ref(),
            "choices",
            "the reply has no choices[0]",
        ));
    };
    let message = choice.message.map(|m| ReplyMessage {
        content: m.content,
        refusal: m.refusal,
        reasoning_content: m.reasoning_content,
        reasoning: m.reasoning,
        tool_calls: m.tool_calls,
    });
    let mut response = response(
        Parts::of(message, choice.finish_reason.as_deref(), reply.model),
        reply.usage.unwrap_or_default().usage(),
        sent_model,
    );
    response.logprobs = logprobs::chat(choice.logprobs);
    Ok(response)
}

/// The first choice's message, as both readings give it.
#[derive(Deserialize)]
struct ReplyMessage {
    content: Option<Value>,
    refusal: Option<String>,
    /// llama.cpp (`--reasoning-format deepseek`) and DeepSeek.
    reasoning_content: Option<String>,
    /// vLLM (`--reasoning-parser`) and Ollama.
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<tools::ChatCallIn>>,
}

/// What a reply says, however it was read.
struct Parts<'a> {
    text: String,
    tool_calls: Vec<crate::provider::ToolCall>,
    refusal: Option<String>,
    reasoning: Option<String>,
    finish_reason: Option<&'a str>,
    /// The model the reply names.
    model: Option<String>,
}

impl<'a> Parts<'a> {
    fn of(
        message: Option<ReplyMessage>,
        finish_reason: Option<&'a str>,
        model: Option<String>,
    ) -> Self {
        let (text, refusal, reasoning, tool_calls) = match message {
            Some(message) => (
                content_text(message.content),
                message.refusal,
                message.reasoning_content.or(message.reasoning),
                tools::chat_calls(message.tool_calls),
            ),
            None => (String::new(), None, None, Vec::new()),
        };
        Parts {
            text,
            tool_calls,
            refusal,
            reasoning,
            finish_reason,
            model,
        }
    }
}

/// The reply from its parts and usage; the model asked for when the reply names none.
fn response(parts: Parts<'_>, usage: Usage, sent_model: &str) -> AiResponse {
    let refusal = parts.refusal.filter(|r| !r.trim().is_empty());
    let finish_reason = finish_reason(parts.finish_reason, refusal.is_some());
    let mut response = AiResponse::new(parts.text, answering_model(parts.model, sent_model));
    response.finish_reason = finish_reason;
    response.refusal = refusal;
    response.reasoning = parts.reasoning.filter(|r| !r.trim().is_empty());
    response.usage = usage;
    response.tool_calls = parts.tool_calls;
    response
}

/// Why the model stopped: its `finish_reason`, unless it refused (a refusal message that is not
/// blank).
pub(super) fn finish_reason(reason: Option<&str>, refused: bool) -> FinishReason {
    if refused {
        return FinishReason::Refusal;
    }
    match reason {
        None | Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

impl ChatUsage {
    /// The usage of one call.
    pub(super) fn usage(self) -> Usage {
        usage(
            self.prompt_tokens,
            self.completion_tokens,
            self.prompt_tokens_details,
            self.completion_tokens_details,
            self.total_tokens,
        )
    }
}

/// A message's content: a string, or the text of its parts.
pub(super) fn content_text(content: Option<Value>) -> String {
    match content {
        Some(Value::String(text)) => text,
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// The reading of an ordinary reply in one pass: every field with the type Chat Completions gives
/// it. A reply that does not read so (a field of another type, no `choices[0]`) is read again by
/// the lenient reader above, field by field; for a reply that does, both readings agree, so the
/// outcome never depends on which one read it.
mod fast {
    use serde::Deserialize;

    use super::{response, Parts, ReplyMessage};
    use crate::provider::openai::{usage, TokenDetails};
    use crate::provider::AiResponse;

    #[derive(Deserialize)]
    struct Reply {
        model: Option<String>,
        choices: Vec<Choice>,
        usage: Option<ReplyUsage>,
    }

    #[derive(Deserialize)]
    struct Choice {
        message: Option<ReplyMessage>,
        finish_reason: Option<String>,
        #[serde(default)]
        logprobs: Option<crate::provider::logprobs::ChatLogprobs>,
    }

    #[derive(Deserialize)]
    struct ReplyUsage {
        prompt_tokens: Option<u64>,
        completion_tokens: Option<u64>,
        prompt_tokens_details: Option<TokenDetails>,
        completion_tokens_details: Option<TokenDetails>,
        total_tokens: Option<u64>,
    }

    /// The reply, when it reads in one pass and has a first choice.
    pub(super) fn parse_reply(body: &[u8], sent_model: &str) -> Option<AiResponse> {
        // Checked as UTF-8 once, so that serde does not check each string again.
        let reply: Reply = serde_json::from_str(std::str::from_utf8(body).ok()?).ok()?;
        let choice = reply.choices.into_iter().next()?;
        let usage = match reply.usage {
            Some(u) => usage(
                u.prompt_tokens,
                u.completion_tokens,
                u.prompt_tokens_details,
                u.completion_tokens_details,
                u.total_tokens,
            ),
            None => usage(None, None, None, None, None),
        };
        let mut response = response(
            Parts::of(choice.message, choice.finish_reason.as_deref(), reply.model),
            usage,
            sent_model,
        );
        response.logprobs = crate::provider::logprobs::chat(choice.logprobs);
        Some(response)
    }

    #[cfg(test)]
    mod tests {
        use super::super::{parse_lenient, ApiKey};

        #[test]
        fn the_fast_reading_agrees_with_the_lenient_one() {
            let replies = [
                r#"{"model": "m", "choices": [{"message": {"content": "{\"value\": 1}"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 4, "prompt_tokens_details": {"cached_tokens": 2}}}"#,
                r#"{"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}, "finish_reason": "length"}]}"#,
                r#"{"model": null, "choices": [{"message": {"content": null, "refusal": "no"}, "finish_reason": null}], "usage": null}"#,
                r#"{"model": "", "choices": [{"message": null}, {"message": {"content": "second"}}], "extra": [1, 2]}"#,
                r#"{"choices": [{"message": {"content": "x", "refusal": "  "}, "finish_reason": "content_filter"}], "usage": {}}"#,
                r#"{"choices": [{"message": {"content": "x", "reasoning_content": "I think", "reasoning": "no"}}], "usage": {"completion_tokens_details": {"reasoning_tokens": 3}, "prompt_tokens_details": {"cached_tokens": "1"}}}"#,
            ];
            let key = ApiKey::new("sk-test");
            for reply in replies {
                let fast = super::parse_reply(reply.as_bytes(), "sent").expect("reads fast");
                let lenient = parse_lenient(reply.as_bytes(), "sent", &key).expect("reads");
                assert_eq!(fast, lenient, "{reply}");
            }
            // Replies the fast reading leaves to the lenient one.
            for reply in [
                r#"{"choices": []}"#,
                r#"{"choices": null, "error": {"message": "overloaded"}}"#,
                r#"{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": "9"}}"#,
                r#"{"model": 7, "choices": [{"message": {"content": "x"}}]}"#,
            ] {
                assert!(
                    super::parse_reply(reply.as_bytes(), "sent").is_none(),
                    "{reply}"
                );
            }
        }
    }
}

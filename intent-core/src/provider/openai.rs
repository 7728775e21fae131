//! [`OpenAiProvider`]: Chat Completions, for OpenAI and compatible servers (Azure's v1 endpoint,
//! Ollama, llama.cpp, vLLM).

use reqwest::header::{HeaderMap, HeaderName, AUTHORIZATION};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::http_provider::{
    answering_model, debug_provider, endpoint_settings, key_header_value, no_answer,
    provider_identity, read_reply, request_body, strict_schema,
};
use super::openai_parts as parts;
use super::openai_responses;
use super::openai_usage::{self, TokenDetails};
use super::sampling;
use super::transport::{
    env_var, join_url, transport_settings, ApiKey, EnvEndpoint, Post, Prepared, Target, Transport,
};
use super::{AiResponse, FinishReason, Provider, ProviderError, ProviderErrorKind};
use crate::error::IntentError;
use crate::request::{AiRequest, ReasoningEffort, ResponseFormat, SharedSchema};
use crate::result::Usage;

/// Which OpenAI API a provider speaks.
///
/// Chat Completions (the default) is what every OpenAI-compatible server speaks; the Responses API
/// (`POST {base}/responses`) is OpenAI's newer one, sent with `store: false` so no reply is kept.
///
/// ```
/// use intent_core::provider::{OpenAiApi, OpenAiProvider};
///
/// let provider = OpenAiProvider::new("sk-example").with_api(OpenAiApi::Responses);
/// assert_eq!(provider.endpoint(), "https://api.openai.com/v1/responses");
/// assert_eq!(OpenAiProvider::new("sk-example").api(), OpenAiApi::ChatCompletions);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OpenAiApi {
    /// `POST {base}/chat/completions` (the default).
    #[default]
    ChatCompletions,
    /// `POST {base}/responses`.
    Responses,
}

impl OpenAiApi {
    /// The endpoint's path under the base URL.
    fn path(self) -> &'static str {
        match self {
            OpenAiApi::ChatCompletions => "chat/completions",
            OpenAiApi::Responses => "responses",
        }
    }
}

mod batch;
mod stream;

/// Which body field carries the longest reply, in tokens.
///
/// OpenAI reads `max_completion_tokens` (its reasoning models refuse `max_tokens`); Ollama reads only
/// `max_tokens`; llama.cpp and vLLM read both.
///
/// ```
/// use intent_core::provider::{MaxTokensField, OpenAiProvider};
///
/// let ollama = OpenAiProvider::new("")
///     .with_base_url("http://localhost:11434/v1")
///     .with_max_tokens_field(MaxTokensField::MaxTokens);
/// assert_eq!(ollama.max_tokens_field(), MaxTokensField::MaxTokens);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (the default).
    #[default]
    MaxCompletionTokens,
    /// `max_tokens`.
    MaxTokens,
}

/// A provider that speaks OpenAI's Chat Completions: `POST {base}/chat/completions`.
///
/// The base URL selects the server: OpenAI (`https://api.openai.com/v1`, the default), Azure's v1
/// endpoint (`https://NAME.openai.azure.com/openai/v1`), Ollama (`http://localhost:11434/v1`),
/// llama.cpp or vLLM. Text results are sent with no `response_format`, JSON-object results with
/// `{"type":"json_object"}` and strict schemas with `{"type":"json_schema","json_schema":{"name",
/// "strict":true,"schema"}}`. A request's reasoning effort is sent as `reasoning_effort`; its
/// thinking budget is not sent (Chat Completions has no such field). The reply's
/// `usage.completion_tokens_details.reasoning_tokens` is read into
/// [`Usage::reasoning_tokens`](crate::Usage::reasoning_tokens), and the reasoning that llama.cpp and
/// DeepSeek (`message.reasoning_content`) or vLLM and Ollama (`message.reasoning`) return beside the
/// answer into [`AiResponse::reasoning`]. [`with_api`](Self::with_api) switches to the Responses API.
/// With prompt caching asked for (`AiRequestOptions::prompt_caching`), both APIs are sent a
/// `prompt_cache_key` named after the request's stable prefix (system message, schema, intent),
/// so calls that share it reach the same cache.
/// Transport faults are retried under the [`RetryPolicy`](super::RetryPolicy). The key never shows
/// in `Debug`, logs or errors.
///
/// ```
/// use intent_core::provider::{OpenAiProvider, Provider};
///
/// let provider = OpenAiProvider::new("sk-example")
///     .with_base_url("http://127.0.0.1:8080/v1")
///     .with_model("qwen2.5");
/// assert_eq!(provider.endpoint(), "http://127.0.0.1:8080/v1/chat/completions");
/// assert_eq!(provider.default_model(), Some("qwen2.5"));
/// assert!(!format!("{provider:?}").contains("sk-example"));
/// ```
#[derive(Clone)]
pub struct OpenAiProvider {
    name: String,
    base_url: String,
    model: String,
    key: ApiKey,
    key_header: Option<String>,
    max_tokens_field: MaxTokensField,
    api: OpenAiApi,
    /// Whether the server has OpenAI's Batch API (`None`: only OpenAI's own).
    batch_api: Option<bool>,
    transport: Transport,
    prepared: Prepared,
}

debug_provider!(OpenAiProvider {
    key_header,
    max_tokens_field,
    api
});

transport_settings!(OpenAiProvider);
endpoint_settings! {
    OpenAiProvider,
    path: "chat/completions",
    base_url: "http://localhost:11434/v1/" => "http://localhost:11434/v1/chat/completions",
    model: "gpt-4.1-mini",
    name: "ollama" (default "openai"),
    key: "",
}

impl OpenAiProvider {
    /// The default base URL.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    /// The model asked when neither the request nor the provider names one.
    pub const DEFAULT_MODEL: &'static str = "gpt-4o-mini";
    /// The provider's default name.
    pub const DEFAULT_NAME: &'static str = "openai";

    /// A provider for OpenAI with this key (an empty key sends no `Authorization` header, for
    /// local servers that need none).
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("sk-example");
    /// assert_eq!(provider.base_url(), "https://api.openai.com/v1");
    /// ```
    pub fn new(api_key: impl Into<String>) -> Self {
        OpenAiProvider {
            name: Self::DEFAULT_NAME.to_owned(),
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            model: Self::DEFAULT_MODEL.to_owned(),
            key: ApiKey::new(api_key),
            key_header: None,
            max_tokens_field: MaxTokensField::default(),
            api: OpenAiApi::default(),
            batch_api: None,
            transport: Transport::default(),
            prepared: Prepared::default(),
        }
    }

    /// A provider configured from the environment: `OPENAI_API_KEY`, `OPENAI_BASE_URL` and
    /// `OPENAI_MODEL`. The key may be missing only when `OPENAI_BASE_URL` names another server.
    ///
    /// ```no_run
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::from_env()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<Self, IntentError> {
        let key = env_var("OPENAI_API_KEY");
        let endpoint = EnvEndpoint::read(env_var, "OPENAI_BASE_URL", "OPENAI_MODEL")?;
        if key.is_none() && endpoint.base_url.is_none() {
            return Err(IntentError::Config(
                "OPENAI_API_KEY is not set; set it, or set OPENAI_BASE_URL to a server that needs no key".into(),
            ));
        }
        let mut provider = OpenAiProvider::new(key.unwrap_or_default());
        endpoint.apply(&mut provider.base_url, &mut provider.model);
        Ok(provider)
    }

    /// The field that carries the longest reply (`max_completion_tokens` by default).
    ///
    /// ```
    /// use intent_core::provider::{MaxTokensField, OpenAiProvider};
    /// let provider = OpenAiProvider::new("").with_max_tokens_field(MaxTokensField::MaxTokens);
    /// assert_eq!(provider.max_tokens_field(), MaxTokensField::MaxTokens);
    /// ```
    pub fn with_max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
        self
    }

    /// The API to speak: Chat Completions (the default) or the Responses API.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiApi, OpenAiProvider};
    /// let provider = OpenAiProvider::new("k").with_api(OpenAiApi::Responses);
    /// assert_eq!(provider.api(), OpenAiApi::Responses);
    /// ```
    pub fn with_api(mut self, api: OpenAiApi) -> Self {
        self.prepared = Prepared::default();
        self.api = api;
        self
    }

    /// Sends the key in this header, as is, instead of `Authorization: Bearer KEY` (Azure's classic
    /// endpoints read `api-key`). A name that is not a valid header name is refused when sending.
    ///
    /// ```
    /// let azure = intent_core::provider::OpenAiProvider::new("key")
    ///     .with_base_url("https://example.openai.azure.com/openai/v1")
    ///     .with_key_header("api-key");
    /// # let _ = azure;
    /// ```
    pub fn with_key_header(mut self, header: impl Into<String>) -> Self {
        self.prepared = Prepared::default();
        self.key_header = Some(header.into());
        self
    }

    /// The endpoint requests go to: `{base}/chat/completions`, or `{base}/responses` for the
    /// Responses API.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("k");
    /// assert_eq!(provider.endpoint(), "https://api.openai.com/v1/chat/completions");
    /// ```
    pub fn endpoint(&self) -> String {
        join_url(&self.base_url, self.api.path())
    }

    /// The API the provider speaks.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiApi, OpenAiProvider};
    /// assert_eq!(OpenAiProvider::new("k").api(), OpenAiApi::ChatCompletions);
    /// ```
    pub fn api(&self) -> OpenAiApi {
        self.api
    }

    /// The field that carries the longest reply.
    ///
    /// ```
    /// use intent_core::provider::{MaxTokensField, OpenAiProvider};
    /// assert_eq!(OpenAiProvider::new("k").max_tokens_field(), MaxTokensField::MaxCompletionTokens);
    /// ```
    pub fn max_tokens_field(&self) -> MaxTokensField {
        self.max_tokens_field
    }

    fn headers(&self) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        let Some(key) = self.key.expose() else {
            return Ok(headers);
        };
        match &self.key_header {
            Some(name) => {
                let name = HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| {
                    ProviderError::new(
                        ProviderErrorKind::Config,
                        format!("with_key_header was given an invalid header name: {name:?}"),
                    )
                    .with_provider(&self.name)
                })?;
                headers.insert(name, key_header_value(key, &self.name)?);
            }
            None => {
                headers.insert(
                    AUTHORIZATION,
                    key_header_value(&format!("Bearer {key}"), &self.name)?,
                );
            }
        }
        Ok(headers)
    }

    /// The JSON body for `request`; `stream` asks for the reply as an event stream, with usage.
    fn body(
        &self,
        request: &AiRequest,
        model: &str,
        stream: bool,
    ) -> Result<Vec<u8>, ProviderError> {
        let response_format = match request.format {
            ResponseFormat::Text => None,
            ResponseFormat::JsonObject => Some(WireFormat::JsonObject),
            ResponseFormat::JsonSchema => Some(WireFormat::JsonSchema {
                json_schema: WireSchema {
                    name: &request.schema_name,
                    strict: true,
                    schema: strict_schema(request, &self.name)?,
                },
            }),
        };
        let (max_completion_tokens, max_tokens) = match self.max_tokens_field {
            MaxTokensField::MaxCompletionTokens => (request.max_output_tokens, None),
            MaxTokensField::MaxTokens => (None, request.max_output_tokens),
        };
        parts::CHAT_RULES.check(&request.attachments, &self.name)?;
        let system = (!request.system.is_empty()).then(|| Message {
            role: "system",
            content: parts::UserContent::text(&request.system),
        });
        let user = Some(Message {
            role: "user",
            content: parts::UserContent::of(request, parts::Api::Chat),
        });
        let body = ChatBody {
            model,
            messages: system.into_iter().chain(user).collect(),
            max_completion_tokens,
            max_tokens,
            temperature: request.temperature,
            reasoning_effort: request.reasoning_effort,
            prompt_cache_key: super::prompt_cache::openai_cache_key(request),
            sampling: sampling::chat(request, &self.name)?,
            logprobs: super::logprobs::chat_request(request),
            response_format,
            stream: stream.then_some(true),
            stream_options: stream.then_some(StreamOptions {
                include_usage: true,
            }),
        };
        request_body(&body, request, &self.name)
    }

    /// The POST of `body` to the endpoint, with the key; the endpoint and headers are checked
    /// and built once.
    fn post(&self, body: Vec<u8>) -> Result<Post<'_>, ProviderError> {
        let target = Target {
            provider: &self.name,
            base_url: &self.base_url,
            path: self.api.path(),
            key: &self.key,
        };
        self.prepared.post(&target, || self.headers(), body)
    }

    async fn send(&self, request: &AiRequest) -> Result<AiResponse, ProviderError> {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let body = match self.api {
            OpenAiApi::ChatCompletions => self.body(request, model, false)?,
            OpenAiApi::Responses => openai_responses::body(request, model, &self.name)?,
        };
        self.transport
            .send_json_at(self.post(body)?, |reply| match self.api {
                OpenAiApi::ChatCompletions => parse_reply(reply, model, &self.key),
                OpenAiApi::Responses => openai_responses::parse_reply(reply, model, &self.key),
            })
            .await
    }
}

impl Provider for OpenAiProvider {
    provider_identity!(stream, batch);
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: Vec<Message<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<ReasoningEffort>,
    #[serde(flatten)]
    sampling: sampling::ChatSampling<'a>,
    #[serde(flatten)]
    logprobs: super::logprobs::ChatRequest,
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
    #[serde(default, deserialize_with = "super::lenient")]
    model: Option<String>,
    #[serde(default, deserialize_with = "super::lenient")]
    choices: Option<Vec<Choice>>,
    #[serde(default, deserialize_with = "super::lenient")]
    usage: Option<ChatUsage>,
    #[serde(default, deserialize_with = "super::lenient")]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default, deserialize_with = "super::lenient")]
    message: Option<ChoiceMessage>,
    #[serde(default, deserialize_with = "super::lenient")]
    finish_reason: Option<String>,
    #[serde(default, deserialize_with = "super::lenient")]
    logprobs: Option<super::logprobs::ChatLogprobs>,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    #[serde(default, deserialize_with = "super::lenient")]
    content: Option<Value>,
    #[serde(default, deserialize_with = "super::lenient")]
    refusal: Option<String>,
    /// llama.cpp (`--reasoning-format deepseek`) and DeepSeek.
    #[serde(default, deserialize_with = "super::lenient")]
    reasoning_content: Option<String>,
    /// vLLM (`--reasoning-parser`) and Ollama.
    #[serde(default, deserialize_with = "super::lenient")]
    reasoning: Option<String>,
}

#[derive(Deserialize, Default)]
struct ChatUsage {
    #[serde(default, deserialize_with = "super::lenient")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient")]
    completion_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient")]
    prompt_tokens_details: Option<TokenDetails>,
    #[serde(default, deserialize_with = "super::lenient")]
    completion_tokens_details: Option<TokenDetails>,
}

/// Reads a Chat Completions reply.
fn parse_reply(body: &[u8], sent_model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
    match fast::parse_reply(body, sent_model) {
        Some(response) => Ok(response),
        None => parse_lenient(body, sent_model, key),
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
    });
    let mut response = response(
        Parts::of(message, choice.finish_reason.as_deref(), reply.model),
        reply.usage.unwrap_or_default().usage(),
        sent_model,
    );
    response.logprobs = super::logprobs::chat(choice.logprobs);
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
}

/// What a reply says, however it was read.
struct Parts<'a> {
    text: String,
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
        let (text, refusal, reasoning) = match message {
            Some(message) => (
                content_text(message.content),
                message.refusal,
                message.reasoning_content.or(message.reasoning),
            ),
            None => (String::new(), None, None),
        };
        Parts {
            text,
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
    response
}

/// Why the model stopped: its `finish_reason`, unless it refused (a refusal message that is not
/// blank).
fn finish_reason(reason: Option<&str>, refused: bool) -> FinishReason {
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
    fn usage(self) -> Usage {
        openai_usage::usage(
            self.prompt_tokens,
            self.completion_tokens,
            self.prompt_tokens_details,
            self.completion_tokens_details,
        )
    }
}

/// A message's content: a string, or the text of its parts.
fn content_text(content: Option<Value>) -> String {
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
    use crate::provider::openai_usage::{usage, TokenDetails};
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
            ),
            None => usage(None, None, None, None),
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

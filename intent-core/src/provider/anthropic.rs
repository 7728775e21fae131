//! [`AnthropicProvider`]: the Messages API.

use reqwest::header::{HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::http_provider::{
    answering_model, debug_provider, endpoint_settings, key_header_value, no_answer,
    provider_identity, read_reply, request_body, strict_schema,
};
use super::transport::{
    env_var, join_url, transport_settings, ApiKey, EnvEndpoint, Post, Prepared, Target, Transport,
};
use super::{AiResponse, FinishReason, Provider, ProviderError, ProviderErrorKind};
use crate::error::IntentError;
use crate::request::{AiRequest, ResponseFormat, SharedSchema};
use crate::result::Usage;

mod batch;
mod parts;
mod stream;

/// The `anthropic-version` header sent with every request.
///
/// ```
/// assert_eq!(intent_core::provider::ANTHROPIC_VERSION, "2023-06-01");
/// ```
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A provider that speaks Anthropic's Messages API: `POST {base}/v1/messages`.
///
/// The system prompt goes in `system`, `max_tokens` is always sent (the provider's default when
/// the request sets none), strict schemas go in `output_config.format` (`json_schema`), and text and
/// JSON-object requests send no format (the prompt carries the contract). The temperature is sent
/// only when [`with_send_temperature`](Self::with_send_temperature) is on. Transport faults, 529
/// included, are retried under the [`RetryPolicy`](super::RetryPolicy). The key never shows in
/// `Debug`, logs or errors.
///
/// A request's thinking budget turns on extended thinking: `thinking: {"type": "enabled",
/// "budget_tokens": N}` (0 sends `{"type": "disabled"}`). Anthropic counts the thinking in
/// `max_tokens` and needs `max_tokens` above the budget, so `max_tokens` becomes the budget plus the
/// reply's own limit (`max_output_tokens`, else the default); and it refuses a changed temperature
/// with thinking, so none is sent then. A budget below 1024 tokens, which Anthropic refuses, fails
/// before sending. The `thinking` blocks of the reply are its [`AiResponse::reasoning`], never its
/// text (`redacted_thinking` blocks carry no readable text and are skipped). The reasoning effort is
/// not sent: the `enabled` form takes a budget instead. `enabled` is the form every Claude model up
/// to 4.5 takes; later models deprecate it for `adaptive` thinking.
///
/// With prompt caching asked for (`AiRequestOptions::prompt_caching`), `system` is sent as one
/// text block marked `cache_control: {"type": "ephemeral"}`; the reply's
/// `cache_read_input_tokens` are its [`Usage::cached_tokens`](crate::Usage::cached_tokens), and
/// its input tokens count the cache reads and writes too.
///
/// ```
/// use intent_core::provider::{AnthropicProvider, Provider};
///
/// let provider = AnthropicProvider::new("sk-ant-example").with_model("claude-haiku-4-5");
/// assert_eq!(provider.endpoint(), "https://api.anthropic.com/v1/messages");
/// assert_eq!(provider.default_model(), Some("claude-haiku-4-5"));
/// assert!(!format!("{provider:?}").contains("sk-ant-example"));
/// ```
#[derive(Clone)]
pub struct AnthropicProvider {
    name: String,
    base_url: String,
    model: String,
    key: ApiKey,
    default_max_tokens: u32,
    send_temperature: bool,
    /// Whether the server has Anthropic's Message Batches API (`None`: only Anthropic's own).
    batch_api: Option<bool>,
    transport: Transport,
    prepared: Prepared,
}

debug_provider!(AnthropicProvider {
    default_max_tokens,
    send_temperature
});

transport_settings!(AnthropicProvider);
endpoint_settings! {
    AnthropicProvider,
    path: "v1/messages",
    base_url: "http://127.0.0.1:9000/" => "http://127.0.0.1:9000/v1/messages",
    model: "claude-opus-4-1",
    name: "claude" (default "anthropic"),
    key: "k",
}

impl AnthropicProvider {
    /// The default base URL.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com";
    /// The model asked when neither the request nor the provider names one.
    pub const DEFAULT_MODEL: &'static str = "claude-sonnet-4-5";
    /// The provider's default name.
    pub const DEFAULT_NAME: &'static str = "anthropic";
    /// The smallest thinking budget Anthropic takes, in tokens.
    pub const MIN_THINKING_BUDGET: u32 = 1024;

    /// The `max_tokens` sent when the request sets no `max_output_tokens`.
    pub const DEFAULT_MAX_TOKENS: u32 = 4096;

    /// A provider for Anthropic with this key.
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("sk-ant-example");
    /// assert_eq!(provider.base_url(), "https://api.anthropic.com");
    /// ```
    pub fn new(api_key: impl Into<String>) -> Self {
        AnthropicProvider {
            name: Self::DEFAULT_NAME.to_owned(),
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            model: Self::DEFAULT_MODEL.to_owned(),
            key: ApiKey::new(api_key),
            default_max_tokens: Self::DEFAULT_MAX_TOKENS,
            send_temperature: false,
            batch_api: None,
            transport: Transport::default(),
            prepared: Prepared::default(),
        }
    }

    /// A provider configured from the environment: `ANTHROPIC_API_KEY` (required),
    /// `ANTHROPIC_BASE_URL` and `ANTHROPIC_MODEL`.
    ///
    /// ```no_run
    /// use intent_core::provider::AnthropicProvider;
    ///
    /// let provider = AnthropicProvider::from_env()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<Self, IntentError> {
        let key = env_var("ANTHROPIC_API_KEY")
            .ok_or_else(|| IntentError::Config("ANTHROPIC_API_KEY is not set".into()))?;
        let mut provider = AnthropicProvider::new(key);
        EnvEndpoint::read(env_var, "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL")?
            .apply(&mut provider.base_url, &mut provider.model);
        Ok(provider)
    }

    /// The `max_tokens` sent when the request sets no `max_output_tokens` (4096 by default; the
    /// Messages API requires one).
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("k").with_default_max_tokens(8192);
    /// assert_eq!(provider.default_max_tokens(), 8192);
    /// ```
    pub fn with_default_max_tokens(mut self, max_tokens: u32) -> Self {
        self.default_max_tokens = max_tokens.max(1);
        self
    }

    /// Sends the request's temperature (off by default: some models refuse one).
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("k").with_send_temperature(true);
    /// assert!(provider.sends_temperature());
    /// ```
    pub fn with_send_temperature(mut self, on: bool) -> Self {
        self.send_temperature = on;
        self
    }

    /// The endpoint requests go to: `{base}/v1/messages`.
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("k");
    /// assert_eq!(provider.endpoint(), "https://api.anthropic.com/v1/messages");
    /// ```
    pub fn endpoint(&self) -> String {
        join_url(&self.base_url, "v1/messages")
    }

    /// The `max_tokens` sent when the request sets none.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::AnthropicProvider::new("k").default_max_tokens(), 4096);
    /// ```
    pub fn default_max_tokens(&self) -> u32 {
        self.default_max_tokens
    }

    /// Whether the request's temperature is sent.
    ///
    /// ```
    /// assert!(!intent_core::provider::AnthropicProvider::new("k").sends_temperature());
    /// ```
    pub fn sends_temperature(&self) -> bool {
        self.send_temperature
    }

    fn headers(&self) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = self.key.expose() {
            headers.insert("x-api-key", key_header_value(key, &self.name)?);
        }
        Ok(headers)
    }

    /// The JSON body for `request`; `stream` asks for the reply as an event stream.
    fn body(
        &self,
        request: &AiRequest,
        model: &str,
        stream: bool,
    ) -> Result<Vec<u8>, ProviderError> {
        let output_config = match request.format {
            ResponseFormat::Text | ResponseFormat::JsonObject => None,
            ResponseFormat::JsonSchema => Some(OutputConfig {
                format: OutputFormat {
                    kind: "json_schema",
                    schema: strict_schema(request, &self.name)?,
                },
            }),
        };
        parts::RULES.check(&request.attachments, &self.name)?;
        let reply_limit = request.max_output_tokens.unwrap_or(self.default_max_tokens);
        let thinking = match request.thinking_budget {
            None => None,
            Some(0) => Some(Thinking::Disabled),
            Some(budget) if budget < Self::MIN_THINKING_BUDGET => {
                return Err(ProviderError::new(
                    ProviderErrorKind::InvalidRequest,
                    format!(
                        "Anthropic's extended thinking takes a thinking_budget of at least {} tokens (or 0 for none); the request asks for {budget}",
                        Self::MIN_THINKING_BUDGET
                    ),
                )
                .with_provider(&self.name));
            }
            Some(budget) => Some(Thinking::Enabled {
                budget_tokens: budget,
            }),
        };
        super::logprobs::refuse_unsupported(request, "Anthropic's Messages API", &self.name)?;
        let thinks = matches!(thinking, Some(Thinking::Enabled { .. }));
        let max_tokens = match thinking {
            // The budget counts in max_tokens, which must exceed it: the reply keeps its own limit.
            Some(Thinking::Enabled { budget_tokens }) => budget_tokens.saturating_add(reply_limit),
            _ => reply_limit,
        };
        let body = MessagesBody {
            model,
            max_tokens,
            system: super::prompt_cache::AnthropicSystem::of(request),
            messages: [Message {
                role: "user",
                content: parts::UserContent::of(request),
            }],
            // Thinking is refused with a changed temperature.
            temperature: request
                .temperature
                .filter(|_| self.send_temperature && !thinks),
            sampling: super::sampling::anthropic(request, &self.name)?,
            thinking,
            output_config,
            stream: stream.then_some(true),
        };
        request_body(&body, request, &self.name)
    }

    /// The POST of `body` to the endpoint, with the key; the endpoint and headers are checked
    /// and built once.
    fn post(&self, body: Vec<u8>) -> Result<Post<'_>, ProviderError> {
        let target = Target {
            provider: &self.name,
            base_url: &self.base_url,
            path: "v1/messages",
            key: &self.key,
        };
        self.prepared.post(&target, || self.headers(), body)
    }

    async fn send(&self, request: &AiRequest) -> Result<AiResponse, ProviderError> {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let post = self.post(self.body(request, model, false)?)?;
        self.transport
            .send_json_at(post, |reply| parse_reply(reply, model, &self.key))
            .await
    }
}

impl Provider for AnthropicProvider {
    provider_identity!(stream, batch);
}

#[derive(Serialize)]
struct MessagesBody<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<super::prompt_cache::AnthropicSystem<'a>>,
    messages: [Message<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(flatten)]
    sampling: super::sampling::AnthropicSampling<'a>,
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
    #[serde(default, deserialize_with = "super::lenient")]
    model: Option<String>,
    #[serde(default, deserialize_with = "super::lenient")]
    content: Option<Vec<Value>>,
    #[serde(default, deserialize_with = "super::lenient")]
    stop_reason: Option<String>,
    #[serde(default, deserialize_with = "super::lenient")]
    usage: Option<MessagesUsage>,
    #[serde(default, deserialize_with = "super::lenient")]
    error: Option<Value>,
}

#[derive(Deserialize, Default)]
struct MessagesUsage {
    #[serde(default, deserialize_with = "super::lenient")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient")]
    output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient")]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "super::lenient")]
    cache_read_input_tokens: Option<u64>,
}

/// Reads a Messages API reply.
fn parse_reply(body: &[u8], sent_model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
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
    let mut response = AiResponse::new(text, answering_model(reply.model, sent_model));
    response.finish_reason = finish_reason;
    response.refusal = refusal;
    response.reasoning = (!reasoning.is_empty()).then_some(reasoning);
    response.usage = reply.usage.unwrap_or_default().usage();
    Ok(response)
}

/// What sets two thinking blocks apart in the reply's reasoning.
const THINKING_SEPARATOR: &str = "\n\n";

/// Why the model stopped, from the reply's `stop_reason`.
fn stop_reason(reason: Option<&str>) -> FinishReason {
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
    fn usage(&self) -> Usage {
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

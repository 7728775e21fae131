//! [`AnthropicProvider`]: Anthropic's wire, the Messages API (`wire`), with its attachments
//! (`parts`), streamed events (`events`) and Message Batches (`batch`).

mod batch;
mod events;
mod parts;
mod tools;
mod wire;

use reqwest::header::{HeaderMap, HeaderValue};

use super::http::{
    env_var, from_vars, key_header_value, offered_batch, with_defaults, Call, Defaults,
    HttpProvider, Vendor,
};
use super::transport::{join_url, ApiKey};
use super::{AiResponse, BatchClient, ProviderError};
use crate::error::IntentError;
use crate::result::ResultIssue;
use events::MessagesDecoder;

/// The `anthropic-version` header sent with every request.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The endpoint's path under the base URL.
const MESSAGES: &str = "v1/messages";

/// The `max_tokens` sent when the request sets no `max_output_tokens`.
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Anthropic's wire and its settings, as [`AnthropicProvider`] speaks it: the `max_tokens` sent
/// by default, whether the temperature is sent, whether the server has Message Batches. Set
/// through [`AnthropicProvider`]'s `with_*` methods.
#[derive(Debug, Clone)]
pub struct Anthropic {
    default_max_tokens: u32,
    send_temperature: bool,
    /// Whether the server has Anthropic's Message Batches API (`None`: only Anthropic's own).
    batch_api: Option<bool>,
}

/// A provider that speaks Anthropic's Messages API: `POST {base}/v1/messages`.
///
/// Every request carries the key in `x-api-key` and `anthropic-version: 2023-06-01`. The system
/// prompt goes in `system`, `max_tokens` is always sent (the provider's default, 4096 unless
/// [`with_default_max_tokens`](Self::with_default_max_tokens) says otherwise, when the request
/// sets none), strict schemas go in `output_config.format` (`json_schema`), and text and
/// JSON-object requests send no format (the prompt carries the contract). The temperature is sent
/// whenever the request sets one ([`with_send_temperature(false)`](Self::with_send_temperature)
/// leaves it out, with a notice on each attempt's record). Transport faults, 529 included, are
/// retried under the [`RetryPolicy`](super::RetryPolicy). The key never shows in `Debug`, logs or
/// errors.
///
/// A request's thinking budget turns on extended thinking: `thinking: {"type": "enabled",
/// "budget_tokens": N}` (0 sends `{"type": "disabled"}`). Anthropic counts the thinking in
/// `max_tokens` and needs `max_tokens` above the budget, so `max_tokens` becomes the budget plus the
/// reply's own limit (`max_output_tokens`, else the default). With thinking on, a temperature (and
/// a `top_p` below 0.95), which Anthropic refuses, is refused before sending; so are `temperature`
/// and `top_p` together on the models that take one or the other (Claude Opus 4.1, Sonnet 4.5,
/// Haiku 4.5 and later). A budget below 1024 tokens, which Anthropic refuses, fails before
/// sending. The `thinking` blocks of the reply are its [`AiResponse::reasoning`], never its text
/// (`redacted_thinking` blocks carry no readable text and are skipped). The reasoning effort is
/// sent as `output_config.effort` to the models that take it (Claude Opus 4.5 and later, Sonnet
/// 4.6 and later), and left out with a notice for the others.
///
/// With prompt caching asked for (`AiRequestOptions::prompt_caching`), the prompt's stable prefix
/// is marked `cache_control: {"type": "ephemeral"}` where it ends: the `system` block, and the
/// intent's text at the head of the user message (before the varying input), so calls of one call
/// site share the cache; a prefix shorter than the model's minimum (1024 to 4096 tokens by model),
/// which Anthropic silently does not cache, is said so on the attempt's record. The reply's
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
pub type AnthropicProvider = HttpProvider<Anthropic>;

impl HttpProvider<Anthropic> {
    /// The endpoint requests go to: `{base}/v1/messages`.
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("k");
    /// assert_eq!(provider.endpoint(), "https://api.anthropic.com/v1/messages");
    /// ```
    pub fn endpoint(&self) -> String {
        join_url(&self.base_url, MESSAGES)
    }

    /// A provider for Anthropic with this key, named `anthropic`, at `https://api.anthropic.com`,
    /// asking `claude-sonnet-4-5` when a request names no model.
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("sk-ant-example");
    /// assert_eq!(provider.base_url(), "https://api.anthropic.com");
    /// ```
    pub fn new(api_key: impl Into<String>) -> Self {
        with_defaults(api_key)
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
        from_vars(Self::new, env_var)
    }

    /// The `max_tokens` sent when the request sets no `max_output_tokens` (4096 by default; the
    /// Messages API requires one).
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("k").with_default_max_tokens(8192);
    /// assert_eq!(provider.default_max_tokens(), 8192);
    /// ```
    pub fn with_default_max_tokens(self, max_tokens: u32) -> Self {
        self.with_vendor(|anthropic| anthropic.default_max_tokens = max_tokens.max(1))
    }

    /// Whether the request's temperature is sent (on by default). Off, a request's temperature
    /// is left out and each attempt's record says so; on, it is sent whenever the request sets
    /// one, and refused before sending with thinking on (Anthropic takes no changed temperature
    /// with extended thinking).
    ///
    /// ```
    /// let provider = intent_core::provider::AnthropicProvider::new("k").with_send_temperature(false);
    /// assert!(!provider.sends_temperature());
    /// ```
    pub fn with_send_temperature(self, on: bool) -> Self {
        self.with_vendor(|anthropic| anthropic.send_temperature = on)
    }

    /// The `max_tokens` sent when the request sets none.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::AnthropicProvider::new("k").default_max_tokens(), 4096);
    /// ```
    pub fn default_max_tokens(&self) -> u32 {
        self.vendor.default_max_tokens
    }

    /// Whether the request's temperature is sent.
    ///
    /// ```
    /// assert!(intent_core::provider::AnthropicProvider::new("k").sends_temperature());
    /// ```
    pub fn sends_temperature(&self) -> bool {
        self.vendor.send_temperature
    }
}

impl Default for Anthropic {
    fn default() -> Self {
        Anthropic {
            default_max_tokens: DEFAULT_MAX_TOKENS,
            send_temperature: true,
            batch_api: None,
        }
    }
}

impl Vendor for Anthropic {
    const DEFAULTS: Defaults = Defaults::new(
        "anthropic",
        "https://api.anthropic.com",
        "claude-sonnet-4-5",
    )
    .keys(&["ANTHROPIC_API_KEY"]);

    type Events = MessagesDecoder;

    fn path(&self) -> &str {
        MESSAGES
    }

    fn headers(&self, key: Option<&str>, provider: &str) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = key {
            headers.insert("x-api-key", key_header_value(key, provider)?);
        }
        Ok(headers)
    }

    fn body(&self, call: Call<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
        wire::body(self, call, stream)
    }

    fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
        wire::parse(body, model, key)
    }

    fn events(&self, model: &str, key: &ApiKey) -> Option<MessagesDecoder> {
        Some(MessagesDecoder::new(model, key))
    }

    fn batch_client(provider: &AnthropicProvider) -> Option<BatchClient<'_>> {
        offered_batch(provider)
    }

    fn notices(&self, call: Call<'_>) -> Vec<ResultIssue> {
        wire::plan_of(self, call).map_or_else(|_| Vec::new(), |plan| plan.notices)
    }
}

//! [`OpenAiProvider`]: OpenAI's wire, Chat Completions (`chat`: OpenAI and compatible servers,
//! Azure's v1 endpoint, Ollama, llama.cpp, vLLM) or the Responses API (`responses`), with their
//! attachments (`parts`), streamed events (`events`) and the Batch API (`batch`). What both APIs
//! share is here: the key's header, the token counts' details, the prompt cache key.
//!
//! Prompt caching (checked against OpenAI's API reference, December 2026): OpenAI caches prompts
//! of 1024 tokens or more by itself (Chat Completions and Responses alike); `prompt_cache_key`
//! ("used by OpenAI to cache responses for similar requests to optimize your cache hit rates;
//! replaces the `user` field") routes requests with the same key to the same cache. The key is
//! made here from the request's stable prefix, so calls that share it share a key, and nothing of
//! the prompt itself is sent twice. Usage reports `prompt_tokens_details.cached_tokens`
//! (`input_tokens_details.cached_tokens` on Responses).

mod batch;
mod chat;
mod events;
mod parts;
mod responses;
mod tools;

use reqwest::header::{HeaderMap, HeaderName, AUTHORIZATION};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::http::{
    env_var, from_vars, key_header_value, offered_batch, with_defaults, Call, Defaults,
    HttpProvider, Vendor,
};
use super::transport::{join_url, ApiKey};
use super::{AiResponse, BatchClient, ProviderError, ProviderErrorKind};
use crate::error::IntentError;
use crate::provider::models::Maker;
use crate::provider::plan::{plan, Asker, Plan};
use crate::request::AiRequest;
use crate::result::{ResultIssue, Usage};
use events::OpenAiEvents;

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
    /// The API's name in messages.
    fn name(self) -> &'static str {
        match self {
            OpenAiApi::ChatCompletions => "OpenAI Chat Completions",
            OpenAiApi::Responses => "OpenAI Responses",
        }
    }

    /// The endpoint's path under the base URL.
    fn path(self) -> &'static str {
        match self {
            OpenAiApi::ChatCompletions => "chat/completions",
            OpenAiApi::Responses => "responses",
        }
    }
}

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

/// OpenAI's wire and its settings, as [`OpenAiProvider`] speaks it: which API, which field
/// carries the longest reply, which header the key goes in, whether the server has the Batch
/// API. Set through [`OpenAiProvider`]'s `with_*` methods.
#[derive(Debug, Clone, Default)]
pub struct OpenAi {
    key_header: Option<String>,
    max_tokens_field: MaxTokensField,
    api: OpenAiApi,
    /// Whether the server has OpenAI's Batch API (`None`: only OpenAI's own).
    batch_api: Option<bool>,
    /// Whether the server can call tools in a reply constrained to a format (`None`: only
    /// OpenAI's own and Azure's).
    tools_beside_format: Option<bool>,
}

/// A provider that speaks OpenAI's Chat Completions: `POST {base}/chat/completions`.
///
/// The base URL selects the server: OpenAI (`https://api.openai.com/v1`, the default), Azure's v1
/// endpoint (`https://NAME.openai.azure.com/openai/v1`), Ollama (`http://localhost:11434/v1`),
/// llama.cpp or vLLM. Text results are sent with no `response_format`, JSON-object results with
/// `{"type":"json_object"}` and strict schemas with `{"type":"json_schema","json_schema":{"name",
/// "strict":true,"schema"}}`. A request's reasoning effort is sent as `reasoning_effort` (left out,
/// with a notice on the attempt's record, for a model known not to reason); its thinking budget is
/// left out with a notice (Chat Completions has no such field); `temperature` and `top_p` are left
/// out with a notice for the reasoning models that refuse them (o-series, gpt-5: see
/// [`Provider::notices`](super::Provider::notices)). The reply's
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
pub type OpenAiProvider = HttpProvider<OpenAi>;

impl HttpProvider<OpenAi> {
    /// The endpoint requests go to: `{base}/chat/completions`, or `{base}/responses` for the
    /// Responses API.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("k");
    /// assert_eq!(provider.endpoint(), "https://api.openai.com/v1/chat/completions");
    /// ```
    pub fn endpoint(&self) -> String {
        join_url(&self.base_url, self.vendor.api.path())
    }

    /// A provider for OpenAI with this key (an empty key sends no `Authorization` header, for
    /// local servers that need none), named `openai`, at `https://api.openai.com/v1`, asking
    /// `gpt-4o-mini` when a request names no model.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("sk-example");
    /// assert_eq!(provider.base_url(), "https://api.openai.com/v1");
    /// ```
    pub fn new(api_key: impl Into<String>) -> Self {
        with_defaults(api_key)
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
        from_vars(Self::new, env_var)
    }

    /// The field that carries the longest reply (`max_completion_tokens` by default).
    ///
    /// ```
    /// use intent_core::provider::{MaxTokensField, OpenAiProvider};
    /// let provider = OpenAiProvider::new("").with_max_tokens_field(MaxTokensField::MaxTokens);
    /// assert_eq!(provider.max_tokens_field(), MaxTokensField::MaxTokens);
    /// ```
    pub fn with_max_tokens_field(self, field: MaxTokensField) -> Self {
        self.with_vendor(|openai| openai.max_tokens_field = field)
    }

    /// The API to speak: Chat Completions (the default) or the Responses API.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiApi, OpenAiProvider};
    /// let provider = OpenAiProvider::new("k").with_api(OpenAiApi::Responses);
    /// assert_eq!(provider.api(), OpenAiApi::Responses);
    /// ```
    pub fn with_api(self, api: OpenAiApi) -> Self {
        self.with_vendor(|openai| openai.api = api)
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
    pub fn with_key_header(self, header: impl Into<String>) -> Self {
        let header = header.into();
        self.with_vendor(|openai| openai.key_header = Some(header))
    }

    /// Whether the server can call tools in a reply constrained to a response format (see
    /// [`Provider::tools_beside_format`](super::Provider::tools_beside_format)). By default only
    /// OpenAI's own server (`api.openai.com`) and Azure's (`*.openai.azure.com`) are taken to:
    /// llama.cpp, vLLM and Ollama constrain a reply to the format with a grammar that leaves the
    /// model no room for a call. On another server, the rounds that offer tools are sent
    /// without `response_format` (the schema written into the prompt), and an answer that does
    /// not read is asked for once more with the format and `tool_choice: "none"`. Say `true`
    /// for a server that can (one serving OpenAI's models, or a gateway before one).
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider};
    ///
    /// let vllm = OpenAiProvider::new("").with_base_url("http://127.0.0.1:8000/v1");
    /// let request = intent_core::AiRequest::new("", "Look it up.");
    /// assert!(!vllm.tools_beside_format(&request));
    /// assert!(vllm.with_tools_beside_format(true).tools_beside_format(&request));
    /// ```
    pub fn with_tools_beside_format(self, can: bool) -> Self {
        self.with_vendor(|openai| openai.tools_beside_format = Some(can))
    }

    /// The API the provider speaks.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiApi, OpenAiProvider};
    /// assert_eq!(OpenAiProvider::new("k").api(), OpenAiApi::ChatCompletions);
    /// ```
    pub fn api(&self) -> OpenAiApi {
        self.vendor.api
    }

    /// The field that carries the longest reply.
    ///
    /// ```
    /// use intent_core::provider::{MaxTokensField, OpenAiProvider};
    /// assert_eq!(OpenAiProvider::new("k").max_tokens_field(), MaxTokensField::MaxCompletionTokens);
    /// ```
    pub fn max_tokens_field(&self) -> MaxTokensField {
        self.vendor.max_tokens_field
    }
}

impl Vendor for OpenAi {
    const DEFAULTS: Defaults = Defaults::new("openai", "https://api.openai.com/v1", "gpt-4o-mini")
        .keys(&["OPENAI_API_KEY"])
        .keyless();

    type Events = OpenAiEvents;

    fn path(&self) -> &str {
        self.api.path()
    }

    fn headers(&self, key: Option<&str>, provider: &str) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        let Some(key) = key else {
            return Ok(headers);
        };
        match &self.key_header {
            Some(name) => {
                let name = HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| {
                    ProviderError::new(
                        ProviderErrorKind::Config,
                        format!("with_key_header was given an invalid header name: {name:?}"),
                    )
                    .with_provider(provider)
                })?;
                headers.insert(name, key_header_value(key, provider)?);
            }
            None => {
                headers.insert(
                    AUTHORIZATION,
                    key_header_value(&format!("Bearer {key}"), provider)?,
                );
            }
        }
        Ok(headers)
    }

    fn body(&self, call: Call<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
        match self.api {
            OpenAiApi::ChatCompletions => chat::body(call, stream, self.max_tokens_field),
            OpenAiApi::Responses => responses::body(call, stream),
        }
    }

    fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
        match self.api {
            OpenAiApi::ChatCompletions => chat::parse(body, model, key),
            OpenAiApi::Responses => responses::parse(body, model, key),
        }
    }

    fn events(&self, model: &str, key: &ApiKey) -> Option<OpenAiEvents> {
        Some(OpenAiEvents::new(self.api, model, key))
    }

    fn batch_client(provider: &OpenAiProvider) -> Option<BatchClient<'_>> {
        offered_batch(provider)
    }

    fn notices(&self, call: Call<'_>) -> Vec<ResultIssue> {
        plan_of(self.api, call).map_or_else(|_| Vec::new(), |plan| plan.notices)
    }

    /// As `with_tools_beside_format` said, else only OpenAI's own server and Azure's.
    fn tools_beside_format(&self, _call: Call<'_>, base_url: &str) -> bool {
        self.tools_beside_format.unwrap_or_else(|| {
            reqwest::Url::parse(base_url).is_ok_and(|url| {
                url.host_str().is_some_and(|host| {
                    host == "api.openai.com" || host.ends_with(".openai.azure.com")
                })
            })
        })
    }
}

/// What `call`'s model settings become on `api` (see `provider::plan`).
fn plan_of(api: OpenAiApi, call: Call<'_>) -> Result<Plan, ProviderError> {
    let asker = Asker {
        maker: Maker::OpenAi,
        api: api.name(),
        provider: call.provider,
        model: call.model,
        send_temperature: true,
    };
    plan(asker, call.request)
}

/// The details of OpenAI's token counts (`*_tokens_details`).
#[derive(Deserialize)]
struct TokenDetails {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    cached_tokens: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    reasoning_tokens: Option<u64>,
}

/// Our usage from OpenAI's counts, which Chat Completions and the Responses API report under
/// different names but with the same details. `total` is the reply's `total_tokens`: a server
/// whose total is input + output + reasoning counts the reasoning outside the output (xAI, as the
/// vendor fixture `openai-chat/xai-text.json` records), and the reasoning is added to the output
/// then, as it is billed as output.
fn usage(
    input: Option<u64>,
    output: Option<u64>,
    input_details: Option<TokenDetails>,
    output_details: Option<TokenDetails>,
    total: Option<u64>,
) -> Usage {
    let (input, output) = (input.unwrap_or(0), output.unwrap_or(0));
    let reasoning = output_details.and_then(|d| d.reasoning_tokens).unwrap_or(0);
    let outside =
        reasoning > 0 && total == Some(input.saturating_add(output).saturating_add(reasoning));
    Usage {
        input_tokens: input,
        output_tokens: if outside {
            output.saturating_add(reasoning)
        } else {
            output
        },
        cached_tokens: input_details.and_then(|d| d.cached_tokens).unwrap_or(0),
        reasoning_tokens: reasoning,
        calls: 1,
    }
}

/// OpenAI's `prompt_cache_key` for `request`, when it asks for caching: `intent-` and 32 hex digits
/// of a SHA-256 of its stable prefix (the system message, the schema's name and text, and the
/// user message up to its input), which names the prefix without sending it again.
fn prompt_cache_key(request: &AiRequest) -> Option<String> {
    if !request.prompt_caching {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(request.system.as_bytes());
    hasher.update([0]);
    if let Some(schema) = &request.schema {
        hasher.update(request.schema_name.as_bytes());
        hasher.update([0]);
        hasher.update(schema.json().as_bytes());
    }
    hasher.update([0]);
    let (intent, _) = super::http::intent_and_input(&request.user);
    hasher.update(intent.as_bytes());
    let digest = hasher.finalize();
    let mut key = String::with_capacity(7 + 32);
    key.push_str("intent-");
    for byte in &digest[..16] {
        key.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        key.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::provider::http::caching_request as request;

    #[test]
    fn the_key_names_the_stable_prefix_and_not_the_input() {
        let one = prompt_cache_key(&request("sys", "## Intent\nSum.\n\n## Input (text)\n1 2"));
        let two = prompt_cache_key(&request("sys", "## Intent\nSum.\n\n## Input (text)\n3 4"));
        let other = prompt_cache_key(&request("sys", "## Intent\nCount.\n\n## Input (text)\n1"));
        let key = one.clone().unwrap();
        assert!(key.starts_with("intent-") && key.len() == 39, "{key}");
        assert_eq!(one, two);
        assert_ne!(one, other);
        assert_eq!(prompt_cache_key(&AiRequest::new("sys", "u")), None);
    }
}

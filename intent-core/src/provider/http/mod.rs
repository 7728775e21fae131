//! [`HttpProvider`]: a provider over HTTP, one type for every vendor. What the vendors share lives
//! here once: the endpoint settings (`with_base_url`, `with_model`, `with_name`), the transport
//! (one HTTP client, timeouts, retries with backoff, redirects refused across origins, the key
//! kept secret, the rate-limit headers read), the [`Provider`] methods, the `Debug` form that
//! never shows the key, and the plumbing of streamed replies and batch APIs.
//!
//! What differs is a vendor's wire, and each vendor has one folder for it under `provider/`
//! (`openai/`, `anthropic/`, `gemini/`), with the same files (`tests/layers.rs` checks them):
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | the vendor's type implementing [`Vendor`] and its settings, `pub type NameProvider = HttpProvider<Name>;`, its `new`, `from_env` and own `with_*` methods |
//! | `wire.rs` (or one file per API: `chat.rs`, `responses.rs`) | the request body and the reply's reading, with the sources of the wire facts |
//! | `parts.rs` | attachments as the vendor's content parts, and its attachment limits |
//! | `events.rs` | the [`EventDecoder`] of its streamed events, where it streams |
//! | `batch.rs` | its batch API ([`VendorBatch`]), where it has one |
//! | `dialect.rs` | the JSON Schema dialect it takes, where that is not JSON Schema's |
//!
//! A new vendor is one such folder, a `mod` line and a `pub use` in `provider/mod.rs`; the
//! transport, the settings, retries, streaming and the batch run are not written again.
//! `example.rs` beside this file is a whole vendor, the smallest one, run against a local server
//! by its test: start a new vendor from it.

mod body;
mod cloud;
#[cfg(test)]
mod example;
mod settings;

#[cfg(test)]
pub(crate) use body::caching_request;
pub(crate) use body::strict_schema;
pub(crate) use body::{
    answering_model, intent_and_input, key_header_value, no_answer, read_reply, request_body,
};
pub(crate) use cloud::{Cloud, Outgoing};
#[cfg(all(test, any(feature = "bedrock", feature = "vertex")))]
pub(crate) use settings::{assert_refused, vars};
pub(crate) use settings::{env_var, from_vars, with_defaults, Defaults};

use std::borrow::Cow;
use std::fmt;
use std::future::Future;

use reqwest::header::HeaderMap;
use reqwest::Url;

use super::batch::{BatchApi, BatchClient, BatchLimits, ResultLine, Staged, Status};
use super::pieces::{open_and_read, opening, whole_reply, EventDecoder, PieceStream};
use super::transport::{display_url, endpoint_url, ApiKey, Post, Prepared, Transport};
use super::{AiResponse, BoxFuture, Provider, ProviderError, ProviderErrorKind, ReplyFuture};
use crate::request::AiRequest;
use crate::result::ResultIssue;

/// A provider that speaks a vendor's HTTP API: [`OpenAiProvider`](super::OpenAiProvider),
/// [`AnthropicProvider`](super::AnthropicProvider) and [`GeminiProvider`](super::GeminiProvider)
/// are this type for their vendor (`V` is [`OpenAi`](super::OpenAi),
/// [`Anthropic`](super::Anthropic) or [`Gemini`](super::Gemini), the vendor's wire and its own
/// settings).
///
/// Every vendor has the same endpoint and transport settings (the `with_*` methods below) and
/// the same guarantees: one HTTP client for the provider's lifetime, transport faults (timeouts,
/// 408, 409, 429, 5xx, 529) retried with backoff under the [`RetryPolicy`](super::RetryPolicy)
/// honouring `retry-after`, no redirect followed to another origin, the key never in `Debug`,
/// logs, errors or a reply that echoes it, and the rate-limit headers of each reply read into
/// [`AiResponse::rate_limit`]. A vendor's own settings and wire are documented on its alias.
///
/// ```
/// use intent_core::provider::{AnthropicProvider, GeminiProvider, OpenAiProvider, Provider};
///
/// let openai = OpenAiProvider::new("sk-example").with_model("gpt-4.1-mini");
/// let anthropic = AnthropicProvider::new("sk-ant-example").with_name("claude");
/// let gemini = GeminiProvider::new("AIza-example").with_max_retries(5);
/// assert_eq!(openai.default_model(), Some("gpt-4.1-mini"));
/// assert_eq!(anthropic.name(), "claude");
/// assert_eq!(gemini.retry_policy().max_retries, 5);
/// assert!(!format!("{openai:?}").contains("sk-example"));
/// ```
#[derive(Clone)]
pub struct HttpProvider<V> {
    pub(crate) vendor: V,
    pub(crate) name: String,
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub(crate) key: ApiKey,
    pub(crate) transport: Transport,
    /// The checked endpoint (or its first part) and the headers, built once.
    pub(crate) prepared: Prepared,
    /// The cloud the vendor's API is reached through (Bedrock, Vertex AI), when not the
    /// vendor's own server: it sets each request's endpoint and signs it (see `Cloud`).
    pub(crate) cloud: Option<std::sync::Arc<dyn Cloud>>,
}

/// One request as a vendor writes it: the request, the model it asks, and the provider's name
/// for errors.
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    pub(crate) request: &'a AiRequest,
    pub(crate) model: &'a str,
    pub(crate) provider: &'a str,
}

impl<V> HttpProvider<V> {
    /// A call of `request` on this provider.
    pub(crate) fn call<'a>(&'a self, request: &'a AiRequest) -> Call<'a> {
        Call {
            request,
            model: request.model.as_deref().unwrap_or(&self.model),
            provider: &self.name,
        }
    }
}

/// A reply read: the provider's answer, or why it could not be read.
pub(crate) type ReplyRead = Result<AiResponse, ProviderError>;

/// A vendor's wire: all an [`HttpProvider`] needs to know of one API beyond what every vendor
/// shares. Implemented once per vendor folder, in its `mod.rs`; the transport, the settings and
/// the [`Provider`] methods are the generic provider's.
///
/// What an implementation gives, in the order a call uses it:
///
/// 1. [`DEFAULTS`](Self::DEFAULTS): the name, base URL and model, and the variables `from_env`
///    reads (`{NAME}_BASE_URL`, `{NAME}_MODEL` and the key's);
/// 2. [`path`](Self::path) (and [`url`](Self::url) when the endpoint names the model) and
///    [`headers`](Self::headers): where a request goes and the auth headers it carries, built
///    once per provider (mark the key's value sensitive with `key_header_value`);
/// 3. [`body`](Self::body): the request as the vendor's JSON, written once with the request's
///    `extra_body` (`request_body`); an option the vendor cannot take is refused here, never
///    dropped;
/// 4. [`reply`](Self::reply): the whole reply read into an [`AiResponse`] (text, finish
///    reason, usage, model, reasoning, refusal);
/// 5. [`events`](Self::events): the decoder of the streamed events ([`EventDecoder`], in the
///    folder's `events.rs`), or `None` and `type Events = NoEvents` for a vendor whose replies
///    come whole: the reply rebuilt from the pieces must equal what `reply` reads;
/// 6. [`batch_client`](Self::batch_client): `offered_batch(provider)` for a vendor that
///    implements [`VendorBatch`] (in `batch.rs`), else the default, none.
///
/// ```ignore
/// #[derive(Debug, Clone, Default)]
/// pub struct Plain;
/// pub type PlainProvider = HttpProvider<Plain>;
///
/// impl Vendor for Plain {
///     const DEFAULTS: Defaults =
///         Defaults::new("plain", "https://plain.invalid/v1", "plain-1").keys(&["PLAIN_API_KEY"]);
///     type Events = PlainEvents;
///
///     fn path(&self) -> &str {
///         "generate"
///     }
///     fn headers(&self, key: Option<&str>, provider: &str) -> Result<HeaderMap, ProviderError> {
///         let mut headers = HeaderMap::new();
///         if let Some(key) = key {
///             headers.insert(AUTHORIZATION, key_header_value(&format!("Bearer {key}"), provider)?);
///         }
///         Ok(headers)
///     }
///     fn body(&self, call: Call<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
///         let body = Body { model: call.model, prompt: &call.request.user, stream, /* .. */ };
///         request_body(&body, call.request, call.provider)
///     }
///     fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
///         let reply: Reply = read_reply(body, "Plain", key)?;
///         Ok(AiResponse::new(reply.output, reply.model.as_deref().unwrap_or(model)))
///     }
///     fn events(&self, model: &str, _key: &ApiKey) -> Option<PlainEvents> {
///         Some(PlainEvents { model: model.to_owned() })
///     }
/// }
/// ```
///
/// The whole of it, with its `Body`, `Reply` and `PlainEvents`, is `example.rs` in this folder,
/// compiled and run by `cargo test -p intent-core --lib provider::http::example`.
pub(crate) trait Vendor: Clone + fmt::Debug + Send + Sync + Sized + 'static {
    /// The provider's default name, base URL and model, and the variables its key is read from.
    const DEFAULTS: Defaults;

    /// The decoder of the vendor's streamed events.
    type Events: EventDecoder;

    /// The endpoint's path under the base URL, checked and joined once: the whole endpoint, or
    /// its first part when the endpoint names the model (see [`url`](Self::url)).
    fn path(&self) -> &str;

    /// The endpoint of a request for `model`: the prepared one unless the vendor's endpoint
    /// names the model.
    fn url<'u>(&self, prepared: &'u Url, _model: &str) -> Result<Cow<'u, Url>, ProviderError> {
        Ok(Cow::Borrowed(prepared))
    }

    /// The endpoint of a streamed request for `model`: [`url`](Self::url)'s, unless the vendor
    /// streams at another endpoint (Gemini's `:streamGenerateContent?alt=sse`).
    fn stream_url<'u>(
        &self,
        prepared: &'u Url,
        model: &str,
    ) -> Result<Cow<'u, Url>, ProviderError> {
        self.url(prepared, model)
    }

    /// The headers every request carries (the key's, the API version's), built once; `key` is
    /// `None` for a provider without one.
    fn headers(&self, key: Option<&str>, provider: &str) -> Result<HeaderMap, ProviderError>;

    /// The JSON body of a call; `stream` asks for the reply as events.
    fn body(&self, call: Call<'_>, stream: bool) -> Result<Vec<u8>, ProviderError>;

    /// Reads a whole reply to a request for `model`.
    fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError>;

    /// The decoder of a streamed reply to a request for `model`, or `None` when the API (as the
    /// vendor is set) streams no events: the reply then comes whole, as one piece.
    fn events(&self, model: &str, key: &ApiKey) -> Option<Self::Events>;

    /// Reads a whole reply to `call`: [`reply`](Self::reply), unless the vendor reads a reply
    /// by what its request offered (Bedrock tells the tool its schema went as from the
    /// caller's tools).
    fn reply_to(&self, body: &[u8], call: Call<'_>, key: &ApiKey) -> ReplyRead {
        self.reply(body, call.model, key)
    }

    /// The decoder of a streamed reply to `call`: [`events`](Self::events), unless the vendor
    /// reads some requests' replies whole.
    fn events_for(&self, call: Call<'_>, key: &ApiKey) -> Option<Self::Events> {
        self.events(call.model, key)
    }

    /// The vendor's batch API on `provider`, when it has one (see [`VendorBatch`]).
    fn batch_client(_provider: &HttpProvider<Self>) -> Option<BatchClient<'_>> {
        None
    }

    /// What [`body`](Self::body) leaves out of `call` and why (see [`Provider::notices`]): the
    /// same plan as the body's, so the two cannot differ.
    fn notices(&self, _call: Call<'_>) -> Vec<ResultIssue> {
        Vec::new()
    }

    /// See [`Provider::tools_beside_format`]: whether the model of `call`, on the server at
    /// `base_url`, can call tools in a reply constrained to a format. True by default.
    fn tools_beside_format(&self, _call: Call<'_>, _base_url: &str) -> bool {
        true
    }
}

/// A vendor's batch API, as its folder's `batch.rs` writes it: the requests and replies of
/// creating, watching, reading and cancelling a batch. [`HttpProvider`] turns it into the
/// [`BatchApi`] a batch run uses.
pub(crate) trait VendorBatch: Vendor {
    /// The vendor's own server, the only one assumed to have its batch API.
    const OWN_HOST: &'static str;
    /// How much one batch may hold.
    const LIMITS: BatchLimits;

    /// Whether the server has the batch API, as `with_batch_api` said (`None`: only
    /// [`OWN_HOST`](Self::OWN_HOST) has).
    fn said(&self) -> Option<bool>;

    /// See [`BatchApi::encode`]: the line of `call`, named `custom_id`.
    fn encode(&self, call: Call<'_>, custom_id: &str) -> Result<Vec<u8>, ProviderError>;

    /// See [`BatchApi::batch_bytes`].
    fn batch_bytes(lines_len: usize) -> usize;

    /// See [`BatchApi::stage`].
    fn stage(
        provider: &HttpProvider<Self>,
        lines: &[Vec<u8>],
    ) -> impl Future<Output = Result<Staged, ProviderError>> + Send;

    /// See [`BatchApi::create`].
    fn create(
        provider: &HttpProvider<Self>,
        staged: &Staged,
        lines: &[Vec<u8>],
    ) -> impl Future<Output = Result<String, ProviderError>> + Send;

    /// See [`BatchApi::find`].
    fn find(
        provider: &HttpProvider<Self>,
        staged: &Staged,
        requests: usize,
    ) -> impl Future<Output = Result<Option<String>, ProviderError>> + Send;

    /// See [`BatchApi::status`].
    fn status(
        provider: &HttpProvider<Self>,
        id: &str,
    ) -> impl Future<Output = Result<Status, ProviderError>> + Send;

    /// See [`BatchApi::results`].
    fn results(
        provider: &HttpProvider<Self>,
        id: &str,
        status: &Status,
    ) -> impl Future<Output = Result<Vec<ResultLine>, ProviderError>> + Send;

    /// Where, under the base URL, a POST cancels the batch `id` (see [`BatchApi::cancel`]).
    fn cancel_path(id: &str) -> String;
}

impl<V> HttpProvider<V> {
    /// The provider with its vendor's settings changed by `change`; the endpoint and headers are
    /// built again on next use.
    pub(crate) fn with_vendor(mut self, change: impl FnOnce(&mut V)) -> Self {
        change(&mut self.vendor);
        self.prepared = Prepared::default();
        self
    }

    /// The provider reaching its vendor's API through `cloud`; the endpoint and headers are built
    /// again on next use.
    #[cfg_attr(not(any(feature = "bedrock", feature = "vertex")), allow(dead_code))]
    pub(crate) fn with_cloud(mut self, cloud: std::sync::Arc<dyn Cloud>) -> Self {
        self.cloud = Some(cloud);
        self.prepared = Prepared::default();
        self
    }

    /// The model a request asks for: its own, else the provider's.
    fn model_for<'r>(&'r self, request: &'r AiRequest) -> &'r str {
        request.model.as_deref().unwrap_or(&self.model)
    }

    fn config_error(&self, message: String) -> ProviderError {
        ProviderError::new(ProviderErrorKind::Config, message).with_provider(&self.name)
    }
}

/// The prepared endpoint of `provider` (checked once) and its headers.
fn prepared<V: Vendor>(
    provider: &HttpProvider<V>,
) -> Result<(&reqwest::Url, &HeaderMap), ProviderError> {
    provider.prepared.get(|| {
        let url = endpoint_url(&provider.base_url, provider.vendor.path())
            .map_err(|e| provider.config_error(e))?;
        let headers = provider
            .vendor
            .headers(provider.key.expose(), &provider.name)?;
        Ok((url, headers))
    })
}

/// The POST of `request` for `model` to its endpoint; `stream` asks for events. Through a cloud,
/// the cloud's endpoint, body and signature.
async fn post<'a, V: Vendor>(
    provider: &'a HttpProvider<V>,
    request: &AiRequest,
    model: &str,
    stream: bool,
) -> Result<Post<'a>, ProviderError> {
    let body = provider.vendor.body(provider.call(request), stream)?;
    let (prepared, headers) = prepared(provider)?;
    let named = |e: ProviderError| e.with_provider(&provider.name);
    let Some(cloud) = &provider.cloud else {
        let url = if stream {
            provider.vendor.stream_url(prepared, model)
        } else {
            provider.vendor.url(prepared, model)
        };
        return Ok(Post {
            provider: &provider.name,
            url: url.map_err(named)?,
            headers: Cow::Borrowed(headers),
            body,
            key: &provider.key,
        });
    };
    let url = cloud
        .url(&provider.base_url, model, stream)
        .map_err(named)?;
    let body = cloud.body(body).map_err(named)?;
    let mut headers = cloud.headers(headers);
    let outgoing = Outgoing {
        url: &url,
        body: &body,
        headers: &mut headers,
    };
    cloud.authorize(outgoing).await.map_err(named)?;
    Ok(Post {
        provider: &provider.name,
        url: Cow::Owned(url),
        headers: Cow::Owned(headers),
        body,
        key: &provider.key,
    })
}

/// Sends `request` whole and reads its reply.
async fn send<V: Vendor>(
    provider: &HttpProvider<V>,
    request: &AiRequest,
) -> Result<AiResponse, ProviderError> {
    let model = provider.model_for(request);
    let post = post(provider, request, model, false).await?;
    provider
        .transport
        .send_json_at(post, |reply| {
            provider
                .vendor
                .reply_to(reply, provider.call(request), &provider.key)
        })
        .await
}

/// Sends `request` asking for events, read by `decoder` as they come.
async fn open<'a, V: Vendor>(
    provider: &'a HttpProvider<V>,
    request: &'a AiRequest,
    decoder: V::Events,
) -> Result<PieceStream<'a>, ProviderError> {
    let model = provider.model_for(request);
    let post = post(provider, request, model, true).await?;
    open_and_read(&provider.transport, post, decoder, |reply| {
        provider
            .vendor
            .reply_to(reply, provider.call(request), &provider.key)
    })
    .await
}

/// The batch API's requests of `provider`, with the key's headers.
pub(crate) fn batch_http<V: Vendor>(
    provider: &HttpProvider<V>,
) -> Result<super::batch::BatchHttp<'_>, ProviderError> {
    Ok(super::batch::BatchHttp {
        provider: &provider.name,
        base_url: &provider.base_url,
        key: &provider.key,
        transport: &provider.transport,
        headers: provider
            .vendor
            .headers(provider.key.expose(), &provider.name)?,
    })
}

/// The batch API of `provider`, when its server has it: as `with_batch_api` said, else only on
/// the vendor's own server.
pub(crate) fn offered_batch<V: VendorBatch>(provider: &HttpProvider<V>) -> Option<BatchClient<'_>> {
    let available = provider.vendor.said().unwrap_or_else(|| {
        reqwest::Url::parse(&provider.base_url).is_ok_and(|url| url.host_str() == Some(V::OWN_HOST))
    });
    available.then_some(BatchClient { api: provider })
}

impl<V: Vendor> Provider for HttpProvider<V> {
    fn name(&self) -> &str {
        &self.name
    }

    fn default_model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        Box::pin(send(self, request))
    }

    fn stream<'a>(&'a self, request: &'a AiRequest) -> PieceStream<'a> {
        match self.vendor.events_for(self.call(request), &self.key) {
            Some(decoder) => opening(open(self, request, decoder)),
            None => whole_reply(self.complete(request)),
        }
    }

    fn batch_client(&self) -> Option<BatchClient<'_>> {
        V::batch_client(self)
    }

    fn notices(&self, request: &AiRequest) -> Vec<ResultIssue> {
        self.vendor.notices(self.call(request))
    }

    fn tools_beside_format(&self, request: &AiRequest) -> bool {
        self.vendor
            .tools_beside_format(self.call(request), &self.base_url)
    }
}

impl<V: VendorBatch> BatchApi for HttpProvider<V> {
    fn limits(&self) -> BatchLimits {
        V::LIMITS
    }

    fn encode(&self, custom_id: &str, request: &AiRequest) -> Result<Vec<u8>, ProviderError> {
        self.vendor.encode(self.call(request), custom_id)
    }

    fn batch_bytes(&self, lines_len: usize) -> usize {
        V::batch_bytes(lines_len)
    }

    fn stage<'a>(&'a self, lines: &'a [Vec<u8>]) -> BoxFuture<'a, Result<Staged, ProviderError>> {
        Box::pin(V::stage(self, lines))
    }

    fn create<'a>(
        &'a self,
        staged: &'a Staged,
        lines: &'a [Vec<u8>],
    ) -> BoxFuture<'a, Result<String, ProviderError>> {
        Box::pin(V::create(self, staged, lines))
    }

    fn find<'a>(
        &'a self,
        staged: &'a Staged,
        requests: usize,
    ) -> BoxFuture<'a, Result<Option<String>, ProviderError>> {
        Box::pin(V::find(self, staged, requests))
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ProviderError>> {
        Box::pin(V::status(self, id))
    }

    fn results<'a>(
        &'a self,
        id: &'a str,
        status: &'a Status,
    ) -> BoxFuture<'a, Result<Vec<ResultLine>, ProviderError>> {
        Box::pin(V::results(self, id, status))
    }

    fn cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), ProviderError>> {
        Box::pin(async move { batch_http(self)?.post_empty(&V::cancel_path(id)).await })
    }
}

/// The provider's name, base URL (without user info or query), model, key (shown as redacted),
/// its vendor and the vendor's settings, and its transport settings.
impl<V: Vendor> fmt::Debug for HttpProvider<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpProvider")
            .field("name", &self.name)
            .field("base_url", &display_url(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.key)
            .field("vendor", &self.vendor)
            .field("transport", &self.transport)
            .field("cloud", &self.cloud)
            .finish()
    }
}

//! The HTTP transport the providers share: one client per provider, a timeout per request, retries
//! with backoff on transport faults, and the provider's own message on errors. Streamed replies
//! are opened here too and read as server-sent events ([`sse`]), within the
//! provider's limits.
//!
//! The key stays where it belongs: a redirect to another origin is never followed (see
//! [`redirect`]), and a reply that echoes the key (in its `model`, its answer, anything a later
//! stage records, prompts or logs) has it replaced by `[redacted]` before it leaves the transport
//! ([`Redact`]).

mod error_body;
mod exchange;
mod rate_limit_headers;
mod redirect;
mod retry;
mod secret;
pub(crate) mod sse;

pub(crate) use exchange::{multipart_file, Exchange};
pub use rate_limit_headers::RateLimitStatus;
pub use retry::RetryPolicy;
pub(crate) use secret::{ApiKey, PieceRedactor, Redact};
pub(crate) use sse::{EventBody, Opened};

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue, CONTENT_TYPE};
use reqwest::{Method, StatusCode};

use super::error::{ProviderError, ProviderErrorKind};
use super::AiResponse;

/// The default timeout for one HTTP request, reply body included.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// The default timeout for opening a connection.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The default largest reply body read, in bytes.
pub(crate) const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// The default longest wait between two events of a streamed reply.
pub(crate) const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// The default largest event of a streamed reply, in bytes.
pub(crate) const DEFAULT_MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// The HTTP settings and client of one provider.
#[derive(Clone, Debug)]
pub(crate) struct Transport {
    client: LazyClient,
    /// The client's request timeout: set with [`set_timeout`](Self::set_timeout), which rebuilds
    /// the client.
    timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) retry: RetryPolicy,
    pub(crate) max_response_bytes: usize,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_event_bytes: usize,
}

/// The provider's HTTP client, built on first use (a settings change starts a new one) and
/// shared by the provider's clones; the error says why it could not be built.
#[derive(Clone, Default)]
struct LazyClient(Arc<OnceLock<Result<reqwest::Client, String>>>);

impl std::fmt::Debug for LazyClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.get() {
            None => f.write_str("not built yet"),
            Some(Ok(_)) => f.write_str("built"),
            Some(Err(error)) => write!(f, "failed: {error}"),
        }
    }
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            client: LazyClient::default(),
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            retry: RetryPolicy::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

/// One POST of a JSON body, as a provider sends it.
pub(crate) struct Post<'a> {
    /// The provider's name, for errors and logs.
    pub(crate) provider: &'a str,
    /// The endpoint.
    pub(crate) url: std::borrow::Cow<'a, reqwest::Url>,
    /// Headers besides `content-type` (authentication, versions): the provider's fixed ones,
    /// borrowed, since each try copies them into its request anyway; owned for a request that
    /// carries headers of its own (a cloud's signature or access token, see `http::Cloud`).
    pub(crate) headers: std::borrow::Cow<'a, HeaderMap>,
    /// The serialized JSON body.
    pub(crate) body: Vec<u8>,
    /// The key, redacted from any message.
    pub(crate) key: &'a ApiKey,
}

impl Transport {
    /// Sets the connect timeout; the HTTP client is rebuilt on next use.
    pub(crate) fn set_connect_timeout(&mut self, timeout: Duration) {
        self.connect_timeout = timeout;
        self.client = LazyClient::default();
    }

    /// The timeout of each request, from connecting until the reply body is read.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Sets the timeout of each request; the HTTP client is rebuilt on next use.
    pub(crate) fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
        self.client = LazyClient::default();
    }

    fn client(&self) -> Result<&reqwest::Client, String> {
        self.client
            .0
            .get_or_init(|| {
                // The request timeout is the client's rather than each request's: a request's
                // own would be stored in its extensions, three allocations per request.
                reqwest::Client::builder()
                    .timeout(self.timeout)
                    .connect_timeout(self.connect_timeout)
                    .redirect(redirect::policy())
                    .user_agent(concat!("intent/", env!("CARGO_PKG_VERSION")))
                    .build()
                    .map_err(|e| error_chain(&e.without_url()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Sends `post`, retrying transport faults under the retry policy, and returns the body of the
    /// first successful (2xx) reply, with the rate-limit state its headers reported.
    pub(crate) async fn post(
        &self,
        post: Post<'_>,
    ) -> Result<(Vec<u8>, Option<RateLimitStatus>), ProviderError> {
        self.send_retrying(post, ReadBody).await
    }

    /// Sends `post`, retrying transport faults under the retry policy until `receive` has what it
    /// needs from a successful (2xx) reply.
    async fn send_retrying<R: Receive>(
        &self,
        mut post: Post<'_>,
        receive: R,
    ) -> Result<R::Output, ProviderError> {
        let client = self.http_client(&post)?;
        let parts = Parts {
            method: Method::POST,
            url: &post.url,
            headers: &post.headers,
            content_type: Some(HeaderValue::from_static("application/json")),
            body: Some(Bytes::from(std::mem::take(&mut post.body))),
        };
        self.retrying(client, &parts, &post, receive, self.retry.max_retries)
            .await
    }

    /// The provider's HTTP client, or a configuration error for `post`'s provider.
    fn http_client(&self, post: &Post<'_>) -> Result<&reqwest::Client, ProviderError> {
        self.client().map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::Config,
                post.key
                    .redact(format!("the HTTP client could not be built: {e}")),
            )
            .with_provider(post.provider)
        })
    }

    /// Sends the request made of `parts` with `client`, retrying transport faults up to
    /// `max_retries` times, until `receive` has what it needs from a successful (2xx) reply.
    /// `post` names the provider, the endpoint and the key for messages.
    async fn retrying<R: Receive>(
        &self,
        client: &reqwest::Client,
        parts: &Parts<'_>,
        post: &Post<'_>,
        receive: R,
        max_retries: u32,
    ) -> Result<R::Output, ProviderError> {
        let mut retry = 0u32;
        loop {
            let request = parts.request();
            let outcome = self.exchange(client, request, post, &receive).await;
            let fault = match outcome {
                Ok(received) => return Ok(received),
                Err(fault) => fault,
            };
            let Fault {
                mut error,
                retryable,
                server_delay,
            } = fault;
            let tries = retry + 1;
            if !retryable {
                if tries > 1 {
                    error.message.push_str(&format!(" (after {tries} tries)"));
                }
                return Err(error);
            }
            if retry >= max_retries {
                if max_retries > 0 {
                    let _ = write!(
                        error.message,
                        " (gave up after {tries} tries; max_retries = {max_retries})"
                    );
                }
                return Err(error);
            }
            let delay = match server_delay {
                Some(delay) if delay > self.retry.max_retry_after => {
                    let _ = write!(
                        error.message,
                        " (the server asked to wait {:.1} s before a retry, more than max_retry_after ({:.1} s); not retried)",
                        delay.as_secs_f64(),
                        self.retry.max_retry_after.as_secs_f64()
                    );
                    return Err(error);
                }
                Some(delay) => delay,
                None => self.retry.backoff(retry),
            };
            tracing::warn!(
                provider = post.provider,
                status = error.status,
                kind = ?error.kind,
                retry = retry + 1,
                max_retries,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                error = %error.message,
                "retrying a provider request after a transport fault"
            );
            crate::observe::transport_retry(post.provider, &error, retry + 1, max_retries, delay);
            tokio::time::sleep(delay).await;
            retry += 1;
        }
    }

    /// One request and what `receive` reads from its reply.
    async fn exchange<R: Receive>(
        &self,
        client: &reqwest::Client,
        request: reqwest::Request,
        post: &Post<'_>,
        receive: &R,
    ) -> Result<R::Output, Fault> {
        let response = client
            .execute(request)
            .await
            .map_err(|e| self.transport_fault(e, post, "sending the request to"))?;
        let status = response.status();
        if status.is_success() {
            return receive.receive(self, response, post).await;
        }
        if status.is_redirection() {
            // A redirect the policy did not follow: nothing was sent past it.
            let message = redirect::refusal(status, response.headers(), response.url(), &post.url);
            let error = ProviderError::http(status.as_u16(), post.key.redact(message))
                .with_provider(post.provider);
            return Err(Fault {
                error: ProviderError {
                    kind: ProviderErrorKind::Config,
                    ..error
                },
                retryable: false,
                server_delay: None,
            });
        }
        // Only a failed reply's headers are needed after its body is read (`retry-after`, ...).
        let headers = response.headers().clone();
        let body = self.read_body(response, post).await?;
        Err(status_fault(status, &headers, &body, post))
    }

    async fn read_body(
        &self,
        mut response: reqwest::Response,
        post: &Post<'_>,
    ) -> Result<Vec<u8>, Fault> {
        let limit = self.max_response_bytes;
        let mut body = Vec::with_capacity(
            response
                .content_length()
                .map_or(8 * 1024, |n| usize::try_from(n).unwrap_or(limit).min(limit)),
        );
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > limit {
                        return Err(Fault {
                            error: ProviderError::new(
                                ProviderErrorKind::Decode,
                                format!(
                                    "the reply from {} is larger than max_response_bytes ({limit} bytes); it was not read",
                                    display_url(post.url.as_str())
                                ),
                            )
                            .with_provider(post.provider),
                            retryable: false,
                            server_delay: None,
                        });
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(body),
                Err(e) => return Err(self.transport_fault(e, post, "reading the reply from")),
            }
        }
    }

    fn transport_fault(&self, error: reqwest::Error, post: &Post<'_>, doing: &str) -> Fault {
        let url = display_url(post.url.as_str());
        let is_timeout = error.is_timeout();
        let is_connect = error.is_connect();
        let error = error.without_url();
        let (kind, message) = if is_timeout {
            (
                ProviderErrorKind::Timeout,
                format!(
                    "no complete reply from {url} within the timeout ({:.1} s; set it with with_timeout)",
                    self.timeout.as_secs_f64()
                ),
            )
        } else if is_connect {
            (
                ProviderErrorKind::Connect,
                format!("could not connect to {url}: {}", error_chain(&error)),
            )
        } else {
            (
                ProviderErrorKind::Connect,
                format!(
                    "the connection failed while {doing} {url}: {}",
                    error_chain(&error)
                ),
            )
        };
        Fault {
            error: ProviderError::new(kind, post.key.redact(message)).with_provider(post.provider),
            retryable: true,
            server_delay: None,
        }
    }
}

/// What each try of a request is made of. A try's request is made afresh from them, rather than
/// copied from a template request with `try_clone` (which copies the URL, the headers and the
/// request's extensions into a builder and out again): the URL and headers are copied once per
/// try, the body is shared.
struct Parts<'a> {
    method: Method,
    url: &'a reqwest::Url,
    headers: &'a HeaderMap,
    /// The body's `content-type`, set over `headers`.
    content_type: Option<HeaderValue>,
    body: Option<Bytes>,
}

impl Parts<'_> {
    /// A try's request (the client bounds it by the transport's timeout).
    fn request(&self) -> reqwest::Request {
        let mut request = reqwest::Request::new(self.method.clone(), self.url.clone());
        let headers = request.headers_mut();
        headers.clone_from(self.headers);
        if let Some(content_type) = &self.content_type {
            headers.insert(CONTENT_TYPE, content_type.clone());
        }
        *request.body_mut() = self.body.clone().map(reqwest::Body::from);
        request
    }
}

/// What the retry loop reads from a successful (2xx) reply before it stops retrying: a fault
/// while reading it is retried like a fault while sending.
trait Receive: Sync {
    /// What is read.
    type Output;

    /// Reads it from `response`.
    fn receive<'a>(
        &'a self,
        transport: &'a Transport,
        response: reqwest::Response,
        post: &'a Post<'_>,
    ) -> impl std::future::Future<Output = Result<Self::Output, Fault>> + Send + 'a;
}

/// The whole reply body, up to `max_response_bytes`, and the rate-limit state its headers
/// reported.
struct ReadBody;

impl Receive for ReadBody {
    type Output = (Vec<u8>, Option<RateLimitStatus>);

    async fn receive<'a>(
        &'a self,
        transport: &'a Transport,
        response: reqwest::Response,
        post: &'a Post<'_>,
    ) -> Result<Self::Output, Fault> {
        let rate_limit = RateLimitStatus::from_headers(response.headers());
        Ok((transport.read_body(response, post).await?, rate_limit))
    }
}

/// A failed exchange: the error, and whether and when to retry.
struct Fault {
    error: ProviderError,
    retryable: bool,
    server_delay: Option<Duration>,
}

fn status_fault(status: StatusCode, headers: &HeaderMap, body: &[u8], post: &Post<'_>) -> Fault {
    let code = status.as_u16();
    let parsed = error_body::parse(&post.key.redact_bytes(body));
    let mut kind = ProviderErrorKind::from_status(code);
    if parsed.quota_exhausted && matches!(code, 429 | 402 | 403) {
        kind = ProviderErrorKind::QuotaExhausted;
    }
    // A header's delay wins; a Google error gives its delay in the body instead.
    let server_delay = retry::server_delay(headers).or(parsed.retry_delay);
    let retryable = match retry::should_retry_header(headers) {
        Some(verdict) => verdict && kind != ProviderErrorKind::QuotaExhausted,
        None => kind.is_retryable(),
    };
    let mut message = format!("HTTP {code}");
    if let Some(reason) = &parsed.kind {
        let _ = write!(message, " {reason}");
    }
    let _ = write!(message, ": {}", parsed.message);
    if kind == ProviderErrorKind::QuotaExhausted {
        message.push_str(" (the quota is exhausted; not retried)");
    }
    let error = ProviderError::http(code, post.key.redact(message))
        .with_provider(post.provider)
        .with_retry_after(server_delay);
    Fault {
        error: ProviderError { kind, ..error },
        retryable,
        server_delay,
    }
}

/// An error and its sources, joined by `: `, without the URL reqwest adds.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let next = inner.to_string();
        if !text.contains(&next) {
            let _ = write!(text, ": {next}");
        }
        source = inner.source();
    }
    text
}

/// A URL without user info or query, for messages.
pub(crate) fn display_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.to_string()
        }
        Err(_) => "(an invalid URL)".to_owned(),
    }
}

/// A reply body for an error message: its text with the key redacted, clipped.
pub(crate) fn clip_body(body: &[u8], key: &ApiKey) -> String {
    let body = key.redact_bytes(body);
    let text = String::from_utf8_lossy(&body);
    let text = text.trim();
    if text.is_empty() {
        "(empty body)".to_owned()
    } else {
        error_body::clip(text, error_body::RAW_BODY_LIMIT)
    }
}

/// A provider's own error object, as text for a message: its `message`, else the JSON, clipped.
pub(crate) fn error_text(error: &serde_json::Value) -> String {
    let text = error
        .get("message")
        .and_then(serde_json::Value::as_str)
        .map_or_else(|| error.to_string(), str::to_owned);
    error_body::clip(&text, error_body::RAW_BODY_LIMIT)
}

/// `base` joined with `path`, with exactly one slash between them.
pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// A provider's endpoint and fixed headers, checked and built once, on first use, instead of on
/// every request. A provider's `with_*` settings that change them start a new one.
#[derive(Clone, Default)]
pub(crate) struct Prepared(std::sync::OnceLock<Result<(reqwest::Url, HeaderMap), ProviderError>>);

impl Prepared {
    /// The endpoint and headers, built by `build` the first time.
    pub(crate) fn get(
        &self,
        build: impl FnOnce() -> Result<(reqwest::Url, HeaderMap), ProviderError>,
    ) -> Result<(&reqwest::Url, &HeaderMap), ProviderError> {
        match self.0.get_or_init(build) {
            Ok((url, headers)) => Ok((url, headers)),
            Err(error) => Err(error.clone()),
        }
    }
}

/// Checks that `url` is an absolute http or https URL.
pub(crate) fn check_base_url(url: &str) -> Result<(), String> {
    match reqwest::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => Ok(()),
        Ok(parsed) => Err(format!(
            "the base URL must use http or https, not {}",
            parsed.scheme()
        )),
        Err(e) => Err(format!("the base URL is not a valid URL ({e})")),
    }
}

/// The endpoint `path` under a checked base URL.
pub(crate) fn endpoint_url(base: &str, path: &str) -> Result<reqwest::Url, String> {
    check_base_url(base)?;
    reqwest::Url::parse(&join_url(base, path))
        .map_err(|e| format!("the endpoint URL is not valid ({e})"))
}

/// A provider's JSON body, written into a buffer sized up front for its messages (with room for
/// JSON escapes) and a schema, so it is written without regrowing.
pub(crate) fn json_body(
    body: &impl serde::Serialize,
    messages_len: usize,
    provider: &str,
) -> Result<Vec<u8>, ProviderError> {
    let mut bytes = Vec::with_capacity(messages_len + messages_len / 4 + 4096);
    serde_json::to_writer(&mut bytes, body)
        .map(|()| bytes)
        .map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::Config,
                format!("the request could not be serialized: {e}"),
            )
            .with_provider(provider)
        })
}

impl Transport {
    /// Posts `post` (to an endpoint prepared once, see [`Prepared`], or one built per request,
    /// like Gemini's `models/{model}:generateContent`) and reads the reply
    /// with `parse`, adding the rate-limit state of the reply's headers. Neither the reply nor any error carries the key: a
    /// server echoing it has it redacted here.
    pub(crate) async fn send_json_at(
        &self,
        post: Post<'_>,
        parse: impl FnOnce(&[u8]) -> Result<AiResponse, ProviderError>,
    ) -> Result<AiResponse, ProviderError> {
        let (provider, key) = (post.provider, post.key);
        let (reply, rate_limit) = self.post(post).await?;
        let mut response = parse(&reply).map(|r| r.redact(key)).map_err(|mut e| {
            // A reply echoing the key must not carry it into an error.
            e.message = key.redact(std::mem::take(&mut e.message));
            e.with_provider(provider)
        })?;
        response.rate_limit = rate_limit.map(Box::new);
        Ok(response)
    }
}

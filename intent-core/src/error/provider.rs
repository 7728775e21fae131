//! [`ProviderError`]: a provider call that produced no reply.

use std::time::Duration;

/// What kind of failure a [`ProviderError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProviderErrorKind {
    /// The connection failed or broke.
    Connect,
    /// No reply within the provider's timeout.
    Timeout,
    /// The provider limited the rate (429); retried.
    RateLimited,
    /// The account's quota or spend limit is exhausted; not retried.
    QuotaExhausted,
    /// The provider is overloaded or failed (5xx, 529, 408, 409); retried.
    Server,
    /// The request was refused as invalid (400, 404, 413, 422); not retried.
    InvalidRequest,
    /// The key was refused (401, 403); not retried.
    Auth,
    /// The reply could not be decoded.
    Decode,
    /// A streamed reply broke after it had begun: the connection dropped, the server went silent
    /// past the idle timeout, the stream ended before its end marker (`data: [DONE]`,
    /// `message_stop`) or in the middle of an event, or the server ended it with an error event.
    /// The pieces received are not a reply. Not retried by the transport (the pieces are already
    /// delivered); a new attempt starts the reply again.
    StreamBroken,
    /// The provider is misconfigured.
    Config,
    /// A scripted provider ran out of replies.
    ScriptExhausted,
    /// The client's own rate limit would have held the request past the call's deadline, so it
    /// was never sent (see [`RateLimit`](crate::ratelimit::RateLimit)); not retried.
    RateLimitWait,
}

/// A provider call that produced no reply, after the provider's own transport retries.
///
/// ```
/// use intent_core::provider::{ProviderError, ProviderErrorKind};
///
/// let error = ProviderError::http(400, "Invalid schema for response_format 'intent_output'.");
/// assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
/// assert!(!error.kind.is_retryable());
/// ```
#[derive(Debug, Clone, thiserror::Error)]
#[error("{provider}: {message}")]
#[non_exhaustive]
pub struct ProviderError {
    /// What kind of failure this is.
    pub kind: ProviderErrorKind,
    /// The provider's own message, or what failed.
    pub message: String,
    /// The HTTP status, when one came.
    pub status: Option<u16>,
    /// The provider's name.
    pub provider: String,
    /// The delay the server asked for before a retry.
    pub retry_after: Option<Duration>,
}

impl ProviderErrorKind {
    /// True for faults worth sending the same request again: connection faults, timeouts, rate
    /// limits and server errors.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ProviderErrorKind::Connect
                | ProviderErrorKind::Timeout
                | ProviderErrorKind::RateLimited
                | ProviderErrorKind::Server
        )
    }

    /// The kind of an HTTP error status.
    pub fn from_status(status: u16) -> Self {
        match status {
            401 | 403 => ProviderErrorKind::Auth,
            402 => ProviderErrorKind::QuotaExhausted,
            408 | 409 | 500..=599 => ProviderErrorKind::Server,
            429 => ProviderErrorKind::RateLimited,
            _ => ProviderErrorKind::InvalidRequest,
        }
    }
}

impl ProviderError {
    /// An error of `kind` with a message.
    pub fn new(kind: ProviderErrorKind, message: impl Into<String>) -> Self {
        ProviderError {
            kind,
            message: message.into(),
            status: None,
            provider: String::new(),
            retry_after: None,
        }
    }

    /// An error for an HTTP status, its kind taken from the status.
    pub fn http(status: u16, message: impl Into<String>) -> Self {
        ProviderError {
            status: Some(status),
            ..ProviderError::new(ProviderErrorKind::from_status(status), message)
        }
    }

    /// The same error, naming its provider.
    pub fn with_provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = provider.into();
        self
    }

    /// The same error, with the delay the server asked for.
    pub fn with_retry_after(mut self, delay: Option<Duration>) -> Self {
        self.retry_after = delay;
        self
    }
}

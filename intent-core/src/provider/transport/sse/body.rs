//! Streamed replies on the wire: opening the stream under the retry policy, then reading its
//! events within the provider's limits.
//!
//! - **Retries** happen only before the first byte of the reply body: a refused connection, a
//!   retryable status (429, 5xx, ...) or a connection that closes before the body starts is sent
//!   again, as for a reply read whole. From the first byte on, nothing is retried here: a fault is
//!   [`ProviderErrorKind::StreamBroken`] and the caller decides.
//! - **Timeouts**: the request timeout (`with_timeout`) bounds the whole exchange, from connecting
//!   to the last byte, as for a reply read whole; the wait for the first byte is bounded by it
//!   alone (a reasoning model may think long before it writes). From the first byte on, the idle
//!   timeout (`with_idle_timeout`) bounds the wait for each next event: a comment or an event shows
//!   the server alive, a byte does not, so a server that drips one byte a second is stopped.
//! - **Limits**: the whole body is bounded by `max_response_bytes`, as a reply read whole, and one
//!   event by `max_event_bytes` ([`super`]).
//! - A 2xx reply whose content type is JSON is a server that ignored `stream: true`: its body is
//!   read whole and handed back as [`Opened::Json`] for the provider's ordinary reply parser.
//! - Dropping an [`EventBody`] drops the HTTP response, which closes the connection when the body
//!   was not read to its end: the server sees the request cancelled. A stream read past its last
//!   piece reads the body's end (bounded), so its connection serves the next request.

use std::time::Duration;

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use tokio::time::Instant;

use super::{SseError, SseEvent, SseParser};

/// How a stream's body is framed: server-sent events, or AWS's event-stream frames (a reply
/// whose content type is `application/vnd.amazon.eventstream`).
#[derive(Debug)]
enum Framing {
    Sse(SseParser),
    #[cfg(feature = "bedrock")]
    Aws(super::aws_frames::FrameParser),
}

impl Framing {
    fn of(response: &reqwest::Response, max_event_bytes: usize) -> Framing {
        #[cfg(feature = "bedrock")]
        {
            let aws = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().starts_with("application/vnd.amazon.eventstream"));
            if aws {
                return Framing::Aws(super::aws_frames::FrameParser::new(max_event_bytes));
            }
        }
        let _ = response;
        Framing::Sse(SseParser::new(max_event_bytes))
    }

    fn next_event(&mut self, input: &mut &[u8]) -> Result<Option<SseEvent>, SseError> {
        match self {
            Framing::Sse(parser) => parser.next_event(input),
            #[cfg(feature = "bedrock")]
            Framing::Aws(parser) => parser.next_event(input),
        }
    }

    fn finish(&self) -> Result<(), SseError> {
        match self {
            Framing::Sse(parser) => parser.finish(),
            #[cfg(feature = "bedrock")]
            Framing::Aws(parser) => parser.finish(),
        }
    }

    fn activity(&self) -> u64 {
        match self {
            Framing::Sse(parser) => parser.activity(),
            #[cfg(feature = "bedrock")]
            Framing::Aws(parser) => parser.activity(),
        }
    }

    fn ignored(&self) -> (u64, Option<&str>) {
        match self {
            Framing::Sse(parser) => parser.ignored(),
            #[cfg(feature = "bedrock")]
            Framing::Aws(_) => (0, None),
        }
    }
}
use crate::provider::error::{ProviderError, ProviderErrorKind};
use crate::provider::transport::{
    display_url, error_chain, ApiKey, Fault, Post, Receive, Transport,
};

/// The most bytes read after a stream's last event to reach the end of its body.
const DRAIN_BYTES: usize = 64 * 1024;
/// The longest wait after a stream's last event for the end of its body.
const DRAIN_TIME: Duration = Duration::from_secs(1);

/// A successful reply to a streamed request.
pub(crate) enum Opened {
    /// An event stream, its first bytes read.
    Events(Box<EventBody>),
    /// A whole JSON reply: the server did not stream.
    Json(Vec<u8>),
}

impl Transport {
    /// Sends `post` (a request that asks for a stream), retrying under the retry policy until the
    /// reply's first body byte, and returns the opened stream.
    pub(crate) async fn open(&self, post: Post<'_>) -> Result<Opened, ProviderError> {
        self.send_retrying(post, FirstBytes).await
    }
}

/// The first body bytes of an event stream, or the whole body of a JSON reply.
struct FirstBytes;

impl Receive for FirstBytes {
    type Output = Opened;

    async fn receive(
        &self,
        transport: &Transport,
        mut response: reqwest::Response,
        post: &Post<'_>,
    ) -> Result<Opened, Fault> {
        if is_json(&response) {
            return transport.read_body(response, post).await.map(Opened::Json);
        }
        let first = loop {
            match response.chunk().await {
                Ok(Some(chunk)) if chunk.is_empty() => {}
                Ok(Some(chunk)) => break chunk,
                Ok(None) => break Bytes::new(),
                Err(e) => {
                    return Err(transport.transport_fault(e, post, "reading the stream from"))
                }
            }
        };
        Ok(Opened::Events(Box::new(EventBody::new(
            transport, response, first, post,
        ))))
    }
}

/// True when the reply says its body is JSON (`application/json`, `application/problem+json`).
fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case("application/json")
                || (v.len() > 5 && v[v.len() - 5..].eq_ignore_ascii_case("+json"))
        })
}

/// The events of an opened stream, read within the provider's limits.
pub(crate) struct EventBody {
    /// The reply, until its body ends or the stream is dropped.
    response: Option<reqwest::Response>,
    /// The chunk being read and how far.
    chunk: Bytes,
    offset: usize,
    parser: Framing,
    /// Body bytes read so far.
    read: usize,
    max_response_bytes: usize,
    timeout: Duration,
    idle_timeout: Duration,
    /// When the next event (or comment) must have come.
    idle_deadline: Instant,
    /// The activity count the deadline was last set at.
    activity: u64,
    provider: String,
    url: String,
    key: ApiKey,
}

impl EventBody {
    fn new(
        transport: &Transport,
        response: reqwest::Response,
        first: Bytes,
        post: &Post<'_>,
    ) -> Self {
        let parser = Framing::of(&response, transport.max_event_bytes);
        EventBody {
            response: Some(response),
            read: first.len(),
            chunk: first,
            offset: 0,
            parser,
            max_response_bytes: transport.max_response_bytes,
            timeout: transport.timeout(),
            idle_timeout: transport.idle_timeout,
            idle_deadline: Instant::now() + transport.idle_timeout,
            activity: 0,
            provider: post.provider.to_owned(),
            url: display_url(post.url.as_str()),
            key: post.key.clone(),
        }
    }

    /// The next event; `Ok(None)` when the body ended cleanly between events.
    pub(crate) async fn next_event(&mut self) -> Result<Option<SseEvent>, ProviderError> {
        loop {
            let mut input = &self.chunk[self.offset..];
            let before = input.len();
            let parsed = self.parser.next_event(&mut input);
            self.offset += before - input.len();
            if self.parser.activity() != self.activity {
                self.activity = self.parser.activity();
                self.idle_deadline = Instant::now() + self.idle_timeout;
            }
            match parsed {
                Ok(Some(event)) => return Ok(Some(event)),
                Ok(None) => {}
                Err(error) => return Err(self.sse_error(&error)),
            }
            let Some(response) = self.response.as_mut() else {
                return Ok(None);
            };
            let chunk = match tokio::time::timeout_at(self.idle_deadline, response.chunk()).await {
                Ok(Ok(Some(chunk))) => chunk,
                Ok(Ok(None)) => {
                    self.response = None;
                    return match self.parser.finish() {
                        Ok(()) => Ok(None),
                        Err(error) => Err(self.sse_error(&error)),
                    };
                }
                Ok(Err(error)) => return Err(self.read_fault(error)),
                Err(_) => {
                    return Err(self.broken(format!(
                        "no event for {:.1} s (the idle timeout; set it with with_idle_timeout)",
                        self.idle_timeout.as_secs_f64()
                    )))
                }
            };
            self.read += chunk.len();
            if self.read > self.max_response_bytes {
                return Err(self.error(
                    ProviderErrorKind::Decode,
                    format!(
                        "is larger than max_response_bytes ({} bytes); the rest was not read",
                        self.max_response_bytes
                    ),
                ));
            }
            self.chunk = chunk;
            self.offset = 0;
        }
    }

    /// Ends the stream after its last event: reads the body to its end, so the connection can
    /// serve the next request, then drops the reply. Bounded: a body that goes on for more than
    /// [`DRAIN_BYTES`] or [`DRAIN_TIME`] is dropped with its connection.
    pub(crate) async fn drain(&mut self) {
        let Some(mut response) = self.response.take() else {
            return;
        };
        let _ = tokio::time::timeout(DRAIN_TIME, async move {
            let mut left = DRAIN_BYTES;
            while let Ok(Some(chunk)) = response.chunk().await {
                left = match left.checked_sub(chunk.len()) {
                    Some(left) => left,
                    None => return,
                };
            }
        })
        .await;
    }

    /// The key, to redact from what the stream carries.
    pub(crate) fn key(&self) -> &ApiKey {
        &self.key
    }

    /// Drops the reply at once, closing its connection (after an error).
    pub(crate) fn release_now(&mut self) {
        self.response = None;
    }

    /// A decoder's error about one of this stream's events, naming the stream.
    pub(crate) fn error_from(&self, error: ProviderError) -> ProviderError {
        match error.kind {
            ProviderErrorKind::StreamBroken => self.broken(error.message),
            kind => self.error(kind, error.message),
        }
    }

    /// An error about this stream, naming its provider, without the key.
    pub(crate) fn error(&self, kind: ProviderErrorKind, what: String) -> ProviderError {
        let message = format!("the stream from {} {what}", self.url);
        ProviderError::new(kind, self.key.redact(message)).with_provider(&self.provider)
    }

    /// A [`ProviderErrorKind::StreamBroken`] error, with how far the stream got.
    pub(crate) fn broken(&self, what: String) -> ProviderError {
        let mut what = format!("broke after {} bytes: {what}", self.read);
        let (ignored, first) = self.parser.ignored();
        if let Some(first) = first {
            let lines = if ignored == 1 {
                "1 line was".to_owned()
            } else {
                format!("{ignored} lines were")
            };
            what.push_str(&format!(
                " ({lines} not an event-stream field; the first: {first:?})"
            ));
        }
        self.error(ProviderErrorKind::StreamBroken, what)
    }

    fn sse_error(&self, error: &SseError) -> ProviderError {
        match error {
            SseError::TooLarge { limit } => self.error(
                ProviderErrorKind::Decode,
                format!(
                    "sent an event larger than max_event_bytes ({limit} bytes; set it with with_max_event_bytes); the rest was not read"
                ),
            ),
            SseError::NotUtf8 { .. } => self.error(ProviderErrorKind::Decode, format!("is not an event stream: {error}")),
            SseError::Unfinished { .. } => self.broken(error.to_string()),
            #[cfg(feature = "bedrock")]
            SseError::BadFrame { .. } => self.broken(error.to_string()),
        }
    }

    fn read_fault(&self, error: reqwest::Error) -> ProviderError {
        if error.is_timeout() {
            self.broken(format!(
                "it did not end within the timeout ({:.1} s; set it with with_timeout)",
                self.timeout.as_secs_f64()
            ))
        } else {
            self.broken(format!(
                "the connection failed: {}",
                error_chain(&error.without_url())
            ))
        }
    }
}

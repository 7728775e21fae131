//! Seeing every step of a call: [`Observer`] events, and `tracing` spans that follow the
//! OpenTelemetry GenAI semantic conventions.
//!
//! # Observers
//!
//! An [`Observer`] added with
//! [`IntentClientBuilder::observer`](crate::IntentClientBuilder::observer) is told of each step of
//! every call the client makes, one method per event, each with a do-nothing default:
//!
//! | method | when |
//! |---|---|
//! | [`request_sent`](Observer::request_sent) | a request is about to go to a provider |
//! | [`reply_received`](Observer::reply_received) | a provider's reply arrived |
//! | [`attempt_failed`](Observer::attempt_failed) | an attempt ended without a value, with its issues |
//! | [`transport_retry`](Observer::transport_retry) | a transport fault; the same request is sent again |
//! | [`cache_hit`](Observer::cache_hit) | a first attempt was answered from the cache |
//! | [`fallback_taken`](Observer::fallback_taken) | a provider failed; the next one is asked |
//! | [`judge_verdict`](Observer::judge_verdict) | the judge decided about an answer |
//! | [`chunk_finished`](Observer::chunk_finished) | a chunk of a collection call ended |
//!
//! Each event says where it happened ([`Origin`]: the call's [`CallId`], the chunk, the attempt,
//! the result type) and carries what a dashboard needs: providers, models, tokens, latencies,
//! finish reasons, issues. None carries a secret: no API key, no input, no intent, no prompt text
//! (only its length). The intent is not even hashed: a short intent's hash is as good as its text
//! to anyone who can guess it; group calls by their [`Origin::target`] instead.
//!
//! Observers never slow or fail a call: they are called in the order they were added, inline and
//! synchronously (so keep them quick: count, or send the event down a channel), and a panicking
//! observer is caught, logged once as an error event, and called again for later events. (The
//! process's panic hook still runs for each panic, as for any caught panic; a program built with
//! `panic = "abort"` cannot catch one.)
//!
//! ```
//! use std::sync::atomic::{AtomicU64, Ordering};
//! use std::sync::Arc;
//! use intent_core::prelude::*;
//! use intent_core::observe::{ReplyReceived, AttemptFailed};
//!
//! #[derive(Default)]
//! struct Tokens(AtomicU64, AtomicU64);
//!
//! impl Observer for Tokens {
//!     fn reply_received(&self, event: &ReplyReceived<'_>) {
//!         self.0.fetch_add(event.usage.output_tokens, Ordering::Relaxed);
//!     }
//!     fn attempt_failed(&self, event: &AttemptFailed<'_>) {
//!         self.1.fetch_add(1, Ordering::Relaxed);
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let tokens = Arc::new(Tokens::default());
//! let client = IntentClient::builder()
//!     .provider(ScriptedProvider::new(["not a number", r#"{"value": 3}"#]))
//!     .observer(tokens.clone())
//!     .build()
//!     .unwrap();
//! let words = u32::ai(&client, "one two three", "Count the words.").await;
//! assert_eq!(words.value(), Some(&3));
//! assert_eq!(tokens.1.load(Ordering::Relaxed), 1); // the first reply was not a number
//! // (an `Arc` of an observer observes as the observer: keep one to read what it saw)
//! # });
//! ```
//!
//! # Spans
//!
//! Every call is traced with [`tracing`](https://docs.rs/tracing) spans, at INFO level:
//!
//! | span | around | the library's own fields |
//! |---|---|---|
//! | `intent.call` | a call, every attempt | `intent.call_id`, `target`, `attempts`, `input_tokens`, `output_tokens`, `outcome`, `latency_ms` |
//! | `intent.attempt` | one attempt: cache or provider, checks, judge | `attempt`, `provider`, `model`, `from_cache`, `input_tokens`, `output_tokens`, `outcome`, `latency_ms` |
//! | `intent.judge` | the judge's call | `verdict`, `latency_ms` |
//! | `intent.collection` | a whole collection call | `intent.call_id`, `target`, `elements`, `chunks`, `failed`, `outcome`, `latency_ms` |
//! | `intent.chunk` | one chunk of a collection call | `chunk`, `elements` |
//!
//! Beside those, the call, attempt, judge and collection spans carry the attributes of the
//! [OpenTelemetry GenAI semantic conventions](https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/)
//! (status "Development"), so an OpenTelemetry layer (`tracing-opentelemetry`) exports them as a
//! GenAI backend expects: `gen_ai.operation.name` (`chat`), `gen_ai.provider.name` (`openai`,
//! `anthropic`, `gcp.gemini`, or the provider's own name), `gen_ai.request.model`,
//! `gen_ai.response.model`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens` and
//! `gen_ai.response.finish_reasons` (a `tracing` field holds no array: it is the array's JSON
//! text, `["stop"]`). On a call or a collection they describe its last answer and its whole usage.
//! A field is empty until it is known (`from_cache` is recorded once, when the answer came).
//!
//! Each finished call also logs one INFO event, `intent call finished` (and each collection call
//! `intent collection finished`), with its outcome, attempts, tokens and latency, so a plain
//! `tracing_subscriber::fmt::init()` shows every call on one line. Transport retries and
//! fallbacks are WARN events.
//!
//! Nothing this library logs, at any level, holds the input, the intent, the prompt or a key.

mod dispatch;
mod events;
mod hooks;
pub(crate) mod spans;

pub use events::{
    AttemptFailed, CacheHit, CallId, ChunkFinished, FallbackTaken, JudgeOutcome, JudgeVerdict,
    Origin, ReplyReceived, RequestSent, ToolCalled, TransportRetry,
};
pub use spans::FIELDS;

pub(crate) use dispatch::{attempt_started, in_call, in_chunk, next_call_id, Observers};
pub(crate) use hooks::*;

/// Told of each step of every call of a client: one method per event, each doing nothing unless
/// overridden. Added with [`IntentClientBuilder::observer`](crate::IntentClientBuilder::observer);
/// see the [module docs](self) for the events and what an observer must not do.
///
/// ```
/// use intent_core::prelude::*;
/// use intent_core::observe::CacheHit;
///
/// struct LogHits;
///
/// impl Observer for LogHits {
///     fn cache_hit(&self, event: &CacheHit<'_>) {
///         eprintln!("{} answered from the cache ({})", event.origin.call, event.model);
///     }
/// }
///
/// let client = IntentClient::builder()
///     .provider(ScriptedProvider::new(["{\"value\": 1}"]))
///     .observer(LogHits)
///     .build()
///     .unwrap();
/// # let _ = client;
/// ```
pub trait Observer: Send + Sync + 'static {
    /// A request is about to be sent to a provider.
    fn request_sent(&self, _event: &RequestSent<'_>) {}

    /// A provider's reply arrived.
    fn reply_received(&self, _event: &ReplyReceived<'_>) {}

    /// An attempt ended without a value.
    fn attempt_failed(&self, _event: &AttemptFailed<'_>) {}

    /// A transport fault: the same request is sent again after a delay.
    fn transport_retry(&self, _event: &TransportRetry<'_>) {}

    /// A first attempt was answered from the cache.
    fn cache_hit(&self, _event: &CacheHit<'_>) {}

    /// A provider failed and the next one is asked.
    fn fallback_taken(&self, _event: &FallbackTaken<'_>) {}

    /// The judge decided about an answer.
    fn judge_verdict(&self, _event: &JudgeVerdict<'_>) {}

    /// A chunk of a collection call ended.
    fn chunk_finished(&self, _event: &ChunkFinished) {}

    /// A tool the model called was run (or refused), and its result went back to the model.
    fn tool_called(&self, _event: &ToolCalled<'_>) {}
}

/// An observer shared with the rest of the program observes as itself.
impl<O: Observer + ?Sized> Observer for std::sync::Arc<O> {
    fn request_sent(&self, event: &RequestSent<'_>) {
        (**self).request_sent(event);
    }
    fn reply_received(&self, event: &ReplyReceived<'_>) {
        (**self).reply_received(event);
    }
    fn attempt_failed(&self, event: &AttemptFailed<'_>) {
        (**self).attempt_failed(event);
    }
    fn transport_retry(&self, event: &TransportRetry<'_>) {
        (**self).transport_retry(event);
    }
    fn cache_hit(&self, event: &CacheHit<'_>) {
        (**self).cache_hit(event);
    }
    fn fallback_taken(&self, event: &FallbackTaken<'_>) {
        (**self).fallback_taken(event);
    }
    fn judge_verdict(&self, event: &JudgeVerdict<'_>) {
        (**self).judge_verdict(event);
    }
    fn chunk_finished(&self, event: &ChunkFinished) {
        (**self).chunk_finished(event);
    }
    fn tool_called(&self, event: &ToolCalled<'_>) {
        (**self).tool_called(event);
    }
}

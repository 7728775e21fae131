//! The events an [`Observer`](super::Observer) receives, one type per event.
//!
//! Every event borrows what it reports (nothing is copied for an observer that ignores it) and
//! says where it happened with an [`Origin`]. None carries a secret: no API key, no input, no
//! intent text, no prompt. What a model wrote reaches an observer only through the issues of a
//! failed attempt, whose messages may quote the reply.

use std::fmt;
use std::time::Duration;

use crate::error::{ProviderError, ProviderErrorKind};
use crate::result::{FinishReason, ResultIssue, Usage};

/// Identifies one call (or one collection call) among all the calls of a process, so that a
/// dashboard can group the events of a call. Numbered from 1 in the order calls start.
///
/// ```
/// use intent_core::observe::CallId;
///
/// assert_eq!(CallId::new(7).get(), 7);
/// assert_eq!(CallId::new(7).to_string(), "call-7");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallId(u64);

impl CallId {
    /// The id with this number (for tests and for ids read back from a store).
    pub const fn new(number: u64) -> Self {
        CallId(number)
    }

    /// The id's number.
    pub const fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "call-{}", self.0)
    }
}

/// Where an event happened: which call, which chunk of a collection call, which attempt.
///
/// ```
/// use intent_core::observe::{CallId, Origin};
///
/// let origin = Origin::new(CallId::new(1), "u32");
/// assert_eq!(origin.attempt, 0);
/// assert_eq!(origin.chunk, None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Origin {
    /// The call (for a chunk, the collection call it belongs to).
    pub call: CallId,
    /// The chunk of a collection call, numbered from 1; `None` for a single call.
    pub chunk: Option<usize>,
    /// The attempt, numbered from 1; 0 before the first attempt starts.
    pub attempt: u32,
    /// The Rust type the call returns (for a collection, the element's), as
    /// [`std::any::type_name`] writes it.
    pub target: &'static str,
}

impl Origin {
    /// The origin of a call before its first attempt.
    pub const fn new(call: CallId, target: &'static str) -> Self {
        Origin {
            call,
            chunk: None,
            attempt: 0,
            target,
        }
    }
}

/// A request is about to be sent to a provider (once per attempt that is not served from the
/// cache; a fallback is reported by [`FallbackTaken`]).
///
/// ```
/// use intent_core::observe::{CallId, Origin, RequestSent};
/// use intent_core::ResponseFormat;
///
/// let event = RequestSent::new(Origin::new(CallId::new(1), "u32"), "openai", "gpt-4o-mini", ResponseFormat::JsonSchema);
/// assert_eq!(event.provider, "openai");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestSent<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The provider asked first (the named one, or the primary).
    pub provider: &'a str,
    /// The model asked for: the call's, else the provider's default; empty when neither is known.
    pub model: &'a str,
    /// How the reply is asked to be formatted.
    pub format: crate::request::ResponseFormat,
    /// The request's output token limit, when it has one.
    pub max_output_tokens: Option<u32>,
    /// The prompt's length in characters (system and user message together): its size, not its
    /// text.
    pub prompt_chars: usize,
}

impl<'a> RequestSent<'a> {
    /// An event with no token limit and an empty prompt.
    pub fn new(
        origin: Origin,
        provider: &'a str,
        model: &'a str,
        format: crate::request::ResponseFormat,
    ) -> Self {
        RequestSent {
            origin,
            provider,
            model,
            format,
            max_output_tokens: None,
            prompt_chars: 0,
        }
    }
}

/// A provider's reply arrived (not a cached one: see [`CacheHit`]).
///
/// ```
/// use std::time::Duration;
/// use intent_core::observe::{CallId, Origin, ReplyReceived};
/// use intent_core::provider::FinishReason;
/// use intent_core::Usage;
///
/// let event = ReplyReceived::new(Origin::new(CallId::new(1), "u32"), "openai", "gpt-4o-mini",
///     &FinishReason::Stop, Usage::default(), Duration::from_millis(420));
/// assert_eq!(event.latency.as_millis(), 420);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReplyReceived<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The provider that answered (a fallback, when the ones before it failed).
    pub provider: &'a str,
    /// The model that answered, as the provider reported it.
    pub model: &'a str,
    /// How the reply ended.
    pub finish_reason: &'a FinishReason,
    /// The reply's tokens.
    pub usage: Usage,
    /// From sending the request to the whole reply, transport retries and fallbacks included.
    pub latency: Duration,
    /// The reply's length in characters.
    pub output_chars: usize,
}

impl<'a> ReplyReceived<'a> {
    /// An event for an empty reply.
    pub fn new(
        origin: Origin,
        provider: &'a str,
        model: &'a str,
        finish_reason: &'a FinishReason,
        usage: Usage,
        latency: Duration,
    ) -> Self {
        ReplyReceived {
            origin,
            provider,
            model,
            finish_reason,
            usage,
            latency,
            output_chars: 0,
        }
    }
}

/// An attempt ended without a value: its reply did not pass, its provider failed, or a limit
/// stopped it. The next attempt, if any, is sent these issues.
///
/// ```
/// use intent_core::observe::{AttemptFailed, CallId, Origin};
/// use intent_core::{IssueKind, ResultIssue};
///
/// let issues = [ResultIssue::new(IssueKind::Parse, "Return JSON only.")];
/// let event = AttemptFailed::new(Origin::new(CallId::new(1), "u32"), "openai", "gpt-4o-mini", &issues);
/// assert_eq!(event.issues.len(), 1);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AttemptFailed<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The provider that answered, or the one that failed; empty when none was reached.
    pub provider: &'a str,
    /// The model that answered; empty when none did.
    pub model: &'a str,
    /// Every finding, each with the message sent to the model and, where it applies, its path.
    /// A message may quote the model's reply.
    pub issues: &'a [ResultIssue],
    /// The attempt's tokens (the judge's included).
    pub usage: Usage,
    /// How long the attempt took.
    pub latency: Duration,
}

impl<'a> AttemptFailed<'a> {
    /// An event that used nothing and took no time.
    pub fn new(
        origin: Origin,
        provider: &'a str,
        model: &'a str,
        issues: &'a [ResultIssue],
    ) -> Self {
        AttemptFailed {
            origin,
            provider,
            model,
            issues,
            usage: Usage::default(),
            latency: Duration::ZERO,
        }
    }
}

/// A provider request met a transport fault (a timeout, a dropped connection, 408, 409, 429,
/// 5xx, 529) and is sent again after `delay`. A transport retry is not an attempt.
///
/// ```
/// use std::time::Duration;
/// use intent_core::observe::{CallId, Origin, TransportRetry};
/// use intent_core::provider::ProviderErrorKind;
///
/// let event = TransportRetry::new(Origin::new(CallId::new(1), "u32"), "openai",
///     ProviderErrorKind::RateLimited, 1, Duration::from_secs(2));
/// assert_eq!(event.retry, 1);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TransportRetry<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The provider whose request failed.
    pub provider: &'a str,
    /// What kind of fault it was.
    pub kind: ProviderErrorKind,
    /// The HTTP status, when one came.
    pub status: Option<u16>,
    /// Which retry this is, from 1.
    pub retry: u32,
    /// The provider's retry limit.
    pub max_retries: u32,
    /// How long the request waits before it is sent again (the server's `retry-after`, or the
    /// backoff).
    pub delay: Duration,
    /// The fault's message, with any key redacted.
    pub message: &'a str,
}

impl<'a> TransportRetry<'a> {
    /// An event with no status, no retry limit and no message.
    pub fn new(
        origin: Origin,
        provider: &'a str,
        kind: ProviderErrorKind,
        retry: u32,
        delay: Duration,
    ) -> Self {
        TransportRetry {
            origin,
            provider,
            kind,
            status: None,
            retry,
            max_retries: 0,
            delay,
            message: "",
        }
    }
}

/// A first attempt was answered from the client's cache; nothing was sent.
///
/// ```
/// use intent_core::observe::{CacheHit, CallId, Origin};
///
/// let event = CacheHit::new(Origin::new(CallId::new(1), "u32"), "openai", "gpt-4o-mini");
/// assert_eq!(event.model, "gpt-4o-mini");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CacheHit<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The provider that first gave the cached reply.
    pub provider: &'a str,
    /// The model that first gave it.
    pub model: &'a str,
}

impl<'a> CacheHit<'a> {
    /// The event of a hit on a reply from `provider` and `model`.
    pub fn new(origin: Origin, provider: &'a str, model: &'a str) -> Self {
        CacheHit {
            origin,
            provider,
            model,
        }
    }
}

/// A provider failed and the next one is asked.
///
/// ```
/// use intent_core::observe::{CallId, FallbackTaken, Origin};
/// use intent_core::provider::{ProviderError, ProviderErrorKind};
///
/// let error = ProviderError::new(ProviderErrorKind::Server, "overloaded");
/// let event = FallbackTaken::new(Origin::new(CallId::new(1), "u32"), "openai", "anthropic", &error);
/// assert_eq!(event.to, "anthropic");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FallbackTaken<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The provider that failed.
    pub from: &'a str,
    /// The provider asked next.
    pub to: &'a str,
    /// Why `from` failed (its message has any key redacted).
    pub error: &'a ProviderError,
}

impl<'a> FallbackTaken<'a> {
    /// The event of `from` failing with `error`, and `to` asked next.
    pub fn new(origin: Origin, from: &'a str, to: &'a str, error: &'a ProviderError) -> Self {
        FallbackTaken {
            origin,
            from,
            to,
            error,
        }
    }
}

/// What the judge decided about an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JudgeOutcome<'a> {
    /// The answer carries out the intent.
    Passed,
    /// It does not; the judge's problems (possibly none), sent back to the model.
    Failed(&'a [String]),
    /// The judge could not decide (its reply was unreadable, or its provider failed): why.
    Broken(&'a str),
}

/// The judge gave its verdict on an attempt's answer.
///
/// ```
/// use std::time::Duration;
/// use intent_core::observe::{CallId, JudgeOutcome, JudgeVerdict, Origin};
/// use intent_core::Usage;
///
/// let event = JudgeVerdict::new(Origin::new(CallId::new(1), "u32"), JudgeOutcome::Passed,
///     Usage::default(), Duration::from_millis(300));
/// assert_eq!(event.outcome, JudgeOutcome::Passed);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct JudgeVerdict<'a> {
    /// Where it happened (the attempt whose answer was judged).
    pub origin: Origin,
    /// The judge's provider; empty when it failed before answering.
    pub provider: &'a str,
    /// The judge's model, as its provider reported it; empty when none answered.
    pub model: &'a str,
    /// The verdict.
    pub outcome: JudgeOutcome<'a>,
    /// The judge call's tokens.
    pub usage: Usage,
    /// How long the judge took.
    pub latency: Duration,
}

impl<'a> JudgeVerdict<'a> {
    /// A verdict from an unknown provider and model.
    pub fn new(origin: Origin, outcome: JudgeOutcome<'a>, usage: Usage, latency: Duration) -> Self {
        JudgeVerdict {
            origin,
            provider: "",
            model: "",
            outcome,
            usage,
            latency,
        }
    }
}

/// A chunk of a collection call ended, with or without a value for each of its elements.
///
/// ```
/// use std::time::Duration;
/// use intent_core::observe::{CallId, ChunkFinished, Origin};
/// use intent_core::Usage;
///
/// let event = ChunkFinished::new(Origin::new(CallId::new(1), "u32"), 20, 1, Usage::default(), Duration::from_secs(3));
/// assert_eq!(event.elements, 20);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChunkFinished {
    /// Where it happened: the collection call and the chunk (`attempt` is the chunk's last).
    pub origin: Origin,
    /// How many elements the chunk had.
    pub elements: usize,
    /// How many of them have no value.
    pub failed: usize,
    /// How many attempts the chunk made.
    pub attempts: usize,
    /// The chunk's tokens.
    pub usage: Usage,
    /// How long the chunk took.
    pub latency: Duration,
}

impl ChunkFinished {
    /// The event of a chunk of `elements` elements, `failed` of them with no value.
    pub fn new(
        origin: Origin,
        elements: usize,
        attempts: usize,
        usage: Usage,
        latency: Duration,
    ) -> Self {
        ChunkFinished {
            origin,
            elements,
            failed: 0,
            attempts,
            usage,
            latency,
        }
    }
}

/// A tool the model called was run, or refused (arguments that did not read, an unknown tool),
/// and its result went back to the model.
///
/// ```
/// use intent_core::observe::{CallId, Origin, ToolCalled};
/// use intent_core::tool::ToolCallRecord;
///
/// let record = ToolCallRecord::new("lookup_order", serde_json::json!({"order_id": "A17"}));
/// let event = ToolCalled::new(Origin::new(CallId::new(1), "u32"), &record);
/// assert_eq!(event.record.name, "lookup_order");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolCalled<'a> {
    /// Where it happened.
    pub origin: Origin,
    /// The call: the tool's name, its arguments, what went back and how long it took.
    pub record: &'a crate::toolbox::ToolCallRecord,
}

impl<'a> ToolCalled<'a> {
    /// The event of the tool call `record`.
    pub fn new(origin: Origin, record: &'a crate::toolbox::ToolCallRecord) -> Self {
        ToolCalled { origin, record }
    }
}

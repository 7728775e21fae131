//! The one-line hooks the rest of the crate calls at each step: each builds its event only when
//! the running call has observers.

use std::time::Duration;

use super::dispatch::emit;
use super::events::{
    AttemptFailed, CacheHit, ChunkFinished, FallbackTaken, JudgeOutcome, JudgeVerdict,
    ReplyReceived, RequestSent, ToolCalled, TransportRetry,
};
use crate::error::ProviderError;
use crate::request::AiRequest;
use crate::result::{AttemptRecord, FinishReason, Usage};

/// `request` is about to go to `provider`, for `model`.
pub(crate) fn request_sent(provider: &str, model: &str, request: &AiRequest) {
    emit(
        "request_sent",
        |origin| RequestSent {
            origin,
            provider,
            model,
            format: request.format,
            max_output_tokens: request.max_output_tokens,
            prompt_chars: request.system.chars().count() + request.user.chars().count(),
        },
        |observer, event| observer.request_sent(event),
    );
}

/// `provider` answered, with `model`, `text` ending for `finish_reason`, after `latency`.
pub(crate) fn reply_received(
    provider: &str,
    model: &str,
    text: &str,
    finish_reason: &FinishReason,
    usage: Usage,
    latency: Duration,
) {
    emit(
        "reply_received",
        |origin| ReplyReceived {
            output_chars: text.chars().count(),
            ..ReplyReceived::new(origin, provider, model, finish_reason, usage, latency)
        },
        |observer, event| observer.reply_received(event),
    );
}

/// The attempt `record` ended without a value.
pub(crate) fn attempt_failed(record: &AttemptRecord) {
    emit(
        "attempt_failed",
        |origin| AttemptFailed {
            origin,
            provider: &record.provider,
            model: &record.model,
            issues: &record.issues,
            usage: record.usage,
            latency: record.latency,
        },
        |observer, event| observer.attempt_failed(event),
    );
}

/// `provider`'s request failed with `error` and is sent again after `delay`, as retry `retry`
/// of at most `max_retries`.
pub(crate) fn transport_retry(
    provider: &str,
    error: &ProviderError,
    retry: u32,
    max_retries: u32,
    delay: Duration,
) {
    emit(
        "transport_retry",
        |origin| TransportRetry {
            origin,
            provider,
            kind: error.kind,
            status: error.status,
            retry,
            max_retries,
            delay,
            message: &error.message,
        },
        |observer, event| observer.transport_retry(event),
    );
}

/// A first attempt was answered from the cache with a reply `provider` and `model` gave.
pub(crate) fn cache_hit(provider: &str, model: &str) {
    emit(
        "cache_hit",
        |origin| CacheHit {
            origin,
            provider,
            model,
        },
        |observer, event| observer.cache_hit(event),
    );
}

/// `from` failed with `error`; `to` is asked next.
pub(crate) fn fallback_taken(from: &str, to: &str, error: &ProviderError) {
    emit(
        "fallback_taken",
        |origin| FallbackTaken {
            origin,
            from,
            to,
            error,
        },
        |observer, event| observer.fallback_taken(event),
    );
}

/// The judge decided `outcome`; `answered` is who answered (provider, model, how the reply
/// ended), `None` when its provider failed. Recorded on the current span (the judge's) too.
pub(crate) fn judged(
    answered: Option<(&str, &str, &FinishReason)>,
    outcome: JudgeOutcome<'_>,
    usage: Usage,
    latency: Duration,
) {
    let (provider, model) = answered.map_or(("", ""), |(provider, model, _)| (provider, model));
    super::spans::record_judged(answered, outcome, usage, latency);
    emit(
        "judge_verdict",
        |origin| JudgeVerdict {
            origin,
            provider,
            model,
            outcome,
            usage,
            latency,
        },
        |observer, event| observer.judge_verdict(event),
    );
}

/// A chunk of `elements` elements ended after `attempts` attempts, `failed` of its elements
/// with no value.
pub(crate) fn chunk_finished(
    elements: usize,
    failed: usize,
    attempts: usize,
    usage: Usage,
    latency: Duration,
) {
    emit(
        "chunk_finished",
        |origin| ChunkFinished {
            origin,
            elements,
            failed,
            attempts,
            usage,
            latency,
        },
        |observer, event| observer.chunk_finished(event),
    );
}

/// The tool call `record` was run (or refused) and its result went back.
pub(crate) fn tool_called(record: &crate::toolbox::ToolCallRecord) {
    emit(
        "tool_called",
        |origin| ToolCalled { origin, record },
        |observer, event| observer.tool_called(event),
    );
}

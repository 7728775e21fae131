//! The spans of a call, an attempt, the judge, a collection call and its chunks, and the one
//! INFO event per finished call.
//!
//! `tracing` needs a span's field names written out where the span is made; [`FIELDS`] lists
//! each name once, the code that records a value names it from there, and a test checks that
//! every span declares the names it is recorded with.

use std::time::{Duration, Instant};

use tracing::{field, Span};

use super::events::{CallId, JudgeOutcome};
use crate::result::{AiResult, AttemptRecord, FinishReason, Usage};

/// `gen_ai.operation.name`: what kind of GenAI operation the span is (`chat`).
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.provider.name`: the provider (`openai`, `anthropic`, `gcp.gemini`, or its own name).
pub const GEN_AI_PROVIDER_NAME: &str = "gen_ai.provider.name";
/// `gen_ai.request.model`: the model asked for.
pub const GEN_AI_REQUEST_MODEL: &str = "gen_ai.request.model";
/// `gen_ai.response.model`: the model that answered.
pub const GEN_AI_RESPONSE_MODEL: &str = "gen_ai.response.model";
/// `gen_ai.usage.input_tokens`: the prompt's tokens.
pub const GEN_AI_USAGE_INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
/// `gen_ai.usage.output_tokens`: the reply's tokens.
pub const GEN_AI_USAGE_OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
/// `gen_ai.response.finish_reasons`: how the reply ended, as a JSON array's text.
pub const GEN_AI_RESPONSE_FINISH_REASONS: &str = "gen_ai.response.finish_reasons";
/// `intent.call_id`: the call's [`CallId`] number, as the observers' events give it.
pub const CALL_ID: &str = "intent.call_id";
/// `target`: the Rust type a call returns.
pub const TARGET: &str = "target";
/// `attempt`: an attempt's number, from 1.
pub const ATTEMPT: &str = "attempt";
/// `attempts`: how many attempts a call made.
pub const ATTEMPTS: &str = "attempts";
/// `provider`: the name of the provider that answered an attempt, as configured.
pub const PROVIDER: &str = "provider";
/// `model`: the model that answered an attempt.
pub const MODEL: &str = "model";
/// `input_tokens`: the prompt's tokens (a call's: every model call's).
pub const INPUT_TOKENS: &str = "input_tokens";
/// `output_tokens`: the reply's tokens (a call's: every model call's).
pub const OUTPUT_TOKENS: &str = "output_tokens";
/// `from_cache`: whether an attempt's answer came from the cache.
pub const FROM_CACHE: &str = "from_cache";
/// `outcome`: how a call, attempt or collection ended.
pub const OUTCOME: &str = "outcome";
/// `latency_ms`: how long it took, in milliseconds.
pub const LATENCY_MS: &str = "latency_ms";
/// `verdict`: the judge's verdict (`pass`, `fail`, `broken`).
pub const VERDICT: &str = "verdict";
/// `elements`: how many elements a collection call or chunk had.
pub const ELEMENTS: &str = "elements";
/// `chunks`: how many chunks a collection call ran.
pub const CHUNKS: &str = "chunks";
/// `chunk`: a chunk's number, from 1.
pub const CHUNK: &str = "chunk";
/// `failed`: how many elements of a collection call have no value.
pub const FAILED: &str = "failed";
/// `gen_ai.tool.name`: the tool an `intent.tool` span ran.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.tool.call.id`: the vendor's id of the tool call.
pub const GEN_AI_TOOL_CALL_ID: &str = "gen_ai.tool.call.id";

/// Every field name of the library's spans, each with the spans that carry it: one table, for
/// the docs and for the test that keeps the spans and it in step.
///
/// ```
/// use intent_core::observe::FIELDS;
///
/// let (_, spans) = FIELDS.iter().find(|(name, _)| *name == "gen_ai.usage.input_tokens").unwrap();
/// assert!(spans.contains(&"intent.judge"));
/// ```
pub const FIELDS: &[(&str, &[&str])] = &[
    (
        GEN_AI_OPERATION_NAME,
        &[
            CALL_SPAN,
            ATTEMPT_SPAN,
            JUDGE_SPAN,
            COLLECTION_SPAN,
            TOOL_SPAN,
        ],
    ),
    (GEN_AI_TOOL_NAME, &[TOOL_SPAN]),
    (GEN_AI_TOOL_CALL_ID, &[TOOL_SPAN]),
    (GEN_AI_PROVIDER_NAME, GEN_AI_SPANS),
    (GEN_AI_REQUEST_MODEL, GEN_AI_SPANS),
    (GEN_AI_RESPONSE_MODEL, GEN_AI_SPANS),
    (GEN_AI_USAGE_INPUT_TOKENS, GEN_AI_SPANS),
    (GEN_AI_USAGE_OUTPUT_TOKENS, GEN_AI_SPANS),
    (GEN_AI_RESPONSE_FINISH_REASONS, GEN_AI_SPANS),
    (CALL_ID, &[CALL_SPAN, COLLECTION_SPAN]),
    (TARGET, &[CALL_SPAN, COLLECTION_SPAN]),
    (ATTEMPT, &[ATTEMPT_SPAN]),
    (ATTEMPTS, &[CALL_SPAN]),
    (PROVIDER, &[ATTEMPT_SPAN]),
    (MODEL, &[ATTEMPT_SPAN]),
    (INPUT_TOKENS, &[CALL_SPAN, ATTEMPT_SPAN]),
    (OUTPUT_TOKENS, &[CALL_SPAN, ATTEMPT_SPAN]),
    (FROM_CACHE, &[ATTEMPT_SPAN]),
    (
        OUTCOME,
        &[CALL_SPAN, ATTEMPT_SPAN, COLLECTION_SPAN, TOOL_SPAN],
    ),
    (
        LATENCY_MS,
        &[
            CALL_SPAN,
            ATTEMPT_SPAN,
            JUDGE_SPAN,
            COLLECTION_SPAN,
            TOOL_SPAN,
        ],
    ),
    (VERDICT, &[JUDGE_SPAN]),
    (ELEMENTS, &[COLLECTION_SPAN, CHUNK_SPAN]),
    (CHUNKS, &[COLLECTION_SPAN]),
    (CHUNK, &[CHUNK_SPAN]),
    (FAILED, &[COLLECTION_SPAN]),
];

const CALL_SPAN: &str = "intent.call";
const ATTEMPT_SPAN: &str = "intent.attempt";
const JUDGE_SPAN: &str = "intent.judge";
const COLLECTION_SPAN: &str = "intent.collection";
const CHUNK_SPAN: &str = "intent.chunk";
const TOOL_SPAN: &str = "intent.tool";
const GEN_AI_SPANS: &[&str] = &[CALL_SPAN, ATTEMPT_SPAN, JUDGE_SPAN, COLLECTION_SPAN];

/// The GenAI operation every span of this library describes: a chat completion.
const OPERATION: &str = "chat";

/// An INFO span named `$name` with the GenAI fields (the operation set, the rest empty until
/// known) and then `$fields`: the one place those field names are written.
macro_rules! gen_ai_span {
    ($(parent: $parent:expr,)? $name:literal, $($fields:tt)*) => {
        tracing::info_span!(
            $(parent: $parent,)?
            $name,
            gen_ai.operation.name = OPERATION,
            gen_ai.provider.name = field::Empty,
            gen_ai.request.model = field::Empty,
            gen_ai.response.model = field::Empty,
            gen_ai.usage.input_tokens = field::Empty,
            gen_ai.usage.output_tokens = field::Empty,
            gen_ai.response.finish_reasons = field::Empty,
            $($fields)*
        )
    };
}

/// The span of a call or collection call `$call` of `$target`, asking for `$model`: the GenAI
/// fields, `intent.call_id` and `target`, then the span's own `$field`s, empty until known, then
/// `outcome` and `latency_ms`, which every call's span ends with.
macro_rules! call_span {
    ($name:literal, $call:expr, $target:expr, $model:expr; $($field:ident),*) => {{
        let span = gen_ai_span!(
            $name,
            intent.call_id = $call.get(),
            target = $target,
            $($field = field::Empty,)*
            outcome = field::Empty,
            latency_ms = field::Empty,
        );
        record_asked(&span, $model);
        span
    }};
}

/// The span of call `call` returning a `target`, asking for `model` (empty when not known
/// before the call).
pub(crate) fn call(call: CallId, target: &'static str, model: &str) -> Span {
    call_span!("intent.call", call, target, model; attempts, input_tokens, output_tokens)
}

/// Closes a call's span with what its result says (nothing is computed for a span no subscriber
/// takes), and logs the one INFO event of the call.
pub(crate) fn finish_call<T>(span: &Span, result: &AiResult<T>, started: Instant) {
    let usage = result.usage();
    let latency = started.elapsed();
    let outcome = if result.is_success() {
        "success"
    } else {
        "failure"
    };
    if !span.is_disabled() {
        if let Some(last) = result.attempts().last() {
            record_answered(span, last);
        }
        record_usage(span, usage);
        span.record(ATTEMPTS, result.attempts().len());
        span.record(OUTCOME, outcome);
        span.record(LATENCY_MS, millis(latency));
    }
    tracing::info!(
        parent: span,
        outcome,
        attempts = result.attempts().len(),
        input_tokens = usage.input_tokens,
        output_tokens = usage.output_tokens,
        latency_ms = millis(latency),
        issues = result.issues().len(),
        "intent call finished"
    );
}

/// The span of one tool call (OTel GenAI's `execute_tool` operation): the tool's name and the
/// call's id; [`finish_tool`] records how it ended.
pub(crate) fn tool(name: &str, call_id: &str) -> Span {
    tracing::info_span!(
        "intent.tool",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = call_id,
        outcome = field::Empty,
        latency_ms = field::Empty,
    )
}

/// Closes a tool call's span: `ok` or `error`, and how long the tool took.
pub(crate) fn finish_tool(span: &Span, is_error: bool, latency: Duration) {
    if !span.is_disabled() {
        span.record(OUTCOME, if is_error { "error" } else { "ok" });
        span.record(LATENCY_MS, millis(latency));
    }
}

/// The span of attempt `number`.
pub(crate) fn attempt(number: u32) -> Span {
    gen_ai_span!(
        "intent.attempt",
        attempt = number,
        provider = field::Empty,
        model = field::Empty,
        from_cache = field::Empty,
        input_tokens = field::Empty,
        output_tokens = field::Empty,
        outcome = field::Empty,
        latency_ms = field::Empty,
    )
}

/// Records on `span` the model asked for (nothing for an empty one). The provider is recorded
/// once, when it is known which one answered (a fallback, maybe).
pub(crate) fn record_asked(span: &Span, model: &str) {
    if !model.is_empty() && !span.is_disabled() {
        span.record(GEN_AI_REQUEST_MODEL, model);
    }
}

/// Closes an attempt's span with what its record says.
pub(crate) fn close_attempt(span: &Span, record: &AttemptRecord, outcome: &str) {
    if span.is_disabled() {
        return;
    }
    record_answered(span, record);
    record_usage(span, record.usage);
    span.record(LATENCY_MS, millis(record.latency));
    span.record(OUTCOME, outcome);
}

/// Records on `span` who answered, with which model, how the reply ended and whether it came
/// from the cache: the facts an attempt's record holds once it has a reply.
fn record_answered(span: &Span, record: &AttemptRecord) {
    if !record.provider.is_empty() {
        span.record(GEN_AI_PROVIDER_NAME, semconv_provider(&record.provider));
        span.record(PROVIDER, record.provider.as_str());
    }
    if !record.model.is_empty() {
        span.record(GEN_AI_RESPONSE_MODEL, record.model.as_str());
        span.record(MODEL, record.model.as_str());
    }
    if let Some(reason) = &record.finish_reason {
        span.record(
            GEN_AI_RESPONSE_FINISH_REASONS,
            finish_reasons(reason).as_str(),
        );
        span.record(FROM_CACHE, record.from_cache);
    }
}

/// Records `usage` under the GenAI names and, on the spans that have them, the library's own.
fn record_usage(span: &Span, usage: Usage) {
    span.record(GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens);
    span.record(GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens);
    span.record(INPUT_TOKENS, usage.input_tokens);
    span.record(OUTPUT_TOKENS, usage.output_tokens);
}

/// The judge's span, a child of the attempt's `parent`.
pub(crate) fn judge(parent: &Span) -> Span {
    gen_ai_span!(
        parent: parent,
        "intent.judge",
        verdict = field::Empty,
        latency_ms = field::Empty,
    )
}

/// Records on the current span (the judge's, inside its call) the provider asked and the model
/// asked for.
pub(crate) fn judge_asked(model: &str) {
    record_asked(&Span::current(), model);
}

/// Records the judge's reply and verdict on the current span (the judge's, inside its call).
pub(super) fn record_judged(
    answered: Option<(&str, &str, &FinishReason)>,
    outcome: JudgeOutcome<'_>,
    usage: Usage,
    latency: Duration,
) {
    let span = Span::current();
    if span.is_disabled() {
        return;
    }
    if let Some((provider, model, reason)) = answered {
        span.record(GEN_AI_PROVIDER_NAME, semconv_provider(provider));
        span.record(GEN_AI_RESPONSE_MODEL, model);
        span.record(
            GEN_AI_RESPONSE_FINISH_REASONS,
            finish_reasons(reason).as_str(),
        );
    }
    record_usage(&span, usage);
    span.record(
        VERDICT,
        match outcome {
            JudgeOutcome::Passed => "pass",
            JudgeOutcome::Failed(_) => "fail",
            JudgeOutcome::Broken(_) => "broken",
        },
    );
    span.record(LATENCY_MS, millis(latency));
}

/// What a collection call's span and event report at its end.
pub(crate) struct CollectionSummary<'a> {
    pub(crate) elements: usize,
    pub(crate) failed: usize,
    pub(crate) chunks: usize,
    pub(crate) usage: Usage,
    /// The last attempt of the last chunk, for who answered.
    pub(crate) last: Option<&'a AttemptRecord>,
}

/// The span of collection call `call` of `target` elements, asking for `model`.
pub(crate) fn collection(call: CallId, target: &'static str, model: &str) -> Span {
    call_span!("intent.collection", call, target, model; elements, chunks, failed)
}

/// Closes a collection call's span (nothing is computed for a span no subscriber takes), and
/// logs its one INFO event.
pub(crate) fn finish_collection(span: &Span, summary: &CollectionSummary<'_>, started: Instant) {
    let latency = started.elapsed();
    let outcome = if summary.failed == 0 {
        "success"
    } else {
        "failure"
    };
    if !span.is_disabled() {
        if let Some(last) = summary.last {
            record_answered(span, last);
        }
        record_usage(span, summary.usage);
        span.record(ELEMENTS, summary.elements);
        span.record(CHUNKS, summary.chunks);
        span.record(FAILED, summary.failed);
        span.record(OUTCOME, outcome);
        span.record(LATENCY_MS, millis(latency));
    }
    tracing::info!(
        parent: span,
        outcome,
        elements = summary.elements,
        failed = summary.failed,
        chunks = summary.chunks,
        input_tokens = summary.usage.input_tokens,
        output_tokens = summary.usage.output_tokens,
        latency_ms = millis(latency),
        "intent collection finished"
    );
}

/// The span of chunk `number` of a collection call, with `elements` elements.
pub(crate) fn chunk(number: usize, elements: usize) -> Span {
    tracing::info_span!("intent.chunk", chunk = number, elements)
}

/// The `gen_ai.provider.name` of a provider named `name`: the convention's well-known value for
/// the built-in providers' names, else the name itself.
fn semconv_provider(name: &str) -> &str {
    match name {
        "gemini" => "gcp.gemini",
        other => other,
    }
}

/// `gen_ai.response.finish_reasons` for one reply: a JSON array of the convention's values.
fn finish_reasons(reason: &FinishReason) -> String {
    let value = match reason {
        FinishReason::Stop => "stop",
        FinishReason::Length => "length",
        FinishReason::Refusal => "refusal",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Abnormal(other) | FinishReason::Other(other) => other.as_str(),
    };
    serde_json::json!([value]).to_string()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name of the table is declared by every span it lists, and by no other of the
    /// library's spans, so that recording it is never silently dropped.
    #[test]
    fn every_span_declares_the_fields_the_table_gives_it() {
        for name in [
            CALL_SPAN,
            ATTEMPT_SPAN,
            JUDGE_SPAN,
            COLLECTION_SPAN,
            CHUNK_SPAN,
            TOOL_SPAN,
        ] {
            let metadata = metadata_of(name);
            assert_eq!(metadata.name(), name);
            for (field, carriers) in FIELDS {
                assert_eq!(
                    metadata.fields().field(field).is_some(),
                    carriers.contains(&name),
                    "span {name} and field {field}"
                );
            }
        }
    }

    fn metadata_of(name: &str) -> &'static tracing::Metadata<'static> {
        let _guard = tracing::subscriber::set_default(NoopSubscriber);
        let span = match name {
            CALL_SPAN => call(CallId::new(1), "u32", ""),
            ATTEMPT_SPAN => attempt(1),
            JUDGE_SPAN => judge(&Span::none()),
            COLLECTION_SPAN => collection(CallId::new(1), "u32", ""),
            TOOL_SPAN => tool("lookup_order", "call_1"),
            _ => chunk(1, 1),
        };
        span.metadata().expect("the span is enabled")
    }

    /// A subscriber that enables everything and keeps nothing.
    struct NoopSubscriber;

    impl tracing::Subscriber for NoopSubscriber {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, _: &tracing::Event<'_>) {}
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    #[test]
    fn finish_reasons_are_a_json_array_of_convention_values() {
        assert_eq!(finish_reasons(&FinishReason::Stop), r#"["stop"]"#);
        assert_eq!(
            finish_reasons(&FinishReason::ContentFilter),
            r#"["content_filter"]"#
        );
        assert_eq!(
            finish_reasons(&FinishReason::Other("tool_calls".into())),
            r#"["tool_calls"]"#
        );
        assert_eq!(semconv_provider("gemini"), "gcp.gemini");
        assert_eq!(semconv_provider("openai"), "openai");
    }
}

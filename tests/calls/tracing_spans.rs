//! Tracing: a span per call, attempt, judge call, collection call and chunk, with the
//! OpenTelemetry GenAI attributes beside the library's own fields; one INFO event per finished
//! call; no prompt text or input, at any level this library logs at.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use intent_core::cache::MemoryCache;
use intent_core::prelude::*;
use intent_core::provider::AiResponse;
use intent_core::Usage;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// What a `fmt` subscriber writes, kept for the test to read.
#[derive(Clone, Default)]
pub(crate) struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn spans_carry_the_call_and_attempt_facts_but_no_prompt_text() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = intent_tests::trace_route::route_to(subscriber);

    let mut reply = AiResponse::new(r#"{"value": 3}"#, "scripted");
    reply.usage = Usage {
        input_tokens: 40,
        output_tokens: 3,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    let client = IntentClient::new(ScriptedProvider::new([
        "nope".into(),
        intent_core::provider::ScriptedReply::from(reply),
    ]));
    let secret_input = "the patient's name is Jane Q. Example";
    let result = u32::ai(
        &client,
        secret_input,
        "Count the words in this confidential note.",
    )
    .await;
    assert_eq!(result.value(), Some(&3));

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("intent.call"), "{log}");
    assert!(log.contains("intent.attempt"), "{log}");
    assert!(
        log.contains("target=\"u32\"") || log.contains("target=u32"),
        "{log}"
    );
    assert!(log.contains("attempt=2"), "{log}");
    assert!(
        log.contains("provider=\"scripted\"") || log.contains("provider=scripted"),
        "{log}"
    );
    assert!(log.contains("input_tokens=40"), "{log}");
    assert!(
        log.contains("outcome=\"success\"") || log.contains("outcome=success"),
        "{log}"
    );
    assert!(
        !log.contains("Jane"),
        "the input leaked into the log: {log}"
    );
    assert!(
        !log.contains("confidential"),
        "the intent leaked into the log: {log}"
    );
}

/// A span as it closed: its name and every field it was given, each value as text (with how
/// many times it was recorded), and its parent's name.
#[derive(Debug, Clone, Default)]
struct ClosedSpan {
    name: &'static str,
    parent: Option<&'static str>,
    fields: BTreeMap<String, (String, usize)>,
}

impl ClosedSpan {
    fn get(&self, field: &str) -> Option<&str> {
        self.fields.get(field).map(|(value, _)| value.as_str())
    }
}

impl Visit for ClosedSpan {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let entry = self
            .fields
            .entry(field.name().to_owned())
            .or_insert((String::new(), 0));
        entry.0 = format!("{value:?}");
        entry.1 += 1;
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        let entry = self
            .fields
            .entry(field.name().to_owned())
            .or_insert((String::new(), 0));
        entry.0 = value.to_owned();
        entry.1 += 1;
    }
}

/// Keeps each span's fields as they are given and recorded, and the spans as they close; and
/// every event's message with its fields.
#[derive(Clone, Default)]
struct SpanCapture {
    open: Arc<Mutex<BTreeMap<u64, ClosedSpan>>>,
    closed: Arc<Mutex<Vec<ClosedSpan>>>,
    events: Arc<Mutex<Vec<ClosedSpan>>>,
}

impl<S> Layer<S> for SpanCapture
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut span = ClosedSpan {
            name: attrs.metadata().name(),
            parent: ctx
                .span(id)
                .and_then(|s| s.parent())
                .map(|p| p.metadata().name()),
            ..ClosedSpan::default()
        };
        attrs.record(&mut span);
        self.open.lock().unwrap().insert(id.into_u64(), span);
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        if let Some(span) = self.open.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(span);
        }
    }
    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let mut seen = ClosedSpan {
            name: event.metadata().name(),
            parent: ctx.event_span(event).map(|s| s.metadata().name()),
            ..ClosedSpan::default()
        };
        event.record(&mut seen);
        self.events.lock().unwrap().push(seen);
    }
    fn on_close(&self, id: Id, _: Context<'_, S>) {
        if let Some(span) = self.open.lock().unwrap().remove(&id.into_u64()) {
            self.closed.lock().unwrap().push(span);
        }
    }
}

impl SpanCapture {
    fn named(&self, name: &str) -> Vec<ClosedSpan> {
        self.closed
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.name == name)
            .cloned()
            .collect()
    }

    fn messages(&self, message: &str) -> Vec<ClosedSpan> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.get("message") == Some(message))
            .cloned()
            .collect()
    }

    fn install(&self) -> intent_tests::trace_route::RouteGuard {
        let subscriber = tracing_subscriber::registry().with(self.clone());
        intent_tests::trace_route::route_to(subscriber)
    }
}

fn usage(input_tokens: u64, output_tokens: u64) -> Usage {
    Usage {
        input_tokens,
        output_tokens,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    }
}

fn reply(text: &str, model: &str, input: u64, output: u64) -> intent_core::provider::ScriptedReply {
    let mut response = AiResponse::new(text, model);
    response.usage = usage(input, output);
    response.into()
}

/// The GenAI attributes every one of the library's model-call spans carries once it ends.
fn assert_gen_ai(
    span: &ClosedSpan,
    provider: &str,
    response_model: &str,
    input: &str,
    output: &str,
) {
    assert_eq!(span.get("gen_ai.operation.name"), Some("chat"), "{span:?}");
    assert_eq!(span.get("gen_ai.provider.name"), Some(provider), "{span:?}");
    assert_eq!(
        span.get("gen_ai.response.model"),
        Some(response_model),
        "{span:?}"
    );
    assert_eq!(
        span.get("gen_ai.usage.input_tokens"),
        Some(input),
        "{span:?}"
    );
    assert_eq!(
        span.get("gen_ai.usage.output_tokens"),
        Some(output),
        "{span:?}"
    );
    assert_eq!(
        span.get("gen_ai.response.finish_reasons"),
        Some(r#"["stop"]"#),
        "{span:?}"
    );
}

#[tokio::test]
async fn call_attempt_and_judge_spans_carry_the_gen_ai_attributes() {
    let capture = SpanCapture::default();
    let _guard = capture.install();
    let model = ScriptedProvider::new([
        reply(r#"{"value": ["Bonjour"]}"#, "small-1", 10, 4),
        reply(
            r#"{"verdict": "fail", "problems": ["The answer is French."]}"#,
            "judge-1",
            50,
            12,
        ),
        reply(r#"{"value": ["Guten Tag"]}"#, "small-1", 11, 5),
        reply(r#"{"verdict": "pass", "problems": []}"#, "judge-1", 51, 7),
    ]);
    let client = IntentClient::new(model);
    let result = Vec::<String>::ai(&client, "Good day", "Translate into German.")
        .options(AiRequestOptions {
            model: Some("small".into()),
            judge: Some(JudgeOptions {
                model: Some("judge".into()),
                ..JudgeOptions::default()
            }),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(result.is_success());

    let calls = capture.named("intent.call");
    assert_eq!(calls.len(), 1);
    let call = &calls[0];
    // The call's usage is every model call's, the judge's included; it answered last with
    // small-1.
    // (The scripted provider answers as the model it is asked for.)
    assert_gen_ai(call, "scripted", "small", "122", "28");
    assert_eq!(call.get("gen_ai.request.model"), Some("small"));
    assert_eq!(call.get("attempts"), Some("2"));
    assert_eq!(call.get("outcome"), Some("success"));
    assert!(call
        .get("target")
        .unwrap()
        .contains("Vec<alloc::string::String>"));
    assert!(call.get("latency_ms").is_some());
    assert!(call.get("intent.call_id").is_some());

    let attempts = capture.named("intent.attempt");
    assert_eq!(attempts.len(), 2);
    for (attempt, (number, input, output, outcome)) in attempts
        .iter()
        .zip([("1", "60", "16", "failed"), ("2", "62", "12", "passed")])
    {
        assert_eq!(attempt.parent, Some("intent.call"));
        assert_gen_ai(attempt, "scripted", "small", input, output);
        assert_eq!(attempt.get("provider"), Some("scripted"));
        assert_eq!(attempt.get("gen_ai.request.model"), Some("small"));
        assert_eq!(attempt.get("attempt"), Some(number));
        assert_eq!(attempt.get("outcome"), Some(outcome));
        assert_eq!(attempt.fields["from_cache"], ("false".to_owned(), 1));
    }

    let judges = capture.named("intent.judge");
    assert_eq!(judges.len(), 2);
    for (judge, (output, verdict)) in judges.iter().zip([("12", "fail"), ("7", "pass")]) {
        assert_eq!(judge.parent, Some("intent.attempt"));
        let input = judge.get("gen_ai.usage.input_tokens").unwrap().to_owned();
        assert!(input == "50" || input == "51", "{judge:?}");
        assert_gen_ai(judge, "scripted", "judge", &input, output);
        assert_eq!(judge.get("gen_ai.request.model"), Some("judge"));
        assert_eq!(judge.get("verdict"), Some(verdict));
    }

    let finished = capture.messages("intent call finished");
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].parent, Some("intent.call"));
    assert_eq!(finished[0].get("outcome"), Some("success"));
    assert_eq!(finished[0].get("attempts"), Some("2"));
    assert_eq!(finished[0].get("input_tokens"), Some("122"));
    assert!(finished[0].get("latency_ms").is_some());
}

#[tokio::test]
async fn a_collection_call_has_a_span_with_the_gen_ai_attributes_and_one_per_chunk() {
    let capture = SpanCapture::default();
    let _guard = capture.install();
    let client = IntentClient::new(ScriptedProvider::new([
        reply(
            r#"{"value": [{"index": 0, "value": true}]}"#,
            "small-1",
            20,
            6,
        ),
        reply(
            r#"{"value": [{"index": 1, "value": false}]}"#,
            "small-1",
            21,
            6,
        ),
    ]));
    let urgent = client
        .map_each::<bool>(&["server down", "typo on page"], "Is it urgent?")
        .chunk_size(1)
        .concurrency(1)
        .await;
    assert!(urgent.is_complete());

    let collections = capture.named("intent.collection");
    assert_eq!(collections.len(), 1);
    let collection = &collections[0];
    assert_gen_ai(collection, "scripted", "small-1", "41", "12");
    assert_eq!(
        collection.fields["gen_ai.provider.name"].1, 1,
        "recorded once"
    );
    assert_eq!(collection.get("gen_ai.request.model"), Some("scripted"));
    assert_eq!(collection.get("target"), Some("bool"));
    assert_eq!(collection.get("elements"), Some("2"));
    assert_eq!(collection.get("chunks"), Some("2"));
    assert_eq!(collection.get("failed"), Some("0"));
    assert_eq!(collection.get("outcome"), Some("success"));

    let chunks = capture.named("intent.chunk");
    assert_eq!(chunks.len(), 2);
    assert!(chunks.iter().all(|c| c.parent == Some("intent.collection")));
    let attempts = capture.named("intent.attempt");
    assert_eq!(attempts.len(), 2);
    assert!(attempts.iter().all(|a| a.parent == Some("intent.chunk")));
    assert!(capture.named("intent.call").is_empty());
    let finished = capture.messages("intent collection finished");
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].get("elements"), Some("2"));
}

#[tokio::test]
async fn from_cache_is_recorded_once_when_known() {
    let capture = SpanCapture::default();
    let _guard = capture.install();
    let client = IntentClient::builder()
        .provider(ScriptedProvider::new([r#"{"value": 3}"#]))
        .cache(MemoryCache::new(16))
        .build()
        .unwrap();
    let _ = u32::ai(&client, "a b c", "Count the words.").await;
    let hit = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(hit.attempts()[0].from_cache);
    let attempts = capture.named("intent.attempt");
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].fields["from_cache"], ("false".to_owned(), 1));
    assert_eq!(attempts[1].fields["from_cache"], ("true".to_owned(), 1));
}

#[test]
fn a_plain_fmt_subscriber_shows_one_line_per_finished_call() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = intent_tests::trace_route::route_to(subscriber);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 3}"#]));
    rt.block_on(async { u32::ai(&client, "a b c", "Count the words.").await });
    let log = captured.text();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains(" INFO "), "{log}");
    assert!(log.contains("intent call finished"), "{log}");
    assert!(
        log.contains("outcome=\"success\"") || log.contains("outcome=success"),
        "{log}"
    );
    assert!(log.contains("attempts=1"), "{log}");
}

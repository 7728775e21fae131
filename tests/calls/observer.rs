//! Observers: one event per step of a call, with what a dashboard needs and nothing secret;
//! several observers, and a panicking one that neither fails the call nor silences the others.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use intent_core::cache::MemoryCache;
use intent_core::observe::{
    AttemptFailed, CacheHit, ChunkFinished, FallbackTaken, JudgeOutcome, JudgeVerdict, Origin,
    ReplyReceived, RequestSent, TransportRetry,
};
use intent_core::prelude::*;
use intent_core::provider::{
    AiResponse, FinishReason, ProviderError, ProviderErrorKind, RetryPolicy, ScriptedReply,
};
use intent_core::{IssueKind, ResponseFormat};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECRET_INPUT: &str = "the patient's name is Jane Q. Example";
const SECRET_INTENT: &str = "Count the words in this confidential note.";

/// An event as the recorder keeps it: its name, where it happened, and its `Debug` text (which
/// must hold no secret).
#[derive(Debug, Clone)]
struct Seen {
    name: &'static str,
    origin: Origin,
    text: String,
}

/// A transport retry's provider, status, kind, number and delay.
type Retry = (String, Option<u16>, ProviderErrorKind, u32, Duration);
/// A verdict's model, problems (`None` for a pass) and output tokens.
type Verdict = (String, Option<Vec<String>>, u64);

/// Keeps every event it is told of, with the facts the tests check.
#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<Seen>>,
    replies: Mutex<Vec<(String, String, u64, FinishReason)>>,
    requests: Mutex<Vec<(String, String, ResponseFormat, usize)>>,
    failures: Mutex<Vec<Vec<(IssueKind, String)>>>,
    retries: Mutex<Vec<Retry>>,
    fallbacks: Mutex<Vec<(String, String, ProviderErrorKind)>>,
    verdicts: Mutex<Vec<Verdict>>,
    chunks: Mutex<Vec<(usize, usize, usize)>>,
}

impl Recorder {
    fn keep(&self, name: &'static str, origin: Origin, event: &impl std::fmt::Debug) {
        self.seen.lock().unwrap().push(Seen {
            name,
            origin,
            text: format!("{event:?}"),
        });
    }

    fn names(&self) -> Vec<&'static str> {
        self.seen.lock().unwrap().iter().map(|s| s.name).collect()
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// No event's text holds the input, the intent or a key.
    fn assert_no_secret(&self) {
        for seen in self.seen() {
            for secret in ["Jane", "confidential", "sk-test-key"] {
                assert!(
                    !seen.text.contains(secret),
                    "{secret} leaked into {}: {}",
                    seen.name,
                    seen.text
                );
            }
        }
    }
}

impl Observer for Recorder {
    fn request_sent(&self, event: &RequestSent<'_>) {
        self.keep("request_sent", event.origin, event);
        self.requests.lock().unwrap().push((
            event.provider.to_owned(),
            event.model.to_owned(),
            event.format,
            event.prompt_chars,
        ));
    }
    fn reply_received(&self, event: &ReplyReceived<'_>) {
        self.keep("reply_received", event.origin, event);
        self.replies.lock().unwrap().push((
            event.provider.to_owned(),
            event.model.to_owned(),
            event.usage.input_tokens,
            event.finish_reason.clone(),
        ));
    }
    fn attempt_failed(&self, event: &AttemptFailed<'_>) {
        self.keep("attempt_failed", event.origin, event);
        self.failures.lock().unwrap().push(
            event
                .issues
                .iter()
                .map(|i| (i.kind, i.message.clone()))
                .collect(),
        );
    }
    fn transport_retry(&self, event: &TransportRetry<'_>) {
        self.keep("transport_retry", event.origin, event);
        self.retries.lock().unwrap().push((
            event.provider.to_owned(),
            event.status,
            event.kind,
            event.retry,
            event.delay,
        ));
    }
    fn cache_hit(&self, event: &CacheHit<'_>) {
        self.keep("cache_hit", event.origin, event);
    }
    fn fallback_taken(&self, event: &FallbackTaken<'_>) {
        self.keep("fallback_taken", event.origin, event);
        self.fallbacks.lock().unwrap().push((
            event.from.to_owned(),
            event.to.to_owned(),
            event.error.kind,
        ));
    }
    fn judge_verdict(&self, event: &JudgeVerdict<'_>) {
        self.keep("judge_verdict", event.origin, event);
        let problems = match event.outcome {
            JudgeOutcome::Passed => None,
            JudgeOutcome::Failed(problems) => Some(problems.to_vec()),
            other => panic!("unexpected verdict {other:?}"),
        };
        self.verdicts.lock().unwrap().push((
            event.model.to_owned(),
            problems,
            event.usage.output_tokens,
        ));
    }
    fn chunk_finished(&self, event: &ChunkFinished) {
        self.keep("chunk_finished", event.origin, event);
        self.chunks.lock().unwrap().push((
            event.origin.chunk.expect("a chunk event names its chunk"),
            event.elements,
            event.attempts,
        ));
    }
}

fn reply(text: &str, model: &str, input_tokens: u64, output_tokens: u64) -> ScriptedReply {
    let mut response = AiResponse::new(text, model);
    response.usage = Usage {
        input_tokens,
        output_tokens,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    response.into()
}

fn observed(provider: ScriptedProvider) -> (IntentClient, Arc<Recorder>) {
    let recorder = Arc::new(Recorder::default());
    let client = IntentClient::builder()
        .provider(provider)
        .observer(Arc::clone(&recorder))
        .build()
        .unwrap();
    (client, recorder)
}

#[tokio::test]
async fn each_attempt_reports_its_request_and_reply_with_provider_model_and_tokens() {
    let (client, recorder) = observed(ScriptedProvider::new([
        reply("nope", "small-1", 30, 2),
        reply(r#"{"value": 3}"#, "small-1", 40, 3),
    ]));
    let result = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    assert_eq!(result.value(), Some(&3));

    assert_eq!(
        recorder.names(),
        [
            "request_sent",
            "reply_received",
            "attempt_failed",
            "request_sent",
            "reply_received"
        ]
    );
    let seen = recorder.seen();
    let call = seen[0].origin.call;
    assert!(seen.iter().all(|s| s.origin.call == call));
    assert!(seen.iter().all(|s| s.origin.target == "u32"));
    assert!(seen.iter().all(|s| s.origin.chunk.is_none()));
    let attempts: Vec<u32> = seen.iter().map(|s| s.origin.attempt).collect();
    assert_eq!(attempts, [1, 1, 1, 2, 2]);

    let requests = recorder.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    let (provider, model, format, prompt_chars) = &requests[0];
    assert_eq!(provider, "scripted");
    assert_eq!(model, ScriptedProvider::MODEL);
    assert_eq!(*format, ResponseFormat::JsonSchema);
    assert!(*prompt_chars > SECRET_INPUT.len(), "{prompt_chars}");
    let replies = recorder.replies.lock().unwrap().clone();
    assert_eq!(
        replies,
        [
            ("scripted".into(), "small-1".into(), 30, FinishReason::Stop),
            ("scripted".into(), "small-1".into(), 40, FinishReason::Stop)
        ]
    );
    recorder.assert_no_secret();

    // Another call has another id.
    let (client, second) = observed(ScriptedProvider::new([r#"{"value": 1}"#]));
    u32::ai(&client, "one", "Count the words.").await;
    assert_ne!(second.seen()[0].origin.call, call);
}

#[tokio::test]
async fn a_failed_attempt_reports_its_issues_and_the_last_one_too() {
    let (client, recorder) = observed(ScriptedProvider::new([r#"{"value": "many"}"#, "nope"]));
    let result = u32::ai(&client, SECRET_INPUT, SECRET_INTENT)
        .options(AiRequestOptions::default())
        .await;
    assert!(!result.is_success());
    let failures = recorder.failures.lock().unwrap().clone();
    assert_eq!(failures.len(), result.attempts().len(), "{failures:?}");
    for (failure, attempt) in failures.iter().zip(result.attempts()) {
        let expected: Vec<(IssueKind, String)> = attempt
            .issues
            .iter()
            .map(|i| (i.kind, i.message.clone()))
            .collect();
        assert_eq!(failure, &expected);
        assert!(!failure.is_empty());
    }
    recorder.assert_no_secret();
}

#[tokio::test]
async fn a_provider_failure_is_a_failed_attempt_naming_the_provider() {
    let (client, recorder) = observed(ScriptedProvider::new([ProviderError::new(
        ProviderErrorKind::InvalidRequest,
        "bad request",
    )]));
    let result = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    assert!(!result.is_success());
    assert_eq!(recorder.names(), ["request_sent", "attempt_failed"]);
    let failures = recorder.failures.lock().unwrap().clone();
    assert_eq!(failures[0][0].0, IssueKind::Provider);
    assert!(recorder.seen()[1].text.contains("provider: \"scripted\""));
}

#[tokio::test]
async fn a_cache_hit_is_reported_and_nothing_is_sent() {
    let recorder = Arc::new(Recorder::default());
    let client = IntentClient::builder()
        .provider(ScriptedProvider::new([reply(
            r#"{"value": 3}"#,
            "small-1",
            40,
            3,
        )]))
        .cache(MemoryCache::new(16))
        .observer(Arc::clone(&recorder))
        .build()
        .unwrap();
    let first = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    let second = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    assert_eq!(first.value(), second.value());
    assert!(second.attempts()[0].from_cache);
    assert_eq!(
        recorder.names(),
        ["request_sent", "reply_received", "cache_hit"]
    );
    let seen = recorder.seen();
    assert_ne!(seen[2].origin.call, seen[0].origin.call);
    assert_eq!(seen[2].origin.attempt, 1);
    assert!(
        seen[2].text.contains("model: \"small-1\""),
        "{}",
        seen[2].text
    );
    recorder.assert_no_secret();
}

#[tokio::test]
async fn a_fallback_is_reported_with_both_providers_and_the_error() {
    let recorder = Arc::new(Recorder::default());
    let client = IntentClient::builder()
        .provider(
            ScriptedProvider::new([ProviderError::new(ProviderErrorKind::Server, "overloaded")])
                .with_name("primary"),
        )
        .fallback(ScriptedProvider::new([r#"{"value": 3}"#]).with_name("backup"))
        .observer(Arc::clone(&recorder))
        .build()
        .unwrap();
    let result = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(
        recorder.names(),
        ["request_sent", "fallback_taken", "reply_received"]
    );
    assert_eq!(
        recorder.fallbacks.lock().unwrap().clone(),
        [("primary".into(), "backup".into(), ProviderErrorKind::Server)]
    );
    assert_eq!(recorder.requests.lock().unwrap()[0].0, "primary");
    assert_eq!(recorder.replies.lock().unwrap()[0].0, "backup");
}

#[tokio::test]
async fn each_judge_verdict_is_reported_with_its_problems_and_usage() {
    let (client, recorder) = observed(ScriptedProvider::new([
        reply(r#"{"value": ["Bonjour"]}"#, "small-1", 10, 4),
        reply(
            r#"{"verdict": "fail", "problems": ["The answer is French; the intent asks for German."]}"#,
            "judge-1",
            50,
            12,
        ),
        reply(r#"{"value": ["Guten Tag"]}"#, "small-1", 10, 4),
        reply(r#"{"verdict": "pass", "problems": []}"#, "judge-1", 50, 7),
    ]));
    let result = Vec::<String>::ai(&client, "Good day", "Translate into German.")
        .options(AiRequestOptions {
            judge: Some(JudgeOptions::default()),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(result.is_success());
    assert_eq!(
        recorder.verdicts.lock().unwrap().clone(),
        [
            (
                "judge-1".into(),
                Some(vec![
                    "The answer is French; the intent asks for German.".into()
                ]),
                12
            ),
            ("judge-1".into(), None, 7)
        ]
    );
    let attempts: Vec<u32> = recorder
        .seen()
        .iter()
        .filter(|s| s.name == "judge_verdict")
        .map(|s| s.origin.attempt)
        .collect();
    assert_eq!(attempts, [1, 2]);
    // The judge's own request is not an attempt's request.
    assert_eq!(recorder.requests.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn each_chunk_of_a_collection_call_is_reported_when_it_ends() {
    let (client, recorder) = observed(ScriptedProvider::new([
        r#"{"value": [{"index": 0, "value": true}]}"#,
        r#"{"value": [{"index": 1, "value": "maybe"}]}"#,
        r#"{"value": [{"index": 1, "value": false}]}"#,
    ]));
    let urgent = client
        .map_each::<bool>(&["server down", "typo on page"], "Is it urgent?")
        .chunk_size(1)
        .concurrency(1)
        .await;
    assert_eq!(urgent.values(), &[Some(true), Some(false)]);
    assert_eq!(
        recorder.chunks.lock().unwrap().clone(),
        [(1, 1, 1), (2, 1, 2)]
    );
    let seen = recorder.seen();
    let call = seen[0].origin.call;
    assert!(seen.iter().all(|s| s.origin.call == call));
    assert!(seen.iter().all(|s| s.origin.target == "bool"));
    let second_chunk: Vec<(&str, u32)> = seen
        .iter()
        .filter(|s| s.origin.chunk == Some(2))
        .map(|s| (s.name, s.origin.attempt))
        .collect();
    assert_eq!(
        second_chunk,
        [
            ("request_sent", 1),
            ("reply_received", 1),
            ("attempt_failed", 1),
            ("request_sent", 2),
            ("reply_received", 2),
            ("chunk_finished", 2)
        ]
    );
}

#[tokio::test]
async fn a_transport_retry_is_reported_with_status_delay_and_no_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "0.05")
                .set_body_json(json!({"error": {"message": "Rate limit reached.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "{\"value\": 3}", "refusal": null}}],
            "usage": {"prompt_tokens": 30, "completion_tokens": 4, "total_tokens": 34}
        })))
        .with_priority(2)
        .mount(&server)
        .await;
    let provider = OpenAiProvider::new("sk-test-key")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_model("gpt-4o-mini")
        .with_retry_policy(RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            max_retry_after: Duration::from_secs(2),
        });
    let recorder = Arc::new(Recorder::default());
    let client = IntentClient::builder()
        .provider(provider)
        .observer(Arc::clone(&recorder))
        .build()
        .unwrap();
    let result = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(
        recorder.names(),
        ["request_sent", "transport_retry", "reply_received"]
    );
    assert_eq!(
        recorder.retries.lock().unwrap().clone(),
        [(
            "openai".into(),
            Some(429),
            ProviderErrorKind::RateLimited,
            1,
            Duration::from_millis(50)
        )]
    );
    let seen = recorder.seen();
    assert_eq!(seen[1].origin.attempt, 1);
    assert_eq!(seen[1].origin.call, seen[0].origin.call);
    let replies = recorder.replies.lock().unwrap().clone();
    assert_eq!(
        replies,
        [(
            "openai".into(),
            "gpt-4o-mini-2024".into(),
            30,
            FinishReason::Stop
        )]
    );
    assert_eq!(recorder.requests.lock().unwrap()[0].1, "gpt-4o-mini");
    recorder.assert_no_secret();
}

/// Panics on every event it is told of.
struct Panicking;

impl Observer for Panicking {
    fn request_sent(&self, _: &RequestSent<'_>) {
        panic!("observer bug");
    }
    fn reply_received(&self, _: &ReplyReceived<'_>) {
        panic!("observer bug");
    }
    fn attempt_failed(&self, _: &AttemptFailed<'_>) {
        panic!("observer bug");
    }
}

#[tokio::test]
async fn a_panicking_observer_neither_fails_the_call_nor_silences_the_others_and_is_logged_once() {
    let log = super::tracing_spans::Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = intent_tests::trace_route::route_to(subscriber);

    let first = Arc::new(Recorder::default());
    let last = Arc::new(Recorder::default());
    let client = IntentClient::builder()
        .provider(ScriptedProvider::new(["nope", r#"{"value": 3}"#]))
        .observer(Arc::clone(&first))
        .observer(Panicking)
        .observer(Arc::clone(&last))
        .build()
        .unwrap();
    let result = u32::ai(&client, SECRET_INPUT, SECRET_INTENT).await;
    assert_eq!(result.value(), Some(&3));
    let expected = [
        "request_sent",
        "reply_received",
        "attempt_failed",
        "request_sent",
        "reply_received",
    ];
    assert_eq!(first.names(), expected);
    assert_eq!(last.names(), expected);

    let log = log.text();
    assert_eq!(
        log.matches("an observer panicked").count(),
        1,
        "five panics, one log line: {log}"
    );
    assert!(log.contains("observer bug"), "{log}");
    assert!(log.contains("request_sent"), "{log}");
}

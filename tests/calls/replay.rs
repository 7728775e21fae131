//! Record and replay: a call recorded against an OpenAI-compatible server on 127.0.0.1 replays
//! offline with the same result, attempt for attempt; a request with no recording names the
//! nearest one and what differs; no secret reaches a cassette; and a recording of the real local
//! model, committed in `tests/fixtures/cassettes/`, replays in the ordinary suite.

use std::path::{Path, PathBuf};
use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::Provider;
use intent_core::provider::{ProviderErrorKind, RetryPolicy, SharedSchema};
use intent_core::testing::{self, CassetteMode, RecordingProvider, ReplayProvider};
use intent_core::{AiRequest, ResponseFormat};
use intent_core::{IntentError, IssueKind};
use intent_tests::derive_types::PurchaseRequest;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const KEY: &str = "sk-test-recording-0123456789abcdef";

/// Answers each chat completion by the first rule whose needle is in the request's messages.
struct ByContent(Vec<(&'static str, Value)>);

impl Respond for ByContent {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let text: String = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["content"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        match self.0.iter().find(|(needle, _)| text.contains(needle)) {
            Some((_, content)) => ResponseTemplate::new(200).set_body_json(completion(content)),
            None => ResponseTemplate::new(400)
                .set_body_json(json!({"error": {"message": "no rule for this request"}})),
        }
    }
}

fn completion(content: &Value) -> Value {
    let content = match content {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 14, "total_tokens": 134,
                  "prompt_tokens_details": {"cached_tokens": 64}}
    })
}

async fn server(rules: Vec<(&'static str, Value)>) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ByContent(rules))
        .mount(&server)
        .await;
    server
}

fn openai(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new(KEY)
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(RetryPolicy {
            max_retries: 0,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
            max_retry_after: Duration::from_millis(1),
        })
}

fn client(provider: impl Provider + 'static) -> IntentClient {
    IntentClient::builder()
        .provider(provider)
        .options(IntentClientOptions {
            max_attempts: 3,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap()
}

/// Everything an attempt records but its wall-clock time.
fn attempt_summary(a: &AttemptRecord) -> String {
    format!(
        "#{} {:?} issues={:?} provider={} model={} usage={:?} cache={} finish={:?}",
        a.number,
        a.raw_output,
        a.issues,
        a.provider,
        a.model,
        a.usage,
        a.from_cache,
        a.finish_reason
    )
}

fn result_summary<T: std::fmt::Debug>(r: &AiResult<T>) -> Vec<String> {
    let mut out = vec![format!("{:?} {:?} {:?}", r.value(), r.issues(), r.usage())];
    out.extend(r.attempts().iter().map(attempt_summary));
    out
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every cassette line is JSON"))
        .collect()
}

const EMAIL: &str = "Hi, Dana here from Bolt Ltd. Please send 40 units of A-1192 by Friday.";
const EXTRACT: &str = "Extract the purchase request.";

#[tokio::test]
async fn a_recorded_multi_attempt_call_replays_the_same_result_offline() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("purchase.jsonl");
    let live = server(vec![
        // The retry carries the finding: the model fixes the SKU.
        ("Previous attempt", json!({"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "deliverBy": null}})),
        ("A-1192", json!({"value": {"contact": "Dana", "sku": "a-1192", "quantity": 40, "deliverBy": null}})),
    ])
    .await;
    let recorded = PurchaseRequest::ai(
        &client(RecordingProvider::new(openai(&live), &cassette).unwrap()),
        EMAIL,
        EXTRACT,
    )
    .await;
    assert_eq!(recorded.attempts().len(), 2, "{:?}", recorded.attempts());
    assert_eq!(recorded.attempts()[0].issues[0].kind, IssueKind::Rule);
    assert_eq!(recorded.value().unwrap().sku, "A-1192");
    drop(live); // Offline from here on: the server is gone.

    let entries = lines(&cassette);
    assert_eq!(entries.len(), 2, "one line per exchange");
    assert_eq!(entries[0]["provider"], "openai");
    assert_eq!(entries[0]["default_model"], "gpt-4o-mini");
    assert_eq!(entries[0]["key"].as_str().unwrap().len(), 64);
    assert_eq!(entries[1]["reply"]["usage"]["cached_tokens"], 64);

    let replayed = PurchaseRequest::ai(
        &client(ReplayProvider::open(&cassette).unwrap()),
        EMAIL,
        EXTRACT,
    )
    .await;
    assert_eq!(result_summary(&replayed), result_summary(&recorded));
    assert_eq!(
        format!("{:?}", replayed.value()),
        format!("{:?}", recorded.value())
    );
}

#[tokio::test]
async fn a_recorded_map_each_replays_the_same_result_offline() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("lengths.jsonl");
    let inputs = ["ab", "abc", "abcd", "a"];
    let live = server(vec![
        // The first chunk's first answer drops index 1; its retry answers both.
        (
            "Previous attempt",
            json!({"value": [{"index": 0, "value": 2}, {"index": 1, "value": 3}]}),
        ),
        (
            r#"{"index":2,"input":"abcd"}"#,
            json!({"value": [{"index": 2, "value": 4}, {"index": 3, "value": 1}]}),
        ),
        (
            r#"{"index":0,"input":"ab"}"#,
            json!({"value": [{"index": 0, "value": 2}]}),
        ),
    ])
    .await;
    let run = |client: IntentClient| async move {
        client
            .map_each::<u32>(&inputs, "Count the letters.")
            .chunk_size(2)
            .concurrency(2)
            .await
    };
    let recorded = run(client(
        RecordingProvider::new(openai(&live), &cassette).unwrap(),
    ))
    .await;
    assert_eq!(recorded.values(), &[Some(2), Some(3), Some(4), Some(1)]);
    assert_eq!(recorded.attempts().count(), 3);
    drop(live);
    assert_eq!(lines(&cassette).len(), 3);

    let replayed = run(client(ReplayProvider::open(&cassette).unwrap())).await;
    assert_eq!(replayed.values(), recorded.values());
    let chunks = |r: &intent_core::collections::CollectionResult<usize, u32>| -> Vec<String> {
        r.chunks()
            .iter()
            .map(|c| {
                let attempts: Vec<String> = c.attempts.iter().map(attempt_summary).collect();
                format!(
                    "{} {:?} {:?} {:?} {attempts:?}",
                    c.number, c.positions, c.issues, c.usage
                )
            })
            .collect()
    };
    assert_eq!(chunks(&replayed), chunks(&recorded));
    assert_eq!(replayed.usage(), recorded.usage());
}

#[tokio::test]
async fn a_request_with_no_recording_names_the_nearest_recording_and_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("count.jsonl");
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let recorded = u32::ai(
        &client(RecordingProvider::new(model, &cassette).unwrap()),
        "a, b, c",
        "Count the letters.",
    )
    .options(AiRequestOptions {
        temperature: Some(0.0),
        ..AiRequestOptions::default()
    })
    .await;
    assert!(recorded.is_success());
    let replay = client(ReplayProvider::open(&cassette).unwrap());
    let zero = || AiRequestOptions {
        temperature: Some(0.0),
        ..AiRequestOptions::default()
    };

    let other_input = u32::ai(&replay, "a, b, c, d", "Count the letters.")
        .options(zero())
        .await;
    let message = &other_input.issues()[0].message;
    assert_eq!(other_input.issues()[0].kind, IssueKind::Provider);
    assert!(
        message.contains("has no recording for this request to `scripted`"),
        "{message}"
    );
    assert!(
        message.contains("the nearest recording (line 1) differs in input:"),
        "{message}"
    );
    assert!(
        message.contains(r#"- input: recorded "(string) a, b, c", now "(string) a, b, c, d""#),
        "{message}"
    );
    assert!(
        message.contains("INTENT_CASSETTE_MODE=record-missing"),
        "{message}"
    );

    let other_intent = u32::ai(&replay, "a, b, c", "Count the vowels.")
        .options(zero())
        .await;
    let message = &other_intent.issues()[0].message;
    assert!(message.contains("differs in intent:"), "{message}");
    assert!(
        message.contains(r#"recorded "Count the letters.", now "Count the vowels.""#),
        "{message}"
    );

    let warmer = u32::ai(&replay, "a, b, c", "Count the letters.").await;
    let message = &warmer.issues()[0].message;
    assert!(
        message.contains("differs in options: temperature:"),
        "{message}"
    );
    assert!(message.contains(r#"recorded "0", now "none""#), "{message}");

    let other_shape = String::ai(&replay, "a, b, c", "Count the letters.")
        .options(zero())
        .await;
    let message = &other_shape.issues()[0].message;
    assert!(message.contains("schema"), "{message}");
    assert!(
        message.contains("differs in output requirements, schema:"),
        "{message}"
    );
    assert!(
        message.contains(r#"now "text intent_output none""#),
        "{message}"
    );
}

#[tokio::test]
async fn no_secret_reaches_a_cassette() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("secrets.jsonl");
    let vault = "vault-token-9f8e7d6c5b4a";
    let live = server(vec![(
        "config",
        json!(format!("Sure. Your header is Authorization: Bearer {KEY} and the vault says {vault}; {{\"api_key\": \"q1w2e3r4t5y6\"}}")),
    )])
    .await;
    let recorder = RecordingProvider::new(openai(&live), &cassette)
        .unwrap()
        .with_secret(vault);
    let input = format!("Here is my config: OPENAI_API_KEY={KEY}\nx-api-key: {vault}\n{{\"password\": \"hunter2hunter2\"}}");
    let result = String::ai(&client(recorder), &input, "Repeat the headers.").await;
    assert!(result.is_success());
    // The provider's own key never leaves the provider (it is redacted from every reply); the other
    // secrets pass through to the caller unchanged: only the cassette is redacted of them.
    let answer = result.value().unwrap();
    assert!(
        !answer.contains(KEY) && answer.contains("Bearer [redacted]"),
        "{answer}"
    );
    assert!(answer.contains(vault), "{answer}");

    let text = std::fs::read_to_string(&cassette).unwrap();
    for secret in [KEY, vault, "q1w2e3r4t5y6", "hunter2hunter2"] {
        assert!(!text.contains(secret), "{secret} was written:\n{text}");
    }
    assert_eq!(find_secret_shapes(&text), Vec::<String>::new());
    assert!(text.contains("[redacted]"));
    let entry = &lines(&cassette)[0];
    // Five here; the sixth, the key in the reply, the provider had already redacted.
    assert!(entry["redacted"].as_u64().unwrap() >= 5, "{entry}");
    // The redacted request still replays: the key was computed before redaction.
    drop(live);
    let replayed = String::ai(
        &client(ReplayProvider::open(&cassette).unwrap()),
        &input,
        "Repeat the headers.",
    )
    .await;
    assert!(replayed.is_success(), "{:?}", replayed.issues());
    assert!(replayed
        .value()
        .unwrap()
        .contains("Authorization: Bearer [redacted]"));
}

/// Text shaped like a key or token that is not redacted.
fn find_secret_shapes(text: &str) -> Vec<String> {
    let shapes = regex::Regex::new(
        r#"sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,}|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}|(?i:"(?:api_?key|authorization|x-api-key|password)"\s*:\s*"[^"\[]{4,}")"#,
    )
    .unwrap();
    shapes
        .find_iter(text)
        .map(|m| m.as_str().to_owned())
        .collect()
}

#[test]
fn no_committed_cassette_holds_a_secret() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut scanned = 0;
    for folder in ["tests/fixtures/cassettes", "intent-cli/tests/cassettes"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert_eq!(
                    find_secret_shapes(&text),
                    Vec::<String>::new(),
                    "{}",
                    path.display()
                );
                scanned += 1;
            }
        }
    }
    assert!(scanned >= 2, "the committed cassettes were found");
}

#[tokio::test]
async fn provider_failures_replay_and_a_fallback_replays_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("fallback.jsonl");
    let denied = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_json(json!({"error": {"message": "Incorrect API key provided"}})),
        )
        .mount(&denied)
        .await;
    let backup = ScriptedProvider::new([r#"{"value": 7}"#]).with_name("backup");
    let recording = IntentClient::builder()
        .provider(RecordingProvider::new(openai(&denied), &cassette).unwrap())
        .fallback(RecordingProvider::new(backup, &cassette).unwrap())
        .build()
        .unwrap();
    let recorded = u8::ai(&recording, "seven", "Write the number.").await;
    assert_eq!(recorded.value(), Some(&7));
    drop(denied);
    let entries = lines(&cassette);
    assert_eq!(entries[0]["error"]["kind"], "auth");
    assert_eq!(entries[0]["error"]["status"], 401);
    assert_eq!(entries[1]["provider"], "backup");

    let replays = ReplayProvider::open_all(&cassette).unwrap();
    let names: Vec<&str> = replays.iter().map(|r| r.name()).collect();
    assert_eq!(names, ["openai", "backup"]);
    let mut builder = IntentClient::builder();
    for (i, replay) in replays.into_iter().enumerate() {
        builder = if i == 0 {
            builder.provider(replay)
        } else {
            builder.fallback(replay)
        };
    }
    let replayed = u8::ai(&builder.build().unwrap(), "seven", "Write the number.").await;
    assert_eq!(result_summary(&replayed), result_summary(&recorded));
    // The primary's recorded failure comes back as it was.
    let primary = ReplayProvider::open(&cassette).unwrap();
    let error = primary
        .complete(&recorded_request(&cassette, 0))
        .await
        .unwrap_err();
    assert_eq!(
        (error.kind, error.status),
        (ProviderErrorKind::Auth, Some(401))
    );
}

/// The request of the cassette's `index`-th line, rebuilt.
fn recorded_request(cassette: &Path, index: usize) -> AiRequest {
    let entry = &lines(cassette)[index]["request"];
    let mut request = AiRequest::new(
        entry["system"].as_str().unwrap(),
        entry["user"].as_str().unwrap(),
    );
    request.format = match entry["format"].as_str().unwrap() {
        "json_schema" => ResponseFormat::JsonSchema,
        "json_object" => ResponseFormat::JsonObject,
        _ => ResponseFormat::Text,
    };
    request.schema = Some(entry["schema"].clone())
        .filter(|s| !s.is_null())
        .map(SharedSchema::new);
    request
}

#[tokio::test]
async fn the_cassette_modes_record_replay_and_fill_in_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("modes.jsonl");
    let scripted = |replies: &[&str]| {
        let replies: Vec<String> = replies.iter().map(|r| (*r).to_owned()).collect();
        move || Ok(ScriptedProvider::new(replies))
    };
    let missing = ReplayProvider::open(&cassette).unwrap_err().to_string();
    assert!(
        missing.contains(
            "does not exist; record it once against a real model with INTENT_CASSETTE_MODE=record"
        ),
        "{missing}"
    );

    let record = testing::cassette_with_mode(
        CassetteMode::Record,
        &cassette,
        scripted(&[r#"{"value": 1}"#]),
    )
    .unwrap();
    assert_eq!(
        u8::ai(&client(record), "one", "Write the number.")
            .await
            .value(),
        Some(&1)
    );
    assert_eq!(lines(&cassette).len(), 1);

    // Record-missing answers what is recorded from the cassette and asks the model the rest.
    let model = ScriptedProvider::new([r#"{"value": 2}"#]);
    let real = model.clone();
    let fill =
        testing::cassette_with_mode(CassetteMode::RecordMissing, &cassette, move || Ok(real))
            .unwrap();
    let fill = client(fill);
    assert_eq!(
        u8::ai(&fill, "one", "Write the number.").await.value(),
        Some(&1)
    );
    assert_eq!(
        u8::ai(&fill, "two", "Write the number.").await.value(),
        Some(&2)
    );
    assert_eq!(
        model.requests().len(),
        1,
        "only the missing request reached the model"
    );
    assert_eq!(lines(&cassette).len(), 2);

    let replay = client(
        testing::cassette_with_mode(
            CassetteMode::Replay,
            &cassette,
            || -> Result<ScriptedProvider, IntentError> {
                panic!("a replay never builds the real provider")
            },
        )
        .unwrap(),
    );
    assert_eq!(
        u8::ai(&replay, "two", "Write the number.").await.value(),
        Some(&2)
    );

    // Record starts the cassette anew (once per process and file): one line, not three.
    let again = testing::cassette_with_mode(
        CassetteMode::Record,
        &cassette,
        scripted(&[r#"{"value": 3}"#]),
    )
    .unwrap();
    assert_eq!(
        u8::ai(&client(again), "three", "Write the number.")
            .await
            .value(),
        Some(&3)
    );
    assert_eq!(
        lines(&cassette).len(),
        3,
        "a second recorder in the same process adds to the file"
    );
    let fresh = dir.path().join("fresh.jsonl");
    std::fs::write(&fresh, "{\"stale\": true}\n").unwrap();
    let anew =
        testing::cassette_with_mode(CassetteMode::Record, &fresh, scripted(&[r#"{"value": 4}"#]))
            .unwrap();
    assert_eq!(
        u8::ai(&client(anew), "four", "Write the number.")
            .await
            .value(),
        Some(&4)
    );
    assert_eq!(
        lines(&fresh).len(),
        1,
        "the first recorder of a file in a process empties it"
    );
}

#[test]
fn a_broken_cassette_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("broken.jsonl");
    std::fs::write(&cassette, "\n{\"key\": \"k\"}\n").unwrap();
    let error = ReplayProvider::open(&cassette).unwrap_err().to_string();
    assert!(
        error.contains("broken.jsonl:2: the line is not a recording: missing field"),
        "{error}"
    );
    assert!(testing::CassetteMode::parse("rewind")
        .unwrap_err()
        .to_string()
        .contains("must be one of: replay, record, record-missing"));
}

/// The committed recording of the real local model (Qwen2.5-Coder-0.5B behind llama.cpp), made
/// with `INTENT_CASSETTE_MODE=record INTENT_LLM_BASE_URL=… cargo test -p intent-tests --test calls replay`.
fn real_model_cassette() -> PathBuf {
    intent_tests::fixture("cassettes/real_model.jsonl")
}

/// The local model when recording; never called on a replay.
fn local_model() -> Result<OpenAiProvider, IntentError> {
    let base = std::env::var("INTENT_LLM_BASE_URL").map_err(|_| {
        IntentError::Config(
            "recording needs INTENT_LLM_BASE_URL (scripts/local-llm/start.sh)".into(),
        )
    })?;
    Ok(OpenAiProvider::new("")
        .with_base_url(base)
        .with_model("local")
        .with_name("local")
        .with_timeout(Duration::from_secs(300)))
}

#[tokio::test]
async fn a_recording_of_the_real_model_replays_offline() {
    let provider = testing::cassette(real_model_cassette(), local_model).unwrap();
    let client = client(provider);
    let options = AiRequestOptions {
        temperature: Some(0.0),
        max_output_tokens: Some(64),
        ..AiRequestOptions::default()
    };
    let contact = client
        .transform(
            "Hello, my name is Dana and I live in Paris.",
            "Extract the contact.",
            json!({"type": "object", "properties": {"name": {"type": "string"}, "city": {"type": "string"}}, "required": ["name", "city"]}),
        )
        .options(options.clone())
        .await;
    assert_eq!(
        contact.value(),
        Some(&json!({"name": "Dana", "city": "Paris"})),
        "{:?}",
        contact.issues()
    );
    let attempt = &contact.attempts()[0];
    assert_eq!(attempt.provider, "local");
    assert!(
        attempt.usage.input_tokens > 50 && attempt.usage.output_tokens > 0,
        "{:?}",
        attempt.usage
    );

    // A check the model's first answer breaks: retried with the finding, replayed attempt for
    // attempt. (A `validate` check, which the first prompt does not state; a `require` rule is
    // stated up front, and this model meets it at once.)
    let fruits = u32::ai(&client, "3 apples and 4 pears", "Count the fruits.")
        .options(AiRequestOptions {
            max_output_tokens: Some(16),
            ..options
        })
        .validate(|n| {
            if *n >= 100 {
                Vec::new()
            } else {
                vec!["The answer must be the number of fruits multiplied by 100.".to_owned()]
            }
        })
        .await;
    assert!(fruits.attempts().len() >= 2, "{:?}", fruits.attempts());
    assert_eq!(fruits.attempts()[0].issues[0].kind, IssueKind::Check);
    assert!(fruits.attempts()[1].usage.input_tokens > attempt.usage.input_tokens / 2);
}

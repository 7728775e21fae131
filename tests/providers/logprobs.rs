//! Confidence from log probabilities on the wire (127.0.0.1): replies recorded from llama.cpp's
//! server (Qwen2.5-Coder-0.5B, temperature 0, `"logprobs": true`, 2026-12-02), read whole and
//! streamed, give each enum and `bool` member the probability of its chosen value; a provider
//! that gives none refuses the request before anything is sent.
//!
//! The recordings have OpenAI Chat Completions' `ChatCompletionTokenLogprob` shape (`token`,
//! `logprob`, `bytes`, `top_logprobs`) plus llama.cpp's `id`; read whole, the last token is the
//! end of sequence (`"token": ""`, `"bytes": []`), which writes no text.

use intent_core::prelude::*;
use intent_core::IssueKind;
use serde::Deserialize;
use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::openai_stream::provider_at;
use intent_tests::sse_server::{Reply, SseServer};
use intent_tests::wire::{answering, anthropic, body_of, sent};

/// A reply read whole: `{"value": {"intent": "refund", "urgent": false}}`.
const WHOLE: &str = include_str!("../fixtures/recorded/llama_cpp_logprobs.json");
/// The same request streamed, with `stream_options.include_usage`.
const STREAMED: &[u8] = include_bytes!("../fixtures/recorded/llama_cpp_logprobs.sse");

/// What a support message asks for.
#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Refund,
    Question,
    Complaint,
}

/// How a support message is routed.
#[derive(Debug, Deserialize, Intent, PartialEq)]
struct Ticket {
    intent: Kind,
    urgent: bool,
}

const MESSAGE: &str = "I was charged twice for my order, please give me my money back.";

fn asking() -> AiRequestOptions {
    AiRequestOptions {
        logprobs: true,
        max_attempts: Some(1),
        ..AiRequestOptions::default()
    }
}

/// The log probability the recording gives the token `text`, found by its text alone.
fn logprob_of(tokens: &[Value], text: &str) -> f64 {
    let found: Vec<f64> = tokens
        .iter()
        .filter(|t| t["token"] == text)
        .map(|t| t["logprob"].as_f64().unwrap())
        .collect();
    assert_eq!(found.len(), 1, "one token {text:?} in the recording");
    found[0]
}

/// The recorded stream's tokens, every chunk's in order.
fn streamed_tokens() -> Vec<Value> {
    std::str::from_utf8(STREAMED)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("data: {"))
        .map(|json| serde_json::from_str::<Value>(&format!("{{{json}")).unwrap())
        .flat_map(|chunk| {
            chunk["choices"][0]["logprobs"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

/// Checks the confidence the attempt gives against the recording's own figures: `"refund"` is
/// one token, `false` is the token ` false` (its space included).
fn assert_confidence(result: &AiResult<Ticket>, tokens: &[Value]) {
    assert_eq!(
        result.value(),
        Some(&Ticket {
            intent: Kind::Refund,
            urgent: false
        }),
        "{:?}",
        result.issues()
    );
    let attempt = &result.attempts()[0];
    assert!(attempt.notices.is_empty(), "{:?}", attempt.notices);
    let given: Vec<(&str, &Value)> = attempt
        .confidence
        .iter()
        .map(|c| (c.path.as_str(), &c.value))
        .collect();
    assert_eq!(
        given,
        [
            ("/value/intent", &Value::from("refund")),
            ("/value/urgent", &Value::from(false))
        ]
    );
    let expected = [
        logprob_of(tokens, "refund").exp(),
        logprob_of(tokens, " false").exp(),
    ];
    for (confidence, expected) in attempt.confidence.iter().zip(expected) {
        assert!(
            (confidence.probability - expected).abs() < 1e-12,
            "{confidence:?}, expected {expected}"
        );
        assert!(confidence.probability > 0.0 && confidence.probability < 1.0);
    }
}

#[tokio::test]
async fn a_recorded_reply_read_whole_gives_each_members_confidence() {
    let recording: Value = serde_json::from_str(WHOLE).unwrap();
    let server = answering(recording.clone()).await;
    let client = IntentClient::new(intent_tests::wire::openai(&server));
    let result = Ticket::ai(&client, MESSAGE, "Classify the support message.")
        .options(asking())
        .await;
    let tokens = recording["choices"][0]["logprobs"]["content"]
        .as_array()
        .unwrap();
    // The end-of-sequence token is in the recording and writes nothing.
    assert_eq!(tokens.last().unwrap()["token"], "");
    assert_confidence(&result, tokens);
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["logprobs"], true);
}

#[tokio::test]
async fn a_recorded_stream_gives_the_same_members_their_confidence() {
    let server = SseServer::start(|_| Reply::events([STREAMED.to_vec()])).await;
    let client = IntentClient::new(provider_at(&server.base));
    let result = Ticket::ai(&client, MESSAGE, "Classify the support message.")
        .options(asking())
        .stream()
        .finish()
        .await;
    assert_confidence(&result, &streamed_tokens());
    let body: Value = serde_json::from_str(&server.requests()[0]).unwrap();
    assert_eq!(
        (&body["logprobs"], &body["stream"]),
        (&true.into(), &true.into())
    );
}

#[tokio::test]
async fn without_logprobs_nothing_is_asked_and_no_confidence_is_given() {
    let server = answering(serde_json::from_str(WHOLE).unwrap()).await;
    let client = IntentClient::new(intent_tests::wire::openai(&server));
    let result = Ticket::ai(&client, MESSAGE, "Classify the support message.").await;
    assert!(result.is_success());
    assert!(result.attempts()[0].confidence.is_empty());
    let body = body_of(&sent(&server).await[0]);
    assert!(body.get("logprobs").is_none(), "{body}");
}

#[tokio::test]
async fn a_reply_without_log_probabilities_says_so_on_the_attempt() {
    let mut recording: Value = serde_json::from_str(WHOLE).unwrap();
    recording["choices"][0]["logprobs"] = Value::Null;
    let server = answering(recording).await;
    let client = IntentClient::new(intent_tests::wire::openai(&server));
    let result = Ticket::ai(&client, MESSAGE, "Classify the support message.")
        .options(asking())
        .await;
    assert!(result.is_success());
    let attempt = &result.attempts()[0];
    assert!(attempt.confidence.is_empty());
    assert!(attempt.notices[0]
        .message
        .contains("gave no log probabilities"));
}

#[tokio::test]
async fn anthropic_refuses_logprobs_before_sending() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let client = IntentClient::new(anthropic(&server));
    let result = Ticket::ai(&client, MESSAGE, "Classify the support message.")
        .options(asking())
        .await;
    assert!(!result.is_success());
    assert!(sent(&server).await.is_empty());
    let issue = &result.issues()[0];
    assert_eq!(issue.kind, IssueKind::Provider);
    assert!(
        issue.message.contains("gives no log probabilities"),
        "{}",
        issue.message
    );
}

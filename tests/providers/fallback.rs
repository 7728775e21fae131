//! Fallback between real HTTP providers on two local servers: the fallback gets the same request
//! when the primary fails, naming a provider turns fallback off, and each attempt records who
//! answered.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::RetryPolicy;
use intent_core::IssueKind;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fast() -> RetryPolicy {
    RetryPolicy {
        max_retries: 1,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(1),
    }
}

async fn failing_openai() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_json(json!({"error": {
            "message": "The engine is currently overloaded, please try again later.",
            "type": "server_error", "param": null, "code": null
        }})))
        .mount(&server)
        .await;
    server
}

async fn working_anthropic(text: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 20, "output_tokens": 4}
        })))
        .mount(&server)
        .await;
    server
}

fn client(primary: &MockServer, fallback: &MockServer) -> IntentClient {
    IntentClient::builder()
        .provider(
            OpenAiProvider::new("sk-primary")
                .with_base_url(format!("{}/v1", primary.uri()))
                .with_retry_policy(fast()),
        )
        .fallback(
            AnthropicProvider::new("sk-ant-fallback")
                .with_base_url(fallback.uri())
                .with_retry_policy(fast()),
        )
        .build()
        .unwrap()
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn a_failing_primary_falls_back_to_a_working_provider() {
    let primary = failing_openai().await;
    let fallback = working_anthropic("{\"value\": 12}").await;
    let result = u32::ai(
        &client(&primary, &fallback),
        "a dozen eggs",
        "How many eggs?",
    )
    .await;

    assert_eq!(result.value(), Some(&12));
    assert_eq!(result.attempts().len(), 1);
    let attempt = &result.attempts()[0];
    assert_eq!(attempt.provider, "anthropic");
    assert_eq!(attempt.model, "claude-haiku-4-5-20251001");
    assert_eq!(result.usage().input_tokens, 20);

    let sent_primary = bodies(&primary).await;
    let sent_fallback = bodies(&fallback).await;
    assert_eq!(sent_primary.len(), 2, "the primary's transport retry");
    assert_eq!(sent_fallback.len(), 1);
    // The same request: the same system prompt, user message and schema.
    assert_eq!(
        sent_primary[0]["messages"][0]["content"],
        sent_fallback[0]["system"]
    );
    assert_eq!(
        sent_primary[0]["messages"][1]["content"],
        sent_fallback[0]["messages"][0]["content"]
    );
    assert_eq!(
        sent_primary[0]["response_format"]["json_schema"]["schema"],
        sent_fallback[0]["output_config"]["format"]["schema"]
    );
}

#[tokio::test]
async fn the_named_model_goes_to_the_fallback_too() {
    let primary = failing_openai().await;
    let fallback = working_anthropic("{\"value\": 3}").await;
    let options = AiRequestOptions {
        model: Some("shared-model".into()),
        ..AiRequestOptions::default()
    };
    let result = u32::ai(&client(&primary, &fallback), "a, b, c", "Count.")
        .options(options)
        .await;
    assert!(result.is_success());
    assert_eq!(bodies(&primary).await[0]["model"], "shared-model");
    assert_eq!(bodies(&fallback).await[0]["model"], "shared-model");
}

#[tokio::test]
async fn naming_a_provider_turns_fallback_off() {
    let primary = failing_openai().await;
    let fallback = working_anthropic("{\"value\": 3}").await;
    let options = AiRequestOptions {
        provider: Some("openai".into()),
        ..AiRequestOptions::default()
    };
    let result = u32::ai(&client(&primary, &fallback), "a, b, c", "Count.")
        .options(options)
        .await;
    assert!(!result.is_success());
    assert!(bodies(&fallback).await.is_empty());
    assert_eq!(result.attempts()[0].provider, "openai");
    assert_eq!(result.issues()[0].kind, IssueKind::Provider);
    assert!(
        result.issues()[0]
            .message
            .starts_with("openai: HTTP 503 server_error: The engine is currently overloaded"),
        "{}",
        result.issues()[0].message
    );
}

#[tokio::test]
async fn naming_the_fallback_sends_to_it_alone() {
    let primary = failing_openai().await;
    let fallback = working_anthropic("{\"value\": 5}").await;
    let options = AiRequestOptions {
        provider: Some("anthropic".into()),
        ..AiRequestOptions::default()
    };
    let result = u32::ai(&client(&primary, &fallback), "five", "Read the number.")
        .options(options)
        .await;
    assert_eq!(result.value(), Some(&5));
    assert!(bodies(&primary).await.is_empty());
}

#[tokio::test]
async fn when_every_provider_fails_the_last_error_is_reported() {
    let primary = failing_openai().await;
    let fallback = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(json!({
            "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}
        })))
        .mount(&fallback)
        .await;
    let result = u32::ai(&client(&primary, &fallback), "x", "Count.").await;
    assert!(!result.is_success());
    assert_eq!(result.attempts().len(), 1);
    assert_eq!(result.attempts()[0].provider, "anthropic");
    assert_eq!(
        result.issues()[0].message,
        "anthropic: HTTP 529 overloaded_error: Overloaded (gave up after 2 tries; max_retries = 1)"
    );
}

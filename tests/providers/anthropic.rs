//! Anthropic Messages over HTTP: the exact body and headers sent for each response format and
//! option, and the reply's text blocks, stop reason and usage read back.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{
    AnthropicProvider, FinishReason, Provider, ProviderErrorKind, RetryPolicy,
};
use intent_core::{AiRequest, ResponseFormat};
use serde_json::{json, Value};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const KEY: &str = "sk-ant-test-0123456789";

fn provider(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new(KEY)
        .with_base_url(server.uri())
        .with_retry_policy(RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
            max_retry_after: Duration::from_secs(2),
        })
        .with_timeout(Duration::from_secs(5))
}

fn reply(text: &str, stop_reason: &str) -> Value {
    json!({
        "id": "msg_01A", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 40, "output_tokens": 12,
                  "cache_creation_input_tokens": 5, "cache_read_input_tokens": 100}
    })
}

async fn answering(body: Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    server
}

async fn sent(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap_or_default()
}

fn body_of(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("the request body is JSON")
}

fn request() -> AiRequest {
    AiRequest::new("You are terse.", "Say hi.")
}

#[tokio::test]
async fn strict_schema_request_sends_output_config_system_and_max_tokens() {
    let server = answering(reply("{\"value\": 1}", "end_turn")).await;
    let schema = json!({
        "type": "object",
        "properties": {"value": {"type": "integer"}},
        "required": ["value"],
        "additionalProperties": false
    });
    let mut request = request().with_format(ResponseFormat::JsonSchema, Some(schema.clone()));
    request.max_output_tokens = Some(1024);
    request.temperature = Some(0.0);
    provider(&server).complete(&request).await.unwrap();

    let requests = sent(&server).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(
        body_of(&requests[0]),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "system": "You are terse.",
            "messages": [{"role": "user", "content": "Say hi."}],
            "temperature": 0.0,
            "output_config": {"format": {"type": "json_schema", "schema": schema}}
        })
    );
    let headers = &requests[0].headers;
    assert_eq!(headers["x-api-key"], KEY);
    assert_eq!(headers["anthropic-version"], "2023-06-01");
    assert_eq!(headers["content-type"], "application/json");
    assert!(headers.get("authorization").is_none());
}

#[tokio::test]
async fn text_and_json_object_requests_send_no_format_and_the_default_max_tokens() {
    let server = answering(reply("hi", "end_turn")).await;
    let provider = provider(&server);
    provider.complete(&request()).await.unwrap();
    provider
        .complete(&request().with_format(ResponseFormat::JsonObject, None))
        .await
        .unwrap();
    let expected = json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": "You are terse.",
        "messages": [{"role": "user", "content": "Say hi."}]
    });
    for request in sent(&server).await {
        assert_eq!(body_of(&request), expected);
    }
}

#[tokio::test]
async fn temperature_is_sent_when_set_unless_send_temperature_is_off() {
    let server = answering(reply("hi", "end_turn")).await;
    let mut request = request();
    request.temperature = Some(0.25);
    request.model = Some("claude-haiku-4-5".into());
    let on = provider(&server).with_default_max_tokens(300);
    assert!(on.sends_temperature());
    on.complete(&request).await.unwrap();
    assert!(on.notices(&request).is_empty());
    let off = provider(&server).with_send_temperature(false);
    off.complete(&request).await.unwrap();
    let notices = off.notices(&request);
    assert_eq!(notices.len(), 1);
    assert!(
        notices[0].message.starts_with(
            "`temperature` was not sent to anthropic (Anthropic Messages, model claude-haiku-4-5)"
        ) && notices[0].message.contains("with_send_temperature(false)"),
        "{notices:?}"
    );
    let requests = sent(&server).await;
    let (sent_on, sent_off) = (body_of(&requests[0]), body_of(&requests[1]));
    assert_eq!(sent_on["temperature"], 0.25);
    assert_eq!(sent_on["max_tokens"], 300);
    assert_eq!(sent_on["model"], "claude-haiku-4-5");
    assert!(sent_off.get("temperature").is_none());
}

#[tokio::test]
async fn text_is_taken_from_text_blocks_and_usage_adds_cache_tokens() {
    let mut body = reply("", "end_turn");
    body["content"] = json!([
        {"type": "thinking", "thinking": "Let me see.", "signature": "abc"},
        {"type": "text", "text": "{\"value\": "},
        {"type": "text", "text": "42}"}
    ]);
    let server = answering(body).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "{\"value\": 42}");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.model, "claude-sonnet-4-5-20250929");
    assert_eq!(response.usage.input_tokens, 145);
    assert_eq!(response.usage.output_tokens, 12);
    assert_eq!(response.usage.cached_tokens, 100);
}

#[tokio::test]
async fn stop_reason_max_tokens_is_a_truncation() {
    let server = answering(reply("{\"value\": [1,", "max_tokens")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
}

#[tokio::test]
async fn stop_reason_refusal_is_a_refusal() {
    let server = answering(reply("I can't help with that.", "refusal")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Refusal);
    assert_eq!(response.refusal.as_deref(), Some("I can't help with that."));
}

#[tokio::test]
async fn overloaded_529_is_retried_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(529).set_body_json(json!({
            "type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"
        })))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(header("x-api-key", KEY))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply("ok", "end_turn")))
        .mount(&server)
        .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(sent(&server).await.len(), 2);
}

#[tokio::test]
async fn invalid_request_400_is_not_retried_and_carries_the_providers_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({
            "type": "error",
            "error": {"type": "invalid_request_error", "message": "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"},
            "request_id": "req_2"
        })))
        .expect(1)
        .mount(&server)
        .await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert_eq!(
        error.to_string(),
        "anthropic: HTTP 400 invalid_request_error: output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"
    );
}

#[tokio::test]
async fn spend_limit_429_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(json!({
            "type": "error",
            "error": {"type": "rate_limit_error", "message": "You have reached your specified workspace API usage limits.",
                      "details": {"error_code": "enforced_spend_limit_reached"}}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::QuotaExhausted);
    assert!(error.message.contains("not retried"), "{}", error.message);
}

#[tokio::test]
async fn a_typed_call_over_anthropic_reads_the_value_and_records_usage() {
    let server = answering(reply("{\"value\": 7}", "end_turn")).await;
    let client = IntentClient::new(provider(&server));
    let result = u8::ai(&client, "3 + 4", "Compute.").await;
    assert_eq!(result.value(), Some(&7));
    assert_eq!(result.attempts()[0].provider, "anthropic");
    assert_eq!(result.usage().output_tokens, 12);
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(
        body["output_config"]["format"]["schema"],
        u8::strict_envelope_schema().unwrap()
    );
}

#[test]
fn debug_output_never_shows_the_key() {
    let debug = format!("{:?}", AnthropicProvider::new(KEY));
    assert!(!debug.contains(KEY), "{debug}");
    assert!(debug.contains("[redacted]"), "{debug}");
}

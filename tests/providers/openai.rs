//! OpenAI Chat Completions over HTTP: the exact body and headers sent for each response format and
//! option, and the reply's content, refusal, finish reason and usage read back.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{
    FinishReason, MaxTokensField, OpenAiProvider, Provider, ProviderErrorKind, RetryPolicy,
};
use intent_core::{AiRequest, ResponseFormat};
use serde_json::{json, Value};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const KEY: &str = "sk-test-0123456789abcdef";

fn fast() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(2),
    }
}

fn provider(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new(KEY)
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(fast())
        .with_timeout(Duration::from_secs(5))
}

fn reply(content: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": content, "refusal": null}}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39,
                  "prompt_tokens_details": {"cached_tokens": 12}}
    })
}

async fn answering(body: Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
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
async fn text_request_sends_no_response_format_and_no_unset_options() {
    let server = answering(reply(json!("hi"), "stop")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "hi");

    let requests = sent(&server).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(
        body_of(&requests[0]),
        json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Say hi."}
            ]
        })
    );
    let headers = &requests[0].headers;
    assert_eq!(headers["authorization"], format!("Bearer {KEY}").as_str());
    assert_eq!(headers["content-type"], "application/json");
}

#[tokio::test]
async fn json_object_request_sends_json_object_format() {
    let server = answering(reply(json!("{\"a\": 1}"), "stop")).await;
    let request = request().with_format(ResponseFormat::JsonObject, None);
    provider(&server).complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
}

#[tokio::test]
async fn strict_schema_request_sends_named_strict_schema_tokens_temperature_and_model() {
    let server = answering(reply(json!("{\"value\": 1}"), "stop")).await;
    let schema = json!({
        "type": "object",
        "properties": {"value": {"type": "integer"}},
        "required": ["value"],
        "additionalProperties": false
    });
    let mut request = request().with_format(ResponseFormat::JsonSchema, Some(schema.clone()));
    request.max_output_tokens = Some(256);
    request.temperature = Some(0.0);
    request.model = Some("gpt-4o-2024-08-06".into());
    provider(&server).complete(&request).await.unwrap();
    assert_eq!(
        body_of(&sent(&server).await[0]),
        json!({
            "model": "gpt-4o-2024-08-06",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Say hi."}
            ],
            "max_completion_tokens": 256,
            "temperature": 0.0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "intent_output", "strict": true, "schema": schema}
            }
        })
    );
}

#[tokio::test]
async fn max_tokens_field_is_configurable_for_servers_that_read_only_max_tokens() {
    let server = answering(reply(json!("hi"), "stop")).await;
    let mut request = request();
    request.max_output_tokens = Some(64);
    request.temperature = Some(0.5);
    provider(&server)
        .with_max_tokens_field(MaxTokensField::MaxTokens)
        .with_model("qwen2.5")
        .complete(&request)
        .await
        .unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["max_tokens"], 64);
    assert!(body.get("max_completion_tokens").is_none());
    assert_eq!(body["temperature"], 0.5);
    assert_eq!(body["model"], "qwen2.5");
}

#[tokio::test]
async fn judge_schema_name_is_sent_as_given() {
    let server = answering(reply(json!("{}"), "stop")).await;
    let mut request =
        request().with_format(ResponseFormat::JsonSchema, Some(json!({"type": "object"})));
    request.schema_name = intent_core::JUDGE_SCHEMA_NAME.to_owned();
    provider(&server).complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "judge_verdict"
    );
}

#[tokio::test]
async fn key_goes_in_a_custom_header_when_asked() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/openai/v1/chat/completions"))
        .and(header("api-key", KEY))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply(json!("ok"), "stop")))
        .mount(&server)
        .await;
    let provider = OpenAiProvider::new(KEY)
        .with_base_url(format!("{}/openai/v1", server.uri()))
        .with_key_header("api-key");
    let response = provider.complete(&request()).await.unwrap();
    assert_eq!(response.text, "ok");
    assert!(sent(&server).await[0]
        .headers
        .get("authorization")
        .is_none());
}

#[tokio::test]
async fn no_authorization_header_is_sent_without_a_key() {
    let server = answering(reply(json!("ok"), "stop")).await;
    OpenAiProvider::new("")
        .with_base_url(format!("{}/v1", server.uri()))
        .complete(&request())
        .await
        .unwrap();
    assert!(sent(&server).await[0]
        .headers
        .get("authorization")
        .is_none());
}

#[tokio::test]
async fn reply_content_model_and_usage_with_cached_tokens_are_mapped() {
    let server = answering(reply(json!("{\"value\": 42}"), "stop")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "{\"value\": 42}");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.model, "gpt-4o-mini-2024-07-18");
    assert_eq!(response.refusal, None);
    assert_eq!(response.usage.input_tokens, 30);
    assert_eq!(response.usage.output_tokens, 9);
    assert_eq!(response.usage.cached_tokens, 12);
    assert_eq!(response.usage.calls, 1);
}

#[tokio::test]
async fn finish_reason_length_is_a_truncation() {
    let server = answering(reply(json!("{\"value\": [1, 2,"), "length")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(response.text, "{\"value\": [1, 2,");
}

#[tokio::test]
async fn refusal_is_mapped_with_its_message() {
    let mut body = reply(Value::Null, "stop");
    body["choices"][0]["message"]["refusal"] = json!("I'm sorry, I can't help with that.");
    let server = answering(body).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Refusal);
    assert_eq!(response.text, "");
    assert_eq!(
        response.refusal.as_deref(),
        Some("I'm sorry, I can't help with that.")
    );
}

#[tokio::test]
async fn content_filter_is_mapped() {
    let server = answering(reply(Value::Null, "content_filter")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
}

#[tokio::test]
async fn invalid_schema_400_is_not_retried_and_carries_the_providers_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "Invalid schema for response_format 'intent_output': In context=(), 'additionalProperties' is required to be supplied and to be false.",
            "type": "invalid_request_error", "param": "response_format", "code": null
        }})))
        .expect(1)
        .mount(&server)
        .await;
    let request =
        request().with_format(ResponseFormat::JsonSchema, Some(json!({"type": "object"})));
    let error = provider(&server).complete(&request).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert_eq!(error.status, Some(400));
    assert_eq!(error.provider, "openai");
    assert_eq!(
        error.to_string(),
        "openai: HTTP 400 invalid_request_error: Invalid schema for response_format 'intent_output': In context=(), 'additionalProperties' is required to be supplied and to be false."
    );
}

#[tokio::test]
async fn a_reply_with_no_choices_is_a_decode_error() {
    let server = answering(json!({"id": "x", "choices": []})).await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Decode);
    assert!(error.message.contains("no choices[0]"), "{}", error.message);
}

#[tokio::test]
async fn an_invalid_base_url_is_a_configuration_error_not_a_retried_fault() {
    let error = OpenAiProvider::new(KEY)
        .with_base_url("not a url")
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Config);
    assert!(error.message.contains("base URL"), "{}", error.message);
}

#[tokio::test]
async fn a_typed_call_records_provider_model_and_usage() {
    let server = answering(reply(json!("{\"value\": 42}"), "stop")).await;
    let client = IntentClient::new(provider(&server));
    let result = u32::ai(&client, "six times seven", "Compute.").await;
    assert_eq!(result.value(), Some(&42));
    let attempt = &result.attempts()[0];
    assert_eq!(attempt.provider, "openai");
    assert_eq!(attempt.model, "gpt-4o-mini-2024-07-18");
    assert_eq!(result.usage().input_tokens, 30);
    assert_eq!(result.usage().cached_tokens, 12);

    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
    assert_eq!(
        body["response_format"]["json_schema"]["schema"],
        u32::strict_envelope_schema().unwrap()
    );
    assert!(body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("six times seven"));
}

#[test]
fn debug_output_never_shows_the_key() {
    let provider =
        OpenAiProvider::new(KEY).with_base_url("https://user:pass@example.com/v1?key=abc");
    let debug = format!("{provider:?}");
    assert!(!debug.contains(KEY), "{debug}");
    assert!(!debug.contains("pass"), "{debug}");
    assert!(!debug.contains("key=abc"), "{debug}");
    assert!(debug.contains("[redacted]"), "{debug}");
}

#[tokio::test]
async fn errors_never_show_the_key_even_when_the_server_echoes_it() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"error": {
            "message": format!("Incorrect API key provided: {KEY}."),
            "type": "invalid_request_error", "param": null, "code": "invalid_api_key"
        }})))
        .expect(1)
        .mount(&server)
        .await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Auth);
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(
        shown.contains("Incorrect API key provided: [redacted]."),
        "{shown}"
    );
}

//! Schema step-down over HTTP: a provider that answers 400 because it refuses the strict schema
//! (each provider's own wording, and Gemini's refusal before sending) gets the same attempt once
//! more in JSON-object mode, with the schema in the prompt; the reply is verified as usual and
//! the step-down is a notice on the attempt's record. Any other 400 still fails the call.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::OpenAiApi;
use intent_core::IssueKind;
use intent_tests::derive_types::Order;
use serde_json::{json, Value};
use wiremock::matchers::{body_partial_json, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

use intent_tests::wire::{anthropic, body_of, failing_then, openai, quick_retries, sent};

const ORDER: &str = r#"{"value": {"id": "A-1", "lines": [{"sku": "X-1", "quantity": 2}]}}"#;

fn chat_reply(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}
    })
}

fn gemini(server: &MockServer) -> GeminiProvider {
    GeminiProvider::new("AIza-test")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(1))
}

/// Extracts the order through `client` from a server that refuses the schema once: the result,
/// and the strict and stepped-down bodies the server received.
async fn exchange(client: IntentClient, server: &MockServer) -> (AiResult<Order>, Value, Value) {
    let result = Order::ai(&client, "order A-1: 2 of X-1", "Extract the order.").await;
    let requests = sent(server).await;
    assert_eq!(
        requests.len(),
        2,
        "one refusal, one step-down, no transport retry"
    );
    (result, body_of(&requests[0]), body_of(&requests[1]))
}

fn refusal(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

fn openai_schema_refusal() -> ResponseTemplate {
    refusal(
        400,
        json!({"error": {
            "message": "Invalid schema for response_format 'intent_output': In context=('properties', 'value'), 'allOf' is not permitted.",
            "type": "invalid_request_error", "param": "response_format", "code": "invalid_json_schema"
        }}),
    )
}

/// Makes `server` refuse every Chat Completions request that carries the strict schema, as a real
/// server does (at priority 1, before the server's other replies).
async fn refuse_every_strict_schema(server: &MockServer) {
    Mock::given(method("POST"))
        .and(body_partial_json(
            json!({"response_format": {"type": "json_schema"}}),
        ))
        .respond_with(openai_schema_refusal())
        .with_priority(1)
        .mount(server)
        .await;
}

/// Checks a stepped-down exchange: a strict first body, a JSON-object second one with the schema
/// in its prompt and otherwise the same messages, and the notice on the one attempt.
fn assert_stepped_down(result: &AiResult<Order>, strict: &Value, user: &str) {
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.value().unwrap().lines[0].quantity, 2);
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 1, "the step-down is the same attempt");
    assert!(attempts[0].passed());
    let notice = &attempts[0].notices[0];
    assert_eq!(notice.kind, IssueKind::Request);
    assert!(
        notice
            .message
            .starts_with("The provider refused the strict JSON schema (HTTP 400): ")
            && notice.message.contains("sent again in JSON-object mode"),
        "{}",
        notice.message
    );
    assert!(strict
        .to_string()
        .contains("\"additionalProperties\":false"));
    assert!(user.contains("\n\n## Output schema\nThe JSON object you reply with must match this JSON schema exactly"), "{user}");
    assert!(
        user.contains(r#""lines":{"#),
        "the schema is in the prompt: {user}"
    );
    assert!(
        user.contains("where <result> is Order"),
        "the type's description is kept: {user}"
    );
}

#[tokio::test]
async fn openai_chat_refusing_the_schema_gets_the_attempt_in_json_object_mode() {
    let server = failing_then(vec![openai_schema_refusal()], chat_reply(ORDER)).await;
    let client = IntentClient::new(openai(&server));
    let result = Order::ai(&client, "order A-1: 2 of X-1", "Extract the order.").await;

    let requests = sent(&server).await;
    assert_eq!(
        requests.len(),
        2,
        "one refusal, one step-down, no transport retry"
    );
    let strict = body_of(&requests[0]);
    let stepped = body_of(&requests[1]);
    assert_eq!(strict["response_format"]["type"], "json_schema");
    assert_eq!(stepped["response_format"], json!({"type": "json_object"}));
    assert_eq!(stepped["messages"][0], strict["messages"][0]);
    let user = stepped["messages"][1]["content"].as_str().unwrap();
    assert!(user.starts_with(strict["messages"][1]["content"].as_str().unwrap()));
    assert_stepped_down(&result, &strict, user);
    assert_eq!(
        result.usage().calls,
        1,
        "the refused request cost no model call"
    );
}

#[tokio::test]
async fn the_responses_api_refusing_the_schema_steps_down_to_its_json_object_format() {
    let refused = refusal(
        400,
        json!({"error": {
            "message": "Invalid schema for response_format 'intent_output': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'lines'.",
            "type": "invalid_request_error", "param": "text.format.schema", "code": "invalid_json_schema"
        }}),
    );
    let ok = json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": ORDER}]}],
        "usage": {"input_tokens": 80, "output_tokens": 20, "total_tokens": 100}
    });
    let server = failing_then(vec![refused], ok).await;
    let client = IntentClient::new(openai(&server).with_api(OpenAiApi::Responses));
    let (result, strict, stepped) = exchange(client, &server).await;
    assert_eq!(strict["text"]["format"]["type"], "json_schema");
    assert_eq!(stepped["text"]["format"], json!({"type": "json_object"}));
    let user = stepped["input"][0]["content"].as_str().unwrap();
    assert_stepped_down(&result, &strict, user);
}

#[tokio::test]
async fn anthropic_refusing_the_schema_gets_the_attempt_with_no_output_format() {
    let refused = refusal(
        400,
        json!({"type": "error", "error": {
            "type": "invalid_request_error",
            "message": "output_config.format.schema: Invalid schema: The compiled grammar is too large, which would cause performance issues. Simplify your tool schemas or reduce the number of strict tools."
        }, "request_id": "req_1"}),
    );
    let ok = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": ORDER}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 80, "output_tokens": 20}
    });
    let server = failing_then(vec![refused], ok).await;
    let client = IntentClient::new(anthropic(&server));
    let (result, strict, stepped) = exchange(client, &server).await;
    assert_eq!(strict["output_config"]["format"]["type"], "json_schema");
    assert!(stepped.get("output_config").is_none(), "{stepped}");
    let user = stepped["messages"][0]["content"].as_str().unwrap();
    assert_stepped_down(&result, &strict, user);
}

#[tokio::test]
async fn gemini_refusing_the_schema_with_too_many_states_steps_down() {
    let refused = refusal(
        400,
        json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
            "message": "The specified schema produces a constraint that has too many states for serving.  Typical causes of this error are schemas with lots of text (for example, very long property or enum names), schemas with long array length limits (especially when nested), or schemas using complex value matchers (for example, integers or numbers with minimum/maximum bounds or strings with complex formats like date-time)"}}),
    );
    let ok = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": ORDER}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 80, "candidatesTokenCount": 20, "totalTokenCount": 100}
    });
    let server = failing_then(vec![refused], ok).await;
    let client = IntentClient::new(gemini(&server));
    let (result, strict, stepped) = exchange(client, &server).await;
    assert!(strict["generationConfig"]["responseJsonSchema"].is_object());
    assert!(stepped["generationConfig"]
        .get("responseJsonSchema")
        .is_none());
    assert_eq!(
        stepped["generationConfig"]["responseMimeType"],
        "application/json"
    );
    let user = stepped["contents"][0]["parts"][0]["text"].as_str().unwrap();
    assert_stepped_down(&result, &strict, user);
}

#[tokio::test]
async fn a_schema_gemini_cannot_take_is_sent_once_in_json_object_mode() {
    // Gemini's enum values are strings or numbers: this schema is refused before sending.
    let schema = json!({
        "type": "object",
        "properties": {"answer": {"enum": ["yes", true]}},
        "required": ["answer"],
        "additionalProperties": false
    });
    let ok = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "{\"value\": {\"answer\": true}}"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 9, "totalTokenCount": 59}
    });
    let server = failing_then(vec![], ok).await;
    let client = IntentClient::new(gemini(&server));
    let result = client
        .transform("Is the sky blue?", "Answer the question.", schema)
        .await;

    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.value(), Some(&json!({"answer": true})));
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 1, "the refused schema was never sent");
    let body = body_of(&requests[0]);
    assert!(body["generationConfig"].get("responseJsonSchema").is_none());
    let user = body["contents"][0]["parts"][0]["text"].as_str().unwrap();
    assert!(user.contains(r#""enum":["yes",true]"#), "{user}");
    let notice = &result.attempts()[0].notices[0].message;
    assert!(
        notice.starts_with("The provider refused the strict JSON schema: the strict schema cannot be sent to Gemini: "),
        "{notice}"
    );
}

#[tokio::test]
async fn a_stepped_down_reply_is_still_verified_and_the_retry_skips_the_refused_schema() {
    let server = MockServer::start().await;
    refuse_every_strict_schema(&server).await;
    // JSON-object mode enforces no schema: the first reply misses a member, the retry fixes it.
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(chat_reply(r#"{"value": {"id": "A-1"}}"#)),
        )
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat_reply(ORDER)))
        .with_priority(3)
        .mount(&server)
        .await;
    let client = IntentClient::new(openai(&server));
    let result = Order::ai(&client, "order A-1: 2 of X-1", "Extract the order.").await;

    assert!(result.is_success(), "{:?}", result.issues());
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].issues[0].path.as_deref(), Some("/value/lines"));
    let formats: Vec<Value> = sent(&server)
        .await
        .iter()
        .map(|request| body_of(request)["response_format"]["type"].clone())
        .collect();
    assert_eq!(
        formats,
        ["json_schema", "json_object", "json_object"],
        "the schema is refused once; the retry goes straight to JSON-object mode"
    );
    assert_eq!(attempts[0].notices.len(), 1);
    assert!(attempts[0].notices[0]
        .message
        .starts_with("The provider refused the strict JSON schema (HTTP 400): "));
    assert_eq!(attempts[1].notices.len(), 1, "the notice is on each record");
    let later = &attempts[1].notices[0];
    assert_eq!(later.kind, IssueKind::Request);
    assert!(
        later.message.starts_with(
            "The provider refused the strict JSON schema earlier in this call (HTTP 400): HTTP 400 invalid_request_error: Invalid schema for response_format"
        ) && later.message.contains("sent in JSON-object mode at once"),
        "{}",
        later.message
    );
    assert_eq!(result.usage().calls, 2, "the refusal cost no model call");
}

#[tokio::test]
async fn a_step_down_is_remembered_per_provider() {
    // The primary refuses the schema and then fails in JSON-object mode too; the fallback takes
    // the schema, and keeps being sent it.
    let primary = MockServer::start().await;
    refuse_every_strict_schema(&primary).await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .with_priority(2)
        .mount(&primary)
        .await;
    let fallback = failing_then(
        vec![ResponseTemplate::new(200).set_body_json(chat_reply(r#"{"value": {"id": "A-1"}}"#))],
        chat_reply(ORDER),
    )
    .await;
    let client = IntentClient::builder()
        .provider(openai(&primary))
        .fallback(openai(&fallback).with_name("second"))
        .build()
        .unwrap();
    let result = Order::ai(&client, "order A-1: 2 of X-1", "Extract the order.").await;

    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.attempts().len(), 2);
    let formats = |requests: Vec<wiremock::Request>| -> Vec<Value> {
        requests
            .iter()
            .map(|request| body_of(request)["response_format"]["type"].clone())
            .collect()
    };
    assert_eq!(
        formats(sent(&primary).await),
        [
            "json_schema",
            "json_object",
            "json_object",
            "json_object",
            "json_object"
        ],
        "the primary is sent the schema once, then JSON-object requests (each tried twice)"
    );
    assert_eq!(
        formats(sent(&fallback).await),
        ["json_schema", "json_schema"],
        "the fallback never refused the schema"
    );
}

#[tokio::test]
async fn a_400_that_is_not_about_the_schema_fails_without_a_step_down() {
    let refused = refusal(
        400,
        json!({"error": {
            "message": "The model `gpt-9` does not exist or you do not have access to it.",
            "type": "invalid_request_error", "param": null, "code": "model_not_found"
        }}),
    );
    let server = failing_then(vec![refused.clone(), refused], chat_reply(ORDER)).await;
    let client = IntentClient::new(openai(&server).with_timeout(Duration::from_secs(5)));
    let result = Order::ai(&client, "order A-1", "Extract the order.").await;

    assert!(!result.is_success());
    assert_eq!(result.issues()[0].kind, IssueKind::Provider);
    assert!(result.issues()[0].message.contains("gpt-9"));
    assert_eq!(sent(&server).await.len(), 1);
    assert!(result.attempts()[0].notices.is_empty());
}

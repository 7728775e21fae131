//! OpenAI's Responses API over HTTP (`OpenAiProvider::with_api(OpenAiApi::Responses)`): the exact
//! body for each response format and option, the reply's output items, status, incomplete reason
//! and usage read back, and its errors.

use std::time::{Duration, Instant};

use intent_core::prelude::*;
use intent_core::provider::{FinishReason, OpenAiApi, OpenAiProvider, Provider, ProviderErrorKind};
use intent_core::Intent;
use intent_core::{AiRequest, ResponseFormat};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use intent_tests::wire::{answering, body_of, failing_then, quick_retries, sent};

const KEY: &str = "sk-test-responses-0123456789";

fn provider(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new(KEY)
        .with_base_url(format!("{}/v1", server.uri()))
        .with_api(OpenAiApi::Responses)
        .with_retry_policy(quick_retries(2))
        .with_timeout(Duration::from_secs(5))
}

fn message(content: Value) -> Value {
    json!({"type": "message", "id": "msg_1", "status": "completed", "role": "assistant", "content": content})
}

fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

fn reply(status: &str, output: Value) -> Value {
    json!({
        "id": "resp_1", "object": "response", "created_at": 1_741_476_777, "status": status,
        "error": null, "incomplete_details": null, "model": "gpt-5-mini-2025-08-07",
        "output": output,
        "usage": {"input_tokens": 300, "input_tokens_details": {"cached_tokens": 256},
                  "output_tokens": 120, "output_tokens_details": {"reasoning_tokens": 96},
                  "total_tokens": 420}
    })
}

fn text_reply(text: &str) -> Value {
    reply("completed", json!([message(json!([output_text(text)]))]))
}

fn request() -> AiRequest {
    AiRequest::new("You are terse.", "Say hi.")
}

#[tokio::test]
async fn text_request_sends_instructions_input_the_text_format_and_store_false() {
    let server = answering(text_reply("hi")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "hi");
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].url.path(), "/v1/responses");
    assert_eq!(
        body_of(&requests[0]),
        json!({
            "model": "gpt-4o-mini",
            "instructions": "You are terse.",
            "input": [{"role": "user", "content": "Say hi."}],
            "text": {"format": {"type": "text"}},
            "store": false
        })
    );
    assert_eq!(
        requests[0].headers["authorization"],
        format!("Bearer {KEY}").as_str()
    );
}

#[tokio::test]
async fn json_object_request_sends_the_json_object_format() {
    let server = answering(text_reply("{\"a\": 1}")).await;
    let request =
        AiRequest::new("", "Answer in JSON.").with_format(ResponseFormat::JsonObject, None);
    provider(&server).complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["text"], json!({"format": {"type": "json_object"}}));
    assert!(body.get("instructions").is_none());
}

#[tokio::test]
async fn strict_request_sends_a_flat_named_strict_schema_with_tokens_temperature_and_effort() {
    let server = answering(text_reply("{\"value\": 1}")).await;
    let schema = u32::strict_envelope_schema().unwrap();
    let mut request = request().with_format(ResponseFormat::JsonSchema, Some(schema.clone()));
    request.max_output_tokens = Some(512);
    request.temperature = Some(0.0);
    request.reasoning_effort = Some(ReasoningEffort::Low);
    request.model = Some("gpt-4.1-mini".into());
    provider(&server).complete(&request).await.unwrap();
    let effort = json!({"effort": "low", "summary": "auto"});
    assert_eq!(
        body_of(&sent(&server).await[0]),
        json!({
            "model": "gpt-4.1-mini",
            "instructions": "You are terse.",
            "input": [{"role": "user", "content": "Say hi."}],
            "max_output_tokens": 512,
            "temperature": 0.0,
            "text": {"format": {"type": "json_schema", "name": "intent_output", "strict": true, "schema": schema}},
            "store": false
        })
    );
    // A reasoning model is sent the effort, with reasoning summaries asked for, and no
    // temperature (it refuses one): the record says so.
    request.model = Some("gpt-5-mini".into());
    let provider = provider(&server);
    provider.complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[1]);
    assert_eq!(body["reasoning"], effort);
    assert!(body.get("temperature").is_none(), "{body}");
    assert!(provider.notices(&request)[0]
        .message
        .starts_with("`temperature` was not sent to openai (OpenAI Responses, model gpt-5-mini)"));
}

#[tokio::test]
async fn a_limit_below_sixteen_tokens_is_refused_before_sending() {
    let server = answering(text_reply("hi")).await;
    let mut request = request();
    request.max_output_tokens = Some(8);
    let error = provider(&server).complete(&request).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert!(error.message.contains("at least 16"), "{}", error.message);
    assert!(sent(&server).await.is_empty());
}

#[tokio::test]
async fn the_answer_is_the_messages_output_text_and_reasoning_summaries_are_kept_apart() {
    let server = answering(reply(
        "completed",
        json!([
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": "**Reading the email** for a quantity."},
                {"type": "summary_text", "text": "It says forty."}
            ]},
            message(json!([output_text("{\"value\": "), output_text("40}")]))
        ]),
    ))
    .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "{\"value\": 40}");
    assert_eq!(
        response.reasoning.as_deref(),
        Some("**Reading the email** for a quantity.\n\nIt says forty.")
    );
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.model, "gpt-5-mini-2025-08-07");
    assert_eq!(response.usage.input_tokens, 300);
    assert_eq!(response.usage.cached_tokens, 256);
    assert_eq!(response.usage.output_tokens, 120);
    assert_eq!(response.usage.reasoning_tokens, 96);
    assert_eq!(response.usage.calls, 1);
}

#[tokio::test]
async fn reasoning_text_content_is_preferred_over_summaries() {
    let server = answering(reply(
        "completed",
        json!([
            {"type": "reasoning", "id": "rs_1",
             "summary": [{"type": "summary_text", "text": "short"}],
             "content": [{"type": "reasoning_text", "text": "The full chain of thought."}]},
            message(json!([output_text("ok")]))
        ]),
    ))
    .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(
        response.reasoning.as_deref(),
        Some("The full chain of thought.")
    );
    assert_eq!(response.text, "ok");
}

#[tokio::test]
async fn a_refusal_content_part_is_a_refusal_with_its_message() {
    let server = answering(reply(
        "completed",
        json!([message(
            json!([{"type": "refusal", "refusal": "I can't help with that."}])
        )]),
    ))
    .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Refusal);
    assert_eq!(response.refusal.as_deref(), Some("I can't help with that."));
    assert_eq!(response.text, "");
}

#[tokio::test]
async fn incomplete_replies_map_their_reason() {
    for (reason, expected) in [
        ("max_output_tokens", FinishReason::Length),
        ("content_filter", FinishReason::ContentFilter),
        ("something_new", FinishReason::Other("something_new".into())),
    ] {
        let mut body = reply(
            "incomplete",
            json!([message(json!([output_text("{\"value\": [1, 2,")]))]),
        );
        body["incomplete_details"] = json!({"reason": reason});
        let server = answering(body).await;
        let response = provider(&server).complete(&request()).await.unwrap();
        assert_eq!(response.finish_reason, expected, "{reason}");
        assert_eq!(response.text, "{\"value\": [1, 2,");
    }
}

#[tokio::test]
async fn a_truncated_reply_fails_its_attempt_with_the_limit_named() {
    let mut cut = reply(
        "incomplete",
        json!([{"type": "reasoning", "id": "rs_1", "summary": []}]),
    );
    cut["incomplete_details"] = json!({"reason": "max_output_tokens"});
    let server = failing_then(
        vec![ResponseTemplate::new(200).set_body_json(cut)],
        text_reply("{\"value\": 7}"),
    )
    .await;
    let client = IntentClient::new(provider(&server));
    let result = u32::ai(&client, "seven", "Read the number.")
        .options(AiRequestOptions {
            max_output_tokens: Some(64),
            ..AiRequestOptions::default()
        })
        .await;
    assert_eq!(result.value(), Some(&7));
    let first = &result.attempts()[0];
    assert_eq!(first.finish_reason, Some(FinishReason::Length));
    assert!(
        first.issues[0].message.contains("max_output_tokens = 64"),
        "{}",
        first.issues[0]
    );
    assert_eq!(result.usage().reasoning_tokens, 2 * 96);
}

#[tokio::test]
async fn a_failed_response_is_an_error_of_its_codes_kind() {
    for (code, kind) in [
        ("server_error", ProviderErrorKind::Server),
        ("rate_limit_exceeded", ProviderErrorKind::RateLimited),
        ("invalid_prompt", ProviderErrorKind::InvalidRequest),
    ] {
        let mut body = reply("failed", json!([]));
        body["error"] = json!({"code": code, "message": "Something went wrong."});
        let server = answering(body).await;
        let error = provider(&server).complete(&request()).await.unwrap_err();
        assert_eq!(error.kind, kind, "{code}");
        assert_eq!(
            error.to_string(),
            format!("openai: the response failed ({code}): Something went wrong.")
        );
    }
}

#[tokio::test]
async fn a_response_still_queued_or_without_output_is_a_decode_error() {
    let server = answering(reply("queued", json!([]))).await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Decode);
    assert!(error.message.contains("\"queued\""), "{}", error.message);

    let mut body = text_reply("x");
    body.as_object_mut().unwrap().remove("output");
    let server = answering(body).await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Decode);
    assert!(error.message.contains("no output"), "{}", error.message);
}

#[tokio::test]
async fn http_errors_and_retries_go_through_the_shared_transport() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "0.2")
                .set_body_json(json!({"error": {"message": "Rate limit reached.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "Invalid schema for response_format 'intent_output'.",
            "type": "invalid_request_error", "param": "text.format.schema", "code": "invalid_json_schema"}})))
        .with_priority(2)
        .mount(&server)
        .await;
    let started = Instant::now();
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(sent(&server).await.len(), 2);
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert_eq!(
        error.to_string(),
        "openai: HTTP 400 invalid_request_error: Invalid schema for response_format 'intent_output'. (after 2 tries)"
    );
}

#[test]
fn chat_completions_stays_the_default() {
    let provider = OpenAiProvider::new("k");
    assert_eq!(provider.api(), OpenAiApi::ChatCompletions);
    assert_eq!(
        provider.endpoint(),
        "https://api.openai.com/v1/chat/completions"
    );
    assert_eq!(
        provider.with_api(OpenAiApi::Responses).endpoint(),
        "https://api.openai.com/v1/responses"
    );
}

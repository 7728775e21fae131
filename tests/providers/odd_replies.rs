//! Odd but answering replies: a field of the wrong type that only informs (usage, finish reason,
//! model) never costs the answer; a huge error object is clipped in the message; a call is
//! counted as a call whatever usage its provider reported.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError, RetryPolicy};
use intent_core::AiRequest;
use intent_core::{IssueKind, JudgeOptions, Usage};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn answering(body: serde_json::Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    server
}

fn openai(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new("k-test")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(RetryPolicy::none())
        .with_timeout(Duration::from_secs(5))
}

#[tokio::test]
async fn openai_reply_with_odd_usage_and_finish_types_still_answers() {
    let server = answering(json!({
        "model": 7,
        "choices": [{"finish_reason": 0, "message": {"content": "{\"value\": 3}", "refusal": false}}],
        "usage": {"prompt_tokens": "12", "completion_tokens": 4, "prompt_tokens_details": []}
    }))
    .await;
    let client = IntentClient::new(openai(&server));
    let result = u32::ai(&client, "a b c", "Count the words.").await;
    assert_eq!(result.value(), Some(&3), "{:?}", result.issues());
    assert_eq!(result.usage().output_tokens, 4);
    assert_eq!(result.usage().calls, 1);
}

#[tokio::test]
async fn anthropic_reply_with_odd_usage_and_stop_types_still_answers() {
    let server = answering(json!({
        "model": ["x"],
        "content": [{"type": "text", "text": "{\"value\": 3}"}],
        "stop_reason": {"odd": true},
        "usage": {"input_tokens": -5, "output_tokens": 4}
    }))
    .await;
    let provider = AnthropicProvider::new("k-test")
        .with_base_url(server.uri())
        .with_retry_policy(RetryPolicy::none());
    let result = u32::ai(&IntentClient::new(provider), "a b c", "Count the words.").await;
    assert_eq!(result.value(), Some(&3), "{:?}", result.issues());
    assert_eq!(result.usage().output_tokens, 4);
}

#[tokio::test]
async fn a_huge_error_object_in_a_reply_is_clipped_in_the_message() {
    let server = answering(json!({"error": {"detail": "x".repeat(200_000)}})).await;
    let error = openai(&server)
        .complete(&AiRequest::new("s", "u"))
        .await
        .unwrap_err();
    assert!(error.message.len() < 2_000, "{} bytes", error.message.len());
}

/// A provider that reports tokens but leaves `calls` at zero.
struct Uncounted;

impl Provider for Uncounted {
    fn name(&self) -> &str {
        "uncounted"
    }
    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        let text = if request.schema_name == "judge_verdict" {
            r#"{"verdict": "pass", "problems": []}"#
        } else {
            r#"{"value": 3}"#
        };
        let mut response = AiResponse::new(text, "m");
        response.usage = Usage {
            input_tokens: 10,
            output_tokens: 2,
            ..Usage::default()
        };
        Box::pin(async move { Ok(response) })
    }
}

#[tokio::test]
async fn every_model_reply_counts_as_a_call_even_when_the_provider_says_zero() {
    let client = IntentClient::new(Uncounted);
    let result = u32::ai(&client, "a b c", "Count the words.")
        .options(AiRequestOptions {
            judge: Some(JudgeOptions::default()),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.usage().calls, 2);
    assert_eq!(result.usage().input_tokens, 20);
    assert_eq!(result.attempts()[0].usage.calls, 2);
}

#[tokio::test]
async fn a_judge_reply_cut_off_at_its_token_limit_is_reported_as_such() {
    let mut cut = AiResponse::new(r#"{"verdict": "pa"#, "m");
    cut.finish_reason = intent_core::provider::FinishReason::Length;
    let model = ScriptedProvider::new([
        intent_core::provider::ScriptedReply::from(r#"{"value": 3}"#),
        cut.into(),
    ]);
    let result = u32::ai(&IntentClient::new(model), "a b c", "Count the words.")
        .options(AiRequestOptions {
            judge: Some(JudgeOptions::default()),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(!result.is_success());
    let issue = &result.issues()[0];
    assert_eq!(issue.kind, IssueKind::JudgeFailed);
    assert!(issue.message.contains("cut off"), "{}", issue.message);
}

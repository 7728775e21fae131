//! Escalation over HTTP: after a failed attempt, the remaining attempts go to the named stronger
//! provider and model, with the failed attempt's findings; each record says who answered.

use intent_core::prelude::*;
use intent_core::IssueKind;
use serde_json::{json, Value};
use wiremock::MockServer;

use intent_tests::wire::{answering, body_of, quick_retries, sent};

fn chat_reply(model: &str, content: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
    })
}

fn anthropic_reply(content: &str) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-5-20251101",
        "content": [{"type": "text", "text": content}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 60, "output_tokens": 5}
    })
}

fn client(cheap: &MockServer, strong: &MockServer) -> IntentClient {
    IntentClient::builder()
        .provider(
            OpenAiProvider::new("sk-cheap")
                .with_base_url(format!("{}/v1", cheap.uri()))
                .with_model("gpt-5-nano")
                .with_retry_policy(quick_retries(1)),
        )
        .fallback(
            AnthropicProvider::new("sk-ant-strong")
                .with_base_url(strong.uri())
                .with_model("claude-haiku-4-5")
                .with_retry_policy(quick_retries(1)),
        )
        .build()
        .unwrap()
}

/// Counts the letters of "a, b, c" through both servers, with `options`.
async fn count(
    cheap: &MockServer,
    strong: &MockServer,
    options: AiRequestOptions,
) -> AiResult<u32> {
    u32::ai(&client(cheap, strong), "a, b, c", "Count the letters.")
        .options(options)
        .await
}

#[tokio::test]
async fn a_failed_attempt_escalates_the_rest_to_the_named_provider_and_model() {
    let cheap = answering(chat_reply("gpt-5-nano-2025-08-07", "{\"value\": \"many\"}")).await;
    let strong = answering(anthropic_reply("{\"value\": 3}")).await;
    let result = count(
        &cheap,
        &strong,
        AiRequestOptions {
            escalation: Some(Escalation::to_provider("anthropic").with_model("claude-opus-4-5")),
            ..AiRequestOptions::default()
        },
    )
    .await;

    assert_eq!(result.value(), Some(&3));
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].provider, "openai");
    assert_eq!(attempts[0].model, "gpt-5-nano-2025-08-07");
    assert!(attempts[0].notices.is_empty());
    assert_eq!(attempts[1].provider, "anthropic");
    assert_eq!(attempts[1].model, "claude-opus-4-5-20251101");
    assert_eq!(attempts[1].notices[0].kind, IssueKind::Request);
    assert_eq!(
        attempts[1].notices[0].message,
        "Attempt 1 failed, so this attempt escalated to provider \"anthropic\", model \"claude-opus-4-5\", with its findings."
    );

    assert_eq!(sent(&cheap).await.len(), 1);
    let escalated = sent(&strong).await;
    assert_eq!(escalated.len(), 1);
    let body = body_of(&escalated[0]);
    assert_eq!(body["model"], "claude-opus-4-5");
    let user = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        user.contains("## Previous attempt\n{\"value\": \"many\"}")
            && user.contains("## Problems with the previous attempt"),
        "the findings go with the escalation: {user}"
    );
}

#[tokio::test]
async fn a_model_alone_escalates_on_the_same_provider() {
    let cheap = answering(chat_reply("gpt-5-nano", "{\"value\": \"many\"}")).await;
    let strong = answering(anthropic_reply("{\"value\": 3}")).await;
    let result = count(
        &cheap,
        &strong,
        AiRequestOptions {
            max_attempts: Some(3),
            escalation: Some(Escalation::to_model("gpt-5")),
            ..AiRequestOptions::default()
        },
    )
    .await;

    // The cheap server always answers wrong: every attempt fails, the retries on the stronger model.
    assert!(!result.is_success());
    let models: Vec<Value> = sent(&cheap)
        .await
        .iter()
        .map(|r| body_of(r)["model"].clone())
        .collect();
    assert_eq!(
        models,
        [json!("gpt-5-nano"), json!("gpt-5"), json!("gpt-5")]
    );
    assert!(sent(&strong).await.is_empty());
    assert_eq!(
        result.attempts()[2].notices[0].message,
        "Attempt 2 failed, so this attempt escalated to model \"gpt-5\", with its findings."
    );
}

#[tokio::test]
async fn a_first_attempt_that_passes_never_escalates() {
    let cheap = answering(chat_reply("gpt-5-nano", "{\"value\": 3}")).await;
    let strong = answering(anthropic_reply("{\"value\": 3}")).await;
    let result = count(
        &cheap,
        &strong,
        AiRequestOptions {
            escalation: Some(Escalation::to_provider("anthropic")),
            ..AiRequestOptions::default()
        },
    )
    .await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(result.attempts()[0].provider, "openai");
    assert!(sent(&strong).await.is_empty());
}

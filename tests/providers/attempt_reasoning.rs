//! Reasoning on the attempt records over HTTP: what the provider returned beside the answer and
//! the `<think>` blocks of its text are kept on each attempt, never read as the answer and never
//! shown again in the retry's "Previous attempt"; and Gemini's abnormal finish reasons fail their
//! attempt instead of reading as a normal end.

use intent_core::prelude::*;
use intent_core::provider::FinishReason;
use intent_core::IssueKind;
use serde_json::{json, Value};
use wiremock::ResponseTemplate;

use intent_tests::wire::{body_of, failing_then, quick_retries, sent};

fn chat_reply(message: Value) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "qwen3-8b",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 40, "total_tokens": 90}
    })
}

#[tokio::test]
async fn every_attempt_keeps_its_reasoning_and_the_retry_shows_only_the_answer() {
    let first = chat_reply(json!({
        "role": "assistant",
        "reasoning_content": "Count the commas and add one.",
        "content": "<think>\nThere are two commas, so maybe 2?\n</think>\n{\"value\": 2000}"
    }));
    let second = chat_reply(json!({
        "role": "assistant",
        "content": "<thinking>Three letters.</thinking>{\"value\": 3}"
    }));
    let server = failing_then(
        vec![ResponseTemplate::new(200).set_body_json(first)],
        second,
    )
    .await;
    let provider = OpenAiProvider::new("")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(quick_retries(1));
    let client = IntentClient::new(provider);
    let result = u32::ai(&client, "a, b, c", "Count the letters.")
        .require(|n| *n < 100, "The count must be below 100.")
        .await;

    assert_eq!(result.value(), Some(&3));
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 2);
    assert_eq!(
        attempts[0].reasoning.as_deref(),
        Some("Count the commas and add one.\n\nThere are two commas, so maybe 2?")
    );
    assert_eq!(attempts[1].reasoning.as_deref(), Some("Three letters."));
    // The raw output stays exactly as received.
    assert!(attempts[0].raw_output.starts_with("<think>\n"));

    let retry = body_of(&sent(&server).await[1]);
    let user = retry["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("## Previous attempt\n{\"value\": 2000}\n\n## Problems"),
        "{user}"
    );
    assert!(
        !user.contains("two commas") && !user.contains("<think>"),
        "{user}"
    );
    assert!(!user.contains("Count the commas"), "{user}");
}

#[tokio::test]
async fn an_attempt_without_reasoning_records_none() {
    let server = failing_then(
        vec![],
        chat_reply(json!({"role": "assistant", "content": "{\"value\": 3}"})),
    )
    .await;
    let provider = OpenAiProvider::new("")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(quick_retries(1));
    let result = u32::ai(&IntentClient::new(provider), "a, b, c", "Count.").await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(result.attempts()[0].reasoning, None);
}

#[tokio::test]
async fn a_gemini_reply_that_ended_abnormally_fails_its_attempt_by_name() {
    for reason in [
        "OTHER",
        "LANGUAGE",
        "MALFORMED_FUNCTION_CALL",
        "SOMETHING_NEW",
    ] {
        let abnormal = json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "{\"value\": 3}"}]},
                            "finishReason": reason}],
            "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 4, "totalTokenCount": 44}
        });
        let ok = json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "{\"value\": 4}"}]},
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 4, "totalTokenCount": 44}
        });
        let server =
            failing_then(vec![ResponseTemplate::new(200).set_body_json(abnormal)], ok).await;
        let provider = GeminiProvider::new("AIza-test")
            .with_base_url(server.uri())
            .with_retry_policy(quick_retries(1));
        let result = u32::ai(&IntentClient::new(provider), "a, b, c, d", "Count.").await;

        // The abnormal reply's value is never taken, even though it reads.
        assert_eq!(result.value(), Some(&4), "{reason}");
        let first = &result.attempts()[0];
        assert_eq!(
            first.finish_reason,
            Some(FinishReason::Abnormal(reason.to_owned()))
        );
        assert_eq!(first.issues[0].kind, IssueKind::Provider);
        assert!(
            first.issues[0].message.starts_with(&format!(
                "The provider ended the reply abnormally (finish reason {reason})"
            )),
            "{}",
            first.issues[0].message
        );
    }
}

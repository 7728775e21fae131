//! Reasoning on the wire: `reasoning_effort` and `thinking_budget` from the options to each
//! provider's body, and the reasoning and reasoning tokens read back, never as the answer.

use intent_core::prelude::*;
use intent_core::provider::{
    AnthropicProvider, FinishReason, GeminiProvider, Provider, ProviderErrorKind,
};
use intent_core::AiRequest;
use intent_core::Usage;
use serde_json::{json, Value};
use wiremock::{MockServer, ResponseTemplate};

use intent_tests::wire::{
    answering, anthropic, body_of, failing_then, openai, quick_retries, sent,
};

fn thinking_request(budget: Option<u32>, effort: Option<ReasoningEffort>) -> AiRequest {
    let mut request = AiRequest::new("You are terse.", "Say hi.");
    request.thinking_budget = budget;
    request.reasoning_effort = effort;
    request
}

// ---- from the options to the request ----

#[tokio::test]
async fn the_options_reasoning_settings_reach_every_attempts_request() {
    let model = ScriptedProvider::new(["three", r#"{"value": 3}"#]);
    let client = IntentClient::new(model.clone());
    let result = u32::ai(&client, "a, b, c", "Count the letters.")
        .options(AiRequestOptions {
            reasoning_effort: Some(ReasoningEffort::High),
            thinking_budget: Some(4096),
            ..AiRequestOptions::default()
        })
        .await;
    assert_eq!(result.value(), Some(&3));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.reasoning_effort, Some(ReasoningEffort::High));
        assert_eq!(request.thinking_budget, Some(4096));
    }
    let plain = ScriptedProvider::new([r#"{"value": 3}"#]);
    u32::ai(&IntentClient::new(plain.clone()), "a, b, c", "Count.").await;
    assert_eq!(plain.requests()[0].reasoning_effort, None);
    assert_eq!(plain.requests()[0].thinking_budget, None);
}

#[test]
fn usage_sums_reasoning_tokens_and_reads_records_written_before_them() {
    let one = Usage {
        input_tokens: 10,
        output_tokens: 50,
        cached_tokens: 0,
        reasoning_tokens: 40,
        calls: 1,
    };
    assert_eq!((one + one).reasoning_tokens, 80);
    let old: Usage = serde_json::from_str(
        r#"{"input_tokens": 1, "output_tokens": 2, "cached_tokens": 0, "calls": 1}"#,
    )
    .unwrap();
    assert_eq!(old.reasoning_tokens, 0);
    assert_eq!(old.output_tokens, 2);
}

// ---- OpenAI Chat Completions ----

fn chat_reply(message: Value) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "o4-mini-2025-04-16",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 300, "total_tokens": 330,
                  "prompt_tokens_details": {"cached_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 256}}
    })
}

#[tokio::test]
async fn openai_chat_sends_reasoning_effort_and_no_thinking_budget() {
    let server = answering(chat_reply(json!({"role": "assistant", "content": "hi"}))).await;
    let mut request = thinking_request(Some(2048), Some(ReasoningEffort::Medium));
    request.model = Some("o4-mini".into());
    let provider = openai(&server);
    provider.complete(&request).await.unwrap();
    // Chat Completions has no thinking budget: it is left out, and the record says so.
    let notices = provider.notices(&request);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0]
            .message
            .starts_with("`thinking_budget` was not sent"),
        "{notices:?}"
    );
    // A model that does not reason is sent no effort either, and told.
    let mut plain = request.clone();
    plain.model = Some("gpt-4o-mini".into());
    plain.thinking_budget = None;
    assert!(provider.notices(&plain)[0]
        .message
        .starts_with("`reasoning_effort` was not sent"));
    assert_eq!(
        body_of(&sent(&server).await[0]),
        json!({
            "model": "o4-mini",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Say hi."}
            ],
            "reasoning_effort": "medium"
        })
    );
}

#[tokio::test]
async fn openai_chat_reads_reasoning_tokens() {
    let server = answering(chat_reply(json!({"role": "assistant", "content": "hi"}))).await;
    let response = openai(&server)
        .complete(&thinking_request(None, None))
        .await
        .unwrap();
    assert_eq!(response.usage.output_tokens, 300);
    assert_eq!(response.usage.reasoning_tokens, 256);
    assert_eq!(response.reasoning, None);
}

#[tokio::test]
async fn reasoning_content_from_llama_cpp_and_deepseek_is_kept_apart_from_the_answer() {
    let server = answering(chat_reply(json!({
        "role": "assistant",
        "reasoning_content": "The user wants a greeting. Keep it short.",
        "content": "{\"value\": \"hi\"}"
    })))
    .await;
    let response = openai(&server)
        .complete(&thinking_request(None, None))
        .await
        .unwrap();
    assert_eq!(response.text, "{\"value\": \"hi\"}");
    assert_eq!(
        response.reasoning.as_deref(),
        Some("The user wants a greeting. Keep it short.")
    );
}

#[tokio::test]
async fn reasoning_from_vllm_and_ollama_is_kept_apart_from_the_answer() {
    let server = answering(chat_reply(json!({
        "role": "assistant", "reasoning": "Short greeting.", "content": "hi"
    })))
    .await;
    let response = openai(&server)
        .complete(&thinking_request(None, None))
        .await
        .unwrap();
    assert_eq!(response.text, "hi");
    assert_eq!(response.reasoning.as_deref(), Some("Short greeting."));
}

#[tokio::test]
async fn a_typed_call_sums_reasoning_tokens_over_its_attempts() {
    let server = failing_then(
        vec![ResponseTemplate::new(200).set_body_json(chat_reply(
            json!({"role": "assistant", "reasoning_content": "Hmm.", "content": "three"}),
        ))],
        chat_reply(json!({"role": "assistant", "content": "{\"value\": 3}"})),
    )
    .await;
    let client = IntentClient::new(openai(&server));
    let result = u32::ai(&client, "a, b, c", "Count the letters.")
        .options(AiRequestOptions {
            model: Some("o4-mini".into()),
            reasoning_effort: Some(ReasoningEffort::Low),
            ..AiRequestOptions::default()
        })
        .await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(result.usage().reasoning_tokens, 512);
    assert_eq!(result.attempts()[0].usage.reasoning_tokens, 256);
    // The reasoning is never read as the answer, nor shown back as the previous attempt.
    assert_eq!(result.attempts()[0].raw_output, "three");
    let retry = body_of(&sent(&server).await[1]);
    let user = retry["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("## Previous attempt\nthree"), "{user}");
    assert!(!user.contains("Hmm."), "{user}");
    for request in sent(&server).await {
        assert_eq!(body_of(&request)["reasoning_effort"], "low");
    }
}

// ---- Anthropic extended thinking ----

fn messages_reply(content: Value) -> Value {
    json!({
        "id": "msg_01A", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": content, "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 40, "output_tokens": 900}
    })
}

#[tokio::test]
async fn anthropic_thinking_adds_the_budget_to_max_tokens_and_refuses_a_temperature() {
    let server = answering(messages_reply(json!([{"type": "text", "text": "hi"}]))).await;
    let mut request = thinking_request(Some(2048), Some(ReasoningEffort::High));
    request.max_output_tokens = Some(512);
    request.temperature = Some(0.2);
    // Anthropic refuses a changed temperature with thinking: refused here, before sending.
    let refused = anthropic(&server).complete(&request).await.unwrap_err();
    assert_eq!(refused.kind, ProviderErrorKind::InvalidRequest);
    assert!(
        refused
            .message
            .contains("`temperature` cannot be sent to anthropic")
            && refused.message.contains("claude-sonnet-4-5"),
        "{}",
        refused.message
    );
    assert!(sent(&server).await.is_empty());
    request.temperature = None;
    let provider = anthropic(&server);
    provider.complete(&request).await.unwrap();
    // Claude Sonnet 4.5 takes no effort: left out, and said.
    assert!(provider.notices(&request)[0]
        .message
        .starts_with("`reasoning_effort` was not sent"));
    assert_eq!(
        body_of(&sent(&server).await[0]),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 2048 + 512,
            "system": "You are terse.",
            "messages": [{"role": "user", "content": "Say hi."}],
            "thinking": {"type": "enabled", "budget_tokens": 2048}
        })
    );
}

#[tokio::test]
async fn anthropic_thinking_without_a_limit_adds_the_budget_to_the_default_max_tokens() {
    let server = answering(messages_reply(json!([{"type": "text", "text": "hi"}]))).await;
    anthropic(&server)
        .complete(&thinking_request(Some(10_000), None))
        .await
        .unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(
        body["max_tokens"],
        10_000 + AnthropicProvider::new("").default_max_tokens()
    );
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 10_000})
    );
}

#[tokio::test]
async fn anthropic_budget_zero_disables_thinking_and_keeps_the_temperature() {
    let server = answering(messages_reply(json!([{"type": "text", "text": "hi"}]))).await;
    let mut request = thinking_request(Some(0), None);
    request.max_output_tokens = Some(100);
    request.temperature = Some(0.5);
    anthropic(&server)
        .with_send_temperature(true)
        .complete(&request)
        .await
        .unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["thinking"], json!({"type": "disabled"}));
    assert_eq!(body["max_tokens"], 100);
    assert_eq!(body["temperature"], 0.5);
}

#[tokio::test]
async fn anthropic_refuses_a_budget_below_its_minimum_before_sending() {
    let server = answering(messages_reply(json!([]))).await;
    let error = anthropic(&server)
        .complete(&thinking_request(Some(512), None))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert!(
        error.message.contains("at least 1024") && error.message.contains("512"),
        "{}",
        error.message
    );
    assert!(sent(&server).await.is_empty());
}

#[tokio::test]
async fn anthropic_thinking_blocks_are_reasoning_never_the_answer() {
    let server = answering(messages_reply(json!([
        {"type": "thinking", "thinking": "Let me count: a, b, c.", "signature": "EqQBCgIYAhIM"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
        {"type": "text", "text": "{\"value\": 3}"}
    ])))
    .await;
    let response = anthropic(&server)
        .complete(&thinking_request(Some(2048), None))
        .await
        .unwrap();
    assert_eq!(response.text, "{\"value\": 3}");
    assert_eq!(
        response.reasoning.as_deref(),
        Some("Let me count: a, b, c.")
    );
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.usage.output_tokens, 900);
}

// ---- Gemini thinking ----

fn gemini(server: &MockServer) -> GeminiProvider {
    GeminiProvider::new("AIza-test")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(1))
}

fn gemini_reply() -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Thinking about greetings.", "thought": true},
            {"text": "hi"}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "thoughtsTokenCount": 30}
    })
}

async fn gemini_thinking_config(budget: Option<u32>, effort: Option<ReasoningEffort>) -> Value {
    gemini_thinking_config_of("gemini-2.5-flash", budget, effort).await
}

async fn gemini_thinking_config_of(
    model: &str,
    budget: Option<u32>,
    effort: Option<ReasoningEffort>,
) -> Value {
    let server = answering(gemini_reply()).await;
    let mut request = thinking_request(budget, effort);
    request.model = Some(model.into());
    let response = gemini(&server).complete(&request).await.unwrap();
    assert_eq!(response.text, "hi");
    body_of(&sent(&server).await[0])["generationConfig"]["thinkingConfig"].clone()
}

#[tokio::test]
async fn gemini_sends_the_thinking_budget_and_asks_for_thoughts() {
    assert_eq!(
        gemini_thinking_config(Some(1024), None).await,
        json!({"thinkingBudget": 1024, "includeThoughts": true})
    );
    // A budget wins over an effort: Gemini refuses both in one request.
    assert_eq!(
        gemini_thinking_config(Some(1024), Some(ReasoningEffort::Low)).await,
        json!({"thinkingBudget": 1024, "includeThoughts": true})
    );
}

#[tokio::test]
async fn gemini_sends_an_effort_as_its_thinking_level() {
    for (effort, level) in [
        (ReasoningEffort::Low, "LOW"),
        (ReasoningEffort::Medium, "MEDIUM"),
        (ReasoningEffort::High, "HIGH"),
    ] {
        assert_eq!(
            gemini_thinking_config_of("gemini-3-flash-preview", None, Some(effort)).await,
            json!({"thinkingLevel": level, "includeThoughts": true})
        );
    }
    // Gemini 2.5 takes a budget, not a level: the effort is left out, and the record says so.
    assert_eq!(
        gemini_thinking_config(None, Some(ReasoningEffort::Low)).await,
        Value::Null
    );
    let mut request = thinking_request(None, Some(ReasoningEffort::Low));
    request.model = Some("gemini-2.5-flash".into());
    let notices = GeminiProvider::new("AIza-test").notices(&request);
    assert!(
        notices[0]
            .message
            .starts_with("`reasoning_effort` was not sent"),
        "{notices:?}"
    );
    // Gemini 3 Pro takes low or high only: medium is refused before sending.
    let server = answering(gemini_reply()).await;
    request.model = Some("gemini-3-pro-preview".into());
    request.reasoning_effort = Some(ReasoningEffort::Medium);
    let refused = gemini(&server).complete(&request).await.unwrap_err();
    assert!(
        refused.message.contains("take thinking level low or high"),
        "{}",
        refused.message
    );
    assert!(sent(&server).await.is_empty());
}

#[tokio::test]
async fn gemini_budget_zero_turns_thinking_off_and_no_setting_sends_no_thinking_config() {
    assert_eq!(
        gemini_thinking_config(Some(0), None).await,
        json!({"thinkingBudget": 0})
    );
    assert_eq!(gemini_thinking_config(None, None).await, Value::Null);
}

#[tokio::test]
async fn gemini_thoughts_are_reasoning_and_their_tokens_are_output() {
    let server = answering(gemini_reply()).await;
    let response = gemini(&server)
        .complete(&thinking_request(Some(1024), None))
        .await
        .unwrap();
    assert_eq!(response.text, "hi");
    assert_eq!(
        response.reasoning.as_deref(),
        Some("Thinking about greetings.")
    );
    assert_eq!(response.usage.output_tokens, 31);
    assert_eq!(response.usage.reasoning_tokens, 30);
}

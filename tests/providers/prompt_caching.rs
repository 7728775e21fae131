//! Prompt caching over HTTP: `prompt_caching` marks Anthropic's system block `ephemeral` and gives
//! OpenAI (both APIs) a `prompt_cache_key` named after the stable prefix; the cached tokens each
//! provider reports reach `Usage`.

use intent_core::prelude::*;
use intent_core::provider::OpenAiApi;
use serde_json::{json, Value};
use wiremock::MockServer;

use intent_tests::wire::{answering, body_of, openai, quick_retries, sent};

fn caching() -> AiRequestOptions {
    AiRequestOptions {
        prompt_caching: true,
        system_instructions: Some("You read purchase orders for the warehouse.".into()),
        ..AiRequestOptions::default()
    }
}

/// One call with caching on.
async fn cached_count(client: &IntentClient) -> AiResult<u32> {
    u32::ai(client, "2 apples", "Count.")
        .options(caching())
        .await
}

/// The keys sent by two calls with the same intent and different inputs, and one with another
/// intent.
async fn keys(
    client: &IntentClient,
    server: &MockServer,
    key_of: fn(&Value) -> &Value,
) -> Vec<Value> {
    for (input, intent) in [
        ("2 apples", "Count."),
        ("5 pears", "Count."),
        ("2 apples", "Sum."),
    ] {
        let result = u32::ai(client, input, intent).options(caching()).await;
        assert!(result.is_success(), "{:?}", result.issues());
    }
    sent(server)
        .await
        .iter()
        .map(|r| key_of(&body_of(r)).clone())
        .collect()
}

#[tokio::test]
async fn openai_chat_sends_one_prompt_cache_key_per_stable_prefix_and_reads_cached_tokens() {
    let server = answering(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "{\"value\": 2}"}}],
        "usage": {"prompt_tokens": 2006, "completion_tokens": 5, "total_tokens": 2011,
                  "prompt_tokens_details": {"cached_tokens": 1920}}
    }))
    .await;
    let client = IntentClient::new(openai(&server));
    let keys = keys(&client, &server, |b| &b["prompt_cache_key"]).await;
    let key = keys[0].as_str().unwrap();
    assert!(key.starts_with("intent-") && key.len() == 39, "{key}");
    assert_eq!(keys[0], keys[1], "the input is not part of the prefix");
    assert_ne!(keys[0], keys[2], "another intent is another prefix");

    let result = cached_count(&client).await;
    assert_eq!(result.usage().cached_tokens, 1920);
    assert_eq!(result.usage().input_tokens, 2006);

    // Off by default: no key.
    let plain = u32::ai(&client, "2 apples", "Count.").await;
    assert!(plain.is_success());
    let last = sent(&server).await.pop().unwrap();
    assert!(body_of(&last).get("prompt_cache_key").is_none());
}

#[tokio::test]
async fn the_responses_api_sends_the_key_and_reads_its_cached_tokens() {
    let server = answering(json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": "{\"value\": 2}"}]}],
        "usage": {"input_tokens": 1500, "input_tokens_details": {"cached_tokens": 1280},
                  "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1505}
    }))
    .await;
    let client = IntentClient::new(openai(&server).with_api(OpenAiApi::Responses));
    let keys = keys(&client, &server, |b| &b["prompt_cache_key"]).await;
    assert!(keys[0].as_str().unwrap().starts_with("intent-"));
    assert_eq!(keys[0], keys[1]);
    let result = cached_count(&client).await;
    assert_eq!(result.usage().cached_tokens, 1280);
}

#[tokio::test]
async fn anthropic_marks_the_system_block_ephemeral_and_counts_cache_reads() {
    let server = answering(json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "{\"value\": 2}"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 30, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 1800, "output_tokens": 5}
    }))
    .await;
    let client = IntentClient::new(
        AnthropicProvider::new("sk-ant-test")
            .with_base_url(server.uri())
            .with_retry_policy(quick_retries(1)),
    );
    let result = cached_count(&client).await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.usage().cached_tokens, 1800);
    assert_eq!(
        result.usage().input_tokens,
        1830,
        "input counts the cache reads"
    );

    let body = body_of(&sent(&server).await[0]);
    let system = &body["system"];
    assert_eq!(system.as_array().map(Vec::len), Some(1), "{system}");
    assert_eq!(system[0]["type"], "text");
    assert_eq!(system[0]["cache_control"], json!({"type": "ephemeral"}));
    assert!(system[0]["text"]
        .as_str()
        .unwrap()
        .ends_with("\n\nYou read purchase orders for the warehouse."));

    // Off by default: the system is plain text.
    let plain = u32::ai(&client, "2 apples", "Count.").await;
    assert!(plain.is_success());
    let last = body_of(&sent(&server).await[1]);
    assert!(last["system"].is_string(), "{}", last["system"]);
}

#[tokio::test]
async fn gemini_reports_implicitly_cached_tokens() {
    let server = answering(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "{\"value\": 2}"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 2100, "cachedContentTokenCount": 2048,
                          "candidatesTokenCount": 5, "totalTokenCount": 2105}
    }))
    .await;
    let client = IntentClient::new(
        GeminiProvider::new("AIza-test")
            .with_base_url(server.uri())
            .with_retry_policy(quick_retries(1)),
    );
    let result = cached_count(&client).await;
    assert_eq!(result.usage().cached_tokens, 2048);
    assert_eq!(result.usage().input_tokens, 2100);
    let body = body_of(&sent(&server).await[0]);
    assert!(
        !body.to_string().contains("cache"),
        "Gemini is sent nothing for it: {body}"
    );
}

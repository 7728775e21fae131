//! `seed`, `top_p`, stop sequences and `extra_body` on the wire, for every provider: each field
//! under the provider's own name, nothing when unset, and a clear refusal, with nothing sent,
//! for a field the provider's API does not take.

use std::sync::Arc;
use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{OpenAiApi, Provider, ProviderErrorKind};
use intent_core::AiRequest;
use serde_json::{json, Value};
use wiremock::MockServer;

use intent_tests::wire::{answering, body_of, quick_retries, sent};

fn chat_reply(text: &str) -> Value {
    json!({
        "id": "c", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    })
}

fn responses_reply(text: &str) -> Value {
    json!({
        "id": "r", "object": "response", "status": "completed", "model": "gpt-5-mini",
        "output": [{"type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}
    })
}

fn anthropic_reply(text: &str) -> Value {
    json!({
        "id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 1}
    })
}

fn gemini_reply(text: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1}
    })
}

fn openai(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new("sk-test-sampling-0123")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(quick_retries(0))
        .with_timeout(Duration::from_secs(5))
}

fn anthropic(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new("sk-ant-sampling-0123")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(0))
        .with_timeout(Duration::from_secs(5))
}

fn gemini(server: &MockServer) -> GeminiProvider {
    GeminiProvider::new("AIza-sampling-0123")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(0))
        .with_timeout(Duration::from_secs(5))
}

/// A request with every sampling field and an extra body field set.
fn sampled() -> AiRequest {
    let mut request = AiRequest::new("You are terse.", "Say hi.");
    request.seed = Some(42);
    request.top_p = Some(0.5);
    request.stop = vec!["END".into(), "\n\n".into()];
    request
}

fn with_extra(mut request: AiRequest, extra: Value) -> AiRequest {
    request.extra_body = Some(Arc::new(extra.as_object().unwrap().clone()));
    request
}

#[tokio::test]
async fn openai_chat_sends_seed_top_p_stop_and_extra_fields_set_on_the_call() {
    let server = answering(chat_reply(r#"{"value": 1}"#)).await;
    let client = IntentClient::new(openai(&server));
    let extra = json!({"service_tier": "flex", "user": "team-7"});
    let one = u32::ai(&client, "one", "Read the number.")
        .seed(42)
        .top_p(0.5)
        .stop(["END"])
        .options(AiRequestOptions {
            extra_body: extra.as_object().cloned(),
            ..Default::default()
        })
        .await;
    assert_eq!(one.value(), Some(&1), "{:?}", one.issues());
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["seed"], 42);
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["stop"], json!(["END"]));
    assert_eq!(body["service_tier"], "flex");
    assert_eq!(body["user"], "team-7");
    // The library's own fields are still there.
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["messages"][1]["role"], "user");
}

#[tokio::test]
async fn no_sampling_field_is_sent_when_none_is_set() {
    for (server, provider) in [
        {
            let s = answering(chat_reply("hi")).await;
            let p: Box<dyn Provider> = Box::new(openai(&s));
            (s, p)
        },
        {
            let s = answering(responses_reply("hi")).await;
            let p: Box<dyn Provider> = Box::new(openai(&s).with_api(OpenAiApi::Responses));
            (s, p)
        },
        {
            let s = answering(anthropic_reply("hi")).await;
            let p: Box<dyn Provider> = Box::new(anthropic(&s));
            (s, p)
        },
        {
            let s = answering(gemini_reply("hi")).await;
            let p: Box<dyn Provider> = Box::new(gemini(&s));
            (s, p)
        },
    ] {
        provider.complete(&AiRequest::new("s", "u")).await.unwrap();
        let body = body_of(&sent(&server).await[0]);
        let text = body.to_string();
        for field in [
            "seed",
            "top_p",
            "topP",
            "\"stop",
            "stopSequences",
            "stop_sequences",
        ] {
            assert!(
                !text.contains(field),
                "{} sent {field}: {text}",
                provider.name()
            );
        }
    }
}

#[tokio::test]
async fn openai_chat_refuses_more_than_four_stop_sequences_before_sending() {
    let server = answering(chat_reply("hi")).await;
    let mut request = sampled();
    request.stop = (1..=5).map(|i| format!("S{i}")).collect();
    let error = openai(&server).complete(&request).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert!(
        error
            .message
            .contains("at most 4 stop sequences; the request has 5"),
        "{error}"
    );
    assert!(sent(&server).await.is_empty());
}

#[tokio::test]
async fn the_responses_api_sends_top_p_and_refuses_a_seed_or_stop_sequences() {
    let server = answering(responses_reply("hi")).await;
    let provider = openai(&server).with_api(OpenAiApi::Responses);
    let mut request = AiRequest::new("s", "u");
    request.top_p = Some(0.25);
    let request = with_extra(request, json!({"truncation": "auto"}));
    provider.complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["top_p"], 0.25);
    assert_eq!(body["truncation"], "auto");
    assert_eq!(body["store"], false);

    let error = provider.complete(&sampled()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert!(error.message.contains("takes no seed"), "{error}");
    let mut stop_only = AiRequest::new("s", "u");
    stop_only.stop = vec!["END".into()];
    let error = provider.complete(&stop_only).await.unwrap_err();
    assert!(error.message.contains("takes no stop sequences"), "{error}");
    assert_eq!(sent(&server).await.len(), 1, "a refused request was sent");
}

#[tokio::test]
async fn anthropic_sends_top_p_and_stop_sequences_and_refuses_a_seed() {
    let server = answering(anthropic_reply("hi")).await;
    let provider = anthropic(&server);
    let mut request = sampled();
    request.seed = None;
    let request = with_extra(request, json!({"metadata": {"user_id": "u-1"}}));
    provider.complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["stop_sequences"], json!(["END", "\n\n"]));
    assert_eq!(body["metadata"]["user_id"], "u-1");
    assert!(body.get("stop").is_none() && body.get("seed").is_none());

    let error = provider.complete(&sampled()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert_eq!(error.provider, "anthropic");
    assert!(error.message.contains("takes no seed"), "{error}");
    assert_eq!(sent(&server).await.len(), 1, "a refused request was sent");
}

#[tokio::test]
async fn gemini_sends_seed_top_p_and_stop_sequences_in_its_generation_config() {
    let server = answering(gemini_reply("hi")).await;
    let provider = gemini(&server);
    let request = with_extra(
        sampled(),
        json!({"safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]}),
    );
    provider.complete(&request).await.unwrap();
    let body = body_of(&sent(&server).await[0]);
    let config = &body["generationConfig"];
    assert_eq!(config["seed"], 42);
    assert_eq!(config["topP"], 0.5);
    assert_eq!(config["stopSequences"], json!(["END", "\n\n"]));
    assert_eq!(body["safetySettings"][0]["threshold"], "BLOCK_NONE");

    let mut big_seed = sampled();
    big_seed.seed = Some(u64::from(u32::MAX));
    let error = provider.complete(&big_seed).await.unwrap_err();
    assert!(
        error.message.contains("seed of at most 2147483647"),
        "{error}"
    );
    assert_eq!(sent(&server).await.len(), 1, "a refused request was sent");
}

#[tokio::test]
async fn sampling_fields_are_part_of_the_cache_key_only_when_set() {
    use intent_core::cache::CacheKey;
    let plain = AiRequest::new("s", "u");
    let key = |r: &AiRequest| CacheKey::for_request("p", "m", r);
    let mut seeded = plain.clone();
    seeded.seed = Some(1);
    let mut other_seed = plain.clone();
    other_seed.seed = Some(2);
    let extra = with_extra(plain.clone(), json!({"service_tier": "flex"}));
    assert_ne!(key(&plain), key(&seeded));
    assert_ne!(key(&seeded), key(&other_seed));
    assert_ne!(key(&plain), key(&extra));
    assert_eq!(key(&plain), key(&AiRequest::new("s", "u")));
}

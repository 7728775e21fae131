//! Anthropic Messages request bodies against requests the live API accepted (pydantic-ai's
//! cassettes) and Anthropic's Messages API reference.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::Provider;
use intent_core::ReasoningEffort;
use serde_json::{json, Value};

use super::{capture, check_fields, field, request, strict, told_or_sent, Field, Seen};
use intent_tests::wire::{answering, body_of, sent};

/// The Messages API reference (platform.claude.com/docs/en/api/messages, "Create a Message").
const API: &str = "Messages API reference, Create a Message";

/// Messages API fields and where each was seen accepted.
pub const MESSAGES: &[Field] = &[
    field("model", "string", Seen::Cassette("test_anthropic/test_anthropic_model_thinking_part.yaml")),
    field("max_tokens", "integer", Seen::Cassette("test_anthropic/test_anthropic_model_thinking_part.yaml")),
    field("system", "string or array", Seen::Cassette("test_anthropic_mid_conversation_system/test_mid_conversation_system_prompt_takes_cache_breakpoint.yaml")),
    field("system[].type", "text", Seen::Cassette("test_anthropic/test_anthropic_compaction_usage_with_cache.yaml")),
    field("system[].text", "string", Seen::Cassette("test_anthropic/test_anthropic_compaction_usage_with_cache.yaml")),
    // A text block's `cache_control` (recorded on message blocks; the reference's prompt-caching
    // guide marks system blocks the same way).
    field("system[].cache_control.type", "ephemeral", Seen::Cassette("test_anthropic_mid_conversation_system/test_inline_system_prompt_cache_prefix_is_reused.yaml (on a text block)")),
    field("messages[].role", "user", Seen::Cassette("test_anthropic/test_anthropic_model_thinking_part.yaml")),
    // A string is the reference's own example (`{"role": "user", "content": "Hello, Claude"}`);
    // the cassettes send a list of text blocks.
    field("messages[].content", "string or array", Seen::Reference(API)),
    // With prompt caching the user message is text blocks, the intent's marked where the stable
    // prefix ends: a message's text block with `cache_control` is recorded in this cassette.
    field("messages[].content[].type", "text", Seen::Cassette("test_anthropic_mid_conversation_system/test_inline_system_prompt_cache_prefix_is_reused.yaml")),
    field("messages[].content[].text", "string", Seen::Cassette("test_anthropic_mid_conversation_system/test_inline_system_prompt_cache_prefix_is_reused.yaml")),
    field("messages[].content[].cache_control.type", "ephemeral", Seen::Cassette("test_anthropic_mid_conversation_system/test_inline_system_prompt_cache_prefix_is_reused.yaml")),
    field("temperature", "number", Seen::Cassette("test_anthropic/test_anthropic_sampling_settings_reach_the_wire.yaml")),
    field("top_p", "number", Seen::Reference(API)),
    field("stop_sequences[]", "string", Seen::Reference(API)),
    field("thinking.type", "enabled|disabled", Seen::Cassette("test_anthropic/test_anthropic_model_thinking_part.yaml (enabled; disabled: the extended-thinking guide)")),
    field("thinking.budget_tokens", "integer", Seen::Cassette("test_anthropic/test_anthropic_model_thinking_part.yaml")),
    field("output_config.format.type", "json_schema", Seen::Cassette("test_anthropic/test_anthropic_native_output_decimal_strict.yaml")),
    field("output_config.format.schema", "object", Seen::Cassette("test_anthropic/test_anthropic_native_output_decimal_strict.yaml")),
    field("output_config.effort", "low|medium|high|xhigh|max", Seen::Cassette("test_anthropic/test_anthropic_opus_46_features[effort].yaml")),
    field("stream", "boolean", Seen::Cassette("test_anthropic/test_anthropic_model_thinking_part_stream.yaml")),
    // Tools (the first round of the cassette; `tool_choice` `tool` with `name`: the API reference).
    field("tools[].name", "string", Seen::Cassette("test_anthropic/test_anthropic_tool_output.yaml")),
    field("tools[].description", "string", Seen::Cassette("test_anthropic/test_anthropic_tool_output.yaml")),
    field("tools[].input_schema", "object", Seen::Cassette("test_anthropic/test_anthropic_tool_output.yaml")),
    field("tool_choice.type", "auto|any|tool", Seen::Cassette("test_anthropic/test_anthropic_tool_output.yaml")),
    field("tool_choice.name", "string", Seen::Reference(API)),
];

fn at(send_temperature: bool) -> impl Fn(&str) -> Box<dyn Provider> {
    move |base| {
        Box::new(
            AnthropicProvider::new("sk-ant-conformance")
                .with_base_url(base)
                .with_send_temperature(send_temperature)
                .with_max_retries(0)
                .with_timeout(Duration::from_secs(10)),
        )
    }
}

/// The body sent for `request`, checked against [`MESSAGES`].
async fn messages(request: intent_core::AiRequest, send_temperature: bool) -> Value {
    let sent = capture(at(send_temperature), &request, false)
        .await
        .expect("the request is sent");
    assert_eq!(sent.target, "/v1/messages");
    check_fields("Messages", &sent.body, MESSAGES);
    sent.body
}

#[tokio::test]
async fn messages_text_request_has_system_max_tokens_and_a_user_message() {
    let body = messages(request("claude-sonnet-4-5"), false).await;
    assert_eq!(body["system"], "You are terse.");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["messages"][0]["role"], "user");
}

#[tokio::test]
async fn messages_options_are_their_own_names() {
    let mut request = request("claude-haiku-4-5");
    request.max_output_tokens = Some(300);
    request.temperature = Some(0.2);
    request.stop = vec!["END".into()];
    let body = messages(request.clone(), true).await;
    assert_eq!(body["max_tokens"], 300);
    assert!(
        body["temperature"]
            .as_f64()
            .is_some_and(|t| (t - 0.2).abs() < 1e-6),
        "{body}"
    );
    assert_eq!(body["stop_sequences"], json!(["END"]));
    // Claude Haiku 4.5 takes `temperature` or `top_p`, not both ("`temperature` and `top_p`
    // cannot both be specified for this model", BerriAI/litellm#15097): `top_p` alone is sent,
    // both are refused before sending.
    request.temperature = None;
    request.top_p = Some(0.9);
    let body = messages(request.clone(), true).await;
    assert!(
        body["top_p"]
            .as_f64()
            .is_some_and(|p| (p - 0.9).abs() < 1e-6),
        "{body}"
    );
    request.temperature = Some(0.2);
    let Err(refused) = capture(at(true), &request, false).await else {
        panic!("temperature and top_p together were sent to claude-haiku-4-5");
    };
    assert!(
        refused.message.contains("`top_p` cannot be sent"),
        "{}",
        refused.message
    );
}

#[tokio::test]
async fn messages_strict_schema_is_output_config_format() {
    let body = messages(strict("claude-sonnet-4-5"), false).await;
    assert_eq!(body["output_config"]["format"]["type"], "json_schema");
    assert_eq!(body["output_config"]["format"]["schema"]["type"], "object");
}

#[tokio::test]
async fn messages_thinking_budget_is_extended_thinking() {
    let mut request = request("claude-sonnet-4-5");
    request.thinking_budget = Some(1024);
    request.max_output_tokens = Some(500);
    let body = messages(request.clone(), false).await;
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 1024})
    );
    assert_eq!(body["max_tokens"], 1524);
    request.thinking_budget = Some(0);
    assert_eq!(
        messages(request, false).await["thinking"],
        json!({"type": "disabled"})
    );
}

#[tokio::test]
async fn messages_prompt_caching_marks_a_system_text_block() {
    let mut request = request("claude-sonnet-4-5");
    request.prompt_caching = true;
    let body = messages(request, false).await;
    assert_eq!(
        body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
}

#[tokio::test]
async fn messages_stream_asks_for_a_stream() {
    let sent = capture(at(false), &request("claude-sonnet-4-5"), true)
        .await
        .unwrap();
    check_fields("Messages", &sent.body, MESSAGES);
    assert_eq!(sent.body["stream"], true);
}

fn reply() -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": "{\"value\": 2}"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 30, "output_tokens": 5}
    })
}

/// `u32::ai` with `options` through a default Anthropic provider, and the bodies it sent.
async fn call(options: AiRequestOptions) -> (AiResult<u32>, Vec<Value>) {
    let server = answering(reply()).await;
    let client = IntentClient::new(
        AnthropicProvider::new("sk-ant-conformance")
            .with_base_url(server.uri())
            .with_max_retries(0),
    );
    let result = u32::ai(&client, "2 apples", "Count the fruit.")
        .options(options)
        .await;
    let bodies: Vec<Value> = sent(&server).await.iter().map(body_of).collect();
    for body in &bodies {
        check_fields("Messages", body, MESSAGES);
    }
    (result, bodies)
}

/// The text of a body's prompt in the order Anthropic caches it (system, then messages), up to
/// and including the last block marked `cache_control`; empty when none is.
fn cached_prefix(body: &Value) -> String {
    let blocks = |value: &Value| -> Vec<Value> {
        match value {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        }
    };
    let mut all = blocks(&body["system"]);
    for message in body["messages"].as_array().into_iter().flatten() {
        all.extend(blocks(&message["content"]));
    }
    let Some(last) = all.iter().rposition(|b| b.get("cache_control").is_some()) else {
        return String::new();
    };
    all[..=last]
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn messages_temperature_is_sent_when_set() {
    let (result, bodies) = call(AiRequestOptions {
        temperature: Some(0.0),
        ..AiRequestOptions::default()
    })
    .await;
    told_or_sent(&result, &bodies, "temperature", |b| {
        b.get("temperature") == Some(&json!(0.0))
    });
}

#[tokio::test]
async fn messages_reasoning_effort_is_output_config_effort() {
    let (result, bodies) = call(AiRequestOptions {
        model: Some("claude-opus-4-6".into()),
        reasoning_effort: Some(ReasoningEffort::Low),
        ..AiRequestOptions::default()
    })
    .await;
    told_or_sent(&result, &bodies, "reasoning_effort", |b| {
        b["output_config"]["effort"] == "low"
    });
}

#[tokio::test]
async fn messages_prompt_caching_covers_the_intent() {
    let (_, bodies) = call(AiRequestOptions {
        prompt_caching: true,
        ..AiRequestOptions::default()
    })
    .await;
    let body = bodies.first().expect("a request was sent");
    let prefix = cached_prefix(body);
    assert!(
        prefix.contains("Count the fruit."),
        "the cached prefix ends before the intent: {prefix:?}\nbody: {body}"
    );
    assert!(
        !prefix.contains("2 apples"),
        "the cached prefix holds the input, which no other call shares: {prefix:?}"
    );
}

#[tokio::test]
async fn messages_prompt_caching_below_the_minimum_is_noticed() {
    let (result, _) = call(AiRequestOptions {
        model: Some("claude-haiku-4-5".into()),
        prompt_caching: true,
        ..AiRequestOptions::default()
    })
    .await;
    let noticed = result
        .attempts()
        .iter()
        .any(|a| a.notices.iter().any(|n| n.message.contains("cache")));
    assert!(noticed, "no notice that the short prefix is not cached");
}

#[tokio::test]
async fn a_whole_call_sends_only_recorded_fields() {
    let (result, bodies) = call(AiRequestOptions {
        max_output_tokens: Some(200),
        thinking_budget: Some(1024),
        prompt_caching: true,
        ..AiRequestOptions::default()
    })
    .await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(bodies.len(), 1);
}

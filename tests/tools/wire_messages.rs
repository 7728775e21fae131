//! Anthropic's and Gemini's tool wire over HTTP: the first round answered with a recorded real
//! tool-call reply (`vendor-fixtures/anthropic-messages/anthropic-json-other-tool.1.json`,
//! `google-gemini/google-tool-call-gemini3.json`, read where they lie), and the exact body of the
//! second round checked: the model's turn sent back as it came (Gemini's `thoughtSignature`
//! kept), the results after it.

use intent_core::prelude::*;
use intent_tests::wire::{anthropic, body_of, quick_retries, sent};
use serde_json::json;

use super::{forecast_with_tool, recorded, two_rounds};

/// A Gemini provider for `server`, asking `model`, with a test key and one quick retry.
fn gemini(server: &wiremock::MockServer, model: &str) -> GeminiProvider {
    GeminiProvider::new("AIza-test")
        .with_base_url(server.uri())
        .with_model(model)
        .with_retry_policy(quick_retries(1))
}

const FORECAST: &str = r#"{"value": {"city": "San Francisco", "sunny": true}}"#;
const WEATHER: &str = r#"{"location":"San Francisco","sky":"sunny"}"#;

/// Anthropic's recorded tool-call reply, and the answer a later round gets.
fn anthropic_rounds() -> (serde_json::Value, serde_json::Value) {
    let first = recorded("anthropic-messages/anthropic-json-other-tool.1.json");
    let then = json!({
        "model": "claude-haiku-4-5-20251001", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": FORECAST}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 900, "output_tokens": 15}
    });
    (first, then)
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn anthropic_sends_the_recorded_turn_back_with_a_tool_result() {
    let (first, then) = anthropic_rounds();
    let server = two_rounds(first.clone(), then).await;
    let client = IntentClient::new(anthropic(&server));
    let result = forecast_with_tool(&client).await;
    let requests = sent(&server).await;
    let (one, two) = (body_of(&requests[0]), body_of(&requests[1]));
    assert_eq!(
        one["tools"],
        json!([{
            "name": "weather",
            "description": "Today's weather in a city.",
            "input_schema": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
                "additionalProperties": false
            }
        }])
    );
    assert!(one.get("tool_choice").is_none());
    let mut want = one.clone();
    let messages = want["messages"].as_array_mut().unwrap();
    messages.push(json!({"role": "assistant", "content": first["content"]}));
    messages.push(json!({"role": "user", "content": [{
        "type": "tool_result", "tool_use_id": "toolu_01PQjhxo3eirCdKNvCJrKc8f", "content": WEATHER
    }]}));
    assert_eq!(two, want);
    assert_eq!(result.usage().input_tokens, 843 + 900);
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn gemini_sends_the_recorded_turn_back_with_its_thought_signature() {
    let first = recorded("google-gemini/google-tool-call-gemini3.json");
    let then = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": FORECAST}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 12},
        "modelVersion": "gemini-3-pro-preview"
    });
    let server = two_rounds(first.clone(), then).await;
    let client = IntentClient::new(gemini(&server, "gemini-3-pro-preview"));
    forecast_with_tool(&client).await;
    let requests = sent(&server).await;
    let (one, two) = (body_of(&requests[0]), body_of(&requests[1]));
    let declaration = &one["tools"][0]["functionDeclarations"][0];
    assert_eq!(declaration["name"], "weather");
    assert_eq!(
        declaration["parametersJsonSchema"]["properties"]["location"],
        json!({"type": "string"})
    );
    assert!(one.get("toolConfig").is_none());
    let mut want = one.clone();
    let contents = want["contents"].as_array_mut().unwrap();
    contents.push(json!({"role": "model", "parts": first["candidates"][0]["content"]["parts"]}));
    contents.push(json!({"role": "user", "parts": [{"functionResponse": {
        "name": "weather",
        "response": {"result": {"location": "San Francisco", "sky": "sunny"}}
    }}]}));
    assert_eq!(two, want);
    assert!(two["contents"][1]["parts"][0]["thoughtSignature"]
        .as_str()
        .is_some_and(|s| s.starts_with("Eqo+")));
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn anthropic_is_asked_to_answer_with_tool_choice_none_after_a_repeated_call() {
    let (first, then) = anthropic_rounds();
    let repeated = [first.clone(), first.clone()]
        .map(|reply| wiremock::ResponseTemplate::new(200).set_body_json(reply));
    let server = intent_tests::wire::failing_then(repeated.into(), then).await;
    let client = IntentClient::new(anthropic(&server));
    let result = forecast_with_tool(&client).await;
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 3);
    let (two, three) = (body_of(&requests[1]), body_of(&requests[2]));
    assert_eq!(three["tool_choice"], json!({"type": "none"}));
    assert_eq!(
        three["messages"], two["messages"],
        "the repeat is not sent back"
    );
    assert_eq!(three["output_config"], two["output_config"]);
    assert_eq!(result.attempts()[0].tool_calls.len(), 1);
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn gemini_2_5_gets_its_tool_rounds_without_the_format_and_the_answer_round_without_declarations(
) {
    let first = recorded("google-gemini/google-tool-call.json");
    let prose = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "It is sunny."}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 4}
    });
    let then = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": FORECAST}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 12}
    });
    let replies =
        [first, prose].map(|reply| wiremock::ResponseTemplate::new(200).set_body_json(reply));
    let server = intent_tests::wire::failing_then(replies.into(), then).await;
    let client = IntentClient::new(gemini(&server, "gemini-2.5-flash"));
    forecast_with_tool(&client).await;
    let bodies: Vec<serde_json::Value> = sent(&server).await.iter().map(body_of).collect();
    assert_eq!(bodies.len(), 3);
    for round in &bodies[..2] {
        let config = &round["generationConfig"];
        assert!(config.get("responseJsonSchema").is_none(), "{round}");
        // Gemini 2.5 refuses `application/json` beside declarations; plain text it takes.
        assert_eq!(config["responseMimeType"], "text/plain", "{round}");
        assert_eq!(
            round["tools"][0]["functionDeclarations"][0]["name"],
            "weather"
        );
    }
    let answer = &bodies[2];
    assert!(answer.get("tools").is_none() && answer.get("toolConfig").is_none());
    assert_eq!(
        answer["generationConfig"]["responseMimeType"],
        "application/json"
    );
    assert!(answer["generationConfig"]
        .get("responseJsonSchema")
        .is_some());
    assert_eq!(answer["contents"], bodies[1]["contents"]);
}

//! The answer's channel: `OutputMode::Tool` (the arguments of a forced `final_answer` call) and
//! `OutputMode::Prompted` (JSON in the text, the schema in the prompt), each read by the same
//! reader as a native answer.

use intent_core::prelude::*;
use intent_core::provider::{ResponseFormat, ScriptedReply, ToolChoice};
use intent_core::{IssueKind, OutputMode};
use intent_tests::wire::{body_of, openai, sent};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::{weather_tool, Forecast};

fn tool_mode() -> AiRequestOptions {
    AiRequestOptions {
        output_mode: Some(OutputMode::Tool),
        ..AiRequestOptions::default()
    }
}

/// A server with tool calling and no schema mode: it refuses any `response_format`, and answers
/// a request that requires a tool with a call of the first one offered.
fn no_schema_mode(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    if body.get("response_format").is_some() {
        return ResponseTemplate::new(400).set_body_json(json!({"error": {
            "message": "response_format is not supported by this server", "type": "invalid_request_error"}}));
    }
    let message = match body["tool_choice"].as_str() {
        Some("required") => json!({"role": "assistant", "content": null, "tool_calls": [{
            "id": "call_1", "type": "function",
            "function": {"name": body["tools"][0]["function"]["name"],
                         "arguments": "{\"value\": {\"city\": \"Oslo\", \"sunny\": false}}"}}]}),
        _ => json!({"role": "assistant", "content": "I cannot format that."}),
    };
    ResponseTemplate::new(200).set_body_json(json!({
        "model": "local", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 9}
    }))
}

#[tokio::test]
async fn tool_mode_answers_through_final_answer_on_a_server_that_refuses_response_format() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(no_schema_mode)
        .mount(&server)
        .await;
    let client = IntentClient::new(openai(&server));
    let result = Forecast::ai(&client, "Oslo, rain", "Say whether it is sunny.")
        .options(tool_mode())
        .await;
    assert_eq!(
        result.value(),
        Some(&Forecast {
            city: "Oslo".into(),
            sunny: false
        }),
        "{:?}",
        result.issues()
    );
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 1);
    let body = body_of(&requests[0]);
    assert!(body.get("response_format").is_none());
    assert_eq!(body["tool_choice"], "required");
    let final_answer = &body["tools"][0]["function"];
    assert_eq!(final_answer["name"], "final_answer");
    assert_eq!(final_answer["strict"], true);
    assert_eq!(
        final_answer["parameters"]["properties"]["value"]["required"],
        json!(["city", "sunny"])
    );
    // The answer is not a tool call of the caller's: none is recorded.
    assert!(result.attempts()[0].tool_calls.is_empty());
    // The same call in native mode is refused by this server.
    let native = Forecast::ai(&client, "Oslo, rain", "Say whether it is sunny.").await;
    assert!(!native.is_success());
    assert_eq!(native.issues()[0].kind, IssueKind::Provider);
}

#[tokio::test]
async fn tool_mode_runs_the_caller_s_tools_before_the_final_answer() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("weather", json!({"location": "Oslo"}))]),
        ScriptedReply::tool_calls([(
            "final_answer",
            json!({"value": {"city": "Oslo", "sunny": true}}),
        )]),
    ]);
    let client = IntentClient::new(model.clone());
    let result = Forecast::ai(&client, "Oslo", "Say whether it is sunny.")
        .options(tool_mode())
        .tool(weather_tool())
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    let requests = model.requests();
    let offered = requests[0].tools.as_ref().unwrap();
    let names: Vec<&str> = offered
        .definitions
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(names, ["weather", "final_answer"]);
    assert_eq!(offered.choice, ToolChoice::Required);
    assert_eq!(requests[0].format, ResponseFormat::Text);
    assert!(requests[0].schema.is_none());
    assert_eq!(result.attempts()[0].tool_calls.len(), 1);
}

#[tokio::test]
async fn a_final_answer_that_does_not_verify_is_retried_with_its_findings() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("final_answer", json!({"value": {"city": "Oslo"}}))]),
        ScriptedReply::tool_calls([(
            "final_answer",
            json!({"value": {"city": "Oslo", "sunny": false}}),
        )]),
    ]);
    let client = IntentClient::new(model.clone());
    let result = Forecast::ai(&client, "Oslo", "Say whether it is sunny.")
        .options(tool_mode())
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.attempts().len(), 2);
    assert!(result.attempts()[0]
        .issues
        .iter()
        .any(|i| i.path.as_deref() == Some("/value/sunny")));
    assert!(model.requests()[1].user.contains("sunny"));
}

#[tokio::test]
async fn prompted_mode_asks_for_json_in_the_text_with_the_schema_in_the_prompt() {
    let model = ScriptedProvider::new([r#"Here: {"value": {"city": "Oslo", "sunny": true}}"#]);
    let client = IntentClient::new(model.clone());
    let result = Forecast::ai(&client, "Oslo", "Say whether it is sunny.")
        .options(AiRequestOptions {
            output_mode: Some(OutputMode::Prompted),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    let request = &model.requests()[0];
    assert_eq!(request.format, ResponseFormat::Text);
    assert!(request.schema.is_none());
    assert!(request.user.contains("## Output schema"));
    assert!(request.user.contains("\"sunny\""));
    assert!(request.tools.is_none());
}

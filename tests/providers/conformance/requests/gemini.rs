//! Gemini `generateContent` request bodies against requests the live API accepted (pydantic-ai's
//! cassettes) and Google's references (googleapis/python-genai `types.py`: `GenerationConfig`,
//! `ThinkingConfig`, `ThinkingLevel`; ai.google.dev "Text generation").

use std::time::Duration;

use intent_core::provider::GeminiProvider;
use intent_core::provider::Provider;
use intent_core::ReasoningEffort;
use serde_json::{json, Value};

use super::{capture, check_fields, field, json_object, request, strict, Field, Seen};

const GENAI: &str = "googleapis/python-genai types.py";

/// `generateContent` fields and where each was seen accepted.
pub const GENERATE: &[Field] = &[
    // pydantic-ai also sends `role: "user"` here; Google's examples send none.
    field("systemInstruction.parts[].text", "string", Seen::Cassette("test_google/test_google_model_stream.yaml")),
    field("contents[].role", "user", Seen::Cassette("test_google/test_google_model_stream.yaml")),
    field("contents[].parts[].text", "string", Seen::Cassette("test_google/test_google_model_stream.yaml")),
    field("generationConfig.responseMimeType", "text/plain|application/json", Seen::Cassette("test_google/test_google_native_output.yaml (application/json); text/plain, the default: python-genai GenerationConfig.response_mime_type")),
    field("generationConfig.responseJsonSchema", "object", Seen::Cassette("test_google/test_google_native_output.yaml")),
    field("generationConfig.maxOutputTokens", "integer", Seen::Cassette("test_google/test_google_model_max_tokens.yaml")),
    field("generationConfig.temperature", "number", Seen::Cassette("test_google/test_google_model_stream.yaml")),
    field("generationConfig.topP", "number", Seen::Cassette("test_google/test_google_model_top_p.yaml")),
    field("generationConfig.seed", "integer", Seen::Reference(GENAI)),
    field("generationConfig.responseLogprobs", "boolean", Seen::Reference(GENAI)),
    field("generationConfig.stopSequences[]", "string", Seen::Reference(GENAI)),
    field("generationConfig.thinkingConfig.thinkingBudget", "integer", Seen::Cassette("test_google/test_google_model_max_tokens.yaml (as thinking_budget)")),
    field("generationConfig.thinkingConfig.includeThoughts", "boolean", Seen::Cassette("test_google/test_google_model_thinking_part_iter.yaml")),
    // The enum's names; the vendor fixture google-gemini/google-thinking-level-minimal-unsupported.json
    // names the level as MINIMAL.
    field("generationConfig.thinkingConfig.thinkingLevel", "MINIMAL|LOW|MEDIUM|HIGH", Seen::Reference("googleapis/python-genai types.py ThinkingLevel")),
    // Tools (the first round of the cassette).
    field("tools[].functionDeclarations[].name", "string", Seen::Cassette("test_google/test_google_tool_output.yaml (as parameters_json_schema, the proto name of the REST field parametersJsonSchema)")),
    field("tools[].functionDeclarations[].description", "string", Seen::Cassette("test_google/test_google_tool_output.yaml (as parameters_json_schema, the proto name of the REST field parametersJsonSchema)")),
    field("tools[].functionDeclarations[].parametersJsonSchema", "object", Seen::Cassette("test_google/test_google_tool_output.yaml (as parameters_json_schema, the proto name of the REST field parametersJsonSchema)")),
    field("toolConfig.functionCallingConfig.mode", "AUTO|ANY|NONE", Seen::Cassette("test_google/test_google_tool_output.yaml (as parameters_json_schema, the proto name of the REST field parametersJsonSchema)")),
    field("toolConfig.functionCallingConfig.allowedFunctionNames[]", "string", Seen::Cassette("test_google/test_google_tool_output.yaml (as parameters_json_schema, the proto name of the REST field parametersJsonSchema)")),
];

fn at(base: &str) -> Box<dyn Provider> {
    Box::new(
        GeminiProvider::new("AIza-conformance")
            .with_base_url(base)
            .with_max_retries(0)
            .with_timeout(Duration::from_secs(10)),
    )
}

/// The body sent for `request`, checked against [`GENERATE`].
async fn generate(request: intent_core::AiRequest) -> Value {
    let model = request.model.clone().unwrap_or_default();
    let sent = capture(at, &request, false)
        .await
        .expect("the request is sent");
    assert_eq!(
        sent.target,
        format!("/v1beta/models/{model}:generateContent")
    );
    check_fields("generateContent", &sent.body, GENERATE);
    sent.body
}

#[tokio::test]
async fn generate_text_request_has_a_system_instruction_and_user_contents() {
    let body = generate(request("gemini-2.5-flash")).await;
    assert_eq!(
        body["systemInstruction"]["parts"][0]["text"],
        "You are terse."
    );
    assert_eq!(body["contents"][0]["role"], "user");
    assert_eq!(body["generationConfig"]["responseMimeType"], "text/plain");
}

#[tokio::test]
async fn generate_options_are_generation_config_fields() {
    let mut request = request("gemini-2.5-flash");
    request.max_output_tokens = Some(5);
    request.temperature = Some(0.0);
    request.top_p = Some(0.5);
    request.seed = Some(7);
    request.stop = vec!["END".into()];
    let config = &generate(request).await["generationConfig"];
    assert_eq!(config["maxOutputTokens"], 5);
    assert_eq!(config["temperature"], 0.0);
    assert_eq!(config["topP"], 0.5);
    assert_eq!(config["seed"], 7);
    assert_eq!(config["stopSequences"], json!(["END"]));
}

#[tokio::test]
async fn generate_strict_schema_is_response_json_schema() {
    let config = &generate(strict("gemini-2.5-flash")).await["generationConfig"];
    assert_eq!(config["responseMimeType"], "application/json");
    assert_eq!(config["responseJsonSchema"]["type"], "object");
    let config = &generate(json_object("gemini-2.5-flash")).await["generationConfig"];
    assert_eq!(config["responseMimeType"], "application/json");
    assert!(config.get("responseJsonSchema").is_none(), "{config}");
}

#[tokio::test]
async fn generate_reasoning_is_thinking_config() {
    let mut request = request("gemini-3-flash-preview");
    request.reasoning_effort = Some(ReasoningEffort::Low);
    let config = &generate(request.clone()).await["generationConfig"];
    assert_eq!(
        config["thinkingConfig"],
        json!({"thinkingLevel": "LOW", "includeThoughts": true})
    );
    request.thinking_budget = Some(0);
    let config = &generate(request).await["generationConfig"];
    assert_eq!(config["thinkingConfig"], json!({"thinkingBudget": 0}));
}

#[tokio::test]
async fn generate_prompt_caching_sends_nothing_more() {
    let plain = generate(request("gemini-2.5-flash")).await;
    let mut cached = request("gemini-2.5-flash");
    cached.prompt_caching = true;
    assert_eq!(generate(cached).await, plain);
}

#[tokio::test]
async fn a_whole_call_sends_only_recorded_fields() {
    use intent_core::prelude::*;

    let server = intent_tests::wire::answering(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "{\"value\": 2}"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 30, "candidatesTokenCount": 5},
        "modelVersion": "gemini-2.5-flash"
    }))
    .await;
    let client = IntentClient::new(
        GeminiProvider::new("AIza-conformance")
            .with_base_url(server.uri())
            .with_max_retries(0),
    );
    let result = u32::ai(&client, "2 apples", "Count the fruit.")
        .options(AiRequestOptions {
            max_output_tokens: Some(200),
            reasoning_effort: Some(ReasoningEffort::Low),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    let sent = intent_tests::wire::sent(&server).await;
    assert_eq!(sent.len(), 1);
    check_fields(
        "generateContent",
        &intent_tests::wire::body_of(&sent[0]),
        GENERATE,
    );
}

#[tokio::test]
async fn generate_stream_asks_for_the_event_stream() {
    let sent = capture(at, &request("gemini-2.5-flash"), true)
        .await
        .unwrap();
    check_fields("streamGenerateContent", &sent.body, GENERATE);
    assert_eq!(
        sent.target,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
}

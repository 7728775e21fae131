//! OpenAI Chat Completions and Responses request bodies against requests the live API accepted
//! (pydantic-ai's cassettes) and OpenAI's `openapi.yaml` (openai/openai-openapi,
//! `CreateChatCompletionRequest`, `CreateResponse`).

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{MaxTokensField, OpenAiApi, Provider};
use intent_core::ReasoningEffort;
use serde_json::{json, Value};

use super::{
    capture, check_fields, field, json_object, refused_or_noticed, request, strict, told_or_sent,
    Field, Seen,
};
use intent_tests::wire::{answering, body_of, sent};

/// Chat Completions fields and where each was seen accepted.
pub const CHAT: &[Field] = &[
    field(
        "model",
        "string",
        Seen::Cassette("test_openai/test_openai_native_output.yaml"),
    ),
    field(
        "messages[].role",
        "system|user",
        Seen::Cassette("test_openai/test_openai_instructions.yaml"),
    ),
    field(
        "messages[].content",
        "string",
        Seen::Cassette("test_openai/test_openai_instructions.yaml"),
    ),
    field(
        "max_completion_tokens",
        "integer",
        Seen::Cassette("test_openai/test_max_completion_tokens[o3-mini].yaml"),
    ),
    // Deprecated, and refused by reasoning models (vendor fixture
    // openai-chat/reasoning-model-legacy-parameter-error.json): sent only when chosen, for
    // servers that read no other (Ollama).
    field(
        "max_tokens",
        "integer",
        Seen::Reference("CreateChatCompletionRequest.max_tokens"),
    ),
    field(
        "temperature",
        "number",
        Seen::Reference("CreateChatCompletionRequest.temperature"),
    ),
    field(
        "top_p",
        "number",
        Seen::Reference("CreateChatCompletionRequest.top_p"),
    ),
    field(
        "seed",
        "integer",
        Seen::Reference("CreateChatCompletionRequest.seed"),
    ),
    field(
        "stop[]",
        "string",
        Seen::Reference("CreateChatCompletionRequest.stop (StopConfiguration)"),
    ),
    field(
        "reasoning_effort",
        "none|minimal|low|medium|high|xhigh",
        Seen::Cassette("test_openai/test_openai_model_thinking_part.yaml"),
    ),
    field(
        "prompt_cache_key",
        "string",
        Seen::Cassette("test_openai_prompt_cache/test_openai_chat_prompt_cache_e2e.yaml"),
    ),
    field(
        "logprobs",
        "boolean",
        Seen::Reference("CreateChatCompletionRequest.logprobs"),
    ),
    field(
        "response_format.type",
        "json_schema|json_object",
        Seen::Cassette("test_openai/test_openai_native_output.yaml"),
    ),
    field(
        "response_format.json_schema.name",
        "string",
        Seen::Cassette("test_openai/test_openai_native_output.yaml"),
    ),
    field(
        "response_format.json_schema.strict",
        "boolean",
        Seen::Cassette("test_groq/test_groq_native_output.yaml"),
    ),
    field(
        "response_format.json_schema.schema",
        "object",
        Seen::Cassette("test_openai/test_openai_native_output.yaml"),
    ),
    field(
        "stream",
        "boolean",
        Seen::Cassette("test_openai/test_run_stream_sync_streams_real_model.yaml"),
    ),
    field(
        "stream_options.include_usage",
        "boolean",
        Seen::Cassette("test_openai/test_run_stream_sync_streams_real_model.yaml"),
    ),
    // Tools: offered with their strict parameters (the first round of the cassette).
    field(
        "tools[].type",
        "function",
        Seen::Cassette("test_openai/test_openai_tool_output.yaml"),
    ),
    field(
        "tools[].function.name",
        "string",
        Seen::Cassette("test_openai/test_openai_tool_output.yaml"),
    ),
    field(
        "tools[].function.description",
        "string",
        Seen::Cassette("test_openai/test_openai_tool_output.yaml"),
    ),
    field(
        "tools[].function.parameters",
        "object",
        Seen::Cassette("test_openai/test_openai_tool_output.yaml"),
    ),
    field(
        "tools[].function.strict",
        "boolean",
        Seen::Cassette("test_openai/test_openai_tool_output.yaml"),
    ),
    field(
        "tool_choice",
        "auto|required|none",
        Seen::Cassette("test_openai/test_openai_tool_output.yaml"),
    ),
];

/// Responses API fields and where each was seen accepted.
pub const RESPONSES: &[Field] = &[
    field("model", "string", Seen::Cassette("test_openai_responses/test_openai_responses_model_simple_response.yaml")),
    field("instructions", "string", Seen::Cassette("test_openai_responses/test_openai_responses_model_instructions.yaml")),
    field("input[].role", "user", Seen::Cassette("test_openai_responses/test_openai_responses_model_simple_response.yaml")),
    field("input[].content", "string", Seen::Cassette("test_openai_responses/test_openai_responses_model_simple_response.yaml")),
    field("max_output_tokens", "integer", Seen::Echo("openai-responses/openai-issue-11239.1.chunks.txt (response.created echoes max_output_tokens 1200)")),
    field("temperature", "number", Seen::Cassette("test_openai_responses/test_openai_responses_gpt_5_6_reasoning_off_keeps_sampling_params.yaml")),
    field("top_p", "number", Seen::Reference("CreateResponse.top_p (ResponseProperties)")),
    field("reasoning.effort", "none|minimal|low|medium|high|xhigh", Seen::Cassette("test_openai_responses/test_openai_responses_model_thinking_part.yaml")),
    field("reasoning.summary", "auto|concise|detailed", Seen::Cassette("test_openai_responses/test_openai_responses_model_thinking_part.yaml")),
    field("text.format.type", "text|json_object|json_schema", Seen::Cassette("test_openai_responses/test_native_output.yaml; test_prompted_output.yaml; test_openai_responses_verbosity.yaml")),
    field("text.format.name", "string", Seen::Cassette("test_openai_responses/test_native_output.yaml")),
    field("text.format.strict", "boolean", Seen::Cassette("test_openai_responses/test_native_output.yaml")),
    field("text.format.schema", "object", Seen::Cassette("test_openai_responses/test_native_output.yaml")),
    field("prompt_cache_key", "string", Seen::Cassette("test_openai_prompt_cache/test_openai_responses_prompt_cache_e2e.yaml")),
    field("include[]", "message.output_text.logprobs", Seen::Reference("CreateResponse.include (Includable)")),
    field("store", "boolean", Seen::Echo("openai-responses/openai-reasoning-encrypted-content.1.json (\"store\": false)")),
    field("stream", "boolean", Seen::Cassette("test_openai_responses/test_openai_responses_model_web_search_tool_stream.yaml")),
    // Tools: offered with their strict parameters (the first round of the cassette).
    field("tools[].type", "function", Seen::Cassette("test_openai_responses/test_tool_output.yaml")),
    field("tools[].name", "string", Seen::Cassette("test_openai_responses/test_tool_output.yaml")),
    field("tools[].description", "string", Seen::Cassette("test_openai_responses/test_tool_output.yaml")),
    field("tools[].parameters", "object", Seen::Cassette("test_openai_responses/test_tool_output.yaml")),
    field("tools[].strict", "boolean", Seen::Cassette("test_openai_responses/test_tool_output.yaml")),
    field("tool_choice", "auto|required|none", Seen::Cassette("test_openai_responses/test_tool_output.yaml")),
];

fn at(api: OpenAiApi) -> impl Fn(&str) -> Box<dyn Provider> {
    move |base| {
        Box::new(
            OpenAiProvider::new("sk-conformance")
                .with_base_url(format!("{base}/v1"))
                .with_api(api)
                .with_max_retries(0)
                .with_timeout(Duration::from_secs(10)),
        )
    }
}

/// The body `api` sends for `request`, checked against the API's table.
async fn body(api: OpenAiApi, request: intent_core::AiRequest) -> Value {
    let (path, name, table) = match api {
        OpenAiApi::Responses => ("/v1/responses", "Responses", RESPONSES),
        _ => ("/v1/chat/completions", "Chat Completions", CHAT),
    };
    let sent = capture(at(api), &request, false)
        .await
        .expect("the request is sent");
    assert_eq!(sent.target, path);
    check_fields(name, &sent.body, table);
    sent.body
}

async fn chat(request: intent_core::AiRequest) -> Value {
    body(OpenAiApi::ChatCompletions, request).await
}

async fn responses(request: intent_core::AiRequest) -> Value {
    body(OpenAiApi::Responses, request).await
}

#[tokio::test]
async fn chat_text_request_is_system_and_user_messages() {
    let body = chat(request("gpt-4.1-mini")).await;
    assert_eq!(body["model"], "gpt-4.1-mini");
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["role"], "user");
    assert!(body.get("response_format").is_none(), "{body}");
}

#[tokio::test]
async fn chat_max_output_tokens_is_max_completion_tokens() {
    let mut request = request("o3-mini");
    request.max_output_tokens = Some(100);
    let body = chat(request.clone()).await;
    assert_eq!(body["max_completion_tokens"], 100);
    assert!(body.get("max_tokens").is_none(), "{body}");

    let sent = capture(
        |base| {
            Box::new(
                OpenAiProvider::new("")
                    .with_base_url(format!("{base}/v1"))
                    .with_max_tokens_field(MaxTokensField::MaxTokens)
                    .with_max_retries(0),
            )
        },
        &request,
        false,
    )
    .await
    .unwrap();
    check_fields("Chat Completions", &sent.body, CHAT);
    assert_eq!(sent.body["max_tokens"], 100);
}

#[tokio::test]
async fn chat_sampling_fields_are_their_own_names() {
    let mut request = request("gpt-4.1-mini");
    request.temperature = Some(0.0);
    request.top_p = Some(0.5);
    request.seed = Some(7);
    request.stop = vec!["END".into()];
    let body = chat(request).await;
    assert_eq!(body["temperature"], 0.0);
    assert_eq!(body["top_p"], 0.5);
    assert_eq!(body["seed"], 7);
    assert_eq!(body["stop"], json!(["END"]));
}

#[tokio::test]
async fn chat_reasoning_effort_is_reasoning_effort() {
    let mut request = request("o3-mini");
    request.reasoning_effort = Some(ReasoningEffort::High);
    assert_eq!(chat(request).await["reasoning_effort"], "high");
}

#[tokio::test]
async fn chat_strict_schema_is_response_format_json_schema() {
    let body = chat(strict("gpt-4.1-mini")).await;
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(format["json_schema"]["name"], "intent_output");
    assert_eq!(format["json_schema"]["schema"]["type"], "object");
}

#[tokio::test]
async fn chat_json_object_is_response_format_json_object() {
    let body = chat(json_object("gpt-4.1-mini")).await;
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
}

#[tokio::test]
async fn chat_prompt_caching_is_a_prompt_cache_key() {
    let mut request = request("gpt-4.1-mini");
    request.prompt_caching = true;
    let body = chat(request).await;
    assert!(
        body["prompt_cache_key"]
            .as_str()
            .is_some_and(|k| !k.is_empty()),
        "{body}"
    );
}

#[tokio::test]
async fn chat_stream_asks_for_usage() {
    let sent = capture(
        at(OpenAiApi::ChatCompletions),
        &request("gpt-4.1-mini"),
        true,
    )
    .await
    .unwrap();
    check_fields("Chat Completions", &sent.body, CHAT);
    assert_eq!(sent.body["stream"], true);
    assert_eq!(sent.body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn responses_text_request_is_instructions_input_and_store_false() {
    let body = responses(request("gpt-5-mini")).await;
    assert_eq!(body["instructions"], "You are terse.");
    assert_eq!(body["input"][0]["role"], "user");
    assert_eq!(body["text"]["format"]["type"], "text");
    assert_eq!(body["store"], false);
}

#[tokio::test]
async fn responses_options_are_their_own_names() {
    let mut request = request("gpt-4.1-mini");
    request.max_output_tokens = Some(1200);
    request.temperature = Some(0.5);
    request.top_p = Some(0.9);
    request.prompt_caching = true;
    let body = responses(request).await;
    assert_eq!(body["max_output_tokens"], 1200);
    assert_eq!(body["temperature"], 0.5);
    assert!(
        body["top_p"]
            .as_f64()
            .is_some_and(|p| (p - 0.9).abs() < 1e-6),
        "{body}"
    );
    assert!(body["prompt_cache_key"].is_string(), "{body}");
}

#[tokio::test]
async fn responses_reasoning_effort_is_reasoning_effort() {
    let mut request = request("gpt-5-mini");
    request.reasoning_effort = Some(ReasoningEffort::Low);
    assert_eq!(responses(request).await["reasoning"]["effort"], "low");
}

#[tokio::test]
async fn responses_strict_schema_is_a_flat_text_format() {
    let body = responses(strict("gpt-5-mini")).await;
    let format = &body["text"]["format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["name"], "intent_output");
    assert_eq!(format["strict"], true);
    assert_eq!(format["schema"]["type"], "object");
    assert!(format.get("json_schema").is_none(), "{body}");
}

#[tokio::test]
async fn responses_json_object_is_text_format_json_object() {
    let body = responses(json_object("gpt-5-mini")).await;
    assert_eq!(body["text"]["format"], json!({"type": "json_object"}));
}

/// A client on a server answering `reply`, for `api`.
fn client(server: &wiremock::MockServer, api: OpenAiApi) -> IntentClient {
    IntentClient::new(
        OpenAiProvider::new("sk-conformance")
            .with_base_url(format!("{}/v1", server.uri()))
            .with_api(api)
            .with_max_retries(0),
    )
}

fn chat_reply() -> Value {
    json!({
        "id": "c", "object": "chat.completion", "model": "o3-mini-2025-01-31",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{\"value\": 2}"}}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 5, "total_tokens": 35}
    })
}

fn responses_reply() -> Value {
    json!({
        "id": "r", "object": "response", "status": "completed", "model": "gpt-5-mini-2025-08-07",
        "output": [{"type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "{\"value\": 2}", "annotations": []}]}],
        "usage": {"input_tokens": 30, "output_tokens": 5, "total_tokens": 35}
    })
}

/// `u32::ai` with `options` through `api`, and the bodies the server received.
pub async fn call(api: OpenAiApi, options: AiRequestOptions) -> (AiResult<u32>, Vec<Value>) {
    let reply = match api {
        OpenAiApi::Responses => responses_reply(),
        _ => chat_reply(),
    };
    let server = answering(reply).await;
    let result = u32::ai(&client(&server, api), "2 apples", "Count the fruit.")
        .options(options)
        .await;
    let bodies: Vec<Value> = sent(&server).await.iter().map(body_of).collect();
    for body in &bodies {
        match api {
            OpenAiApi::Responses => check_fields("Responses", body, RESPONSES),
            _ => check_fields("Chat Completions", body, CHAT),
        }
    }
    (result, bodies)
}

/// A reasoning model asked with a temperature: the temperature must not reach the wire (the API
/// refuses it), and the caller must be told (refused before sending, or a notice).
async fn temperature_on_reasoning_model(api: OpenAiApi, model: &str) {
    let (result, bodies) = call(
        api,
        AiRequestOptions {
            model: Some(model.into()),
            temperature: Some(0.0),
            ..AiRequestOptions::default()
        },
    )
    .await;
    for body in &bodies {
        assert!(
            body.get("temperature").is_none(),
            "{model} refuses `temperature` (vendor fixture \
             openai-responses/reasoning-model-temperature-error.json: \"Unsupported parameter: \
             'temperature' is not supported with this model.\"), yet it was sent: {body}"
        );
    }
    assert!(
        refused_or_noticed(&result, "temperature"),
        "the temperature asked for {model} was dropped without a word: {:?}",
        result
            .attempts()
            .iter()
            .map(|a| &a.notices)
            .collect::<Vec<_>>()
    );
}

/// `thinking_budget` on an API that has no such field: refused or noticed, never dropped.
async fn thinking_budget_without_a_field(api: OpenAiApi) {
    let (result, bodies) = call(
        api,
        AiRequestOptions {
            model: Some("o3-mini".into()),
            thinking_budget: Some(2048),
            ..AiRequestOptions::default()
        },
    )
    .await;
    told_or_sent(&result, &bodies, "thinking_budget", |_| false);
}

#[tokio::test]
async fn responses_reasoning_summary_is_asked_for_with_reasoning() {
    let mut request = request("gpt-5-mini");
    request.reasoning_effort = Some(ReasoningEffort::Medium);
    let body = responses(request).await;
    assert!(
        body["reasoning"]["summary"].is_string(),
        "reasoning.summary is not sent: {body}"
    );
}

#[tokio::test]
async fn responses_stream_asks_for_a_stream() {
    let sent = capture(at(OpenAiApi::Responses), &request("gpt-5-mini"), true)
        .await
        .unwrap();
    check_fields("Responses", &sent.body, RESPONSES);
    assert_eq!(sent.body["stream"], true, "{}", sent.body);
}

#[tokio::test]
async fn chat_temperature_is_kept_from_reasoning_models() {
    temperature_on_reasoning_model(OpenAiApi::ChatCompletions, "o3-mini").await;
}

#[tokio::test]
async fn responses_temperature_is_kept_from_reasoning_models() {
    temperature_on_reasoning_model(OpenAiApi::Responses, "gpt-5-mini").await;
}

#[tokio::test]
async fn chat_thinking_budget_is_refused_or_noticed() {
    thinking_budget_without_a_field(OpenAiApi::ChatCompletions).await;
}

#[tokio::test]
async fn responses_thinking_budget_is_refused_or_noticed() {
    thinking_budget_without_a_field(OpenAiApi::Responses).await;
}

#[tokio::test]
async fn a_whole_call_sends_only_recorded_fields() {
    for api in [OpenAiApi::ChatCompletions, OpenAiApi::Responses] {
        let (result, bodies) = call(
            api,
            AiRequestOptions {
                max_output_tokens: Some(200),
                prompt_caching: true,
                ..AiRequestOptions::default()
            },
        )
        .await;
        assert!(result.is_success(), "{api:?}: {:?}", result.issues());
        assert_eq!(bodies.len(), 1, "{api:?}");
    }
}

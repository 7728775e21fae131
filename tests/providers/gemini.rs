//! Gemini's `generateContent` over HTTP: the exact URL, header and body sent for each response
//! format and option, the reply's text, thoughts, finish reasons and usage read back, errors and
//! retries, the key kept to its header, and the schema dialect (one test per rule).

use std::time::{Duration, Instant};

use intent_core::prelude::*;
use intent_core::provider::{FinishReason, GeminiProvider, Provider, ProviderErrorKind};
use intent_core::Intent;
use intent_core::{AiRequest, ResponseFormat};
use intent_tests::derive_types::{Event, Order, PurchaseRequest, Status};
use serde_json::{json, Value};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use intent_tests::wire::{answering, body_of, failing_then, quick_retries, sent, Captured};

const KEY: &str = "AIzaSy-test-0123456789abcdefXYZ";
const ENDPOINT: &str = "/v1beta/models/gemini-2.5-flash:generateContent";

fn provider(server: &MockServer) -> GeminiProvider {
    GeminiProvider::new(KEY)
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(2))
        .with_timeout(Duration::from_secs(5))
}

fn reply(parts: Value, finish_reason: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish_reason, "index": 0}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 7, "totalTokenCount": 47},
        "modelVersion": "gemini-2.5-flash-001",
        "responseId": "r-1"
    })
}

fn text_reply(text: &str) -> Value {
    reply(json!([{"text": text}]), "STOP")
}

fn request() -> AiRequest {
    AiRequest::new("You are terse.", "Say hi.")
}

fn strict(schema: Value) -> AiRequest {
    request().with_format(ResponseFormat::JsonSchema, Some(schema))
}

/// The `responseJsonSchema` sent for `schema`.
async fn schema_sent_for(schema: Value) -> Value {
    let server = answering(text_reply("{}")).await;
    provider(&server).complete(&strict(schema)).await.unwrap();
    body_of(&sent(&server).await[0])["generationConfig"]["responseJsonSchema"].clone()
}

/// The refusal of `schema`, checking that nothing was sent.
async fn refusal_of(schema: Value) -> String {
    let server = answering(text_reply("{}")).await;
    let error = provider(&server)
        .complete(&strict(schema))
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest, "{error}");
    assert_eq!(error.status, None);
    assert_eq!(error.provider, "gemini");
    assert!(sent(&server).await.is_empty(), "a refused schema was sent");
    error.message
}

// ---- the request ----

#[tokio::test]
async fn text_request_sends_system_instruction_contents_and_text_mime_type_only() {
    let server = answering(text_reply("hi")).await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "hi");

    let requests = sent(&server).await;
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].url.path(), ENDPOINT);
    assert_eq!(requests[0].url.query(), None);
    assert_eq!(
        body_of(&requests[0]),
        json!({
            "systemInstruction": {"parts": [{"text": "You are terse."}]},
            "contents": [{"role": "user", "parts": [{"text": "Say hi."}]}],
            "generationConfig": {"responseMimeType": "text/plain"}
        })
    );
    let headers = &requests[0].headers;
    assert_eq!(headers["x-goog-api-key"], KEY);
    assert_eq!(headers["content-type"], "application/json");
    assert!(headers.get("authorization").is_none());
}

#[tokio::test]
async fn an_empty_system_prompt_sends_no_system_instruction() {
    let server = answering(text_reply("hi")).await;
    provider(&server)
        .complete(&AiRequest::new("", "Say hi."))
        .await
        .unwrap();
    assert!(body_of(&sent(&server).await[0])
        .get("systemInstruction")
        .is_none());
}

#[tokio::test]
async fn json_object_request_sends_the_json_mime_type_without_a_schema() {
    let server = answering(text_reply("{\"a\": 1}")).await;
    let request = request().with_format(ResponseFormat::JsonObject, None);
    provider(&server).complete(&request).await.unwrap();
    assert_eq!(
        body_of(&sent(&server).await[0])["generationConfig"],
        json!({"responseMimeType": "application/json"})
    );
}

#[tokio::test]
async fn strict_request_sends_the_schema_tokens_temperature_and_the_requests_model() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1beta/models/gemini-2.5-pro:generateContent"))
        .respond_with(ResponseTemplate::new(200).set_body_json(text_reply("{\"value\": 1}")))
        .mount(&server)
        .await;
    let schema = u32::strict_envelope_schema().unwrap();
    let mut request = strict(schema.clone());
    request.max_output_tokens = Some(256);
    request.temperature = Some(0.0);
    request.model = Some("gemini-2.5-pro".into());
    provider(&server).complete(&request).await.unwrap();
    assert_eq!(
        body_of(&sent(&server).await[0]),
        json!({
            "systemInstruction": {"parts": [{"text": "You are terse."}]},
            "contents": [{"role": "user", "parts": [{"text": "Say hi."}]}],
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": schema,
                "maxOutputTokens": 256,
                "temperature": 0.0
            }
        })
    );
}

#[tokio::test]
async fn model_names_may_carry_the_models_prefix_or_name_a_tuned_model() {
    let server = answering(text_reply("ok")).await;
    let gemini = provider(&server);
    let mut request = request();
    request.model = Some("models/gemini-2.5-flash-lite".into());
    gemini.complete(&request).await.unwrap();
    request.model = Some("tunedModels/my-model-7".into());
    gemini.complete(&request).await.unwrap();
    let paths: Vec<String> = sent(&server)
        .await
        .iter()
        .map(|r| r.url.path().to_owned())
        .collect();
    assert_eq!(
        paths,
        [
            "/v1beta/models/gemini-2.5-flash-lite:generateContent",
            "/v1beta/tunedModels/my-model-7:generateContent"
        ]
    );
}

#[tokio::test]
async fn a_model_name_that_would_leave_its_path_segment_is_refused_before_sending() {
    let server = answering(text_reply("ok")).await;
    for model in [
        "gemini?key=x",
        "../files/x",
        "gemini/../../x",
        "a b",
        "",
        "gemini#x",
    ] {
        let mut request = request();
        request.model = Some(model.into());
        let error = provider(&server).complete(&request).await.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Config, "{model}: {error}");
        assert!(error.message.contains("not a Gemini model name"), "{error}");
    }
    assert!(sent(&server).await.is_empty());
}

// ---- the reply ----

#[tokio::test]
async fn thought_parts_are_reasoning_never_the_answer() {
    let server = answering(json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "**Counting** the letters one by one.", "thought": true},
            {"text": "{\"value\": "},
            {"thoughtSignature": "c2lnbmF0dXJl", "text": "3}"}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 9,
                          "cachedContentTokenCount": 100, "thoughtsTokenCount": 64,
                          "totalTokenCount": 193},
        "modelVersion": "gemini-2.5-flash-002"
    }))
    .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "{\"value\": 3}");
    assert_eq!(
        response.reasoning.as_deref(),
        Some("**Counting** the letters one by one.")
    );
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.model, "gemini-2.5-flash-002");
    assert_eq!(response.usage.input_tokens, 120);
    assert_eq!(response.usage.output_tokens, 9 + 64);
    assert_eq!(response.usage.cached_tokens, 100);
    assert_eq!(response.usage.reasoning_tokens, 64);
    assert_eq!(response.usage.calls, 1);
    assert_eq!(response.usage.total_tokens(), 193);
}

#[tokio::test]
async fn every_finish_reason_is_mapped() {
    let cases = [
        ("STOP", FinishReason::Stop),
        ("MAX_TOKENS", FinishReason::Length),
        ("SAFETY", FinishReason::ContentFilter),
        ("RECITATION", FinishReason::ContentFilter),
        ("BLOCKLIST", FinishReason::ContentFilter),
        ("PROHIBITED_CONTENT", FinishReason::ContentFilter),
        ("SPII", FinishReason::ContentFilter),
        ("IMAGE_SAFETY", FinishReason::ContentFilter),
        (
            "MALFORMED_FUNCTION_CALL",
            FinishReason::Abnormal("MALFORMED_FUNCTION_CALL".into()),
        ),
        ("LANGUAGE", FinishReason::Abnormal("LANGUAGE".into())),
        ("OTHER", FinishReason::Abnormal("OTHER".into())),
    ];
    for (reason, expected) in cases {
        let server = answering(reply(json!([{"text": "{\"value\": [1,"}]), reason)).await;
        let response = provider(&server).complete(&request()).await.unwrap();
        assert_eq!(response.finish_reason, expected, "{reason}");
    }
}

#[tokio::test]
async fn a_safety_stop_without_content_is_a_filtered_empty_reply() {
    let server = answering(json!({
        "candidates": [{"finishReason": "SAFETY", "index": 0,
                        "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "HIGH"}]}],
        "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12}
    }))
    .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
    assert_eq!(response.text, "");
}

#[tokio::test]
async fn a_blocked_prompt_is_a_filtered_reply_with_its_usage() {
    let server = answering(json!({
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 15, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash"
    }))
    .await;
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::ContentFilter);
    assert_eq!(response.text, "");
    assert_eq!(response.usage.input_tokens, 15);
}

#[tokio::test]
async fn a_reply_with_no_candidates_is_a_decode_error() {
    let server = answering(json!({"candidates": [], "modelVersion": "x"})).await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Decode);
    assert!(
        error.message.contains("no candidates[0]"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_typed_call_through_gemini_fails_a_filtered_reply_and_records_usage() {
    let server = failing_then(
        vec![ResponseTemplate::new(200)
            .set_body_json(reply(json!([{"text": "{\"value\": 4"}]), "RECITATION"))],
        text_reply("{\"value\": 42}"),
    )
    .await;
    let client = IntentClient::new(provider(&server));
    let result = u32::ai(&client, "six times seven", "Compute.").await;
    assert_eq!(result.value(), Some(&42));
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].finish_reason, Some(FinishReason::ContentFilter));
    assert!(!attempts[0].issues.is_empty());
    assert_eq!(attempts[1].provider, "gemini");
    assert_eq!(attempts[1].model, "gemini-2.5-flash-001");
    assert_eq!(result.usage().input_tokens, 80);
    assert_eq!(result.usage().calls, 2);
    let body = body_of(&sent(&server).await[0]);
    assert_eq!(
        body["generationConfig"]["responseJsonSchema"],
        u32::strict_envelope_schema().unwrap()
    );
}

// ---- errors and retries ----

fn google_error(code: u16, status: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}

/// A server that answers `failures` in order, then a good reply.
async fn failing_then_ok(failures: Vec<ResponseTemplate>) -> MockServer {
    failing_then(failures, text_reply("ok")).await
}

#[tokio::test]
async fn an_invalid_argument_400_is_not_retried_and_carries_googles_message_and_status() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(google_error(
            400,
            "INVALID_ARGUMENT",
            "Invalid JSON payload received. Unknown name \"foo\" at 'generation_config': Cannot find field.",
        )))
        .expect(1)
        .mount(&server)
        .await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert_eq!(error.status, Some(400));
    assert_eq!(
        error.to_string(),
        "gemini: HTTP 400 INVALID_ARGUMENT: Invalid JSON payload received. Unknown name \"foo\" at 'generation_config': Cannot find field."
    );
}

#[tokio::test]
async fn retries_429_after_the_servers_retry_after_then_succeeds() {
    let server = failing_then_ok(vec![ResponseTemplate::new(429)
        .insert_header("retry-after", "0.3")
        .set_body_json(google_error(
            429,
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
        ))])
    .await;
    let started = Instant::now();
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(sent(&server).await.len(), 2);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn retries_a_per_minute_429_after_the_retry_delay_its_body_gives() {
    let server = failing_then_ok(vec![ResponseTemplate::new(429).set_body_json(json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
             "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                             "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.25s"}
        ]
    }}))])
    .await;
    let started = Instant::now();
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(sent(&server).await.len(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_per_day_quota_429_is_not_retried() {
    let server = failing_then_ok(vec![ResponseTemplate::new(429).set_body_json(json!({"error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure",
                     "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]
    }}))])
    .await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::QuotaExhausted);
    assert_eq!(sent(&server).await.len(), 1);
}

#[tokio::test]
async fn retries_500_and_503_with_retry_after_then_succeeds() {
    let server = failing_then_ok(vec![
        ResponseTemplate::new(500).set_body_json(google_error(
            500,
            "INTERNAL",
            "An internal error has occurred.",
        )),
        ResponseTemplate::new(503)
            .insert_header("retry-after", "0.1")
            .set_body_json(google_error(503, "UNAVAILABLE", "The model is overloaded.")),
    ])
    .await;
    let started = Instant::now();
    let response = provider(&server).complete(&request()).await.unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(sent(&server).await.len(), 3);
    assert!(started.elapsed() >= Duration::from_millis(100));
}

#[tokio::test]
async fn a_503_past_max_retries_names_the_tries_and_googles_status() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_json(google_error(
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
        )))
        .expect(3)
        .mount(&server)
        .await;
    let error = provider(&server).complete(&request()).await.unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert!(
        error
            .message
            .starts_with("HTTP 503 UNAVAILABLE: The model is overloaded.")
            && error.message.contains("gave up after 3 tries"),
        "{}",
        error.message
    );
}

// ---- the key ----

#[tokio::test]
async fn the_key_goes_only_in_its_header_never_in_a_url_error_or_log() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = intent_tests::trace_route::route_to(subscriber);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("x-goog-api-key", KEY))
        .respond_with(ResponseTemplate::new(503).set_body_json(google_error(
            503,
            "UNAVAILABLE",
            &format!("overloaded for key {KEY}"),
        )))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(header("x-goog-api-key", KEY))
        .respond_with(ResponseTemplate::new(400).set_body_json(google_error(
            400,
            "INVALID_ARGUMENT",
            &format!("API key not valid: {KEY}"),
        )))
        .with_priority(2)
        .mount(&server)
        .await;
    let gemini = provider(&server);
    let error = gemini.complete(&request()).await.unwrap_err();
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(!request.url.as_str().contains(KEY), "{}", request.url);
        assert_eq!(request.url.query(), None);
        assert!(!String::from_utf8_lossy(&request.body).contains(KEY));
    }
    let shown = format!("{error} {error:?} {gemini:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(shown.contains("API key not valid: [redacted]"), "{shown}");
    let log = captured.text();
    assert!(log.contains("retrying"), "{log}");
    assert!(!log.contains(KEY), "{log}");
}

#[tokio::test]
async fn no_key_header_is_sent_without_a_key() {
    let server = answering(text_reply("ok")).await;
    GeminiProvider::new("")
        .with_base_url(server.uri())
        .complete(&request())
        .await
        .unwrap();
    assert!(sent(&server).await[0]
        .headers
        .get("x-goog-api-key")
        .is_none());
}

// ---- the schema dialect: one test per rule ----

#[tokio::test]
async fn derived_strict_schemas_are_sent_unchanged() {
    for schema in [
        PurchaseRequest::strict_envelope_schema(),
        Option::<Order>::strict_envelope_schema(),
        Event::strict_envelope_schema(),
        Vec::<Status>::strict_envelope_schema(),
    ] {
        let schema = schema.expect("a strict type");
        assert_eq!(schema_sent_for(schema.clone()).await, schema);
    }
}

#[tokio::test]
async fn a_nullable_unit_enum_is_sent_as_any_of_its_names_and_null() {
    // Its strict schema lists null in the enum, as OpenAI's strict mode needs.
    let schema = Option::<Status>::strict_envelope_schema().unwrap();
    assert_eq!(
        schema["properties"]["value"]["enum"],
        json!(["open", "in_progress", "done", null])
    );
    assert_eq!(
        schema_sent_for(schema).await["properties"]["value"],
        json!({
            "description": "Where an order stands.",
            "anyOf": [{"type": "string", "enum": ["open", "in_progress", "done"]}, {"type": "null"}]
        })
    );
}

#[tokio::test]
async fn a_string_or_number_const_becomes_a_one_value_enum() {
    let sent = schema_sent_for(json!({
        "type": "object",
        "properties": {"kind": {"type": "string", "const": "order"}, "n": {"const": 3}},
        "required": ["kind", "n"]
    }))
    .await;
    assert_eq!(
        sent["properties"],
        json!({"kind": {"type": "string", "enum": ["order"]}, "n": {"enum": [3]}})
    );
}

#[tokio::test]
async fn a_null_const_becomes_the_null_type() {
    let sent =
        schema_sent_for(json!({"type": "object", "properties": {"gone": {"const": null}}})).await;
    assert_eq!(sent["properties"]["gone"], json!({"type": "null"}));
}

#[tokio::test]
async fn an_enum_with_null_becomes_any_of_the_values_and_null() {
    let sent = schema_sent_for(json!({
        "type": "object",
        "properties": {"status": {"description": "The status, if known.", "type": ["string", "null"], "enum": ["open", "closed", null]}},
        "required": ["status"]
    }))
    .await;
    assert_eq!(
        sent["properties"]["status"],
        json!({
            "description": "The status, if known.",
            "anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]
        })
    );
}

#[tokio::test]
async fn a_type_array_of_several_types_becomes_any_of_one_branch_per_type() {
    let sent = schema_sent_for(json!({
        "type": "object",
        "properties": {"id": {"title": "Id", "type": ["string", "integer", "null"], "minimum": 1}},
        "required": ["id"]
    }))
    .await;
    assert_eq!(
        sent["properties"]["id"],
        json!({
            "title": "Id",
            "anyOf": [
                {"minimum": 1, "type": "string"},
                {"minimum": 1, "type": "integer"},
                {"type": "null"}
            ]
        })
    );
    // One non-null type with null is Gemini's own nullable form, sent as it is.
    let nullable = json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}});
    assert_eq!(schema_sent_for(nullable.clone()).await, nullable);
}

#[tokio::test]
async fn a_ref_with_keywords_beside_it_moves_into_any_of() {
    let sent = schema_sent_for(json!({
        "type": "object",
        "properties": {"line": {"$ref": "#/$defs/Line", "description": "The first line."}},
        "required": ["line"],
        "$defs": {"Line": {"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}}
    }))
    .await;
    assert_eq!(
        sent["properties"]["line"],
        json!({"description": "The first line.", "anyOf": [{"$ref": "#/$defs/Line"}]})
    );
    assert_eq!(
        sent["$defs"]["Line"]["properties"]["sku"],
        json!({"type": "string"})
    );
}

#[tokio::test]
async fn an_enum_of_booleans_is_refused_with_its_pointer() {
    let message = refusal_of(json!({
        "type": "object",
        "properties": {"flags": {"type": "array", "items": {"enum": ["yes", true]}}}
    }))
    .await;
    assert_eq!(
        message,
        "the strict schema cannot be sent to Gemini: Gemini takes enum values that are strings or numbers; enum[1] is a boolean (at /properties/flags/items)"
    );
}

#[tokio::test]
async fn a_ref_beside_any_of_is_refused() {
    let message = refusal_of(json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/A", "anyOf": [{"type": "string"}]}},
        "$defs": {"A": {"type": "string"}}
    }))
    .await;
    assert!(
        message.contains("$ref with no other keywords") && message.contains("(at /properties/x)"),
        "{message}"
    );
}

#[tokio::test]
async fn a_node_needing_its_own_any_of_beside_one_is_refused() {
    let message = refusal_of(json!({
        "type": "object",
        "properties": {"x": {"type": ["string", "integer"], "anyOf": [{"minimum": 1}]}}
    }))
    .await;
    assert!(message.contains("already has anyOf"), "{message}");
}

#[tokio::test]
async fn recursion_through_required_members_only_is_refused() {
    let message = refusal_of(json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
        "$defs": {"Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            },
            "required": ["name", "children"]
        }}
    }))
    .await;
    assert!(
        message.contains("\"#/$defs/Node\" refers back to itself through required members only")
            && message.contains("(at /$defs/Node)"),
        "{message}"
    );
    // Through a nullable but required property it is refused too: Gemini says that is not enough.
    let message = refusal_of(json!({
        "$defs": {"Node": {
            "type": "object",
            "properties": {"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}},
            "required": ["next"]
        }},
        "$ref": "#/$defs/Node"
    }))
    .await;
    assert!(message.contains("refers back to itself"), "{message}");
}

#[tokio::test]
async fn recursion_through_an_optional_property_is_sent() {
    let schema = json!({
        "$defs": {"Node": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}},
            "required": ["name"]
        }},
        "$ref": "#/$defs/Node"
    });
    assert_eq!(schema_sent_for(schema.clone()).await, schema);
    // The root itself, through an optional property.
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "parent": {"$ref": "#"}},
        "required": ["name"]
    });
    assert_eq!(schema_sent_for(schema.clone()).await, schema);
}

#[tokio::test]
async fn a_schema_nested_too_deep_is_refused() {
    let mut schema = json!({"type": "string"});
    for _ in 0..200 {
        schema = json!({"type": "array", "items": schema});
    }
    let message = refusal_of(schema).await;
    assert!(
        message.contains("nested deeper than 128 levels"),
        "{message}"
    );
}

#[tokio::test]
async fn keywords_gemini_ignores_are_sent_as_they_are() {
    let schema = json!({
        "type": "object",
        "properties": {"sku": {"type": "string", "pattern": "^[A-Z]-\\d+$", "minLength": 3}},
        "required": ["sku"],
        "additionalProperties": false
    });
    assert_eq!(schema_sent_for(schema.clone()).await, schema);
}

#[tokio::test]
async fn no_reply_that_echoes_the_key_puts_any_of_it_in_an_error() {
    let padded = format!("{}{KEY}", "x".repeat(490));
    let cases = [
        ResponseTemplate::new(200).set_body_string(format!("<html>bad key {KEY}</html>")),
        ResponseTemplate::new(200)
            .set_body_json(json!({"error": {"message": format!("key {KEY} refused")}})),
        ResponseTemplate::new(200).set_body_json(json!({"candidates": format!("{KEY}")})),
        ResponseTemplate::new(401).set_body_string(padded),
        ResponseTemplate::new(500).set_body_json(google_error(
            500,
            "INTERNAL",
            &format!("boom {KEY}"),
        )),
    ];
    for (i, template) in cases.into_iter().enumerate() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(template)
            .mount(&server)
            .await;
        let error = provider(&server).complete(&request()).await.unwrap_err();
        let shown = format!("{error} {error:?}");
        for start in 0..=KEY.len() - 8 {
            let piece = &KEY[start..start + 8];
            assert!(!shown.contains(piece), "case {i} shows {piece}: {shown}");
        }
    }
}

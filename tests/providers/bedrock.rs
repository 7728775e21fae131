//! Amazon Bedrock's Converse API on the wire (127.0.0.1): the signed request, a reply shaped as
//! the recorded ones (pydantic-ai's Bedrock cassettes: a forced tool's `toolUse.input`, usage with
//! cache counts), throttling retried, and streams in AWS's event-stream framing read the same
//! cut at every byte, with a bad checksum, a frame cut short and an exception each a clear error.

use std::sync::Arc;
use std::time::Duration;

use intent_core::provider::{
    AiResponse, BedrockProvider, FinishReason, Provider, ProviderErrorKind, ReplyAssembler,
};
use intent_core::provider::{RequestTools, ToolDefinition};
use intent_core::{AiRequest, Intent, ResponseFormat, Usage};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::conformance::replay::{Answer, Delivery, ReplayServer};
use intent_tests::wire::quick_retries;

const SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
const MODEL: &str = "us.anthropic.claude-sonnet-4-20250514-v1:0";
const CONVERSE: &str = "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse";

fn bedrock(base: &str) -> BedrockProvider {
    BedrockProvider::new()
        .with_region("us-west-2")
        .with_base_url(base)
        .with_model(MODEL)
        .with_credentials("AKIDEXAMPLE", SECRET, Some("session-token-example".into()))
        .with_retry_policy(quick_retries(2))
        .with_timeout(Duration::from_secs(10))
}

fn schema_request() -> AiRequest {
    AiRequest::new("You are terse.", "The weather in London?").with_format(
        ResponseFormat::JsonSchema,
        Some(json!({"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
                    "required": ["city", "celsius"], "additionalProperties": false})),
    )
}

/// A reply shaped as the recorded ones: the forced tool's input, a trailing text block, usage.
fn tool_reply() -> Value {
    json!({
        "metrics": {"latencyMs": 412},
        "output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "tooluse_local1", "name": "intent_output", "input": {"city": "London", "celsius": 7.5}}},
            {"text": "\n\nDone."}
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 571, "outputTokens": 22, "cacheReadInputTokens": 1024, "cacheWriteInputTokens": 0, "serverToolUsage": {}, "totalTokens": 1617}
    })
}

#[tokio::test]
async fn a_signed_converse_request_forces_the_answer_tool_and_reads_its_input() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(CONVERSE))
        .respond_with(ResponseTemplate::new(200).set_body_json(tool_reply()))
        .expect(1)
        .mount(&server)
        .await;
    let reply = bedrock(&server.uri())
        .complete(&schema_request())
        .await
        .unwrap();
    let answer: Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(answer, json!({"city": "London", "celsius": 7.5}));
    assert_eq!(reply.finish_reason, FinishReason::Stop);
    assert_eq!(
        reply.usage,
        Usage {
            input_tokens: 571 + 1024,
            output_tokens: 22,
            cached_tokens: 1024,
            reasoning_tokens: 0,
            calls: 1
        }
    );
    let request = &server.received_requests().await.unwrap()[0];
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(
        body["toolConfig"]["toolChoice"],
        json!({"tool": {"name": "intent_output"}})
    );
    assert_eq!(
        body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]["required"],
        json!(["city", "celsius"])
    );
    assert_eq!(body["system"], json!([{"text": "You are terse."}]));
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [{"text": "The weather in London?"}]}])
    );
    assert!(body.get("model").is_none());
    let header = |name: &str| {
        request
            .headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    let authorization = header("authorization").unwrap();
    let date = header("x-amz-date").unwrap();
    assert_eq!(date.len(), 16, "{date}");
    let prefix = format!(
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/{}/us-west-2/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=",
        &date[..8]
    );
    assert!(authorization.starts_with(&prefix), "{authorization}");
    assert_eq!(authorization.len(), prefix.len() + 64, "{authorization}");
    assert_eq!(
        header("x-amz-security-token").as_deref(),
        Some("session-token-example")
    );
    for (name, value) in &request.headers {
        assert!(
            !value.to_str().unwrap_or_default().contains(SECRET),
            "{name}"
        );
    }
}

#[tokio::test]
async fn throttling_is_retried_and_a_model_the_region_lacks_is_a_clear_refusal() {
    let server = MockServer::start().await;
    let throttled = json!({"__type": "ThrottlingException", "message": "Rate exceeded"});
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .set_body_json(throttled)
                .insert_header(
                    "x-amzn-ErrorType",
                    "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                ),
        )
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(tool_reply()))
        .mount(&server)
        .await;
    let reply = bedrock(&server.uri())
        .complete(&schema_request())
        .await
        .unwrap();
    assert!(reply.text.contains("London"));
    assert_eq!(server.received_requests().await.unwrap().len(), 3);

    let missing = MockServer::start().await;
    let refusal = json!({"message": "The provided model identifier is invalid."});
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(refusal)
                .insert_header(
                    "x-amzn-ErrorType",
                    "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                ),
        )
        .mount(&missing)
        .await;
    let error = bedrock(&missing.uri())
        .complete(&schema_request())
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert!(
        error
            .message
            .contains("The provided model identifier is invalid."),
        "{}",
        error.message
    );
    assert_eq!(missing.received_requests().await.unwrap().len(), 1);
}

/// Asserts that `provider` refuses `request` before sending, saying `why`.
async fn refused(provider: &BedrockProvider, request: &AiRequest, why: &str) {
    let error = provider.complete(request).await.unwrap_err();
    assert!(error.message.contains(why), "{}", error.message);
}

#[tokio::test]
async fn options_converse_cannot_take_are_refused_before_sending() {
    let provider = bedrock("http://127.0.0.1:9");
    let mut seeded = AiRequest::new("s", "u");
    seeded.seed = Some(7);
    refused(&provider, &seeded, "seed").await;
    let mut thinking = schema_request();
    thinking.thinking_budget = Some(2048);
    refused(&provider, &thinking, "thinking_budget").await;
    let mut warm = AiRequest::new("s", "u");
    warm.model = Some("anthropic.claude-sonnet-4-5-20250929-v1:0".into());
    warm.thinking_budget = Some(2048);
    warm.temperature = Some(0.2);
    refused(&provider, &warm, "temperature").await;
    // A tool under the name the schema's tool takes, and a forced call with thinking.
    let mut clash = schema_request();
    let named = ToolDefinition::new("intent_output", "Clashes.", json!({"type": "object"}));
    clash.tools = Some(Arc::new(RequestTools::new(vec![named])));
    refused(&provider, &clash, "`intent_output`").await;
    let mut forced = AiRequest::new("s", "u");
    forced.model = Some("anthropic.claude-sonnet-4-5-20250929-v1:0".into());
    forced.thinking_budget = Some(2048);
    let lookup = ToolDefinition::new("lookup_order", "Finds an order.", json!({"type": "object"}));
    let mut tools = RequestTools::new(vec![lookup]);
    tools.choice = intent_core::provider::ToolChoice::Required;
    forced.tools = Some(Arc::new(tools));
    refused(&provider, &forced, "forced tool call").await;
    let mut nova = AiRequest::new("s", "u");
    nova.model = Some("amazon.nova-lite-v1:0".into());
    nova.thinking_budget = Some(2048);
    refused(&provider, &nova, "amazon.nova-lite-v1:0").await;
}

/// CRC-32 (IEEE), as the event-stream framing checks each prelude and message.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One event-stream message with string headers, as AWS frames it.
fn frame(headers: &[(&str, &str)], payload: &str) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(u8::try_from(name.len()).unwrap());
        head.extend_from_slice(name.as_bytes());
        head.push(7); // a string
        head.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = 12 + head.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&u32::try_from(total).unwrap().to_be_bytes());
    out.extend_from_slice(&u32::try_from(head.len()).unwrap().to_be_bytes());
    out.extend_from_slice(&crc32(&out[..8]).to_be_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(payload.as_bytes());
    out.extend_from_slice(&crc32(&out).to_be_bytes());
    out
}

fn event(kind: &str, payload: Value) -> Vec<u8> {
    frame(
        &[
            (":event-type", kind),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        &payload.to_string(),
    )
}

/// A stream shaped as the recorded one: reasoning deltas and a signature, then text, then the
/// stop and the usage; every payload padded with `p`, as Bedrock pads them.
fn converse_stream() -> Vec<u8> {
    let mut body = event(
        "messageStart",
        json!({"p": "abcdefgh", "role": "assistant"}),
    );
    for piece in ["The user", " greets; answer", " in kind."] {
        body.extend(event("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": piece}}, "p": "abcd"})));
    }
    body.extend(event("contentBlockDelta", json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQBCkgIARAB"}}, "p": "ab"})));
    body.extend(event(
        "contentBlockStop",
        json!({"contentBlockIndex": 0, "p": "abcdef"}),
    ));
    for piece in ["Grüße aus Köln", " — 日本 🙂"] {
        body.extend(event(
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"text": piece}, "p": "abc"}),
        ));
    }
    body.extend(event(
        "contentBlockStop",
        json!({"contentBlockIndex": 1, "p": "a"}),
    ));
    body.extend(event(
        "messageStop",
        json!({"p": "abcdefghij", "stopReason": "end_turn"}),
    ));
    body.extend(event("metadata", json!({"metrics": {"latencyMs": 2333}, "p": "abcdefghi", "usage": {"inputTokens": 37, "outputTokens": 74, "serverToolUsage": {}, "totalTokens": 111}})));
    body
}

fn streamed_reply() -> AiResponse {
    let mut reply = AiResponse::new("Grüße aus Köln — 日本 🙂", MODEL);
    reply.reasoning = Some("The user greets; answer in kind.".into());
    reply.usage = Usage {
        input_tokens: 37,
        output_tokens: 74,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    reply
}

async fn stream_server(body: Vec<u8>, deliveries: Vec<Delivery>) -> ReplayServer {
    let body = Arc::new(body);
    ReplayServer::start(move |n, request| {
        if request.target != format!("{}-stream", CONVERSE)
            || request.header("authorization").is_none()
        {
            return Answer::refusal(format!(
                "not a signed converse-stream request: {}",
                request.target
            ));
        }
        Answer {
            status: 200,
            content_type: "application/vnd.amazon.eventstream",
            body: body.clone(),
            delivery: deliveries[n % deliveries.len()].clone(),
        }
    })
    .await
}

/// A server that sends `body` whole, then cut at each byte in turn, then cut at every byte;
/// with the number of deliveries.
async fn cut_everywhere(body: Vec<u8>) -> (ReplayServer, usize) {
    let len = body.len();
    let mut deliveries = vec![Delivery::Whole];
    deliveries.extend((1..len).map(|cut| Delivery::Cuts(vec![cut])));
    deliveries.push(Delivery::Cuts((1..len).collect()));
    let count = deliveries.len();
    (stream_server(body, deliveries).await, count)
}

#[tokio::test]
async fn a_converse_stream_reads_the_same_cut_at_every_byte() {
    let (server, count) = cut_everywhere(converse_stream()).await;
    let provider = bedrock(&server.base);
    let request = AiRequest::new("You are terse.", "Greet.");
    for n in 0..count {
        let reply = ReplyAssembler::collect(provider.stream(&request)).await;
        assert_eq!(reply.unwrap(), streamed_reply(), "delivery {n}");
    }
}

#[tokio::test]
async fn a_bad_checksum_a_frame_cut_short_and_an_exception_break_the_stream_clearly() {
    let request = AiRequest::new("You are terse.", "Greet.");
    let mut bad = converse_stream();
    let at = bad.len() / 2;
    bad[at] ^= 0x20;
    let cut = converse_stream()[..converse_stream().len() - 7].to_vec();
    let mut throttled = event("messageStart", json!({"role": "assistant"}));
    throttled.extend(frame(
        &[
            (":exception-type", "throttlingException"),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        r#"{"message":"Too many tokens, please wait before trying again."}"#,
    ));
    for (body, says) in [
        (bad, "not readable"),
        (cut, "cut short"),
        (throttled, "throttlingException: Too many tokens"),
    ] {
        let server = stream_server(body, vec![Delivery::Whole]).await;
        let error = ReplyAssembler::collect(bedrock(&server.base).stream(&request))
            .await
            .unwrap_err();
        assert_eq!(
            error.kind,
            ProviderErrorKind::StreamBroken,
            "{}",
            error.message
        );
        assert!(error.message.contains(says), "{says}: {}", error.message);
    }
}

/// The country the tool is asked about (a plain comment: a doc comment would be its schema's
/// description).
#[derive(Debug, serde::Deserialize, Intent)]
struct NoArguments {}

/// The city the model names after the tool.
#[derive(Debug, serde::Deserialize, Intent, PartialEq)]
struct LargestCity {
    city: String,
}

#[tokio::test]
async fn a_tool_round_on_converse_sends_the_turn_back_as_the_api_takes_it() {
    // The first reply as pydantic-ai's cassette `test_bedrock_anthropic_tool_with_thinking`
    // recorded it (signed reasoning, text, a `toolUse` with a `type`), the second through the
    // schema's tool.
    let first = json!({
        "output": {"message": {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "I need the user's country first.", "signature": "ErcBCkgICxABGAIiQFX7"}}},
            {"text": "I'll check which country you're in first."},
            {"toolUse": {"input": {}, "name": "get_user_country", "toolUseId": "tooluse_4Lo0VS-FT5yev_-skOCQdw", "type": "tool_use"}}
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 397, "outputTokens": 138, "cacheReadInputTokens": 0, "cacheWriteInputTokens": 0}
    });
    let second = json!({
        "output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"input": {"value": {"city": "Mexico City"}}, "name": "intent_output", "toolUseId": "tooluse_2", "type": "tool_use"}}
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 547, "outputTokens": 79}
    });
    let server = intent_tests::wire::failing_then(
        vec![ResponseTemplate::new(200).set_body_json(first)],
        second,
    )
    .await;
    let client = intent_core::IntentClient::new(bedrock(&server.uri()));
    let country = intent_core::tool::Tool::new(
        "get_user_country",
        "The user's country.",
        |_: NoArguments| async { Ok::<_, intent_core::tool::ToolError>("Mexico") },
    );
    let result = LargestCity::ai(
        &client,
        "What is the largest city in my country?",
        "Answer.",
    )
    .tool(country)
    .await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(result.value().unwrap().city, "Mexico City");
    assert_eq!(result.usage().input_tokens, 397 + 547);
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let one: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let two: Value = serde_json::from_slice(&requests[1].body).unwrap();
    // The caller's tool and the schema's, the model free to choose.
    let names: Vec<&str> = one["toolConfig"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["toolSpec"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_user_country", "intent_output"]);
    assert_eq!(one["toolConfig"]["toolChoice"], json!({"auto": {}}));
    // The second body is the first with the round: the turn as the API takes it back (no
    // `type` in `toolUse`), then the result, as the cassette's second request has them.
    let mut want = one.clone();
    let messages = want["messages"].as_array_mut().unwrap();
    messages.push(json!({"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "I need the user's country first.", "signature": "ErcBCkgICxABGAIiQFX7"}}},
        {"text": "I'll check which country you're in first."},
        {"toolUse": {"toolUseId": "tooluse_4Lo0VS-FT5yev_-skOCQdw", "name": "get_user_country", "input": {}}}
    ]}));
    messages.push(json!({"role": "user", "content": [
        {"toolResult": {"toolUseId": "tooluse_4Lo0VS-FT5yev_-skOCQdw", "content": [{"text": "Mexico"}], "status": "success"}}
    ]}));
    assert_eq!(two, want);
}

/// A stream that calls a tool, shaped as the recorded whole reply of
/// `test_bedrock_anthropic_tool_with_thinking`: signed reasoning, text, then a `toolUse` block
/// whose input comes in pieces.
fn tool_call_stream() -> Vec<u8> {
    let mut body = event("messageStart", json!({"p": "ab", "role": "assistant"}));
    let delta = |index: u32, delta: Value| {
        event(
            "contentBlockDelta",
            json!({"contentBlockIndex": index, "delta": delta, "p": "abc"}),
        )
    };
    let stop = |index: u32| {
        event(
            "contentBlockStop",
            json!({"contentBlockIndex": index, "p": "a"}),
        )
    };
    body.extend(delta(
        0,
        json!({"reasoningContent": {"text": "I need the country."}}),
    ));
    body.extend(delta(
        0,
        json!({"reasoningContent": {"signature": "ErcBCkgI"}}),
    ));
    body.extend(stop(0));
    body.extend(delta(1, json!({"text": "Checking your country."})));
    body.extend(stop(1));
    body.extend(event(
        "contentBlockStart",
        json!({"contentBlockIndex": 2, "p": "abcd",
        "start": {"toolUse": {"name": "get_user_country", "toolUseId": "tooluse_4Lo0"}}}),
    ));
    for piece in ["{\"reg", "ion\": \"N", "A\"}"] {
        body.extend(delta(2, json!({"toolUse": {"input": piece}})));
    }
    body.extend(stop(2));
    body.extend(event(
        "messageStop",
        json!({"p": "abc", "stopReason": "tool_use"}),
    ));
    body.extend(event(
        "metadata",
        json!({"metrics": {"latencyMs": 900}, "p": "ab",
        "usage": {"inputTokens": 397, "outputTokens": 138, "totalTokens": 535}}),
    ));
    body
}

#[tokio::test]
async fn a_streamed_tool_call_reads_the_same_cut_at_every_byte_with_its_turn() {
    let (server, count) = cut_everywhere(tool_call_stream()).await;
    let provider = bedrock(&server.base);
    let mut request = schema_request();
    let country = ToolDefinition::new(
        "get_user_country",
        "The user's country.",
        json!({"type": "object"}),
    );
    request.tools = Some(Arc::new(RequestTools::new(vec![country])));
    for n in 0..count {
        let reply = ReplyAssembler::collect(provider.stream(&request))
            .await
            .unwrap_or_else(|e| panic!("delivery {n}: {e}"));
        assert_eq!(reply.text, "Checking your country.", "delivery {n}");
        assert_eq!(reply.finish_reason, FinishReason::Stop, "delivery {n}");
        assert_eq!(reply.tool_calls.len(), 1, "delivery {n}");
        let call = &reply.tool_calls[0];
        assert_eq!(
            (call.id.as_str(), call.name.as_str()),
            ("tooluse_4Lo0", "get_user_country")
        );
        let arguments: Value = serde_json::from_str(&call.arguments).unwrap();
        assert_eq!(arguments, json!({"region": "NA"}));
        assert_eq!(
            reply.vendor_turn.as_deref(),
            Some(&json!([
                {"reasoningContent": {"reasoningText": {"text": "I need the country.", "signature": "ErcBCkgI"}}},
                {"text": "Checking your country."},
                {"toolUse": {"toolUseId": "tooluse_4Lo0", "name": "get_user_country", "input": {"region": "NA"}}}
            ])),
            "delivery {n}"
        );
    }
}

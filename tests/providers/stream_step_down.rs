//! The stream path over HTTP gets what `.await` gets: a provider that refuses the strict schema
//! gets the same attempt once more in JSON-object mode, streamed, with the step-down as a notice
//! on the attempt's record; a failed attempt escalates the rest to the stronger provider and
//! model, the escalation a notice on the retry's record. For `.stream()`, `.stream_elements()`
//! and a collection's `.stream_elements()`.

use futures::StreamExt;
use intent_core::prelude::*;
use intent_core::IssueKind;
use intent_tests::derive_types::Order;
use serde::Deserialize;
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use intent_tests::wire::{anthropic, body_of, openai, sent};

/// A line of an order (cloned: a collection stream yields each value and keeps it for `Done`).
#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
struct Line {
    sku: String,
    quantity: u32,
}

const ORDER: &str = r#"{"value": {"id": "A-1", "lines": [{"sku": "X-1", "quantity": 2}]}}"#;

/// `text` as an OpenAI Chat Completions event stream, a few characters per delta.
fn openai_sse(text: &str, model: &str) -> String {
    let mut body = String::new();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(7) {
        let piece: String = piece.iter().collect();
        let chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    let last = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let usage = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model,
        "choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100}});
    body.push_str(&format!(
        "data: {last}\n\ndata: {usage}\n\ndata: [DONE]\n\n"
    ));
    body
}

/// `text` as an Anthropic Messages event stream.
fn anthropic_sse(text: &str, model: &str) -> String {
    let mut events = vec![
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                "role": "assistant", "model": model, "content": [], "stop_reason": null,
                "usage": {"input_tokens": 60, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(5) {
        let piece: String = piece.iter().collect();
        events.push((
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}),
        ));
    }
    events.push((
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push((
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}),
    ));
    events.push(("message_stop", json!({"type": "message_stop"})));
    events
        .into_iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn sse(body: String) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
}

/// A server that answers `first` once, then `then` to every later POST.
async fn once_then(first: ResponseTemplate, then: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(first)
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(then)
        .with_priority(2)
        .mount(&server)
        .await;
    server
}

fn openai_schema_refusal() -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({"error": {
        "message": "Invalid schema for response_format 'intent_output': In context=('properties', 'value'), 'allOf' is not permitted.",
        "type": "invalid_request_error", "param": "response_format", "code": "invalid_json_schema"
    }}))
}

fn anthropic_schema_refusal() -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "output_config.format.schema: Invalid schema: The compiled grammar is too large, which would cause performance issues."
    }, "request_id": "req_1"}))
}

/// The step-down notice, as `.await` records it.
fn assert_step_down_notice(notice: &ResultIssue) {
    assert_eq!(notice.kind, IssueKind::Request);
    assert!(
        notice
            .message
            .starts_with("The provider refused the strict JSON schema (HTTP 400): ")
            && notice.message.contains("sent again in JSON-object mode"),
        "{}",
        notice.message
    );
}

/// The two bodies a refusing server got: strict and streamed, then JSON-object and streamed, with
/// the schema in the prompt.
async fn assert_stepped_bodies(
    server: &MockServer,
    format: impl Fn(&Value) -> Value,
) -> Vec<Value> {
    let bodies: Vec<Value> = sent(server).await.iter().map(body_of).collect();
    assert_eq!(
        bodies.len(),
        2,
        "one refusal, one step-down, no transport retry"
    );
    assert_eq!(format(&bodies[0])["type"], "json_schema");
    assert_ne!(format(&bodies[1])["type"], "json_schema");
    assert!(bodies[1].to_string().contains("## Output schema"));
    bodies
}

/// Reads a `.stream()` to its end: the partials seen, and the result.
async fn streamed<T>(mut stream: intent_core::stream::AiStream<'_, T>) -> (usize, AiResult<T>) {
    let mut partials = 0;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(_) => partials += 1,
            StreamEvent::Done(result) => return (partials, result),
            _ => {}
        }
    }
    panic!("the stream ends with Done");
}

#[tokio::test]
async fn openai_refusing_the_schema_on_a_stream_gets_the_attempt_streamed_in_json_object_mode() {
    let server = once_then(
        openai_schema_refusal(),
        sse(openai_sse(ORDER, "gpt-4o-mini")),
    )
    .await;
    let client = IntentClient::new(openai(&server));
    let stream = Order::ai(&client, "order A-1: 2 of X-1", "Extract the order.").stream();
    let (partials, result) = streamed(stream).await;

    assert!(result.is_success(), "{:?}", result.issues());
    assert!(
        partials >= 2,
        "the stepped-down reply streamed: {partials} partials"
    );
    assert_eq!(
        result.attempts().len(),
        1,
        "the step-down is the same attempt"
    );
    assert_step_down_notice(&result.attempts()[0].notices[0]);
    assert_eq!(
        result.usage().calls,
        1,
        "the refused request cost no model call"
    );
    let bodies = assert_stepped_bodies(&server, |b| b["response_format"].clone()).await;
    assert!(
        bodies.iter().all(|b| b["stream"] == true),
        "both were streamed"
    );
    assert_eq!(bodies[1]["response_format"], json!({"type": "json_object"}));
}

#[tokio::test]
async fn anthropic_refusing_the_schema_on_a_stream_steps_down_the_same_way() {
    let server = once_then(
        anthropic_schema_refusal(),
        sse(anthropic_sse(ORDER, "claude-sonnet-4-5")),
    )
    .await;
    let client = IntentClient::new(anthropic(&server));
    let stream = Order::ai(&client, "order A-1: 2 of X-1", "Extract the order.").stream();
    let (partials, result) = streamed(stream).await;

    assert!(result.is_success(), "{:?}", result.issues());
    assert!(partials >= 2, "{partials} partials");
    assert_step_down_notice(&result.attempts()[0].notices[0]);
    let bodies = assert_stepped_bodies(&server, |b| b["output_config"]["format"].clone()).await;
    assert!(bodies.iter().all(|b| b["stream"] == true));
    assert!(bodies[1].get("output_config").is_none(), "{}", bodies[1]);
}

#[tokio::test]
async fn an_element_stream_is_stepped_down_and_its_elements_still_arrive() {
    let reply = r#"{"value": [{"sku": "X-1", "quantity": 2}, {"sku": "Y-2", "quantity": 5}]}"#;
    let server = once_then(
        openai_schema_refusal(),
        sse(openai_sse(reply, "gpt-4o-mini")),
    )
    .await;
    let client = IntentClient::new(openai(&server));
    let mut stream = <Vec<Line>>::ai(&client, "2 X-1, 5 Y-2", "List the lines.").stream_elements();
    let mut elements = Vec::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            ElementEvent::Element(index, line) => elements.push((index, line.sku)),
            ElementEvent::Done(result) => done = Some(result),
            _ => {}
        }
    }
    let result = done.expect("Done");
    assert_eq!(elements, [(0, "X-1".to_owned()), (1, "Y-2".to_owned())]);
    assert!(result.is_success());
    assert_step_down_notice(&result.attempts()[0].notices[0]);
    assert_stepped_bodies(&server, |b| b["response_format"].clone()).await;
}

#[tokio::test]
async fn a_collection_stream_steps_down_each_chunk_that_is_refused() {
    let reply = r#"{"value": [{"index": 0, "value": {"sku": "X-1", "quantity": 2}}, {"index": 1, "value": {"sku": "Y-2", "quantity": 5}}]}"#;
    let server = once_then(
        openai_schema_refusal(),
        sse(openai_sse(reply, "gpt-4o-mini")),
    )
    .await;
    let client = IntentClient::new(openai(&server));
    let mut stream = client
        .map_each::<Line>(&["2 of X-1", "5 of Y-2"], "Read the line.")
        .stream_elements();
    let mut elements = Vec::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            CollectionEvent::Element(index, line) => elements.push((index, line.sku)),
            CollectionEvent::Done(result) => done = Some(result),
            _ => {}
        }
    }
    let result = done.expect("Done");
    assert_eq!(elements, [(0, "X-1".to_owned()), (1, "Y-2".to_owned())]);
    assert!(result.is_complete());
    let attempts: Vec<&AttemptRecord> = result.attempts().collect();
    assert_eq!(attempts.len(), 1);
    assert_step_down_notice(&attempts[0].notices[0]);
    assert_stepped_bodies(&server, |b| b["response_format"].clone()).await;
}

fn escalating_client(cheap: &MockServer, strong: &MockServer) -> IntentClient {
    IntentClient::builder()
        .provider(openai(cheap).with_model("gpt-5-nano"))
        .fallback(anthropic(strong).with_model("claude-haiku-4-5"))
        .build()
        .unwrap()
}

fn escalation() -> AiRequestOptions {
    AiRequestOptions {
        escalation: Some(Escalation::to_provider("anthropic").with_model("claude-opus-4-5")),
        ..AiRequestOptions::default()
    }
}

#[tokio::test]
async fn a_streamed_call_escalates_its_retry_with_the_same_notice_as_await() {
    let cheap = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(openai_sse(
            r#"{"value": "many"}"#,
            "gpt-5-nano-2025-08-07",
        )))
        .mount(&cheap)
        .await;
    let strong = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(anthropic_sse(
            r#"{"value": 3}"#,
            "claude-opus-4-5-20251101",
        )))
        .mount(&strong)
        .await;
    let client = escalating_client(&cheap, &strong);
    let mut stream = u32::ai(&client, "a, b, c", "Count the letters.")
        .options(escalation())
        .stream();
    let mut order = Vec::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(p) => order.push(format!("partial {} {}", p.attempt(), p.json())),
            StreamEvent::Retry(record) => order.push(format!("retry {}", record.number)),
            StreamEvent::Done(result) => done = Some(result),
            _ => {}
        }
    }
    assert!(order.contains(&"retry 1".to_owned()), "{order:?}");
    assert_eq!(
        order.last().map(String::as_str),
        Some("partial 2 3"),
        "{order:?}"
    );
    let result = done.expect("Done");
    assert_eq!(result.value(), Some(&3));
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].provider, "openai");
    assert!(attempts[0].notices.is_empty());
    assert_eq!(attempts[1].provider, "anthropic");
    assert_eq!(attempts[1].model, "claude-opus-4-5-20251101");
    assert_eq!(
        attempts[1].notices[0].message,
        "Attempt 1 failed, so this attempt escalated to provider \"anthropic\", model \"claude-opus-4-5\", with its findings."
    );
    let escalated = sent(&strong).await;
    assert_eq!(escalated.len(), 1);
    let body = body_of(&escalated[0]);
    assert_eq!(body["model"], "claude-opus-4-5");
    assert_eq!(body["stream"], true);
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("## Previous attempt\n{\"value\": \"many\"}"));
}

#[tokio::test]
async fn an_escalated_stream_that_is_refused_its_schema_carries_both_notices() {
    let cheap = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(sse(openai_sse(r#"{"value": "many"}"#, "gpt-5-nano")))
        .mount(&cheap)
        .await;
    let strong = once_then(
        anthropic_schema_refusal(),
        sse(anthropic_sse(r#"{"value": 3}"#, "claude-opus-4-5-20251101")),
    )
    .await;
    let client = escalating_client(&cheap, &strong);
    let result = u32::ai(&client, "a, b, c", "Count the letters.")
        .options(escalation())
        .stream()
        .finish()
        .await;
    assert_eq!(result.value(), Some(&3), "{:?}", result.issues());
    let notices = &result.attempts()[1].notices;
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0]
        .message
        .starts_with("Attempt 1 failed, so this attempt escalated"));
    assert_step_down_notice(&notices[1]);
    let bodies = assert_stepped_bodies(&strong, |b| b["output_config"]["format"].clone()).await;
    assert!(bodies.iter().all(|b| b["model"] == "claude-opus-4-5"));
}

//! `map_each` over elements carrying attachments, on the wire to servers on 127.0.0.1: the exact
//! content parts OpenAI Chat Completions and Anthropic Messages are sent for each chunk (its
//! elements' images and PDFs, in element order, after or before the text that names them), and
//! a fallback that carries a chunk's attachments.

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use intent_core::collections::CollectionResult;
use intent_core::prelude::*;
use intent_core::provider::RetryPolicy;
use intent_tests::tests_png;
use serde::Serialize;
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// A page of a scanned file: a title and the scan.
#[derive(Serialize)]
struct Page {
    title: String,
    scan: Attachment,
}

fn pdf_bytes(n: usize) -> Vec<u8> {
    format!("%PDF-1.7\n% page {n}\n%%EOF\n").into_bytes()
}

/// Five pages: a PNG on the even ones, a named PDF on the odd ones.
fn pages() -> Vec<Page> {
    (0..5)
        .map(|i: usize| Page {
            title: format!("page {i}"),
            scan: if i.is_multiple_of(2) {
                Attachment::from_bytes(tests_png()).unwrap()
            } else {
                Attachment::from_bytes(pdf_bytes(i))
                    .unwrap()
                    .with_filename(format!("page-{i}.pdf"))
            },
        })
        .collect()
}

/// The chunks of five pages in chunks of two.
const CHUNKS: [&[usize]; 3] = [&[0, 1], &[2, 3], &[4]];

/// The indexes of the elements a chunk's user text holds (`{"index":3,"input":`).
fn indexes_in(text: &str) -> Vec<usize> {
    text.split("{\"index\":")
        .skip(1)
        .filter_map(|rest| rest.split(',').next()?.parse().ok())
        .collect()
}

/// The answer to a chunk: `"doc <i>"` for each of its elements.
fn answer(text: &str) -> String {
    let items: Vec<Value> = indexes_in(text)
        .into_iter()
        .map(|i| json!({"index": i, "value": format!("doc {i}")}))
        .collect();
    json!({ "value": items }).to_string()
}

fn body_of(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("the request body is JSON")
}

/// The text part of an OpenAI user message, or the text block of an Anthropic one.
fn text_of(content: &Value) -> &str {
    content
        .as_array()
        .and_then(|parts| parts.iter().find(|p| p["type"] == "text"))
        .and_then(|p| p["text"].as_str())
        .expect("a text part")
}

/// A server answering each chunk from the indexes its user text holds.
async fn server(reply: fn(&str) -> Value, user: fn(&Value) -> &Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(move |request: &Request| {
            let body = body_of(request);
            ResponseTemplate::new(200).set_body_json(reply(&answer(text_of(user(&body)))))
        })
        .mount(&server)
        .await;
    server
}

/// The user content of each request `server` received, in order.
async fn contents(server: &MockServer, user: fn(&Value) -> &Value) -> Vec<Vec<Value>> {
    let requests = server.received_requests().await.unwrap_or_default();
    requests
        .iter()
        .map(|request| user(&body_of(request)).as_array().unwrap().clone())
        .collect()
}

fn chat_reply(text: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 3, "total_tokens": 303}
    })
}

fn anthropic_reply(text: &str) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 300, "output_tokens": 3}
    })
}

fn openai_user(body: &Value) -> &Value {
    &body["messages"][1]["content"]
}

fn anthropic_user(body: &Value) -> &Value {
    &body["messages"][0]["content"]
}

fn quick() -> RetryPolicy {
    RetryPolicy {
        max_retries: 0,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(1),
    }
}

fn openai(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new("sk-test")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(quick())
        .with_timeout(Duration::from_secs(5))
}

fn anthropic(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new("sk-ant-test")
        .with_base_url(server.uri())
        .with_retry_policy(quick())
        .with_timeout(Duration::from_secs(5))
}

/// Chat Completions' part for page `i`: an `image_url` with a data URL, or a `file` for a PDF.
fn openai_part(i: usize) -> Value {
    if i.is_multiple_of(2) {
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", STANDARD.encode(tests_png()))}})
    } else {
        json!({"type": "file", "file": {
            "filename": format!("page-{i}.pdf"),
            "file_data": format!("data:application/pdf;base64,{}", STANDARD.encode(pdf_bytes(i)))
        }})
    }
}

/// The Messages API's block for page `i`: an `image` or a `document`, with a base64 source.
fn anthropic_block(i: usize) -> Value {
    if i.is_multiple_of(2) {
        json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": STANDARD.encode(tests_png())}})
    } else {
        json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": STANDARD.encode(pdf_bytes(i))}, "title": format!("page-{i}.pdf")})
    }
}

/// The chunk's user text names each element's attachment, and lists them in the order sent.
fn assert_named(text: &str, chunk: &[usize]) {
    assert_eq!(indexes_in(text), chunk);
    for (place, &i) in chunk.iter().enumerate() {
        let summary = if i.is_multiple_of(2) {
            "image/png, 70 bytes".to_owned()
        } else {
            format!(
                "application/pdf, {} bytes, \\\"page-{i}.pdf\\\"",
                pdf_bytes(i).len()
            )
        };
        let reference = format!("\"scan\":\"<attachment 1 of element {i}: {summary}>\"");
        assert!(text.contains(&reference), "{reference} in {text}");
        let listed = format!(
            "\n{}. attachment 1 of element {i}: {}",
            place + 1,
            summary.replace('\\', "")
        );
        assert!(text.contains(&listed), "{listed} in {text}");
    }
}

async fn run(client: &IntentClient) -> CollectionResult<usize, String> {
    let pages = pages();
    client
        .map_each::<String>(&pages, "Name the document on the page.")
        .chunk_size(2)
        .concurrency(1)
        .await
}

fn assert_values(result: &CollectionResult<usize, String>) {
    assert_eq!(
        result.values(),
        &[0, 1, 2, 3, 4].map(|i| Some(format!("doc {i}"))),
        "{:?}",
        result.issues()
    );
}

#[tokio::test]
async fn openai_chunks_send_the_text_then_their_elements_parts_in_order() {
    let server = server(chat_reply, openai_user).await;
    let client = IntentClient::new(openai(&server));
    let result = run(&client).await;
    assert_values(&result);
    let contents = contents(&server, openai_user).await;
    assert_eq!(contents.len(), 3);
    for (content, chunk) in contents.iter().zip(CHUNKS) {
        assert_eq!(content.len(), chunk.len() + 1);
        assert_eq!(content[0]["type"], "text");
        let parts: Vec<Value> = chunk.iter().map(|&i| openai_part(i)).collect();
        assert_eq!(content[1..], parts[..], "chunk {chunk:?}");
        assert_named(content[0]["text"].as_str().unwrap(), chunk);
    }
}

#[tokio::test]
async fn anthropic_chunks_send_their_elements_blocks_in_order_then_the_text() {
    let server = server(anthropic_reply, anthropic_user).await;
    let client = IntentClient::new(anthropic(&server));
    let result = run(&client).await;
    assert_values(&result);
    let contents = contents(&server, anthropic_user).await;
    assert_eq!(contents.len(), 3);
    for (content, chunk) in contents.iter().zip(CHUNKS) {
        assert_eq!(content.len(), chunk.len() + 1);
        let blocks: Vec<Value> = chunk.iter().map(|&i| anthropic_block(i)).collect();
        assert_eq!(content[..chunk.len()], blocks[..], "chunk {chunk:?}");
        assert_eq!(content[chunk.len()]["type"], "text");
        assert_named(content[chunk.len()]["text"].as_str().unwrap(), chunk);
    }
}

#[tokio::test]
async fn a_fallback_gets_each_chunks_attachments_when_the_primary_fails() {
    let primary = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&primary)
        .await;
    let fallback = server(anthropic_reply, anthropic_user).await;
    let client = IntentClient::builder()
        .provider(openai(&primary))
        .fallback(anthropic(&fallback))
        .build()
        .unwrap();
    let result = run(&client).await;
    assert_values(&result);
    let tried = contents(&primary, openai_user).await;
    let answered = contents(&fallback, anthropic_user).await;
    assert_eq!(answered.len(), 3);
    for (content, chunk) in answered.iter().zip(CHUNKS) {
        let blocks: Vec<Value> = chunk.iter().map(|&i| anthropic_block(i)).collect();
        assert_eq!(content[..chunk.len()], blocks[..]);
    }
    // The primary was sent the same chunk first, with the same parts.
    assert_eq!(tried[0][1..], [openai_part(0), openai_part(1)]);
}

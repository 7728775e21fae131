//! Anthropic Messages streaming on the wire (127.0.0.1): a stream in the documented form read the
//! same cut at every byte and with any line ending, the streamed reply equal to the reply read
//! whole, error events, and cancellation.

use std::time::Duration;

use futures::StreamExt;
use intent_core::provider::{
    AiResponse, AnthropicProvider, FinishReason, Provider, ProviderError, ProviderErrorKind,
    ReplyAssembler, StreamPiece,
};
use intent_core::{AiRequest, Usage};
use serde_json::{json, Value};

use crate::openai_stream::{assert_reads_the_same_at_every_cut, assert_streamed_is_whole};
use intent_tests::sse_server::{Reply, SseServer, Step};
use intent_tests::wire::quick_retries;

/// A stream in the documented form: a thinking block with its signature, a ping, a text block.
const ANTHROPIC: &[u8] = include_bytes!("../fixtures/recorded/anthropic.sse");

pub fn provider_at(base: &str) -> AnthropicProvider {
    AnthropicProvider::new("sk-ant-test")
        .with_base_url(base)
        .with_retry_policy(quick_retries(2))
        .with_timeout(Duration::from_secs(10))
}

fn request() -> AiRequest {
    AiRequest::new("You are terse.", "Greet.")
}

fn recorded_reply() -> AiResponse {
    let mut reply = AiResponse::new(
        r#"{"value": {"greeting": "Grüße aus Köln — 日本 🙂", "count": 3}}"#,
        "claude-sonnet-4-5-20250929",
    );
    reply.reasoning = Some("The user greets in German; count is 3.".into());
    reply.usage = Usage {
        input_tokens: 472 + 2048,
        output_tokens: 31,
        cached_tokens: 2048,
        reasoning_tokens: 0,
        calls: 1,
    };
    reply
}

async fn stream(provider: &AnthropicProvider) -> Result<AiResponse, ProviderError> {
    ReplyAssembler::collect(provider.stream(&request())).await
}

#[tokio::test]
async fn the_documented_stream_reads_the_same_cut_at_every_byte_and_with_any_line_ending() {
    let at = |base: &str| Box::new(provider_at(base)) as Box<dyn Provider>;
    assert_reads_the_same_at_every_cut(ANTHROPIC, at, &recorded_reply()).await;
}

#[tokio::test]
async fn the_request_asks_for_a_stream_and_reasoning_comes_apart() {
    let server = SseServer::start(|_| Reply::events([ANTHROPIC.to_vec()])).await;
    let provider = provider_at(&server.base);
    let request = request();
    let pieces: Vec<StreamPiece> = provider
        .stream(&request)
        .map(Result::unwrap)
        .collect()
        .await;
    let sent: Value = serde_json::from_str(&server.requests()[0]).unwrap();
    assert_eq!(sent["stream"], json!(true));
    assert_eq!(sent["max_tokens"], json!(4096));
    let reasoning: String = pieces
        .iter()
        .filter_map(|p| match p {
            StreamPiece::Reasoning(r) => Some(r.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "The user greets in German; count is 3.");
    let texts = pieces.iter().filter(|p| p.as_text().is_some()).count();
    assert_eq!(texts, 8);
    assert!(matches!(pieces.last(), Some(StreamPiece::End(_))));
}

/// A Messages stream with these text deltas, ending with `stop_reason`.
fn messages_stream(deltas: &[&str], stop_reason: &str) -> String {
    let event = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut body = event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
               "model": "claude-haiku-4-5", "content": [], "stop_reason": null,
               "usage": {"input_tokens": 12, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
    );
    body += &event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    );
    for delta in deltas {
        body += &event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": delta}}),
        );
    }
    body += &event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    body += &event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": 6}}),
    );
    body + &event("message_stop", json!({"type": "message_stop"}))
}

/// The same reply, read whole.
fn messages_reply(text: &str, stop_reason: &str) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 12, "cache_creation_input_tokens": 3, "cache_read_input_tokens": 0, "output_tokens": 6}
    })
}

#[tokio::test]
async fn the_streamed_reply_is_the_reply_read_whole() {
    let cases: [(&[&str], &str); 4] = [
        (&["{\"value\": ", "42}"], "end_turn"),
        (&["{\"value\": [1, ", "2"], "max_tokens"),
        (&[" I can't help", " with that. "], "refusal"),
        (&["done"], "pause_turn"),
    ];
    for (deltas, stop_reason) in cases {
        let at = |base: &str| Box::new(provider_at(base)) as Box<dyn Provider>;
        assert_streamed_is_whole(
            messages_stream(deltas, stop_reason),
            &messages_reply(&deltas.concat(), stop_reason),
            at,
            &format!("{deltas:?} {stop_reason}"),
        )
        .await;
    }
}

#[tokio::test]
async fn a_refusal_stops_with_its_reason_and_message() {
    let body = messages_stream(&[" I can't help", " with that. "], "refusal");
    let server = SseServer::start(move |_| Reply::events([body.clone().into_bytes()])).await;
    let reply = stream(&provider_at(&server.base)).await.unwrap();
    assert_eq!(reply.finish_reason, FinishReason::Refusal);
    assert_eq!(reply.refusal.as_deref(), Some("I can't help with that."));
}

#[tokio::test]
async fn an_error_event_after_the_stream_began_breaks_it() {
    let full = messages_stream(&["{\"va", "lue\": 1}"], "end_turn");
    let cut = full.find("event: content_block_stop").unwrap();
    let body = format!(
        "{}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n\n",
        &full[..cut]
    );
    let len = body.len();
    let server = SseServer::start(move |_| Reply::events([body.clone().into_bytes()])).await;
    let provider = provider_at(&server.base);
    let request = request();
    let items: Vec<_> = provider.stream(&request).collect().await;
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(
        items[0].as_ref().unwrap(),
        &StreamPiece::Text("{\"va".into())
    );
    let error = items[2].as_ref().unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
    assert_eq!(error.provider, "anthropic");
    assert!(
        error.message.ends_with(&format!(
            "broke after {len} bytes: the server sent an error: overloaded_error: Overloaded"
        )),
        "{}",
        error.message
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let first_text = ANTHROPIC
        .windows(b"\"text_delta\"".len())
        .position(|w| w == b"\"text_delta\"")
        .unwrap();
    let end = first_text
        + ANTHROPIC[first_text..]
            .windows(2)
            .position(|w| w == b"\n\n")
            .unwrap()
        + 2;
    let server =
        SseServer::start(move |_| Reply::events([ANTHROPIC[..end].to_vec()]).then([Step::Hold]))
            .await;
    let provider = provider_at(&server.base);
    let request = request();
    let mut pieces = provider.stream(&request);
    let mut seen = Vec::new();
    while seen.iter().all(|p: &StreamPiece| p.as_text().is_none()) {
        let piece = tokio::time::timeout(Duration::from_secs(5), pieces.next())
            .await
            .expect("pieces before the body ends")
            .unwrap()
            .unwrap();
        seen.push(piece);
    }
    assert_eq!(
        seen.last().unwrap().as_text(),
        Some("{\"value\": {\"greeting\": \"")
    );
    drop(pieces);
    assert!(
        server.wait_closed(0, Duration::from_secs(5)).await,
        "{:?}",
        server.seen()
    );
}

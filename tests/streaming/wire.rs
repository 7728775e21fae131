//! Streamed calls over HTTP on 127.0.0.1: partials while the server is still writing, and
//! dropping the stream closes the connection.

use std::time::Duration;

use futures::StreamExt;
use intent_core::prelude::*;
use serde_json::json;

use crate::calls::Order;
use intent_tests::sse_server::{Reply, SseServer, Step};

/// OpenAI chat-completion chunks carrying `pieces` as content deltas, then the end.
fn openai_events(pieces: &[&str]) -> Vec<Vec<u8>> {
    let mut events: Vec<Vec<u8>> = pieces
        .iter()
        .map(|p| {
            let chunk = json!({"model": "m", "choices": [{"index": 0, "delta": {"content": p}}]});
            format!("data: {chunk}\n\n").into_bytes()
        })
        .collect();
    let last =
        json!({"model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    events.push(format!("data: {last}\n\ndata: [DONE]\n\n").into_bytes());
    events
}

fn provider(base: &str) -> OpenAiProvider {
    OpenAiProvider::new("sk-test")
        .with_base_url(format!("{base}/v1"))
        .with_model("m")
        .with_timeout(Duration::from_secs(10))
}

#[tokio::test]
async fn partials_arrive_while_the_server_is_still_writing() {
    let pieces = [
        r#"{"value": {"customer": "Da"#,
        r#"na", "quantity": 4"#,
        r#"0, "lines": ["A-1"#,
        r#"", "B"]}}"#,
    ];
    let mut steps = Vec::new();
    for event in openai_events(&pieces) {
        steps.push(Step::Chunk(event));
        steps.push(Step::Sleep(Duration::from_millis(30)));
    }
    let server = SseServer::start(move |_| Reply {
        status: 200,
        content_type: "text/event-stream",
        steps: steps.clone(),
    })
    .await;
    let client = IntentClient::new(provider(&server.base));
    let mut stream = Order::ai(&client, "email", "Extract the order.").stream();
    let mut views = Vec::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(p) => views.push(p.json().clone()),
            StreamEvent::Done(result) => done = Some(result),
            _ => {}
        }
    }
    assert_eq!(views[0], json!({"customer": "Da"}));
    assert!(views.contains(&json!({"customer": "Dana"})), "{views:?}");
    // The quantity shows only once its token is complete: 40, never 4.
    assert!(views
        .iter()
        .all(|v| v.get("quantity").is_none_or(|q| q == 40)));
    let done = done.expect("Done");
    assert_eq!(done.value().unwrap().quantity, 40);
    let sent: serde_json::Value = serde_json::from_str(&server.requests()[0]).unwrap();
    assert_eq!(sent["stream"], true);
}

#[tokio::test]
async fn dropping_the_stream_closes_the_connection() {
    let first = openai_events(&[r#"{"value": {"customer": "Dana", "#]).remove(0);
    let server = SseServer::start(move |_| Reply::events([first.clone()]).then([Step::Hold])).await;
    let client = IntentClient::new(provider(&server.base));
    let mut stream = Order::ai(&client, "email", "Extract the order.").stream();
    let Some(StreamEvent::Partial(partial)) = stream.next().await else {
        panic!("a partial first");
    };
    assert_eq!(partial.json(), &json!({"customer": "Dana"}));
    drop(stream);
    assert!(
        server.wait_closed(0, Duration::from_secs(5)).await,
        "the server did not see the connection close"
    );
}

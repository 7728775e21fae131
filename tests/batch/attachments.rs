//! A batch run whose elements carry attachments: each chunk's batch request carries its
//! elements' images and PDFs, in element order, as the live request would, for both APIs.

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use intent_core::collections::BatchOptions;
use intent_core::prelude::*;
use intent_tests::tests_png;
use serde_json::{json, Value};

use intent_tests::batch_server::{Api, BatchServer, Behaviour, Outcome};

fn pdf_bytes(n: usize) -> Vec<u8> {
    format!("%PDF-1.7\n% page {n}\n%%EOF\n").into_bytes()
}

/// Five scans: a PNG at even indexes, a PDF at odd ones.
fn scans() -> Vec<Attachment> {
    (0..5)
        .map(|i: usize| {
            if i.is_multiple_of(2) {
                Attachment::from_bytes(tests_png()).unwrap()
            } else {
                Attachment::from_bytes(pdf_bytes(i)).unwrap()
            }
        })
        .collect()
}

/// `"doc <i>"` for each element of the chunk's input (`{"index":3,"input":`), not those quoted
/// in a previous attempt.
fn answer(message: &str) -> String {
    let input = message
        .split("## Previous attempt")
        .next()
        .unwrap_or(message);
    let items: Vec<Value> = input
        .split("{\"index\":")
        .skip(1)
        .filter_map(|rest| rest.split(',').next()?.parse::<usize>().ok())
        .map(|i| json!({"index": i, "value": format!("doc {i}")}))
        .collect();
    json!({ "value": items }).to_string()
}

/// The base64 data of each attachment part, in order, as each API writes it.
fn data_of(api: Api, parts: &[Value]) -> Vec<String> {
    parts
        .iter()
        .map(|part| {
            let data = match api {
                Api::OpenAi => part["image_url"]["url"]
                    .as_str()
                    .or_else(|| part["file"]["file_data"].as_str()),
                Api::Anthropic => part["source"]["data"].as_str(),
            };
            let data = data.expect("an attachment part with its data");
            data.rsplit(',').next().unwrap().to_owned()
        })
        .collect()
}

async fn carried(api: Api) {
    let server =
        BatchServer::start(api, Behaviour::default(), |_, m| Outcome::Text(answer(m))).await;
    let client = match api {
        Api::OpenAi => IntentClient::new(
            OpenAiProvider::new("sk-batch-test")
                .with_base_url(server.base_url())
                .with_model("gpt-batch")
                .with_batch_api(true),
        ),
        Api::Anthropic => IntentClient::new(
            AnthropicProvider::new("sk-ant-batch-test")
                .with_base_url(server.base_url())
                .with_model("claude-batch")
                .with_batch_api(true),
        ),
    };
    let inputs = scans();
    let result = client
        .map_each::<String>(&inputs, "Name the document.")
        .chunk_size(2)
        .batch(BatchOptions::new().poll_interval(Duration::from_millis(5)))
        .await;
    assert_eq!(
        result.values(),
        &[0, 1, 2, 3, 4].map(|i| Some(format!("doc {i}"))),
        "{:?}",
        result.issues()
    );
    let encoded = |i: usize| {
        STANDARD.encode(if i.is_multiple_of(2) {
            tests_png()
        } else {
            pdf_bytes(i)
        })
    };
    server.counts(|c| {
        assert_eq!(c.requests, 3);
        for ((parts, message), chunk) in
            c.parts
                .iter()
                .zip(&c.messages)
                .zip([vec![0, 1], vec![2, 3], vec![4]])
        {
            let expected: Vec<String> = chunk.iter().map(|&i| encoded(i)).collect();
            assert_eq!(data_of(api, parts), expected, "chunk {chunk:?}");
            for (place, &i) in chunk.iter().enumerate() {
                let listed = format!("\n{}. attachment 1 of element {i}: ", place + 1);
                assert!(message.contains(&listed), "{listed} in {message}");
            }
        }
    });
}

#[tokio::test]
async fn openai_batch_requests_carry_each_chunks_attachments() {
    carried(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_batch_requests_carry_each_chunks_attachments() {
    carried(Api::Anthropic).await;
}

//! The concurrency fixture: `map_each` over many elements against a server that answers each chunk
//! after a fixed delay, with one valid element per index it was sent.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use intent_core::provider::OpenAiProvider;
use intent_core::IntentClient;
use serde_json::Value;

use crate::replies::{chat_completion, item, Envelope};
use crate::server::Server;
use crate::types::Item;

/// What the model is asked.
pub const INTENT: &str = "Read the catalogue item this supplier note describes.";

/// The inputs: `n` supplier notes of about 1 KB each.
pub fn notes(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut note = format!("Note {i}: ");
            while note.len() < 1000 {
                note.push_str(
                    "The brass desk lamp with a linen shade is back in stock; 13 units. ",
                );
            }
            note
        })
        .collect()
}

/// The answer for one request: the user message's `"index": N` entries, each answered with
/// `item(N)`.
pub fn answer_chunk(request: &[u8]) -> Bytes {
    let user = serde_json::from_slice::<Value>(request)
        .ok()
        .and_then(|body| {
            body["messages"].as_array().and_then(|messages| {
                messages
                    .iter()
                    .find(|m| m["role"] == "user")
                    .and_then(|m| m["content"].as_str().map(str::to_owned))
            })
        })
        .unwrap_or_default();
    let mut answers = Vec::new();
    let mut rest = user.as_str();
    while let Some(at) = rest.find("\"index\":") {
        rest = &rest[at + "\"index\":".len()..];
        let digits: String = rest
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Ok(index) = digits.parse::<u64>() {
            answers.push(serde_json::json!({"index": index, "value": item(index)}));
        }
    }
    let content = serde_json::to_string(&Envelope { value: answers }).unwrap_or_default();
    Bytes::from(chat_completion(&content))
}

/// A server answering each chunk after `delay`.
pub fn server(delay: Duration) -> Server {
    Server::start(delay, Arc::new(answer_chunk))
}

/// A client of the library pointed at `server_url`.
pub fn client(server_url: &str) -> IntentClient {
    IntentClient::new(
        OpenAiProvider::new("sk-bench")
            .with_base_url(format!("{server_url}/v1"))
            .with_model("gpt-bench"),
    )
}

/// Runs `map_each` once; returns the outputs.
///
/// # Panics
///
/// When an element has no output: the fixture's server answers every index.
pub async fn run(
    client: &IntentClient,
    inputs: &[String],
    chunk_size: usize,
    concurrency: usize,
) -> Vec<Item> {
    client
        .map_each::<Item>(inputs, INTENT)
        .chunk_size(chunk_size)
        .concurrency(concurrency)
        .await
        .into_result()
        .expect("every element is answered")
}

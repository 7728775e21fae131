//! Reply texts: lists of items of a chosen size, and OpenAI chat completions around a content.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::types::{Item, Order, Status, Tag};

/// `{"value": ...}`, the envelope a reply carries its value in.
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// The value.
    pub value: T,
}

/// The `n`th item of a deterministic sequence.
pub fn item(n: u64) -> Item {
    Item {
        id: 10_000 + n,
        sku: format!("A-{:05}", n * 7 % 99_991),
        title: format!("Brass desk lamp, model {n}, with a linen shade"),
        unit_price: 12.5 + (n % 400) as f64 * 0.25,
        quantity: (n * 13 % 500) as u32,
        status: match n % 3 {
            0 => Status::Active,
            1 => Status::Backordered,
            _ => Status::Discontinued,
        },
        note: (n % 2 == 0).then(|| format!("Ships from warehouse {}", n % 9)),
        tags: (0..n % 3)
            .map(|t| Tag {
                name: format!("tag-{t}"),
                weight: 0.5 + t as f64,
            })
            .collect(),
    }
}

/// As many items as it takes for `{"value": [..]}` to reach `bytes`, and that reply's text.
pub fn items_reply(bytes: usize) -> (Vec<Item>, String) {
    let mut items = Vec::new();
    let mut length = r#"{"value":[]}"#.len();
    while length < bytes {
        let next = item(items.len() as u64);
        length += serde_json::to_string(&next).map_or(0, |text| text.len()) + 1;
        items.push(next);
    }
    let text = serde_json::to_string(&Envelope { value: &items }).unwrap_or_default();
    (items, text)
}

/// An order of `n` items.
pub fn order(n: u64) -> Order {
    Order {
        number: "SO-2026-0042".into(),
        customer: "Dana Whitfield".into(),
        paid: true,
        items: (0..n).map(item).collect(),
    }
}

/// An OpenAI chat completion whose message content is `content`.
pub fn chat_completion(content: &str) -> String {
    json!({
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1_780_000_000,
        "model": "gpt-bench",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 420, "completion_tokens": 230, "total_tokens": 650}
    })
    .to_string()
}

/// The chat completion the call-overhead benchmark's server returns: an [`Order`] in its envelope,
/// about 1 KB in all.
pub fn order_completion() -> String {
    let content = serde_json::to_string(&Envelope { value: order(3) }).unwrap_or_default();
    chat_completion(&content)
}

/// The part of a chat completion a hand-written client reads.
#[derive(Debug, Deserialize)]
pub struct Completion {
    /// The choices.
    pub choices: Vec<CompletionChoice>,
}

/// One choice.
#[derive(Debug, Deserialize)]
pub struct CompletionChoice {
    /// Its message.
    pub message: CompletionMessage,
}

/// A choice's message.
#[derive(Debug, Deserialize)]
pub struct CompletionMessage {
    /// Its text.
    pub content: String,
}

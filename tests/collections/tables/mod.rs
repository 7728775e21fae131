//! Tables (features `arrow` and `polars`): Arrow and Polars tables and rows as inputs, every
//! accepted type written as the spec says and compared with `arrow-json`'s writer, the refusals,
//! `map_rows` and `map_stream` over record batches, and the results as Arrow and Polars columns.

mod results;
mod serialize;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError};
use intent_core::AiRequest;
use serde_json::{json, Value};

/// The chunk's input: the last line of the `## Input` section.
pub fn input_of(user: &str) -> &str {
    let section = &user[..user.find("\n\n## Output requirements").unwrap()];
    &section[section.rfind('\n').unwrap() + 1..]
}

/// A model that answers each `map_each` chunk of rows with `answer(row)` for every row, and
/// counts the rows it was sent.
#[derive(Clone)]
pub struct RowModel {
    answer: Arc<dyn Fn(&Value) -> Value + Send + Sync>,
    pub rows_seen: Arc<AtomicUsize>,
}

impl RowModel {
    pub fn new(answer: impl Fn(&Value) -> Value + Send + Sync + 'static) -> Self {
        RowModel {
            answer: Arc::new(answer),
            rows_seen: Arc::default(),
        }
    }

    pub fn rows_seen(&self) -> usize {
        self.rows_seen.load(Ordering::SeqCst)
    }
}

impl Provider for RowModel {
    fn name(&self) -> &str {
        "rows"
    }

    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            let items: Vec<Value> = serde_json::from_str(input_of(&request.user)).unwrap();
            self.rows_seen.fetch_add(items.len(), Ordering::SeqCst);
            let answers: Vec<Value> = items
                .iter()
                .map(|item| json!({"index": item["index"], "value": (self.answer)(&item["input"])}))
                .collect();
            Ok(AiResponse::new(
                json!({ "value": answers }).to_string(),
                "rows-1",
            ))
        })
    }
}

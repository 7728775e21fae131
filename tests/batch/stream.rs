//! `map_stream`: results in input order from a stream of inputs, failed chunks retried alone,
//! per-element issues at the input's position, and inputs read only as chunks are free.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::StreamExt;
use intent_core::prelude::*;
use serde_json::json;

/// Answers each chunk from its own input: the number doubled, after a delay that makes later
/// chunks end first; chunk `fail` first answers without its last element.
struct Doubler {
    calls: AtomicUsize,
}

impl intent_core::provider::Provider for Doubler {
    fn name(&self) -> &str {
        "doubler"
    }
    fn complete<'a>(
        &'a self,
        request: &'a intent_core::AiRequest,
    ) -> intent_core::provider::BoxFuture<
        'a,
        Result<intent_core::provider::AiResponse, intent_core::provider::ProviderError>,
    > {
        Box::pin(async move {
            let call = self.calls.fetch_add(1, Ordering::SeqCst);
            let user: &str = &request.user;
            let input = user.split("## Previous attempt").next().unwrap();
            let pattern = regex::Regex::new(r#"\{"index":(\d+),"input":(\d+)\}"#).unwrap();
            let mut items: Vec<serde_json::Value> = pattern
                .captures_iter(input)
                .map(|c| json!({"index": c[1].parse::<u64>().unwrap(), "value": c[2].parse::<u64>().unwrap() * 2}))
                .collect();
            let first: u64 = items[0]["value"].as_u64().unwrap() / 2;
            // Later chunks answer sooner.
            tokio::time::sleep(std::time::Duration::from_millis(
                40u64.saturating_sub(first),
            ))
            .await;
            if first == 10 && !user.contains("## Previous attempt") {
                items.pop();
            }
            if first == 20 {
                // Chunk of 20..25: element 22 is never right.
                items[2]["value"] = json!("not a number");
            }
            let _ = call;
            Ok(intent_core::provider::AiResponse::new(
                json!({"value": items}).to_string(),
                "doubler-1",
            ))
        })
    }
}

#[tokio::test]
async fn map_stream_yields_in_input_order_retries_failed_chunks_alone_and_reads_lazily() {
    let provider = Arc::new(Doubler {
        calls: AtomicUsize::new(0),
    });
    let client = IntentClient::builder()
        .provider(Arc::clone(&provider))
        .options(IntentClientOptions {
            max_attempts: 2,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap();
    let pulled = Arc::new(AtomicUsize::new(0));
    let inputs = futures::stream::iter(0u64..30).inspect({
        let pulled = Arc::clone(&pulled);
        move |_| {
            pulled.fetch_add(1, Ordering::SeqCst);
        }
    });
    let mut stream = client
        .map_stream::<u64, _>(inputs, "Double the number.")
        .chunk_size(5)
        .concurrency(2);
    let (position, value) = stream.next().await.unwrap();
    assert_eq!((position, value.unwrap()), (0, 0));
    // Two chunks in flight or waiting, and at most one more being gathered.
    assert!(
        pulled.load(Ordering::SeqCst) <= 15,
        "{} inputs read",
        pulled.load(Ordering::SeqCst)
    );
    let mut rest = Vec::new();
    while let Some(item) = stream.next().await {
        rest.push(item);
    }
    assert_eq!(rest.len(), 29);
    for (i, (position, value)) in rest.iter().enumerate() {
        assert_eq!(*position, i + 1);
        if *position == 22 {
            let issue = value.as_ref().unwrap_err();
            assert_eq!(issue.position, 22);
            assert_eq!(issue.key, "22");
            assert!(
                issue.issue.path.as_deref().unwrap_or("").starts_with("/22"),
                "{issue:?}"
            );
        } else {
            assert_eq!(*value.as_ref().unwrap(), *position as u64 * 2);
        }
    }
    // 6 chunks, chunk 10..15 retried once, chunk 20..25 twice in all.
    assert_eq!(provider.calls.load(Ordering::SeqCst), 8);
    assert_eq!(stream.usage().calls, 8);
}

#[tokio::test]
async fn map_stream_states_and_checks_require_and_validate_rules_in_every_chunk() {
    // Chunk 1 breaks the rule, then mends it; chunk 2's value fails the validator both times.
    let model = ScriptedProvider::new([
        r#"{"value": [{"index": 0, "value": 9}, {"index": 1, "value": 2}]}"#,
        r#"{"value": [{"index": 0, "value": 3}, {"index": 1, "value": 2}]}"#,
        r#"{"value": [{"index": 0, "value": 4}]}"#,
        r#"{"value": [{"index": 0, "value": 4}]}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let results: Vec<(usize, Result<u8, intent_core::collections::ElementIssue>)> = client
        .map_stream::<u8, _>(futures::stream::iter(["ok", "fine", "meh"]), "Score it.")
        .chunk_size(2)
        .concurrency(1)
        .options(AiRequestOptions {
            max_attempts: Some(2),
            ..AiRequestOptions::default()
        })
        .require(|score| (1..=5).contains(score), "Score from 1 to 5.")
        .validate(|score| {
            if *score == 4 {
                vec!["Four is not a score here.".into()]
            } else {
                vec![]
            }
        })
        .collect()
        .await;
    assert_eq!(results[0].1.as_ref().ok(), Some(&3));
    assert_eq!(results[1].1.as_ref().ok(), Some(&2));
    let issue = results[2].1.as_ref().unwrap_err();
    assert_eq!(issue.position, 2);
    assert!(
        issue.issue.message.contains("Four is not a score here."),
        "{issue:?}"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    // The rule is stated up front in every chunk's first prompt, and its breach sent back.
    for request in [&requests[0], &requests[2]] {
        assert!(
            request.user.contains("Score from 1 to 5."),
            "{}",
            request.user
        );
        assert!(!request.user.contains("## Previous attempt"));
    }
    assert!(requests[1].user.contains("## Previous attempt"));
    assert!(requests[3].user.contains("Four is not a score here."));
}

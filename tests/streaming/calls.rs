//! `AiCall::stream` on the scripted model: partials that are verified prefixes of the answer,
//! the same result as `.await`, retries, the cache, text results and the rate limiter.

use std::time::Duration;

use futures::StreamExt;
use intent_core::cache::MemoryCache;
use intent_core::prelude::*;
use intent_core::provider::ScriptedReply;
use intent_core::ratelimit::RateLimit;
use intent_tests::partials::is_prefix;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
pub struct Order {
    pub customer: String,
    #[intent(minimum = 1)]
    pub quantity: u32,
    pub lines: Vec<String>,
}

pub const ORDER: &str =
    r#"{"value": {"customer": "Dana Ortiz", "quantity": 40, "lines": ["A-1192 blue", "B-7"]}}"#;

#[tokio::test]
async fn a_struct_streams_verified_prefixes_and_ends_with_what_await_gives() {
    let model = ScriptedProvider::new([ORDER, ORDER]).with_stream_chunk_chars(3);
    let client = IntentClient::new(model.clone());
    let awaited = Order::ai(&client, "email", "Extract the order.").await;
    let events = Order::ai(&client, "email", "Extract the order.")
        .stream()
        .collect::<Vec<_>>()
        .await;

    let full = json!({"customer": "Dana Ortiz", "quantity": 40, "lines": ["A-1192 blue", "B-7"]});
    let partials: Vec<&Value> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Partial(p) => Some(p.json()),
            _ => None,
        })
        .collect();
    assert!(partials.len() > 5, "{} partials", partials.len());
    for partial in &partials {
        assert!(
            is_prefix(partial, &full),
            "{partial} is not a prefix of {full}"
        );
        // A number shows only once complete.
        if let Some(q) = partial.get("quantity") {
            assert_eq!(q, &json!(40));
        }
    }
    assert_eq!(partials.last().unwrap(), &&full);
    let Some(StreamEvent::Done(result)) = events.last() else {
        panic!("the last event is Done");
    };
    assert_eq!(result.value(), awaited.value());
    assert_eq!(result.attempts().len(), awaited.attempts().len());
    // The same request went out both ways.
    let sent = model.requests();
    assert_eq!(sent[0].user, sent[1].user);
}

/// The views of a stream's partials, in order, each looked at only after every later one.
fn looked_at_backwards(events: Vec<StreamEvent<Order>>) -> Vec<Value> {
    let partials: Vec<Partial<Order>> = events
        .into_iter()
        .filter_map(|e| match e {
            StreamEvent::Partial(p) => Some(p),
            _ => None,
        })
        .collect();
    let mut views: Vec<Value> = partials.iter().rev().map(|p| p.json().clone()).collect();
    views.reverse();
    views
}

#[tokio::test]
async fn a_partial_looked_at_late_shows_what_it_would_have_shown_when_handed_out() {
    let model = ScriptedProvider::new([ORDER, ORDER]).with_stream_chunk_chars(4);
    let client = IntentClient::new(model);
    // Each partial looked at as it comes.
    let mut stream = Order::ai(&client, "email", "Extract the order.").stream();
    let mut at_once = Vec::new();
    while let Some(event) = stream.next().await {
        if let StreamEvent::Partial(p) = event {
            at_once.push(p.json().clone());
        }
    }
    // Every partial held, then looked at from the last to the first.
    let events = Order::ai(&client, "email", "Extract the order.")
        .stream()
        .collect::<Vec<_>>()
        .await;
    let late = looked_at_backwards(events);
    assert!(at_once.len() > 5, "{at_once:?}");
    // Nobody looked while the stream ran, so it could not tell that the answer had closed:
    // the partials after that show the whole answer again.
    assert!(
        late.len() >= at_once.len(),
        "{} < {}",
        late.len(),
        at_once.len()
    );
    assert_eq!(late[..at_once.len()], at_once[..]);
    assert!(late[at_once.len()..]
        .iter()
        .all(|v| Some(v) == at_once.last()));
}

#[tokio::test]
async fn a_failed_reply_is_followed_by_retry_and_the_next_attempt_starts_over() {
    let bad = r#"{"value": {"customer": "Dana", "quantity": 0, "lines": []}}"#;
    let model = ScriptedProvider::new([bad, ORDER]).with_stream_chunk_chars(7);
    let client = IntentClient::new(model);
    let events = Order::ai(&client, "email", "Extract the order.")
        .stream()
        .collect::<Vec<_>>()
        .await;

    let retry = events
        .iter()
        .position(|e| matches!(e, StreamEvent::Retry(_)))
        .expect("a Retry event");
    let StreamEvent::Retry(record) = &events[retry] else {
        unreachable!()
    };
    assert_eq!(record.number, 1);
    assert_eq!(record.issues[0].path.as_deref(), Some("/value/quantity"));
    // Before it, the first attempt's partials, none showing the quantity that failed its rule.
    for event in &events[..retry] {
        let StreamEvent::Partial(p) = event else {
            panic!("only partials before the retry")
        };
        assert_eq!(p.attempt(), 1);
        assert!(p.json().get("quantity").is_none());
    }
    // After it, the second attempt's, the first marked as a restart.
    let StreamEvent::Partial(first) = &events[retry + 1] else {
        panic!("a partial after the retry")
    };
    assert!(first.is_restart());
    assert_eq!(first.attempt(), 2);
    let Some(StreamEvent::Done(result)) = events.last() else {
        panic!("Done last")
    };
    assert!(result.is_success());
    assert_eq!(result.attempts().len(), 2);
}

#[tokio::test]
async fn a_cached_reply_is_replayed_as_one_partial_then_done() {
    let model = ScriptedProvider::new([ORDER]).with_stream_chunk_chars(3);
    let client = IntentClient::builder()
        .provider(model.clone())
        .cache(MemoryCache::new(8))
        .build()
        .unwrap();
    let first = Order::ai(&client, "email", "Extract the order.").await;
    assert!(first.is_success());
    let events = Order::ai(&client, "email", "Extract the order.")
        .stream()
        .collect::<Vec<_>>()
        .await;
    assert_eq!(events.len(), 2, "{events:?}");
    let StreamEvent::Partial(partial) = &events[0] else {
        panic!("a partial first")
    };
    assert_eq!(partial.json()["quantity"], 40);
    let StreamEvent::Done(result) = &events[1] else {
        panic!("Done last")
    };
    assert!(result.attempts()[0].from_cache);
    assert_eq!(result.value(), first.value());
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn a_text_result_streams_its_text_and_checks_the_whole_at_the_end() {
    let model =
        ScriptedProvider::new(["Dear Dana, your order ships Monday."]).with_stream_chunk_chars(6);
    let client = IntentClient::new(model);
    let events: Vec<_> = String::ai(&client, "order 7", "Write a one-line note.")
        .require(|s| s.ends_with('.'), "End with a full stop.")
        .stream()
        .collect()
        .await;
    let texts: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Partial(p) => p.text(),
            _ => None,
        })
        .collect();
    assert_eq!(texts.first(), Some(&"Dear D"));
    assert_eq!(texts.last(), Some(&"Dear Dana, your order ships Monday."));
    assert!(texts.windows(2).all(|w| w[1].starts_with(w[0])));
    let Some(StreamEvent::Done(result)) = events.last() else {
        panic!("Done last")
    };
    assert_eq!(
        result.value().map(String::as_str),
        Some("Dear Dana, your order ships Monday.")
    );
}

#[tokio::test]
async fn a_stream_broken_mid_way_falls_back_and_the_fallback_starts_over() {
    let primary = ScriptedProvider::new([ScriptedReply::broken_stream(
        r#"{"value": {"customer": "Da"#,
    )])
    .with_name("primary")
    .with_stream_chunk_chars(5);
    let fallback = ScriptedProvider::new([ORDER])
        .with_name("fallback")
        .with_stream_chunk_chars(5);
    let client = IntentClient::builder()
        .provider(primary)
        .fallback(fallback)
        .build()
        .unwrap();
    let events = Order::ai(&client, "email", "Extract the order.")
        .stream()
        .collect::<Vec<_>>()
        .await;
    let restarts: Vec<bool> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Partial(p) => Some(p.is_restart()),
            _ => None,
        })
        .collect();
    assert!(!restarts[0]);
    assert_eq!(restarts.iter().filter(|r| **r).count(), 1, "{restarts:?}");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Retry(_))));
    let Some(StreamEvent::Done(result)) = events.last() else {
        panic!("Done last")
    };
    assert!(result.is_success());
    assert_eq!(result.attempts()[0].provider, "fallback");
}

#[tokio::test]
async fn the_stream_path_waits_for_the_rate_limiter_within_the_deadline() {
    let model = ScriptedProvider::new([ORDER, ORDER]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .rate_limit(RateLimit {
            requests_per_minute: Some(1),
            tokens_per_minute: None,
        })
        .build()
        .unwrap();
    let options = AiRequestOptions {
        deadline: Some(Duration::from_millis(500)),
        ..AiRequestOptions::default()
    };
    let first = Order::ai(&client, "a", "Extract the order.")
        .options(options.clone())
        .stream()
        .finish()
        .await;
    assert!(first.is_success());
    // The next slot is a minute away: past the deadline, so nothing is sent.
    let second = Order::ai(&client, "b", "Extract the order.")
        .options(options)
        .stream()
        .finish()
        .await;
    assert!(!second.is_success());
    assert_eq!(
        second.issues()[0].kind,
        IssueKind::Limit,
        "{:?}",
        second.issues()
    );
    assert_eq!(model.requests().len(), 1);
}

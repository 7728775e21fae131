//! Limits: attempts, a token budget and a deadline each end a call with an issue naming the limit;
//! a dropped call leaves nothing running.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use intent_core::prelude::*;
use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError, ScriptedReply};
use intent_core::AiRequest;
use intent_core::{IssueKind, Usage};

fn costly(text: &str, tokens: u64) -> ScriptedReply {
    let mut response = AiResponse::new(text, "scripted");
    response.usage = Usage {
        input_tokens: tokens,
        output_tokens: 0,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    response.into()
}

#[tokio::test]
async fn attempts_exhausted_keep_every_raw_output_and_name_the_limit() {
    let model = ScriptedProvider::new(["one", "two", "three"]);
    let client = IntentClient::new(model);
    let result = u32::ai(&client, "x", "Count.").await;
    assert!(!result.is_success());
    let raws: Vec<&str> = result
        .attempts()
        .iter()
        .map(|a| a.raw_output.as_str())
        .collect();
    assert_eq!(raws, ["one", "two", "three"]);
    let last = result.issues().last().unwrap();
    assert_eq!(last.kind, IssueKind::Limit);
    assert!(
        last.message.contains("max_attempts (3)"),
        "{}",
        last.message
    );
    assert!(result.into_result().is_err());
}

#[tokio::test]
async fn a_token_budget_stops_the_call() {
    let model = ScriptedProvider::new([
        costly("bad", 600),
        costly("bad", 600),
        costly(r#"{"value": 1}"#, 600),
    ]);
    let client = IntentClient::new(model.clone());
    let options = AiRequestOptions {
        max_total_tokens: Some(1000),
        ..Default::default()
    };
    let result = u32::ai(&client, "x", "Count.").options(options).await;
    assert!(!result.is_success());
    // 600 used of 1000, and the next prompt takes at least the first one's 600: no second
    // attempt is made, since it could not fit.
    assert_eq!(model.requests().len(), 1);
    let last = result.issues().last().unwrap();
    assert_eq!(last.kind, IssueKind::Limit);
    assert!(
        last.message.contains("max_total_tokens = 1000"),
        "{}",
        last.message
    );
    assert_eq!(result.usage().input_tokens, 600);
}

#[tokio::test]
async fn a_deadline_stops_a_slow_call() {
    let model = ScriptedProvider::new([
        ScriptedReply::from(r#"{"value": 1}"#).after(Duration::from_secs(5))
    ]);
    let client = IntentClient::builder()
        .provider(model)
        .options(IntentClientOptions {
            deadline: Some(Duration::from_millis(100)),
            ..Default::default()
        })
        .build()
        .unwrap();
    let started = Instant::now();
    let result = u32::ai(&client, "x", "Count.").await;
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(!result.is_success());
    let issue = &result.issues()[0];
    assert_eq!(issue.kind, IssueKind::Limit);
    assert!(
        issue.message.contains("deadline (100 ms)"),
        "{}",
        issue.message
    );
    assert_eq!(result.attempts().len(), 1);
}

#[tokio::test]
async fn a_request_can_tighten_the_client_limits() {
    let model = ScriptedProvider::new(["bad", "bad"]);
    let client = IntentClient::new(model.clone());
    let options = AiRequestOptions {
        max_attempts: Some(2),
        ..Default::default()
    };
    let result = u32::ai(&client, "x", "Count.").options(options).await;
    assert_eq!(result.attempts().len(), 2);
    assert!(result
        .issues()
        .last()
        .unwrap()
        .message
        .contains("max_attempts (2)"));
}

/// A provider whose pending calls are counted, to see that a dropped call leaves none behind.
struct Slow {
    pending: Arc<AtomicUsize>,
}

struct Pending(Arc<AtomicUsize>);

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Provider for Slow {
    fn name(&self) -> &str {
        "slow"
    }
    fn complete<'a>(
        &'a self,
        _: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        self.pending.fetch_add(1, Ordering::SeqCst);
        let guard = Pending(self.pending.clone());
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(guard);
            Ok(AiResponse::new(r#"{"value": 1}"#, "slow"))
        })
    }
}

#[tokio::test]
async fn dropping_a_call_leaves_no_work_running() {
    let pending = Arc::new(AtomicUsize::new(0));
    let client = IntentClient::new(Slow {
        pending: pending.clone(),
    });
    let call = u32::ai(&client, "x", "Count.");
    let outcome = tokio::time::timeout(Duration::from_millis(50), call).await;
    assert!(outcome.is_err(), "the call was still running");
    assert_eq!(
        pending.load(Ordering::SeqCst),
        0,
        "the provider's call was dropped with it"
    );
}

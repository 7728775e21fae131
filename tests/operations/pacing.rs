//! The rate limiter's pacing on tokio's paused clock: spacing, token estimates corrected from
//! usage, one count per provider, limiters shared between clients; and the deadline, on the real
//! clock, refused at once with an issue that names the limit.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError};
use intent_core::ratelimit::{RateLimit, RateLimiter};
use intent_core::AiRequest;
use intent_core::IssueKind;
use tokio::time::Instant;

/// A scripted provider that notes when (on tokio's clock) each request reached it.
#[derive(Clone)]
struct Clocked {
    inner: ScriptedProvider,
    name: String,
    times: Arc<Mutex<Vec<Instant>>>,
}

impl Clocked {
    fn new(name: &str, replies: Vec<AiResponse>) -> Clocked {
        Clocked {
            inner: ScriptedProvider::new(replies),
            name: name.to_owned(),
            times: Arc::default(),
        }
    }

    fn answering(name: &str, n: usize) -> Clocked {
        Clocked::new(
            name,
            (0..n)
                .map(|_| AiResponse::new("{\"value\": 3}", "m"))
                .collect(),
        )
    }

    /// Arrival times, from `start`.
    fn times_from(&self, start: Instant) -> Vec<Duration> {
        self.times
            .lock()
            .unwrap()
            .iter()
            .map(|t| *t - start)
            .collect()
    }
}

impl Provider for Clocked {
    fn name(&self) -> &str {
        &self.name
    }
    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        self.times.lock().unwrap().push(Instant::now());
        self.inner.complete(request)
    }
}

fn per_minute(requests: Option<u32>, tokens: Option<u32>) -> RateLimit {
    RateLimit {
        requests_per_minute: requests,
        tokens_per_minute: tokens,
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A client of `model` alone, every provider within `limit`.
fn limited(model: &Clocked, limit: RateLimit) -> IntentClient {
    IntentClient::builder()
        .provider(model.clone())
        .rate_limit(limit)
        .build()
        .unwrap()
}

async fn count(client: &IntentClient) -> AiResult<u32> {
    u32::ai(client, "a b c", "Count the words.").await
}

#[tokio::test(start_paused = true)]
async fn sequential_calls_are_spaced_by_the_request_interval() {
    let model = Clocked::answering("openai", 5);
    let client = limited(&model, per_minute(Some(60), None));
    let start = Instant::now();
    for _ in 0..5 {
        assert!(count(&client).await.is_success());
    }
    assert_eq!(
        model.times_from(start),
        [ms(0), ms(1000), ms(2000), ms(3000), ms(4000)]
    );
}

#[tokio::test(start_paused = true)]
async fn concurrent_calls_take_evenly_spaced_slots() {
    let model = Clocked::answering("openai", 10);
    let client = limited(&model, per_minute(Some(600), None));
    let start = Instant::now();
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let client = client.clone();
        calls.spawn(async move { count(&client).await.is_success() });
    }
    while let Some(passed) = calls.join_next().await {
        assert!(passed.unwrap());
    }
    let mut times = model.times_from(start);
    times.sort();
    assert_eq!(times, (0..10).map(|i| ms(100 * i)).collect::<Vec<_>>());
}

#[tokio::test(start_paused = true)]
async fn a_pause_is_never_banked_into_a_burst() {
    let model = Clocked::answering("openai", 3);
    let client = limited(&model, per_minute(Some(60), None));
    let start = Instant::now();
    count(&client).await;
    tokio::time::sleep(Duration::from_secs(10)).await;
    count(&client).await;
    count(&client).await;
    assert_eq!(model.times_from(start), [ms(0), ms(10_000), ms(11_000)]);
}

#[tokio::test(start_paused = true)]
async fn the_token_estimate_is_corrected_by_the_reply_usage() {
    // 60,000 tokens a minute: 1 ms a token. Each request is estimated at its bytes over four plus
    // max_output_tokens (100); the first reply reports 3000 tokens, the second 10.
    let mut heavy = AiResponse::new("{\"value\": 3}", "m");
    heavy.usage.input_tokens = 2900;
    heavy.usage.output_tokens = 100;
    let mut light = AiResponse::new("{\"value\": 3}", "m");
    light.usage.input_tokens = 9;
    light.usage.output_tokens = 1;
    let model = Clocked::new("openai", vec![heavy, light.clone(), light]);
    let client = limited(&model, per_minute(None, Some(60_000)));
    let options = || AiRequestOptions {
        max_output_tokens: Some(100),
        ..AiRequestOptions::default()
    };
    let start = Instant::now();
    for _ in 0..3 {
        let result = u32::ai(&client, "a b c", "Count the words.")
            .options(options())
            .await;
        assert!(result.is_success(), "{:?}", result.issues());
    }
    let times = model.times_from(start);
    // The first request's 3000 tokens hold the second 3 s, whatever it was estimated at.
    assert_eq!(times[1], ms(3000));
    // The second used 10 tokens: the third waits 10 ms, not its estimate.
    assert_eq!(times[2] - times[1], ms(10));
}

#[tokio::test(start_paused = true)]
async fn every_provider_has_its_own_count_and_a_named_limiter_wins() {
    let openai = Clocked::answering("openai", 3);
    let anthropic = Clocked::answering("anthropic", 3);
    let client = IntentClient::builder()
        .provider(openai.clone())
        .fallback(anthropic.clone())
        .rate_limit(per_minute(Some(60), None))
        .rate_limiter("anthropic", per_minute(Some(30), None))
        .build()
        .unwrap();
    let start = Instant::now();
    let named = |name: &str| AiRequestOptions {
        provider: Some(name.to_owned()),
        ..AiRequestOptions::default()
    };
    for _ in 0..2 {
        for name in ["openai", "anthropic"] {
            let result = u32::ai(&client, "a b c", "Count the words.")
                .options(named(name))
                .await;
            assert!(result.is_success());
        }
    }
    // openai: 60 a minute, so 1 s apart; anthropic: 30 a minute, 2 s apart, and neither waits
    // for the other.
    assert_eq!(openai.times_from(start), [ms(0), ms(1000)]);
    assert_eq!(anthropic.times_from(start), [ms(0), ms(2000)]);
}

#[tokio::test(start_paused = true)]
async fn clients_sharing_a_limiter_share_its_schedule() {
    let key = RateLimiter::new(per_minute(Some(120), None));
    let a = Clocked::answering("openai", 2);
    let b = Clocked::answering("openai", 2);
    let client_a = IntentClient::builder()
        .provider(a.clone())
        .rate_limiter("openai", key.clone())
        .build()
        .unwrap();
    let client_b = IntentClient::builder()
        .provider(b.clone())
        .rate_limiter("openai", key)
        .build()
        .unwrap();
    let start = Instant::now();
    for _ in 0..2 {
        count(&client_a).await;
        count(&client_b).await;
    }
    assert_eq!(a.times_from(start), [ms(0), ms(1000)]);
    assert_eq!(b.times_from(start), [ms(500), ms(1500)]);
}

#[tokio::test]
async fn a_wait_past_the_deadline_ends_the_call_at_once_with_a_limit_issue() {
    let model = Clocked::answering("openai", 2);
    let client = limited(&model, per_minute(Some(1), None));
    let options = || AiRequestOptions {
        deadline: Some(Duration::from_secs(5)),
        ..AiRequestOptions::default()
    };
    let first = u32::ai(&client, "a b c", "Count the words.")
        .options(options())
        .await;
    assert!(first.is_success());
    let started = std::time::Instant::now();
    let second = u32::ai(&client, "a b c", "Count the words.")
        .options(options())
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "refused at once, not after waiting: {:?}",
        started.elapsed()
    );
    assert!(!second.is_success());
    let issue = &second.issues()[0];
    assert_eq!(issue.kind, IssueKind::Limit, "{issue}");
    assert!(
        issue.message.contains("requests_per_minute = 1")
            && issue.message.contains("deadline")
            && issue.message.contains("not sent"),
        "{issue}"
    );
    assert_eq!(model.times.lock().unwrap().len(), 1, "nothing was sent");
}

#[tokio::test]
async fn a_provider_whose_slot_is_past_the_deadline_is_passed_over_for_its_fallback() {
    let primary = Clocked::answering("openai", 2);
    let fallback = Clocked::answering("anthropic", 1);
    let client = IntentClient::builder()
        .provider(primary.clone())
        .fallback(fallback.clone())
        .rate_limiter("openai", per_minute(Some(1), None))
        .build()
        .unwrap();
    let options = || AiRequestOptions {
        deadline: Some(Duration::from_secs(5)),
        ..AiRequestOptions::default()
    };
    assert!(u32::ai(&client, "a b c", "Count the words.")
        .options(options())
        .await
        .is_success());
    let started = std::time::Instant::now();
    let second = u32::ai(&client, "a b c", "Count the words.")
        .options(options())
        .await;
    assert!(second.is_success(), "{:?}", second.issues());
    assert_eq!(second.attempts()[0].provider, "anthropic");
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(primary.times.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_token_wait_past_the_deadline_names_the_token_limit_and_the_estimate() {
    let model = Clocked::answering("openai", 2);
    let client = IntentClient::builder()
        .provider(model)
        .rate_limit(per_minute(None, Some(1000)))
        .build()
        .unwrap();
    let options = AiRequestOptions {
        deadline: Some(Duration::from_secs(5)),
        max_output_tokens: Some(900),
        ..AiRequestOptions::default()
    };
    // The reply reports no usage, so the first request keeps its estimate: over 1000 tokens (1024
    // for the reply alone), charged as the whole minute.
    assert!(count(&client).await.is_success());
    let second = u32::ai(&client, "a b c", "Count the words.")
        .options(options)
        .await;
    let issue = &second.issues()[0];
    assert_eq!(issue.kind, IssueKind::Limit);
    assert!(
        issue.message.contains("tokens_per_minute = 1000")
            && issue.message.contains("estimated at"),
        "{issue}"
    );
}

#[test]
fn a_limiter_for_a_provider_the_client_lacks_is_refused_by_name() {
    let error = IntentClient::builder()
        .provider(ScriptedProvider::new(["{\"value\": 1}"]).with_name("openai"))
        .rate_limiter("anthropic", per_minute(Some(10), None))
        .build()
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("\"anthropic\"") && message.contains("openai"),
        "{message}"
    );
}

#[test]
fn a_zero_limit_is_refused() {
    let error = IntentClient::builder()
        .provider(ScriptedProvider::new(["{\"value\": 1}"]))
        .rate_limit(per_minute(None, Some(0)))
        .build()
        .unwrap_err();
    assert!(
        error.to_string().contains("tokens_per_minute is 0"),
        "{error}"
    );
}

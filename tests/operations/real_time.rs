//! The limiter on the real clock, measured by the server on 127.0.0.1: calls made as fast as a
//! program can make them arrive evenly spaced, and never more in a rolling window than the limit.
//!
//! The everyday test runs 40 calls at 1200 a minute (2 s); the done-when figure, 200 calls at 600
//! a minute (20 s), is `#[ignore]`d here and run by `.ci/run`.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::OpenAiProvider;
use intent_core::ratelimit::RateLimit;

use intent_tests::clocked_server::{most_in_window, span, ClockedServer};

/// Runs `calls` calls through `client`, `workers` at a time.
async fn run_calls(client: &IntentClient, calls: usize, workers: usize) {
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..workers {
        let (client, next) = (client.clone(), next.clone());
        tasks.spawn(async move {
            while next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < calls {
                let result = u32::ai(&client, "a b c", "Count the words.").await;
                assert!(result.is_success(), "{:?}", result.issues());
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
}

/// `calls` calls at `per_minute` as the server saw them: how long they took, and the most in any
/// rolling minute and any rolling `1/per_second`-th of a minute.
async fn measured(per_minute: u32, calls: usize) -> (Duration, usize, usize) {
    let server = ClockedServer::openai().await;
    let client = IntentClient::builder()
        .provider(OpenAiProvider::new("sk-test").with_base_url(server.uri()))
        .rate_limit(RateLimit {
            requests_per_minute: Some(per_minute),
            tokens_per_minute: None,
        })
        .build()
        .unwrap();
    run_calls(&client, calls, 16).await;
    let times = server.times();
    assert_eq!(times.len(), calls);
    (
        span(&times),
        most_in_window(&times, Duration::from_secs(60)),
        most_in_window(&times, Duration::from_secs(1)),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_calls_at_1200_a_minute_are_evenly_spaced_on_the_server() {
    let (took, in_a_minute, in_a_second) = measured(1200, 40).await;
    eprintln!("40 calls at 1200/min: {took:?}; at most {in_a_second} in a second, {in_a_minute} in a minute");
    // 39 intervals of 50 ms.
    assert!(took >= Duration::from_millis(1940), "{took:?}");
    assert!(in_a_minute <= 1200);
    // 20 a second, and at most one more that the network's jitter moves across the window's edge.
    assert!(in_a_second <= 21, "{in_a_second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "20 s on the real clock; .ci/run runs it"]
async fn two_hundred_calls_at_600_a_minute_take_19_seconds_and_never_exceed_the_limit() {
    let (took, in_a_minute, in_a_second) = measured(600, 200).await;
    eprintln!("200 calls at 600/min: {took:?}; at most {in_a_second} in a second, {in_a_minute} in a minute");
    assert!(took >= Duration::from_secs(19), "{took:?}");
    assert!(in_a_minute <= 600, "{in_a_minute}");
    // 10 a second, and at most one more that the network's jitter moves across the window's edge.
    assert!(in_a_second <= 11, "{in_a_second}");
}

//! The rate limiter shared through Redis, against a real `redis-server` on loopback (started by
//! `.ci/run`, or by hand: `redis-server --port 6390 --save '' &` then
//! `INTENT_REDIS_URL=redis://127.0.0.1:6390/`), with several real processes at once.
//! Run with `cargo test -p intent-tests --test redis rate_limit -- --ignored`.

use std::time::{Duration, Instant};

use intent_core::prelude::*;
use intent_core::ratelimit::{RateLimit, RateLimiter};
use intent_core::IssueKind;

use intent_tests::clocked_server::{most_in_window, span, ClockedServer};

fn redis_url() -> String {
    std::env::var("INTENT_REDIS_URL")
        .expect("set INTENT_REDIS_URL to a running redis-server, such as redis://127.0.0.1:6390/")
}

/// A limiter name no earlier run used.
fn fresh_name(test: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("test:{test}:{}:{nanos}", std::process::id())
}

fn per_minute(requests: u32) -> RateLimit {
    RateLimit {
        requests_per_minute: Some(requests),
        tokens_per_minute: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs a redis-server; .ci/run starts one"]
async fn three_processes_sharing_redis_stay_within_one_limit() {
    // 1200 a minute is one request each 50 ms for the fleet together. Each process makes 20
    // calls, 4 at a time: alone, a process would take 0.95 s; sharing, the 60 take 2.95 s.
    let server = ClockedServer::openai().await;
    let name = fresh_name("fleet");
    let mut children = Vec::new();
    for _ in 0..3 {
        children.push(
            tokio::process::Command::new(env!("CARGO_BIN_EXE_intent-fleet-worker"))
                .args([&server.uri(), &redis_url(), &name, "1200", "20", "4"])
                .kill_on_drop(true)
                .spawn()
                .expect("the worker starts"),
        );
    }
    for mut child in children {
        let status = child.wait().await.unwrap();
        assert!(status.success(), "a worker failed: {status}");
    }
    let times = server.times();
    assert_eq!(times.len(), 60);
    let took = span(&times);
    let in_a_second = most_in_window(&times, Duration::from_secs(1));
    let in_a_minute = most_in_window(&times, Duration::from_secs(60));
    eprintln!("3 processes, 60 calls at 1200/min shared: {took:?}; at most {in_a_second} in a second, {in_a_minute} in a minute");
    assert!(took >= Duration::from_millis(2900), "{took:?}");
    assert!(in_a_minute <= 1200);
    // 20 a second, and at most one more that the network's jitter moves across the window's edge.
    assert!(in_a_second <= 21, "{in_a_second}");
}

#[tokio::test]
#[ignore = "needs a redis-server; .ci/run starts one"]
async fn two_limiters_of_one_name_share_one_schedule() {
    let name = fresh_name("shared");
    let a = RateLimiter::redis(&redis_url(), &name, per_minute(120))
        .await
        .unwrap();
    let b = RateLimiter::redis(&redis_url(), &name, per_minute(120))
        .await
        .unwrap();
    let client_a = IntentClient::builder()
        .provider(ScriptedProvider::new(["{\"value\": 1}", "{\"value\": 1}"]))
        .rate_limiter("scripted", a)
        .build()
        .unwrap();
    let client_b = IntentClient::builder()
        .provider(ScriptedProvider::new(["{\"value\": 2}", "{\"value\": 2}"]))
        .rate_limiter("scripted", b)
        .build()
        .unwrap();
    let started = Instant::now();
    let mut at = Vec::new();
    for _ in 0..2 {
        for client in [&client_a, &client_b] {
            assert!(u32::ai(client, "x", "Count.").await.is_success());
            at.push(started.elapsed());
        }
    }
    // 500 ms apart, whichever connection asked.
    for (i, at) in at.iter().enumerate() {
        let slot = Duration::from_millis(500 * i as u64);
        assert!(
            *at >= slot && *at < slot + Duration::from_millis(250),
            "{i}: {at:?}"
        );
    }
}

#[tokio::test]
#[ignore = "needs a redis-server; .ci/run starts one"]
async fn a_shared_wait_past_the_deadline_ends_the_call_with_a_limit_issue() {
    let limiter = RateLimiter::redis(&redis_url(), &fresh_name("deadline"), per_minute(1))
        .await
        .unwrap();
    let model = ScriptedProvider::new(["{\"value\": 1}", "{\"value\": 1}"]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .rate_limiter("scripted", limiter)
        .build()
        .unwrap();
    let options = || AiRequestOptions {
        deadline: Some(Duration::from_secs(3)),
        ..AiRequestOptions::default()
    };
    assert!(u32::ai(&client, "x", "Count.")
        .options(options())
        .await
        .is_success());
    let started = Instant::now();
    let second = u32::ai(&client, "x", "Count.").options(options()).await;
    assert!(started.elapsed() < Duration::from_secs(1));
    let issue = &second.issues()[0];
    assert_eq!(issue.kind, IssueKind::Limit, "{issue}");
    assert!(
        issue.message.contains("requests_per_minute = 1") && issue.message.contains("deadline"),
        "{issue}"
    );
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
#[ignore = "needs a redis-server; .ci/run starts one"]
async fn an_unreachable_redis_is_an_error_at_connect() {
    // Nothing listens on port 1.
    let error = RateLimiter::redis("redis://127.0.0.1:1/", "nowhere", per_minute(10))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("Redis"), "{error}");
}

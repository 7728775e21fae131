//! One process of a fleet, for the Redis rate-limit test: makes `calls` calls to the OpenAI-shaped
//! server at `server_url`, `workers` at a time, through a rate limiter shared in Redis, and exits
//! non-zero when any call fails.
//!
//! `intent-fleet-worker SERVER_URL REDIS_URL LIMITER_NAME REQUESTS_PER_MINUTE CALLS WORKERS`

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use intent_core::prelude::*;
use intent_core::ratelimit::{RateLimit, RateLimiter};

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [server_url, redis_url, name, per_minute, calls, workers] = args.as_slice() else {
        eprintln!("usage: intent-fleet-worker SERVER_URL REDIS_URL LIMITER_NAME REQUESTS_PER_MINUTE CALLS WORKERS");
        return ExitCode::from(2);
    };
    let (Ok(per_minute), Ok(calls), Ok(workers)) = (
        per_minute.parse::<u32>(),
        calls.parse::<usize>(),
        workers.parse::<usize>(),
    ) else {
        eprintln!("REQUESTS_PER_MINUTE, CALLS and WORKERS are numbers");
        return ExitCode::from(2);
    };
    let limit = RateLimit {
        requests_per_minute: Some(per_minute),
        tokens_per_minute: None,
    };
    let limiter = match RateLimiter::redis(redis_url, name, limit).await {
        Ok(limiter) => limiter,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let client = IntentClient::builder()
        .provider(OpenAiProvider::new("sk-fleet").with_base_url(server_url))
        .rate_limiter("openai", limiter)
        .build()
        .expect("the client builds");
    let next = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..workers {
        let (client, next, failures) = (client.clone(), next.clone(), failures.clone());
        tasks.spawn(async move {
            while next.fetch_add(1, Ordering::SeqCst) < calls {
                let result = u32::ai(&client, "a b c", "Count the words.").await;
                if !result.is_success() {
                    eprintln!("a call failed: {:?}", result.issues());
                    failures.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    if failures.load(Ordering::SeqCst) == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

//! The Redis cache, against a real `redis-server` on loopback (started by `.ci/run`, or by hand:
//! `redis-server --port 6390 --save '' &` then `INTENT_REDIS_URL=redis://127.0.0.1:6390/`).
//! Run with `cargo test -p intent-tests --test redis cache -- --ignored`.

use std::sync::Arc;

use intent_core::cache::{Cache, RedisCache};
use intent_core::prelude::*;

fn redis_url() -> String {
    std::env::var("INTENT_REDIS_URL")
        .expect("set INTENT_REDIS_URL to a running redis-server, such as redis://127.0.0.1:6390/")
}

#[tokio::test]
#[ignore = "needs a redis-server; .ci/run starts one"]
async fn two_clients_share_one_redis_cache() {
    let prefix = format!("intent-test:{}:", std::process::id());
    let cache_a = RedisCache::connect(&redis_url())
        .await
        .unwrap()
        .with_prefix(&prefix);
    let cache_b = RedisCache::connect(&redis_url())
        .await
        .unwrap()
        .with_prefix(&prefix);

    let model_a = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client_a = IntentClient::builder()
        .provider(model_a.clone())
        .shared_cache(Arc::new(cache_a) as Arc<dyn Cache>)
        .build()
        .unwrap();
    let model_b = ScriptedProvider::new(Vec::<&str>::new());
    let client_b = IntentClient::builder()
        .provider(model_b.clone())
        .cache(cache_b)
        .build()
        .unwrap();

    assert_eq!(
        u32::ai(&client_a, "a b c", "Count the words.")
            .await
            .value(),
        Some(&3)
    );
    let shared = u32::ai(&client_b, "a b c", "Count the words.").await;
    assert_eq!(shared.value(), Some(&3));
    assert!(shared.attempts()[0].from_cache);
    assert!(
        model_b.requests().is_empty(),
        "the second worker made no model call"
    );
}

#[tokio::test]
#[ignore = "needs a redis-server; .ci/run starts one"]
async fn an_unreachable_redis_is_an_error_at_connect_and_never_a_failed_call_later() {
    // Nothing listens on port 1.
    let error = RedisCache::connect("redis://127.0.0.1:1/")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("redis"), "{error}");
}

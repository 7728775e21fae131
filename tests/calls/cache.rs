//! Reply caches: a hit makes no model call, retries bypass the cache, cached replies are verified
//! again, a disk cache survives a rebuilt client, and a broken cache never fails a call.

use std::sync::Arc;

use intent_core::cache::{Cache, CacheError, CacheKey, CachedReply, DiskCache, MemoryCache};
use intent_core::prelude::*;
use intent_core::provider::BoxFuture;
use intent_core::{AiRequest, ResponseFormat};

fn cached_client(model: &ScriptedProvider, cache: Arc<dyn Cache>) -> IntentClient {
    IntentClient::builder()
        .provider(model.clone())
        .shared_cache(cache)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_cache_hit_makes_no_model_call() {
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(10));
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client = cached_client(&model, cache);
    let first = u32::ai(&client, "a b c", "Count the words.").await;
    let second = u32::ai(&client, "a b c", "Count the words.").await;
    assert_eq!(first.value(), Some(&3));
    assert_eq!(second.value(), Some(&3));
    assert_eq!(model.requests().len(), 1);
    assert!(!first.attempts()[0].from_cache);
    assert!(second.attempts()[0].from_cache);
    assert_eq!(second.usage().calls, 0);
    // A different input is a different key.
    let third = u32::ai(&client, "a b", "Count the words.").await;
    assert!(
        !third.is_success(),
        "the script is empty, so a miss reaches the model"
    );
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_retry_bypasses_the_cache_and_the_passing_reply_is_cached_under_the_first_request() {
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(10));
    let model = ScriptedProvider::new([r#"{"value": "three"}"#, r#"{"value": 3}"#]);
    let client = cached_client(&model, cache.clone());
    let first = u32::ai(&client, "a b c", "Count the words.").await;
    assert_eq!(first.value(), Some(&3));
    assert_eq!(first.attempts().len(), 2);
    assert!(first.attempts().iter().all(|a| !a.from_cache));
    // The next identical call is served from the cache on its first attempt.
    let again = u32::ai(&client, "a b c", "Count the words.").await;
    assert_eq!(again.value(), Some(&3));
    assert!(again.attempts()[0].from_cache);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_cached_reply_that_fails_a_new_rule_goes_back_to_the_model() {
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(10));
    let model = ScriptedProvider::new([r#"{"value": 1500}"#, r#"{"value": 1000}"#]);
    let client = cached_client(&model, cache);
    let first = u32::ai(&client, "lots", "Pick a quantity.").await;
    assert_eq!(first.value(), Some(&1500));
    // A `validate` check is not stated in the prompt (a `require` rule is, which makes it a new
    // request), so the cached reply is found and checked.
    let capped = u32::ai(&client, "lots", "Pick a quantity.")
        .validate(|q| {
            if *q <= 1000 {
                Vec::new()
            } else {
                vec!["Quantity must be at most 1000.".to_owned()]
            }
        })
        .await;
    assert_eq!(capped.value(), Some(&1000));
    assert_eq!(capped.attempts().len(), 2);
    assert!(capped.attempts()[0].from_cache);
    assert_eq!(
        capped.attempts()[0].issues[0].message,
        "Quantity must be at most 1000."
    );
    assert!(!capped.attempts()[1].from_cache);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn the_disk_cache_survives_a_client_rebuilt_from_the_same_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("replies.redb");
    {
        let model = ScriptedProvider::new([r#"{"value": 3}"#]);
        let client = cached_client(&model, Arc::new(DiskCache::open(&path).unwrap()));
        assert_eq!(u32::ai(&client, "a b c", "Count.").await.value(), Some(&3));
    }
    let model = ScriptedProvider::new(Vec::<&str>::new());
    let client = cached_client(&model, Arc::new(DiskCache::open(&path).unwrap()));
    let result = u32::ai(&client, "a b c", "Count.").await;
    assert_eq!(result.value(), Some(&3));
    assert!(result.attempts()[0].from_cache);
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn a_corrupt_disk_cache_file_is_an_open_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.redb");
    std::fs::write(&path, b"this is not a database file at all").unwrap();
    let error = DiskCache::open(&path).unwrap_err();
    assert!(error.to_string().contains("garbage.redb"), "{error}");
}

/// A cache whose every operation fails, as an unreachable server would.
struct Unreachable;

impl Cache for Unreachable {
    fn get<'a>(
        &'a self,
        _: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedReply>, CacheError>> {
        Box::pin(async { Err(CacheError::new("connection refused")) })
    }
    fn put<'a>(
        &'a self,
        _: &'a CacheKey,
        _: &'a CachedReply,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        Box::pin(async { Err(CacheError::new("connection refused")) })
    }
}

#[tokio::test]
async fn an_unreachable_cache_is_a_warning_never_a_failed_call() {
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client = cached_client(&model, Arc::new(Unreachable));
    let result = u32::ai(&client, "a b c", "Count.").await;
    assert_eq!(result.value(), Some(&3));
    assert!(result.issues().is_empty());
}

/// A cache holding an entry that does not decode.
struct Corrupt;

impl Cache for Corrupt {
    fn get<'a>(
        &'a self,
        _: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedReply>, CacheError>> {
        Box::pin(async {
            Err(CacheError::new(
                "a cache entry is corrupt: expected value at line 1",
            ))
        })
    }
    fn put<'a>(
        &'a self,
        _: &'a CacheKey,
        _: &'a CachedReply,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        Box::pin(async { Ok(()) })
    }
}

#[tokio::test]
async fn a_corrupt_entry_is_a_miss() {
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client = cached_client(&model, Arc::new(Corrupt));
    assert_eq!(u32::ai(&client, "a b c", "Count.").await.value(), Some(&3));
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn no_cache_option_skips_the_cache() {
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(10));
    let model = ScriptedProvider::new([r#"{"value": 3}"#, r#"{"value": 4}"#]);
    let client = cached_client(&model, cache);
    let options = AiRequestOptions {
        no_cache: true,
        ..Default::default()
    };
    assert_eq!(
        u32::ai(&client, "x", "Count.")
            .options(options.clone())
            .await
            .value(),
        Some(&3)
    );
    assert_eq!(
        u32::ai(&client, "x", "Count.")
            .options(options)
            .await
            .value(),
        Some(&4)
    );
}

#[test]
fn the_key_covers_every_part_that_shapes_a_reply_and_never_a_key() {
    let base = AiRequest::new("system", "user");
    let key =
        |provider: &str, model: &str, r: &AiRequest| CacheKey::for_request(provider, model, r);
    let k = key("openai", "m", &base);
    assert_ne!(k, key("anthropic", "m", &base));
    assert_ne!(k, key("openai", "n", &base));
    let mut changed = base.clone();
    std::sync::Arc::make_mut(&mut changed.system).push('!');
    assert_ne!(k, key("openai", "m", &changed));
    let mut changed = base.clone();
    std::sync::Arc::make_mut(&mut changed.user).push('!');
    assert_ne!(k, key("openai", "m", &changed));
    let changed = base.clone().with_format(ResponseFormat::JsonObject, None);
    assert_ne!(k, key("openai", "m", &changed));
    let changed = base.clone().with_format(
        ResponseFormat::Text,
        Some(serde_json::json!({"type": "object"})),
    );
    assert_ne!(k, key("openai", "m", &changed));
    let mut changed = base.clone();
    changed.max_output_tokens = Some(10);
    assert_ne!(k, key("openai", "m", &changed));
    let mut changed = base.clone();
    changed.temperature = Some(0.0);
    assert_ne!(k, key("openai", "m", &changed));
    assert_eq!(k, key("openai", "m", &base.clone()));
}

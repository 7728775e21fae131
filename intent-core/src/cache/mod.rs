//! Reply caches: no paying twice for the same request.
//!
//! The key is a hash of everything that shapes a reply (provider, model, system prompt, user
//! message, format, schema, max tokens, temperature, reasoning); never an API key. Only first attempts read
//! the cache; only replies that passed every check are written; a cached reply is verified again
//! before it is returned; the attempt record says it came from the cache. A corrupt or unreachable
//! cache is a warning in the log, never a failed call.
//!
//! Backends: [`MemoryCache`] (an LRU bounded by entries), [`DiskCache`] (survives restarts) and,
//! behind the `redis` feature, `RedisCache` (shared by a fleet of workers).

mod disk;
mod key;
mod memory;
#[cfg(feature = "redis")]
mod redis;

#[cfg(feature = "redis")]
pub use self::redis::RedisCache;
#[cfg(feature = "redis")]
pub(crate) use self::redis::{connect_redis, RedisConnectError};
pub use disk::DiskCache;
pub use key::CacheKey;
pub use memory::MemoryCache;

use serde::{Deserialize, Serialize};

use crate::provider::BoxFuture;
use crate::result::Usage;

/// A reply kept in a cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CachedReply {
    /// The reply's text.
    pub text: String,
    /// The provider that answered.
    pub provider: String,
    /// The model that answered.
    pub model: String,
    /// The usage of the call that produced it (not counted again when served).
    pub usage: Usage,
}

impl CachedReply {
    /// A cached reply.
    pub fn new(
        text: impl Into<String>,
        provider: impl Into<String>,
        model: impl Into<String>,
        usage: Usage,
    ) -> Self {
        CachedReply {
            text: text.into(),
            provider: provider.into(),
            model: model.into(),
            usage,
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<CachedReply, CacheError> {
        serde_json::from_slice(bytes)
            .map_err(|e| CacheError::new(format!("a cache entry is corrupt: {e}")))
    }
}

/// A cache that failed; the call goes on without it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("cache: {message}")]
pub struct CacheError {
    /// What failed.
    pub message: String,
}

impl CacheError {
    /// A cache error with a message.
    pub fn new(message: impl Into<String>) -> Self {
        CacheError {
            message: message.into(),
        }
    }
}

/// A store of verified replies.
///
/// ```
/// use intent_core::cache::{Cache, CacheKey, CachedReply, MemoryCache};
/// use intent_core::Usage;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let cache = MemoryCache::new(100);
/// let key = CacheKey::from_parts(["openai", "gpt-4o-mini", "system", "user"]);
/// cache.put(&key, &CachedReply::new("{\"value\": 1}", "openai", "gpt-4o-mini", Usage::default())).await.unwrap();
/// assert_eq!(cache.get(&key).await.unwrap().unwrap().text, "{\"value\": 1}");
/// # });
/// ```
pub trait Cache: Send + Sync {
    /// The reply stored under `key`, if any.
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedReply>, CacheError>>;

    /// Stores a reply under `key`, replacing any before it. A write is whole or absent.
    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        reply: &'a CachedReply,
    ) -> BoxFuture<'a, Result<(), CacheError>>;
}

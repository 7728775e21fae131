//! [`MemoryCache`]: an in-process LRU, bounded by entries.

use std::num::NonZeroUsize;
use std::sync::Mutex;

use lru::LruCache;

use super::{Cache, CacheError, CacheKey, CachedReply};
use crate::provider::BoxFuture;

/// An in-memory LRU cache holding at most `capacity` replies; the least recently used goes first.
///
/// ```
/// let cache = intent_core::cache::MemoryCache::new(1_000);
/// assert_eq!(cache.capacity(), 1_000);
/// ```
#[derive(Debug)]
pub struct MemoryCache {
    entries: Mutex<LruCache<CacheKey, CachedReply>>,
}

impl MemoryCache {
    /// A cache of at most `capacity` entries (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        MemoryCache {
            entries: Mutex::new(LruCache::new(capacity)),
        }
    }

    /// The most entries kept.
    pub fn capacity(&self) -> usize {
        self.lock().cap().get()
    }

    /// The entries kept now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LruCache<CacheKey, CachedReply>> {
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Cache for MemoryCache {
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedReply>, CacheError>> {
        let found = self.lock().get(key).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        reply: &'a CachedReply,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        self.lock().put(key.clone(), reply.clone());
        Box::pin(async { Ok(()) })
    }
}

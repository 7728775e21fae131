//! [`DiskCache`]: a persistent cache in one file, surviving restarts.

use std::path::Path;

use redb::{Database, ReadableDatabase, TableDefinition};

use super::{Cache, CacheError, CacheKey, CachedReply};
use crate::provider::BoxFuture;

const REPLIES: TableDefinition<&str, &[u8]> = TableDefinition::new("replies");

/// A cache kept in one file (an embedded, transactional store): each write is committed whole, so
/// an interrupted program leaves no entry half written.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let cache = intent_core::cache::DiskCache::open(dir.path().join("replies.redb")).unwrap();
/// # drop(cache);
/// ```
pub struct DiskCache {
    db: Database,
}

impl std::fmt::Debug for DiskCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskCache").finish_non_exhaustive()
    }
}

impl DiskCache {
    /// Opens the cache file at `path`, creating it when missing.
    pub fn open(path: impl AsRef<Path>) -> Result<DiskCache, CacheError> {
        let path = path.as_ref();
        let db = Database::create(path).map_err(|e| {
            CacheError::new(format!(
                "cannot open the cache file {}: {e}",
                path.display()
            ))
        })?;
        Ok(DiskCache { db })
    }

    fn read(&self, key: &CacheKey) -> Result<Option<CachedReply>, CacheError> {
        let tx = self.db.begin_read().map_err(error)?;
        let table = match tx.open_table(REPLIES) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(error(e)),
        };
        match table.get(key.as_str()).map_err(error)? {
            Some(bytes) => CachedReply::decode(bytes.value()).map(Some),
            None => Ok(None),
        }
    }

    fn write(&self, key: &CacheKey, reply: &CachedReply) -> Result<(), CacheError> {
        let bytes = reply.encode();
        let tx = self.db.begin_write().map_err(error)?;
        {
            let mut table = tx.open_table(REPLIES).map_err(error)?;
            table
                .insert(key.as_str(), bytes.as_slice())
                .map_err(error)?;
        }
        tx.commit().map_err(error)
    }
}

fn error(e: impl std::fmt::Display) -> CacheError {
    CacheError::new(format!("disk cache: {e}"))
}

impl Cache for DiskCache {
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedReply>, CacheError>> {
        // A read is a memory-mapped lookup: done inline, it cannot outlive a dropped call.
        let found = self.read(key);
        Box::pin(async move { found })
    }

    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        reply: &'a CachedReply,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        // Inline and transactional: a dropped call leaves either the whole entry or none.
        let written = self.write(key, reply);
        Box::pin(async move { written })
    }
}

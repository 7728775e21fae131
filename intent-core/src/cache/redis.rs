//! [`RedisCache`]: one cache shared by a fleet of workers.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::AsyncCommands;

use super::{Cache, CacheError, CacheKey, CachedReply};
use crate::provider::BoxFuture;

/// A cache in Redis, shared by every client that uses the same server and prefix. Entries expire
/// after a time to live, when one is set. Each entry is one `SET`, so it is whole or absent.
///
/// ```no_run
/// # async fn demo() -> Result<(), intent_core::cache::CacheError> {
/// let cache = intent_core::cache::RedisCache::connect("redis://127.0.0.1:6379/").await?
///     .with_prefix("myapp:intent:")
///     .with_ttl(std::time::Duration::from_secs(86_400));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisCache {
    connection: ConnectionManager,
    prefix: String,
    ttl_seconds: Option<u64>,
}

impl std::fmt::Debug for RedisCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCache")
            .field("prefix", &self.prefix)
            .field("ttl_seconds", &self.ttl_seconds)
            .finish_non_exhaustive()
    }
}

/// Why [`connect_redis`] could not give a connection.
pub(crate) enum RedisConnectError {
    /// The URL does not name a Redis server.
    Url(redis::RedisError),
    /// The server did not answer in time, or refused.
    Connect(redis::RedisError),
}

/// A connection to the Redis server at `url` (`redis://host:port/db`) that reconnects on its
/// own: connecting, and each command, give up after `timeout`, with one retry. The cache and
/// the shared rate limiter connect through it.
pub(crate) async fn connect_redis(
    url: &str,
    timeout: Duration,
) -> Result<ConnectionManager, RedisConnectError> {
    let client = redis::Client::open(url).map_err(RedisConnectError::Url)?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
        .set_number_of_retries(1);
    ConnectionManager::new_with_config(client, config)
        .await
        .map_err(RedisConnectError::Connect)
}

impl RedisCache {
    /// The connection and command timeout.
    pub const TIMEOUT: Duration = Duration::from_millis(500);

    /// Connects to the server at `url` (`redis://host:port/db`); reconnects on its own later.
    ///
    /// Connecting, and each command, give up after [`Self::TIMEOUT`], so an unreachable server
    /// slows a call by at most that much.
    pub async fn connect(url: &str) -> Result<RedisCache, CacheError> {
        let connection = connect_redis(url, Self::TIMEOUT).await.map_err(|e| {
            CacheError::new(match e {
                RedisConnectError::Url(e) => format!("redis: invalid URL: {e}"),
                RedisConnectError::Connect(e) => format!(
                    "redis: cannot connect within {} ms: {e}",
                    Self::TIMEOUT.as_millis()
                ),
            })
        })?;
        Ok(RedisCache {
            connection,
            prefix: "intent:reply:".to_owned(),
            ttl_seconds: None,
        })
    }

    /// Keys are `prefix` + the request hash (default `intent:reply:`).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Entries expire after `ttl` (at least one second).
    pub fn with_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.ttl_seconds = Some(ttl.as_secs().max(1));
        self
    }

    fn key(&self, key: &CacheKey) -> String {
        format!("{}{}", self.prefix, key.as_str())
    }
}

impl Cache for RedisCache {
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedReply>, CacheError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let bytes: Option<Vec<u8>> = connection
                .get(self.key(key))
                .await
                .map_err(|e| CacheError::new(format!("redis: {e}")))?;
            bytes.map(|b| CachedReply::decode(&b)).transpose()
        })
    }

    fn put<'a>(
        &'a self,
        key: &'a CacheKey,
        reply: &'a CachedReply,
    ) -> BoxFuture<'a, Result<(), CacheError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let bytes = reply.encode();
            let result: redis::RedisResult<()> = match self.ttl_seconds {
                Some(ttl) => connection.set_ex(self.key(key), bytes, ttl).await,
                None => connection.set(self.key(key), bytes).await,
            };
            result.map_err(|e| CacheError::new(format!("redis: {e}")))
        })
    }
}

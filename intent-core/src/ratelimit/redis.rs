//! The schedule of a [`RateLimiter`] kept in Redis, shared by every process that names the same
//! limiter.
//!
//! One hash per limiter (`intent:ratelimit:{name}`) holds the schedule's next free times, in
//! microseconds of the Redis server's clock: `r` (requests), `t` (tokens), `h` (a hold after a
//! 429). One Lua script does each step atomically, so two processes can never take the same slot:
//! it reads the time with `TIME` inside the script, takes the latest of the free times, refuses
//! when that is further away than the caller may wait, and otherwise pushes the free times on by
//! the request's share, exactly as `schedule.rs` does in process (the same GCRA with no burst:
//! evenly spaced requests, so the limit holds over every rolling window, at the window's edge
//! too). The script returns the wait from the server's now, which the caller sleeps on its own
//! monotonic clock: no process's wall clock is ever compared with another's, and the reply's
//! network delay only makes a request later, never earlier.
//!
//! The hash expires a minute after its last slot. The script is sent with each call (`EVAL`);
//! Redis keeps its compiled form. Every process naming one limiter should give it the same
//! [`RateLimit`]. When Redis cannot be reached, the limiter paces its own process alone (with a
//! warning) rather than failing calls, as the Redis cache does.

use std::time::Duration;

use redis::aio::ConnectionManager;
use tokio::time::Instant;

use super::schedule::{Bound, TooLate};
use super::{RateLimit, RateLimiter};
use crate::cache::{connect_redis, RedisConnectError};
use crate::error::IntentError;

/// One step on the shared schedule. `ARGV[1]` is the step:
/// - `reserve`, request µs, token µs, not-before µs from now, max wait µs (−1: none) →
///   `{granted, wait µs, bound}` (bound: 0 none, 1 requests, 2 tokens, 3 hold, 4 not-before);
/// - `tokens`, signed µs: moves the token schedule (a correction from a reply's usage);
/// - `hold`, µs from now: holds every request until then.
const SCRIPT: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local function put(field, value)
  redis.call('HSET', KEYS[1], field, string.format('%.0f', value))
end
local function keep_until(at)
  local ttl = math.ceil((at - now) / 1000) + 60000
  if ttl > redis.call('PTTL', KEYS[1]) then
    redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl))
  end
end
local step = ARGV[1]
if step == 'reserve' then
  local request_us, token_us = tonumber(ARGV[2]), tonumber(ARGV[3])
  local not_before, max_wait = tonumber(ARGV[4]), tonumber(ARGV[5])
  local free = redis.call('HMGET', KEYS[1], 'r', 't', 'h')
  local start, bound = now, 0
  local candidates = {tonumber(free[1]) or 0, tonumber(free[2]) or 0, tonumber(free[3]) or 0, now + not_before}
  for i = 1, 4 do
    if candidates[i] > start then start, bound = candidates[i], i end
  end
  local wait = start - now
  if max_wait >= 0 and bound ~= 0 and wait > max_wait then
    return {0, wait, bound}
  end
  local last = start
  if request_us > 0 then put('r', start + request_us); last = start + request_us end
  if token_us > 0 then put('t', start + token_us); last = math.max(last, start + token_us) end
  keep_until(last)
  return {1, wait, bound}
elseif step == 'tokens' then
  local free = tonumber(redis.call('HGET', KEYS[1], 't'))
  if free then
    local delta = tonumber(ARGV[2])
    local moved = free + delta
    -- No credit for time already past: as the in-process schedule does.
    if delta < 0 then moved = math.max(moved, math.min(now, free)) end
    put('t', moved)
  end
  return {1, 0, 0}
elseif step == 'hold' then
  local until_us = now + tonumber(ARGV[2])
  local held = tonumber(redis.call('HGET', KEYS[1], 'h')) or 0
  if until_us > held then put('h', until_us); keep_until(until_us) end
  return {1, 0, 0}
end
return redis.error_reply('unknown step')
";

/// The Redis side of a shared limiter.
pub(super) struct Shared {
    connection: ConnectionManager,
    key: String,
    limit: RateLimit,
}

/// The connection and command timeout.
const TIMEOUT: Duration = Duration::from_millis(500);

impl RateLimiter {
    /// A limiter shared through the Redis server at `url` by every process that names the same
    /// `name` (use one name per provider key, such as `openai-prod`), each with the same `limit`.
    ///
    /// Connecting gives up after 500 ms with an error; later, a step Redis does not answer within
    /// 500 ms is paced in this process alone, with a warning.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), intent_core::IntentError> {
    /// use intent_core::prelude::*;
    /// use intent_core::ratelimit::{RateLimit, RateLimiter};
    ///
    /// let limit = RateLimit { requests_per_minute: Some(600), tokens_per_minute: Some(150_000) };
    /// let client = IntentClient::builder()
    ///     .provider(OpenAiProvider::from_env()?)
    ///     .rate_limiter("openai", RateLimiter::redis("redis://127.0.0.1:6379/", "openai-prod", limit).await?)
    ///     .build()?;
    /// # let _ = client; Ok(()) }
    /// ```
    pub async fn redis(
        url: &str,
        name: &str,
        limit: RateLimit,
    ) -> Result<RateLimiter, IntentError> {
        limit.check()?;
        let connection = connect_redis(url, TIMEOUT).await.map_err(|e| {
            IntentError::Config(match e {
                RedisConnectError::Url(e) => format!("rate limiter: invalid Redis URL: {e}"),
                RedisConnectError::Connect(e) => format!(
                    "rate limiter: cannot connect to Redis within {} ms: {e}",
                    TIMEOUT.as_millis()
                ),
            })
        })?;
        let shared = Shared {
            connection,
            key: format!("intent:ratelimit:{name}"),
            limit,
        };
        Ok(RateLimiter::with_backend(limit, Some(shared)))
    }
}

impl Shared {
    pub(super) fn key(&self) -> &str {
        &self.key
    }

    async fn step<const N: usize>(
        &self,
        args: [i64; N],
        step: &str,
    ) -> redis::RedisResult<[i64; 3]> {
        let mut connection = self.connection.clone();
        let mut command = redis::cmd("EVAL");
        command.arg(SCRIPT).arg(1).arg(&self.key).arg(step);
        for arg in args {
            command.arg(arg);
        }
        let reply: Vec<i64> = command.query_async(&mut connection).await?;
        match reply.as_slice() {
            &[a, b, c] => Ok([a, b, c]),
            _ => Err(redis::RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "the rate-limit script gave an unexpected reply",
            ))),
        }
    }

    /// Reserves a slot on the shared schedule: its time, or how long it would have waited; an
    /// error when Redis did not answer.
    pub(super) async fn reserve(
        &self,
        tokens: u64,
        not_before: Option<(Instant, Bound)>,
        max_wait: Option<Duration>,
    ) -> redis::RedisResult<Result<Instant, TooLate>> {
        let request_us = self.limit.request_interval().map_or(0, micros_up);
        let token_us = self.limit.token_time(tokens).map_or(0, micros_up);
        let asked = Instant::now();
        let not_before_us = not_before.map_or(0, |(at, _)| micros_up(at - asked));
        let max_wait_us = max_wait.map_or(-1, micros_down);
        let [granted, wait_us, bound] = self
            .step(
                [request_us, token_us, not_before_us, max_wait_us],
                "reserve",
            )
            .await?;
        let wait = Duration::from_micros(u64::try_from(wait_us).unwrap_or(0));
        if granted == 1 {
            // The wait runs from when Redis answered: later than the server's slot by the reply's
            // network time, never earlier.
            return Ok(Ok(Instant::now() + wait));
        }
        let bound = match bound {
            1 => Bound::Requests,
            2 => Bound::Tokens,
            3 => Bound::ServerDelay,
            _ => not_before.map_or(Bound::Requests, |(_, why)| why),
        };
        Ok(Err(TooLate { wait, bound }))
    }

    /// Moves the shared token schedule by `delta` tokens (used − charged).
    pub(super) async fn correct_tokens(&self, delta: i64) {
        let Some(share) = self.limit.token_time(delta.unsigned_abs()) else {
            return;
        };
        let us = micros_up(share);
        let signed = if delta >= 0 { us } else { -us };
        if let Err(error) = self.step([signed], "tokens").await {
            tracing::warn!(key = %self.key, %error, "the shared rate limiter in Redis failed to take a usage correction");
        }
    }

    /// Holds every process's requests for `delay`.
    pub(super) async fn hold(&self, delay: Duration) {
        if let Err(error) = self.step([micros_up(delay)], "hold").await {
            tracing::warn!(key = %self.key, %error, "the shared rate limiter in Redis failed to take a retry-after");
        }
    }
}

fn micros_up(duration: Duration) -> i64 {
    i64::try_from(duration.as_nanos().div_ceil(1000)).unwrap_or(i64::MAX)
}

fn micros_down(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}

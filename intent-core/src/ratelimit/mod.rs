//! Rate limits: requests and tokens a minute, per provider key, waited for rather than failed,
//! within the call's deadline, and slowed further by what the provider's headers report.
//!
//! # Setting one
//!
//! [`IntentClientBuilder::rate_limit`](crate::IntentClientBuilder::rate_limit) gives every
//! provider of the client its own limiter with the same [`RateLimit`] (limits belong to a key, and
//! each provider has its own). [`IntentClientBuilder::rate_limiter`](crate::IntentClientBuilder::rate_limiter)
//! sets one provider's limiter by its name: another limit, or a [`RateLimiter`] shared with other
//! clients of the same key (clones share their state), or, with feature `redis`, one shared by
//! every process of a fleet through Redis (`RateLimiter::redis`).
//!
//! ```
//! use intent_core::prelude::*;
//! use intent_core::ratelimit::{RateLimit, RateLimiter};
//!
//! let shared = RateLimiter::new(RateLimit { requests_per_minute: Some(500), tokens_per_minute: Some(200_000) });
//! let client = IntentClient::builder()
//!     .provider(ScriptedProvider::new(["{\"value\": 1}"]).with_name("openai"))
//!     .fallback(ScriptedProvider::new(["{\"value\": 2}"]).with_name("anthropic"))
//!     // Every provider: 600 requests a minute, each with its own count.
//!     .rate_limit(RateLimit { requests_per_minute: Some(600), tokens_per_minute: None })
//!     // This one instead: the limiter other clients of the same key use too.
//!     .rate_limiter("openai", shared.clone())
//!     .build()
//!     .unwrap();
//! # let _ = client;
//! ```
//!
//! # How it paces
//!
//! Requests are spaced evenly: one every `60 s / requests_per_minute`, and each request's tokens
//! take their share of the minute (`tokens × 60 s / tokens_per_minute`) before the next may start
//! (GCRA with no burst, see `schedule.rs`). So any rolling minute holds at most
//! `requests_per_minute` requests, and a pause never turns into a burst. Providers enforce their
//! per-minute limits over shorter spans too, which even spacing never trips.
//!
//! Each request is charged an estimate before it is sent ([`estimate_tokens`]: its bytes over
//! four, 1,600 tokens an attached image and 3,000 a PDF page, plus its `max_output_tokens` or
//! 1,024 when it sets none); a request estimated above
//! `tokens_per_minute` is charged the whole minute, the most any request can have. When the reply
//! reports its usage, the schedule is moved by the difference. A failed request keeps its charge
//! (providers count refused requests too).
//!
//! # Waiting, and the deadline
//!
//! A request waits for its slot. When the call has a deadline and the slot comes after it, the
//! request is not sent and the call ends at once with an [`IssueKind::Limit`](crate::IssueKind::Limit)
//! issue that names the limit that held it (`requests_per_minute = 600`, the provider's headers, or
//! its `retry-after`). Attempts and fallbacks are paced by the limiter of the provider they go to,
//! and a provider whose slot comes after the deadline is passed over for its fallback, as a failed
//! one is. A judge's request is paced by its provider's limiter too, and ends at the call's deadline
//! like the rest of the call. A call dropped while it waits gives its slot up unused; the schedule
//! does not move back for it.
//!
//! # Adapting to the provider
//!
//! Each reply's rate-limit headers ([`RateLimitStatus`](crate::provider::RateLimitStatus): OpenAI's `x-ratelimit-*`, Anthropic's
//! `anthropic-ratelimit-*`; see `provider/transport/rate_limit_headers.rs` for the names and
//! formats) reach the limiter on [`AiResponse::rate_limit`](crate::provider::AiResponse::rate_limit):
//! the transport reads them from every successful reply, and the limiter mirrors the provider's
//! budget from them (`mirror.rs`). When what remains would not cover the next request, it waits for
//! the budget to refill, before the provider has to answer 429. This works with no configured
//! figure too: `RateLimit::default()` paces by the headers alone. A 429 that outlasts the
//! transport's retries holds every request of that limiter for its `retry-after`.
//!
//! # Across processes
//!
//! With feature `redis`, `RateLimiter::redis` keeps the schedule in one Redis hash, updated by an
//! atomic Lua script that reads the time with Redis `TIME`, so the processes' clocks never enter
//! into it (see `redis.rs`). The mirror of the provider's headers stays in each process.

mod estimate;
mod mirror;
#[cfg(feature = "redis")]
mod redis;
mod schedule;

pub use estimate::estimate_tokens;

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::error::IntentError;
use crate::provider::{AiResponse, ProviderError, ProviderErrorKind};
use crate::request::AiRequest;
use mirror::{Granted, Mirror};
use schedule::{Bound, Schedule, TooLate};

/// Requests and tokens a minute that one provider key may use. `None` is no limit on that
/// dimension; `RateLimit::default()` sets none and paces by the provider's headers alone.
///
/// ```
/// use intent_core::ratelimit::RateLimit;
///
/// let limit = RateLimit { requests_per_minute: Some(600), tokens_per_minute: Some(150_000) };
/// assert_eq!(RateLimit::default().requests_per_minute, None);
/// # let _ = limit;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RateLimit {
    /// The most requests sent a minute (spaced evenly: one each `60 s / n`).
    pub requests_per_minute: Option<u32>,
    /// The most tokens (input and output, as estimated then as reported) a minute.
    pub tokens_per_minute: Option<u32>,
}

impl RateLimit {
    /// The space between two requests.
    fn request_interval(&self) -> Option<Duration> {
        let rpm = self.requests_per_minute.filter(|&n| n > 0)?;
        Some(Duration::from_nanos(60_000_000_000 / u64::from(rpm)))
    }

    /// The share of a minute `tokens` take, rounded up to the nanosecond.
    fn token_time(&self, tokens: u64) -> Option<Duration> {
        let tpm = u128::from(self.tokens_per_minute.filter(|&n| n > 0)?);
        let nanos = (u128::from(tokens) * 60_000_000_000).div_ceil(tpm);
        Some(Duration::from_nanos(
            u64::try_from(nanos).unwrap_or(u64::MAX),
        ))
    }

    /// What a request estimated at `tokens` is charged: at most a minute's tokens.
    fn charge(&self, tokens: u64) -> u64 {
        self.tokens_per_minute
            .map_or(tokens, |tpm| tokens.min(u64::from(tpm)))
    }

    fn check(&self) -> Result<(), IntentError> {
        for (name, value) in [
            ("requests_per_minute", self.requests_per_minute),
            ("tokens_per_minute", self.tokens_per_minute),
        ] {
            if value == Some(0) {
                return Err(IntentError::Config(format!(
                    "the rate limit's {name} is 0, which admits nothing; set None for no limit"
                )));
            }
        }
        Ok(())
    }

    /// The words for what held a request back.
    fn describe(&self, bound: Bound, tokens: u64) -> String {
        match bound {
            Bound::Requests => format!(
                "the rate limit (requests_per_minute = {})",
                self.requests_per_minute.unwrap_or_default()
            ),
            Bound::Tokens => format!(
                "the rate limit (tokens_per_minute = {}; this request is estimated at {tokens} tokens)",
                self.tokens_per_minute.unwrap_or_default()
            ),
            Bound::ServerDelay => "the provider's retry-after on its last 429".to_owned(),
            Bound::ProviderRequests => {
                "the provider's rate-limit headers (no request left until its budget refills)"
                    .to_owned()
            }
            Bound::ProviderTokens => format!(
                "the provider's rate-limit headers (fewer than the {tokens} tokens this request is estimated at left until its budget refills)"
            ),
        }
    }
}

/// A rate limiter for one provider key: in this process, or with feature `redis` shared by a
/// fleet. Cheap to clone; clones share the limiter, so one limiter may serve several clients of
/// the same key.
///
/// ```
/// use intent_core::ratelimit::{RateLimit, RateLimiter};
///
/// let limiter = RateLimiter::new(RateLimit { requests_per_minute: Some(60), ..Default::default() });
/// assert_eq!(limiter.limit().requests_per_minute, Some(60));
/// ```
#[derive(Clone)]
pub struct RateLimiter {
    inner: Arc<Inner>,
}

struct Inner {
    limit: RateLimit,
    /// The schedule (the whole limiter in process; with Redis, used only while Redis cannot be
    /// reached) and the mirror of the provider's headers.
    local: Mutex<Local>,
    #[cfg(feature = "redis")]
    shared: Option<redis::Shared>,
}

struct Local {
    schedule: Schedule,
    mirror: Mirror,
}

impl fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("RateLimiter");
        debug.field("limit", &self.inner.limit);
        #[cfg(feature = "redis")]
        debug.field("redis_key", &self.inner.shared.as_ref().map(|s| s.key()));
        debug.finish()
    }
}

impl From<RateLimit> for RateLimiter {
    fn from(limit: RateLimit) -> Self {
        RateLimiter::new(limit)
    }
}

/// A granted request: what it was charged, for the correction from its reply.
#[derive(Debug)]
pub(crate) struct Permit {
    tokens: u64,
    granted: Granted,
}

impl RateLimiter {
    /// A limiter in this process.
    pub fn new(limit: RateLimit) -> RateLimiter {
        RateLimiter::with_backend(
            limit,
            #[cfg(feature = "redis")]
            None,
        )
    }

    fn with_backend(
        limit: RateLimit,
        #[cfg(feature = "redis")] shared: Option<redis::Shared>,
    ) -> RateLimiter {
        RateLimiter {
            inner: Arc::new(Inner {
                limit,
                local: Mutex::new(Local {
                    schedule: Schedule::new(limit),
                    mirror: Mirror::default(),
                }),
                #[cfg(feature = "redis")]
                shared,
            }),
        }
    }

    /// The limit it keeps.
    pub fn limit(&self) -> RateLimit {
        self.inner.limit
    }

    fn local(&self) -> MutexGuard<'_, Local> {
        // The state stays whole whatever panicked while it was held: every update is one store.
        self.inner
            .local
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits for `request`'s slot; refused, with nothing sent, when the slot comes after
    /// `deadline`.
    pub(crate) async fn acquire(
        &self,
        request: &AiRequest,
        deadline: Option<std::time::Instant>,
    ) -> Result<Permit, ProviderError> {
        let limit = self.inner.limit;
        let estimate = estimate_tokens(request);
        let tokens = limit.charge(estimate);
        let max_wait = deadline.map(|at| at.saturating_duration_since(std::time::Instant::now()));
        let (at, granted) = self
            .reserve(tokens, max_wait)
            .await
            .map_err(|too_late| {
                ProviderError::new(
                    ProviderErrorKind::RateLimitWait,
                    format!(
                        "{} would hold this request {:.1} s, past the call's deadline ({:.1} s left); it was not sent",
                        limit.describe(too_late.bound, estimate),
                        too_late.wait.as_secs_f64(),
                        max_wait.unwrap_or_default().as_secs_f64(),
                    ),
                )
            })?;
        tokio::time::sleep_until(at).await;
        Ok(Permit { tokens, granted })
    }

    /// Reserves a slot for a request charged `tokens`: in Redis when the limiter is shared (and
    /// Redis answers), else here, where the mirror's check, the slot and the grant are one step.
    async fn reserve(
        &self,
        tokens: u64,
        max_wait: Option<Duration>,
    ) -> Result<(Instant, Granted), TooLate> {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.inner.shared {
            let not_before = self.local().mirror.ready_at(Instant::now(), tokens);
            match shared.reserve(tokens, not_before, max_wait).await {
                Ok(reserved) => {
                    return reserved.map(|at| (at, self.local().mirror.grant(tokens)));
                }
                Err(error) => tracing::warn!(
                    key = shared.key(),
                    %error,
                    "the shared rate limiter in Redis failed; pacing this process alone"
                ),
            }
        }
        let now = Instant::now();
        let mut local = self.local();
        let not_before = local.mirror.ready_at(now, tokens);
        let at = local.schedule.reserve(now, tokens, not_before, max_wait)?;
        Ok((at, local.mirror.grant(tokens)))
    }

    /// Corrects the charge from the reply's usage and takes in its rate-limit headers; after a
    /// 429 that outlasted the transport's retries, holds every request for its `retry-after`.
    pub(crate) async fn settle(
        &self,
        permit: Permit,
        outcome: Result<&AiResponse, &ProviderError>,
    ) {
        let now = Instant::now();
        match outcome {
            Ok(response) => {
                let used = response.usage.total_tokens();
                // A reply without usage keeps its estimate.
                let delta = if used == 0 {
                    0
                } else {
                    i64::try_from(used)
                        .unwrap_or(i64::MAX)
                        .saturating_sub(i64::try_from(permit.tokens).unwrap_or(i64::MAX))
                };
                {
                    let mut local = self.local();
                    if let Some(status) = &response.rate_limit {
                        local
                            .mirror
                            .observe(now, status, permit.granted, permit.tokens);
                    }
                    local.schedule.correct_tokens(now, delta);
                }
                #[cfg(feature = "redis")]
                if let Some(shared) = &self.inner.shared {
                    if delta != 0 {
                        shared.correct_tokens(delta).await;
                    }
                }
            }
            Err(error) => {
                let Some(delay) = error
                    .retry_after
                    .filter(|_| error.kind == ProviderErrorKind::RateLimited)
                else {
                    return;
                };
                self.local().schedule.hold(now + delay);
                #[cfg(feature = "redis")]
                if let Some(shared) = &self.inner.shared {
                    shared.hold(delay).await;
                }
            }
        }
    }
}

/// Each provider's limiter, in the client's provider order.
#[derive(Debug, Clone, Default)]
pub(crate) struct RateLimiters(Vec<Option<RateLimiter>>);

impl RateLimiters {
    /// The limiters of a client's providers: the one named for a provider, else one of its own
    /// with `every`, else none.
    pub(crate) fn build(
        provider_names: &[&str],
        every: Option<RateLimit>,
        named: Vec<(String, RateLimiter)>,
    ) -> Result<RateLimiters, IntentError> {
        if let Some(limit) = every {
            limit.check()?;
        }
        for (name, limiter) in &named {
            if !provider_names.contains(&name.as_str()) {
                return Err(IntentError::Config(format!(
                    "a rate limiter is set for the provider \"{name}\", but this client has: {}",
                    provider_names.join(", ")
                )));
            }
            limiter.limit().check()?;
        }
        let limiters = provider_names
            .iter()
            .map(|provider| {
                named
                    .iter()
                    .rev()
                    .find(|(name, _)| name == provider)
                    .map(|(_, limiter)| limiter.clone())
                    .or_else(|| every.map(RateLimiter::new))
            })
            .collect();
        Ok(RateLimiters(limiters))
    }

    /// The limiter of the provider at `index`, when it has one.
    pub(crate) fn get(&self, index: usize) -> Option<&RateLimiter> {
        self.0.get(index).and_then(Option::as_ref)
    }
}

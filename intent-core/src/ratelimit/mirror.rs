//! The provider's own budget for the key, as its rate-limit headers last reported it: what slows
//! the limiter before the provider answers 429.
//!
//! Both OpenAI and Anthropic replenish continuously, so each reply's headers give, per dimension,
//! what remains now and when the budget is full again. The mirror keeps the last report and counts
//! what this limiter granted after the request that reply answered (the server had not seen those
//! yet). A request of cost `c` may go when `remaining + refill × elapsed − granted since ≥ c`; the
//! refill rate is `(limit − remaining) / reset` when the headers give the limit, else nothing
//! refills until the reset. Once the reset time has passed the report is dropped: the budget is
//! full and only the configured limit applies.

use std::time::Duration;

use tokio::time::Instant;

use super::schedule::Bound;
use crate::provider::RateLimitStatus;

/// What the limiter had granted before one request, kept by that request's permit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Granted {
    requests: u64,
    tokens: u64,
}

/// One dimension of the provider's budget, as last reported.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    seen_at: Instant,
    remaining: u64,
    /// Units refilled per second, when known.
    refill_per_second: Option<f64>,
    full_at: Instant,
    /// What the limiter had granted up to and including the reported request.
    granted_then: u64,
}

impl Bucket {
    fn of(
        seen_at: Instant,
        limit: Option<u64>,
        remaining: Option<u64>,
        reset: Option<Duration>,
        granted_then: u64,
    ) -> Option<Bucket> {
        let remaining = remaining?;
        // Without a reset, a minute: both providers' limits are per minute.
        let reset = reset.unwrap_or(Duration::from_secs(60));
        let refill_per_second = limit.and_then(|limit| {
            let rate = if limit > remaining && !reset.is_zero() {
                (limit - remaining) as f64 / reset.as_secs_f64()
            } else {
                limit as f64 / 60.0
            };
            (rate > 0.0).then_some(rate)
        });
        Some(Bucket {
            seen_at,
            remaining,
            refill_per_second,
            full_at: seen_at + reset,
            granted_then,
        })
    }

    /// When this budget covers `cost` more, with `granted` the limiter's running total; `None`
    /// when it does now.
    fn ready_at(&self, now: Instant, cost: u64, granted: u64) -> Option<Instant> {
        if now >= self.full_at {
            return None;
        }
        let spent = granted.saturating_sub(self.granted_then);
        let need = cost.saturating_add(spent).saturating_sub(self.remaining);
        if need == 0 {
            return None;
        }
        let ready = match self.refill_per_second {
            Some(rate) => Duration::try_from_secs_f64(need as f64 / rate)
                .map_or(self.full_at, |refill| {
                    (self.seen_at + refill).min(self.full_at)
                }),
            None => self.full_at,
        };
        (ready > now).then_some(ready)
    }
}

/// The provider's budget for the key, and what this limiter granted.
#[derive(Debug, Default)]
pub(crate) struct Mirror {
    granted: Granted,
    requests: Option<Bucket>,
    tokens: Option<Bucket>,
}

impl Mirror {
    /// When the provider's budget covers one more request of `tokens`, and which dimension it
    /// waits for; `None` when it does now (or nothing was reported).
    pub(crate) fn ready_at(&mut self, now: Instant, tokens: u64) -> Option<(Instant, Bound)> {
        self.requests = self.requests.filter(|b| now < b.full_at);
        self.tokens = self.tokens.filter(|b| now < b.full_at);
        let requests = self
            .requests
            .and_then(|b| b.ready_at(now, 1, self.granted.requests))
            .map(|at| (at, Bound::ProviderRequests));
        let tokens = self
            .tokens
            .and_then(|b| b.ready_at(now, tokens, self.granted.tokens))
            .map(|at| (at, Bound::ProviderTokens));
        match (requests, tokens) {
            (Some(r), Some(t)) => Some(if t.0 > r.0 { t } else { r }),
            (r, t) => r.or(t),
        }
    }

    /// Counts a granted request of `tokens`; the totals before it, for its permit.
    pub(crate) fn grant(&mut self, tokens: u64) -> Granted {
        let before = self.granted;
        self.granted.requests = self.granted.requests.saturating_add(1);
        self.granted.tokens = self.granted.tokens.saturating_add(tokens);
        before
    }

    /// Takes in the status reported with the reply to the request granted after `before`, charged
    /// `tokens`.
    pub(crate) fn observe(
        &mut self,
        now: Instant,
        status: &RateLimitStatus,
        before: Granted,
        tokens: u64,
    ) {
        if let Some(bucket) = Bucket::of(
            now,
            status.requests_limit,
            status.requests_remaining,
            status.requests_reset,
            before.requests.saturating_add(1),
        ) {
            self.requests = Some(bucket);
        }
        if let Some(bucket) = Bucket::of(
            now,
            status.tokens_limit,
            status.tokens_remaining,
            status.tokens_reset,
            before.tokens.saturating_add(tokens),
        ) {
            self.tokens = Some(bucket);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(limit: u64, remaining: u64, reset_ms: u64) -> RateLimitStatus {
        RateLimitStatus {
            requests_limit: Some(limit),
            requests_remaining: Some(remaining),
            requests_reset: Some(Duration::from_millis(reset_ms)),
            ..RateLimitStatus::default()
        }
    }

    /// A mirror that granted one request of `tokens` and then heard `report` about it, now.
    fn reported(report: &RateLimitStatus, tokens: u64) -> (Instant, Mirror) {
        let now = Instant::now();
        let mut mirror = Mirror::default();
        let before = mirror.grant(tokens);
        mirror.observe(now, report, before, tokens);
        (now, mirror)
    }

    /// How long the mirror holds a request of `tokens` sent at `now`, and on which bound.
    fn wait(mirror: &mut Mirror, now: Instant, tokens: u64) -> Option<(Duration, Bound)> {
        mirror
            .ready_at(now, tokens)
            .map(|(at, bound)| (at - now, bound))
    }

    #[test]
    fn nothing_reported_holds_nothing() {
        let mut mirror = Mirror::default();
        assert_eq!(mirror.ready_at(Instant::now(), 10_000), None);
    }

    #[test]
    fn an_empty_budget_waits_for_one_refill() {
        // 60 a minute, none left, full again in 60 s: one request refills each second.
        let (now, mut mirror) = reported(&status(60, 0, 60_000), 0);
        assert_eq!(
            wait(&mut mirror, now, 0),
            Some((Duration::from_secs(1), Bound::ProviderRequests))
        );
    }

    #[test]
    fn grants_after_the_report_spend_what_remains() {
        let (now, mut mirror) = reported(&status(60, 2, 58_000), 0);
        mirror.grant(0);
        assert_eq!(mirror.ready_at(now, 0), None, "one of two left");
        mirror.grant(0);
        assert_eq!(
            wait(&mut mirror, now, 0).map(|(wait, _)| wait),
            Some(Duration::from_secs(1))
        );
        // Past the reset, the report is forgotten.
        assert_eq!(mirror.ready_at(now + Duration::from_secs(59), 0), None);
    }

    #[test]
    fn tokens_wait_for_the_shortfall_to_refill() {
        let report = RateLimitStatus {
            tokens_limit: Some(60_000),
            tokens_remaining: Some(500),
            tokens_reset: Some(Duration::from_millis(59_500)),
            ..RateLimitStatus::default()
        };
        let (now, mut mirror) = reported(&report, 1000);
        // 1500 wanted, 500 left, 1000 a second refilled: 1 s.
        assert_eq!(
            wait(&mut mirror, now, 1500),
            Some((Duration::from_secs(1), Bound::ProviderTokens))
        );
    }

    #[test]
    fn without_a_limit_nothing_refills_before_the_reset() {
        let report = RateLimitStatus {
            requests_remaining: Some(0),
            requests_reset: Some(Duration::from_secs(7)),
            ..RateLimitStatus::default()
        };
        let (now, mut mirror) = reported(&report, 0);
        assert_eq!(
            wait(&mut mirror, now, 0).map(|(wait, _)| wait),
            Some(Duration::from_secs(7))
        );
    }
}

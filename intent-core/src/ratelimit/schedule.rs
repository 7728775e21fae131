//! The smooth schedule of one [`RateLimit`]: the arithmetic of the in-process limiter, mirrored by
//! the Redis script.
//!
//! Each dimension keeps the time it is next free. A request is given the latest of those times
//! (and of a server's `retry-after` hold), and pushes each forward by its share: one request
//! interval (a minute over `requests_per_minute`), and its tokens' share of a minute
//! (`tokens × 60 s / tokens_per_minute`). This is the virtual-scheduling form of GCRA with no
//! burst allowance: requests leave evenly spaced, so any rolling window of length `w` holds at most
//! `w / interval` of them (rounded up), a rolling minute at most `requests_per_minute`. Idle time
//! is never banked, which is what keeps a burst after a pause inside the limit too. For tokens, a
//! rolling minute holds at most `tokens_per_minute` plus the one request that straddles its start.

use std::time::Duration;

use tokio::time::Instant;

use super::RateLimit;

/// What holds a request back, for the message of a wait that would pass the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The configured `requests_per_minute`.
    Requests,
    /// The configured `tokens_per_minute`.
    Tokens,
    /// A provider's `retry-after` on a 429.
    ServerDelay,
    /// The provider's headers: no request left until its budget refills.
    ProviderRequests,
    /// The provider's headers: too few tokens left for this request.
    ProviderTokens,
}

/// A slot that would come later than the caller may wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLate {
    /// How long the request would wait.
    pub(crate) wait: Duration,
    /// What holds it back the longest.
    pub(crate) bound: Bound,
}

/// The next free times of one limit.
#[derive(Debug)]
pub(crate) struct Schedule {
    limit: RateLimit,
    requests_free: Option<Instant>,
    tokens_free: Option<Instant>,
    hold_until: Option<Instant>,
}

impl Schedule {
    pub(crate) fn new(limit: RateLimit) -> Schedule {
        Schedule {
            limit,
            requests_free: None,
            tokens_free: None,
            hold_until: None,
        }
    }

    /// Reserves the earliest slot at or after `now` (and after `not_before`, a constraint from
    /// elsewhere) for a request charged `tokens`; refused, reserving nothing, when it would wait
    /// longer than `max_wait`.
    pub(crate) fn reserve(
        &mut self,
        now: Instant,
        tokens: u64,
        not_before: Option<(Instant, Bound)>,
        max_wait: Option<Duration>,
    ) -> Result<Instant, TooLate> {
        let mut start = now;
        let mut bound = None;
        for (free, why) in [
            (self.requests_free, Bound::Requests),
            (self.tokens_free, Bound::Tokens),
            (self.hold_until, Bound::ServerDelay),
        ]
        .into_iter()
        .chain(not_before.map(|(at, why)| (Some(at), why)))
        {
            if let Some(free) = free.filter(|&free| free > start) {
                start = free;
                bound = Some(why);
            }
        }
        let wait = start - now;
        if let (Some(max_wait), Some(bound)) = (max_wait, bound) {
            if wait > max_wait {
                return Err(TooLate { wait, bound });
            }
        }
        if let Some(interval) = self.limit.request_interval() {
            self.requests_free = Some(start + interval);
        }
        if let Some(share) = self.limit.token_time(tokens) {
            self.tokens_free = Some(start + share);
        }
        Ok(start)
    }

    /// Moves the token schedule by the difference between the tokens a reply used and those it
    /// was charged (`delta` = used − charged): later when it used more, earlier when it used less.
    pub(crate) fn correct_tokens(&mut self, now: Instant, delta: i64) {
        let (Some(free), Some(share)) = (
            self.tokens_free,
            self.limit.token_time(delta.unsigned_abs()),
        ) else {
            return;
        };
        self.tokens_free = Some(if delta >= 0 {
            free + share
        } else {
            // Before `now` is as good as `now`: a new slot starts no earlier than then.
            free.checked_sub(share).unwrap_or(now).max(now.min(free))
        });
    }

    /// Holds every request until `until` (a server's `retry-after`).
    pub(crate) fn hold(&mut self, until: Instant) {
        self.hold_until = Some(self.hold_until.map_or(until, |h| h.max(until)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(requests: Option<u32>, tokens: Option<u32>) -> RateLimit {
        RateLimit {
            requests_per_minute: requests,
            tokens_per_minute: tokens,
        }
    }

    /// A schedule under `limit`, and the instant its reservations are made at.
    fn scheduled(limit: RateLimit) -> (Instant, Schedule) {
        (Instant::now(), Schedule::new(limit))
    }

    /// How long after `now` the slot of a request of `tokens` is, when it may wait any time.
    fn slot(schedule: &mut Schedule, now: Instant, tokens: u64) -> Duration {
        schedule.reserve(now, tokens, None, None).unwrap() - now
    }

    #[test]
    fn requests_are_spaced_by_the_interval() {
        let (now, mut schedule) = scheduled(limit(Some(600), None));
        let slots: Vec<Duration> = (0..5).map(|_| slot(&mut schedule, now, 0)).collect();
        let ms = Duration::from_millis;
        assert_eq!(slots, [ms(0), ms(100), ms(200), ms(300), ms(400)]);
    }

    #[test]
    fn tokens_take_their_share_of_a_minute() {
        let (now, mut schedule) = scheduled(limit(None, Some(60_000)));
        assert_eq!(schedule.reserve(now, 3000, None, None).unwrap(), now);
        // 3000 tokens at 1000 a second hold the next request 3 s.
        assert_eq!(slot(&mut schedule, now, 10), Duration::from_secs(3));
    }

    #[test]
    fn a_slot_past_the_wait_allowed_is_refused_and_reserves_nothing() {
        let (now, mut schedule) = scheduled(limit(Some(60), None));
        schedule.reserve(now, 0, None, None).unwrap();
        let refused = schedule
            .reserve(now, 0, None, Some(Duration::from_millis(500)))
            .unwrap_err();
        assert_eq!(refused.bound, Bound::Requests);
        assert_eq!(refused.wait, Duration::from_secs(1));
        // Nothing was reserved: the next slot is still one interval on.
        assert_eq!(slot(&mut schedule, now, 0), Duration::from_secs(1));
    }

    #[test]
    fn a_correction_moves_the_token_schedule_both_ways() {
        let (now, mut schedule) = scheduled(limit(None, Some(60_000)));
        schedule.reserve(now, 2000, None, None).unwrap();
        schedule.correct_tokens(now, 1000);
        assert_eq!(slot(&mut schedule, now, 0), Duration::from_secs(3));
        schedule.correct_tokens(now, -2500);
        assert_eq!(slot(&mut schedule, now, 0), Duration::from_millis(500));
    }

    #[test]
    fn a_hold_and_an_outside_constraint_delay_the_slot() {
        let (now, mut schedule) = scheduled(limit(None, None));
        schedule.hold(now + Duration::from_secs(2));
        let refused = schedule
            .reserve(now, 0, None, Some(Duration::from_secs(1)))
            .unwrap_err();
        assert_eq!(refused.bound, Bound::ServerDelay);
        let later = now + Duration::from_secs(5);
        assert_eq!(
            schedule
                .reserve(now, 0, Some((later, Bound::ProviderRequests)), None)
                .unwrap(),
            later
        );
    }
}

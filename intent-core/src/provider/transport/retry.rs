//! [`RetryPolicy`]: which transport faults are retried, and how long to wait before each retry.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// How a provider retries transport faults: connection errors, timeouts, 408, 409, 429, 5xx and 529.
///
/// The delay before retry `n` (from 0) is the server's own (`retry-after-ms`, then `retry-after` in
/// seconds or as an HTTP date) when it sent one, else `initial_backoff * 2^n` capped at
/// `max_backoff`, less up to a quarter at random (jitter). A server that asks for more than
/// `max_retry_after` is not retried: the error carries the delay it asked for. A server's
/// `x-should-retry: true|false` overrides the status. These retries are not verification attempts.
///
/// ```
/// use std::time::Duration;
/// use intent_core::provider::RetryPolicy;
///
/// let policy = RetryPolicy { max_retries: 4, ..RetryPolicy::default() };
/// assert_eq!(policy.initial_backoff, Duration::from_millis(500));
/// assert!(policy.backoff(10) <= Duration::from_secs(8));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first try (2 by default; 0 turns retries off).
    pub max_retries: u32,
    /// The delay before the first retry, without a server delay (0.5 s by default).
    pub initial_backoff: Duration,
    /// The longest computed delay (8 s by default).
    pub max_backoff: Duration,
    /// The longest server-requested delay honoured (120 s by default); a longer one ends the
    /// retries.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::RetryPolicy::none().max_retries, 0);
    /// ```
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// The computed delay before retry `retry` (from 0): exponential, capped, with jitter.
    ///
    /// ```
    /// use std::time::Duration;
    /// let policy = intent_core::provider::RetryPolicy::default();
    /// let first = policy.backoff(0);
    /// assert!(first <= Duration::from_millis(500) && first >= Duration::from_millis(375));
    /// ```
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(31));
        let base = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        base.mul_f64(1.0 - fastrand::f64() * 0.25)
    }
}

/// The delay a reply's headers ask for: `retry-after-ms`, then `retry-after` (seconds or an HTTP
/// date). `None` when neither is present or readable.
pub(crate) fn server_delay(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) =
        header_str(headers, "retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
    {
        return seconds(ms / 1000.0);
    }
    let value = header_str(headers, "retry-after")?.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return seconds(secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// The server's `x-should-retry` verdict, when it gave one.
pub(crate) fn should_retry_header(headers: &HeaderMap) -> Option<bool> {
    match header_str(headers, "x-should-retry")?.trim() {
        v if v.eq_ignore_ascii_case("true") => Some(true),
        v if v.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

fn seconds(secs: f64) -> Option<Duration> {
    if secs.is_finite() && secs >= 0.0 {
        Duration::try_from_secs_f64(secs).ok()
    } else {
        None
    }
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name)?.to_str().ok()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    /// A header map of `pairs`, for the transport's header tests.
    pub(in crate::provider::transport) fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        let h = headers(&[("retry-after-ms", "250"), ("retry-after", "7")]);
        assert_eq!(server_delay(&h), Some(Duration::from_millis(250)));
    }

    #[test]
    fn retry_after_reads_fractional_seconds() {
        let h = headers(&[("retry-after", "1.5")]);
        assert_eq!(server_delay(&h), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn retry_after_reads_an_http_date() {
        let at = SystemTime::now() + Duration::from_secs(30);
        let h = headers(&[("retry-after", &httpdate::fmt_http_date(at))]);
        let delay = server_delay(&h).unwrap();
        assert!(
            delay > Duration::from_secs(27) && delay <= Duration::from_secs(30),
            "{delay:?}"
        );
    }

    #[test]
    fn retry_after_in_the_past_is_zero_and_garbage_is_none() {
        let h = headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert_eq!(server_delay(&h), Some(Duration::ZERO));
        assert_eq!(server_delay(&headers(&[("retry-after", "soon")])), None);
        assert_eq!(server_delay(&headers(&[("retry-after", "-3")])), None);
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy::default();
        for retry in 0..40 {
            let delay = policy.backoff(retry);
            let base = (500u64 << retry.min(10)).min(8000);
            assert!(delay <= Duration::from_millis(base), "{retry}: {delay:?}");
            assert!(
                delay >= Duration::from_millis(base * 3 / 4),
                "{retry}: {delay:?}"
            );
        }
    }

    #[test]
    fn should_retry_header_is_read() {
        assert_eq!(
            should_retry_header(&headers(&[("x-should-retry", "false")])),
            Some(false)
        );
        assert_eq!(
            should_retry_header(&headers(&[("x-should-retry", "TRUE")])),
            Some(true)
        );
        assert_eq!(
            should_retry_header(&headers(&[("x-should-retry", "maybe")])),
            None
        );
    }
}

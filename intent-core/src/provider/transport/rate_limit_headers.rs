//! [`RateLimitStatus`]: what a provider's rate-limit headers say about its key's remaining budget.
//!
//! The headers, as the providers document them (and as recorded replies show them):
//!
//! | | OpenAI (and compatible servers that send them) | Anthropic |
//! |---|---|---|
//! | limit | `x-ratelimit-limit-requests`, `x-ratelimit-limit-tokens` | `anthropic-ratelimit-requests-limit`, `anthropic-ratelimit-tokens-limit` |
//! | remaining | `x-ratelimit-remaining-requests`, `x-ratelimit-remaining-tokens` | `anthropic-ratelimit-requests-remaining`, `anthropic-ratelimit-tokens-remaining` (rounded to the nearest thousand) |
//! | reset | `x-ratelimit-reset-requests`, `x-ratelimit-reset-tokens`: the time until the limit is back to its initial state, as a Go duration (`12ms`, `1s`, `6m0s`, `1.5s`) | `anthropic-ratelimit-requests-reset`, `anthropic-ratelimit-tokens-reset`: the time at which the limit is fully replenished, in RFC 3339 (`2025-08-21T12:40:59Z`) |
//!
//! Both providers replenish continuously (a token bucket), so "reset" is when the budget is full
//! again, not when a window starts over. Anthropic's `tokens-*` family is the most restrictive of
//! its token limits in effect; its `input-tokens-*` and `output-tokens-*` families are not read.
//! Gemini sends none. A reset is read in either form, whichever provider sent it, since
//! compatible servers copy one or the other; a value that is neither is ignored.
//!
//! Parsed by hand: the two formats are small and fixed, and the crate must not need `chrono` (an
//! optional feature) to read them.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;

/// A provider's rate-limit state for its key, as the headers of one reply reported it.
///
/// Each figure is `None` when the reply did not carry it. Resets are durations from when the reply
/// was received until the budget is fully replenished.
///
/// ```
/// use intent_core::provider::RateLimitStatus;
/// use std::time::Duration;
///
/// let status = RateLimitStatus {
///     requests_remaining: Some(0),
///     requests_reset: Some(Duration::from_millis(800)),
///     ..RateLimitStatus::default()
/// };
/// assert!(status.tokens_remaining.is_none());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateLimitStatus {
    /// The most requests the key may have outstanding in the provider's window.
    pub requests_limit: Option<u64>,
    /// The requests the key may still send now.
    pub requests_remaining: Option<u64>,
    /// The time until the request budget is full again.
    pub requests_reset: Option<Duration>,
    /// The most tokens the key may use in the provider's window.
    pub tokens_limit: Option<u64>,
    /// The tokens the key may still use now.
    pub tokens_remaining: Option<u64>,
    /// The time until the token budget is full again.
    pub tokens_reset: Option<Duration>,
}

impl RateLimitStatus {
    /// The status in a reply's headers (OpenAI's `x-ratelimit-*` or Anthropic's
    /// `anthropic-ratelimit-*`), or `None` when it carries none of them.
    pub(crate) fn from_headers(headers: &HeaderMap) -> Option<RateLimitStatus> {
        Self::read(headers, SystemTime::now())
    }

    fn read(headers: &HeaderMap, now: SystemTime) -> Option<RateLimitStatus> {
        // Most replies carry none of them: one pass over the names the reply has is cheaper than
        // twelve look-ups by name, each parsing and hashing its name.
        let carries_any = headers.keys().any(|name| {
            let name = name.as_str();
            name.starts_with("x-ratelimit-") || name.starts_with("anthropic-ratelimit-")
        });
        if !carries_any {
            return None;
        }
        let pick = |openai: &str, anthropic: &str| {
            headers
                .get(openai)
                .or_else(|| headers.get(anthropic))
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        let count = |openai, anthropic| pick(openai, anthropic).and_then(parse_count);
        let reset = |openai, anthropic| pick(openai, anthropic).and_then(|v| parse_reset(v, now));
        let status = RateLimitStatus {
            requests_limit: count(
                "x-ratelimit-limit-requests",
                "anthropic-ratelimit-requests-limit",
            ),
            requests_remaining: count(
                "x-ratelimit-remaining-requests",
                "anthropic-ratelimit-requests-remaining",
            ),
            requests_reset: reset(
                "x-ratelimit-reset-requests",
                "anthropic-ratelimit-requests-reset",
            ),
            tokens_limit: count(
                "x-ratelimit-limit-tokens",
                "anthropic-ratelimit-tokens-limit",
            ),
            tokens_remaining: count(
                "x-ratelimit-remaining-tokens",
                "anthropic-ratelimit-tokens-remaining",
            ),
            tokens_reset: reset(
                "x-ratelimit-reset-tokens",
                "anthropic-ratelimit-tokens-reset",
            ),
        };
        (status != RateLimitStatus::default()).then_some(status)
    }
}

/// A count: a whole number (a fractional one is cut down; a negative one or text is ignored).
fn parse_count(value: &str) -> Option<u64> {
    if let Ok(n) = value.parse::<u64>() {
        return Some(n);
    }
    let n = value.parse::<f64>().ok()?;
    // The cast saturates; only finite, non-negative values get here.
    (n.is_finite() && n >= 0.0).then(|| n.floor() as u64)
}

/// A reset: a Go duration (`6m0s`), else an RFC 3339 time (its distance from `now`, zero when
/// past).
fn parse_reset(value: &str, now: SystemTime) -> Option<Duration> {
    parse_go_duration(value).or_else(|| {
        let at = parse_rfc3339(value)?;
        Some(at.duration_since(now).unwrap_or(Duration::ZERO))
    })
}

/// A duration as Go prints one: numbers with units `h`, `m`, `s`, `ms`, `us`/`µs`, `ns`, joined
/// (`1h2m3.5s`); a bare number is seconds.
pub(crate) fn parse_go_duration(value: &str) -> Option<Duration> {
    if value.is_empty() {
        return None;
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::try_from_secs_f64(seconds).ok())
            .flatten();
    }
    let mut total = 0f64;
    let mut rest = value;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if number_len == 0 {
            return None;
        }
        let number: f64 = rest[..number_len].parse().ok()?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds_per_unit = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" | "μs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += number * seconds_per_unit;
    }
    Duration::try_from_secs_f64(total).ok()
}

/// An RFC 3339 time (`2025-08-21T12:40:59Z`, `2025-08-21T12:40:59.250+02:00`).
fn parse_rfc3339(value: &str) -> Option<SystemTime> {
    let bytes = value.as_bytes();
    if bytes.len() < 20 || !matches!(bytes[10], b'T' | b't' | b' ') {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = value.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let separators = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
    if separators.iter().any(|&(i, c)| bytes[i] != c) {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    // A leap second reads as the second after it.
    if second > 60 {
        return None;
    }
    let mut rest = &value[19..];
    let mut fraction = 0f64;
    if let Some(after_dot) = rest.strip_prefix('.') {
        let len = after_dot
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(after_dot.len());
        if len == 0 {
            return None;
        }
        fraction = format!("0.{}", &after_dot[..len]).parse().ok()?;
        rest = &after_dot[len..];
    }
    let offset_seconds = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                return None;
            }
            let hours: i64 = rest[1..3].parse().ok()?;
            let minutes: i64 = rest[4..6].parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_seconds;
    let seconds = u64::try_from(seconds).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_secs_f64(fraction))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::super::retry::tests::headers;
    use super::*;

    #[test]
    fn go_durations_as_openai_sends_them() {
        let ms = Duration::from_millis;
        assert_eq!(parse_go_duration("12ms"), Some(ms(12)));
        assert_eq!(parse_go_duration("1s"), Some(ms(1000)));
        assert_eq!(parse_go_duration("6m0s"), Some(ms(360_000)));
        assert_eq!(parse_go_duration("1.5s"), Some(ms(1500)));
        assert_eq!(parse_go_duration("1h2m3s"), Some(ms(3_723_000)));
        assert_eq!(parse_go_duration("250us"), Some(Duration::from_micros(250)));
        assert_eq!(parse_go_duration("2"), Some(ms(2000)));
        for bad in ["", "s", "5x", "1.2.3s", "-1s", "ms5"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_times_as_anthropic_sends_them() {
        let at = |s| {
            parse_rfc3339(s)
                .unwrap()
                .duration_since(UNIX_EPOCH)
                .unwrap()
        };
        assert_eq!(at("1970-01-01T00:00:00Z"), Duration::ZERO);
        assert_eq!(at("2025-08-21T12:40:59Z").as_secs(), 1_755_780_059);
        assert_eq!(at("2025-08-21T14:40:59+02:00").as_secs(), 1_755_780_059);
        assert_eq!(
            at("2024-02-29T00:00:00.250Z"),
            Duration::from_millis(1_709_164_800_250)
        );
        for bad in [
            "2025-13-01T00:00:00Z",
            "2025-08-21 12:40",
            "2025-08-21T12:40:59",
            "yesterday",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn openai_headers_are_read() {
        let h = headers(&[
            ("x-ratelimit-limit-requests", "5000"),
            ("x-ratelimit-remaining-requests", "4999"),
            ("x-ratelimit-reset-requests", "12ms"),
            ("x-ratelimit-limit-tokens", "160000"),
            ("x-ratelimit-remaining-tokens", "159976"),
            ("x-ratelimit-reset-tokens", "6m0s"),
        ]);
        let status = RateLimitStatus::from_headers(&h).unwrap();
        assert_eq!(
            status,
            RateLimitStatus {
                requests_limit: Some(5000),
                requests_remaining: Some(4999),
                requests_reset: Some(Duration::from_millis(12)),
                tokens_limit: Some(160_000),
                tokens_remaining: Some(159_976),
                tokens_reset: Some(Duration::from_secs(360)),
            }
        );
    }

    #[test]
    fn anthropic_headers_are_read_against_the_clock() {
        let now = UNIX_EPOCH + Duration::from_secs(1_755_780_000);
        let h = headers(&[
            ("anthropic-ratelimit-requests-limit", "1000"),
            ("anthropic-ratelimit-requests-remaining", "999"),
            ("anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59Z"),
            ("anthropic-ratelimit-tokens-limit", "96000"),
            ("anthropic-ratelimit-tokens-remaining", "96000"),
            ("anthropic-ratelimit-tokens-reset", "2025-08-21T12:39:00Z"),
        ]);
        let status = RateLimitStatus::read(&h, now).unwrap();
        assert_eq!(status.requests_remaining, Some(999));
        assert_eq!(status.requests_reset, Some(Duration::from_secs(59)));
        // A reset already past is zero.
        assert_eq!(status.tokens_reset, Some(Duration::ZERO));
        assert_eq!(status.tokens_limit, Some(96_000));
    }

    #[test]
    fn no_rate_limit_headers_is_none_and_garbage_is_ignored() {
        assert_eq!(RateLimitStatus::from_headers(&HeaderMap::new()), None);
        let h = headers(&[
            ("x-ratelimit-remaining-requests", "lots"),
            ("x-ratelimit-reset-requests", "soon"),
        ]);
        assert_eq!(RateLimitStatus::from_headers(&h), None);
        let h = headers(&[
            ("x-ratelimit-remaining-tokens", "-5"),
            ("x-ratelimit-limit-tokens", "12.7"),
        ]);
        let status = RateLimitStatus::from_headers(&h).unwrap();
        assert_eq!(status.tokens_remaining, None);
        assert_eq!(status.tokens_limit, Some(12));
    }
}

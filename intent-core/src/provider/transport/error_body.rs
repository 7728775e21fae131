//! The provider's own message in an error body: OpenAI `{"error":{"message",..}}`, Anthropic
//! `{"type":"error","error":{"type","message"}}`, Google's `{"error":{"code","message","status",
//! "details"}}`, vLLM's top-level `{"message"}`, else the raw body.

use std::time::Duration;

use serde_json::Value;

/// How much of a body that is not a known error shape an error message shows, in characters.
pub(crate) const RAW_BODY_LIMIT: usize = 500;

/// What an error body says.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorBody {
    /// The provider's message, or the clipped raw body.
    pub(crate) message: String,
    /// The error's type or code, when one was given (`invalid_request_error`, `insufficient_quota`).
    pub(crate) kind: Option<String>,
    /// True when the body says the quota or spend limit is exhausted (a 429 not worth retrying).
    pub(crate) quota_exhausted: bool,
    /// The delay a Google error's `google.rpc.RetryInfo` detail asks for before a retry.
    pub(crate) retry_delay: Option<Duration>,
}

/// Reads an error body.
pub(crate) fn parse(body: &[u8]) -> ErrorBody {
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return raw(body);
    };
    let error = json.get("error");
    let message = error
        .and_then(|e| e.get("message"))
        .or_else(|| json.get("message"))
        .and_then(Value::as_str)
        .or_else(|| error.and_then(Value::as_str))
        .map(str::to_owned);
    let Some(message) = message else {
        return raw(body);
    };
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_str);
    // Google names the kind in `status` (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`); its `code` is
    // the HTTP status as a number.
    let google_status = error.and_then(|e| e.get("status")).and_then(Value::as_str);
    let kind = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .or(code)
        .or(google_status)
        .map(str::to_owned);
    if google_status.is_some() {
        let google = google_details(error.and_then(|e| e.get("details")));
        return ErrorBody {
            message,
            kind,
            quota_exhausted: google.daily_quota,
            retry_delay: google.retry_delay,
        };
    }
    let spend_limit = error
        .and_then(|e| e.pointer("/details/error_code"))
        .and_then(Value::as_str)
        == Some("enforced_spend_limit_reached");
    let quota_exhausted = spend_limit
        || code == Some("insufficient_quota")
        || kind.as_deref() == Some("insufficient_quota")
        || message.contains("exceeded your current quota");
    ErrorBody {
        message,
        kind,
        quota_exhausted,
        retry_delay: None,
    }
}

/// What a Google error's `details` say about retrying.
#[derive(Default)]
struct GoogleDetails {
    /// A `google.rpc.QuotaFailure` names a per-day quota (`quotaId` like
    /// `GenerateRequestsPerDayPerProjectPerModel-FreeTier`): it does not clear within a retry.
    daily_quota: bool,
    /// `google.rpc.RetryInfo.retryDelay` (`"38s"`, `"1.5s"`).
    retry_delay: Option<Duration>,
}

/// Reads the `details` of a Google error. Google's 429 says "You exceeded your current quota" for
/// per-minute limits too, so only a per-day `quotaId` counts as an exhausted quota; a 429 that
/// names none is a rate limit, retried after the `retryDelay` it gives.
fn google_details(details: Option<&Value>) -> GoogleDetails {
    let mut found = GoogleDetails::default();
    for detail in details.and_then(Value::as_array).into_iter().flatten() {
        if let Some(delay) = detail
            .get("retryDelay")
            .and_then(Value::as_str)
            .and_then(google_duration)
        {
            found.retry_delay = Some(delay);
        }
        let violations = detail.get("violations").and_then(Value::as_array);
        if violations.into_iter().flatten().any(|v| {
            v.get("quotaId")
                .and_then(Value::as_str)
                .is_some_and(|id| id.contains("PerDay"))
        }) {
            found.daily_quota = true;
        }
    }
    found
}

/// A `google.protobuf.Duration` in its JSON form: decimal seconds with an `s` suffix.
fn google_duration(text: &str) -> Option<Duration> {
    let seconds: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    if seconds.is_finite() && seconds >= 0.0 {
        Duration::try_from_secs_f64(seconds).ok()
    } else {
        None
    }
}

fn raw(body: &[u8]) -> ErrorBody {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    let message = if text.is_empty() {
        "(empty body)".to_owned()
    } else {
        clip(text, RAW_BODY_LIMIT)
    };
    ErrorBody {
        message,
        ..ErrorBody::default()
    }
}

/// `text` cut to at most `limit` characters, marked when cut.
pub(crate) fn clip(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}… (cut at {limit} characters)", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a caller sees first of a parsed body: its message, its kind, whether the quota is spent.
    fn summary(parsed: &ErrorBody) -> (&str, Option<&str>, bool) {
        (
            &parsed.message,
            parsed.kind.as_deref(),
            parsed.quota_exhausted,
        )
    }

    #[test]
    fn reads_openai_errors() {
        let body = br#"{"error":{"message":"Invalid schema for response_format 'intent_output'.","type":"invalid_request_error","param":"response_format","code":null}}"#;
        assert_eq!(
            summary(&parse(body)),
            (
                "Invalid schema for response_format 'intent_output'.",
                Some("invalid_request_error"),
                false
            )
        );
    }

    #[test]
    fn reads_openai_quota_errors() {
        let body = br#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
        assert!(parse(body).quota_exhausted);
    }

    #[test]
    fn reads_anthropic_errors_and_spend_limits() {
        let body = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
        assert_eq!(
            summary(&parse(body)),
            ("Overloaded", Some("overloaded_error"), false)
        );
        let body = br#"{"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached.","details":{"error_code":"enforced_spend_limit_reached"}}}"#;
        assert!(parse(body).quota_exhausted);
    }

    #[test]
    fn reads_google_errors_by_status() {
        let body = br#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}"#;
        let parsed = parse(body);
        assert_eq!(
            summary(&parsed),
            (
                "API key not valid. Please pass a valid API key.",
                Some("INVALID_ARGUMENT"),
                false
            )
        );
        assert_eq!(parsed.retry_delay, None);
    }

    #[test]
    fn a_google_per_minute_429_is_a_rate_limit_with_its_retry_delay() {
        let body = br#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"38s"}]}}"#;
        let parsed = parse(body);
        assert!(!parsed.quota_exhausted);
        assert_eq!(parsed.retry_delay, Some(Duration::from_secs(38)));
        assert_eq!(parsed.kind.as_deref(), Some("RESOURCE_EXHAUSTED"));
    }

    #[test]
    fn a_google_per_day_429_is_an_exhausted_quota() {
        let body = br#"{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}"#;
        let parsed = parse(body);
        assert!(parsed.quota_exhausted);
        assert_eq!(parsed.retry_delay, Some(Duration::from_millis(1500)));
        assert_eq!(google_duration("-1s"), None);
        assert_eq!(google_duration("12"), None);
    }

    #[test]
    fn reads_top_level_messages() {
        let body = br#"{"object":"error","message":"The model `x` does not exist.","type":"NotFoundError","param":null,"code":404}"#;
        assert_eq!(parse(body).message, "The model `x` does not exist.");
    }

    #[test]
    fn clips_raw_bodies() {
        let body = "<html>".repeat(200);
        let parsed = parse(body.as_bytes());
        assert!(parsed.message.ends_with("(cut at 500 characters)"));
        assert!(parsed.message.chars().count() < 530);
        assert_eq!(parse(b"  ").message, "(empty body)");
        assert_eq!(clip("héllo", 2), "hé… (cut at 2 characters)");
    }
}

//! The provider's own message in an error body: OpenAI `{"error":{"message",..}}`, Anthropic
//! `{"type":"error","error":{"type","message"}}`, vLLM's top-level `{"message"}`, else the raw body.

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
    let kind = error
        .and_then(|e| e.get("type"))
        .and_then(Value::as_str)
        .or(code)
        .map(str::to_owned);
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

    #[test]
    fn reads_openai_errors() {
        let body = br#"{"error":{"message":"Invalid schema for response_format 'intent_output'.","type":"invalid_request_error","param":"response_format","code":null}}"#;
        let parsed = parse(body);
        assert_eq!(
            parsed.message,
            "Invalid schema for response_format 'intent_output'."
        );
        assert_eq!(parsed.kind.as_deref(), Some("invalid_request_error"));
        assert!(!parsed.quota_exhausted);
    }

    #[test]
    fn reads_openai_quota_errors() {
        let body = br#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#;
        assert!(parse(body).quota_exhausted);
    }

    #[test]
    fn reads_anthropic_errors_and_spend_limits() {
        let body = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
        let parsed = parse(body);
        assert_eq!(parsed.message, "Overloaded");
        assert_eq!(parsed.kind.as_deref(), Some("overloaded_error"));
        let body = br#"{"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached.","details":{"error_code":"enforced_spend_limit_reached"}}}"#;
        assert!(parse(body).quota_exhausted);
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

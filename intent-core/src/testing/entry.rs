//! One line of a cassette: a request, its cache key, and the reply or the error it got.
//!
//! A line is one JSON object, written in this order so that a diff of two recordings reads from
//! what was asked to what came back:
//!
//! ```text
//! {"key":"…","provider":"openai","default_model":"gpt-4o-mini",
//!  "request":{"system":"…","user":"…","format":"json_schema","schema_name":"intent_output","schema":{…},
//!             "max_output_tokens":64,"temperature":0.0,"model":null},
//!  "reply":{"text":"…","finish_reason":"stop","refusal":null,"usage":{…},"model":"…"}}
//! ```
//!
//! (on one line). A provider failure is recorded as `"error":{"kind":"auth","status":401,"message":"…"}`
//! instead of `reply`; `redacted` counts the secrets replaced by `[redacted]` in the line.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cache::CacheKey;
use crate::provider::{AiResponse, FinishReason, ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, ResponseFormat};
use crate::result::Usage;

/// One recorded exchange.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// The cache key of the request ([`CacheKey::for_request`]), as 64 hex digits.
    pub(crate) key: String,
    /// The name of the provider that was asked.
    pub(crate) provider: String,
    /// The provider's own model, used when the request names none.
    #[serde(default)]
    pub(crate) default_model: Option<String>,
    pub(crate) request: RecordedRequest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reply: Option<RecordedReply>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<RecordedError>,
    /// How many secrets were replaced by `[redacted]` in this line.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) redacted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The parts of an [`AiRequest`] a cassette shows (it never holds headers, URLs or keys: a
/// provider receives none of them in the request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RecordedRequest {
    pub(crate) system: String,
    pub(crate) user: String,
    pub(crate) format: String,
    pub(crate) schema_name: String,
    #[serde(default)]
    pub(crate) schema: Option<Value>,
    #[serde(default)]
    pub(crate) max_output_tokens: Option<u32>,
    #[serde(default)]
    pub(crate) temperature: Option<f32>,
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Each attachment's media type, size, file name and SHA-256 (or its URL, without the query,
    /// which may carry a signature): never the bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) attachments: Vec<Value>,
    /// The tools offered and the rounds so far, for a call with tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tools: Option<Value>,
}

/// A provider's reply, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RecordedReply {
    pub(crate) text: String,
    pub(crate) finish_reason: String,
    #[serde(default)]
    pub(crate) refusal: Option<String>,
    /// The reply's [`Usage`], as its serde form: members added later read as their default.
    #[serde(default)]
    pub(crate) usage: Value,
    pub(crate) model: String,
    /// The tools the model called instead of answering, for a round of a call with tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) tool_calls: Vec<crate::toolbox::ToolCall>,
    /// The model's turn as the vendor takes it back, with those calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) vendor_turn: Option<Value>,
}

/// A provider failure, as recorded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RecordedError {
    pub(crate) kind: String,
    #[serde(default)]
    pub(crate) status: Option<u16>,
    pub(crate) message: String,
}

/// The key a request sent to `provider` has: the cache's own, so a cassette and a cache agree on
/// which requests are the same.
pub(crate) fn key_of(provider: &str, default_model: Option<&str>, request: &AiRequest) -> CacheKey {
    let model = request
        .model
        .as_deref()
        .or(default_model)
        .unwrap_or_default();
    CacheKey::for_request(provider, model, request)
}

impl RecordedRequest {
    pub(crate) fn of(request: &AiRequest) -> Self {
        RecordedRequest {
            system: request.system.to_string(),
            user: request.user.to_string(),
            format: format_name(request.format).to_owned(),
            schema_name: request.schema_name.clone(),
            schema: request.schema.as_deref().cloned(),
            max_output_tokens: request.max_output_tokens,
            temperature: request.temperature,
            model: request.model.clone(),
            attachments: request
                .attachments
                .iter()
                .map(crate::attachment::recorded)
                .collect(),
            tools: request
                .tools
                .as_ref()
                .and_then(|tools| serde_json::to_value(&**tools).ok()),
        }
    }
}

fn format_name(format: ResponseFormat) -> &'static str {
    match format {
        ResponseFormat::Text => "text",
        ResponseFormat::JsonObject => "json_object",
        ResponseFormat::JsonSchema => "json_schema",
    }
}

impl RecordedReply {
    pub(crate) fn of(response: &AiResponse) -> Self {
        RecordedReply {
            text: response.text.clone(),
            finish_reason: finish_name(&response.finish_reason).into_owned(),
            refusal: response.refusal.clone(),
            usage: serde_json::to_value(response.usage).unwrap_or(Value::Null),
            model: response.model.clone(),
            tool_calls: response.tool_calls.clone(),
            vendor_turn: response.vendor_turn.as_deref().cloned(),
        }
    }

    /// The reply as the provider gave it.
    pub(crate) fn to_response(&self) -> AiResponse {
        let mut response = AiResponse::new(self.text.clone(), self.model.clone());
        response.finish_reason = finish_reason(&self.finish_reason);
        response.refusal.clone_from(&self.refusal);
        response.usage = usage_of(&self.usage);
        response.tool_calls.clone_from(&self.tool_calls);
        response.vendor_turn = self.vendor_turn.clone().map(Box::new);
        response
    }
}

/// Reads a recorded usage, filling members the recording does not have with their default.
fn usage_of(recorded: &Value) -> Usage {
    let mut merged = serde_json::to_value(Usage::default()).unwrap_or(Value::Null);
    if let (Value::Object(base), Value::Object(fields)) = (&mut merged, recorded) {
        for (name, value) in fields {
            if base.contains_key(name) {
                base.insert(name.clone(), value.clone());
            }
        }
    }
    serde_json::from_value(merged).unwrap_or_default()
}

/// How an abnormal end's name starts in a cassette, so that it replays as abnormal.
const ABNORMAL_PREFIX: &str = "abnormal:";

fn finish_name(reason: &FinishReason) -> std::borrow::Cow<'_, str> {
    match reason {
        FinishReason::Stop => "stop".into(),
        FinishReason::Length => "length".into(),
        FinishReason::Refusal => "refusal".into(),
        FinishReason::ContentFilter => "content_filter".into(),
        FinishReason::Abnormal(other) => format!("{ABNORMAL_PREFIX}{other}").into(),
        FinishReason::Other(other) => other.into(),
    }
}

fn finish_reason(name: &str) -> FinishReason {
    match name {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "refusal" => FinishReason::Refusal,
        "content_filter" => FinishReason::ContentFilter,
        other => match other.strip_prefix(ABNORMAL_PREFIX) {
            Some(reason) => FinishReason::Abnormal(reason.to_owned()),
            None => FinishReason::Other(other.to_owned()),
        },
    }
}

impl RecordedError {
    pub(crate) fn of(error: &ProviderError) -> Self {
        RecordedError {
            kind: kind_name(error.kind).to_owned(),
            status: error.status,
            message: error.message.clone(),
        }
    }

    /// The failure as the provider gave it, from `provider`.
    pub(crate) fn to_error(&self, provider: &str) -> ProviderError {
        let kind = kind_of(&self.kind).unwrap_or(ProviderErrorKind::Server);
        let mut error = ProviderError::new(kind, self.message.clone());
        error.status = self.status;
        error.with_provider(provider)
    }
}

fn kind_name(kind: ProviderErrorKind) -> &'static str {
    match kind {
        ProviderErrorKind::Connect => "connect",
        ProviderErrorKind::Timeout => "timeout",
        ProviderErrorKind::RateLimited => "rate_limited",
        ProviderErrorKind::QuotaExhausted => "quota_exhausted",
        ProviderErrorKind::Server => "server",
        ProviderErrorKind::InvalidRequest => "invalid_request",
        ProviderErrorKind::Auth => "auth",
        ProviderErrorKind::Decode => "decode",
        ProviderErrorKind::StreamBroken => "stream_broken",
        ProviderErrorKind::Config => "config",
        ProviderErrorKind::ScriptExhausted => "script_exhausted",
        ProviderErrorKind::RateLimitWait => "rate_limit_wait",
    }
}

/// The names an error's `kind` may have.
pub(crate) const KIND_NAMES: &str = "connect, timeout, rate_limited, quota_exhausted, server, invalid_request, auth, decode, stream_broken, config, script_exhausted, rate_limit_wait";

/// The kind named `name`, when it is one of [`KIND_NAMES`].
pub(crate) fn kind_of(name: &str) -> Option<ProviderErrorKind> {
    [
        ProviderErrorKind::Connect,
        ProviderErrorKind::Timeout,
        ProviderErrorKind::RateLimited,
        ProviderErrorKind::QuotaExhausted,
        ProviderErrorKind::Server,
        ProviderErrorKind::InvalidRequest,
        ProviderErrorKind::Auth,
        ProviderErrorKind::Decode,
        ProviderErrorKind::StreamBroken,
        ProviderErrorKind::Config,
        ProviderErrorKind::ScriptExhausted,
        ProviderErrorKind::RateLimitWait,
    ]
    .into_iter()
    .find(|kind| kind_name(*kind) == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_reads_back_as_it_was() {
        let mut response = AiResponse::new("{\"value\": 1}", "m-1");
        response.finish_reason = FinishReason::Other("eos".into());
        response.usage.input_tokens = 12;
        let recorded = RecordedReply::of(&response);
        assert_eq!(recorded.to_response(), response);
        let text = serde_json::to_string(&recorded).unwrap();
        let back: RecordedReply = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_response(), response);
    }

    #[test]
    fn an_abnormal_end_replays_as_abnormal() {
        let mut response = AiResponse::new("{\"value\": 1}", "gemini-2.5-flash");
        response.finish_reason = FinishReason::Abnormal("OTHER".into());
        let recorded = RecordedReply::of(&response);
        assert_eq!(recorded.finish_reason, "abnormal:OTHER");
        let text = serde_json::to_string(&recorded).unwrap();
        let back: RecordedReply = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_response(), response);
    }

    #[test]
    fn a_usage_with_missing_or_unknown_members_still_reads() {
        let usage = usage_of(&serde_json::json!({"input_tokens": 3, "future_tokens": 9}));
        assert_eq!(usage.input_tokens, 3);
        assert_eq!(usage.calls, 0);
    }

    #[test]
    fn every_error_kind_has_its_own_name() {
        for kind in [
            ProviderErrorKind::Connect,
            ProviderErrorKind::RateLimited,
            ProviderErrorKind::Auth,
            ProviderErrorKind::ScriptExhausted,
        ] {
            assert_eq!(kind_of(kind_name(kind)), Some(kind));
            assert!(KIND_NAMES.contains(kind_name(kind)));
        }
        assert_eq!(kind_of("teapot"), None);
        let error = ProviderError::http(401, "bad key").with_provider("openai");
        let back = RecordedError::of(&error).to_error("openai");
        assert_eq!(
            (back.kind, back.status),
            (ProviderErrorKind::Auth, Some(401))
        );
    }
}

//! The JSON of requests and replies that every vendor writes and reads alike: the header that
//! carries the key, the strict schema a request must carry, the body serialized once with the
//! request's `extra_body` fields over its own, and the first steps of reading a reply (one JSON
//! object, an error object where the answer should be, the model that answered).

use reqwest::header::HeaderValue;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::provider::extra_body::WithExtra;
use crate::provider::transport::{clip_body, error_text, json_body, ApiKey};
use crate::provider::{ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, SharedSchema};

/// `key` as the value of the header that carries it, marked sensitive so no log shows it, or a
/// configuration error for `provider` when it has characters a header cannot carry.
pub(crate) fn key_header_value(key: &str, provider: &str) -> Result<HeaderValue, ProviderError> {
    let mut value = HeaderValue::from_str(key).map_err(|_| {
        ProviderError::new(
            ProviderErrorKind::Config,
            "the API key contains characters not allowed in an HTTP header",
        )
        .with_provider(provider)
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// The strict schema of a request that asks for `ResponseFormat::JsonSchema`, or a configuration
/// error for `provider` when it carries none.
pub(crate) fn strict_schema<'r>(
    request: &'r AiRequest,
    provider: &str,
) -> Result<&'r SharedSchema, ProviderError> {
    request.schema.as_ref().ok_or_else(|| {
        ProviderError::new(
            ProviderErrorKind::Config,
            "the request asks for ResponseFormat::JsonSchema but carries no schema",
        )
        .with_provider(provider)
    })
}

/// A provider's request body: `body` serialized once, with the request's `extra_body` fields
/// over its own.
pub(crate) fn request_body(
    body: &impl serde::Serialize,
    request: &AiRequest,
    provider: &str,
) -> Result<Vec<u8>, ProviderError> {
    match request.extra_body.as_deref().filter(|e| !e.is_empty()) {
        None => json_body(body, request.text_len(), provider),
        Some(extra) => json_body(&WithExtra { body, extra }, request.text_len(), provider),
    }
}

/// A reply `body` read as the JSON object `T` of the API named `api`, or a decode error quoting the
/// body (clipped, the key redacted).
pub(crate) fn read_reply<T: DeserializeOwned>(
    body: &[u8],
    api: &str,
    key: &ApiKey,
) -> Result<T, ProviderError> {
    serde_json::from_slice(body).map_err(|e| {
        ProviderError::new(
            ProviderErrorKind::Decode,
            format!(
                "the reply is not a {api} JSON object ({e}): {}",
                clip_body(body, key)
            ),
        )
    })
}

/// The error of a reply without its answer (`expected`, as the API names it): the provider's own
/// error object when the reply carries one, else `missing`.
pub(crate) fn no_answer(error: Option<&Value>, expected: &str, missing: &str) -> ProviderError {
    let message = match error {
        Some(error) => format!(
            "the reply carries an error instead of {expected}: {}",
            error_text(error)
        ),
        None => missing.to_owned(),
    };
    ProviderError::new(ProviderErrorKind::Decode, message)
}

/// The model that answered: the one the reply names, else the one asked for.
pub(crate) fn answering_model(named: Option<String>, sent: &str) -> String {
    named
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| sent.to_owned())
}

/// The user message's part before its input: the intent, the same for every call of a call site.
const INPUT_HEADING: &str = "\n\n## Input";

/// The user message split where its stable part (the intent, the same for every call of a call
/// site) ends and its input begins: `(intent, rest)`, or the whole message and `""` when it has
/// no input heading.
pub(crate) fn intent_and_input(user: &str) -> (&str, &str) {
    match user.find(INPUT_HEADING) {
        Some(end) => user.split_at(end),
        None => (user, ""),
    }
}

/// A request that asks for prompt caching, for the vendors' tests.
#[cfg(test)]
pub(crate) fn caching_request(system: &str, user: &str) -> AiRequest {
    let mut request = AiRequest::new(system, user);
    request.prompt_caching = true;
    request
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_without_its_answer_names_the_error_it_carries() {
        let error = serde_json::json!({"message": "overloaded", "type": "x"});
        let with = no_answer(Some(&error), "content", "the reply has no content");
        assert_eq!(
            with.message,
            "the reply carries an error instead of content: overloaded"
        );
        assert_eq!(with.kind, ProviderErrorKind::Decode);
        let without = no_answer(None, "content", "the reply has no content");
        assert_eq!(without.message, "the reply has no content");
    }

    #[test]
    fn a_body_without_extra_fields_is_written_as_it_is_and_one_with_them_once() {
        #[derive(serde::Serialize)]
        struct Body {
            b: u8,
            a: u8,
        }
        let mut request = AiRequest::new("s", "u");
        let plain = request_body(&Body { b: 1, a: 2 }, &request, "p").unwrap();
        assert_eq!(plain, br#"{"b":1,"a":2}"#);
        let extra = serde_json::json!({"a": 3, "c": 4});
        request.extra_body = Some(std::sync::Arc::new(extra.as_object().unwrap().clone()));
        let merged = request_body(&Body { b: 1, a: 2 }, &request, "p").unwrap();
        assert_eq!(merged, br#"{"b":1,"a":3,"c":4}"#);
    }

    #[test]
    fn the_answering_model_is_the_one_named_unless_blank() {
        assert_eq!(answering_model(Some("m".into()), "sent"), "m");
        assert_eq!(answering_model(Some(String::new()), "sent"), "sent");
        assert_eq!(answering_model(None, "sent"), "sent");
    }

    #[test]
    fn a_key_header_is_sensitive_and_a_bad_key_is_refused() {
        assert!(key_header_value("sk-1", "p").unwrap().is_sensitive());
        let error = key_header_value("bad\nkey", "p").unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Config);
        assert!(!error.message.contains("bad"), "{}", error.message);
    }
}

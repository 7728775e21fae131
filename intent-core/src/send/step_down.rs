//! Schema step-down: a provider that refuses the request's strict schema gets the same attempt
//! once more in JSON-object mode, with the schema written into the prompt, so that a type its
//! strict mode cannot take still gets an answer. The reply is read and verified against the type
//! exactly as a strict reply is: only the provider's enforcement is lost, never the library's.
//!
//! A refusal is recognised by the provider's own wording, on a 400 or 422 that is not retried
//! (checked against the vendors' error bodies, December 2026):
//!
//! - OpenAI, Chat Completions and Responses: `Invalid schema for response_format 'intent_output':
//!   In context=(), ...`, code `invalid_json_schema`, param `response_format` or
//!   `text.format.schema`.
//! - Anthropic: `output_config.format.schema: Invalid schema: The compiled grammar is too large,
//!   ...` (the path of the schema in the body leads the message).
//! - Gemini: `The specified schema produces a constraint that has too many states for serving.`,
//!   or an `INVALID_ARGUMENT` naming `generation_config.response_json_schema`; and this library's
//!   own refusal before sending, `the strict schema cannot be sent to Gemini: ...`, for a schema
//!   Gemini's dialect cannot express.
//! - llama.cpp's server: `JSON schema conversion failed: ...` (its grammar compiler).
//!
//! Any other 400 (a bad key, an unknown model, a prompt too long) is not a schema refusal and
//! fails as before: sending it again in another mode would not help.

use std::fmt::Write;
use std::sync::{Arc, Mutex, PoisonError};

use crate::provider::{ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, ResponseFormat};
use crate::result::{IssueKind, ResultIssue};

/// How the providers word a refusal of the strict schema, lowercased.
const REFUSAL_WORDING: &[&str] = &[
    // OpenAI (message, and code).
    "invalid schema for response_format",
    "invalid_json_schema",
    // Anthropic: the schema's path in the body.
    "output_config.format.schema",
    "output_format.schema",
    // Gemini.
    "too many states for serving",
    "response_json_schema",
    "responsejsonschema",
    "the strict schema cannot be sent to gemini",
    // llama.cpp.
    "json schema conversion failed",
];

/// True when `error` is the provider refusing `request`'s strict schema.
pub(super) fn refuses_strict_schema(request: &AiRequest, error: &ProviderError) -> bool {
    if request.format != ResponseFormat::JsonSchema
        || error.kind != ProviderErrorKind::InvalidRequest
        || !matches!(error.status, None | Some(400 | 422))
    {
        return false;
    }
    let message = error.message.to_ascii_lowercase();
    REFUSAL_WORDING
        .iter()
        .any(|wording| message.contains(wording))
}

/// `request` in JSON-object mode: no schema sent, the schema written into the user message
/// instead (the type's description is already there), so the model still sees every member.
pub(super) fn json_object_request(request: &AiRequest) -> AiRequest {
    let mut stepped = request.clone();
    schema_in_prompt(&mut stepped, ResponseFormat::JsonObject);
    stepped
}

/// `request` asked for in `format` (JSON-object mode, or text for
/// [`OutputMode::Prompted`](crate::OutputMode::Prompted)), its strict schema, if any, moved
/// from the request into the user message.
pub(crate) fn schema_in_prompt(request: &mut AiRequest, format: ResponseFormat) {
    request.format = format;
    if let Some(schema) = request.schema.take() {
        let schema = schema.json();
        let mut user = String::with_capacity(request.user.len() + schema.len() + 160);
        user.push_str(&request.user);
        user.push_str("\n\n## Output schema\nThe JSON object you reply with must match this JSON schema exactly: every property it lists, with its type, and no other.\n");
        user.push_str(&schema);
        request.user = Arc::new(user);
    }
}

/// The notice recorded on an attempt that was stepped down after `refusal`.
pub(super) fn notice(refusal: &ProviderError) -> ResultIssue {
    let mut message = refused(refusal, "");
    message.push_str(" The attempt was sent again in JSON-object mode, with the schema in the prompt, and its reply checked against the result type as usual.");
    ResultIssue::new(IssueKind::Request, message)
}

/// The notice recorded on a later attempt of the call, sent in JSON-object mode at once because
/// of `refusal`.
pub(super) fn remembered_notice(refusal: &ProviderError) -> ResultIssue {
    let mut message = refused(refusal, " earlier in this call");
    message.push_str(" This attempt was sent in JSON-object mode at once, with the schema in the prompt, and its reply checked against the result type as usual.");
    ResultIssue::new(IssueKind::Request, message)
}

/// `The provider refused the strict JSON schema{when} (HTTP status): message.`
fn refused(refusal: &ProviderError, when: &str) -> String {
    let mut message = format!("The provider refused the strict JSON schema{when}");
    if let Some(status) = refusal.status {
        let _ = write!(message, " (HTTP {status})");
    }
    let _ = write!(message, ": {}.", refusal.message.trim_end_matches('.'));
    message
}

/// The providers that refused a call's strict schema, by their index in the client, with their
/// refusal: for the rest of the call they are asked in JSON-object mode at once, instead of being
/// sent the schema again on every attempt only to refuse it again.
#[derive(Default)]
pub(crate) struct StepDowns(Mutex<Vec<(usize, ProviderError)>>);

impl StepDowns {
    /// Remembers that the provider at `index` refused the call's strict schema.
    pub(super) fn remember(&self, index: usize, refusal: &ProviderError) {
        let mut refused = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !refused.iter().any(|(i, _)| *i == index) {
            refused.push((index, refusal.clone()));
        }
    }

    /// The refusal of the provider at `index`, when it refused the call's strict schema before and
    /// `request` asks for one again.
    pub(super) fn refusal(&self, index: usize, request: &AiRequest) -> Option<ProviderError> {
        if request.format != ResponseFormat::JsonSchema {
            return None;
        }
        let refused = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        refused
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, refusal)| refusal.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict_request() -> AiRequest {
        AiRequest::new("system", "## Intent\nx").with_format(
            ResponseFormat::JsonSchema,
            Some(json!({"type": "object", "properties": {"value": {"type": "integer"}}})),
        )
    }

    #[test]
    fn each_providers_wording_is_a_schema_refusal_and_other_400s_are_not() {
        let request = strict_request();
        for message in [
            "Invalid schema for response_format 'intent_output': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'x'.",
            "output_config.format.schema: Invalid schema: The compiled grammar is too large, which would cause performance issues.",
            "The specified schema produces a constraint that has too many states for serving.",
            "Invalid JSON payload received. Unknown name \"propertyNames\" at 'generation_config.response_json_schema'.",
            "JSON schema conversion failed:\nUnrecognized schema: {\"not\": {}}",
        ] {
            assert!(
                refuses_strict_schema(&request, &ProviderError::http(400, message)),
                "{message}"
            );
        }
        let gemini = ProviderError::new(
            ProviderErrorKind::InvalidRequest,
            "the strict schema cannot be sent to Gemini: /value: a recursive schema",
        );
        assert!(refuses_strict_schema(&request, &gemini));
        for message in [
            "Invalid 'max_completion_tokens': integer below minimum value.",
            "The model `gpt-9` does not exist or you do not have access to it.",
        ] {
            assert!(!refuses_strict_schema(
                &request,
                &ProviderError::http(400, message)
            ));
        }
        // A server fault that mentions a schema is retried by the transport, not stepped down.
        let server = ProviderError::http(500, "Invalid schema for response_format 'x'");
        assert!(!refuses_strict_schema(&request, &server));
        // A request that sent no schema has none to step down from.
        let plain = AiRequest::new("s", "u");
        let refusal = ProviderError::http(400, "Invalid schema for response_format 'x'");
        assert!(!refuses_strict_schema(&plain, &refusal));
    }

    #[test]
    fn the_stepped_request_asks_for_a_json_object_with_the_schema_in_the_prompt() {
        let stepped = json_object_request(&strict_request());
        assert_eq!(stepped.format, ResponseFormat::JsonObject);
        assert!(stepped.schema.is_none());
        assert!(stepped
            .user
            .starts_with("## Intent\nx\n\n## Output schema\n"));
        assert!(stepped
            .user
            .ends_with(r#"{"type":"object","properties":{"value":{"type":"integer"}}}"#));
    }
}

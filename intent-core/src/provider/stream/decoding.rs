//! What the providers' stream decoders share around their own events: the model the reply names
//! (else the one asked for), and the errors of a stream (an event the provider's wire does not allow, an error the server sends after HTTP 200),
//! with the key redacted before any text is cut for a message.

use serde_json::Value;

use crate::provider::transport::{clip_body, error_text, ApiKey};
use crate::provider::{ProviderError, ProviderErrorKind};

/// The model of a streamed reply: the last one an event named, else the one asked for.
pub(crate) struct StreamModel {
    sent: String,
    named: Option<String>,
}

impl StreamModel {
    /// A reply to a request that asked for `sent`.
    pub(crate) fn new(sent: &str) -> Self {
        StreamModel {
            sent: sent.to_owned(),
            named: None,
        }
    }

    /// An event named `model` (a blank name changes nothing).
    pub(crate) fn name(&mut self, model: Option<String>) {
        if let Some(model) = model.filter(|m| !m.is_empty()) {
            self.named = Some(model);
        }
    }

    /// The model that answered, once the stream ends.
    pub(crate) fn answered(&mut self) -> String {
        self.named
            .take()
            .unwrap_or_else(|| std::mem::take(&mut self.sent))
    }
}

/// An event the provider's wire does not allow: `what` says what it is not, and the event's data
/// is quoted (clipped, the key redacted).
pub(crate) fn not_an_event(
    data: &str,
    what: impl std::fmt::Display,
    key: &ApiKey,
) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::Decode,
        format!("sent {what}: {}", clip_body(data.as_bytes(), key)),
    )
}

/// An error the server sent in the stream, whose JSON `data` holds it under `error`: the stream
/// breaks, with the provider's message (as `describe` words it from the error object).
pub(crate) fn server_error(
    data: String,
    key: &ApiKey,
    describe: impl FnOnce(&Value) -> String,
) -> ProviderError {
    // Redacted before it is cut for the message: a cut could fall inside the key.
    let data: Value = serde_json::from_str(&key.redact(data)).unwrap_or_default();
    ProviderError::new(
        ProviderErrorKind::StreamBroken,
        format!("the server sent an error: {}", describe(&data["error"])),
    )
}

/// The provider's own error object as text: its `type` and message when it names a type.
pub(crate) fn typed_error_text(error: &Value) -> String {
    match error.get("type").and_then(Value::as_str) {
        Some(kind) => format!("{kind}: {}", error_text(error)),
        None => error_text(error),
    }
}

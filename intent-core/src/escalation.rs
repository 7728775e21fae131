//! [`Escalation`]: where the attempts after a failed one go. The routing itself is the sending
//! layer's; this type is an option, and knows nothing of the layers that read it.

/// Where the attempts after a failed one go (`AiRequestOptions::escalation`): a named provider
/// of the client, a model, or both. The first attempt goes where it would without one; each
/// retry goes here, with the previous attempt's raw output and findings, and its record names
/// the provider and model that answered.
///
/// A named provider is asked alone (no fallback), as `AiRequestOptions::provider` would be; a
/// model without a provider goes to the provider the call would ask (and to its fallbacks).
///
/// ```
/// use intent_core::{AiRequestOptions, Escalation};
///
/// let options = AiRequestOptions {
///     model: Some("gpt-5-mini".into()),
///     escalation: Some(Escalation::to_model("gpt-5")),
///     ..AiRequestOptions::default()
/// };
/// let stronger = Escalation::to_provider("anthropic").with_model("claude-opus-4-5");
/// assert_eq!(stronger.provider.as_deref(), Some("anthropic"));
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Escalation {
    /// The client's provider to ask, by name; the call's own when `None`.
    pub provider: Option<String>,
    /// The model to ask; the call's own (or the provider's default) when `None`.
    pub model: Option<String>,
}

impl Escalation {
    /// Retries go to `model`, on the provider the call would ask.
    pub fn to_model(model: impl Into<String>) -> Self {
        Escalation {
            provider: None,
            model: Some(model.into()),
        }
    }

    /// Retries go to the client's provider named `provider`, with its default model.
    pub fn to_provider(provider: impl Into<String>) -> Self {
        Escalation {
            provider: Some(provider.into()),
            model: None,
        }
    }

    /// The same escalation, asking `model`.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
}

//! Escalation: after a failed attempt, the remaining attempts of a call go to a stronger provider
//! or model, with the failed attempt's findings as every retry has them.

use std::borrow::Cow;

use crate::options::AiRequestOptions;
use crate::request::AiRequest;
use crate::result::{IssueKind, ResultIssue};

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

/// Where attempt `number`'s `request` goes: the provider to name (none: the primary, then the
/// fallbacks) and the request itself, with its model changed when a retry escalates; and the
/// notice that says so.
pub(crate) fn route<'r>(
    options: &'r AiRequestOptions,
    number: u32,
    request: &'r AiRequest,
) -> (Option<&'r str>, Cow<'r, AiRequest>, Option<ResultIssue>) {
    let named = options.provider.as_deref();
    let Some(escalation) = options.escalation.as_ref().filter(|_| number > 1) else {
        return (named, Cow::Borrowed(request), None);
    };
    let to = match (escalation.provider.as_deref(), escalation.model.as_deref()) {
        (Some(provider), Some(model)) => format!("provider \"{provider}\", model \"{model}\""),
        (Some(provider), None) => format!("provider \"{provider}\""),
        (None, Some(model)) => format!("model \"{model}\""),
        (None, None) => return (named, Cow::Borrowed(request), None),
    };
    let named = escalation.provider.as_deref().or(named);
    let request = match &escalation.model {
        Some(model) if request.model.as_deref() != Some(model.as_str()) => {
            let mut escalated = request.clone();
            escalated.model = Some(model.clone());
            Cow::Owned(escalated)
        }
        _ => Cow::Borrowed(request),
    };
    let notice = ResultIssue::new(
        IssueKind::Request,
        format!(
            "Attempt {} failed, so this attempt escalated to {to}, with its findings.",
            number - 1
        ),
    );
    (named, request, Some(notice))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_retries_escalate_and_a_first_attempt_goes_where_it_would() {
        let options = AiRequestOptions {
            provider: Some("openai".into()),
            model: Some("small".into()),
            escalation: Some(Escalation::to_provider("anthropic").with_model("large")),
            ..AiRequestOptions::default()
        };
        let mut request = AiRequest::new("s", "u");
        request.model = Some("small".into());

        let (named, first, notice) = route(&options, 1, &request);
        assert_eq!(named, Some("openai"));
        assert_eq!(first.model.as_deref(), Some("small"));
        assert!(notice.is_none());

        let (named, retry, notice) = route(&options, 2, &request);
        assert_eq!(named, Some("anthropic"));
        assert_eq!(retry.model.as_deref(), Some("large"));
        assert_eq!(
            notice.unwrap().message,
            "Attempt 1 failed, so this attempt escalated to provider \"anthropic\", model \"large\", with its findings."
        );
    }

    #[test]
    fn a_model_alone_keeps_the_calls_provider_and_an_empty_escalation_does_nothing() {
        let options = AiRequestOptions {
            escalation: Some(Escalation::to_model("large")),
            ..AiRequestOptions::default()
        };
        let request = AiRequest::new("s", "u");
        let (named, retry, _) = route(&options, 3, &request);
        assert_eq!(named, None);
        assert_eq!(retry.model.as_deref(), Some("large"));

        let empty = AiRequestOptions {
            escalation: Some(Escalation::default()),
            ..AiRequestOptions::default()
        };
        let (_, retry, notice) = route(&empty, 2, &request);
        assert!(matches!(retry, Cow::Borrowed(_)) && notice.is_none());
    }
}

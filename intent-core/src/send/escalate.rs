//! Escalation: after a failed attempt, the remaining attempts of a call go to a stronger provider
//! or model, with the failed attempt's findings as every retry has them.

use std::borrow::Cow;

use crate::options::AiRequestOptions;
use crate::request::AiRequest;
use crate::result::{IssueKind, ResultIssue};

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
    use crate::escalation::Escalation;

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

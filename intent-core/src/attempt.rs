//! The attempt loop: send, read, verify, check, and retry with the findings.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::call::AiCall;
use crate::client::IntentClient;
use crate::intent::Intent;
use crate::prompt::{self, PromptPlan};
use crate::provider::{AiResponse, FinishReason, Provider, ProviderError};
use crate::read;
use crate::request::AiRequest;
use crate::result::{AiResult, AttemptRecord, IssueKind, ResultIssue, Usage};

/// Runs a call to its end: a verified value, or the issues that kept every attempt from one.
pub(crate) async fn run<T: Intent + Send>(call: AiCall<'_, T>) -> AiResult<T> {
    let AiCall {
        client,
        input,
        intent,
        options,
        checks,
        json_checks,
    } = call;
    let input = match input {
        Ok(input) => input,
        Err(error) => {
            let kind = match error {
                crate::error::IntentError::Catalog(_) => IssueKind::Request,
                _ => IssueKind::Input,
            };
            return AiResult::failure(vec![ResultIssue::new(kind, error.to_string())]);
        }
    };
    let info = T::type_info();
    let plan = match prompt::plan(&info, &options, intent, &input) {
        Ok(plan) => plan,
        Err(error) => {
            return AiResult::failure(vec![ResultIssue::new(
                IssueKind::Request,
                error.to_string(),
            )])
        }
    };
    let client_options = client.options();
    let max_attempts = options
        .max_attempts
        .unwrap_or(client_options.max_attempts)
        .max(1);
    let token_budget = options.max_total_tokens.or(client_options.max_total_tokens);
    let deadline = options
        .deadline
        .or(client_options.deadline)
        .map(|d| (d, Instant::now() + d));

    let mut attempts: Vec<AttemptRecord> = Vec::new();
    let mut usage = Usage::default();
    for number in 1..=max_attempts {
        let started = Instant::now();
        let request = plan.request(attempts.last());
        let mut record = AttemptRecord::new(number);

        let sent = match deadline {
            Some((limit, at)) => {
                let remaining = at.saturating_duration_since(Instant::now());
                match tokio::time::timeout(
                    remaining,
                    send(client, &request, options.provider.as_deref()),
                )
                .await
                {
                    Ok(sent) => sent,
                    Err(_) => {
                        record.latency = started.elapsed();
                        record.issues.push(deadline_issue(limit));
                        let issues = record.issues.clone();
                        attempts.push(record);
                        return AiResult::from_parts(None, issues, attempts, Some(usage));
                    }
                }
            }
            None => send(client, &request, options.provider.as_deref()).await,
        };

        let (provider_name, response) = match sent {
            Ok(sent) => sent,
            Err(error) => {
                record.latency = started.elapsed();
                record.provider = error.provider.clone();
                record
                    .issues
                    .push(ResultIssue::new(IssueKind::Provider, error.to_string()));
                let issues = record.issues.clone();
                attempts.push(record);
                return AiResult::from_parts(None, issues, attempts, Some(usage));
            }
        };
        record.provider = provider_name;
        record.model = response.model.clone();
        record.usage = response.usage;
        record.finish_reason = Some(response.finish_reason.clone());
        usage += response.usage;

        let value = match finish_issue(&response, &plan) {
            Some(issue) => {
                record.issues.push(issue);
                None
            }
            None => match read::read_reply::<T>(&info, &response.text) {
                Ok(value) => {
                    for check in &checks {
                        record.issues.extend(
                            check(&value)
                                .into_iter()
                                .map(|message| ResultIssue::new(IssueKind::Check, message)),
                        );
                    }
                    if !json_checks.is_empty() {
                        match crate::call::reply_json(&info, &response.text) {
                            Ok(json) => {
                                for check in &json_checks {
                                    record.issues.extend(check(&json));
                                }
                            }
                            Err(issue) => record.issues.push(issue),
                        }
                    }
                    Some(value)
                }
                Err(issues) => {
                    record.issues = issues;
                    None
                }
            },
        };
        record.raw_output = response.text;
        record.latency = started.elapsed();
        let passed = record.issues.is_empty();
        attempts.push(record);
        if passed {
            if let Some(value) = value {
                return AiResult::from_parts(Some(value), Vec::new(), attempts, Some(usage));
            }
        }

        if let Some(budget) = token_budget {
            if usage.total_tokens() >= budget && number < max_attempts {
                return fail_with_limit(
                    attempts,
                    usage,
                    format!(
                        "The call used {} tokens, reaching its token budget (max_total_tokens = {budget}); no further attempt was made.",
                        usage.total_tokens()
                    ),
                );
            }
        }
        if let Some((limit, at)) = deadline {
            if Instant::now() >= at && number < max_attempts {
                let mut issues = last_issues(&attempts);
                issues.push(deadline_issue(limit));
                return AiResult::from_parts(None, issues, attempts, Some(usage));
            }
        }
    }
    fail_with_limit(
        attempts,
        usage,
        format!("No attempt passed every check within max_attempts ({max_attempts})."),
    )
}

fn last_issues(attempts: &[AttemptRecord]) -> Vec<ResultIssue> {
    attempts
        .last()
        .map(|a| a.issues.clone())
        .unwrap_or_default()
}

fn fail_with_limit<T>(attempts: Vec<AttemptRecord>, usage: Usage, message: String) -> AiResult<T> {
    let mut issues = last_issues(&attempts);
    issues.push(ResultIssue::new(IssueKind::Limit, message));
    AiResult::from_parts(None, issues, attempts, Some(usage))
}

fn deadline_issue(limit: Duration) -> ResultIssue {
    ResultIssue::new(
        IssueKind::Limit,
        format!(
            "The call reached its deadline ({} ms) before an answer passed every check.",
            limit.as_millis()
        ),
    )
}

/// The issue of a reply that did not end normally: cut off, refused or filtered.
fn finish_issue(response: &AiResponse, plan: &PromptPlan) -> Option<ResultIssue> {
    match &response.finish_reason {
        FinishReason::Length => Some(ResultIssue::new(
            IssueKind::Truncated,
            match plan.max_output_tokens() {
                Some(limit) => format!(
                    "The reply was cut off at the token limit (max_output_tokens = {limit}). Give a complete answer that fits within {limit} tokens: shorter, with no extra text."
                ),
                None => "The reply was cut off at the model's token limit. Give a complete, shorter answer with no extra text.".to_owned(),
            },
        )),
        FinishReason::Refusal => Some(ResultIssue::new(
            IssueKind::Refused,
            match &response.refusal {
                Some(reason) if !reason.trim().is_empty() => format!(
                    "The model refused: {}. Carry out the intent on the input if it can be done safely.",
                    reason.trim()
                ),
                _ => "The model refused to answer. Carry out the intent on the input if it can be done safely.".to_owned(),
            },
        )),
        FinishReason::ContentFilter => Some(ResultIssue::new(
            IssueKind::Refused,
            "The provider's content filter stopped the reply. Answer without content the filter blocks.",
        )),
        _ => None,
    }
}

/// Sends a request to the named provider, or to the primary and then each fallback in turn.
///
/// Returns the answering provider's name with its reply, or the last provider's error.
pub(crate) async fn send(
    client: &IntentClient,
    request: &AiRequest,
    named: Option<&str>,
) -> Result<(String, AiResponse), ProviderError> {
    let providers = client.providers();
    if let Some(name) = named {
        let Some(provider) = providers.iter().find(|p| p.name() == name) else {
            let known: Vec<&str> = providers.iter().map(|p| p.name()).collect();
            return Err(ProviderError::new(
                crate::provider::ProviderErrorKind::Config,
                format!(
                    "no provider named \"{name}\"; this client has: {}",
                    known.join(", ")
                ),
            ));
        };
        return complete(provider, request).await;
    }
    let mut last_error = None;
    for (index, provider) in providers.iter().enumerate() {
        match complete(provider, request).await {
            Ok(answer) => return Ok(answer),
            Err(error) => {
                if index + 1 < providers.len() {
                    tracing::warn!(
                        provider = provider.name(),
                        error = %error,
                        "provider failed; asking the fallback"
                    );
                }
                last_error = Some(error);
            }
        }
    }
    Err(last_error.unwrap_or_else(|| {
        ProviderError::new(
            crate::provider::ProviderErrorKind::Config,
            "the client has no provider",
        )
    }))
}

async fn complete(
    provider: &Arc<dyn Provider>,
    request: &AiRequest,
) -> Result<(String, AiResponse), ProviderError> {
    let name = provider.name().to_owned();
    match provider.complete(request).await {
        Ok(response) => Ok((name, response)),
        Err(error) => {
            let error = if error.provider.is_empty() {
                error.with_provider(name)
            } else {
                error
            };
            Err(error)
        }
    }
}

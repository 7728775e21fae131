//! The attempt loop: send, read, verify, check, judge, and retry with the findings, within the
//! call's limits (attempts, token budget, deadline).

use std::time::{Duration, Instant};

use tracing::{field, Instrument};

use crate::cache::{CacheKey, CachedReply};
use crate::call::{AiCall, Check, JsonCheck};
use crate::client::IntentClient;
use crate::input::SerializedInput;
use crate::intent::Intent;
use crate::judge::{self, JudgeCase, Verdict};
use crate::options::AiRequestOptions;
use crate::prompt::{self, PromptPlan};
use crate::provider::{AiResponse, FinishReason, ProviderErrorKind};
use crate::read;
use crate::request::AiRequest;
use crate::result::{AiResult, AttemptRecord, IssueKind, ResultIssue, Usage};
use crate::send::send_within;
use crate::shape::TypeInfo;

/// Runs a call to its end: a verified value, or the issues that kept every attempt from one.
pub(crate) async fn run<T: Intent + Send>(call: AiCall<'_, T>) -> AiResult<T> {
    let span = tracing::info_span!(
        "intent.call",
        target = std::any::type_name::<T>(),
        attempts = field::Empty,
        input_tokens = field::Empty,
        output_tokens = field::Empty,
        outcome = field::Empty,
    );
    let result = run_inner(call).instrument(span.clone()).await;
    let usage = result.usage();
    span.record("attempts", result.attempts().len());
    span.record("input_tokens", usage.input_tokens);
    span.record("output_tokens", usage.output_tokens);
    span.record(
        "outcome",
        if result.is_success() {
            "success"
        } else {
            "failure"
        },
    );
    result
}

/// What the call is held to.
struct Limits {
    max_attempts: u32,
    token_budget: Option<u64>,
    deadline: Option<(Duration, Instant)>,
}

impl Limits {
    fn new(client: &IntentClient, options: &AiRequestOptions) -> Limits {
        let client_options = client.options();
        Limits {
            max_attempts: options
                .max_attempts
                .unwrap_or(client_options.max_attempts)
                .max(1),
            token_budget: options.max_total_tokens.or(client_options.max_total_tokens),
            deadline: options
                .deadline
                .or(client_options.deadline)
                .map(|d| (d, Instant::now() + d)),
        }
    }

    fn deadline_issue(&self) -> Option<ResultIssue> {
        self.deadline.map(|(limit, _)| {
            ResultIssue::new(
                IssueKind::Limit,
                format!(
                    "The call reached its deadline ({} ms) before an answer passed every check.",
                    limit.as_millis()
                ),
            )
        })
    }

    /// Runs `work` until the deadline; `None` when the deadline came first.
    async fn within<F: std::future::Future>(&self, work: F) -> Option<F::Output> {
        match self.deadline {
            None => Some(work.await),
            Some((_, at)) => {
                tokio::time::timeout(at.saturating_duration_since(Instant::now()), work)
                    .await
                    .ok()
            }
        }
    }

    fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|(_, at)| Instant::now() >= at)
    }

    fn budget_issue(&self, usage: Usage) -> Option<ResultIssue> {
        let budget = self.token_budget?;
        (usage.total_tokens() >= budget).then(|| {
            ResultIssue::new(
                IssueKind::Limit,
                format!(
                    "The call used {} tokens, reaching its token budget (max_total_tokens = {budget}); no further attempt was made.",
                    usage.total_tokens()
                ),
            )
        })
    }
}

/// Reads a reply's text into the value, or returns every finding (sent back on the next attempt).
pub(crate) type Verifier<'c, T> = dyn Fn(&str) -> Result<T, Vec<ResultIssue>> + Send + Sync + 'c;

/// Everything an attempt needs that stays the same across attempts.
struct Job<'c, 'a, T> {
    client: &'c IntentClient,
    plan: &'c PromptPlan,
    input: &'c SerializedInput,
    intent: &'a str,
    options: &'c AiRequestOptions,
    verify: &'c Verifier<'c, T>,
}

async fn run_inner<T: Intent + Send>(call: AiCall<'_, T>) -> AiResult<T> {
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
    let verify = |text: &str| read_checked(&info, &checks, &json_checks, text);
    run_plan(client, &plan, &input, intent, &options, &verify).await
}

/// Runs the attempts of a planned call whose replies `verify` reads: the loop of every call, and
/// of each chunk of a collection call.
pub(crate) async fn run_plan<T: Send>(
    client: &IntentClient,
    plan: &PromptPlan,
    input: &SerializedInput,
    intent: &str,
    options: &AiRequestOptions,
    verify: &Verifier<'_, T>,
) -> AiResult<T> {
    let limits = Limits::new(client, options);
    let job = Job {
        client,
        plan,
        input,
        intent,
        options,
        verify,
    };
    attempts(&job, &limits).await
}

/// Reads a reply into a `T` and runs the call's checks on it.
fn read_checked<T: Intent>(
    info: &TypeInfo,
    checks: &[Check<'_, T>],
    json_checks: &[JsonCheck<'_>],
    text: &str,
) -> Result<T, Vec<ResultIssue>> {
    let (value, json) = if json_checks.is_empty() {
        (read::read_reply::<T>(info, text)?, None)
    } else {
        let (value, json) = read::read_reply_json::<T>(info, text)?;
        (value, Some(json))
    };
    let mut issues: Vec<ResultIssue> = checks
        .iter()
        .flat_map(|check| check(&value))
        .map(|message| ResultIssue::new(IssueKind::Check, message))
        .collect();
    if let Some(json) = json {
        issues.extend(json_checks.iter().flat_map(|check| check(&json)));
    }
    if issues.is_empty() {
        Ok(value)
    } else {
        Err(issues)
    }
}

async fn attempts<T: Send>(job: &Job<'_, '_, T>, limits: &Limits) -> AiResult<T> {
    let mut records: Vec<AttemptRecord> = Vec::new();
    let mut usage = Usage::default();
    let cache = job.client.cache().filter(|_| !job.options.no_cache);
    let mut first_key: Option<CacheKey> = None;

    for number in 1..=limits.max_attempts {
        let started = Instant::now();
        let request = job.plan.request(records.last());
        let mut record = AttemptRecord::new(number);
        let span = tracing::info_span!(
            "intent.attempt",
            attempt = number,
            provider = field::Empty,
            model = field::Empty,
            from_cache = false,
            input_tokens = field::Empty,
            output_tokens = field::Empty,
            latency_ms = field::Empty,
            outcome = field::Empty,
        );

        let answered = async {
            // Only a first attempt may be served from the cache; retries always go to a model.
            if number == 1 {
                if let Some(cache) = cache {
                    let key = cache_key(job.client, &request, job.options.provider.as_deref());
                    let hit = match cache.get(&key).await {
                        Ok(hit) => hit,
                        Err(error) => {
                            tracing::warn!(%error, "cache read failed; asking the model");
                            None
                        }
                    };
                    first_key = Some(key);
                    if let Some(hit) = hit {
                        return Ok((true, hit.provider.clone(), from_cache(hit)));
                    }
                }
            }
            let deadline = limits.deadline.map(|(_, at)| at);
            send_within(
                job.client,
                &request,
                job.options.provider.as_deref(),
                deadline,
            )
            .await
            .map(|(provider, response)| (false, provider, counted(response)))
        }
        .instrument(span.clone());

        let Some(answered) = limits.within(answered).await else {
            record.latency = started.elapsed();
            record.issues.extend(limits.deadline_issue());
            span.record("outcome", "deadline");
            let issues = record.issues.clone();
            records.push(record);
            return AiResult::from_parts(None, issues, records, Some(usage));
        };
        let (cached, provider, response) = match answered {
            Ok(answer) => answer,
            Err(error) => {
                record.latency = started.elapsed();
                record.provider.clone_from(&error.provider);
                // A rate limit that would hold the request past the deadline is the call's limit.
                let kind = match error.kind {
                    ProviderErrorKind::RateLimitWait => IssueKind::Limit,
                    _ => IssueKind::Provider,
                };
                record
                    .issues
                    .push(ResultIssue::new(kind, error.to_string()));
                span.record("outcome", "provider failed");
                let issues = record.issues.clone();
                records.push(record);
                return AiResult::from_parts(None, issues, records, Some(usage));
            }
        };
        record.from_cache = cached;
        record.provider = provider;
        record.model.clone_from(&response.model);
        record.usage = response.usage;
        record.finish_reason = Some(response.finish_reason.clone());
        usage += response.usage;

        let mut value = verify(job, &response, &mut record);
        let mut judge_broken = false;
        if value.is_some() && record.issues.is_empty() {
            if let Some(judge_options) = &job.options.judge {
                let judged = limits
                    .within(
                        judge::judge(
                            job.client,
                            JudgeCase {
                                intent: job.intent,
                                input: job.input,
                                answer: &response.text,
                                answered_by: &record.provider,
                                model: request.model.as_deref(),
                                max_output_tokens: request.max_output_tokens,
                            },
                            judge_options,
                        )
                        .instrument(span.clone()),
                    )
                    .await;
                let Some(judgement) = judged else {
                    record.raw_output = response.text;
                    record.latency = started.elapsed();
                    record.issues.extend(limits.deadline_issue());
                    let issues = record.issues.clone();
                    records.push(record);
                    return AiResult::from_parts(None, issues, records, Some(usage));
                };
                record.usage += judgement.usage;
                usage += judgement.usage;
                match judgement.verdict {
                    Verdict::Pass => {}
                    Verdict::Fail(problems) if problems.is_empty() => {
                        record.issues.push(ResultIssue::new(
                            IssueKind::Judge,
                            "A reviewer found that the answer does not carry out the intent on the input. Re-read the intent and the input and answer again.",
                        ));
                    }
                    Verdict::Fail(problems) => record.issues.extend(
                        problems
                            .into_iter()
                            .map(|p| ResultIssue::new(IssueKind::Judge, p)),
                    ),
                    Verdict::Broken(message) => {
                        judge_broken = true;
                        record.issues.push(ResultIssue::new(
                            IssueKind::JudgeFailed,
                            format!("The answer passed every check, but the judge could not decide: {message}."),
                        ));
                    }
                }
            }
        }
        if !record.issues.is_empty() {
            value = None;
        }

        record.raw_output = response.text;
        record.latency = started.elapsed();
        span.record("provider", record.provider.as_str());
        span.record("model", record.model.as_str());
        span.record("from_cache", record.from_cache);
        span.record("input_tokens", record.usage.input_tokens);
        span.record("output_tokens", record.usage.output_tokens);
        span.record("latency_ms", record.latency.as_millis() as u64);
        span.record("outcome", if value.is_some() { "passed" } else { "failed" });
        tracing::debug!(parent: &span, issues = record.issues.len(), "attempt verified");

        if let Some(value) = value {
            if let (Some(cache), Some(key), false) = (cache, &first_key, record.from_cache) {
                let reply = CachedReply::new(
                    record.raw_output.clone(),
                    record.provider.clone(),
                    record.model.clone(),
                    record.usage,
                );
                if let Err(error) = cache.put(key, &reply).await {
                    tracing::warn!(%error, "cache write failed; the answer is returned all the same");
                }
            }
            records.push(record);
            return AiResult::from_parts(Some(value), Vec::new(), records, Some(usage));
        }
        records.push(record);

        // The judge's own failure is not the answer's fault: asking the model again would not help.
        if judge_broken {
            let issues = last_issues(&records);
            return AiResult::from_parts(None, issues, records, Some(usage));
        }
        if number < limits.max_attempts {
            if let Some(issue) = limits.budget_issue(usage) {
                return fail_with(records, usage, issue);
            }
            if limits.past_deadline() {
                if let Some(issue) = limits.deadline_issue() {
                    return fail_with(records, usage, issue);
                }
            }
        }
    }
    let max_attempts = limits.max_attempts;
    fail_with(
        records,
        usage,
        ResultIssue::new(
            IssueKind::Limit,
            format!("No attempt passed every check within max_attempts ({max_attempts})."),
        ),
    )
}

/// Reads and checks one reply, recording its issues; the value when it read.
fn verify<T>(job: &Job<'_, '_, T>, response: &AiResponse, record: &mut AttemptRecord) -> Option<T> {
    if let Some(issue) = finish_issue(response, job.plan) {
        record.issues.push(issue);
        return None;
    }
    match (job.verify)(&response.text) {
        Ok(value) => Some(value),
        Err(issues) => {
            record.issues = issues;
            None
        }
    }
}

fn cache_key(client: &IntentClient, request: &AiRequest, named: Option<&str>) -> CacheKey {
    let providers = client.providers();
    let provider = named
        .and_then(|name| providers.iter().find(|p| p.name() == name))
        .or_else(|| providers.first());
    let provider_name = provider.map(|p| p.name()).unwrap_or_default();
    let model = request
        .model
        .as_deref()
        .or_else(|| provider.and_then(|p| p.default_model()))
        .unwrap_or_default();
    CacheKey::for_request(provider_name, model, request)
}

/// A reply from a model is one call, whatever usage its provider reported.
pub(crate) fn counted(mut response: AiResponse) -> AiResponse {
    response.usage.calls = response.usage.calls.max(1);
    response
}

fn from_cache(hit: CachedReply) -> AiResponse {
    let mut response = AiResponse::new(hit.text, hit.model);
    // A reply served from the cache cost nothing now.
    response.usage = Usage::default();
    response
}

fn last_issues(records: &[AttemptRecord]) -> Vec<ResultIssue> {
    records.last().map(|a| a.issues.clone()).unwrap_or_default()
}

fn fail_with<T>(records: Vec<AttemptRecord>, usage: Usage, limit: ResultIssue) -> AiResult<T> {
    let mut issues = last_issues(&records);
    issues.push(limit);
    AiResult::from_parts(None, issues, records, Some(usage))
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

//! What is wrong with an answer: how the reply ended, what the reader and the call's checks find,
//! and, for an answer that passed them, what the judge says.

use tracing::Instrument;

mod copied_example;
mod empty_list;
mod rule_bound;
mod truncation;

use super::limits::Limits;
use super::Job;
use crate::call::{Check, JsonCheck};
use crate::intent::Intent;
use crate::judge::{self, JudgeCase, Verdict};
use crate::observe;
use crate::provider::{AiResponse, FinishReason};
use crate::read::{self, RuntimeSchema};
use crate::request::AiRequest;
use crate::result::{AttemptRecord, IssueKind, JudgeRecord, ResultIssue, Usage};
use crate::shape::TypeInfo;
pub(super) use copied_example::CopiedPolicy;
pub(super) use empty_list::EmptyListPolicy;
pub(super) use rule_bound::BoundPolicy;
use truncation::cut_issue;
pub(super) use truncation::repeated_cut;

/// A text input, as the checks' tests give it.
#[cfg(test)]
fn text_input(text: &str) -> crate::input::SerializedInput {
    crate::input::serialize(text, usize::MAX).expect("a text input")
}

/// How an answer's checks ended.
pub(super) enum Checked<T> {
    /// It passed every check.
    Passed(T),
    /// Its findings are in the attempt's record; the next attempt may fix them.
    Failed,
    /// The judge itself failed: asking the model again would not help. The finding is recorded.
    JudgeBroken,
    /// The deadline came while the judge was deciding.
    Deadline,
}

/// Checks `response`, the answer to `request`, recording every finding in `record`; the judge's
/// usage is added to `record` and to `usage`.
pub(super) async fn check<T>(
    job: &Job<'_, '_, T>,
    limits: &Limits,
    request: &AiRequest,
    response: &AiResponse,
    record: &mut AttemptRecord,
    usage: &mut Usage,
    span: &tracing::Span,
) -> Checked<T> {
    if let Some(issue) = finish_issue(response, request.max_output_tokens) {
        record.issues.push(issue);
        return Checked::Failed;
    }
    let value = match (job.verify)(&response.text) {
        Ok(value) => value,
        Err(issues) => {
            record.issues = issues;
            return Checked::Failed;
        }
    };
    let Some(judge_options) = &job.options.judge else {
        return Checked::Passed(value);
    };
    let case = JudgeCase {
        intent: job.intent,
        input: job.input,
        answer: &response.text,
        answered_by: &record.provider,
        model: request.model.as_deref(),
        max_output_tokens: request.max_output_tokens,
    };
    // Boxed: the judge's call is a whole send, and held inline it would make every attempt's
    // future (moved at each await) as large, for calls that never ask a judge.
    let judging = Box::pin(
        judge::judge(job.client, case, judge_options).instrument(observe::spans::judge(span)),
    );
    let judged = limits.within(judging).await;
    let Some(judgement) = judged else {
        return Checked::Deadline;
    };
    record.usage += judgement.usage;
    *usage += judgement.usage;
    let (passed, problems, error) = match &judgement.verdict {
        Verdict::Pass => (true, Vec::new(), None),
        Verdict::Fail(problems) => (false, problems.clone(), None),
        Verdict::Broken(message) => (false, Vec::new(), Some(message.clone())),
    };
    record.judge = Some(JudgeRecord {
        passed,
        problems,
        error,
        provider: judgement.provider,
        model: judgement.model,
        usage: judgement.usage,
    });
    match judgement.verdict {
        Verdict::Pass => return Checked::Passed(value),
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
            record.issues.push(ResultIssue::new(
                IssueKind::JudgeFailed,
                format!(
                    "The answer passed every check, but the judge could not decide: {message}."
                ),
            ));
            return Checked::JudgeBroken;
        }
    }
    Checked::Failed
}

/// Reads a reply into a `T` and runs the call's checks on it: the verifier of a single call.
/// A call with a runtime schema reads its reply as JSON verified against the whole schema
/// (a derived type is verified by its shape, and never pays for a schema). With `want_json`, or
/// JSON checks to run, the answer's JSON comes back with it.
pub(super) fn read_checked<T: Intent>(
    info: &TypeInfo,
    schema: Option<&RuntimeSchema>,
    checks: &[Check<'_, T>],
    json_checks: &[JsonCheck<'_>],
    text: &str,
    want_json: bool,
) -> Result<(T, Option<serde_json::Value>), Vec<ResultIssue>> {
    let want_json = want_json || !json_checks.is_empty();
    let (value, json) = match schema {
        Some(schema) => {
            let (json, mut findings) = read::read_schema_reply(schema, text)?;
            if !findings.is_empty() {
                // Every violation at once: the JSON checks (an intent file's rules) too.
                findings.extend(json_checks.iter().flat_map(|check| check(&json)));
                return Err(read::bounded_findings(findings));
            }
            if want_json {
                (read::deserialize(json.clone())?, Some(json))
            } else {
                (read::deserialize(json)?, None)
            }
        }
        None if want_json => {
            let (value, json) = read::read_reply_json::<T>(info, text)?;
            (value, Some(json))
        }
        None => (read::read_reply::<T>(info, text)?, None),
    };
    let mut issues: Vec<ResultIssue> = checks
        .iter()
        .flat_map(|check| check(&value))
        .map(|message| ResultIssue::new(IssueKind::Check, message))
        .collect();
    if let Some(json) = &json {
        issues.extend(json_checks.iter().flat_map(|check| check(json)));
    }
    if issues.is_empty() {
        Ok((value, json))
    } else {
        Err(issues)
    }
}

/// The issue of a reply that did not end normally: cut off, refused or filtered.
pub(crate) fn finish_issue(
    response: &AiResponse,
    max_output_tokens: Option<u32>,
) -> Option<ResultIssue> {
    match &response.finish_reason {
        FinishReason::Length => Some(cut_issue(max_output_tokens, response.text.chars().count())),
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
        FinishReason::Abnormal(reason) => Some(ResultIssue::new(
            IssueKind::Provider,
            format!(
                "The provider ended the reply abnormally (finish reason {reason}), so it was not read. Answer again, completely, in the format asked for."
            ),
        )),
        _ => None,
    }
}

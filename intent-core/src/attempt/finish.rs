//! The end of an attempt and of a call: the attempt's record and span, the cache write of a reply
//! that passed, and the result with every attempt.

use std::time::Instant;

use super::reply::Answer;
use crate::cache::{Cache, CacheKey, CachedReply};
use crate::observe;
use crate::provider::AiResponse;
use crate::result::{AiResult, AttemptRecord, IssueKind, ResultIssue, Usage};
use crate::shape::TypeInfo;

/// The attempts of a call so far, and everything they used.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) records: Vec<AttemptRecord>,
    pub(super) usage: Usage,
}

impl Tally {
    /// The last attempt's record, for the next attempt's retry sections.
    pub(super) fn last(&self) -> Option<&AttemptRecord> {
        self.records.last()
    }

    /// Ends the call with `record` last and no value, its issues the call's.
    pub(super) fn fail_at<T>(
        mut self,
        record: AttemptRecord,
        span: &tracing::Span,
        outcome: &str,
    ) -> AiResult<T> {
        observe::spans::close_attempt(span, &record, outcome);
        observe::attempt_failed(&record);
        let issues = record.issues.clone();
        self.records.push(record);
        AiResult::from_parts(None, issues, self.records, Some(self.usage))
    }

    /// Ends the call with no value: the last attempt's issues, then `limit`.
    pub(super) fn fail_with<T>(self, limit: Option<ResultIssue>) -> AiResult<T> {
        let mut issues = self.last_issues();
        issues.extend(limit);
        AiResult::from_parts(None, issues, self.records, Some(self.usage))
    }

    /// Ends the call with `value`, `record` last.
    pub(super) fn succeed<T>(mut self, value: T, mut record: AttemptRecord) -> AiResult<T> {
        note_taken_answers(&mut record, self.records.last());
        self.records.push(record);
        AiResult::from_parts(Some(value), Vec::new(), self.records, Some(self.usage))
    }

    fn last_issues(&self) -> Vec<ResultIssue> {
        self.records
            .last()
            .map(|a| a.issues.clone())
            .unwrap_or_default()
    }
}

/// Writes what `answer` says about the reply into its attempt's record, moving the names and
/// notices the record keeps (nothing reads them from the answer after this).
pub(super) fn record_answer(record: &mut AttemptRecord, answer: &mut Answer) {
    record.from_cache = answer.from_cache;
    record.provider = std::mem::take(&mut answer.provider);
    record.model = std::mem::take(&mut answer.response.model);
    record.usage = answer.response.usage;
    record.finish_reason = Some(answer.response.finish_reason.clone());
    record.reasoning = crate::send::reasoning_of(&answer.response);
    record.notices = std::mem::take(&mut answer.notices);
}

/// The findings a policy raises once per call, taking the same answer again as honest (copied
/// examples and sample values, rule bounds, empty lists).
const QUESTIONED_ONCE: [IssueKind; 3] = [
    IssueKind::CopiedExample,
    IssueKind::CopiedRule,
    IssueKind::Empty,
];

/// Notes on a passing attempt each finding of the attempt before it that its answer gives again
/// (the same value at the finding's path, or the same answer for a finding about the whole): the
/// policy questioned it once and took it as the model's word. A notice, not an issue: the call
/// succeeds, and the caller can see which values were taken after being questioned.
fn note_taken_answers(record: &mut AttemptRecord, previous: Option<&AttemptRecord>) {
    let Some(previous) = previous else { return };
    let questioned = |issue: &ResultIssue| QUESTIONED_ONCE.contains(&issue.kind);
    if previous.issues.is_empty() || !previous.issues.iter().all(questioned) {
        return;
    }
    let (Ok(now), Ok(then)) = (
        crate::read::read_json(&record.raw_output),
        crate::read::read_json(&previous.raw_output),
    ) else {
        return;
    };
    let envelope = format!("/{}", crate::schema::ENVELOPE_PROPERTY);
    for issue in &previous.issues {
        let pointer = issue
            .path
            .as_deref()
            .and_then(|path| path.strip_prefix(envelope.as_str()))
            .unwrap_or("");
        let given = now.value.pointer(pointer);
        if given.is_none() || given != then.value.pointer(pointer) {
            continue;
        }
        record.notices.push(ResultIssue {
            message: format!(
                "Taken as the model's answer, given again after attempt {} questioned it: {}",
                previous.number, issue.message
            ),
            ..issue.clone()
        });
    }
}

/// Writes the confidence of the answer's enum and `bool` members (the shape `info`) into the
/// record of an attempt that asked for log probabilities, or a notice saying why there is none.
pub(super) fn record_confidence(
    record: &mut AttemptRecord,
    info: &TypeInfo,
    response: &AiResponse,
) {
    match response.logprobs.as_deref() {
        Some(tokens) => match crate::trust::confidence::confidence(info, &response.text, tokens) {
            Ok(confidence) => record.confidence = confidence,
            Err(notice) => record.notices.push(notice),
        },
        None if !response.text.is_empty() => record.notices.push(ResultIssue::new(
            IssueKind::Provider,
            "The provider gave no log probabilities with this reply, so no member's confidence is given.",
        )),
        None => {}
    }
}

/// Closes an attempt's record with its raw output and latency, and its span with what happened.
pub(super) fn close(
    record: &mut AttemptRecord,
    raw_output: String,
    started: Instant,
    span: &tracing::Span,
    passed: bool,
) {
    record.raw_output = raw_output;
    record.latency = started.elapsed();
    observe::spans::close_attempt(span, record, if passed { "passed" } else { "failed" });
    if !passed {
        observe::attempt_failed(record);
    }
    tracing::debug!(parent: span, issues = record.issues.len(), "attempt verified");
}

/// Stores a reply that passed every check under the first attempt's key. A reply that came from
/// the cache is not written again; a failed write is a warning, never a failed call.
pub(super) async fn store(
    cache: Option<&dyn Cache>,
    key: Option<&CacheKey>,
    record: &AttemptRecord,
) {
    let (Some(cache), Some(key), false) = (cache, key, record.from_cache) else {
        return;
    };
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

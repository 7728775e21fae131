//! The end of an attempt and of a call: the attempt's record and span, the cache write of a reply
//! that passed, and the result with every attempt.

use std::time::Instant;

use super::reply::Answer;
use crate::cache::{Cache, CacheKey, CachedReply};
use crate::observe;
use crate::result::{AiResult, AttemptRecord, ResultIssue, Usage};

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
    pub(super) fn succeed<T>(mut self, value: T, record: AttemptRecord) -> AiResult<T> {
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

/// Writes what `answer` says about the reply into its attempt's record.
pub(super) fn record_answer(record: &mut AttemptRecord, answer: &Answer) {
    record.from_cache = answer.from_cache;
    record.provider.clone_from(&answer.provider);
    record.model.clone_from(&answer.response.model);
    record.usage = answer.response.usage;
    record.finish_reason = Some(answer.response.finish_reason.clone());
    record.reasoning = crate::send::reasoning_of(&answer.response);
    record.notices.clone_from(&answer.notices);
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

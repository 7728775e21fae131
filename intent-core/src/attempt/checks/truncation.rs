//! Replies cut off at the token limit, and what the next attempt does about them.
//!
//! The policy:
//!
//! - A cut-off reply fails its attempt with an [`IssueKind::Truncated`] issue that states the
//!   limit, how much of the reply came before the cut, and asks for a complete, shorter answer
//!   that fits; the retry shows it as any other finding (with the cut reply as the previous
//!   attempt), so the model knows why it failed and how much room it has.
//! - The limit is never raised on a retry: `max_output_tokens` is the caller's bound on cost and
//!   latency, and the token budget ([`token_budget`](crate::attempt::token_budget)) may lower it, never raise it.
//! - A retry cut off again with the very same text as the attempt before it ends the call: the
//!   model is not heeding the finding, and asking again would cost the same for the same reply.
//!   The call's last issue then says so and asks the caller to raise `max_output_tokens` or ask
//!   for less.

use crate::provider::FinishReason;
use crate::result::{AttemptRecord, IssueKind, ResultIssue};

/// The issue of a reply cut off at the token limit `limit` (the model's own when `None`), after
/// `chars` characters.
pub(in crate::attempt) fn cut_issue(limit: Option<u32>, chars: usize) -> ResultIssue {
    ResultIssue::new(
        IssueKind::Truncated,
        match limit {
            Some(limit) => format!(
                "The reply was cut off at the token limit (max_output_tokens = {limit}) after {chars} characters. Give a complete answer that fits within {limit} tokens: shorter, with no extra text."
            ),
            None => format!(
                "The reply was cut off at the model's token limit after {chars} characters. Give a complete, shorter answer with no extra text."
            ),
        },
    )
}

/// The issue that ends a call whose attempt `record` was cut off with the same text as the
/// attempt before it, `previous`, when it was.
pub(in crate::attempt) fn repeated_cut(
    previous: Option<&AttemptRecord>,
    record: &AttemptRecord,
) -> Option<ResultIssue> {
    let cut = |r: &AttemptRecord| r.finish_reason == Some(FinishReason::Length);
    let previous = previous?;
    (cut(previous) && cut(record) && previous.raw_output == record.raw_output).then(|| {
        ResultIssue::new(
            IssueKind::Limit,
            format!(
                "Attempts {} and {} were cut off at the token limit with the same reply; no further attempt was made. Raise max_output_tokens or ask for a shorter result.",
                previous.number, record.number
            ),
        )
    })
}

//! The token budget (`max_total_tokens`): input plus output tokens over every model call of a
//! call, the judge's included.
//!
//! What it bounds, and how:
//!
//! - Each attempt's `max_output_tokens` is capped by what the budget has left, less the least
//!   the attempt's prompt is known to take: the output of an attempt can never overrun it.
//! - An attempt that cannot fit is not made: once the tokens used, plus the input tokens of the
//!   shortest prompt already sent (a retry's prompt is the first one plus its retry sections, so
//!   it is never shorter), leave no room for a reply, the call ends with an
//!   [`IssueKind::Limit`] issue that states the figures.
//!
//! What it cannot bound: input tokens are only known from a reply, so the first attempt's prompt
//! (and a retry's growth beyond the first prompt) can take the call past its budget. A budget
//! smaller than the prompt ends the call after its first attempt, having cost that prompt and at
//! most the budget's worth of output. The judge's reply is capped the same way as the answer's
//! (it takes at least 256 tokens).

use super::limits::Limits;
use crate::request::AiRequest;
use crate::result::{AttemptRecord, IssueKind, ResultIssue, Usage};

/// Caps `request`'s `max_output_tokens` by what the budget leaves, or returns the issue that
/// ends the call when no reply would fit. `records` are the call's attempts so far.
pub(super) fn fit(
    request: &mut AiRequest,
    limits: &Limits,
    usage: Usage,
    records: &[AttemptRecord],
) -> Result<(), ResultIssue> {
    let Some(budget) = limits.token_budget() else {
        return Ok(());
    };
    let used = usage.total_tokens();
    // The shortest prompt sent so far is the least the next one takes.
    let prompt = records
        .iter()
        .filter(|r| !r.from_cache && r.usage.input_tokens > 0)
        .map(|r| r.usage.input_tokens)
        .min()
        .unwrap_or(0);
    let room = budget.saturating_sub(used).saturating_sub(prompt);
    if room == 0 {
        return Err(ResultIssue::new(
            IssueKind::Limit,
            if records.is_empty() {
                format!(
                    "The token budget (max_total_tokens = {budget}) leaves no room for a reply; no attempt was made."
                )
            } else if prompt == 0 {
                format!(
                    "The call used {used} tokens of its token budget (max_total_tokens = {budget}); no further attempt was made."
                )
            } else {
                format!(
                    "The call used {used} tokens of its token budget (max_total_tokens = {budget}), and the next attempt's prompt alone takes at least {prompt}; no further attempt was made."
                )
            },
        ));
    }
    let room = u32::try_from(room).unwrap_or(u32::MAX);
    request.max_output_tokens = Some(request.max_output_tokens.map_or(room, |t| t.min(room)));
    Ok(())
}

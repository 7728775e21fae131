//! What a call is held to: its attempts, its token budget and its deadline.

use std::future::Future;
use std::time::{Duration, Instant};

use futures::future::Either;
use futures::FutureExt;

use crate::client::IntentClient;
use crate::options::AiRequestOptions;
use crate::result::{IssueKind, ResultIssue, Usage};

/// A call's limits, the request's options over the client's.
pub(crate) struct Limits {
    pub(crate) max_attempts: u32,
    token_budget: Option<u64>,
    deadline: Option<(Duration, Instant)>,
}

impl Limits {
    pub(crate) fn new(client: &IntentClient, options: &AiRequestOptions) -> Limits {
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

    /// The issue of a call that reached its deadline, when it has one.
    pub(super) fn deadline_issue(&self) -> Option<ResultIssue> {
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

    /// Runs `work` until the deadline; `None` when the deadline came first. (A plain function
    /// rather than an `async fn`, which would hold `work` twice: as its argument and as what it
    /// awaits.)
    pub(super) fn within<F: Future>(&self, work: F) -> impl Future<Output = Option<F::Output>> {
        match self.deadline {
            None => Either::Left(work.map(Some)),
            Some((_, at)) => Either::Right(
                tokio::time::timeout(at.saturating_duration_since(Instant::now()), work)
                    .map(Result::ok),
            ),
        }
    }

    /// The call's token budget, when it has one.
    pub(super) fn token_budget(&self) -> Option<u64> {
        self.token_budget
    }

    /// When the deadline falls, if the call has one.
    pub(super) fn deadline_at(&self) -> Option<Instant> {
        self.deadline.map(|(_, at)| at)
    }

    pub(super) fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|(_, at)| Instant::now() >= at)
    }

    /// The issue of a call whose `usage` reached its token budget, when it did.
    pub(crate) fn budget_issue(&self, usage: Usage) -> Option<ResultIssue> {
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

    /// The issue of a call whose every attempt failed.
    pub(crate) fn attempts_issue(&self) -> ResultIssue {
        ResultIssue::new(
            IssueKind::Limit,
            format!(
                "No attempt passed every check within max_attempts ({}).",
                self.max_attempts
            ),
        )
    }
}

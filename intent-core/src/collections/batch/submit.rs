//! One round's requests as provider batches: split within the provider's limits, staged and
//! created once each (recorded in the state after each step), then polled until they end.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::options::BatchOptions;
use super::state::{BatchState, StateStore};
use crate::provider::batch::{BatchApi, End, ItemFailure, Phase, ResultLine, Status};
use crate::provider::{AiResponse, ProviderError, ProviderErrorKind};

/// The requests of one batch: a range of the round's lines.
pub(super) type Split = std::ops::Range<usize>;

/// Splits `lines` into batches of at most `max_requests` requests and the provider's bytes, as
/// `api` counts them. A line larger than a whole batch gets a batch of its own, which the caller
/// never asks for: it refuses such a line first.
pub(super) fn split(api: &dyn BatchApi, lines: &[Vec<u8>], max_requests: usize) -> Vec<Split> {
    let limits = api.limits();
    let max_requests = max_requests.min(limits.max_requests).max(1);
    let mut splits = Vec::new();
    let mut start = 0;
    let mut bytes = 0;
    for (i, line) in lines.iter().enumerate() {
        let size = line.len() + 1;
        if i > start
            && (i - start >= max_requests || api.batch_bytes(bytes + size) > limits.max_bytes)
        {
            splits.push(start..i);
            start = i;
            bytes = 0;
        }
        bytes += size;
    }
    if start < lines.len() {
        splits.push(start..lines.len());
    }
    splits
}

/// Submits each split not yet submitted, as the state records it, and returns the batch ids
/// (`Err` for a split whose batch could not be created, with why).
pub(super) async fn submit(
    api: &dyn BatchApi,
    store: &mut StateStore,
    round: usize,
    lines: &[Vec<u8>],
    splits: &[Split],
) -> Result<Vec<Result<String, ProviderError>>, String> {
    {
        let state = store.round(round);
        if state.batches.is_empty() {
            state.batches = splits
                .iter()
                .map(|s| BatchState {
                    requests: s.len(),
                    ..BatchState::default()
                })
                .collect();
        } else if state.batches.len() != splits.len()
            || state
                .batches
                .iter()
                .zip(splits)
                .any(|(b, s)| b.requests != s.len())
        {
            return Err(format!("The batch state file records round {round} split another way than this run splits it; it was not resumed and nothing was submitted."));
        }
    }
    let mut ids = Vec::with_capacity(splits.len());
    for (i, split) in splits.iter().enumerate() {
        let batch = store.round(round).batches[i].clone();
        if let Some(id) = batch.id {
            ids.push(Ok(id));
            continue;
        }
        let lines = &lines[split.clone()];
        let staged = match batch.staged {
            Some(staged) => {
                // Staged before the process stopped: the batch may exist already.
                match api.find(&staged, lines.len()).await {
                    Ok(Some(id)) => {
                        store.round(round).batches[i].id = Some(id.clone());
                        store.save()?;
                        ids.push(Ok(id));
                        continue;
                    }
                    Ok(None) => staged,
                    Err(e) => {
                        ids.push(Err(e));
                        continue;
                    }
                }
            }
            None => match api.stage(lines).await {
                Ok(staged) => {
                    store.round(round).batches[i].staged = Some(staged.clone());
                    store.save()?;
                    staged
                }
                Err(e) => {
                    ids.push(Err(e));
                    continue;
                }
            },
        };
        let created = match api.create(&staged, lines).await {
            Ok(id) => Ok(id),
            // The fault may hide a batch that was created: look before giving up.
            Err(error) => match api.find(&staged, lines.len()).await {
                Ok(Some(id)) => Ok(id),
                _ => Err(error),
            },
        };
        if let Ok(id) = &created {
            store.round(round).batches[i].id = Some(id.clone());
            store.save()?;
        }
        ids.push(created);
    }
    Ok(ids)
}

/// How waiting for a round's batches ended.
pub(super) enum Waited {
    /// Every batch ended (each with its status).
    Ended(Vec<Status>),
    /// The wait limit passed first; the batches are left running.
    Left,
}

/// Polls `ids` until each has ended, backing off while nothing changes, within `deadline`.
/// When the deadline passes and `cancel` is set, the batches are cancelled and waited for.
/// A status the provider fails to give is tried again at the next poll; only a fault that no
/// wait can mend (a refused key, a malformed reply) ends the wait with an error.
pub(super) async fn wait(
    api: &dyn BatchApi,
    ids: &[String],
    options: &BatchOptions,
    deadline: Option<Instant>,
    cancel: bool,
    mut on_status: impl FnMut(&[Option<Status>]),
) -> Result<Waited, ProviderError> {
    let mut statuses: Vec<Option<Status>> = vec![None; ids.len()];
    let mut interval = options.poll_interval;
    let max_interval = options.poll_interval * BatchOptions::MAX_BACKOFF_FACTOR;
    let mut cancelled = false;
    loop {
        let mut changed = false;
        for (id, status) in ids.iter().zip(statuses.iter_mut()) {
            if matches!(status, Some(s) if matches!(s.phase, Phase::Ended(_))) {
                continue;
            }
            match api.status(id).await {
                Ok(new) => {
                    let moved = status.as_ref().is_none_or(|old| {
                        old.phase != new.phase
                            || old.answered != new.answered
                            || old.failed != new.failed
                    });
                    changed |= moved;
                    *status = Some(new);
                }
                Err(e) if passing(&e) => {
                    tracing::warn!(batch = id.as_str(), error = %e, "reading a batch failed; trying again at the next poll");
                }
                Err(e) => return Err(e),
            }
        }
        on_status(&statuses);
        if statuses
            .iter()
            .all(|s| matches!(s, Some(s) if matches!(s.phase, Phase::Ended(_))))
        {
            return Ok(Waited::Ended(statuses.into_iter().flatten().collect()));
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            if !cancel {
                return Ok(Waited::Left);
            }
            if !cancelled {
                cancelled = true;
                for (id, status) in ids.iter().zip(&statuses) {
                    if !matches!(status, Some(s) if matches!(s.phase, Phase::Ended(_))) {
                        if let Err(e) = api.cancel(id).await {
                            tracing::warn!(batch = id.as_str(), error = %e, "cancelling a batch failed");
                        }
                    }
                }
                interval = options.poll_interval;
            }
        }
        interval = if changed {
            options.poll_interval
        } else {
            (interval * 2).min(max_interval)
        };
        let sleep = match deadline {
            Some(d) if !cancelled => interval.min(d.saturating_duration_since(Instant::now())),
            _ => interval,
        };
        tokio::time::sleep(sleep.max(Duration::from_millis(1))).await;
    }
}

/// A fault that a later poll may not meet.
fn passing(error: &ProviderError) -> bool {
    matches!(
        error.kind,
        ProviderErrorKind::Connect
            | ProviderErrorKind::Timeout
            | ProviderErrorKind::RateLimited
            | ProviderErrorKind::Server
    )
}

/// What a round's results say of one request.
// A reply is the common case: boxing it would allocate once more on every call.
#[allow(clippy::large_enum_variant)]
pub(super) enum Answer {
    Reply(AiResponse),
    /// The provider gave no answer, and why.
    Failed(ItemFailure, String),
}

/// The results of the ended batches, by custom id, and what could not be read.
pub(super) struct Results {
    pub(super) answers: HashMap<String, Answer>,
    /// Lines unreadable, for unknown ids, or repeated: told in the issue of a request left
    /// without an answer.
    pub(super) problems: Vec<String>,
}

/// Reads the results of every ended batch. `known` says whether a custom id is one of the round's.
pub(super) async fn read_results(
    api: &dyn BatchApi,
    ended: &[(String, Status)],
    known: &(dyn Fn(&str) -> bool + Sync),
) -> Result<Results, ProviderError> {
    let mut results = Results {
        answers: HashMap::new(),
        problems: Vec::new(),
    };
    for (id, status) in ended {
        if let Phase::Ended(End::Failed(reason)) = &status.phase {
            results
                .problems
                .push(format!("batch {id} failed as a whole: {reason}"));
        }
        for line in api.results(id, status).await? {
            match line {
                ResultLine::Unreadable(why) => results.problems.push(why),
                ResultLine::Item { custom_id, .. } if !known(&custom_id) => results.problems.push(
                    format!("a line answers the unknown custom_id {custom_id:?}"),
                ),
                ResultLine::Item { custom_id, outcome } => {
                    if results.answers.contains_key(&custom_id) {
                        results.problems.push(format!(
                            "a second line answers custom_id {custom_id:?}; the first was kept"
                        ));
                        continue;
                    }
                    let answer = match outcome {
                        Ok(reply) => Answer::Reply(reply),
                        Err((failure, why)) => Answer::Failed(failure, why),
                    };
                    results.answers.insert(custom_id, answer);
                }
            }
        }
    }
    Ok(results)
}

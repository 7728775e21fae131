//! The rounds of a batch run: every chunk's request of the round submitted as provider batches,
//! waited for, read and verified; the chunks whose answers failed go into the next round with
//! their findings, until `max_attempts`.

use std::collections::HashMap;
use std::time::Instant;

use super::options::BatchOptions;
use super::state::{job_hash, StateStore};
use super::submit::{self, Answer, Waited};
use futures::stream::{self, StreamExt};

use crate::attempt::{finish_issue, Limits};
use crate::collections::call::CollectionCall;
use crate::collections::chunk::ChunkInput;
use crate::collections::result::CollectionResult;
use crate::collections::run::{
    conclude_chunk, prepare_chunk, take_elements, Collector, PreparedChunk, Shared,
};
use crate::intent::Intent;
use crate::provider::batch::{BatchApi, Phase};
use crate::provider::Provider;
use crate::result::{AttemptRecord, IssueKind, ResultIssue, Usage};

/// One chunk through the rounds.
struct ChunkJob<O> {
    number: usize,
    /// Taken when the chunk's outcome goes to the collector.
    prepared: Option<PreparedChunk>,
    attempts: Vec<AttemptRecord>,
    usage: Usage,
    value: Option<Vec<O>>,
    /// The chunk's findings once it is over without a value.
    final_issues: Vec<ResultIssue>,
    done: bool,
    /// The provider gave no answer (errored, expired, cancelled, missing): a live retry may.
    unanswered: bool,
}

impl<O> ChunkJob<O> {
    /// Ends the chunk with `issue` recorded as the attempt of `round`.
    fn fail(&mut self, round: u32, provider: &str, issue: ResultIssue) {
        let mut record = AttemptRecord::new(round);
        record.provider = provider.to_owned();
        record.issues.push(issue.clone());
        self.attempts.push(record);
        self.final_issues = vec![issue];
        self.done = true;
    }
}

pub(super) async fn run<K, O: Intent + Send>(
    mut call: CollectionCall<'_, K, O>,
    options: BatchOptions,
) -> CollectionResult<K, O> {
    let (mut elements, keys) = take_elements(&mut call);
    let (mut collector, chunks, shared) = Collector::start(&call, &elements);
    let (open, close) = shared.delimiters();
    let (client, request_options, concurrency) = (call.client, &call.options, call.concurrency);
    let mut jobs: Vec<ChunkJob<O>> = chunks
        .into_iter()
        .enumerate()
        .map(|(i, positions)| {
            let input = ChunkInput::take(&mut elements, positions, open, close);
            let mut prepared = prepare_chunk(&shared, input);
            prepared.release_input();
            let done = prepared.plan.is_err();
            ChunkJob {
                number: i + 1,
                prepared: Some(prepared),
                attempts: Vec::new(),
                usage: Usage::default(),
                value: None,
                final_issues: Vec::new(),
                done,
                unanswered: false,
            }
        })
        .collect();
    drop(elements);

    let provider = pick_provider(client.providers(), request_options.provider.as_deref())
        .and_then(|picked| match request_options.judge {
            Some(_) => Err(ResultIssue::new(
                IssueKind::Request,
                "A batch run does not run the judge: it would make a live call per chunk. Run the collection live to have the judge check it. Nothing was submitted.",
            )),
            None => Ok(picked),
        });
    match provider {
        Ok((provider, api)) => {
            rounds(&shared, &mut jobs, provider, api, &options, &mut collector).await;
            if options.retry_live {
                retry_live(&shared, &mut jobs, concurrency).await;
            }
        }
        Err(issue) => {
            for job in jobs.iter_mut().filter(|j| !j.done) {
                job.final_issues = vec![issue.clone()];
                job.done = true;
            }
        }
    }
    for job in jobs.iter_mut().filter(|j| !j.done) {
        // Every way out of the rounds ends its chunks; a chunk left open is still never silent.
        job.final_issues = vec![ResultIssue::new(
            IssueKind::Provider,
            "The batch run ended before this chunk had an answer.",
        )];
        job.done = true;
    }
    collect_done(&shared, &mut jobs, &mut collector, false);
    collector.finish(keys)
}

/// Runs live, each with its own attempts, the chunks the batches left unanswered; their batch
/// attempts stay first in their records.
async fn retry_live<O: Intent + Send>(
    shared: &Shared<'_, O>,
    jobs: &mut [ChunkJob<O>],
    concurrency: usize,
) {
    let unanswered: Vec<(usize, PreparedChunk)> = jobs
        .iter_mut()
        .enumerate()
        .filter(|(_, job)| job.unanswered)
        .filter_map(|(c, job)| job.prepared.take().map(|prepared| (c, prepared)))
        .collect();
    let outcomes: Vec<_> = stream::iter(unanswered)
        .map(|(c, prepared)| async move {
            let result = prepared.ask(shared, None).await;
            (c, prepared, result)
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    for (c, prepared, result) in outcomes {
        let job = &mut jobs[c];
        job.prepared = Some(prepared);
        let Some(result) = result else { continue };
        let (value, issues, attempts, usage) = result.into_parts();
        let before = job.attempts.len() as u32;
        job.attempts.extend(attempts.into_iter().map(|mut record| {
            record.number += before;
            record
        }));
        job.usage += usage;
        job.final_issues = if value.is_some() { Vec::new() } else { issues };
        job.value = value;
    }
}

/// Hands every chunk that is over to the collector (which reports the progress), once.
/// With `keep_unanswered`, the chunks left for a live retry stay.
fn collect_done<O: Intent>(
    shared: &Shared<'_, O>,
    jobs: &mut [ChunkJob<O>],
    collector: &mut Collector<'_, O>,
    keep_unanswered: bool,
) {
    for job in jobs
        .iter_mut()
        .filter(|j| j.done && !(keep_unanswered && j.unanswered))
    {
        let Some(prepared) = job.prepared.take() else {
            continue;
        };
        collector.add(conclude_chunk(
            shared,
            job.number,
            prepared,
            job.value.take(),
            std::mem::take(&mut job.final_issues),
            std::mem::take(&mut job.attempts),
            job.usage,
        ));
    }
}

/// The provider a batch run submits to: the one the options name, or the primary. A batch run
/// has no fallback: a batch is paid for once submitted, and one provider's batch cannot move to
/// another.
fn pick_provider<'p>(
    providers: &'p [std::sync::Arc<dyn Provider>],
    named: Option<&str>,
) -> Result<(&'p dyn Provider, &'p dyn BatchApi), ResultIssue> {
    let provider = match named {
        Some(name) => providers.iter().find(|p| p.name() == name),
        None => providers.first(),
    };
    let Some(provider) = provider else {
        return Err(ResultIssue::new(
            IssueKind::Request,
            format!(
                "The client has no provider named {:?}. Nothing was submitted.",
                named.unwrap_or("")
            ),
        ));
    };
    match provider.batch_client() {
        Some(client) => Ok((provider.as_ref(), client.api)),
        None => Err(ResultIssue::new(
            IssueKind::Request,
            format!(
                "The provider {:?} has no batch API this library runs (OpenAI's and Anthropic's own servers have one; another OpenAI- or Anthropic-compatible server needs with_batch_api(true); Gemini's batch mode is not supported). Run the collection live instead. Nothing was submitted.",
                provider.name()
            ),
        )),
    }
}

async fn rounds<O: Intent>(
    shared: &Shared<'_, O>,
    jobs: &mut [ChunkJob<O>],
    provider: &dyn Provider,
    api: &dyn BatchApi,
    options: &BatchOptions,
    collector: &mut Collector<'_, O>,
) {
    let name = provider.name();
    let limits = Limits::new(shared.client, shared.options);
    let deadline = options.wait_limit.map(|limit| Instant::now() + limit);
    let mut store: Option<StateStore> = None;
    for round in 1..=limits.max_attempts {
        collect_done(shared, jobs, collector, options.retry_live);
        let started = Instant::now();
        // The round's lines, and the chunk each is for.
        let mut lines = Vec::new();
        let mut owners = Vec::new();
        let max_bytes = api.limits().max_bytes;
        for (c, job) in jobs.iter_mut().enumerate().filter(|(_, j)| !j.done) {
            let Some(Ok(plan)) = job.prepared.as_ref().map(|p| &p.plan) else {
                continue;
            };
            let request = plan.request(job.attempts.last());
            match api.encode(&custom_id(job.number, round), &request) {
                Ok(line) if api.batch_bytes(line.len() + 1) > max_bytes => job.fail(
                    round,
                    name,
                    ResultIssue::new(
                        IssueKind::Request,
                        format!("The chunk's request takes {} bytes, more than one batch of {name:?} may hold ({max_bytes} bytes). Use a smaller chunk_size. Nothing was submitted for it.", line.len()),
                    ),
                ),
                Ok(line) => {
                    lines.push(line);
                    owners.push(c);
                }
                Err(error) => job.fail(round, name, ResultIssue::new(IssueKind::Request, format!("{error}. Nothing was submitted for this chunk."))),
            }
        }
        if lines.is_empty() {
            return;
        }
        if store.is_none() {
            let hash = job_hash(name, lines.iter().map(Vec::as_slice));
            match StateStore::open(options.state_file.as_deref(), hash) {
                Ok(opened) => store = Some(opened),
                Err(message) => {
                    fail_all(jobs, &owners, round, name, IssueKind::Request, &message);
                    return;
                }
            }
        }
        let Some(store) = store.as_mut() else { return };
        let splits = submit::split(
            api,
            &lines,
            options.max_batch_requests.unwrap_or(usize::MAX),
        );
        let ids = match submit::submit(api, store, round as usize, &lines, &splits).await {
            Ok(ids) => ids,
            Err(message) => {
                fail_all(jobs, &owners, round, name, IssueKind::Request, &message);
                return;
            }
        };
        let mut submitted = Vec::new();
        for (split, id) in splits.iter().zip(ids) {
            match id {
                Ok(id) => submitted.push(id),
                Err(error) => {
                    let message = format!("The batch could not be created: {error}.");
                    fail_all(
                        jobs,
                        &owners[split.clone()],
                        round,
                        name,
                        IssueKind::Provider,
                        &message,
                    );
                }
            }
        }
        if submitted.is_empty() {
            continue;
        }
        let resumable = options.state_file.is_some();
        let waited = submit::wait(api, &submitted, options, deadline, !resumable, |statuses| {
            let running = statuses
                .iter()
                .filter(|s| !matches!(s, Some(s) if matches!(s.phase, Phase::Ended(_))))
                .count();
            tracing::debug!(round, batches = statuses.len(), running, "batch status");
        })
        .await;
        let known: HashMap<String, usize> = owners
            .iter()
            .map(|&c| (custom_id(jobs[c].number, round), c))
            .collect();
        let results = match waited {
            Ok(Waited::Ended(statuses)) => {
                let ended: Vec<(String, _)> = submitted.iter().cloned().zip(statuses).collect();
                submit::read_results(api, &ended, &|id| known.contains_key(id)).await
            }
            Ok(Waited::Left) => {
                let message = format!(
                    "The batch run's wait limit passed while its batches ({}) were still running; they were left running. Run the same call again with the same state file to resume them.",
                    submitted.join(", ")
                );
                fail_all(jobs, &owners, round, name, IssueKind::Limit, &message);
                return;
            }
            Err(error) => Err(error),
        };
        let mut results = match results {
            Ok(results) => results,
            Err(error) => {
                let hint = if resumable {
                    " Run the same call again with the same state file to resume them."
                } else {
                    ""
                };
                let message = format!(
                    "The batches ({}) could not be read: {error}.{hint}",
                    submitted.join(", ")
                );
                fail_all(jobs, &owners, round, name, IssueKind::Provider, &message);
                return;
            }
        };
        let latency = started.elapsed();
        for &c in &owners {
            let job = &mut jobs[c];
            if job.done {
                continue;
            }
            let id = custom_id(job.number, round);
            match results.answers.remove(&id) {
                Some(Answer::Reply(response)) => {
                    let mut record = AttemptRecord::new(round);
                    record.provider = name.to_owned();
                    record.model.clone_from(&response.model);
                    record.usage = response.usage;
                    record.finish_reason = Some(response.finish_reason.clone());
                    record.latency = latency;
                    job.usage += response.usage;
                    let Some(prepared) = &job.prepared else {
                        continue;
                    };
                    let max_tokens = prepared
                        .plan
                        .as_ref()
                        .ok()
                        .and_then(|p| p.max_output_tokens());
                    if let Some(issue) = finish_issue(&response, max_tokens) {
                        record.issues.push(issue);
                    } else {
                        match prepared.verify(shared, &response.text).into_outcome() {
                            Ok(values) => job.value = Some(values),
                            Err(issues) => record.issues = issues,
                        }
                    }
                    record.raw_output = response.text;
                    let passed = job.value.is_some();
                    let issues = record.issues.clone();
                    job.attempts.push(record);
                    if passed {
                        job.done = true;
                    } else if round == limits.max_attempts {
                        job.final_issues = issues;
                        job.final_issues.push(limits.attempts_issue());
                        job.done = true;
                    } else if let Some(issue) = limits.budget_issue(job.usage) {
                        job.final_issues = issues;
                        job.final_issues.push(issue);
                        job.done = true;
                    }
                }
                Some(Answer::Failed(failure, why)) => {
                    job.fail(
                        round,
                        name,
                        ResultIssue::new(
                            IssueKind::Provider,
                            format!(
                                "The provider's batch {} this request: {}.",
                                failure.word(),
                                why.trim_end_matches('.')
                            ),
                        ),
                    );
                    job.unanswered = true;
                }
                None => {
                    job.unanswered = true;
                    let problems = if results.problems.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " The results had these problems: {}.",
                            summary(&results.problems)
                        )
                    };
                    job.fail(
                        round,
                        name,
                        ResultIssue::new(
                            IssueKind::Provider,
                            format!("The batch's results have no answer for this chunk's request (custom_id {id:?}).{problems}"),
                        ),
                    );
                }
            }
        }
        for problem in &results.problems {
            tracing::warn!(round, problem = problem.as_str(), "batch results");
        }
    }
}

/// The custom id of chunk `number`'s request in round `round`: letters, digits and `-`, within
/// both providers' 64 characters.
fn custom_id(number: usize, round: u32) -> String {
    format!("chunk-{number}-attempt-{round}")
}

/// The first problems, and how many more.
fn summary(problems: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = problems
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > SHOWN {
        text.push_str(&format!("; and {} more", problems.len() - SHOWN));
    }
    text
}

/// Fails the chunks `owners` in `round` with one issue.
fn fail_all<O>(
    jobs: &mut [ChunkJob<O>],
    owners: &[usize],
    round: u32,
    provider: &str,
    kind: IssueKind,
    message: &str,
) {
    for &c in owners {
        if !jobs[c].done {
            jobs[c].fail(round, provider, ResultIssue::new(kind, message));
        }
    }
}

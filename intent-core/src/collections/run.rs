//! Running a collection call: chunks in flight up to the concurrency limit, each one call with its
//! own attempts, and the results put back in input order. Awaiting a [`CollectionCall`] runs it.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;

use futures::stream::{self, StreamExt};

use super::call::{CollectionCall, Mode};
use super::chunk::{self, ChunkInput, Element};
use super::each::EachItem;
use super::observed;
use super::result::{ChunkRecord, CollectionResult, ElementIssue, Progress};
use super::verify::{self, ElementReader, Verdict};
use crate::attempt;
use crate::client::IntentClient;
use crate::input::SerializedInput;
use crate::intent::Intent;
use crate::options::AiRequestOptions;
use crate::prompt;
use crate::result::{IssueKind, ResultIssue, Usage};
use crate::shape::{Field, Node, ShapeGraph, StructKind, StructShape, TypeInfo};

/// What every chunk of a call shares.
struct Shared<'c, O> {
    client: &'c IntentClient,
    intent: &'c str,
    mode: Mode,
    options: &'c AiRequestOptions,
    label: &'c str,
    /// The answer's shape for `map_each` (the same for every chunk).
    each_info: Option<Arc<TypeInfo>>,
    reader: ElementReader<'c, O>,
}

/// One chunk's end: its record, and its values and findings by slot.
struct ChunkOutcome<O> {
    record: ChunkRecord,
    values: Vec<Option<O>>,
    issues: Vec<ElementIssue>,
}

impl<'a, K, O> IntoFuture for CollectionCall<'a, K, O>
where
    K: Send + 'a,
    O: Intent + Send + 'a,
{
    type Output = CollectionResult<K, O>;
    type IntoFuture = Pin<Box<dyn Future<Output = CollectionResult<K, O>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(observed::collection(self, run))
    }
}

async fn run<K, O: Intent + Send>(call: CollectionCall<'_, K, O>) -> CollectionResult<K, O> {
    let CollectionCall {
        client,
        intent,
        mode,
        keys,
        elements,
        label,
        options,
        chunk_size,
        concurrency,
        on_progress,
        checks,
    } = call;
    let total = elements.len();
    let mut values: Vec<Option<O>> = (0..total).map(|_| None).collect();
    let mut issues: Vec<ElementIssue> = elements
        .iter()
        .enumerate()
        .filter_map(|(position, e)| {
            e.as_ref().err().map(|issue| {
                ElementIssue::new(position, key_of(&elements, mode, position), issue.clone())
            })
        })
        .collect();
    let (chunks, refused) =
        chunk::plan_chunks(&elements, chunk_size, client.options().max_input_chars);
    issues.extend(refused.into_iter().map(|(position, issue)| {
        ElementIssue::new(position, key_of(&elements, mode, position), issue)
    }));
    let mut progress = Progress {
        done: issues.len(),
        total,
        failed: issues.len(),
        chunks_done: 0,
        chunks_total: chunks.len(),
    };
    let report = |progress: Progress| {
        if let Some(report) = &on_progress {
            report(progress);
        }
    };
    report(progress);

    let shared = Shared {
        client,
        intent,
        mode,
        options: &options,
        label: &label,
        each_info: (mode == Mode::Each).then(TypeInfo::of::<Vec<EachItem<O>>>),
        reader: ElementReader::new(&checks),
    };
    let (open, close) = match mode {
        Mode::Each => ('[', ']'),
        Mode::Keyed => ('{', '}'),
    };
    let mut elements = elements;
    let mut records = Vec::with_capacity(chunks.len());
    // A chunk's input is built when it starts, from elements it moves out of the call.
    let mut outcomes = stream::iter(chunks.into_iter().enumerate())
        .map(|(number, positions)| {
            let input = ChunkInput::take(&mut elements, positions, open, close);
            let size = input.positions.len();
            observed::chunk(
                number + 1,
                size,
                run_chunk(&shared, number + 1, input),
                |o| {
                    let failed = o.values.iter().filter(|v| v.is_none()).count();
                    (failed, o.record.attempts.len(), o.record.usage)
                },
            )
        })
        .buffer_unordered(concurrency.max(1));
    while let Some(outcome) = outcomes.next().await {
        let ChunkOutcome {
            record,
            values: chunk_values,
            issues: chunk_issues,
        } = outcome;
        let mut failed = 0;
        for (&position, value) in record.positions.iter().zip(chunk_values) {
            failed += usize::from(value.is_none());
            values[position] = value;
        }
        issues.extend(chunk_issues);
        progress.done += record.positions.len();
        progress.failed += failed;
        progress.chunks_done += 1;
        report(progress);
        records.push(record);
    }
    drop(outcomes);
    records.sort_by_key(|r| r.number);
    issues.sort_by_key(|i| i.position);
    let usage = records
        .iter()
        .fold(Usage::default(), |sum, r| sum + r.usage);
    CollectionResult {
        keys,
        values,
        issues,
        chunks: records,
        usage,
    }
}

fn key_of(elements: &[Result<Element, ResultIssue>], mode: Mode, position: usize) -> String {
    match (&elements[position], mode) {
        (Ok(element), _) => element.key.clone(),
        (Err(_), Mode::Each) => position.to_string(),
        (Err(_), Mode::Keyed) => String::new(),
    }
}

async fn run_chunk<O: Intent + Send>(
    shared: &Shared<'_, O>,
    number: usize,
    chunk: ChunkInput,
) -> ChunkOutcome<O> {
    let ChunkInput {
        positions,
        keys,
        text,
    } = chunk;
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let requirement = match shared.mode {
        Mode::Each => format!(
                "Exactly {}, one per input element, in the input's order, each with the index of its input element.",
                count(positions.len(), "element", "elements")
            ),
        Mode::Keyed => format!(
                "Exactly {}, one per input key, each named exactly as its input key.",
                count(positions.len(), "member", "members")
            ),
    };
    let mut input = SerializedInput {
        text,
        label: shared.label.to_owned(),
    };
    let info = match &shared.each_info {
        Some(info) => Arc::clone(info),
        None => Arc::new(keyed_info::<O>(&keys)),
    };
    let mut options = shared.options.clone();
    options.expected_output_description = Some(match options.expected_output_description.take() {
        Some(own) if !own.trim().is_empty() => format!("{} {requirement}", own.trim()),
        _ => requirement,
    });
    let verify = |text: &str| -> Verdict<O> {
        match shared.mode {
            Mode::Each => verify::verify_each(&shared.reader, text, &positions),
            Mode::Keyed => verify::verify_keyed(&shared.reader, text, &keys),
        }
    };

    let (result, plan_issue) = match prompt::plan(&info, &options, shared.intent, &input) {
        Ok(plan) => {
            // The plan holds the input in its prompt; past planning, only a judge reads it again.
            if options.judge.is_none() {
                input.text = String::new();
            }
            (
                Some(
                    attempt::run_plan(
                        shared.client,
                        &plan,
                        &input,
                        shared.intent,
                        &options,
                        &|text: &str| verify(text).into_outcome(),
                    )
                    .await,
                ),
                None,
            )
        }
        Err(error) => (
            None,
            Some(ResultIssue::new(IssueKind::Request, error.to_string())),
        ),
    };
    let (attempts, final_issues, usage, value) = match result {
        Some(result) => {
            let (value, issues, attempts, usage) = result.into_parts();
            (attempts, issues, usage, value)
        }
        None => (
            Vec::new(),
            plan_issue.into_iter().collect(),
            Usage::default(),
            None,
        ),
    };

    let (values, mut issues) = match value {
        Some(values) => (values.into_iter().map(Some).collect(), Vec::new()),
        None => {
            // Keep what the last reply got right: each element was read and checked on its own.
            let verdict = attempts
                .last()
                .filter(|a| !a.raw_output.trim().is_empty())
                .map(|a| verify(&a.raw_output));
            match verdict {
                Some(verdict) => {
                    let issues = verdict
                        .slot_issues
                        .into_iter()
                        .map(|(slot, issue)| ElementIssue::new(positions[slot], keys[slot], issue))
                        .collect();
                    (verdict.values, issues)
                }
                None => ((0..positions.len()).map(|_| None).collect(), Vec::new()),
            }
        }
    };
    // An element with no value and no finding of its own carries the chunk's final findings.
    let mut covered = vec![false; positions.len()];
    for issue in &issues {
        if let Some(slot) = positions.iter().position(|&p| p == issue.position) {
            covered[slot] = true;
        }
    }
    for (slot, value) in values.iter().enumerate() {
        if value.is_none() && !covered[slot] {
            let path = crate::read::join_pointer("", keys[slot]);
            issues.extend(final_issues.iter().map(|issue| {
                ElementIssue::new(
                    positions[slot],
                    keys[slot],
                    ResultIssue::at(&path, issue.kind, issue.message.clone()),
                )
            }));
        }
    }
    ChunkOutcome {
        record: ChunkRecord {
            number,
            positions,
            attempts,
            issues: final_issues,
            usage,
        },
        values,
        issues,
    }
}

/// The answer's shape for a `map_values` chunk: an object whose members are the chunk's keys,
/// every one required, each an `O`.
fn keyed_info<O: Intent>(keys: &[&str]) -> TypeInfo {
    let mut graph = ShapeGraph::new();
    let value = O::shape(&mut graph);
    let fields = keys
        .iter()
        .map(|key| Field::new((*key).to_owned(), value))
        .collect();
    let root = graph.add(Node::Struct(StructShape {
        name: "ResultsByKey".into(),
        doc: Some("One result per input key.".into()),
        kind: StructKind::Named(fields),
    }));
    TypeInfo::from_graph(graph, root)
}

/// "1 element", "3 elements".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

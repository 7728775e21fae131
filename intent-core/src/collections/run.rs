//! Running a collection call: chunks in flight up to the concurrency limit, each one call with its
//! own attempts, and the results put back in input order. Awaiting a [`CollectionCall`] runs it.

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;

use futures::stream::{self, StreamExt};

use super::call::{CollectionCall, Mode};
use super::chunk::{self, ChunkInput, Element};
use super::chunk_reply::{self, ElementReader, Verdict};
use super::each::EachItem;
use super::element_schema::ElementSchema;
use super::observed;
use super::result::{ChunkRecord, CollectionResult, ElementIssue, Progress};
use crate::attempt;
use crate::client::IntentClient;
use crate::input::SerializedInput;
use crate::intent::Intent;
use crate::options::AiRequestOptions;
use crate::prompt::{self, PromptPlan};
use crate::relay::Relay;
use crate::result::{AiResult, AttemptRecord, IssueKind, ResultIssue, Usage};
use crate::shape::{Field, Node, Scalar, ShapeGraph, StructKind, StructShape, TypeInfo};
use crate::trust::Grounds;

/// What every chunk of a call shares.
pub(super) struct Shared<'c, O> {
    pub(super) client: &'c IntentClient,
    pub(super) intent: &'c str,
    pub(super) mode: Mode,
    pub(super) options: &'c AiRequestOptions,
    label: &'c str,
    /// The answer's shape for `map_each` (the same for every chunk).
    each_info: Option<Arc<TypeInfo>>,
    /// The elements' runtime schema, with an `output_schema` (or why no chunk can be sent).
    element_schema: Option<Result<ElementSchema, ResultIssue>>,
    pub(super) reader: ElementReader<'c, O>,
    /// The tools each chunk offers.
    tools: &'c [crate::toolbox::Tool],
}

impl<'c, O: Intent> Shared<'c, O> {
    pub(super) fn new(
        client: &'c IntentClient,
        intent: &'c str,
        mode: Mode,
        options: &'c AiRequestOptions,
        label: &'c str,
        checks: &'c [crate::call::Check<'c, O>],
        tools: &'c [crate::toolbox::Tool],
    ) -> Self {
        let json_elements = matches!(
            O::type_info().graph().node(O::type_info().root()),
            Node::Scalar(Scalar::Json | Scalar::JsonObject)
        );
        let element_schema = ElementSchema::of(options, mode, json_elements);
        let schema = element_schema
            .as_ref()
            .and_then(|s| s.as_ref().ok())
            .map(|s| Arc::clone(s.compiled()));
        Shared {
            client,
            intent,
            mode,
            options,
            label,
            each_info: (mode == Mode::Each).then(TypeInfo::of::<Vec<EachItem<O>>>),
            element_schema,
            reader: ElementReader::new(checks).with_schema(schema),
            tools,
        }
    }

    /// What every chunk of `call` shares.
    pub(super) fn of<K>(call: &'c CollectionCall<'c, K, O>) -> Self {
        Shared::new(
            call.client,
            call.intent,
            call.mode,
            &call.options,
            &call.label,
            &call.checks,
            &call.tools,
        )
    }

    /// The brackets or braces around a chunk's elements.
    pub(super) fn delimiters(&self) -> (char, char) {
        match self.mode {
            Mode::Each => ('[', ']'),
            Mode::Keyed => ('{', '}'),
        }
    }
}

/// One chunk's end: its record, and its values and findings by slot.
pub(super) struct ChunkOutcome<O> {
    pub(super) record: ChunkRecord,
    pub(super) values: Vec<Option<O>>,
    pub(super) issues: Vec<ElementIssue>,
}

/// A chunk ready to be asked: its slots, its options with the count requirement, and its plan
/// (or why it could not be planned).
pub(super) struct PreparedChunk {
    /// The shape of the chunk's answer (for `map_values`, a struct of one member per key).
    pub(super) info: Arc<TypeInfo>,
    pub(super) positions: Vec<usize>,
    pub(super) keys: Vec<String>,
    pub(super) input: SerializedInput,
    pub(super) options: AiRequestOptions,
    pub(super) plan: Result<PromptPlan, ResultIssue>,
    /// Each element's own input, for the members that must come from it (empty when the result
    /// type has none).
    pub(super) grounds: Vec<Grounds>,
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
    run_chunks(call, |shared, number, input| {
        Box::pin(run_chunk(shared, number, input))
    })
    .await
}

/// One chunk's run, from its input to its outcome: awaited whole, or streamed.
pub(super) type ChunkRun<'s, O> = Pin<Box<dyn Future<Output = ChunkOutcome<O>> + Send + 's>>;

/// Runs a collection call, each chunk run by `chunk`: chunks in flight up to the concurrency
/// limit, the results put back in input order.
pub(super) async fn run_chunks<K, O: Intent + Send>(
    mut call: CollectionCall<'_, K, O>,
    chunk: impl for<'s> Fn(&'s Shared<'s, O>, usize, ChunkInput) -> ChunkRun<'s, O>,
) -> CollectionResult<K, O> {
    let (mut elements, keys) = take_elements(&mut call);
    let (mut collector, chunks, shared) = Collector::start(&call, &elements);
    let (open, close) = shared.delimiters();
    let concurrency = call.concurrency;
    // A chunk's input is built when it starts, from elements it moves out of the call.
    let mut outcomes = stream::iter(chunks.into_iter().enumerate())
        .map(|(number, positions)| {
            let input = ChunkInput::take(&mut elements, positions, open, close);
            let size = input.positions.len();
            observed::chunk(number + 1, size, chunk(&shared, number + 1, input), |o| {
                let failed = o.values.iter().filter(|v| v.is_none()).count();
                (failed, o.record.attempts.len(), o.record.usage)
            })
        })
        .buffer_unordered(concurrency.max(1));
    while let Some(outcome) = outcomes.next().await {
        collector.add(outcome);
    }
    drop(outcomes);
    collector.finish(keys)
}

/// A collection's results as its chunks end: values by position, findings, records and progress.
pub(super) struct Collector<'p, O> {
    values: Vec<Option<O>>,
    issues: Vec<ElementIssue>,
    records: Vec<ChunkRecord>,
    progress: Progress,
    on_progress: Option<&'p (dyn Fn(Progress) + Send + Sync + 'p)>,
}

/// The elements and keys of `call`, taken out of it: its chunks move the elements as they start
/// while what they share borrows the rest of the call.
pub(super) fn take_elements<K, O>(
    call: &mut CollectionCall<'_, K, O>,
) -> (Vec<Result<Element, ResultIssue>>, Vec<K>) {
    (
        std::mem::take(&mut call.elements),
        std::mem::take(&mut call.keys),
    )
}

impl<'p, O> Collector<'p, O> {
    /// The start of a run of `call`, whose `elements` were taken out of it: the collector, the
    /// chunks the elements are cut into, and what the chunks share.
    pub(super) fn start<K>(
        call: &'p CollectionCall<'p, K, O>,
        elements: &[Result<Element, ResultIssue>],
    ) -> (Self, Vec<Vec<usize>>, Shared<'p, O>)
    where
        O: Intent,
    {
        let (collector, chunks) = Collector::new(
            elements,
            call.mode,
            call.chunk_size,
            call.client.options().max_input_chars,
            call.on_progress.as_deref(),
        );
        (collector, chunks, Shared::of(call))
    }

    /// The collector of `elements` and the chunks they are cut into; the elements refused before
    /// any chunk (not serializable, too large) already carry their issues. Reports the start.
    pub(super) fn new(
        elements: &[Result<Element, ResultIssue>],
        mode: Mode,
        chunk_size: usize,
        max_input_chars: usize,
        on_progress: Option<&'p (dyn Fn(Progress) + Send + Sync + 'p)>,
    ) -> (Self, Vec<Vec<usize>>) {
        let total = elements.len();
        let mut issues: Vec<ElementIssue> = elements
            .iter()
            .enumerate()
            .filter_map(|(position, e)| {
                e.as_ref().err().map(|issue| {
                    ElementIssue::new(position, key_of(elements, mode, position), issue.clone())
                })
            })
            .collect();
        let (chunks, refused) = chunk::plan_chunks(elements, chunk_size, max_input_chars);
        issues.extend(refused.into_iter().map(|(position, issue)| {
            ElementIssue::new(position, key_of(elements, mode, position), issue)
        }));
        let progress = Progress {
            done: issues.len(),
            total,
            failed: issues.len(),
            chunks_done: 0,
            chunks_total: chunks.len(),
        };
        let collector = Collector {
            values: (0..total).map(|_| None).collect(),
            issues,
            records: Vec::with_capacity(chunks.len()),
            progress,
            on_progress,
        };
        collector.report();
        (collector, chunks)
    }

    fn report(&self) {
        if let Some(report) = self.on_progress {
            report(self.progress);
        }
    }

    /// Takes in a chunk that ended, and reports the progress.
    pub(super) fn add(&mut self, outcome: ChunkOutcome<O>) {
        let ChunkOutcome {
            record,
            values: chunk_values,
            issues: chunk_issues,
        } = outcome;
        let mut failed = 0;
        for (&position, value) in record.positions.iter().zip(chunk_values) {
            failed += usize::from(value.is_none());
            self.values[position] = value;
        }
        self.issues.extend(chunk_issues);
        self.progress.done += record.positions.len();
        self.progress.failed += failed;
        self.progress.chunks_done += 1;
        self.report();
        self.records.push(record);
    }

    /// The collection's result, under `keys`.
    pub(super) fn finish<K>(self, keys: Vec<K>) -> CollectionResult<K, O> {
        let Collector {
            values,
            mut issues,
            mut records,
            ..
        } = self;
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
    let mut prepared = prepare_chunk(shared, chunk);
    prepared.release_input();
    let result = prepared.ask(shared, None).await;
    let (value, issues, attempts, usage) = match result {
        Some(result) => result.into_parts(),
        None => (None, Vec::new(), Vec::new(), Usage::default()),
    };
    conclude_chunk(shared, number, prepared, value, issues, attempts, usage)
}

/// A chunk's options (the call's, with the count requirement) and its plan.
pub(super) fn prepare_chunk<O: Intent>(shared: &Shared<'_, O>, chunk: ChunkInput) -> PreparedChunk {
    let ChunkInput {
        positions,
        keys,
        text,
        attachments,
        ranges,
    } = chunk;
    let grounds = if shared.reader.is_grounded() {
        ranges
            .into_iter()
            .map(|range| chunk_reply::element_grounds(&text[range], shared.mode))
            .collect()
    } else {
        Vec::new()
    };
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
    let input = SerializedInput {
        text,
        label: shared.label.to_owned(),
        attachments,
    };
    let info = match &shared.each_info {
        Some(info) => Arc::clone(info),
        None => {
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            Arc::new(keyed_info::<O>(&keys))
        }
    };
    let mut options = shared.options.clone();
    options.expected_output_description = Some(match options.expected_output_description.take() {
        Some(own) if !own.trim().is_empty() => format!("{} {requirement}", own.trim()),
        _ => requirement,
    });
    let refused =
        |error: crate::error::IntentError| ResultIssue::new(IssueKind::Request, error.to_string());
    let plan = match &shared.element_schema {
        None => prompt::plan(&info, &options, shared.intent, &input).map_err(refused),
        Some(Ok(schema)) => {
            // The chunk's answer is sent as its own schema, each element the runtime schema's.
            schema.prepare(&mut options, shared.mode, &keys);
            let info = <serde_json::Value as Intent>::type_info();
            prompt::plan(&info, &options, shared.intent, &input).map_err(refused)
        }
        Some(Err(issue)) => Err(issue.clone()),
    };
    PreparedChunk {
        info,
        positions,
        keys,
        input,
        options,
        plan,
        grounds,
    }
}

impl PreparedChunk {
    /// Frees the chunk's input text once planned: the plan holds it in its prompt, and past
    /// planning only a judge reads it again.
    pub(super) fn release_input(&mut self) {
        if self.plan.is_ok() && self.options.judge.is_none() {
            self.input.text = String::new();
        }
    }

    /// Runs the chunk's attempts (none when it could not be planned), each reply relayed as it
    /// arrives when a `relay` is given.
    pub(super) async fn ask<O: Intent + Send>(
        &self,
        shared: &Shared<'_, O>,
        relay: Option<&dyn Relay>,
    ) -> Option<AiResult<Vec<O>>> {
        let plan = self.plan.as_ref().ok()?;
        let tools = match attempt::CallTools::new(shared.tools.to_vec(), &self.options, &self.info)
        {
            Ok(tools) => tools,
            Err(issue) => return Some(crate::result::AiResult::failure(vec![issue])),
        };
        let verify = |text: &str| self.verify(shared, text).into_outcome();
        let result = attempt::run_plan_relayed(
            shared.client,
            &self.info,
            plan,
            &self.input,
            shared.intent,
            &self.options,
            &verify,
            relay,
            tools.as_ref(),
        )
        .await;
        Some(result)
    }

    /// What a reply to this chunk holds, element by element.
    pub(super) fn verify<O: Intent>(&self, shared: &Shared<'_, O>, text: &str) -> Verdict<O> {
        match shared.mode {
            Mode::Each => {
                chunk_reply::verify_each(&shared.reader, text, &self.positions, &self.grounds)
            }
            Mode::Keyed => {
                let keys: Vec<&str> = self.keys.iter().map(String::as_str).collect();
                chunk_reply::verify_keyed(&shared.reader, text, &keys, &self.grounds)
            }
        }
    }
}

/// A chunk's end from its attempts: the values (all of them when `value` is set, else what the
/// last reply got right) and the findings per element.
pub(super) fn conclude_chunk<O: Intent>(
    shared: &Shared<'_, O>,
    number: usize,
    prepared: PreparedChunk,
    value: Option<Vec<O>>,
    mut final_issues: Vec<ResultIssue>,
    attempts: Vec<AttemptRecord>,
    usage: Usage,
) -> ChunkOutcome<O> {
    if let Err(issue) = &prepared.plan {
        final_issues.insert(0, issue.clone());
    }
    let (values, mut issues) = match value {
        Some(values) => (values.into_iter().map(Some).collect(), Vec::new()),
        None => {
            // Keep what the last reply got right: each element was read and checked on its own.
            let verdict = attempts
                .last()
                .filter(|a| !a.raw_output.trim().is_empty())
                .map(|a| prepared.verify(shared, &a.raw_output));
            match verdict {
                Some(verdict) => {
                    let issues = verdict
                        .slot_issues
                        .into_iter()
                        .map(|(slot, issue)| {
                            ElementIssue::new(
                                prepared.positions[slot],
                                prepared.keys[slot].as_str(),
                                issue,
                            )
                        })
                        .collect();
                    (verdict.values, issues)
                }
                None => (
                    (0..prepared.positions.len()).map(|_| None).collect(),
                    Vec::new(),
                ),
            }
        }
    };
    let PreparedChunk {
        positions, keys, ..
    } = prepared;
    // An element with no value and no finding of its own carries the chunk's final findings.
    let mut covered = vec![false; positions.len()];
    for issue in &issues {
        if let Some(slot) = positions.iter().position(|&p| p == issue.position) {
            covered[slot] = true;
        }
    }
    for (slot, value) in values.iter().enumerate() {
        if value.is_none() && !covered[slot] {
            let path = crate::read::join_pointer("", &keys[slot]);
            issues.extend(final_issues.iter().map(|issue| {
                ElementIssue::new(
                    positions[slot],
                    keys[slot].as_str(),
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

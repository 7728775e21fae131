//! Running `intent map`: everything checked before the first call (the intent, the input file
//! whole, the columns, the output's folder), then the rows live through `map_stream` or through
//! the batch API, the output written as results come, and a summary.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::future::BoxFuture;
use futures::stream::{self, StreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use intent_core::catalog::{CatalogIntent, IntentShape};
use intent_core::collections::{BatchOptions, ElementIssue};
use intent_core::pricing::Price;
use intent_core::provider::{AnthropicProvider, OpenAiProvider, Provider};
use intent_core::table::{self, Table};
use intent_core::{AiRequestOptions, Intent, IntentClient, ResultIssue, Usage};
use serde::Serialize;
use serde_json::{json, Value};

use super::args::{Format, MapArgs};
use super::files::{self, Batches, InputFile, OutputFile};
use super::journal::Journal;
use super::results::{Issue, Outcome, ResultColumns};
use crate::check::{self, plural};
use crate::client;
use crate::exit::{CliResult, Exit, Failure};
use crate::shapes;

/// Everything a run needs, checked.
pub struct Job<'a> {
    args: &'a MapArgs,
    intent: &'a CatalogIntent,
    client: IntentClient,
    options: AiRequestOptions,
    input: InputFile,
    /// The indexes of the columns sent to the model.
    sent: Vec<usize>,
    results: ResultColumns,
    schema: SchemaRef,
    format: Format,
    output: OutputFile,
    journal: Option<Journal>,
    progress: ProgressBar,
}

/// What a run did.
#[derive(Default)]
pub struct Summary {
    rows: usize,
    failed: usize,
    resumed: usize,
    usage: Usage,
}

/// Runs the intent over the rows, writing the output; returns what it did.
pub type MapFn = for<'j, 'a> fn(&'j mut Job<'a>) -> BoxFuture<'j, CliResult<Summary>>;

/// The run of an intent whose answers are `T`s.
pub fn map_typed<'j, 'a, T: Intent + Serialize + Send + 'static>(
    job: &'j mut Job<'a>,
) -> BoxFuture<'j, CliResult<Summary>> {
    Box::pin(async move {
        if job.args.batch {
            batch::<T>(job).await
        } else {
            live::<T>(job).await
        }
    })
}

pub async fn map(args: &MapArgs) -> CliResult {
    let started = Instant::now();
    let catalog = check::load(&args.path)?;
    let intent = crate::run::find(&catalog, &args.path, &args.intent)?;
    let runner = shapes::runner(intent).map_err(Failure::usage)?;
    runner
        .check(&catalog, &args.intent)
        .map_err(Failure::from_intent)?;
    let input = InputFile::open(&args.input, args.format)?;
    let sent = sent_columns(&input, &args.columns)?;
    // The columns sent must have a JSON form: refused now, not row by row.
    Table::from_arrow(&RecordBatch::new_empty(Arc::new(
        input
            .schema
            .project(&sent)
            .map_err(|e| Failure::usage(e.to_string()))?,
    )))
    .map_err(|e| Failure::usage(format!("the input {}: {e}", args.input.display())))?;
    let format = files::output_format(&args.output, input.format);
    files::check_holds(format, &input.schema, &args.output)?;
    if format == Format::Jsonl {
        Table::from_arrow(&RecordBatch::new_empty(input.schema.clone())).map_err(|e| {
            Failure::usage(format!(
                "the output {} cannot hold the input: {e}",
                args.output.display()
            ))
        })?;
    }
    let results = ResultColumns::new(
        &args.intent,
        runner.value_schema(intent).as_ref(),
        &input.schema,
    )?;
    let schema = results.schema(&input.schema);
    let output = OutputFile::create(&args.output, format, &schema)?;
    let client = match if args.batch {
        batch_client(args)
    } else {
        client::client(&args.call)
    } {
        Ok(client) => client,
        Err(failure) => {
            output.abandon();
            return Err(failure);
        }
    };
    let journal = match (&args.state, args.batch) {
        (Some(path), false) => match Journal::open(path, header(args, &input)) {
            Ok(journal) => Some(journal),
            Err(failure) => {
                output.abandon();
                return Err(failure);
            }
        },
        _ => None,
    };
    let mut options = client::options(&args.call, intent.options());
    if let IntentShape::Schema(shape) = intent.shape() {
        // A collection's answer is a list of values: the schema is stated for each one and each
        // value is checked against it in full (and the file's rules) below.
        options.output_schema = None;
        let stated = format!("Each element's `value` conforms to this JSON Schema: {shape}");
        options.expected_output_description =
            Some(match options.expected_output_description.take() {
                Some(own) => format!("{own}\n{stated}"),
                None => stated,
            });
    }
    let progress = progress(input.rows);
    let mut job = Job {
        args,
        intent,
        client,
        options,
        input,
        sent,
        results,
        schema,
        format,
        output,
        journal,
        progress,
    };
    let summary = (runner.map_fn())(&mut job).await;
    let Job {
        output,
        journal,
        progress,
        ..
    } = job;
    progress.finish_and_clear();
    let summary = match summary {
        Ok(summary) => summary,
        Err(failure) => {
            output.abandon();
            return Err(failure);
        }
    };
    output.finish()?;
    if let Some(journal) = journal {
        journal.remove();
    }
    if args.batch {
        if let Some(state) = &args.state {
            let _ = std::fs::remove_file(state);
        }
    }
    eprintln!("{}", report(args, &summary, started.elapsed()));
    Ok(if summary.failed == 0 {
        Exit::Ok
    } else {
        Exit::Failed
    })
}

/// The indexes of the columns named by `--columns` (all when none is named).
fn sent_columns(input: &InputFile, names: &[String]) -> CliResult<Vec<usize>> {
    if names.is_empty() {
        return Ok((0..input.schema.fields().len()).collect());
    }
    names
        .iter()
        .map(|name| {
            input.schema.index_of(name).map_err(|_| {
                let known: Vec<&str> = input
                    .schema
                    .fields()
                    .iter()
                    .map(|f| f.name().as_str())
                    .collect();
                Failure::usage(format!(
                    "--columns names `{name}`, which {} does not have; its columns are: {}",
                    input.path.display(),
                    known.join(", ")
                ))
            })
        })
        .collect()
}

/// What a state file records the run as: a state file of another run is refused.
fn header(args: &MapArgs, input: &InputFile) -> Value {
    let bytes = std::fs::metadata(&input.path).map(|m| m.len()).unwrap_or(0);
    json!({
        "intent_map_state": 1,
        "intent": args.intent,
        "input": input.path.display().to_string(),
        "input_bytes": bytes,
        "rows": input.rows,
        "columns": args.columns,
        "chunk_size": args.chunk_size,
    })
}

/// The client of a batch run: the configured provider with its batch API (an OpenAI-compatible
/// server named by OPENAI_BASE_URL is taken to have OpenAI's).
fn batch_client(args: &MapArgs) -> CliResult<IntentClient> {
    if args.call.replay.is_some() || args.call.record.is_some() {
        return Err(Failure::usage("--batch cannot be recorded or replayed: a batch is answered by the provider's batch API"));
    }
    let provider: Arc<dyn Provider> = if std::env::var_os("OPENAI_API_KEY").is_some()
        || std::env::var_os("OPENAI_BASE_URL").is_some()
    {
        Arc::new(
            OpenAiProvider::from_env()
                .map_err(Failure::from_intent)?
                .with_batch_api(true),
        )
    } else {
        Arc::new(AnthropicProvider::from_env().map_err(|_| {
            Failure::config("--batch needs OpenAI (OPENAI_API_KEY, or OPENAI_BASE_URL) or Anthropic (ANTHROPIC_API_KEY) configured")
        })?)
    };
    IntentClient::builder()
        .provider(provider)
        .build()
        .map_err(Failure::from_intent)
}

fn progress(rows: usize) -> ProgressBar {
    let bar = ProgressBar::new(rows as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} rows · {elapsed} · {eta} left")
    {
        bar.set_style(style);
    }
    bar
}

/// The issues of `value` against the intent's schema and rules, as messages for the model.
fn findings<T: Serialize>(intent: &CatalogIntent, value: &T) -> Vec<String> {
    let value = serde_json::to_value(value).unwrap_or(Value::Null);
    intent
        .check_value(&value)
        .into_iter()
        .map(|issue| match &issue.path {
            Some(path) => format!("At {path}: {}", issue.message),
            None => issue.message,
        })
        .collect()
}

fn issue_of(issue: &ResultIssue) -> Issue {
    Issue {
        path: issue.path.clone(),
        message: issue.message.clone(),
    }
}

fn outcome_of<T: Serialize>(result: Result<T, ElementIssue>) -> Outcome {
    match result {
        Ok(value) => Outcome::Value(serde_json::to_value(&value).unwrap_or(Value::Null)),
        Err(issue) => Outcome::Failed(vec![issue_of(&issue.issue)]),
    }
}

/// Writes the output batch by batch as the rows' outcomes arrive, in row order.
struct Assembler<'j> {
    pending: Arc<Mutex<VecDeque<RecordBatch>>>,
    outcomes: Vec<Outcome>,
    results: &'j ResultColumns,
    schema: &'j SchemaRef,
    format: Format,
}

impl Assembler<'_> {
    fn push(&mut self, outcome: Outcome, output: &mut OutputFile) -> CliResult<()> {
        self.outcomes.push(outcome);
        let front = self.pending.lock().ok().and_then(|p| p.front().cloned());
        let Some(batch) = front else {
            return Err(Failure::new(
                Exit::Internal,
                "a result arrived for a row that was not read",
            ));
        };
        if self.outcomes.len() < batch.num_rows() {
            return Ok(());
        }
        let with_results = self.results.batch(&batch, &self.outcomes, self.schema)?;
        let lines = if self.format == Format::Jsonl {
            self.results.lines(&batch, &self.outcomes)?
        } else {
            String::new()
        };
        output.write(&with_results, &lines)?;
        self.outcomes.clear();
        if let Ok(mut pending) = self.pending.lock() {
            pending.pop_front();
        }
        Ok(())
    }
}

/// The input's batches, each kept (all its columns) for the output and passed on (the columns
/// sent) for the model; a read error stops the stream and is kept.
fn tee(
    batches: Batches,
    sent: Vec<usize>,
    pending: Arc<Mutex<VecDeque<RecordBatch>>>,
    error: Arc<Mutex<Option<String>>>,
) -> impl futures::Stream<Item = RecordBatch> + Send {
    stream::iter(batches).filter_map(move |batch| {
        let kept = match batch {
            Ok(batch) if batch.num_rows() == 0 => None,
            Ok(batch) => match batch.project(&sent) {
                Ok(projected) => {
                    if let Ok(mut pending) = pending.lock() {
                        pending.push_back(batch);
                    }
                    Some(projected)
                }
                Err(e) => {
                    error
                        .lock()
                        .map(|mut slot| *slot = Some(e.to_string()))
                        .ok();
                    None
                }
            },
            Err(e) => {
                error.lock().map(|mut slot| *slot = Some(e)).ok();
                None
            }
        };
        std::future::ready(kept)
    })
}

async fn live<T: Intent + Serialize + Send + 'static>(job: &mut Job<'_>) -> CliResult<Summary> {
    let mut summary = Summary::default();
    let mut batches = job.input.batches()?;
    let pending = Arc::new(Mutex::new(VecDeque::new()));
    let mut assembler = Assembler {
        pending: pending.clone(),
        outcomes: Vec::new(),
        results: &job.results,
        schema: &job.schema,
        format: job.format,
    };
    // The rows an earlier run recorded: written from the state file, not sent.
    let recorded = job.journal.as_ref().map_or(0, |j| j.recorded);
    let mut first_unsent: Option<RecordBatch> = None;
    let mut row = 0;
    while row < recorded {
        let Some(batch) = batches.next() else { break };
        let batch = batch.map_err(Failure::usage)?;
        if batch.num_rows() == 0 {
            continue;
        }
        pending.lock().map(|mut p| p.push_back(batch.clone())).ok();
        let take = batch.num_rows().min(recorded - row);
        for _ in 0..take {
            let outcome = job
                .journal
                .as_mut()
                .map(Journal::replay)
                .transpose()?
                .unwrap_or(Outcome::Failed(Vec::new()));
            if matches!(outcome, Outcome::Failed(_)) {
                summary.failed += 1;
            }
            assembler.push(outcome, &mut job.output)?;
        }
        if take < batch.num_rows() {
            first_unsent = Some(batch.slice(take, batch.num_rows() - take));
        }
        row += take;
    }
    summary.resumed = row;
    job.progress.inc(row as u64);

    let error = Arc::new(Mutex::new(None));
    let sent = job.sent.clone();
    let head = first_unsent
        .map(|b| b.project(&sent).map_err(|e| Failure::usage(e.to_string())))
        .transpose()?;
    let rest = tee(batches, sent, pending.clone(), error.clone());
    let model_batches = stream::iter(head).chain(rest);
    let intent = job.intent;
    let mut results = job
        .client
        .map_stream::<T, _>(table::stream_rows(model_batches), intent.intent())
        .options(job.options.clone())
        .chunk_size(usize::from(job.args.chunk_size))
        .concurrency(usize::from(job.args.concurrency))
        .validate(move |value: &T| findings(intent, value));
    while let Some((position, result)) = results.next().await {
        let outcome = outcome_of(result);
        if matches!(outcome, Outcome::Failed(_)) {
            summary.failed += 1;
        }
        if let Some(journal) = &mut job.journal {
            journal.record(row + position, &outcome)?;
        }
        assembler.push(outcome, &mut job.output)?;
        job.progress.inc(1);
    }
    summary.usage = results.usage();
    if let Some(e) = error.lock().ok().and_then(|mut slot| slot.take()) {
        return Err(Failure::usage(e));
    }
    summary.rows = job.input.rows;
    Ok(summary)
}

async fn batch<T: Intent + Serialize + Send + 'static>(job: &mut Job<'_>) -> CliResult<Summary> {
    let batches: Vec<RecordBatch> = job
        .input
        .batches()?
        .collect::<Result<_, _>>()
        .map_err(Failure::usage)?;
    let whole = arrow_select::concat::concat_batches(&job.input.schema, &batches)
        .and_then(|b| b.project(&job.sent))
        .map_err(|e| Failure::usage(e.to_string()))?;
    let table = Table::from_arrow(&whole).map_err(|e| Failure::usage(e.to_string()))?;
    let mut options = BatchOptions::new();
    if let Some(state) = &job.args.state {
        options = options.state_file(state);
    }
    if let Some(seconds) = job.args.poll_interval {
        options = options.poll_interval(Duration::from_secs_f64(seconds));
    }
    let intent = job.intent;
    job.progress.set_message("waiting for the batch");
    let result = job
        .client
        .map_rows::<T>(&table, intent.intent())
        .options(job.options.clone())
        .chunk_size(usize::from(job.args.chunk_size))
        .validate(move |value: &T| findings(intent, value))
        .batch(options)
        .await;
    let mut summary = Summary {
        rows: job.input.rows,
        usage: result.usage(),
        ..Summary::default()
    };
    let mut outcomes = Vec::with_capacity(result.len());
    for (position, value) in result.values().iter().enumerate() {
        outcomes.push(match value {
            Some(value) => Outcome::Value(serde_json::to_value(value).unwrap_or(Value::Null)),
            None => {
                summary.failed += 1;
                Outcome::Failed(result.issues_for(position).map(issue_of).collect())
            }
        });
    }
    let mut assembler = Assembler {
        pending: Arc::new(Mutex::new(
            batches.into_iter().filter(|b| b.num_rows() > 0).collect(),
        )),
        outcomes: Vec::new(),
        results: &job.results,
        schema: &job.schema,
        format: job.format,
    };
    for outcome in outcomes {
        assembler.push(outcome, &mut job.output)?;
        job.progress.inc(1);
    }
    Ok(summary)
}

/// The summary for standard error.
fn report(args: &MapArgs, summary: &Summary, elapsed: Duration) -> String {
    let usage = summary.usage;
    let done = summary.rows - summary.failed;
    let mut out = format!(
        "{}: {} {} → {} · {done} with a value, {} failed",
        args.intent,
        summary.rows,
        plural(summary.rows, "row"),
        args.output.display(),
        summary.failed,
    );
    if summary.resumed > 0 {
        out.push_str(&format!(" · {} from the state file", summary.resumed));
    }
    out.push_str(&format!(
        " · {} tokens ({} in, {} cached, {} out) in {} {}",
        usage.total_tokens(),
        usage.input_tokens,
        usage.cached_tokens,
        usage.output_tokens,
        usage.calls,
        plural(usize::try_from(usage.calls).unwrap_or(usize::MAX), "call")
    ));
    match args.price {
        Some((input, output)) => {
            let mut price = Price::per_million(input, output);
            if args.batch {
                price = price.with_batch_discount(0.5).for_batch();
            }
            out.push_str(&format!(" · ${:.4}", price.cost(&usage)));
        }
        None => out.push_str(" · cost: give --price IN,OUT to see it"),
    }
    out.push_str(&format!(" · {:.1} s", elapsed.as_secs_f64()));
    out
}

//! The tool rounds of an attempt: while the model calls tools instead of answering, its calls
//! are run (all the calls of one turn at once, each under the call's deadline), their results
//! go back, and the model is asked again; the reply that calls none is the attempt's answer,
//! read and verified as any other.
//!
//! What the model is told for each call (the [`ToolResult`] content):
//!
//! - the handler's output, as JSON (a string output as its text);
//! - arguments that do not read as the tool's type: nothing is run, and the findings go back,
//!   each with its JSON path in the arguments, marked as an error;
//! - an unknown tool: the names of the known ones, marked as an error;
//! - a [`ToolError`](crate::tool::ToolError), a panic (caught), an output that is not JSON: the
//!   error, marked as such.
//!
//! The calls are counted over the whole call; a turn that would pass
//! [`max_tool_calls`](crate::AiRequestOptions::max_tool_calls) ends the call with an
//! [`IssueKind::Limit`] issue naming it, before any of that turn's calls is run. The token budget
//! is checked before every round, and the deadline covers the rounds and the handlers.
//!
//! With [`OutputMode::Tool`] the call offers one more tool, `final_answer`, whose parameters are
//! the answer's envelope schema, and requires a tool call: the arguments of the model's
//! `final_answer` call are the answer's text, read by the same reader.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt as _;
use serde_json::Value;
use tracing::Instrument as _;

use super::limits::Limits;
use super::reply::{self, Answer, Answered};
use super::Job;
use crate::cache::CacheKey;
use crate::observe;
use crate::options::{AiRequestOptions, OutputMode};
use crate::provider::ProviderError;
use crate::request::{AiRequest, ResponseFormat};
use crate::result::{AttemptRecord, IssueKind, ResultIssue, Usage};
use crate::shape::TypeInfo;
use crate::toolbox::{
    RequestTools, Tool, ToolCall, ToolCallRecord, ToolChoice, ToolDefinition, ToolResult, ToolRound,
};

/// The name of the tool whose arguments are the answer, with [`OutputMode::Tool`].
pub(crate) const FINAL_ANSWER: &str = "final_answer";

/// The tool calls a call may make when its options name no limit.
pub(crate) const DEFAULT_MAX_TOOL_CALLS: u32 = 8;

/// A call's tools, prepared once for all its attempts.
pub(crate) struct CallTools {
    tools: Vec<Tool>,
    /// The first round's tools, as every attempt's first request carries them.
    offered: Arc<RequestTools>,
    /// With [`OutputMode::Tool`]: the `final_answer` call is the answer.
    final_answer: bool,
    max_calls: u32,
    /// The calls made so far, over every attempt.
    made: AtomicU32,
    /// The user message's `## Tools` section (empty without the caller's tools).
    section: String,
}

impl CallTools {
    /// The tools of a call with `tools` and `options` for a result described by `info`: `None`
    /// for a call with neither tools nor [`OutputMode::Tool`], which pays nothing for them. Two
    /// tools of one name, a name a vendor cannot take, or a tool named `final_answer` beside that
    /// mode's own are refused before anything is sent.
    pub(crate) fn new(
        tools: Vec<Tool>,
        options: &AiRequestOptions,
        info: &TypeInfo,
    ) -> Result<Option<CallTools>, ResultIssue> {
        let final_answer = options.output_mode == Some(OutputMode::Tool);
        if tools.is_empty() && !final_answer {
            return Ok(None);
        }
        let mut definitions: Vec<ToolDefinition> = Vec::with_capacity(tools.len() + 1);
        for tool in &tools {
            let name = tool.name();
            if !valid_name(name) {
                return Err(refused(format!(
                    "the tool name `{name}` cannot be sent: a tool's name is 1 to 64 letters, digits, `_` or `-`; nothing was sent"
                )));
            }
            if definitions.iter().any(|d| d.name == name) || (final_answer && name == FINAL_ANSWER)
            {
                return Err(refused(format!(
                    "two tools are named `{name}`; each tool needs a name of its own; nothing was sent"
                )));
            }
            definitions.push(ToolDefinition::clone(tool.definition()));
        }
        if final_answer {
            let parameters = info
                .shared_envelope_schema()
                .unwrap_or_else(|| Arc::new(serde_json::json!({"type": "object"})));
            definitions.push(ToolDefinition::new(
                FINAL_ANSWER,
                "Give your final answer: call this once, with the answer as its arguments.",
                parameters,
            ));
        }
        let section = tools_section(&tools);
        let mut offered = RequestTools::new(definitions);
        if final_answer {
            offered.choice = ToolChoice::Required;
        }
        Ok(Some(CallTools {
            tools,
            offered: Arc::new(offered),
            final_answer,
            max_calls: options.max_tool_calls.unwrap_or(DEFAULT_MAX_TOOL_CALLS),
            made: AtomicU32::new(0),
            section,
        }))
    }

    /// `request`, an attempt's first, offering the tools; with [`OutputMode::Tool`] no
    /// response format is asked for, the answer coming as `final_answer`'s arguments.
    pub(crate) fn offer(&self, request: &mut AiRequest) {
        request.tools = Some(Arc::clone(&self.offered));
        if !self.section.is_empty() {
            let mut user = String::with_capacity(request.user.len() + self.section.len());
            user.push_str(&request.user);
            user.push_str(&self.section);
            request.user = Arc::new(user);
        }
        if self.final_answer {
            request.format = ResponseFormat::Text;
            request.schema = None;
        }
    }
}

/// The `## Tools` section a call with `tools` adds to its user message: without it, a model
/// told to use "only the input" answers from what it has (the local Qwen2.5-Coder-0.5B did, at
/// once, with a made-up value; with it, it called the tool). What the tools return counts as
/// input, so the preamble's rule against invented facts holds for it too.
fn tools_section(tools: &[Tool]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = tools.iter().map(Tool::name).collect();
    format!(
        "\n\n## Tools\nYou can call these tools: {}. Call the ones you need before you answer; what they return counts as input. Reply as the output requirements say only once you have what you need.",
        names.join(", ")
    )
}

/// True when every vendor takes `name` as a tool's name (OpenAI's and Anthropic's
/// `^[a-zA-Z0-9_-]{1,64}$`, which Gemini's rule contains).
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn refused(message: String) -> ResultIssue {
    ResultIssue::new(IssueKind::Request, message)
}

/// How an attempt's tool rounds ended.
// A reply is the common case: boxing it would allocate once more on every call.
#[allow(clippy::large_enum_variant)]
pub(super) enum Rounds {
    /// The model answered (its rounds' usage added to the answer's).
    Answer(Answer),
    /// A limit ended the call: the tool calls or the token budget.
    Limit(ResultIssue),
    /// The deadline came first.
    Deadline,
    /// A provider failed on a later round.
    Failed(ProviderError),
}

/// Runs the tool rounds of attempt `number`, which sent `request` and got `answer`, until the
/// model answers without calling a tool. `spent` is the call's usage before this attempt, for
/// the token budget. The attempt's tool calls are recorded on `record`.
///
/// The answer round: the model is asked once more, with no tool calls allowed
/// ([`ToolChoice::None`]) and the request's format, when
///
/// - it answered in text to a request sent without its format (a provider that cannot call
///   tools under one: see `send::tools_apart`) and the text does not read as the answer;
/// - every call of its turn repeats one this attempt already ran, with the same arguments: it
///   has their results, so they are not run again (nor counted), and it is asked to answer.
///
/// The answer round's reply is the attempt's answer, whatever it holds.
#[allow(clippy::too_many_arguments)]
pub(super) async fn rounds<T>(
    job: &Job<'_, '_, T>,
    limits: &Limits,
    request: &AiRequest,
    mut answer: Answer,
    number: u32,
    first_key: &mut Option<CacheKey>,
    span: &tracing::Span,
    spent: Usage,
    record: &mut AttemptRecord,
) -> Rounds {
    let Some(tools) = job.tools else {
        return Rounds::Answer(answer);
    };
    let mut request = request.clone();
    let mut used = Usage::default();
    let mut notices = Vec::new();
    let mut answer_round = false;
    loop {
        if answer_round {
            // No call is run after the answer round: its text is the answer.
            answer.response.tool_calls.clear();
        } else {
            take_calls(&mut answer, tools, &request);
        }
        let calls = std::mem::take(&mut answer.response.tool_calls);
        let ask_again = if answer_round {
            None
        } else if calls.is_empty() {
            (answer.format_left_out && (job.verify)(&answer.response.text).is_err()).then_some(None)
        } else if !tools.final_answer && calls.iter().all(|call| already_ran(record, call)) {
            Some(Some(repeated_notice(calls.len())))
        } else {
            None
        };
        if calls.is_empty() && ask_again.is_none() {
            answer.response.usage += used;
            keep_new(&mut notices, std::mem::take(&mut answer.notices));
            answer.notices = notices;
            return Rounds::Answer(answer);
        }
        used += answer.response.usage;
        keep_new(&mut notices, std::mem::take(&mut answer.notices));
        if let Some(notice) = ask_again {
            notices.extend(notice);
            answer_round = true;
            let mut next = RequestTools::clone(request.tools.as_deref().unwrap_or(&tools.offered));
            next.choice = ToolChoice::None;
            request.tools = Some(Arc::new(next));
        } else {
            let asked = u32::try_from(calls.len()).unwrap_or(u32::MAX);
            let made = tools.made.load(Ordering::Relaxed);
            if made.saturating_add(asked) > tools.max_calls {
                record.usage += used;
                return Rounds::Limit(ResultIssue::new(
                    IssueKind::Limit,
                    format!(
                        "the model asked for {asked} more tool call(s) after {made}, past the call's max_tool_calls ({}); none of them was run",
                        tools.max_calls
                    ),
                ));
            }
            tools.made.fetch_add(asked, Ordering::Relaxed);
            let results = run_all(tools, &calls, limits, record).await;
            if limits.past_deadline() {
                record.usage += used;
                return Rounds::Deadline;
            }
            let mut next = RequestTools::clone(request.tools.as_deref().unwrap_or(&tools.offered));
            let mut round = ToolRound::new(calls, results);
            round.text = std::mem::take(&mut answer.response.text);
            round.vendor_turn = answer.response.vendor_turn.take().map(|turn| *turn);
            next.rounds.push(round);
            request.tools = Some(Arc::new(next));
        }
        let mut total = spent;
        total += used;
        if let Some(issue) = limits.budget_issue(total) {
            record.usage += used;
            return Rounds::Limit(issue);
        }
        answer = match reply::answer(job, limits, &request, number, first_key, span).await {
            Answered::Reply(answer) => answer,
            Answered::Deadline => {
                record.usage += used;
                return Rounds::Deadline;
            }
            Answered::Failed(error) => {
                record.usage += used;
                return Rounds::Failed(error);
            }
        };
    }
}

/// Moves into `answer`'s calls those its text writes (a server that left them unparsed), and
/// with [`OutputMode::Tool`] turns a `final_answer` call into the answer's text.
fn take_calls(answer: &mut Answer, tools: &CallTools, request: &AiRequest) {
    if answer.response.tool_calls.is_empty() {
        let offered = request.tools.as_deref().unwrap_or(&tools.offered);
        let written = super::text_calls::calls_in_text(&answer.response.text, offered);
        if !written.is_empty() {
            answer.response.tool_calls = written;
            answer.response.text.clear();
        }
    }
    if tools.final_answer {
        let calls = &answer.response.tool_calls;
        if let Some(at) = calls.iter().position(|c| c.name == FINAL_ANSWER) {
            let call = answer.response.tool_calls.swap_remove(at);
            answer.response.text = call.arguments;
            answer.response.tool_calls.clear();
        }
    }
}

/// A call's arguments as recorded and compared: their JSON, so that spacing and the order of
/// members do not matter (the text itself, as a JSON string, when it is not JSON).
fn arguments_value(call: &ToolCall) -> Value {
    serde_json::from_str::<Value>(&call.arguments)
        .unwrap_or_else(|_| Value::String(call.arguments.clone()))
}

/// True when this attempt's `record` holds a call of the same tool with the same arguments.
fn already_ran(record: &AttemptRecord, call: &ToolCall) -> bool {
    let arguments = arguments_value(call);
    record
        .tool_calls
        .iter()
        .any(|ran| ran.name == call.name && ran.arguments == arguments)
}

/// The notice of an answer round asked for because the model repeated `count` calls.
fn repeated_notice(count: usize) -> ResultIssue {
    ResultIssue::new(
        IssueKind::Request,
        format!(
            "The model repeated {count} tool call(s) it already had the results of; they were not run again, and it was asked to answer with no tool calls allowed."
        ),
    )
}

/// Appends to `kept` each of `new` it does not hold yet.
fn keep_new(kept: &mut Vec<ResultIssue>, new: Vec<ResultIssue>) {
    for notice in new {
        if !kept.contains(&notice) {
            kept.push(notice);
        }
    }
}

/// Runs one turn's calls at once, each under the deadline; their results in the calls' order.
async fn run_all(
    tools: &CallTools,
    calls: &[ToolCall],
    limits: &Limits,
    record: &mut AttemptRecord,
) -> Vec<ToolResult> {
    let runs = calls.iter().map(|call| run_one(tools, call, limits));
    let outcomes = futures::future::join_all(runs).await;
    let mut results = Vec::with_capacity(calls.len());
    for (call, (content, is_error, latency)) in calls.iter().zip(outcomes) {
        let mut entry = ToolCallRecord::new(call.name.clone(), arguments_value(call));
        entry.output.clone_from(&content);
        entry.is_error = is_error;
        entry.latency = latency;
        observe::tool_called(&entry);
        record.tool_calls.push(entry);
        results.push(ToolResult::new(
            call.id.clone(),
            call.name.clone(),
            content,
            is_error,
        ));
    }
    results
}

/// Runs one call: what goes back to the model, whether it is an error, and how long it took.
async fn run_one(
    tools: &CallTools,
    call: &ToolCall,
    limits: &Limits,
) -> (String, bool, std::time::Duration) {
    let span = observe::spans::tool(&call.name, &call.id);
    let started = Instant::now();
    let (content, is_error) = async {
        let Some(tool) = tools.tools.iter().find(|t| t.name() == call.name) else {
            return (unknown_tool(tools, &call.name), true);
        };
        let running = match (tool.start)(&call.arguments) {
            Ok(running) => running,
            Err(refused) => return (refused, true),
        };
        match limits
            .within(AssertUnwindSafe(running).catch_unwind())
            .await
        {
            None => (
                format!(
                    "The tool `{}` did not finish before the call's deadline; it was stopped.",
                    call.name
                ),
                true,
            ),
            Some(Err(panic)) => (crate::tool::panicked(&*panic).to_string(), true),
            Some(Ok(Err(error))) => (error.to_string(), true),
            Some(Ok(Ok(output))) => (output_text(output), false),
        }
    }
    .instrument(span.clone())
    .await;
    let latency = started.elapsed();
    observe::spans::finish_tool(&span, is_error, latency);
    (content, is_error, latency)
}

/// A handler's output as the model is sent it: a string as its text, anything else as JSON.
fn output_text(output: Value) -> String {
    match output {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// What the model is told of a call to a tool that does not exist.
fn unknown_tool(tools: &CallTools, name: &str) -> String {
    let known: Vec<&str> = tools
        .offered
        .definitions
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    let shown: String = name.chars().take(80).collect();
    format!(
        "There is no tool named `{shown}`. The tools are: {}.",
        known.join(", ")
    )
}

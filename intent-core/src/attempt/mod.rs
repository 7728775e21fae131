//! The attempt loop: awaiting an [`AiCall`] runs it. Each attempt takes three steps, one module
//! each, and the loop retries with the findings within the call's [`limits`]:
//!
//! 1. [`reply`]: the reply, from the cache (first attempts only) or the providers;
//! 2. [`checks`]: how the reply ended, what the reader and the call's checks find (the answer
//!    checks each in a file of its own: `copied_example`, `empty_list`, `rule_bound`,
//!    `truncation`), the judge;
//! 3. [`finish`]: the attempt's record and span, the cache write of a reply that passed, and the
//!    call's result.

mod checks;
mod finish;
mod limits;
mod reply;
mod text_calls;
mod token_budget;
mod tools;

use std::any::type_name;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use tracing::Instrument;

pub(crate) use self::checks::finish_issue;
pub(crate) use self::limits::Limits;
pub(crate) use self::reply::asked;
pub(crate) use self::tools::CallTools;

use self::checks::Checked;
use self::finish::Tally;
use self::reply::Answered;
use crate::cache::Cache;
use crate::call::AiCall;
use crate::client::IntentClient;
use crate::error::IntentError;
use crate::input::SerializedInput;
use crate::intent::Intent;
use crate::observe;
use crate::options::AiRequestOptions;
use crate::prompt::{self, PromptPlan};
use crate::provider::ProviderErrorKind;
use crate::read::RuntimeSchema;
use crate::relay::Relay;
use crate::result::{AiResult, AttemptRecord, IssueKind, ResultIssue};
use crate::shape::TypeInfo;
use crate::trust::{Grounded, Grounds, SamplePolicy};

impl<'a, T> IntoFuture for AiCall<'a, T>
where
    T: Intent + Send + 'a,
{
    type Output = AiResult<T>;
    type IntoFuture = Pin<Box<dyn Future<Output = AiResult<T>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run(self, None))
    }
}

/// Reads a reply's text into the value, or returns every finding (sent back on the next attempt).
pub(crate) type Verifier<'c, T> = dyn Fn(&str) -> Result<T, Vec<ResultIssue>> + Send + Sync + 'c;

/// Everything an attempt needs that stays the same across attempts.
struct Job<'c, 'a, T> {
    client: &'c IntentClient,
    /// The shape of the answer, for the confidence of its members.
    info: &'c TypeInfo,
    plan: &'c PromptPlan,
    input: &'c SerializedInput,
    intent: &'a str,
    options: &'c AiRequestOptions,
    verify: &'c Verifier<'c, T>,
    /// Where a streamed call's reply goes as it arrives.
    relay: Option<&'c dyn Relay>,
    /// The providers that refused the call's strict schema, asked in JSON-object mode since.
    step_downs: crate::send::StepDowns,
    /// The call's tools, for a call with tools or [`OutputMode::Tool`](crate::OutputMode::Tool).
    tools: Option<&'c CallTools>,
}

impl<T> Job<'_, '_, T> {
    /// The client's cache, unless the request skips it, asks for log probabilities (which
    /// belong to a live reply) or has tools (whose rounds run the handlers anew).
    fn cache(&self) -> Option<&dyn Cache> {
        self.client
            .cache()
            .filter(|_| !self.options.no_cache && !self.options.logprobs && self.tools.is_none())
    }

    /// An attempt's request as this call sends it: offering its tools, and in
    /// [`OutputMode::Prompted`](crate::OutputMode::Prompted) with the schema in the prompt.
    fn shape_request(&self, request: &mut crate::request::AiRequest) {
        if self.options.output_mode == Some(crate::options::OutputMode::Prompted) {
            crate::send::schema_in_prompt(request, crate::request::ResponseFormat::Text);
        }
        if let Some(tools) = self.tools {
            tools.offer(request);
        }
    }
}

/// The name of the provider an attempt of `job` asks first: the named one, else the primary.
fn first_asked<'c, T>(job: &Job<'c, '_, T>) -> &'c str {
    match job.options.provider.as_deref() {
        Some(named) => named,
        None => job.client.providers().first().map_or("", |p| p.name()),
    }
}

/// Runs a call to its end: a verified value, or the issues that kept every attempt from one. With
/// a `relay`, each reply is streamed and relayed as it arrives (`AiCall::stream`).
///
/// Nothing starts until the future is first polled: then the call's span opens and its id is
/// drawn. Written with combinators rather than as an `async fn`, which would hold the call twice
/// (as its argument and inside the attempt loop's future) and move both at every await.
pub(crate) fn run<'a, T: Intent + Send + 'a>(
    call: AiCall<'a, T>,
    relay: Option<&'a dyn Relay>,
) -> impl Future<Output = AiResult<T>> + Send + 'a {
    futures::future::lazy(move |_| {
        let (started, id, target) = (Instant::now(), observe::next_call_id(), type_name::<T>());
        let (_, model) = asked(
            call.client,
            call.options.model.as_deref(),
            call.options.provider.as_deref(),
        );
        let span = observe::spans::call(id, target, model);
        let observers = call.client.observers();
        observe::in_call(observers, id, target, run_inner(call, relay))
            .instrument(span.clone())
            .map(move |result| {
                observe::spans::finish_call(&span, &result, started);
                result
            })
    })
    .flatten()
}

async fn run_inner<T: Intent + Send>(
    call: AiCall<'_, T>,
    relay: Option<&dyn Relay>,
) -> AiResult<T> {
    let AiCall {
        client,
        input,
        intent,
        mut options,
        checks,
        json_checks,
        tools,
    } = call;
    let input = match input {
        Ok(input) => input,
        Err(error) => {
            let kind = match error {
                IntentError::Catalog(_) => IssueKind::Request,
                _ => IssueKind::Input,
            };
            return AiResult::failure(vec![ResultIssue::new(kind, error.to_string())]);
        }
    };
    let info = T::type_info();
    let schema = match runtime_schema(&info, &mut options) {
        Ok(schema) => schema,
        Err(issue) => return AiResult::failure(vec![issue]),
    };
    let plan = match prompt::plan(&info, &options, intent, &input) {
        Ok(plan) => plan,
        Err(error) => {
            return AiResult::failure(vec![ResultIssue::new(
                IssueKind::Request,
                error.to_string(),
            )])
        }
    };
    let tools = match CallTools::new(tools, &options, &info) {
        Ok(tools) => tools,
        Err(issue) => return AiResult::failure(vec![issue]),
    };
    let limits = Limits::new(client, &options);
    // A policy that may not retry takes the answer at once: a switch turned off makes it so.
    let switches = options.answer_checks.unwrap_or_default();
    let attempts_if = |on: bool| if on { limits.max_attempts } else { 1 };
    let empty_lists =
        checks::EmptyListPolicy::new(&info, &input, attempts_if(switches.empty_lists));
    let bounds = checks::BoundPolicy::new(&info, &input, attempts_if(switches.rule_bounds));
    let copied = checks::CopiedPolicy::new(
        &options.examples,
        &input.text,
        attempts_if(switches.copied_examples),
    );
    let samples = SamplePolicy::new(&info, attempts_if(switches.sample_values));
    let grounded = Grounded::of(&info);
    let grounds = std::sync::OnceLock::new();
    let grounds = || grounds.get_or_init(|| Grounds::of(&input));
    let verify = |text: &str| {
        let want_json = bounds.applies() || samples.applies() || !grounded.is_empty();
        let (value, json) = checks::read_checked(
            &info,
            schema.as_deref(),
            &checks,
            &json_checks,
            text,
            want_json,
        )?;
        // A grounded member the input does not hold has no way out.
        if let Some(json) = json.as_ref().filter(|_| !grounded.is_empty()) {
            let missing = grounded.check(json, grounds());
            if !missing.is_empty() {
                return Err(missing);
            }
        }
        if let Some(issue) = empty_lists.check(text) {
            return Err(vec![issue]);
        }
        if let Some(issue) = copied.check(text) {
            return Err(vec![issue]);
        }
        if let Some(json) = &json {
            let sampled = samples.check(json, grounds(), &[]);
            if !sampled.is_empty() {
                return Err(sampled);
            }
            let bound = bounds.check(json);
            if !bound.is_empty() {
                return Err(bound);
            }
        }
        Ok(value)
    };
    let job = Job {
        client,
        info: &info,
        plan: &plan,
        input: &input,
        intent,
        options: &options,
        verify: &verify,
        relay,
        step_downs: Default::default(),
        tools: tools.as_ref(),
    };
    attempts(&job, &limits).await
}

/// The runtime schema of a call whose result is JSON and whose options carry an `output_schema`,
/// taken from the cache of compiled schemas ([`RuntimeSchema::shared`]: an intent file's was
/// compiled into it when the file was loaded) or compiled now, once for all the call's attempts.
/// The constraints its strict copy drops are added to the options' rule lines, so the prompt
/// states them. A schema that cannot be checked fails the call before anything is sent.
fn runtime_schema(
    info: &crate::shape::TypeInfo,
    options: &mut AiRequestOptions,
) -> Result<Option<Arc<RuntimeSchema>>, ResultIssue> {
    let Some(source) = &options.output_schema else {
        return Ok(None);
    };
    let json_result = matches!(
        info.graph().node(info.root()),
        crate::shape::Node::Scalar(crate::shape::Scalar::Json | crate::shape::Scalar::JsonObject)
    );
    if !json_result {
        // The plan refuses an output schema for a typed result, with its own message.
        return Ok(None);
    }
    let schema = RuntimeSchema::shared(source).map_err(|fault| {
        // A schema that cannot even be sent says so first, as the plan words it.
        let error = match crate::schema::build_envelope_from_schema(source) {
            Err(error) => error,
            Ok(_) => IntentError::InvalidSchema(format!("{fault}; nothing was sent")),
        };
        ResultIssue::new(IssueKind::Request, error.to_string())
    })?;
    for line in schema.constraint_lines() {
        if !options.rule_lines.contains(&line) {
            options.rule_lines.push(line);
        }
    }
    Ok(Some(schema))
}

/// Runs the attempts of a planned call whose replies `verify` reads (each chunk of a collection
/// call), each reply streamed and relayed as it arrives when a `relay` is given (a streamed
/// collection call's chunk).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn run_plan_relayed<T: Send>(
    client: &IntentClient,
    info: &TypeInfo,
    plan: &PromptPlan,
    input: &SerializedInput,
    intent: &str,
    options: &AiRequestOptions,
    verify: &Verifier<'_, T>,
    relay: Option<&dyn Relay>,
    tools: Option<&CallTools>,
) -> AiResult<T> {
    let limits = Limits::new(client, options);
    let job = Job {
        client,
        info,
        plan,
        input,
        intent,
        options,
        verify,
        relay,
        step_downs: Default::default(),
        tools,
    };
    attempts(&job, &limits).await
}

/// The loop: each attempt answered, checked and finished, until one passes or a limit is reached.
async fn attempts<T: Send>(job: &Job<'_, '_, T>, limits: &Limits) -> AiResult<T> {
    let mut tally = Tally::default();
    let mut first_key = None;
    for number in 1..=limits.max_attempts {
        if let (Some(relay), Some(last)) = (job.relay, tally.last()) {
            relay.retry(last);
        }
        let started = Instant::now();
        let mut request = job.plan.request(tally.last());
        job.shape_request(&mut request);
        let mut record = AttemptRecord::new(number);
        if let Err(limit) = token_budget::fit(&mut request, limits, tally.usage, &tally.records) {
            return tally.fail_with(Some(limit));
        }
        let span = observe::spans::attempt(number);
        observe::attempt_started(number);

        let answered = reply::answer(job, limits, &request, number, &mut first_key, &span).await;
        let answered = match answered {
            Answered::Reply(answer) if job.tools.is_some() => {
                let spent = tally.usage;
                let rounds = tools::rounds(
                    job,
                    limits,
                    &request,
                    answer,
                    number,
                    &mut first_key,
                    &span,
                    spent,
                    &mut record,
                )
                .await;
                match rounds {
                    tools::Rounds::Answer(answer) => Answered::Reply(answer),
                    tools::Rounds::Deadline => Answered::Deadline,
                    tools::Rounds::Failed(error) => Answered::Failed(error),
                    tools::Rounds::Limit(issue) => {
                        record.provider = first_asked(job).to_owned();
                        record.latency = started.elapsed();
                        record.issues.push(issue);
                        tally.usage += record.usage;
                        return tally.fail_at(record, &span, "limit");
                    }
                }
            }
            other => other,
        };
        let mut answer = match answered {
            Answered::Reply(answer) => answer,
            Answered::Deadline => {
                // No provider answered: the record names the one that was asked.
                record.provider = first_asked(job).to_owned();
                record.latency = started.elapsed();
                record.issues.extend(limits.deadline_issue());
                tally.usage += record.usage;
                return tally.fail_at(record, &span, "deadline");
            }
            Answered::Failed(error) => {
                tally.usage += record.usage;
                record.latency = started.elapsed();
                record.provider = if error.provider.is_empty() {
                    first_asked(job).to_owned()
                } else {
                    error.provider.clone()
                };
                // A rate limit that would hold the request past the deadline is the call's
                // limit.
                let kind = match error.kind {
                    ProviderErrorKind::RateLimitWait => IssueKind::Limit,
                    _ => IssueKind::Provider,
                };
                record
                    .issues
                    .push(ResultIssue::new(kind, error.to_string()));
                return tally.fail_at(record, &span, "provider failed");
            }
        };
        finish::record_answer(&mut record, &mut answer);
        if job.options.logprobs {
            finish::record_confidence(&mut record, job.info, &answer.response);
        }
        tally.usage += answer.response.usage;

        let checked = checks::check(
            job,
            limits,
            &request,
            &answer.response,
            &mut record,
            &mut tally.usage,
            &span,
        )
        .await;
        let raw_output = answer.response.text;
        let (value, judge_broken) = match checked {
            Checked::Deadline => {
                record.raw_output = raw_output;
                record.latency = started.elapsed();
                record.issues.extend(limits.deadline_issue());
                return tally.fail_at(record, &span, "deadline");
            }
            Checked::Passed(value) => (Some(value), false),
            Checked::Failed => (None, false),
            Checked::JudgeBroken => (None, true),
        };
        finish::close(&mut record, raw_output, started, &span, value.is_some());
        if let Some(value) = value {
            finish::store(job.cache(), first_key.as_ref(), &record).await;
            return tally.succeed(value, record);
        }
        let repeated = checks::repeated_cut(tally.last(), &record);
        tally.records.push(record);
        if repeated.is_some() {
            return tally.fail_with(repeated);
        }

        // The judge's own failure is not the answer's fault: asking the model again would not help.
        if judge_broken {
            return tally.fail_with(None);
        }
        if number < limits.max_attempts {
            if let Some(issue) = limits.budget_issue(tally.usage) {
                return tally.fail_with(Some(issue));
            }
            if limits.past_deadline() {
                if let Some(issue) = limits.deadline_issue() {
                    return tally.fail_with(Some(issue));
                }
            }
        }
    }
    let limit = limits.attempts_issue();
    tally.fail_with(Some(limit))
}

//! `intent test`: every intent's `tests`, run concurrently against the configured model, with a
//! progress bar, a table per intent, the failures' differences and, on request, a JUnit report.

mod junit;
mod report;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use intent_core::catalog::{Catalog, IntentTest};
use intent_core::{IntentClient, IssueKind};
use serde_json::Value;

use crate::check;
use crate::cli::CallArgs;
use crate::client;
use crate::exit::{CliResult, Exit, Failure};
use crate::input::Input;
use crate::shapes::{self, Runner};

/// `intent test`'s own options.
pub struct TestOptions {
    pub filter: Option<String>,
    pub junit: Option<PathBuf>,
    pub concurrency: usize,
}

/// How one test ended.
#[derive(Debug, Clone)]
pub enum Verdict {
    Passed,
    /// The answer did not meet the expectation: each difference.
    Failed(Vec<String>),
    /// No answer could be judged: a provider failed.
    Error(String),
    /// The command line cannot run the intent.
    Skipped(String),
}

/// One test's result.
#[derive(Debug, Clone)]
pub struct TestResult {
    pub intent: String,
    pub test: String,
    pub file: PathBuf,
    pub line: Option<usize>,
    pub verdict: Verdict,
    pub tokens: u64,
    pub attempts: usize,
    pub elapsed: Duration,
    /// The answer, as JSON, when there was one.
    pub answer: Option<Value>,
}

/// A test to run.
struct Case<'c> {
    intent: &'c str,
    file: &'c Path,
    test: &'c IntentTest,
    runner: Result<Runner, String>,
}

pub async fn test(path: &Path, options: &TestOptions, call: &CallArgs) -> CliResult {
    let catalog = check::load(path)?;
    let cases = cases(&catalog, options.filter.as_deref())?;
    let runnable = cases.iter().filter(|c| c.runner.is_ok()).count();
    let client = if runnable > 0 {
        Some(client::client(call)?)
    } else {
        None
    };
    let started = Instant::now();

    let bar = ProgressBar::new(cases.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} tests {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut results: Vec<(usize, TestResult)> = stream::iter(cases.iter().enumerate())
        .map(|(i, case)| {
            let (catalog, client, bar) = (&catalog, client.as_ref(), &bar);
            async move {
                let result = run_case(catalog, client, case, call).await;
                bar.inc(1);
                (i, result)
            }
        })
        .buffer_unordered(options.concurrency.max(1))
        .collect()
        .await;
    bar.finish_and_clear();
    results.sort_by_key(|(i, _)| *i);
    let results: Vec<TestResult> = results.into_iter().map(|(_, r)| r).collect();

    print!("{}", report::render(&results, started.elapsed()));
    if let Some(junit) = &options.junit {
        junit::write(junit, &results, started.elapsed())?;
    }
    let all_passed = results
        .iter()
        .all(|r| matches!(r.verdict, Verdict::Passed | Verdict::Skipped(_)));
    Ok(if all_passed { Exit::Ok } else { Exit::Failed })
}

/// The tests to run, filtered; each intent a test belongs to checked against its type.
fn cases<'c>(catalog: &'c Catalog, filter: Option<&str>) -> CliResult<Vec<Case<'c>>> {
    let mut cases = Vec::new();
    let mut with_tests = Vec::new();
    for name in catalog.names() {
        let Some(intent) = catalog.get(name) else {
            continue;
        };
        if intent.tests().is_empty() {
            continue;
        }
        with_tests.push(name);
        let runner = shapes::runner(intent);
        let mut checked = false;
        for test in intent.tests() {
            if filter.is_some_and(|f| !name.contains(f) && !test.name().contains(f)) {
                continue;
            }
            if let (Ok(runner), false) = (&runner, checked) {
                runner
                    .check(catalog, name)
                    .map_err(|e| Failure::new(Exit::Load, e.to_string()))?;
                checked = true;
            }
            cases.push(Case {
                intent: name,
                file: intent.file(),
                test,
                runner: runner.clone(),
            });
        }
    }
    if cases.is_empty() {
        return Err(Failure::usage(match (filter, with_tests.is_empty()) {
            (_, true) => {
                "no intent has tests; add a `tests` list to an intent (see `intent test --help`)"
                    .to_owned()
            }
            (Some(f), false) => format!(
                "no test matches `{f}`; the intents with tests are: {}",
                with_tests.join(", ")
            ),
            (None, false) => "no test to run".to_owned(),
        }));
    }
    Ok(cases)
}

async fn run_case(
    catalog: &Catalog,
    client: Option<&IntentClient>,
    case: &Case<'_>,
    call: &CallArgs,
) -> TestResult {
    let mut result = TestResult {
        intent: case.intent.to_owned(),
        test: case.test.name().to_owned(),
        file: case.file.to_path_buf(),
        line: case.test.line(),
        verdict: Verdict::Passed,
        tokens: 0,
        attempts: 0,
        elapsed: Duration::ZERO,
        answer: None,
    };
    let (runner, client) = match (&case.runner, client) {
        (Ok(runner), Some(client)) => (*runner, client),
        (Err(why), _) => {
            result.verdict = Verdict::Skipped(why.clone());
            return result;
        }
        (Ok(_), None) => {
            result.verdict = Verdict::Error("no client".to_owned());
            return result;
        }
    };
    let Some(intent) = catalog.get(case.intent) else {
        result.verdict = Verdict::Error(format!("the intent `{}` is gone", case.intent));
        return result;
    };
    let input = Input::of_value(case.test.input());
    let options = client::options(call, intent.options());
    let outcome = runner
        .run(catalog, client, case.intent, &input, &[], options)
        .await;
    result.tokens = outcome.usage.total_tokens();
    result.attempts = outcome.attempts.len();
    result.elapsed = outcome.elapsed;
    result.verdict = match outcome
        .issues
        .iter()
        .find(|i| i.kind == IssueKind::Provider)
    {
        Some(issue) if outcome.value.is_none() => Verdict::Error(issue.to_string()),
        _ => {
            let differences = case.test.evaluate(outcome.value.as_ref(), &outcome.issues);
            if differences.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed(differences)
            }
        }
    };
    result.answer = outcome.value;
    result
}

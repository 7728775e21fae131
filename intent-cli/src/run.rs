//! `intent run`: one intent on one input.

use std::path::{Path, PathBuf};

use intent_core::catalog::{Catalog, CatalogIntent};
use intent_core::{Attachment, IssueKind};
use serde_json::{json, Value};

use crate::check::{self, plural};
use crate::cli::CallArgs;
use crate::client;
use crate::exit::{CliResult, Exit, Failure};
use crate::input;
use crate::shapes::{self, Outcome};

pub async fn run(
    path: &Path,
    name: &str,
    input: Option<&Path>,
    attach: &[PathBuf],
    input_json: bool,
    json: bool,
    call: &CallArgs,
) -> CliResult {
    let catalog = check::load(path)?;
    let intent = find(&catalog, path, name)?;
    let runner = shapes::runner(intent).map_err(Failure::usage)?;
    runner.check(&catalog, name).map_err(Failure::from_intent)?;
    let input = input::read(input, input_json)?;
    let attachments = attach
        .iter()
        .map(Attachment::from_path)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Failure::usage(e.to_string()))?;
    let client = client::client(call)?;
    let options = client::options(call, intent.options());
    let outcome = runner
        .run(&catalog, &client, name, &input, &attachments, options)
        .await;

    if json {
        println!("{}", as_json(name, &outcome));
    } else {
        if let Some(value) = &outcome.value {
            match value {
                Value::String(text) => println!("{text}"),
                other => println!(
                    "{}",
                    serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string())
                ),
            }
        }
        eprint!("{}", report(name, &outcome));
    }
    Ok(exit_of(&outcome))
}

/// Intent `name` of the catalog loaded from `path`, or a usage error listing the known ones.
pub fn find<'c>(catalog: &'c Catalog, path: &Path, name: &str) -> CliResult<&'c CatalogIntent> {
    catalog.get(name).ok_or_else(|| {
        let known: Vec<&str> = catalog.names().collect();
        Failure::usage(format!(
            "no intent is named `{name}`; {} has: {}",
            path.display(),
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ))
    })
}

/// A call without a value fails; one refused before any call for its input is a usage error.
fn exit_of(outcome: &Outcome) -> Exit {
    if outcome.value.is_some() {
        Exit::Ok
    } else if !outcome.issues.is_empty()
        && outcome.issues.iter().all(|i| i.kind == IssueKind::Input)
    {
        Exit::Usage
    } else {
        Exit::Failed
    }
}

/// The attempts, issues, usage and time, for standard error.
fn report(name: &str, outcome: &Outcome) -> String {
    let mut out = String::new();
    for attempt in &outcome.attempts {
        let verdict = if attempt.passed() {
            "passed".to_owned()
        } else if attempt.issues.is_empty() {
            "no reply".to_owned()
        } else {
            format!(
                "sent back ({} {})",
                attempt.issues.len(),
                plural(attempt.issues.len(), "issue")
            )
        };
        out.push_str(&format!(
            "attempt {}: {verdict} · {} {} · {} tokens · {:.1} s{}\n",
            attempt.number,
            attempt.provider,
            attempt.model,
            attempt.usage.total_tokens(),
            attempt.latency.as_secs_f64(),
            if attempt.from_cache {
                " · from the cache"
            } else {
                ""
            }
        ));
        for issue in &attempt.issues {
            out.push_str(&format!("  - {issue}\n"));
        }
    }
    if outcome.value.is_none() {
        out.push_str(&format!("`{name}` gave no value:\n"));
        for issue in &outcome.issues {
            out.push_str(&format!("  - {issue}\n"));
        }
    }
    let usage = outcome.usage;
    out.push_str(&format!(
        "{name}: {} {} · {} tokens ({} in, {} cached, {} out) · {:.1} s\n",
        outcome.attempts.len(),
        plural(outcome.attempts.len(), "attempt"),
        usage.total_tokens(),
        usage.input_tokens,
        usage.cached_tokens,
        usage.output_tokens,
        outcome.elapsed.as_secs_f64()
    ));
    out
}

fn issue_json(issue: &intent_core::ResultIssue) -> Value {
    json!({
        "path": issue.path,
        "kind": format!("{:?}", issue.kind).to_ascii_lowercase(),
        "message": issue.message,
    })
}

/// The whole outcome as one line of JSON.
fn as_json(name: &str, outcome: &Outcome) -> Value {
    let attempts: Vec<Value> = outcome
        .attempts
        .iter()
        .map(|a| {
            json!({
                "number": a.number,
                "provider": a.provider,
                "model": a.model,
                "raw_output": a.raw_output,
                "issues": a.issues.iter().map(issue_json).collect::<Vec<_>>(),
                "usage": a.usage,
                "latency_ms": a.latency.as_millis() as u64,
                "from_cache": a.from_cache,
            })
        })
        .collect();
    json!({
        "intent": name,
        "value": outcome.value,
        "issues": outcome.issues.iter().map(issue_json).collect::<Vec<_>>(),
        "attempts": attempts,
        "usage": outcome.usage,
        "seconds": outcome.elapsed.as_secs_f64(),
    })
}

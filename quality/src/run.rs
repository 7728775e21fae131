//! Running a case set: each case through its kind's type, plain, ruled or grounded, one row per
//! case.

use std::fmt;

use intent_core::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cases::{Case, CaseSet};
use crate::kinds::{grounded, plain, ruled};

/// Which of a kind's three types a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The members alone.
    Plain,
    /// The members with their rules and docs.
    Ruled,
    /// The ruled members, those copied from the input marked `from_input`.
    Grounded,
}

impl Variant {
    /// Every variant, in the order a report shows them.
    pub const ALL: [Variant; 3] = [Variant::Plain, Variant::Ruled, Variant::Grounded];
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Variant::Plain => "plain",
            Variant::Ruled => "ruled",
            Variant::Grounded => "grounded",
        })
    }
}

/// One case's outcome, as `score.py` reads it (one JSON object per line).
///
/// ```
/// let row = intent_quality::Row { id: "v1".into(), output: Some("Minor".into()), error: None, calls: 1, tokens_in: 90, tokens_out: 4, retried_on: vec![] };
/// assert_eq!(serde_json::to_string(&row).unwrap(), r#"{"id":"v1","output":"Minor","error":null,"calls":1,"tokens_in":90,"tokens_out":4}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The case's id.
    pub id: String,
    /// The verified value as JSON, or `None` when the call failed.
    pub output: Option<Value>,
    /// The call's issues, joined, when it failed.
    pub error: Option<String>,
    /// Model calls made.
    pub calls: u64,
    /// Input tokens over every call.
    pub tokens_in: u64,
    /// Output tokens over every call.
    pub tokens_out: u64,
    /// The kinds of the findings (`Empty`, `Rule`, ...) on every attempt that was not the answer,
    /// one entry per finding; empty when the first attempt was the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retried_on: Vec<String>,
}

/// The options every case is asked with: deterministic, and bounded.
pub fn case_options() -> AiRequestOptions {
    AiRequestOptions {
        temperature: Some(0.0),
        max_output_tokens: Some(400),
        ..AiRequestOptions::default()
    }
}

/// Runs every case of `set` through `client` as `variant`, in order, one row per case.
pub async fn run_set(client: &IntentClient, set: &CaseSet, variant: Variant) -> Vec<Row> {
    let mut rows = Vec::with_capacity(set.cases.len());
    for case in &set.cases {
        rows.push(run_case(client, case, variant).await);
    }
    rows
}

/// Runs one case through its kind's type.
pub async fn run_case(client: &IntentClient, case: &Case, variant: Variant) -> Row {
    match (variant, case.kind.as_str()) {
        (Variant::Plain, "shipment") => ask::<plain::Shipment>(client, case).await,
        (Variant::Plain, "meeting") => ask::<plain::Meeting>(client, case).await,
        (Variant::Plain, "severity") => ask::<plain::Severity>(client, case).await,
        (Variant::Plain, "expense") => ask::<Vec<plain::Expense>>(client, case).await,
        (Variant::Plain, "job") => ask::<plain::Job>(client, case).await,
        (Variant::Ruled, "shipment") => ask::<ruled::Shipment>(client, case).await,
        (Variant::Ruled, "meeting") => ask::<ruled::Meeting>(client, case).await,
        (Variant::Ruled, "severity") => ask::<ruled::Severity>(client, case).await,
        (Variant::Ruled, "expense") => ask::<Vec<ruled::Expense>>(client, case).await,
        (Variant::Plain, "order") => ask::<plain::Order>(client, case).await,
        (Variant::Ruled, "job") => ask::<ruled::Job>(client, case).await,
        (Variant::Ruled, "order") => ask::<ruled::Order>(client, case).await,
        (Variant::Grounded, "shipment") => ask::<grounded::Shipment>(client, case).await,
        (Variant::Grounded, "meeting") => ask::<grounded::Meeting>(client, case).await,
        (Variant::Grounded, "severity") => ask::<ruled::Severity>(client, case).await,
        (Variant::Grounded, "expense") => ask::<Vec<grounded::Expense>>(client, case).await,
        (Variant::Grounded, "job") => ask::<grounded::Job>(client, case).await,
        (Variant::Grounded, "order") => ask::<grounded::Order>(client, case).await,
        (_, kind) => Row {
            id: case.id.clone(),
            output: None,
            error: Some(format!("no type for the kind `{kind}`")),
            calls: 0,
            tokens_in: 0,
            tokens_out: 0,
            retried_on: Vec::new(),
        },
    }
}

async fn ask<T: Intent + Serialize + Send>(client: &IntentClient, case: &Case) -> Row {
    let result = T::ai(client, case.input.as_str(), &case.intent)
        .options(case_options())
        .await;
    let usage = result.usage();
    let answered = usize::from(result.is_success());
    let earlier = &result.attempts()[..result.attempts().len().saturating_sub(answered)];
    let retried_on = earlier
        .iter()
        .flat_map(|attempt| &attempt.issues)
        .map(|issue| format!("{:?}", issue.kind))
        .collect();
    let error = (!result.is_success()).then(|| {
        result
            .issues()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" | ")
    });
    let output = result
        .value()
        .map(|value| serde_json::to_value(value).unwrap_or(Value::Null));
    Row {
        id: case.id.clone(),
        output,
        error,
        calls: u64::from(usage.calls),
        tokens_in: usage.input_tokens,
        tokens_out: usage.output_tokens,
        retried_on,
    }
}

//! Schema instances given to the library as model replies, for the conformance suites: each
//! instance is the reply `{"value": <instance>}` to a call whose shape is the schema, through
//! `client.transform` and through an intent file, on the scripted model, one attempt.

use intent_core::catalog::Catalog;
use intent_core::prelude::*;
use intent_core::IssueKind;
use serde_json::{json, Value};

/// How a call with a schema took an instance given as its reply.
#[derive(Debug)]
pub enum Verdict {
    /// The call succeeded with this value.
    Accepted(Value),
    /// The call refused the reply: its first issue's message and path.
    Refused(String),
    /// The call was refused before anything was sent (the schema cannot be sent or checked).
    NotSent(String),
}

/// The reply a model gives when it answers `instance`.
pub fn reply(instance: &Value) -> String {
    json!({ "value": instance }).to_string()
}

/// `instance` as the reply to `client.transform(.., schema)`.
pub async fn through_transform(schema: &Value, instance: &Value) -> Verdict {
    let model = ScriptedProvider::new([reply(instance)]);
    let client = IntentClient::new(model.clone());
    let result = client
        .transform("the input", "Answer.", schema.clone())
        .max_attempts(1)
        .await;
    verdict(result, model.requests().is_empty())
}

/// An intent file of one intent, `case`, whose shape is `schema`; or why it does not load.
pub fn intent_file(schema: &Value) -> Result<Catalog, String> {
    let text = json!({"intents": [{"name": "case", "intent": "Answer.", "shape": schema}]});
    Catalog::parse("case.json", &text.to_string()).map_err(|e| e.to_string())
}

/// `instance` as the reply to the intent `case` of `catalog` (see [`intent_file`]).
pub async fn through_intent_file(catalog: &Catalog, instance: &Value) -> Verdict {
    let model = ScriptedProvider::new([reply(instance)]);
    let client = IntentClient::new(model.clone());
    let result = catalog
        .run_json(&client, "case", "the input")
        .max_attempts(1)
        .await;
    verdict(result, model.requests().is_empty())
}

fn verdict(result: AiResult<Value>, nothing_sent: bool) -> Verdict {
    let first = result.issues().first().map(|issue| {
        format!(
            "{}{}",
            issue
                .path
                .as_deref()
                .map(|p| format!("{p}: "))
                .unwrap_or_default(),
            issue.message
        )
    });
    let request_refused = result
        .issues()
        .first()
        .is_some_and(|issue| issue.kind == IssueKind::Request);
    match result.into_value() {
        Some(value) => Verdict::Accepted(value),
        None if nothing_sent || request_refused => Verdict::NotSent(first.unwrap_or_default()),
        None => Verdict::Refused(first.unwrap_or_default()),
    }
}

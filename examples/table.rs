//! A table in, a column of results out, offline: triage the support tickets of an Arrow record
//! batch with `map_rows`, then add the results to the batch as a struct column with `to_arrow`.
//!
//! Run it with `cargo run -p intent-examples --example table --features tables`.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{Field, Schema};
use intent_core::prelude::*;
use intent_core::table::Table;
use serde::{Deserialize, Serialize};

/// How a support ticket is handled.
#[derive(Debug, Serialize, Deserialize, Intent)]
struct Triage {
    /// One word: billing, outage, account or other.
    topic: String,
    urgent: bool,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tickets = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(StringArray::from(vec!["T-1", "T-2", "T-3"])) as ArrayRef,
        ),
        (
            "body",
            Arc::new(StringArray::from(vec![
                "I was charged twice for March.",
                "The site has been down since 9:00.",
                "Please close my account.",
            ])),
        ),
    ])?;

    // The scripted model answers each chunk of rows, by index; each row was sent as a JSON
    // object of its columns: {"index":0,"input":{"id":"T-1","body":"I was charged twice ..."}}.
    let model = ScriptedProvider::new([r#"{"value": [
        {"index": 0, "value": {"topic": "billing", "urgent": false}},
        {"index": 1, "value": {"topic": "outage", "urgent": true}},
        {"index": 2, "value": {"topic": "account", "urgent": false}}
    ]}"#]);
    let client = IntentClient::new(model.clone());

    let table = Table::from_arrow(&tickets)?;
    let triage = client
        .map_rows::<Triage>(&table, "Triage the support ticket.")
        .await;
    println!(
        "{} of {} rows answered",
        triage.len() - triage.missing().len(),
        triage.len()
    );

    // The results as one column (a struct array, null where a row failed), next to the input's.
    let column = triage.to_arrow()?;
    let mut fields: Vec<Field> = tickets
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("triage", column.data_type().clone(), true));
    let mut columns = tickets.columns().to_vec();
    columns.push(column);
    let triaged = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)?;

    // Each row as the model would see it, the result beside it.
    let table = Table::from_arrow(&triaged)?;
    for row in table.rows() {
        println!("{}", serde_json::to_string(&row)?);
    }
    let user = &model.requests()[0].user;
    let input = user
        .split("\n\n")
        .find(|s| s.starts_with("## Input"))
        .unwrap_or_default();
    println!("what the model was sent:\n{input}");
    assert!(triage.is_complete(), "{:?}", triage.issues());
    Ok(())
}

//! `map_rows` and `map_stream` over record batches, end to end on a model that answers from the
//! rows it is sent, and the results as an Arrow column (struct arrays, nulls where an element
//! failed) and as a Polars series.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int64Type};
use arrow_array::{
    Array, ArrayRef, BinaryArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::DataType;
use chrono::NaiveDate;
use futures::StreamExt;
use intent_core::prelude::*;
use intent_core::table::{self, Table};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::RowModel;

/// How a ticket is handled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Intent)]
struct Triage {
    topic: String,
    urgent: bool,
    due: Option<NaiveDate>,
    tags: Vec<String>,
}

fn tickets(n: usize) -> RecordBatch {
    let ids: Vec<i64> = (0..n as i64).collect();
    let bodies: Vec<String> = (0..n).map(|i| format!("ticket {i}")).collect();
    RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("body", Arc::new(StringArray::from(bodies))),
    ])
    .unwrap()
}

/// Answers a ticket; ticket 2 always gets an answer that breaks the shape.
fn triage(row: &Value) -> Value {
    let id = row["id"].as_i64().unwrap();
    if id == 2 {
        return json!({"topic": "?"});
    }
    json!({
        "topic": if id % 2 == 0 { "billing" } else { "outage" },
        "urgent": id % 2 == 1,
        "due": if id == 0 { Value::Null } else { json!(format!("2026-03-{:02}", id + 1)) },
        "tags": (0..id).map(|t| format!("t{t}")).collect::<Vec<_>>(),
    })
}

#[tokio::test]
async fn map_rows_answers_each_row_and_to_arrow_gives_a_struct_column_with_nulls_where_rows_failed()
{
    let model = RowModel::new(triage);
    let client = IntentClient::new(model.clone());
    let table = Table::from_arrow(&tickets(5)).unwrap();
    let result = client
        .map_rows::<Triage>(&table, "Triage the ticket.")
        .chunk_size(2)
        .await;
    assert_eq!(result.len(), 5);
    assert_eq!(result.missing(), vec![&2]);
    assert_eq!(result.get(1).unwrap().topic, "outage");

    let column = result.to_arrow().unwrap();
    assert_eq!(column.len(), 5);
    assert_eq!(column.null_count(), 1);
    assert!(column.is_null(2));
    let triage = column.as_struct();
    let names: Vec<&str> = triage.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["topic", "urgent", "due", "tags"]);
    assert_eq!(triage.column(1).data_type(), &DataType::Boolean);
    let due = triage.column(2).as_primitive::<Date32Type>();
    assert!(due.is_null(0));
    assert_eq!(due.value_as_date(3), NaiveDate::from_ymd_opt(2026, 3, 4));
    let tags = triage.column(3).as_list::<i32>();
    assert_eq!(tags.value(4).len(), 4);
    assert_eq!(tags.value(4).as_string::<i32>().value(3), "t3");

    // The column goes next to the input's: one more column, the same rows.
    let mut columns = table.record_batch().columns().to_vec();
    columns.push(column.clone());
    let mut fields: Vec<_> = table
        .record_batch()
        .schema()
        .fields()
        .iter()
        .cloned()
        .collect();
    fields.push(Arc::new(arrow_schema::Field::new(
        "triage",
        column.data_type().clone(),
        true,
    )));
    let joined =
        RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap();
    assert_eq!((joined.num_rows(), joined.num_columns()), (5, 3));

    let series = result.to_polars("triage").unwrap();
    assert_eq!(series.len(), 5);
    assert_eq!(series.null_count(), 1);
    assert!(matches!(
        series.dtype(),
        polars::prelude::DataType::Struct(_)
    ));
}

#[tokio::test]
async fn scalar_results_are_typed_columns_and_json_shapes_their_text() {
    let client = IntentClient::new(RowModel::new(|row| json!(row["id"].as_i64().unwrap() * 10)));
    let table = Table::from_arrow(&tickets(3)).unwrap();
    let tens = client
        .map_rows::<i64>(&table, "Multiply the id by ten.")
        .await;
    let column = tens.to_arrow().unwrap();
    assert_eq!(
        column.as_primitive::<Int64Type>().values().to_vec(),
        [0, 10, 20]
    );

    let client = IntentClient::new(RowModel::new(|row| json!({"id": row["id"]})));
    let json = client.map_rows::<Value>(&table, "Echo the id.").await;
    let column = json.to_arrow().unwrap();
    assert_eq!(column.as_string::<i32>().value(2), r#"{"id":2}"#);
    assert_eq!(json.to_polars("echo").unwrap().len(), 3);
}

#[tokio::test]
async fn a_row_with_no_json_form_is_refused_alone_naming_the_column_and_row() {
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(vec![0, 1, 2])) as ArrayRef),
        (
            "score",
            Arc::new(Float64Array::from(vec![0.5, f64::NAN, 2.0])),
        ),
    ])
    .unwrap();
    let model = RowModel::new(|row| json!(row["score"].as_f64().unwrap() > 1.0));
    let client = IntentClient::new(model.clone());
    let high = client
        .map_rows::<bool>(&Table::from_arrow(&batch).unwrap(), "Is the score high?")
        .await;
    assert_eq!(high.values(), &[Some(false), None, Some(true)]);
    let issue = &high.issues()[0];
    assert_eq!(issue.position, 1);
    assert!(
        issue
            .issue
            .message
            .contains("column `score`, row 1: NaN has no JSON form"),
        "{}",
        issue.issue.message
    );
    assert_eq!(model.rows_seen(), 2);
}

/// Batches of `size` rows, made only when asked for, counting the rows made.
fn batches(
    count: usize,
    size: usize,
    made: Arc<AtomicUsize>,
) -> impl futures::Stream<Item = RecordBatch> + Send {
    futures::stream::iter(0..count).map(move |b| {
        made.fetch_add(size, Ordering::SeqCst);
        let ids: Vec<i64> = (b * size..(b + 1) * size).map(|i| i as i64).collect();
        RecordBatch::try_from_iter([("id", Arc::new(Int64Array::from(ids)) as ArrayRef)]).unwrap()
    })
}

#[tokio::test]
async fn map_stream_over_record_batches_reads_only_what_the_chunks_in_flight_need() {
    let made = Arc::new(AtomicUsize::new(0));
    let model = RowModel::new(|row| json!(row["id"].as_i64().unwrap() + 1));
    let client = IntentClient::new(model.clone());
    let (chunk, concurrency, batch) = (25, 2, 100);
    let mut stream = client
        .map_stream::<i64, _>(
            table::stream_rows(batches(40, batch, made.clone())),
            "Add one to the id.",
        )
        .chunk_size(chunk)
        .concurrency(concurrency);
    let mut next = 0;
    while let Some((position, value)) = stream.next().await {
        assert_eq!(position, next);
        assert_eq!(value.unwrap(), position as i64 + 1);
        next += 1;
        // Rows read ahead of the results: those in flight, the next chunk being cut, and the
        // rest of the batch it is cut from.
        let ahead = made.load(Ordering::SeqCst) - next;
        assert!(
            ahead <= chunk * (concurrency + 1) + batch,
            "{ahead} rows read ahead"
        );
    }
    assert_eq!(next, 4_000);
    assert_eq!(model.rows_seen(), 4_000);
}

#[tokio::test]
async fn a_batch_of_a_stream_with_a_column_of_no_json_form_fails_row_by_row_and_the_rest_go_ahead()
{
    let good = tickets(2);
    let bad = RecordBatch::try_from_iter([(
        "photo",
        Arc::new(BinaryArray::from(vec![&b"\x89PNG"[..], b"GIF8"])) as ArrayRef,
    )])
    .unwrap();
    let model = RowModel::new(|row| json!(row["body"].as_str().unwrap().len()));
    let client = IntentClient::new(model.clone());
    let results: Vec<_> = client
        .map_stream::<usize, _>(
            table::stream_rows(futures::stream::iter([good.clone(), bad, good])),
            "Count the characters.",
        )
        .collect()
        .await;
    let positions: Vec<usize> = results.iter().map(|(p, _)| *p).collect();
    assert_eq!(positions, [0, 1, 2, 3, 4, 5]);
    for (position, outcome) in &results {
        match position {
            2 | 3 => {
                let issue = outcome.as_ref().unwrap_err();
                assert!(
                    issue
                        .issue
                        .message
                        .contains("column `photo` has the type Binary"),
                    "{}",
                    issue.issue.message
                );
            }
            _ => assert_eq!(outcome.as_ref().ok(), Some(&8)),
        }
    }
    assert_eq!(model.rows_seen(), 4);
}

#[test]
fn a_polars_frame_is_written_as_the_same_table_in_arrow() {
    use polars::prelude::*;
    let days = [
        NaiveDate::from_ymd_opt(2026, 3, 4).unwrap(),
        NaiveDate::from_ymd_opt(1969, 12, 31).unwrap(),
    ];
    let frame = df!(
        "sku" => ["A-1", "B-2"],
        "qty" => [Some(3i64), None],
        "price" => [1.5f64, 2.25],
        "day" => days,
    )
    .unwrap();
    let table = Table::from_polars(&frame).unwrap();
    assert_eq!(table.num_rows(), 2);
    assert_eq!(
        serde_json::to_string(&table).unwrap(),
        r#"[{"sku":"A-1","qty":3,"price":1.5,"day":"2026-03-04"},{"sku":"B-2","qty":null,"price":2.25,"day":"1969-12-31"}]"#
    );
    assert_eq!(
        serde_json::to_string(&table.row(1)).unwrap(),
        r#"{"sku":"B-2","qty":null,"price":2.25,"day":"1969-12-31"}"#
    );
    // A frame of several chunks is one table.
    let mut stacked = frame.clone();
    stacked.vstack_mut(&frame).unwrap();
    assert_eq!(Table::from_polars(&stacked).unwrap().num_rows(), 4);
}

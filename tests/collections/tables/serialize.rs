//! Tables and rows as inputs: the prompts (golden), every accepted Arrow type written as the spec
//! says and, where the two agree, exactly as `arrow-json`'s own writer writes it; the documented
//! differences; the refusals, each naming the column and the type; and the input limit.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::GenericListViewArray;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Date64Array, Decimal128Array,
    Decimal256Array, Decimal32Array, Decimal64Array, DictionaryArray, DurationMicrosecondArray,
    DurationMillisecondArray, DurationNanosecondArray, DurationSecondArray, FixedSizeListArray,
    Float16Array, Float32Array, Float64Array, Int16Array, Int32Array, Int64Array, Int8Array,
    IntervalYearMonthArray, LargeListArray, LargeStringArray, ListArray, ListViewArray, NullArray,
    RecordBatch, StringArray, StringViewArray, StructArray, Time32MillisecondArray,
    Time32SecondArray, Time64MicrosecondArray, Time64NanosecondArray, TimestampMicrosecondArray,
    TimestampMillisecondArray, TimestampNanosecondArray, TimestampSecondArray, UInt16Array,
    UInt32Array, UInt64Array, UInt8Array,
};
use arrow_buffer::i256;
use arrow_schema::{DataType, Field};
use futures::StreamExt;
use intent_core::prelude::*;
use intent_core::table::{self, Table};
use intent_core::AiRequest;
use serde_json::Value;

fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn tickets() -> RecordBatch {
    batch(vec![
        (
            "id",
            Arc::new(StringArray::from(vec!["T-1", "T-2", "T-3"])) as ArrayRef,
        ),
        (
            "body",
            Arc::new(StringArray::from(vec![
                "I was charged twice for March.",
                "The \"export\" button does nothing.",
                "Please close my account.",
            ])),
        ),
        (
            "opened",
            Arc::new(
                TimestampMillisecondArray::from(vec![
                    1_775_037_906_789,
                    1_775_124_000_000,
                    1_775_210_400_500,
                ])
                .with_timezone("+02:00"),
            ),
        ),
        (
            "amount",
            Arc::new(
                Decimal128Array::from(vec![Some(4_990), None, Some(0)])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        (
            "tags",
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
                Some(vec![Some(1), Some(2)]),
                Some(vec![]),
                None,
            ])),
        ),
    ])
}

/// The system prompt, the user message and the format a call sent.
fn render(request: &AiRequest) -> String {
    format!(
        "format: {:?}\n===== system =====\n{}\n===== user =====\n{}\n",
        request.format, request.system, request.user
    )
}

#[tokio::test]
async fn a_table_is_sent_as_a_json_array_of_row_objects_under_its_label() {
    let model = ScriptedProvider::new([r#"{"value": 2}"#]);
    let client = IntentClient::new(model.clone());
    let table = Table::from_arrow(&tickets()).unwrap();
    let count = u32::ai(
        &client,
        &table,
        "Count the tickets that ask for money back.",
    )
    .await;
    assert_eq!(count.value(), Some(&2));
    let request = &model.requests()[0];
    assert!(request
        .user
        .contains("## Input (JSON array of row objects)\n[{\"id\":\"T-1\""));
    intent_tests::golden::check("prompts/table_input.txt", &render(request));
}

#[tokio::test]
async fn a_row_is_sent_as_one_json_object_under_its_label() {
    let model = ScriptedProvider::new(["The export button does nothing."]);
    let client = IntentClient::new(model.clone());
    let table = Table::from_arrow(&tickets()).unwrap();
    let summary = String::ai(
        &client,
        &table.row(1),
        "Summarize the ticket in one sentence.",
    )
    .await;
    assert!(summary.is_success());
    let request = &model.requests()[0];
    assert!(request
        .user
        .contains("## Input (JSON object)\n{\"id\":\"T-2\""));
    intent_tests::golden::check("prompts/row_input.txt", &render(request));
}

#[tokio::test]
async fn a_table_counts_toward_max_input_chars_and_nothing_is_sent_past_it() {
    let model = ScriptedProvider::new([r#"{"value": 1}"#]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_input_chars: 150,
            ..Default::default()
        })
        .build()
        .unwrap();
    let table = Table::from_arrow(&tickets()).unwrap();
    let text = serde_json::to_string(&table).unwrap();
    assert!(text.chars().count() > 150);
    let count = u32::ai(&client, &table, "Count the tickets.").await;
    assert!(!count.is_success());
    let message = count.issues()[0].message.clone();
    assert!(message.contains("max_input_chars (150)"), "{message}");
    assert!(model.requests().is_empty());
    // One row fits.
    let row = u32::ai(&client, &table.row(2), "Count the words.").await;
    assert!(row.is_success(), "{:?}", row.issues());
}

/// Every type the table accepts, three rows each, nulls among them.
fn every_accepted_type() -> RecordBatch {
    use half::f16;
    let struct_array = StructArray::from(vec![
        (
            Arc::new(Field::new("name", DataType::Utf8, true)),
            Arc::new(StringArray::from(vec![Some("Ada"), None, Some("Bo")])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("age", DataType::Int64, true)),
            Arc::new(Int64Array::from(vec![Some(36), Some(7), None])) as ArrayRef,
        ),
    ]);
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    map.keys().append_value("a");
    map.values().append_value(1);
    map.keys().append_value("b");
    map.values().append_null();
    map.append(true).unwrap();
    map.append(false).unwrap();
    map.append(true).unwrap();
    let list_view = ListViewArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(4), Some(5)]),
        None,
        Some(vec![]),
    ]);
    let _: &GenericListViewArray<i32> = &list_view;
    let ns = |v: i64| v * 1_000_000_000 + 123_456_789;
    batch(vec![
        ("null", Arc::new(NullArray::new(3)) as ArrayRef),
        (
            "bool",
            Arc::new(BooleanArray::from(vec![Some(true), Some(false), None])),
        ),
        (
            "i8",
            Arc::new(Int8Array::from(vec![Some(i8::MIN), Some(0), None])),
        ),
        (
            "i16",
            Arc::new(Int16Array::from(vec![i16::MIN, 1, i16::MAX])),
        ),
        (
            "i32",
            Arc::new(Int32Array::from(vec![i32::MIN, -1, i32::MAX])),
        ),
        (
            "i64",
            Arc::new(Int64Array::from(vec![i64::MIN, 0, i64::MAX])),
        ),
        ("u8", Arc::new(UInt8Array::from(vec![0, 7, u8::MAX]))),
        ("u16", Arc::new(UInt16Array::from(vec![0, 7, u16::MAX]))),
        ("u32", Arc::new(UInt32Array::from(vec![0, 7, u32::MAX]))),
        (
            "u64",
            Arc::new(UInt64Array::from(vec![0, 9_007_199_254_740_993, u64::MAX])),
        ),
        (
            "f16",
            Arc::new(Float16Array::from(vec![
                Some(f16::from_f32(1.5)),
                None,
                Some(f16::from_f32(-0.25)),
            ])),
        ),
        (
            "f32",
            Arc::new(Float32Array::from(vec![0.1f32, -2.5, 3.4e38])),
        ),
        (
            "f64",
            Arc::new(Float64Array::from(vec![
                0.1,
                -1e-300,
                1.7976931348623157e308,
            ])),
        ),
        (
            "d32",
            Arc::new(
                Decimal32Array::from(vec![Some(12_345), None, Some(-5)])
                    .with_precision_and_scale(9, 3)
                    .unwrap(),
            ),
        ),
        (
            "d64",
            Arc::new(
                Decimal64Array::from(vec![1_230, 0, -1])
                    .with_precision_and_scale(18, 2)
                    .unwrap(),
            ),
        ),
        (
            "d128",
            Arc::new(
                Decimal128Array::from(vec![i128::from(i64::MAX) * 1000 + 7, 5, -120])
                    .with_precision_and_scale(38, 4)
                    .unwrap(),
            ),
        ),
        (
            "d256",
            Arc::new(
                Decimal256Array::from(vec![
                    i256::from_i128(-123_456_789),
                    i256::ZERO,
                    i256::from_i128(1),
                ])
                .with_precision_and_scale(76, 6)
                .unwrap(),
            ),
        ),
        (
            "utf8",
            Arc::new(StringArray::from(vec![
                Some("plain"),
                Some("quote \" and \\ and \n and é"),
                None,
            ])),
        ),
        (
            "large_utf8",
            Arc::new(LargeStringArray::from(vec!["a", "", "z"])),
        ),
        (
            "utf8_view",
            Arc::new(StringViewArray::from(vec![
                Some("a longer string than twelve bytes"),
                None,
                Some("x"),
            ])),
        ),
        (
            "date32",
            Arc::new(Date32Array::from(vec![Some(20_516), Some(0), None])),
        ),
        (
            "time32_s",
            Arc::new(Time32SecondArray::from(vec![0, 33_330, 86_399])),
        ),
        (
            "time32_ms",
            Arc::new(Time32MillisecondArray::from(vec![33_330_250, 0, 1])),
        ),
        (
            "time64_us",
            Arc::new(Time64MicrosecondArray::from(vec![
                33_330_250_000,
                1,
                86_399_999_999,
            ])),
        ),
        (
            "time64_ns",
            Arc::new(Time64NanosecondArray::from(vec![
                33_330_000_000_001,
                0,
                5_000,
            ])),
        ),
        (
            "ts_s",
            Arc::new(TimestampSecondArray::from(vec![1_791_727_506, 0, -1])),
        ),
        (
            "ts_ms",
            Arc::new(TimestampMillisecondArray::from(vec![
                1_791_727_506_789,
                0,
                -1,
            ])),
        ),
        (
            "ts_us_utc",
            Arc::new(
                TimestampMicrosecondArray::from(vec![1_791_727_506_789_000, 1, -1])
                    .with_timezone("UTC"),
            ),
        ),
        (
            "ts_ns_offset",
            Arc::new(
                TimestampNanosecondArray::from(vec![ns(1_791_727_506), ns(0), 0])
                    .with_timezone("+02:00"),
            ),
        ),
        (
            "ts_ms_zone",
            Arc::new(
                TimestampMillisecondArray::from(vec![1_791_727_506_789, 1_783_000_000_000, 0])
                    .with_timezone("Europe/Berlin"),
            ),
        ),
        (
            "dur_s",
            Arc::new(DurationSecondArray::from(vec![0, 90_061, -3])),
        ),
        (
            "dur_ms",
            Arc::new(DurationMillisecondArray::from(vec![1_500, 0, -1])),
        ),
        (
            "dur_us",
            Arc::new(DurationMicrosecondArray::from(vec![1, 86_400_000_000, 0])),
        ),
        (
            "dur_ns",
            Arc::new(DurationNanosecondArray::from(vec![1, 0, 1_000_000_001])),
        ),
        (
            "list",
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
                Some(vec![Some(1), None]),
                None,
                Some(vec![]),
            ])),
        ),
        (
            "large_list",
            Arc::new(LargeListArray::from_iter_primitive::<Int64Type, _, _>(
                vec![Some(vec![Some(1)]), Some(vec![]), None],
            )),
        ),
        (
            "fixed_list",
            Arc::new(FixedSizeListArray::from_iter_primitive::<Int32Type, _, _>(
                vec![
                    Some(vec![Some(1), Some(2)]),
                    None,
                    Some(vec![None, Some(3)]),
                ],
                2,
            )),
        ),
        ("list_view", Arc::new(list_view)),
        ("struct", Arc::new(struct_array)),
        ("map", Arc::new(map.finish())),
        (
            "dictionary",
            Arc::new(
                ["red", "green", "red"]
                    .into_iter()
                    .collect::<DictionaryArray<Int32Type>>(),
            ),
        ),
    ])
}

/// `arrow-json`'s own writer, with null members written as ours are.
fn arrow_json_text(batch: &RecordBatch) -> String {
    let mut writer = arrow_json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .build::<_, arrow_json::writer::JsonArray>(Vec::new());
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    String::from_utf8(writer.into_inner()).unwrap()
}

/// Each column's cells as our table writes them and as `arrow-json` does, one column at a time.
fn cells(batch: &RecordBatch, name: &str) -> (Vec<Value>, Vec<Value>) {
    let column = batch.column_by_name(name).unwrap().clone();
    let one = RecordBatch::try_from_iter([(name, column)]).unwrap();
    let ours: Vec<Value> =
        serde_json::from_str(&serde_json::to_string(&Table::from_arrow(&one).unwrap()).unwrap())
            .unwrap();
    let theirs: Vec<Value> = serde_json::from_str(&arrow_json_text(&one)).unwrap();
    (ours, theirs)
}

/// Columns whose numbers are the same but written in another notation: `arrow-json` writes
/// `3.4e38` and `-1.0e-300`, serde_json (ours) `3.4e+38` and `-1e-300`, equal as JSON numbers.
const NOTATION: &[&str] = &["f32", "f64"];

#[test]
fn every_accepted_type_is_written_as_arrow_json_writes_it_where_the_two_agree() {
    let batch = every_accepted_type();
    let table = Table::from_arrow(&batch).unwrap();
    let ours = serde_json::to_string(&table).unwrap();
    // The text is exact: compared as text, numbers digit for digit.
    let theirs = arrow_json_text(&batch);
    // Every column's values are the same as JSON values.
    for field in batch.schema_ref().fields() {
        let (ours, theirs) = cells(&batch, field.name());
        assert_eq!(ours, theirs, "column `{}`", field.name());
    }
    // And the text is the same, digit for digit, but for the floats' exponent notation.
    let exact: Vec<usize> = (0..batch.num_columns())
        .filter(|i| !NOTATION.contains(&batch.schema_ref().field(*i).name().as_str()))
        .collect();
    let projected = batch.project(&exact).unwrap();
    assert_eq!(
        serde_json::to_string(&Table::from_arrow(&projected).unwrap()).unwrap(),
        arrow_json_text(&projected).trim_end()
    );
    assert_ne!(ours, theirs.trim_end());
    intent_tests::golden::check("tables/every_type.json", &format!("{ours}\n"));
}

/// A table of one column.
fn one(name: &str, array: ArrayRef) -> RecordBatch {
    batch(vec![(name, array)])
}

fn refusal(batch: &RecordBatch) -> String {
    Table::from_arrow(batch).expect_err("refused").to_string()
}

#[test]
fn where_ours_follows_the_spec_it_differs_from_arrow_json_as_documented() {
    // Null members: arrow-json leaves them out by default; ours writes them.
    let nulls = one("note", Arc::new(StringArray::from(vec![None::<&str>])));
    let mut writer = arrow_json::ArrayWriter::new(Vec::new());
    writer.write(&nulls).unwrap();
    writer.finish().unwrap();
    assert_eq!(String::from_utf8(writer.into_inner()).unwrap(), "[{}]");
    assert_eq!(
        serde_json::to_string(&Table::from_arrow(&nulls).unwrap()).unwrap(),
        r#"[{"note":null}]"#
    );

    // NaN and infinities: arrow-json writes null; ours refuses the cell, naming it.
    let nan = one("score", Arc::new(Float64Array::from(vec![1.0, f64::NAN])));
    assert_eq!(arrow_json_text(&nan), r#"[{"score":1.0},{"score":null}]"#);
    let table = Table::from_arrow(&nan).unwrap();
    let refused = serde_json::to_string(&table).unwrap_err().to_string();
    assert!(
        refused.contains("column `score`, row 1: NaN has no JSON form"),
        "{refused}"
    );
    assert_eq!(
        serde_json::to_string(&table.row(0)).unwrap(),
        r#"{"score":1.0}"#
    );
    let infinite = one("score", Arc::new(Float32Array::from(vec![f32::INFINITY])));
    assert!(
        serde_json::to_string(&Table::from_arrow(&infinite).unwrap())
            .unwrap_err()
            .to_string()
            .contains("inf has no JSON form")
    );

    // Binary: arrow-json writes hex; ours refuses the column, naming it and its type.
    let bytes = one("photo", Arc::new(BinaryArray::from(vec![&b"\x89P"[..]])));
    assert_eq!(arrow_json_text(&bytes), r#"[{"photo":"8950"}]"#);
    let message = refusal(&bytes);
    assert!(
        message.contains("column `photo` has the type Binary, which has no JSON form"),
        "{message}"
    );

    // A Date64 that is a whole day is a date, as a Date32 is; arrow-json writes its midnight.
    let days = one(
        "day",
        Arc::new(Date64Array::from(vec![
            1_772_582_400_000,
            1_772_582_400_001,
        ])),
    );
    assert_eq!(
        serde_json::to_string(&Table::from_arrow(&days).unwrap()).unwrap(),
        r#"[{"day":"2026-03-04"},{"day":"2026-03-04T00:00:00.001"}]"#
    );
    assert!(arrow_json_text(&days).starts_with(r#"[{"day":"2026-03-04T00:00:00"}"#));
}

#[test]
fn types_with_no_json_form_are_refused_naming_the_column_and_the_type() {
    let struct_of_bytes = StructArray::from(vec![(
        Arc::new(Field::new("thumb", DataType::Binary, true)),
        Arc::new(BinaryArray::from(vec![&b"x"[..]])) as ArrayRef,
    )]);
    let cases: Vec<(RecordBatch, &str)> = vec![
        (one("span", Arc::new(IntervalYearMonthArray::from(vec![14]))), "column `span` has the type Interval(YearMonth), which has no JSON form: calendar intervals"),
        (one("card", Arc::new(struct_of_bytes)), "column `card` holds the type Binary (at `card.thumb`), which has no JSON form"),
        (
            one("hour", Arc::new(TimestampSecondArray::from(vec![0]).with_timezone("Mars/Olympus"))),
            "column `hour` has the type Timestamp(s, \"Mars/Olympus\"), which has no JSON form: its time zone",
        ),
    ];
    for (batch, message) in cases {
        let refused = refusal(&batch);
        assert!(refused.contains(message), "{refused}");
    }
    // Two columns of one name cannot both be members of a row object.
    let schema = Arc::new(arrow_schema::Schema::new(vec![
        Field::new("id", DataType::Int32, false),
        Field::new("id", DataType::Int32, false),
    ]));
    let twice = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from(vec![1])),
            Arc::new(Int32Array::from(vec![2])),
        ],
    )
    .unwrap();
    assert!(refusal(&twice).contains("two columns are named `id`"));
    // A row past the end is refused when sent, not by a panic.
    let table = Table::from_arrow(&tickets()).unwrap();
    assert!(serde_json::to_string(&table.row(7))
        .unwrap_err()
        .to_string()
        .contains("row 7 was asked of a table of 3 rows"));
}

#[tokio::test]
async fn a_stream_of_rows_is_sent_as_row_objects_with_their_label() {
    let model = ScriptedProvider::new([
        r#"{"value": [{"index": 0, "value": "T-1"}, {"index": 1, "value": "T-2"}, {"index": 2, "value": "T-3"}]}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let ids: Vec<_> = client
        .map_stream::<String, _>(
            table::stream_rows(futures::stream::iter([tickets()])),
            "Give the ticket's id.",
        )
        .collect()
        .await;
    assert_eq!(ids.len(), 3);
    let user = &model.requests()[0].user;
    assert!(
        user.contains("## Input (List<Element>\n where Element { ulong index; JsonObject input })"),
        "{user}"
    );
}

//! Input serialization: the text under `## Input (<label>)` and its label, for every kind of input.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use intent_core::__internals::input::serialize;
use intent_core::IntentError;
use serde::Serialize;
use serde_json::{json, Value};

const LIMIT: usize = 100_000;

/// The text and label of an input.
fn input<I: Serialize + ?Sized>(value: &I) -> (String, String) {
    let serialized = serialize(value, LIMIT).expect("serializable");
    (serialized.text, serialized.label)
}

fn pair(text: &str, label: &str) -> (String, String) {
    (text.to_owned(), label.to_owned())
}

fn day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 3, 4).unwrap()
}

fn time() -> NaiveTime {
    NaiveTime::from_hms_milli_opt(9, 15, 30, 250).unwrap()
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Email {
    from_address: String,
    sent_on: NaiveDate,
    received_at: DateTime<Utc>,
    deliver_by: Option<NaiveDate>,
    lines: Vec<Line>,
    status: Status,
    meta: Value,
}

#[derive(Serialize)]
struct Line {
    sku: String,
    quantity: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Serialize)]
#[allow(dead_code)]
enum Status {
    Open,
    Closed,
}

#[derive(Serialize)]
#[allow(dead_code)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
}

fn email() -> Email {
    Email {
        from_address: "dana@northwind.example".into(),
        sent_on: day(),
        received_at: DateTime::parse_from_rfc3339("2026-10-11T14:05:06.789Z")
            .unwrap()
            .with_timezone(&Utc),
        deliver_by: None,
        lines: vec![
            Line {
                sku: "A-1192".into(),
                quantity: 40,
                note: None,
            },
            Line {
                sku: "B-220".into(),
                quantity: 12,
                note: Some("rush".into()),
            },
        ],
        status: Status::Open,
        meta: json!({"thread": [1, 2]}),
    }
}

#[test]
fn a_string_passes_through_unchanged() {
    let text = "  Hello,\n\tworld \"quoted\" {json?}  ";
    assert_eq!(input(text), pair(text, "string"));
    assert_eq!(input(&text.to_owned()), pair(text, "string"));
    assert_eq!(input(&&text), pair(text, "string"));
    assert_eq!(input(""), pair("", "string"));
    assert_eq!(
        input(&std::borrow::Cow::Borrowed("cow")),
        pair("cow", "string")
    );
}

#[test]
fn some_string_is_text_and_none_is_null() {
    assert_eq!(input(&Some("text")), pair("text", "string?"));
    assert_eq!(input(&None::<String>), pair("null", "string?"));
    assert_eq!(input(&None::<u32>), pair("null", "uint?"));
    assert_eq!(input(&None::<Line>), pair("null", "null"));
    assert_eq!(input(&()), pair("null", "null"));
}

#[test]
fn numbers_and_booleans_are_their_json_text() {
    assert_eq!(input(&42u32), pair("42", "uint"));
    assert_eq!(input(&-7i64), pair("-7", "long"));
    assert_eq!(input(&255u8), pair("255", "byte"));
    assert_eq!(input(&3.5f64), pair("3.5", "double"));
    assert_eq!(input(&1.25f32), pair("1.25", "float"));
    assert_eq!(input(&u128::MAX), pair(&u128::MAX.to_string(), "UInt128"));
    assert_eq!(input(&true), pair("true", "bool"));
    assert_eq!(input(&'x'), pair("x", "char"));
}

#[test]
fn a_non_finite_float_is_written_by_name() {
    assert_eq!(input(&f64::NAN), pair("NaN", "double"));
    assert_eq!(input(&f64::INFINITY), pair("Infinity", "double"));
    assert_eq!(input(&f32::NEG_INFINITY), pair("-Infinity", "float"));
}

#[test]
fn lists_are_compact_json() {
    assert_eq!(input(&vec![1u32, 2, 3]), pair("[1,2,3]", "List<uint>"));
    assert_eq!(input(&[1.5f64, 2.0][..]), pair("[1.5,2.0]", "List<double>"));
    assert_eq!(input(&vec!["a", "b"]), pair(r#"["a","b"]"#, "List<string>"));
    assert_eq!(
        input(&vec![Some(1i32), None]),
        pair("[1,null]", "List<int?>")
    );
    assert_eq!(input(&vec![vec![1u8]]), pair("[[1]]", "List<List<byte>>"));
}

#[test]
fn an_empty_list_keeps_its_declared_element_type() {
    assert_eq!(input(&Vec::<u32>::new()), pair("[]", "List<uint>"));
    assert_eq!(
        input(&Vec::<NaiveDate>::new()),
        pair("[]", "List<DateOnly (yyyy-MM-dd)>")
    );
    assert_eq!(input(&Vec::<Line>::new()), pair("[]", "List<JsonNode>"));
}

#[test]
fn maps_are_compact_json_objects() {
    let mut map = HashMap::new();
    map.insert("apples".to_owned(), 3u32);
    assert_eq!(
        input(&map),
        pair(r#"{"apples":3}"#, "Dictionary<string, uint>")
    );
    let sorted: BTreeMap<&str, Vec<bool>> = [("b", vec![true]), ("a", vec![false])].into();
    assert_eq!(
        input(&sorted),
        pair(
            r#"{"a":[false],"b":[true]}"#,
            "Dictionary<string, List<bool>>"
        )
    );
    assert_eq!(
        input(&HashMap::<String, u32>::new()),
        pair("{}", "Dictionary<string, uint>")
    );
}

#[test]
fn a_derived_struct_is_compact_json_with_serde_names_and_described() {
    let (text, label) = input(&email());
    assert_eq!(
        text,
        concat!(
            r#"{"fromAddress":"dana@northwind.example","sentOn":"2026-03-04","#,
            r#""receivedAt":"2026-10-11T14:05:06.789Z","deliverBy":null,"#,
            r#""lines":[{"sku":"A-1192","quantity":40},{"sku":"B-220","quantity":12,"note":"rush"}],"#,
            r#""status":"Open","meta":{"thread":[1,2]}}"#
        )
    );
    assert_eq!(
        label,
        "Email\n where Email { string fromAddress; DateOnly (yyyy-MM-dd) sentOn; \
         DateTimeOffset (ISO 8601) receivedAt; DateOnly? (yyyy-MM-dd) deliverBy; List<Line> lines; \
         string status; JsonNode meta }\n where Line { string sku; uint quantity }"
    );
}

#[test]
fn a_recursive_struct_has_a_finite_label() {
    #[derive(Serialize)]
    struct Tree {
        name: String,
        children: Vec<Tree>,
    }
    let tree = Tree {
        name: "root".into(),
        children: vec![Tree {
            name: "leaf".into(),
            children: vec![],
        }],
    };
    assert_eq!(
        input(&tree),
        pair(
            r#"{"name":"root","children":[{"name":"leaf","children":[]}]}"#,
            "Tree\n where Tree { string name; List<Tree> children }"
        )
    );
}

#[test]
fn two_types_with_one_name_are_described_apart() {
    mod a {
        #[derive(serde::Serialize)]
        pub struct Item {
            pub id: u32,
        }
    }
    mod b {
        #[derive(serde::Serialize)]
        pub struct Item {
            pub name: String,
        }
    }
    #[derive(Serialize)]
    struct Both {
        first: a::Item,
        second: b::Item,
    }
    let (_, label) = input(&Both {
        first: a::Item { id: 1 },
        second: b::Item { name: "x".into() },
    });
    assert!(label.contains("where Item { uint id }"), "{label}");
    assert!(label.contains("where Item { string name }"), "{label}");
}

#[test]
fn an_enum_unit_variant_is_its_name() {
    assert_eq!(input(&Status::Closed), pair("Closed", "string"));
}

#[test]
fn a_data_enum_is_compact_json() {
    assert_eq!(
        input(&Shape::Circle { radius: 2.0 }),
        pair(r#"{"Circle":{"radius":2.0}}"#, "JsonObject")
    );
    assert_eq!(
        input(&Shape::Square(1.5)),
        pair(r#"{"Square":1.5}"#, "JsonObject")
    );
}

#[test]
fn a_newtype_and_a_tuple_are_their_serde_forms() {
    #[derive(Serialize)]
    struct Sku(String);
    assert_eq!(input(&Sku("A-1".into())), pair("A-1", "string"));
    assert_eq!(input(&(1u8, "x")), pair(r#"[1,"x"]"#, "(byte, string)"));
}

#[test]
fn dates_and_times_at_the_root_are_iso_8601_without_quotes() {
    assert_eq!(input(&day()), pair("2026-03-04", "DateOnly (yyyy-MM-dd)"));
    // chrono writes a fraction of a second in groups of three digits; the value is exact.
    assert_eq!(input(&time()), pair("09:15:30.250", "TimeOnly (HH:mm:ss)"));
    assert_eq!(
        input(&NaiveTime::from_hms_opt(9, 15, 30).unwrap()),
        pair("09:15:30", "TimeOnly (HH:mm:ss)")
    );
    assert_eq!(
        input(&NaiveDateTime::new(day(), time())),
        pair("2026-03-04T09:15:30.250", "DateTime (ISO 8601)")
    );
    assert_eq!(
        input(&Some(day())),
        pair("2026-03-04", "DateOnly? (yyyy-MM-dd)")
    );
    assert_eq!(
        input(&None::<NaiveDate>),
        pair("null", "DateOnly? (yyyy-MM-dd)")
    );
}

#[test]
fn a_utc_and_an_offset_date_time_round_trip() {
    let utc: DateTime<Utc> = DateTime::parse_from_rfc3339("2026-10-11T14:05:06.789Z")
        .unwrap()
        .with_timezone(&Utc);
    let (text, label) = input(&utc);
    assert_eq!(
        (text.as_str(), label.as_str()),
        ("2026-10-11T14:05:06.789Z", "DateTimeOffset (ISO 8601)")
    );
    assert_eq!(text.parse::<DateTime<Utc>>().unwrap(), utc);

    let precise = DateTime::from_timestamp(1_791_727_506, 123_456_789).unwrap();
    let (text, _) = input(&precise);
    assert_eq!(text, "2026-10-11T14:05:06.123456789Z");
    assert_eq!(text.parse::<DateTime<Utc>>().unwrap(), precise);

    let offset: DateTime<FixedOffset> =
        DateTime::parse_from_rfc3339("2026-10-11T16:05:06+02:00").unwrap();
    let (text, label) = input(&offset);
    assert_eq!(
        (text.as_str(), label.as_str()),
        ("2026-10-11T16:05:06+02:00", "DateTimeOffset (ISO 8601)")
    );
    assert_eq!(DateTime::parse_from_rfc3339(&text).unwrap(), offset);
}

#[test]
fn a_date_nested_in_an_object_has_the_same_form_as_at_the_root() {
    #[derive(Serialize)]
    struct Slot {
        day: NaiveDate,
        at: NaiveTime,
    }
    let (text, label) = input(&Slot {
        day: day(),
        at: time(),
    });
    assert_eq!(text, r#"{"day":"2026-03-04","at":"09:15:30.250"}"#);
    assert_eq!(input(&day()).0, "2026-03-04");
    assert_eq!(input(&time()).0, "09:15:30.250");
    assert_eq!(
        label,
        "Slot\n where Slot { DateOnly (yyyy-MM-dd) day; TimeOnly (HH:mm:ss) at }"
    );
    assert_eq!(
        input(&vec![day()]),
        pair(r#"["2026-03-04"]"#, "List<DateOnly (yyyy-MM-dd)>")
    );
}

#[test]
fn json_values_are_their_json_text_labelled_json() {
    let value = json!({"b": [1, {"c": null}], "a": "x"});
    assert_eq!(
        input(&value),
        pair(r#"{"b":[1,{"c":null}],"a":"x"}"#, "JSON")
    );
    assert_eq!(
        input(&&value),
        pair(r#"{"b":[1,{"c":null}],"a":"x"}"#, "JSON")
    );
    assert_eq!(input(&json!("hi")), pair(r#""hi""#, "JSON"));
    assert_eq!(input(&json!(null)), pair("null", "JSON"));
    assert_eq!(input(&json!([1, 2])), pair("[1,2]", "JSON"));
    let map = value.as_object().unwrap().clone();
    assert_eq!(input(&map), pair(r#"{"b":[1,{"c":null}],"a":"x"}"#, "JSON"));
    assert_eq!(input(&Some(json!(1))), pair("1", "JSON"));
}

#[test]
fn well_known_scalars_are_written_like_strings() {
    let id: uuid::Uuid = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().unwrap();
    assert_eq!(
        input(&id),
        pair("67e55044-10b1-426f-9247-bb680e5fe0c8", "Guid")
    );
    let url = url::Url::parse("https://example.com/a?b=1").unwrap();
    assert_eq!(input(&url), pair("https://example.com/a?b=1", "Uri"));
    let amount: rust_decimal::Decimal = "1.50".parse().unwrap();
    assert_eq!(input(&amount), pair("1.50", "decimal"));
    #[derive(Serialize)]
    struct Payment {
        id: uuid::Uuid,
        amount: rust_decimal::Decimal,
    }
    assert_eq!(
        input(&Payment { id, amount }),
        pair(
            r#"{"id":"67e55044-10b1-426f-9247-bb680e5fe0c8","amount":"1.50"}"#,
            "Payment\n where Payment { Guid id; decimal amount }"
        )
    );
}

#[test]
fn a_boxed_or_shared_value_is_its_content() {
    assert_eq!(
        input(&Box::new(day())),
        pair("2026-03-04", "DateOnly (yyyy-MM-dd)")
    );
    assert_eq!(input(&std::sync::Arc::new(json!([1]))), pair("[1]", "JSON"));
    assert_eq!(input(&std::rc::Rc::new(5u16)), pair("5", "ushort"));
}

#[test]
fn the_limit_counts_characters_of_the_serialized_input() {
    assert!(serialize("ééé", 3).is_ok());
    match serialize("éééé", 3) {
        Err(IntentError::InputTooLong { chars, limit }) => assert_eq!((chars, limit), (4, 3)),
        other => panic!("expected InputTooLong, got {other:?}"),
    }
    // The JSON text counts, quotes and all; the label does not.
    assert!(serialize(&vec!["ab"], 6).is_ok());
    assert!(serialize(&vec!["ab"], 5).is_err());
    let (_, label) = input(&email());
    assert!(label.len() > 100);
    let text_len = input(&email()).0.chars().count();
    assert!(serialize(&email(), text_len).is_ok());
    assert!(serialize(&email(), text_len - 1).is_err());
}

#[test]
fn a_too_long_input_names_the_limit_and_is_not_truncated() {
    let error = serialize(&"x".repeat(11), 10).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the serialized input has 11 characters, more than max_input_chars (10); nothing was sent"
    );
}

#[test]
fn an_input_with_no_json_form_is_a_clear_error() {
    let mut map = HashMap::new();
    map.insert((1u8, 2u8), 3u32);
    let error = serialize(&map, LIMIT).unwrap_err();
    assert!(
        matches!(error, IntentError::InputSerialization(_)),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("key must be a string"),
        "{error}"
    );

    struct Broken;
    impl Serialize for Broken {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("the ledger is locked"))
        }
    }
    let error = serialize(&Broken, LIMIT).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the input could not be serialized: the ledger is locked"
    );
}

//! Golden files for the description, the strict verdict and the strict envelope schema of std,
//! well-known and derived types. Regenerate with `INTENT_BLESS=1` and review the diff.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use intent_core::Intent;
use intent_tests::derive_types::*;

fn golden_dir() -> PathBuf {
    intent_tests::golden::path("types")
}

/// The three views of `T`, as stored in its golden file.
fn render<T: Intent>() -> String {
    let schema = match T::strict_envelope_schema() {
        Some(schema) => serde_json::to_string_pretty(&schema).expect("a schema serializes"),
        None => "none".to_owned(),
    };
    format!(
        "description:\n{}\n\nstrict: {}\n\nschema:\n{}\n",
        T::describe(),
        T::is_strict_compatible(),
        schema
    )
}

fn check<T: Intent>(name: &str) {
    intent_tests::golden::check(&format!("types/{name}.txt"), &render::<T>());
}

macro_rules! golden {
    ($($test:ident => $ty:ty;)*) => {
        $(
            #[test]
            fn $test() {
                check::<$ty>(stringify!($test));
            }
        )*
        const NAMES: &[&str] = &[$(stringify!($test)),*];
    };
}

golden! {
    // The type table: std scalars.
    string => String;
    char => char;
    bool => bool;
    int_i32 => i32;
    int_u64 => u64;
    float_f32 => f32;
    float_f64 => f64;
    // Option, sequences, pointers.
    option_i32 => Option<i32>;
    option_string => Option<String>;
    vec_string => Vec<String>;
    vec_deque_u8 => VecDeque<u8>;
    btree_set_string => BTreeSet<String>;
    hash_set_u16 => HashSet<u16>;
    array_f32_3 => [f32; 3];
    box_u16 => Box<u16>;
    arc_string => Arc<String>;
    // Never strict: maps, JSON values, tuples.
    hash_map_string_u32 => HashMap<String, u32>;
    btree_map_string_order => BTreeMap<String, Order>;
    index_map_string_bool => indexmap::IndexMap<String, bool>;
    json_value => serde_json::Value;
    json_map => serde_json::Map<String, serde_json::Value>;
    tuple_string_u8 => (String, u8);
    // Well-known types.
    naive_date => chrono::NaiveDate;
    naive_time => chrono::NaiveTime;
    naive_date_time => chrono::NaiveDateTime;
    date_time_utc => chrono::DateTime<chrono::Utc>;
    uuid => uuid::Uuid;
    url => url::Url;
    decimal => rust_decimal::Decimal;
    // Derived structs.
    purchase_request => PurchaseRequest;
    scalars => Scalars;
    containers => Containers;
    order => Order;
    option_order => Option<Order>;
    page_order => Page<Order>;
    page_u32 => Page<u32>;
    pair_string_order => Pair<String, Order>;
    renamed => Renamed;
    settings => Settings;
    kebab_case => KebabCase;
    screaming_case => ScreamingCase;
    pascal_case => PascalCase;
    record => Record;
    open_record => OpenRecord;
    sku => Sku;
    order_id => OrderId;
    point => Point;
    nothing => Nothing;
    described => Described;
    ruled => Ruled;
    custom => Custom;
    upper => Upper;
    strict_order => StrictOrder;
    // Enums, in each representation.
    status => Status;
    vec_status => Vec<Status>;
    shape => Shape;
    event => Event;
    message => Message;
    any_id => AnyId;
    command => Command;
    // Recursion and members that are never strict.
    tree => Tree;
    department => Department;
    person => Person;
    chain_u8 => Chain<u8>;
    bounded_string => Bounded<String>;
    tagged => Tagged;
    with_payload => WithPayload;
    skips_map => SkipsMap;
    with_tuple => WithTuple;
}

#[test]
fn every_golden_file_belongs_to_a_type() {
    if intent_tests::golden::blessing() {
        return;
    }
    let mut orphans = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).expect("golden/types exists") {
        let name = entry.expect("dir entry").file_name();
        let name = name.to_string_lossy();
        let stem = name.strip_suffix(".txt").unwrap_or(&name);
        if !NAMES.contains(&stem) {
            orphans.push(name.into_owned());
        }
    }
    assert!(
        orphans.is_empty(),
        "golden files without a type (delete them or add the type): {orphans:?}"
    );
}

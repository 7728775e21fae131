//! What the integration tests share: the one support library of the `intent-tests` binaries.
//!
//! Each theme is one test binary, `tests/<theme>/main.rs` with one module per subject; what more
//! than one module needs lives here, and every file a test reads lives under `tests/fixtures/`
//! ([`fixture`]): cassettes, intent catalogs, golden files and recorded vendor streams.

pub mod batch_server;
pub mod clocked_server;
pub mod shapes;
pub mod sse_server;
pub mod strict_schema;
pub mod trace_route;
pub mod wire;

use std::path::{Path, PathBuf};

/// `tests/fixtures/<relative>`: the one root of the files the tests read.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(relative)
}

/// Where each of `issues` points and what kind it is: how a test states an attempt's findings.
///
/// ```
/// use intent_core::{IssueKind, ResultIssue};
///
/// let issues = [ResultIssue::at("/value/n", IssueKind::Rule, "too big")];
/// assert_eq!(intent_tests::paths_and_kinds(&issues), [(Some("/value/n"), IssueKind::Rule)]);
/// ```
pub fn paths_and_kinds(
    issues: &[intent_core::ResultIssue],
) -> Vec<(Option<&str>, intent_core::IssueKind)> {
    issues.iter().map(|i| (i.path.as_deref(), i.kind)).collect()
}

/// Derived types covering every serde attribute and enum representation the derive honours.
pub mod derive_types {
    #![allow(dead_code)]

    use std::collections::{BTreeSet, HashMap};

    use intent_core::Intent;
    use serde::Deserialize;

    /// A purchase request read from an email.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct PurchaseRequest {
        /// Who sent the request.
        pub contact: String,
        #[intent(pattern = "^[A-Z]-\\d+$")]
        pub sku: String,
        #[intent(minimum = 1, maximum = 1000)]
        pub quantity: u32,
        pub deliver_by: Option<chrono::NaiveDate>,
    }

    /// Every scalar of the type table as a member.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Scalars {
        pub text: String,
        pub letter: char,
        pub flag: bool,
        pub i8: i8,
        pub i16: i16,
        pub i32: i32,
        pub i64: i64,
        pub u8: u8,
        pub u16: u16,
        pub u32: u32,
        pub u64: u64,
        pub isize: isize,
        pub usize: usize,
        pub f32: f32,
        pub f64: f64,
        pub date: chrono::NaiveDate,
        pub time: chrono::NaiveTime,
        pub local: chrono::NaiveDateTime,
        pub instant: chrono::DateTime<chrono::Utc>,
        pub id: uuid::Uuid,
        pub link: url::Url,
        pub price: rust_decimal::Decimal,
    }

    /// Containers of the type table as members.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Containers {
        pub maybe: Option<i32>,
        pub list: Vec<String>,
        pub queue: std::collections::VecDeque<u8>,
        pub set: BTreeSet<String>,
        pub hashed: std::collections::HashSet<u16>,
        pub triple: [f32; 3],
        pub boxed: Box<u16>,
        pub shared: std::sync::Arc<String>,
        pub nested: Vec<Option<Vec<bool>>>,
    }

    /// One line of an order.
    #[derive(Debug, Deserialize, Intent, PartialEq)]
    pub struct Line {
        pub sku: String,
        #[intent(minimum = 1)]
        pub quantity: u32,
    }

    /// An order with its lines.
    #[derive(Debug, Deserialize, Intent, PartialEq)]
    pub struct Order {
        pub id: String,
        #[intent(min_items = 1, max_items = 50)]
        pub lines: Vec<Line>,
    }

    /// One page of results.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Page<T> {
        pub items: Vec<T>,
        pub next_cursor: Option<String>,
    }

    /// Two values of different types.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Pair<A, B> {
        pub first: A,
        pub second: B,
    }

    /// `rename`, `alias`, `skip`, `skip_deserializing` and `default` on fields.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Renamed {
        #[serde(rename = "ID", alias = "identifier")]
        pub id: u64,
        #[serde(skip)]
        pub cache: Vec<u8>,
        #[serde(skip_deserializing)]
        pub computed: String,
        #[serde(default)]
        pub retries: u8,
        #[serde(rename(serialize = "out", deserialize = "in"))]
        pub r#in: bool,
        pub r#type: String,
    }

    /// `#[serde(default)]` on the container: every member may be missing.
    #[derive(Debug, Deserialize, Intent, Default)]
    #[serde(default)]
    pub struct Settings {
        pub verbose: bool,
        pub level: u8,
    }

    /// `rename_all = "kebab-case"`.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(rename_all = "kebab-case")]
    pub struct KebabCase {
        pub first_name: String,
        pub last_name: String,
    }

    /// `rename_all = "SCREAMING_SNAKE_CASE"`.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    pub struct ScreamingCase {
        pub api_key: String,
        pub max_retries: u8,
    }

    /// `rename_all = "PascalCase"`.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(rename_all = "PascalCase")]
    pub struct PascalCase {
        pub user_name: String,
    }

    /// Audit data shared by several records.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Audit {
        pub created_by: String,
        pub version: u32,
    }

    /// A record with flattened audit members.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Record {
        pub id: String,
        #[serde(flatten)]
        pub audit: Audit,
    }

    /// A record that keeps unknown members.
    #[derive(Debug, Deserialize, Intent)]
    pub struct OpenRecord {
        pub id: String,
        #[serde(flatten)]
        pub extra: HashMap<String, serde_json::Value>,
    }

    /// A SKU, read as a bare string.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(transparent)]
    pub struct Sku {
        pub code: String,
    }

    /// An order number.
    #[derive(Debug, Deserialize, Intent)]
    pub struct OrderId(pub u64);

    /// A point as `[x, y]`.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Point(pub i32, pub i32);

    /// Nothing at all.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Nothing;

    /// Where an order stands.
    #[derive(Debug, Deserialize, Intent, PartialEq)]
    #[serde(rename_all = "snake_case")]
    pub enum Status {
        /// Received, not yet paid.
        Open,
        InProgress,
        #[serde(rename = "done", alias = "finished")]
        Closed,
        #[serde(skip)]
        Internal,
    }

    /// A shape, externally tagged.
    #[derive(Debug, Deserialize, Intent)]
    pub enum Shape {
        Circle {
            radius: f64,
        },
        /// The side's length.
        Square(f64),
        Empty,
    }

    /// Details of a deletion.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Deletion {
        pub id: u64,
        pub reason: Option<String>,
    }

    /// An event, internally tagged.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    pub enum Event {
        Created { id: u64, by: String },
        Deleted(Deletion),
        Ping,
    }

    /// A message, adjacently tagged.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(tag = "t", content = "c")]
    pub enum Message {
        Text(String),
        Move { x: i32, y: i32 },
        Quit,
    }

    /// An id, as a number or a text.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(untagged)]
    pub enum AnyId {
        Number(u64),
        Text(String),
    }

    /// `rename_all_fields` and a variant's own `rename_all`.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(rename_all_fields = "camelCase")]
    pub enum Command {
        Send {
            to_address: String,
            retry_count: u8,
        },
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        Stop {
            after_seconds: u32,
        },
    }

    /// A tree: recursive, so never strict.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Tree {
        pub label: String,
        pub children: Vec<Tree>,
    }

    /// A department, recursive through [`Person`].
    #[derive(Debug, Deserialize, Intent)]
    pub struct Department {
        pub name: String,
        pub head: Person,
    }

    /// A person, recursive through [`Department`].
    #[derive(Debug, Deserialize, Intent)]
    pub struct Person {
        pub name: String,
        pub department: Option<Box<Department>>,
    }

    /// A type with a map member.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Tagged {
        pub name: String,
        pub tags: HashMap<String, String>,
    }

    /// A type with a JSON value member.
    #[derive(Debug, Deserialize, Intent)]
    pub struct WithPayload {
        pub name: String,
        pub payload: serde_json::Value,
    }

    /// A type whose map member is skipped: strict again.
    #[derive(Debug, Deserialize, Intent)]
    pub struct SkipsMap {
        pub name: String,
        #[serde(skip)]
        pub tags: HashMap<String, String>,
    }

    /// A type with a tuple member.
    #[derive(Debug, Deserialize, Intent)]
    pub struct WithTuple {
        pub range: (u32, u32),
    }

    /// Doc comment replaced below.
    #[derive(Debug, Deserialize, Intent)]
    #[intent(description = "A contact card.")]
    pub struct Described {
        /// Full name,
        /// as written on the card.
        pub name: String,
        /// Not shown.
        #[intent(description = "E-mail address, lower case.")]
        #[intent(max_length = 254)]
        pub email: String,
    }

    /// Every kind of rule.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Ruled {
        #[intent(exclusive_minimum = 0, exclusive_maximum = 1.5, multiple_of = 0.25)]
        pub ratio: f64,
        #[intent(minimum = -10, maximum = 10)]
        pub offset: Option<i32>,
        #[intent(min_length = 2, max_length = 8)]
        pub code: String,
        #[intent(min_items = 1, max_items = 3, unique_items)]
        pub tags: Vec<String>,
    }

    mod upper {
        use serde::{Deserialize, Deserializer};

        pub fn read<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
            String::deserialize(d).map(|s| s.to_uppercase())
        }
    }

    /// A member read by a custom deserializer, with its wire type stated.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Custom {
        #[serde(deserialize_with = "upper::read")]
        #[intent(as = "String")]
        pub code: String,
    }

    /// Read through another type.
    #[derive(Debug, Deserialize, Intent)]
    #[serde(from = "String")]
    pub struct Upper(pub String);

    impl From<String> for Upper {
        fn from(s: String) -> Self {
            Upper(s.to_uppercase())
        }
    }

    /// Asserted strict at compile time.
    #[derive(Debug, Deserialize, Intent)]
    #[intent(strict)]
    pub struct StrictOrder {
        pub order: Order,
        pub status: Status,
        pub notes: Option<Vec<String>>,
        #[serde(skip)]
        pub cache: HashMap<String, String>,
    }

    /// A singly linked list with a generic element.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Chain<T> {
        pub value: T,
        pub next: Option<Box<Chain<T>>>,
    }

    /// A generic type with rules, checked when it is used.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Bounded<T> {
        #[intent(min_items = 1, max_items = 3)]
        pub items: Vec<T>,
        #[intent(max_length = 20)]
        pub label: Option<String>,
    }
}

/// Golden files: one helper, one environment variable (`INTENT_BLESS=1`) to write them anew.
pub mod golden {
    use std::path::PathBuf;

    /// True when the run writes golden files instead of comparing with them (`INTENT_BLESS=1`).
    pub fn blessing() -> bool {
        std::env::var_os("INTENT_BLESS").is_some_and(|v| v == "1")
    }

    /// `tests/fixtures/golden/<relative>`.
    pub fn path(relative: &str) -> PathBuf {
        super::fixture("golden").join(relative)
    }

    /// Compares `actual` with the golden file `tests/fixtures/golden/<relative>`, or writes it when blessing.
    /// A difference panics with the first differing line and both texts.
    pub fn check(relative: &str, actual: &str) {
        let path = path(relative);
        if blessing() {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).expect("create the golden folder");
            }
            std::fs::write(&path, actual).expect("write the golden file");
            return;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "golden file {} is missing ({e}); run with INTENT_BLESS=1 to create it, then \
                 review it.\n--- actual\n{actual}",
                path.display()
            )
        });
        if expected != actual {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(e, a)| e != a)
                .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
            panic!(
                "{} differs, first at line {}; run with INTENT_BLESS=1 to accept the change, \
                 then review the diff.\n--- expected\n{expected}\n--- actual\n{actual}",
                path.display(),
                line + 1
            );
        }
    }
}

/// Views of an answer that grows: streamed partials checked against the final value.
pub mod partials {
    use serde_json::Value;

    /// True when `partial` is a growing view of `full`: every member or element it shows is
    /// equal to the final one, or is the open one and a prefix of it (a string's start, a list's
    /// first elements, an object's members so far).
    pub fn is_prefix(partial: &Value, full: &Value) -> bool {
        match (partial, full) {
            (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
            (Value::Array(a), Value::Array(b)) => {
                a.len() <= b.len() && a.iter().zip(b).all(|(x, y)| is_prefix(x, y))
            }
            (Value::Object(a), Value::Object(b)) => a
                .iter()
                .all(|(k, v)| b.get(k).is_some_and(|w| is_prefix(v, w))),
            (a, b) => a == b,
        }
    }
}

/// The corpora published by others that conformance tests read (`shared/corpora/`, beside the
/// checkout): never copied into the project, read where they are.
pub mod corpora {
    use std::path::{Path, PathBuf};

    /// The environment variable that names the corpora folder, when it is not `shared/corpora`
    /// beside the checkout (or beside one of its parent folders).
    pub const DIR_VARIABLE: &str = "INTENT_CORPORA_DIR";

    /// True when two JSON values are the same value, numbers compared as JSON Schema compares
    /// them (by value: `5` is `5.0`); object members in any order.
    pub fn same_value(a: &serde_json::Value, b: &serde_json::Value) -> bool {
        numbers_as_doubles(a) == numbers_as_doubles(b)
    }

    /// `value` with every number written as a double (integers beyond 2^53 keep their own form,
    /// so that no two different integers become equal).
    fn numbers_as_doubles(value: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::Number(n)
                if n.as_i64()
                    .map(i64::unsigned_abs)
                    .or_else(|| n.as_u64())
                    .is_none_or(|whole| whole < 1 << 53) =>
            {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| value.clone(), Value::Number)
            }
            Value::Array(items) => Value::Array(items.iter().map(numbers_as_doubles).collect()),
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), numbers_as_doubles(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// `<corpora>/<relative>`: the folder named by `INTENT_CORPORA_DIR`, else the first
    /// `shared/corpora` found beside the checkout or one of its parents. Panics with every place
    /// it looked when the file is in none of them, so a corpus test asked to run without the
    /// corpora fails and says where they should be.
    pub fn path(relative: &str) -> PathBuf {
        let mut tried = Vec::new();
        if let Some(dir) = std::env::var_os(DIR_VARIABLE) {
            tried.push(PathBuf::from(dir).join(relative));
        }
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
        for folder in checkout.ancestors().skip(1) {
            tried.push(folder.join("shared").join("corpora").join(relative));
        }
        if let Some(found) = tried.iter().find(|p| p.exists()) {
            return found.clone();
        }
        let places: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        panic!(
            "the corpus `{relative}` is not where the tests look for it ({}); put the corpora \
             folder at `shared/corpora` beside the checkout, or name it in {DIR_VARIABLE}",
            places.join(", ")
        );
    }
}

/// A whole 1x1 PNG, for the attachment tests.
pub fn tests_png() -> Vec<u8> {
    vec![
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F,
        0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8,
        0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}

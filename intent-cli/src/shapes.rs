//! Running an intent without its Rust type: through its JSON Schema, or as one of the built-in
//! types the command line knows by label (`string`, `int`, `List<string>`, ...).
//!
//! The library runs an intent whose shape names a type only with that type (its label must be
//! the file's `shape`), so the command line keeps a table of built-in types, each found by its
//! own label, with a runner and a checker per type. An intent that names a type of a program
//! (`PurchaseRequest`) cannot be run here: the message says so and how to run it.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use futures::future::BoxFuture;
use intent_core::catalog::{Catalog, CatalogIntent, IntentShape};
use intent_core::{
    AiCall, AiRequestOptions, AiResult, Attachment, AttemptRecord, Intent, IntentClient,
    IntentError, ResultIssue, Usage,
};
use serde::Serialize;
use serde_json::Value;

use crate::input::Input;

/// What one call of an intent gave: its value as JSON (text as a JSON string), and its record.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub value: Option<Value>,
    pub issues: Vec<ResultIssue>,
    pub attempts: Vec<AttemptRecord>,
    pub usage: Usage,
    pub elapsed: Duration,
}

impl Outcome {
    fn of<T: Serialize>(result: AiResult<T>, elapsed: Duration) -> Outcome {
        Outcome {
            value: result
                .value()
                .map(|v| serde_json::to_value(v).unwrap_or(Value::Null)),
            issues: result.issues().to_vec(),
            attempts: result.attempts().to_vec(),
            usage: result.usage(),
            elapsed,
        }
    }
}

type RunFn = for<'a> fn(
    &'a Catalog,
    &'a IntentClient,
    &'a str,
    &'a Input,
    &'a [Attachment],
    AiRequestOptions,
) -> BoxFuture<'a, Outcome>;

/// `call` with each of `attachments` attached, in order.
fn attached<'a, T>(call: AiCall<'a, T>, attachments: &[Attachment]) -> AiCall<'a, T> {
    attachments
        .iter()
        .fold(call, |call, attachment| call.attach(attachment.clone()))
}

type CheckFn = fn(&Catalog, &str) -> Result<(), IntentError>;

/// A built-in type, by its label (opaque outside this module).
pub struct Typed {
    label: String,
    run: RunFn,
    check: CheckFn,
    #[cfg(feature = "map")]
    map: crate::map::MapFn,
    #[cfg(feature = "map")]
    value_schema: fn() -> Option<Value>,
}

fn typed<T: Intent + Serialize + Send + 'static>() -> Typed {
    Typed {
        label: T::describe().lines().next().unwrap_or_default().to_owned(),
        run: run_typed::<T>,
        check: |catalog, name| catalog.check::<T>(name),
        #[cfg(feature = "map")]
        map: crate::map::map_typed::<T>,
        #[cfg(feature = "map")]
        value_schema: value_schema::<T>,
    }
}

/// The JSON Schema of a `T` (text for a `String`, none for JSON of any shape).
#[cfg(feature = "map")]
fn value_schema<T: Intent>() -> Option<Value> {
    if T::describe() == "string" {
        return Some(serde_json::json!({"type": "string"}));
    }
    let envelope = T::strict_envelope_schema()?;
    envelope
        .get("properties")?
        .get(intent_core::schema::ENVELOPE_PROPERTY)
        .cloned()
}

fn run_typed<'a, T: Intent + Serialize + Send + 'static>(
    catalog: &'a Catalog,
    client: &'a IntentClient,
    name: &'a str,
    input: &'a Input,
    attachments: &'a [Attachment],
    options: AiRequestOptions,
) -> BoxFuture<'a, Outcome> {
    Box::pin(async move {
        let started = Instant::now();
        let result = match input {
            Input::Text(text) => {
                attached(catalog.run::<T>(client, name, text.as_str()), attachments)
                    .options(options)
                    .await
            }
            Input::Json(value) => {
                attached(catalog.run::<T>(client, name, value), attachments)
                    .options(options)
                    .await
            }
        };
        Outcome::of(result, started.elapsed())
    })
}

/// Each scalar type, then a list of each.
macro_rules! table {
    ($($ty:ty),* $(,)?) => {
        vec![$(typed::<$ty>(),)* $(typed::<Vec<$ty>>(),)*]
    };
}

static TYPED: LazyLock<Vec<Typed>> = LazyLock::new(|| {
    table![
        String,
        bool,
        i8,
        i16,
        i32,
        i64,
        u8,
        u16,
        u32,
        u64,
        f32,
        f64,
        Value,
        serde_json::Map<String, Value>,
        NaiveDate,
        NaiveTime,
        NaiveDateTime,
        DateTime<Utc>,
    ]
});

/// How an intent is run here.
#[derive(Clone, Copy)]
pub enum Runner {
    /// Through its JSON Schema.
    Schema,
    /// As the built-in type of its label.
    Typed(&'static Typed),
}

/// The runner of `intent`, or why the command line cannot run it.
pub fn runner(intent: &CatalogIntent) -> Result<Runner, String> {
    match intent.shape() {
        IntentShape::Schema(_) => Ok(Runner::Schema),
        IntentShape::TypeName(label) => TYPED
            .iter()
            .find(|t| t.label == label)
            .map(Runner::Typed)
            .ok_or_else(|| {
                let scalars: Vec<&str> = TYPED.iter().take(TYPED.len() / 2).map(|t| t.label.as_str()).collect();
                format!(
                    "intent `{}`: its shape is the Rust type `{label}`, which the command line cannot build; run it from the program that defines `{label}`, or write its shape as a JSON Schema (the command line runs JSON Schemas and the built-in types {} and a List<..> of each)",
                    intent.name(),
                    scalars.join(", ")
                )
            }),
    }
}

#[cfg(feature = "map")]
impl Runner {
    /// The JSON Schema of the intent's answers, for the columns they become.
    pub fn value_schema(self, intent: &CatalogIntent) -> Option<Value> {
        match (self, intent.shape()) {
            (Runner::Typed(typed), _) => (typed.value_schema)(),
            (Runner::Schema, IntentShape::Schema(schema)) => Some(schema.clone()),
            (Runner::Schema, IntentShape::TypeName(_)) => None,
        }
    }

    /// How `intent map` runs the intent.
    pub fn map_fn(self) -> crate::map::MapFn {
        match self {
            Runner::Typed(typed) => typed.map,
            Runner::Schema => crate::map::map_typed::<Value>,
        }
    }
}

impl Runner {
    /// Checks the intent against its type: its rules, examples and tests (a schema intent was
    /// checked whole when it was loaded).
    pub fn check(self, catalog: &Catalog, name: &str) -> Result<(), IntentError> {
        match self {
            Runner::Schema => Ok(()),
            Runner::Typed(typed) => (typed.check)(catalog, name),
        }
    }

    /// Runs intent `name` on `input`, with `attachments` sent with it, with `options` (the
    /// file's, with the command line's set).
    pub fn run<'a>(
        self,
        catalog: &'a Catalog,
        client: &'a IntentClient,
        name: &'a str,
        input: &'a Input,
        attachments: &'a [Attachment],
        options: AiRequestOptions,
    ) -> BoxFuture<'a, Outcome> {
        match self {
            Runner::Typed(typed) => (typed.run)(catalog, client, name, input, attachments, options),
            Runner::Schema => Box::pin(async move {
                let started = Instant::now();
                let result = match input {
                    Input::Text(text) => {
                        attached(catalog.run_json(client, name, text.as_str()), attachments)
                            .options(options)
                            .await
                    }
                    Input::Json(value) => {
                        attached(catalog.run_json(client, name, value), attachments)
                            .options(options)
                            .await
                    }
                };
                Outcome::of(result, started.elapsed())
            }),
        }
    }
}

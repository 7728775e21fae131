//! The result columns: named and typed from the answer's JSON Schema before any call, filled
//! batch by batch, with `<intent>_issues` saying why a row has no value.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use intent_core::table::Table;
use serde_json::{json, Value};

use crate::exit::{CliResult, Failure};

/// How one row ended: its value, or the issues that kept it from one.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Value(Value),
    Failed(Vec<Issue>),
}

/// One issue of a failed row: where in the answer, and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub path: Option<String>,
    pub message: String,
}

impl Issue {
    pub fn to_json(&self) -> Value {
        json!({"path": self.path, "message": self.message})
    }

    pub fn from_json(value: &Value) -> Option<Issue> {
        Some(Issue {
            path: value.get("path").and_then(Value::as_str).map(str::to_owned),
            message: value.get("message")?.as_str()?.to_owned(),
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Text,
    Integer,
    Number,
    Boolean,
    /// Anything else: JSON in JSON Lines, its JSON text in CSV and Parquet.
    Json,
}

impl Kind {
    /// The kind a JSON Schema gives its values (`null` aside).
    fn of(schema: Option<&Value>) -> Kind {
        let types: Vec<&str> = match schema.and_then(|s| s.get("type")) {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect(),
            _ => Vec::new(),
        };
        match types.as_slice() {
            ["string"] => Kind::Text,
            ["integer"] => Kind::Integer,
            ["number"] => Kind::Number,
            ["boolean"] => Kind::Boolean,
            _ => Kind::Json,
        }
    }

    fn data_type(self) -> DataType {
        match self {
            Kind::Text | Kind::Json => DataType::Utf8,
            Kind::Integer => DataType::Int64,
            Kind::Number => DataType::Float64,
            Kind::Boolean => DataType::Boolean,
        }
    }
}

/// The columns the results add to the input's.
pub struct ResultColumns {
    /// Each column's name and kind; for an object answer, one per member (the member's name).
    columns: Vec<(String, Kind)>,
    /// Whether the columns are the members of an object answer (else one column, the value).
    members: bool,
    issues: String,
}

impl ResultColumns {
    /// The columns of intent `name`'s answers, whose JSON Schema is `schema` (none for an answer
    /// of any JSON), refusing a name the input already has.
    pub fn new(name: &str, schema: Option<&Value>, input: &Schema) -> CliResult<ResultColumns> {
        let properties = schema
            .filter(|s| {
                Kind::of(Some(s)) == Kind::Json
                    && s.get("type").and_then(Value::as_str) == Some("object")
            })
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .filter(|p| !p.is_empty());
        let (columns, members) = match properties {
            Some(properties) => (
                properties
                    .iter()
                    .map(|(member, schema)| (member.clone(), Kind::of(Some(schema))))
                    .collect(),
                true,
            ),
            None => (vec![(name.to_owned(), Kind::of(schema))], false),
        };
        let result = ResultColumns {
            columns,
            members,
            issues: format!("{name}_issues"),
        };
        for column in result.names() {
            if input.field_with_name(column).is_ok() {
                return Err(Failure::usage(format!(
                    "the results would add a column `{column}`, and the input has one of that name; rename the input's column first"
                )));
            }
        }
        Ok(result)
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.columns
            .iter()
            .map(|(n, _)| n.as_str())
            .chain([self.issues.as_str()])
    }

    /// The output's schema: the input's columns, then the results'.
    pub fn schema(&self, input: &Schema) -> SchemaRef {
        let mut fields: Vec<Field> = input.fields().iter().map(|f| f.as_ref().clone()).collect();
        for (name, kind) in &self.columns {
            fields.push(Field::new(name, kind.data_type(), true));
        }
        fields.push(Field::new(&self.issues, DataType::Utf8, true));
        Arc::new(Schema::new(fields))
    }

    /// The value of column `index` in a row's value.
    fn cell<'v>(&self, index: usize, value: &'v Value) -> Option<&'v Value> {
        if self.members {
            value.get(&self.columns[index].0)
        } else {
            Some(value)
        }
        .filter(|v| !v.is_null())
    }

    /// `input` with the result columns of `outcomes` (one per row) added.
    pub fn batch(
        &self,
        input: &RecordBatch,
        outcomes: &[Outcome],
        schema: &SchemaRef,
    ) -> CliResult<RecordBatch> {
        let mut columns = input.columns().to_vec();
        for (index, (_, kind)) in self.columns.iter().enumerate() {
            let cells = outcomes.iter().map(|o| match o {
                Outcome::Value(value) => self.cell(index, value),
                Outcome::Failed(_) => None,
            });
            columns.push(column(*kind, cells));
        }
        let mut issues = StringBuilder::new();
        for outcome in outcomes {
            match outcome {
                Outcome::Value(_) => issues.append_null(),
                Outcome::Failed(found) => {
                    let mut text = String::new();
                    for (i, issue) in found.iter().enumerate() {
                        let sep = if i == 0 { "" } else { "; " };
                        let _ = match &issue.path {
                            Some(path) => write!(text, "{sep}{path}: {}", issue.message),
                            None => write!(text, "{sep}{}", issue.message),
                        };
                    }
                    issues.append_value(text);
                }
            }
        }
        columns.push(Arc::new(issues.finish()));
        RecordBatch::try_new(schema.clone(), columns).map_err(|e| {
            Failure::usage(format!("the results could not be written as columns: {e}"))
        })
    }

    /// The JSON Lines of `input`'s rows with the results as members (JSON values, not text).
    pub fn lines(&self, input: &RecordBatch, outcomes: &[Outcome]) -> CliResult<String> {
        let table = Table::from_arrow(input).map_err(|e| Failure::usage(e.to_string()))?;
        let mut out = String::new();
        for (row, outcome) in table.rows().zip(outcomes) {
            let text = serde_json::to_string(&row).map_err(|e| Failure::usage(e.to_string()))?;
            let body = text.strip_suffix('}').unwrap_or(&text);
            out.push_str(body);
            let mut first = body == "{";
            let mut member = |out: &mut String, name: &str, value: &Value| {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&Value::String(name.to_owned()).to_string());
                out.push(':');
                out.push_str(&value.to_string());
            };
            for (index, (name, _)) in self.columns.iter().enumerate() {
                let cell = match outcome {
                    Outcome::Value(value) => {
                        self.cell(index, value).cloned().unwrap_or(Value::Null)
                    }
                    Outcome::Failed(_) => Value::Null,
                };
                member(&mut out, name, &cell);
            }
            let issues = match outcome {
                Outcome::Value(_) => Value::Null,
                Outcome::Failed(found) => Value::Array(found.iter().map(Issue::to_json).collect()),
            };
            member(&mut out, &self.issues, &issues);
            out.push_str("}\n");
        }
        Ok(out)
    }
}

/// A column of `kind` from each row's value (`None` for none).
fn column<'v>(kind: Kind, cells: impl Iterator<Item = Option<&'v Value>>) -> ArrayRef {
    match kind {
        Kind::Integer => {
            let mut b = Int64Builder::new();
            cells.for_each(|c| b.append_option(c.and_then(Value::as_i64)));
            Arc::new(b.finish())
        }
        Kind::Number => {
            let mut b = Float64Builder::new();
            cells.for_each(|c| b.append_option(c.and_then(Value::as_f64)));
            Arc::new(b.finish())
        }
        Kind::Boolean => {
            let mut b = BooleanBuilder::new();
            cells.for_each(|c| b.append_option(c.and_then(Value::as_bool)));
            Arc::new(b.finish())
        }
        Kind::Text | Kind::Json => {
            let mut b = StringBuilder::new();
            for cell in cells {
                b.append_option(cell.map(|v| match v {
                    Value::String(s) if kind == Kind::Text => s.clone(),
                    other => other.to_string(),
                }));
            }
            Arc::new(b.finish())
        }
    }
}

//! A collection's results as a column: an Arrow array typed from the result's shape
//! ([`CollectionResult::to_arrow`]), and with feature `polars` a Polars `Series`.
//!
//! The column's type comes from `O`'s shape, not from the values, so a column whose elements all
//! failed still has its type, and every chunk of a stream gets the same one:
//!
//! | result shape | Arrow type |
//! |---|---|
//! | `String`, `char`, `Uuid`, `Url`, a unit-only enum | `Utf8` |
//! | `bool` | `Boolean` |
//! | `i8` … `i64`, `u8` … `u64` (`isize`, `usize` as 64 bits) | `Int8` … `UInt64` |
//! | `i128`, `u128` | `Decimal128(38, 0)` |
//! | `f32`, `f64` | `Float32`, `Float64` |
//! | `NaiveDate` | `Date32` |
//! | `NaiveTime` | `Time64(Nanosecond)` |
//! | `NaiveDateTime` | `Timestamp(Nanosecond, None)` |
//! | `DateTime<Tz>` | `Timestamp(Nanosecond, "UTC")`: the instant, not the offset it was written with |
//! | `Decimal` | `Decimal128(38, s)`, `s` the largest scale among the values; no digit is dropped |
//! | `Option<T>`, newtypes, `Box<T>` | as `T` (every field is nullable) |
//! | `Vec<T>`, sets, arrays | `List<T>` |
//! | a derived struct | `Struct`, one field per member (flattened members inline) |
//! | `()`, a unit struct | `Null` |
//! | maps, tuples, `serde_json::Value`, data enums, recursive types | `Utf8`, the value's JSON text |
//!
//! An element without a value is null. A value outside its type's range (a timestamp past the
//! year 2262 in nanoseconds, a decimal wider than 38 digits) is refused with
//! [`IntentError::Column`], naming the element: nothing is rounded or cut.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Decimal128Builder, Float32Builder, Float64Builder, Int16Builder,
    Int32Builder, Int64Builder, Int8Builder, StringBuilder, Time64NanosecondBuilder,
    TimestampNanosecondBuilder, UInt16Builder, UInt32Builder, UInt64Builder, UInt8Builder,
};
use arrow_array::{new_null_array, Array, ArrayRef, ListArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use serde::Serialize;
use serde_json::Value;

use super::result::CollectionResult;
use crate::error::IntentError;
use crate::intent::Intent;
use crate::shape::{
    EnumRepr, FloatKind, IntKind, Node, NodeId, Scalar, ShapeGraph, StructKind, VariantKind,
};

/// Days from 0001-01-01 (chrono's day 1) to 1970-01-01.
const UNIX_EPOCH_DAY: i32 = 719_163;

impl<K, O: Intent + Serialize> CollectionResult<K, O> {
    /// The results as one Arrow array, in input order, typed from `O`'s shape (see the table
    /// below): a struct array for a struct, a null where an element has no value. Append it to
    /// the input's record batch as a new column.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
    /// use intent_core::prelude::*;
    /// use intent_core::table::Table;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let batch = RecordBatch::try_from_iter([
    ///     ("ticket", Arc::new(StringArray::from(vec!["Charged twice", "Site down"])) as ArrayRef),
    /// ])
    /// .unwrap();
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     r#"{"value": [{"index": 0, "value": "billing"}, {"index": 1, "value": "outage"}]}"#,
    /// ]));
    /// let topics = client
    ///     .map_rows::<String>(&Table::from_arrow(&batch)?, "Name the ticket's topic in one word.")
    ///     .await;
    /// let column = topics.to_arrow()?;
    /// assert_eq!(column.len(), 2);
    /// let mut columns = batch.columns().to_vec();
    /// columns.push(column);
    /// let mut fields: Vec<_> = batch.schema().fields().iter().cloned().collect();
    /// fields.push(Arc::new(arrow_schema::Field::new("topic", arrow_schema::DataType::Utf8, true)));
    /// let with_topics = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap();
    /// assert_eq!(with_topics.num_columns(), 2);
    /// # Ok::<(), IntentError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// [`IntentError::Column`] when a value is outside its column type's range, naming the
    /// element, or when a value cannot be serialized.
    pub fn to_arrow(&self) -> Result<ArrayRef, IntentError> {
        let values = self
            .values
            .iter()
            .map(|value| value.as_ref().map(serde_json::to_value).transpose())
            .collect::<Result<Vec<Option<Value>>, _>>()
            .map_err(|e| IntentError::Column(format!("a value could not be serialized: {e}")))?;
        let cells: Vec<Cell<'_>> = values
            .iter()
            .enumerate()
            .map(|(position, value)| Cell {
                position,
                value: value.as_ref(),
            })
            .collect();
        let info = O::type_info();
        let builder = Builder {
            graph: info.graph(),
            open: Vec::new(),
        };
        builder
            .column(info.root(), &cells)
            .map(|(_, array)| array)
            .map_err(IntentError::Column)
    }

    /// The results as a Polars series named `name`, in input order: [`to_arrow`](Self::to_arrow)'s
    /// array, given to Polars through Arrow's C data interface (no value is copied one by one).
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     r#"{"value": [{"index": 0, "value": 3}, {"index": 1, "value": 5}]}"#,
    /// ]));
    /// let lengths = client.map_each::<u32>(&["red", "green"], "Count the letters.").await;
    /// let series = lengths.to_polars("letters")?;
    /// assert_eq!(series.len(), 2);
    /// assert_eq!(series.name().as_str(), "letters");
    /// # Ok::<(), IntentError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// As [`to_arrow`](Self::to_arrow), and [`IntentError::Column`] when Polars cannot hold the
    /// array's type (a struct needs Polars' `dtype-struct`, a date its `dtype-date`, ...).
    #[cfg(feature = "polars")]
    #[cfg_attr(docsrs, doc(cfg(feature = "polars")))]
    pub fn to_polars(&self, name: &str) -> Result<polars::prelude::Series, IntentError> {
        crate::table::to_series(name, &self.to_arrow()?)
    }
}

/// One element's value, with its position for messages.
#[derive(Clone, Copy)]
struct Cell<'v> {
    position: usize,
    value: Option<&'v Value>,
}

impl<'v> Cell<'v> {
    fn member(&self, name: &str) -> Cell<'v> {
        Cell {
            position: self.position,
            value: self
                .value
                .and_then(|v| v.get(name))
                .filter(|v| !v.is_null()),
        }
    }

    fn present(&self) -> Option<&'v Value> {
        self.value.filter(|v| !v.is_null())
    }
}

struct Builder<'g> {
    graph: &'g ShapeGraph,
    /// The named nodes being built, outermost first: a node met again is recursive.
    open: Vec<NodeId>,
}

type Built = (DataType, ArrayRef);

impl Builder<'_> {
    fn column(mut self, id: NodeId, cells: &[Cell<'_>]) -> Result<Built, String> {
        self.build(id, cells)
    }

    fn build(&mut self, id: NodeId, cells: &[Cell<'_>]) -> Result<Built, String> {
        let id = self.graph.resolve(self.graph.strip_option(id));
        if self.open.contains(&id) {
            return Ok(json_text(cells));
        }
        match self.graph.node(id) {
            Node::Scalar(scalar) => scalar_column(*scalar, cells),
            Node::Seq { item, .. } => {
                self.open.push(id);
                let built = self.list(*item, cells);
                self.open.pop();
                built
            }
            Node::Struct(shape) => match &shape.kind {
                StructKind::Named(_) => {
                    self.open.push(id);
                    let built = match self.members(id) {
                        Some(members) => self.structure(&members, cells),
                        None => Ok(json_text(cells)),
                    };
                    self.open.pop();
                    built
                }
                StructKind::Unit => {
                    Ok((DataType::Null, new_null_array(&DataType::Null, cells.len())))
                }
                StructKind::Newtype(_) | StructKind::Tuple(_) => Ok(json_text(cells)),
            },
            Node::Enum(shape)
                if shape.repr == EnumRepr::External
                    && shape
                        .variants
                        .iter()
                        .all(|v| matches!(v.kind, VariantKind::Unit)) =>
            {
                scalar_column(Scalar::String, cells)
            }
            _ => Ok(json_text(cells)),
        }
    }

    /// The members of the named struct `id`, flattened members inline; `None` when a flattened
    /// member is not itself a struct with named members (a map, say).
    fn members(&self, id: NodeId) -> Option<Vec<(String, NodeId)>> {
        let Node::Struct(shape) = self.graph.node(id) else {
            return None;
        };
        let StructKind::Named(fields) = &shape.kind else {
            return None;
        };
        let mut members = Vec::with_capacity(fields.len());
        for field in fields {
            if field.flatten {
                let inner = self.graph.resolve(self.graph.strip_option(field.ty));
                if self.open.contains(&inner) {
                    return None;
                }
                members.extend(self.members(inner)?);
            } else {
                members.push((field.name.to_string(), field.ty));
            }
        }
        Some(members)
    }

    fn structure(
        &mut self,
        members: &[(String, NodeId)],
        cells: &[Cell<'_>],
    ) -> Result<Built, String> {
        let mut fields = Vec::with_capacity(members.len());
        let mut arrays = Vec::with_capacity(members.len());
        for (name, ty) in members {
            let inner: Vec<Cell<'_>> = cells.iter().map(|c| c.member(name)).collect();
            let (data_type, array) = self.build(*ty, &inner)?;
            fields.push(Field::new(name.as_str(), data_type, true));
            arrays.push(array);
        }
        let nulls = nulls(cells);
        let fields = Fields::from(fields);
        let array = if fields.is_empty() {
            StructArray::new_empty_fields(cells.len(), nulls)
        } else {
            StructArray::try_new(fields.clone(), arrays, nulls).map_err(|e| e.to_string())?
        };
        Ok((DataType::Struct(fields), Arc::new(array)))
    }

    fn list(&mut self, item: NodeId, cells: &[Cell<'_>]) -> Result<Built, String> {
        let mut items = Vec::new();
        let mut lengths = Vec::with_capacity(cells.len());
        for cell in cells {
            let elements = cell.present().and_then(Value::as_array);
            if cell.present().is_some() && elements.is_none() {
                return Err(format!("element {} is not a list", cell.position));
            }
            let elements = elements.map(Vec::as_slice).unwrap_or_default();
            lengths.push(elements.len());
            items.extend(elements.iter().map(|value| Cell {
                position: cell.position,
                value: Some(value),
            }));
        }
        let (data_type, values) = self.build(item, &items)?;
        let field = Arc::new(Field::new_list_field(data_type, true));
        let array = ListArray::try_new(
            field.clone(),
            OffsetBuffer::from_lengths(lengths),
            values,
            nulls(cells),
        )
        .map_err(|e| e.to_string())?;
        Ok((DataType::List(field), Arc::new(array)))
    }
}

fn nulls(cells: &[Cell<'_>]) -> Option<NullBuffer> {
    let valid: NullBuffer = cells.iter().map(|c| c.present().is_some()).collect();
    (valid.null_count() > 0).then_some(valid)
}

/// Each value as its JSON text.
fn json_text(cells: &[Cell<'_>]) -> Built {
    let mut builder = StringBuilder::with_capacity(cells.len(), cells.len() * 16);
    for cell in cells {
        builder.append_option(cell.present().map(Value::to_string));
    }
    (DataType::Utf8, Arc::new(builder.finish()))
}

/// A column of scalars, each read from its JSON value by `read` (`Err` names what it is not).
macro_rules! scalars {
    ($cells:expr, $builder:expr, $what:literal, $read:expr) => {{
        let mut builder = $builder;
        for cell in $cells {
            match cell.present() {
                None => builder.append_null(),
                Some(value) => match $read(value) {
                    Some(v) => builder.append_value(v),
                    None => {
                        return Err(format!(
                            "element {} is not {}: {}",
                            cell.position,
                            $what,
                            short(value)
                        ))
                    }
                },
            }
        }
        let array = builder.finish();
        Ok((array.data_type().clone(), Arc::new(array) as ArrayRef))
    }};
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn int<T: TryFrom<i64> + TryFrom<u64>>(value: &Value) -> Option<T> {
    match value.as_i64() {
        Some(v) => T::try_from(v).ok(),
        None => T::try_from(value.as_u64()?).ok(),
    }
}

/// A text cell read as a `T` (a date, a time, a date and time), `None` when it is not one.
fn parsed<T: std::str::FromStr>(cell: &Value) -> Option<T> {
    cell.as_str().and_then(|s| s.parse().ok())
}

fn nanos_of_day(time: NaiveTime) -> i64 {
    i64::from(time.num_seconds_from_midnight()) * 1_000_000_000 + i64::from(time.nanosecond())
}

fn scalar_column(scalar: Scalar, cells: &[Cell<'_>]) -> Result<Built, String> {
    let n = cells.len();
    match scalar {
        Scalar::String | Scalar::Char | Scalar::Uuid | Scalar::Url => scalars!(
            cells,
            StringBuilder::with_capacity(n, n * 16),
            "text",
            |v: &Value| v.as_str().map(str::to_owned)
        ),
        Scalar::Bool => scalars!(cells, BooleanBuilder::with_capacity(n), "a boolean", Value::as_bool),
        Scalar::Int(kind) => match kind {
            IntKind::I8 => scalars!(cells, Int8Builder::with_capacity(n), "an i8", int::<i8>),
            IntKind::I16 => scalars!(cells, Int16Builder::with_capacity(n), "an i16", int::<i16>),
            IntKind::I32 => scalars!(cells, Int32Builder::with_capacity(n), "an i32", int::<i32>),
            IntKind::I64 | IntKind::Isize => {
                scalars!(cells, Int64Builder::with_capacity(n), "an i64", int::<i64>)
            }
            IntKind::U8 => scalars!(cells, UInt8Builder::with_capacity(n), "a u8", int::<u8>),
            IntKind::U16 => scalars!(cells, UInt16Builder::with_capacity(n), "a u16", int::<u16>),
            IntKind::U32 => scalars!(cells, UInt32Builder::with_capacity(n), "a u32", int::<u32>),
            IntKind::U64 | IntKind::Usize => {
                scalars!(cells, UInt64Builder::with_capacity(n), "a u64", int::<u64>)
            }
            IntKind::I128 | IntKind::U128 => scalars!(
                cells,
                Decimal128Builder::with_capacity(n).with_data_type(DataType::Decimal128(38, 0)),
                "an integer of at most 38 digits",
                |v: &Value| int::<i128>(v).filter(|v| v.unsigned_abs() < 10u128.pow(38))
            ),
        },
        Scalar::Float(FloatKind::F32) => scalars!(
            cells,
            Float32Builder::with_capacity(n),
            "an f32",
            // An f32 result was an f32 before it became JSON: this gives it back exactly.
            |v: &Value| v.as_f64().map(|v| v as f32)
        ),
        Scalar::Float(_) => scalars!(cells, Float64Builder::with_capacity(n), "a number", Value::as_f64),
        Scalar::Unit => Ok((DataType::Null, new_null_array(&DataType::Null, n))),
        Scalar::Date => scalars!(
            cells,
            Date32Builder::with_capacity(n),
            "a date (yyyy-MM-dd)",
            |v: &Value| parsed::<NaiveDate>(v).map(|d| d.num_days_from_ce() - UNIX_EPOCH_DAY)
        ),
        Scalar::Time => scalars!(
            cells,
            Time64NanosecondBuilder::with_capacity(n),
            "a time of day",
            |v: &Value| parsed::<NaiveTime>(v).map(nanos_of_day)
        ),
        Scalar::DateTime => scalars!(
            cells,
            TimestampNanosecondBuilder::with_capacity(n),
            "a date and time within the years 1677 to 2262 (a timestamp in nanoseconds)",
            |v: &Value| parsed::<NaiveDateTime>(v).and_then(|d| d.and_utc().timestamp_nanos_opt())
        ),
        Scalar::DateTimeOffset => scalars!(
            cells,
            TimestampNanosecondBuilder::with_capacity(n).with_timezone("UTC"),
            "a date and time with an offset within the years 1677 to 2262 (a timestamp in nanoseconds)",
            |v: &Value| v
                .as_str()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
                .and_then(|d| d.timestamp_nanos_opt())
        ),
        Scalar::Decimal => decimals(cells),
        Scalar::Json | Scalar::JsonObject => Ok(json_text(cells)),
    }
}

/// A decimal's text (`-12.30`, `1e3` refused) as its unscaled digits and scale.
fn parse_decimal(text: &str) -> Option<(i128, u32)> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty()
        || !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let mut unscaled: i128 = 0;
    for b in whole.bytes().chain(fraction.bytes()) {
        unscaled = unscaled
            .checked_mul(10)?
            .checked_add(i128::from(b - b'0'))?;
    }
    let scale = u32::try_from(fraction.len()).ok()?;
    Some((if negative { -unscaled } else { unscaled }, scale))
}

/// Decimals at the largest scale among them, so that no digit is dropped.
fn decimals(cells: &[Cell<'_>]) -> Result<Built, String> {
    let mut parsed = Vec::with_capacity(cells.len());
    for cell in cells {
        parsed.push(match cell.present() {
            None => None,
            Some(value) => {
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    _ => String::new(),
                };
                Some(parse_decimal(&text).ok_or_else(|| {
                    format!(
                        "element {} is not a decimal: {}",
                        cell.position,
                        short(value)
                    )
                })?)
            }
        });
    }
    let scale = parsed.iter().flatten().map(|(_, s)| *s).max().unwrap_or(0);
    if scale > 38 {
        return Err(format!(
            "a decimal has {scale} digits after the point; a column holds at most 38"
        ));
    }
    let limit = 10i128.pow(38);
    let mut builder = Decimal128Builder::with_capacity(cells.len())
        .with_data_type(DataType::Decimal128(38, scale as i8));
    for (cell, value) in cells.iter().zip(parsed) {
        match value {
            None => builder.append_null(),
            Some((unscaled, s)) => {
                let rescaled = 10i128
                    .checked_pow(scale - s)
                    .and_then(|factor| unscaled.checked_mul(factor))
                    .filter(|v| v.unsigned_abs() < limit.unsigned_abs())
                    .ok_or_else(|| {
                        format!(
                            "element {}'s decimal does not fit 38 digits at a scale of {scale}",
                            cell.position
                        )
                    })?;
                builder.append_value(rescaled);
            }
        }
    }
    let array = builder.finish();
    Ok((array.data_type().clone(), Arc::new(array)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_text_reads_exactly_or_not_at_all() {
        assert_eq!(parse_decimal("12.30"), Some((1230, 2)));
        assert_eq!(parse_decimal("-0.005"), Some((-5, 3)));
        assert_eq!(parse_decimal("7"), Some((7, 0)));
        assert_eq!(parse_decimal("1e3"), None);
        assert_eq!(parse_decimal(".5"), None);
        assert_eq!(parse_decimal(""), None);
    }
}

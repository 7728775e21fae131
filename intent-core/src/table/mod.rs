//! Tables as inputs: an Arrow [`RecordBatch`] (or, with feature `polars`, a Polars `DataFrame`)
//! sent as the behaviour reference sends a .NET `DataTable`, and one of its rows as a `DataRow`.
//!
//! A [`Table`] is written as a JSON array of row objects, each with the column names as members,
//! and labelled `## Input (JSON array of row objects)`; a [`Row`] is one JSON object, labelled
//! `## Input (JSON object)`. Both are [`Serialize`], so they are inputs like any other
//! (`T::ai(&client, &table, intent)`), count toward `max_input_chars` like any other, and can sit
//! inside another input. The text is written straight from the columns into the JSON text, cell
//! by cell, with no JSON value built in between. Every column's type is checked once, when the
//! table is made: a type with no JSON form is refused then, naming the column and the type.
//!
//! | Arrow type | JSON |
//! |---|---|
//! | `Null`, and a null in any column | `null` (a null member is written, not left out) |
//! | `Boolean` | `true` / `false` |
//! | `Int8` … `Int64`, `UInt8` … `UInt64` | the number, exact (a `u64` is not rounded to a double) |
//! | `Float16`, `Float32`, `Float64` | the shortest number that reads back the same; `NaN` and infinities have no JSON form and are refused, naming the cell |
//! | `Decimal32` … `Decimal256` | the exact digits as a JSON number, with the column's scale (`12.30`) |
//! | `Utf8`, `LargeUtf8`, `Utf8View` | the text |
//! | `Date32`, `Date64` | `yyyy-MM-dd` (a `Date64` that is not a whole day keeps its time) |
//! | `Time32`, `Time64` | `HH:mm:ss` with the fraction it has, in groups of three digits (`09:15:30.250`) |
//! | `Timestamp` without a zone | ISO 8601 without an offset (`2026-10-11T14:05:06.789`) |
//! | `Timestamp` with a zone | ISO 8601 in that zone (`2026-10-11T16:05:06.789+02:00`; `Z` at offset zero) |
//! | `Duration` | ISO 8601 (`PT1.5S`) |
//! | `List`, `LargeList`, `FixedSizeList`, `ListView` | a JSON array |
//! | `Struct` | a JSON object, the fields as members |
//! | `Map` with text keys | a JSON object |
//! | `Dictionary` | the value its key points at |
//!
//! Refused, with the reason and what to do: binary columns (`Binary`, `LargeBinary`,
//! `BinaryView`, `FixedSizeBinary`), `Interval`, `Union`, `RunEndEncoded`, maps whose keys are
//! not text, structs with two fields of one name, a table with two columns of one name, and
//! timestamps whose zone is neither an offset nor an IANA zone name. Fractions of a second are
//! written in groups of three digits, as chrono writes them nested in any other input, so a date
//! inside a table reads as one inside a struct.
//!
//! Arrow's own JSON writer (`arrow-json`) writes every accepted type the same, value for value
//! and digit for digit (a test compares the two on every type), but in five ways, where this
//! follows the behaviour reference: it leaves null members out (here they are `null`), writes
//! `NaN` and infinities as `null` (here refused: a missing value and a failed computation are
//! not the same fact), writes binary as hex (here refused: the model cannot read it), writes a
//! `Date64` as a date and time at midnight (here a date, as a `Date32`), and writes a float's
//! exponent as `3.4e38` (here `3.4e+38`, as `serde_json` writes it: the same number).
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
//! use intent_core::table::Table;
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("sku", Arc::new(StringArray::from(vec!["A-1", "B-2"])) as ArrayRef),
//!     ("qty", Arc::new(Int64Array::from(vec![Some(3), None])) as ArrayRef),
//! ])
//! .unwrap();
//! let table = Table::from_arrow(&batch)?;
//! assert_eq!(
//!     serde_json::to_string(&table).unwrap(),
//!     r#"[{"sku":"A-1","qty":3},{"sku":"B-2","qty":null}]"#
//! );
//! assert_eq!(serde_json::to_string(&table.row(1)).unwrap(), r#"{"sku":"B-2","qty":null}"#);
//! # Ok::<(), intent_core::IntentError>(())
//! ```

mod column;
#[cfg(feature = "polars")]
mod frame;
mod stream;

use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::error::IntentError;
use column::{Column, Place, Refused};

pub use stream::stream_rows;

#[cfg(feature = "polars")]
pub(crate) use frame::to_series;

/// A table of rows, as an input: a JSON array of row objects, labelled
/// `JSON array of row objects`. Cheap to clone (the columns are shared, never copied).
///
/// Made with [`Table::from_arrow`] (or `Table::from_polars` with feature `polars`); see the
/// [module docs](self) for how each type is written.
#[derive(Clone)]
pub struct Table {
    inner: Arc<Inner>,
}

struct Inner {
    batch: RecordBatch,
    columns: Vec<Column>,
    /// The position of the first row in the rows a stream has read, for messages.
    first_row: usize,
    /// Why the table cannot be written, for a table made from a stream's batch: each of its rows
    /// fails to serialize with this reason (a table made by `from_arrow` is refused instead).
    refused: Option<String>,
}

impl Table {
    /// A table of `batch`'s rows and columns, sharing its arrays.
    ///
    /// # Errors
    ///
    /// [`IntentError::InputSerialization`] when a column (or a type nested in it) has no JSON
    /// form, naming the column, the type and what to do; or when two columns have one name.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{ArrayRef, BinaryArray, RecordBatch};
    /// use intent_core::table::Table;
    ///
    /// let batch = RecordBatch::try_from_iter([
    ///     ("photo", Arc::new(BinaryArray::from(vec![&b"\x89PNG"[..]])) as ArrayRef),
    /// ])
    /// .unwrap();
    /// let refused = Table::from_arrow(&batch).err().unwrap().to_string();
    /// assert!(refused.contains("column `photo` has the type Binary"), "{refused}");
    /// ```
    pub fn from_arrow(batch: &RecordBatch) -> Result<Table, IntentError> {
        let table = Table::checked(batch.clone(), 0);
        match &table.inner.refused {
            Some(reason) => Err(IntentError::InputSerialization(reason.clone())),
            None => Ok(table),
        }
    }

    /// A table of `batch`, whose rows fail to serialize with the reason when it cannot be
    /// written (for streams, where each row gets its own issue).
    pub(crate) fn checked(batch: RecordBatch, first_row: usize) -> Table {
        let schema = batch.schema();
        let mut columns = Vec::with_capacity(batch.num_columns());
        let mut refused = None;
        for (index, (field, array)) in schema.fields().iter().zip(batch.columns()).enumerate() {
            let name = field.name();
            if schema.fields()[..index].iter().any(|f| f.name() == name) {
                refused = Some(format!(
                    "two columns are named `{name}`, and a row object cannot hold both; rename one first"
                ));
                break;
            }
            match Column::new(array) {
                Ok(column) => columns.push(column),
                Err(Refused {
                    at,
                    data_type,
                    reason,
                }) => {
                    refused = Some(if at.is_empty() {
                        format!("column `{name}` has the type {data_type}, which has no JSON form: {reason}")
                    } else {
                        format!("column `{name}` holds the type {data_type} (at `{name}{at}`), which has no JSON form: {reason}")
                    });
                    break;
                }
            }
        }
        Table {
            inner: Arc::new(Inner {
                batch,
                columns,
                first_row,
                refused,
            }),
        }
    }

    /// The number of rows.
    pub fn num_rows(&self) -> usize {
        self.inner.batch.num_rows()
    }

    /// The column names, in order: the members of each row object.
    pub fn column_names(&self) -> impl Iterator<Item = &str> {
        self.inner
            .batch
            .schema_ref()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
    }

    /// The record batch the table reads (for a Polars frame, its columns converted to Arrow).
    pub fn record_batch(&self) -> &RecordBatch {
        &self.inner.batch
    }

    /// Row `index`, as an input of its own: one JSON object, labelled `JSON object`. A row past
    /// the last one is refused when it is serialized (the call fails before sending, naming the
    /// row and the table's length), never by a panic.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{ArrayRef, RecordBatch, StringArray};
    /// use intent_core::table::Table;
    ///
    /// let batch = RecordBatch::try_from_iter([
    ///     ("ticket", Arc::new(StringArray::from(vec!["The site is down."])) as ArrayRef),
    /// ])
    /// .unwrap();
    /// let table = Table::from_arrow(&batch)?;
    /// assert_eq!(serde_json::to_string(&table.row(0)).unwrap(), r#"{"ticket":"The site is down."}"#);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn row(&self, index: usize) -> Row {
        Row {
            table: self.clone(),
            index,
        }
    }

    /// Every row, in order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = Row> + '_ {
        (0..self.num_rows()).map(|index| self.row(index))
    }

    /// Every row, in order, owning the table.
    pub(crate) fn into_rows(self) -> impl ExactSizeIterator<Item = Row> + Send {
        (0..self.num_rows()).map(move |index| self.row(index))
    }

    /// Writes row `index` as a JSON object.
    fn serialize_row<S: Serializer>(&self, index: usize, serializer: S) -> Result<S::Ok, S::Error> {
        let inner = &*self.inner;
        if let Some(reason) = &inner.refused {
            return Err(serde::ser::Error::custom(reason));
        }
        if index >= inner.batch.num_rows() {
            return Err(serde::ser::Error::custom(format_args!(
                "row {index} was asked of a table of {} rows",
                inner.batch.num_rows()
            )));
        }
        let fields = inner.batch.schema_ref().fields();
        let mut map = serializer.serialize_map(Some(fields.len()))?;
        for (field, column) in fields.iter().zip(&inner.columns) {
            let place = Place {
                column: field.name(),
                row: inner.first_row + index,
            };
            map.serialize_entry(field.name(), &column.cell(index, &place))?;
        }
        map.end()
    }
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("columns", &self.column_names().collect::<Vec<_>>())
            .field("rows", &self.num_rows())
            .finish()
    }
}

impl Serialize for Table {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.num_rows()))?;
        for index in 0..self.num_rows() {
            seq.serialize_element(&RowRef { table: self, index })?;
        }
        seq.end()
    }
}

struct RowRef<'t> {
    table: &'t Table,
    index: usize,
}

impl Serialize for RowRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.table.serialize_row(self.index, serializer)
    }
}

/// One row of a [`Table`], as an input: a JSON object with the column names as members,
/// labelled `JSON object`. Holds its table (shared, not copied).
#[derive(Clone)]
pub struct Row {
    table: Table,
    index: usize,
}

impl Row {
    /// The row's index in its table.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The table the row belongs to.
    pub fn table(&self) -> &Table {
        &self.table
    }
}

impl fmt::Debug for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Row")
            .field("index", &self.index)
            .field("table", &self.table)
            .finish()
    }
}

impl Serialize for Row {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.table.serialize_row(self.index, serializer)
    }
}

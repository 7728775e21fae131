//! Polars data frames: read as Arrow arrays and written back as a `Series`, through Arrow's C
//! data interface (the arrays are handed over, not copied value by value).
//!
//! Polars keeps its own Arrow implementation (`polars-arrow`), whose C data interface structs
//! have the same `#[repr(C)]` layout as `arrow-rs`'s: the standard's, which both crates follow
//! field for field. Handing an exported array from one to the other is how the two are meant to
//! meet; no crate does it for these two versions, so it is done here, in two small `unsafe`
//! blocks whose safety rests on that layout.

use std::sync::Arc;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema};
use polars::prelude::{CompatLevel, DataFrame, PlSmallStr, Series};

use super::Table;
use crate::error::IntentError;

// The two crates' structs are the C standard's, so they have one size; checked at compile time.
const _: () = {
    assert!(
        std::mem::size_of::<polars_arrow::ffi::ArrowArray>()
            == std::mem::size_of::<FFI_ArrowArray>()
    );
    assert!(
        std::mem::size_of::<polars_arrow::ffi::ArrowSchema>()
            == std::mem::size_of::<FFI_ArrowSchema>()
    );
};

impl Table {
    /// A table of `frame`'s rows and columns, its columns converted to Arrow arrays (each
    /// column's chunks joined into one first). Written as [`from_arrow`](Self::from_arrow)'s
    /// tables are: Polars' `Date`, `Datetime`, `Time`, `Duration`, `Decimal`, `List`, `Array`,
    /// `Struct` and `Categorical` columns are the Arrow types of the same names.
    ///
    /// ```
    /// use intent_core::table::Table;
    /// use polars::prelude::*;
    ///
    /// let frame = df!("sku" => ["A-1", "B-2"], "qty" => [Some(3i64), None]).unwrap();
    /// let table = Table::from_polars(&frame)?;
    /// assert_eq!(
    ///     serde_json::to_string(&table).unwrap(),
    ///     r#"[{"sku":"A-1","qty":3},{"sku":"B-2","qty":null}]"#
    /// );
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`IntentError::InputSerialization`] for a column with no JSON form (Polars' `Object`
    /// and `Binary`, say), naming the column and the type, as [`from_arrow`](Self::from_arrow).
    pub fn from_polars(frame: &DataFrame) -> Result<Table, IntentError> {
        let mut fields = Vec::with_capacity(frame.width());
        let mut arrays = Vec::with_capacity(frame.width());
        for column in frame.columns() {
            let series = column.as_materialized_series();
            if series.dtype().is_object() {
                return Err(IntentError::InputSerialization(format!(
                    "column `{}` has the Polars type {}, which has no JSON form: it holds Rust values that only Polars can read; convert it to a column of text or numbers first",
                    series.name(),
                    series.dtype()
                )));
            }
            let series = series.rechunk();
            let field = series
                .dtype()
                .to_arrow_field(series.name().clone(), CompatLevel::newest());
            let array = series.to_arrow(0, CompatLevel::newest());
            let array = from_polars_array(&field, array).map_err(|e| {
                IntentError::InputSerialization(format!(
                    "column `{}` (Polars type {}) could not be read as Arrow: {e}",
                    series.name(),
                    series.dtype()
                ))
            })?;
            fields.push(Field::new(
                series.name().as_str(),
                array.data_type().clone(),
                true,
            ));
            arrays.push(array);
        }
        let batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new(fields)),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(frame.height())),
        )
        .map_err(|e| {
            IntentError::InputSerialization(format!("the frame's columns do not make a table: {e}"))
        })?;
        Table::from_arrow(&batch)
    }
}

/// A Polars array as an `arrow-rs` array, through the C data interface.
fn from_polars_array(
    field: &polars_arrow::datatypes::Field,
    array: Box<dyn polars_arrow::array::Array>,
) -> Result<ArrayRef, String> {
    let schema = polars_arrow::ffi::export_field_to_c(field);
    let exported = polars_arrow::ffi::export_array_to_c(array);
    // SAFETY: both structs are the C data interface's `ArrowSchema` and `ArrowArray`, with the
    // same `#[repr(C)]` fields in the same order (and the same size, checked above); moving the
    // value across hands its `release` callback to the new owner, which calls it once.
    let (schema, exported) = unsafe {
        (
            std::mem::transmute::<polars_arrow::ffi::ArrowSchema, FFI_ArrowSchema>(schema),
            std::mem::transmute::<polars_arrow::ffi::ArrowArray, FFI_ArrowArray>(exported),
        )
    };
    // SAFETY: `exported` and `schema` were just exported by Polars, valid and matching.
    let data = unsafe { from_ffi(exported, &schema) }.map_err(|e| e.to_string())?;
    Ok(make_array(data))
}

/// An `arrow-rs` array as a Polars series named `name`, through the C data interface.
pub(crate) fn to_series(name: &str, array: &ArrayRef) -> Result<Series, IntentError> {
    let failed = |e: &dyn std::fmt::Display| {
        IntentError::Column(format!(
            "Polars cannot hold a column of {}: {e}",
            array.data_type()
        ))
    };
    let (exported, schema) = to_ffi(&array.to_data()).map_err(|e| failed(&e))?;
    // SAFETY: as in `from_polars_array`, the other way round.
    let (exported, schema) = unsafe {
        (
            std::mem::transmute::<FFI_ArrowArray, polars_arrow::ffi::ArrowArray>(exported),
            std::mem::transmute::<FFI_ArrowSchema, polars_arrow::ffi::ArrowSchema>(schema),
        )
    };
    // SAFETY: `schema` and `exported` were just exported by arrow-rs, valid and matching.
    let field =
        unsafe { polars_arrow::ffi::import_field_from_c(&schema) }.map_err(|e| failed(&e))?;
    let imported = unsafe { polars_arrow::ffi::import_array_from_c(exported, field.dtype) }
        .map_err(|e| failed(&e))?;
    Series::from_arrow(PlSmallStr::from(name), imported).map_err(|e| failed(&e))
}

//! One Arrow column as the model reads it: checked once, when the table is made, then written
//! cell by cell straight into the JSON text through `serde`, with no JSON value in between.
//!
//! Arrow's own JSON writer (`arrow-json`) is not used: it writes into a byte buffer of its own
//! rather than through a `Serializer` (so a table could not sit inside another input, nor be
//! measured by the probe), omits null members, writes `NaN` as `null` and binary as hex. Here
//! the forms are the behaviour reference's: see the table in the [module docs](super).

use std::fmt;
use std::str::FromStr;

use arrow_array::cast::AsArray;
use arrow_array::timezone::Tz;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type,
    DurationMicrosecondType, DurationMillisecondType, DurationNanosecondType, DurationSecondType,
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BooleanArray, LargeStringArray, OffsetSizeTrait,
    StringArray, StringViewArray,
};
use arrow_buffer::{i256, NullBuffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeDelta, TimeZone, Utc};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// A column ready to write: its nulls and its values, downcast once.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    nulls: Option<NullBuffer>,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    Null,
    Bool(BooleanArray),
    I8(ScalarBuffer<i8>),
    I16(ScalarBuffer<i16>),
    I32(ScalarBuffer<i32>),
    I64(ScalarBuffer<i64>),
    U8(ScalarBuffer<u8>),
    U16(ScalarBuffer<u16>),
    U32(ScalarBuffer<u32>),
    U64(ScalarBuffer<u64>),
    F16(ScalarBuffer<<Float16Type as ArrowPrimitiveType>::Native>),
    F32(ScalarBuffer<f32>),
    F64(ScalarBuffer<f64>),
    Decimal(Decimals, i8),
    Utf8(StringArray),
    LargeUtf8(LargeStringArray),
    Utf8View(StringViewArray),
    /// Days since 1970-01-01.
    Date32(ScalarBuffer<i32>),
    /// Milliseconds since 1970-01-01T00:00:00.
    Date64(ScalarBuffer<i64>),
    Time32(ScalarBuffer<i32>, TimeUnit),
    Time64(ScalarBuffer<i64>, TimeUnit),
    Timestamp(ScalarBuffer<i64>, TimeUnit, Option<Tz>),
    Duration(ScalarBuffer<i64>, TimeUnit),
    /// Element `i` is `values[offsets[i]..offsets[i + 1]]`.
    List(Offsets, Box<Column>),
    /// Element `i` is `values[offsets[i]..offsets[i] + sizes[i]]`.
    ListView(Offsets, Offsets, Box<Column>),
    FixedSizeList(usize, Box<Column>),
    Struct(Vec<(String, Column)>),
    /// Entry `j` of a map is the key `keys[j]` and the value `values[j]`.
    Map(Offsets, Box<Column>, Box<Column>),
    /// Row `i` is `values[keys[i]]`.
    Dictionary(Vec<usize>, Box<Column>),
}

#[derive(Debug, Clone)]
enum Decimals {
    D32(ScalarBuffer<i32>),
    D64(ScalarBuffer<i64>),
    D128(ScalarBuffer<i128>),
    D256(ScalarBuffer<i256>),
}

/// A list column (`List`, `LargeList`) whose offsets are `O`; its elements are read at `{at}[]`.
fn list<O: Width>(array: &dyn Array, at: &str) -> Result<Kind, Refused> {
    let list = array.as_list::<O>();
    Ok(Kind::List(
        O::offsets(list.offsets().inner()),
        Box::new(Column::of(list.values().as_ref(), format!("{at}[]"))?),
    ))
}

/// A list-view column (`ListView`, `LargeListView`) whose offsets and sizes are `O`; its
/// elements are read at `{at}[]`.
fn list_view<O: Width>(array: &dyn Array, at: &str) -> Result<Kind, Refused> {
    let list = array.as_list_view::<O>();
    Ok(Kind::ListView(
        O::offsets(list.offsets()),
        O::offsets(list.sizes()),
        Box::new(Column::of(list.values().as_ref(), format!("{at}[]"))?),
    ))
}

/// List offsets of either width.
#[derive(Debug, Clone)]
enum Offsets {
    Small(ScalarBuffer<i32>),
    Large(ScalarBuffer<i64>),
}

/// An offset width of Arrow's lists (`i32`, `i64` for the large ones).
trait Width: OffsetSizeTrait {
    /// Offsets (or sizes) of this width.
    fn offsets(buffer: &ScalarBuffer<Self>) -> Offsets;
}

impl Width for i32 {
    fn offsets(buffer: &ScalarBuffer<i32>) -> Offsets {
        Offsets::Small(buffer.clone())
    }
}

impl Width for i64 {
    fn offsets(buffer: &ScalarBuffer<i64>) -> Offsets {
        Offsets::Large(buffer.clone())
    }
}

impl Offsets {
    fn get(&self, i: usize) -> usize {
        // Arrow's offsets are never negative in a valid array.
        match self {
            Offsets::Small(o) => usize::try_from(o[i]).unwrap_or(0),
            Offsets::Large(o) => usize::try_from(o[i]).unwrap_or(0),
        }
    }
}

/// Why a column cannot be written: its type has no JSON form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    /// The path of the refused part below the column: empty for the column itself,
    /// `.field` for a struct's member, `[]` for a list's items.
    pub(crate) at: String,
    pub(crate) data_type: String,
    pub(crate) reason: &'static str,
}

impl Column {
    /// Checks `array`'s type, and every nested type, and downcasts it once.
    pub(crate) fn new(array: &ArrayRef) -> Result<Column, Refused> {
        Column::of(array.as_ref(), String::new())
    }

    fn of(array: &dyn Array, at: String) -> Result<Column, Refused> {
        let refuse = |reason| {
            Err(Refused {
                at: at.clone(),
                data_type: array.data_type().to_string(),
                reason,
            })
        };
        let kind = match array.data_type() {
            DataType::Null => Kind::Null,
            DataType::Boolean => Kind::Bool(array.as_boolean().clone()),
            DataType::Int8 => Kind::I8(array.as_primitive::<Int8Type>().values().clone()),
            DataType::Int16 => Kind::I16(array.as_primitive::<Int16Type>().values().clone()),
            DataType::Int32 => Kind::I32(array.as_primitive::<Int32Type>().values().clone()),
            DataType::Int64 => Kind::I64(array.as_primitive::<Int64Type>().values().clone()),
            DataType::UInt8 => Kind::U8(array.as_primitive::<UInt8Type>().values().clone()),
            DataType::UInt16 => Kind::U16(array.as_primitive::<UInt16Type>().values().clone()),
            DataType::UInt32 => Kind::U32(array.as_primitive::<UInt32Type>().values().clone()),
            DataType::UInt64 => Kind::U64(array.as_primitive::<UInt64Type>().values().clone()),
            DataType::Float16 => Kind::F16(array.as_primitive::<Float16Type>().values().clone()),
            DataType::Float32 => Kind::F32(array.as_primitive::<Float32Type>().values().clone()),
            DataType::Float64 => Kind::F64(array.as_primitive::<Float64Type>().values().clone()),
            DataType::Decimal32(_, scale) => Kind::Decimal(
                Decimals::D32(array.as_primitive::<Decimal32Type>().values().clone()),
                *scale,
            ),
            DataType::Decimal64(_, scale) => Kind::Decimal(
                Decimals::D64(array.as_primitive::<Decimal64Type>().values().clone()),
                *scale,
            ),
            DataType::Decimal128(_, scale) => Kind::Decimal(
                Decimals::D128(array.as_primitive::<Decimal128Type>().values().clone()),
                *scale,
            ),
            DataType::Decimal256(_, scale) => Kind::Decimal(
                Decimals::D256(array.as_primitive::<Decimal256Type>().values().clone()),
                *scale,
            ),
            DataType::Utf8 => Kind::Utf8(array.as_string::<i32>().clone()),
            DataType::LargeUtf8 => Kind::LargeUtf8(array.as_string::<i64>().clone()),
            DataType::Utf8View => Kind::Utf8View(array.as_string_view().clone()),
            DataType::Date32 => Kind::Date32(array.as_primitive::<Date32Type>().values().clone()),
            DataType::Date64 => Kind::Date64(array.as_primitive::<Date64Type>().values().clone()),
            DataType::Time32(unit) => Kind::Time32(
                match unit {
                    TimeUnit::Second => array.as_primitive::<Time32SecondType>().values().clone(),
                    TimeUnit::Millisecond => {
                        array.as_primitive::<Time32MillisecondType>().values().clone()
                    }
                    _ => return refuse("Arrow defines Time32 in seconds and milliseconds only"),
                },
                *unit,
            ),
            DataType::Time64(unit) => Kind::Time64(
                match unit {
                    TimeUnit::Microsecond => {
                        array.as_primitive::<Time64MicrosecondType>().values().clone()
                    }
                    TimeUnit::Nanosecond => {
                        array.as_primitive::<Time64NanosecondType>().values().clone()
                    }
                    _ => {
                        return refuse("Arrow defines Time64 in microseconds and nanoseconds only")
                    }
                },
                *unit,
            ),
            DataType::Timestamp(unit, zone) => {
                let values = match unit {
                    TimeUnit::Second => array.as_primitive::<TimestampSecondType>().values(),
                    TimeUnit::Millisecond => {
                        array.as_primitive::<TimestampMillisecondType>().values()
                    }
                    TimeUnit::Microsecond => {
                        array.as_primitive::<TimestampMicrosecondType>().values()
                    }
                    TimeUnit::Nanosecond => {
                        array.as_primitive::<TimestampNanosecondType>().values()
                    }
                };
                let zone = match zone {
                    None => None,
                    Some(name) => match Tz::from_str(name) {
                        Ok(tz) => Some(tz),
                        Err(_) => return refuse("its time zone is neither an offset (+02:00) nor a zone of the IANA database"),
                    },
                };
                Kind::Timestamp(values.clone(), *unit, zone)
            }
            DataType::Duration(unit) => Kind::Duration(
                match unit {
                    TimeUnit::Second => array.as_primitive::<DurationSecondType>().values(),
                    TimeUnit::Millisecond => {
                        array.as_primitive::<DurationMillisecondType>().values()
                    }
                    TimeUnit::Microsecond => {
                        array.as_primitive::<DurationMicrosecondType>().values()
                    }
                    TimeUnit::Nanosecond => array.as_primitive::<DurationNanosecondType>().values(),
                }
                .clone(),
                *unit,
            ),
            DataType::List(_) => list::<i32>(array, &at)?,
            DataType::LargeList(_) => list::<i64>(array, &at)?,
            DataType::ListView(_) => list_view::<i32>(array, &at)?,
            DataType::LargeListView(_) => list_view::<i64>(array, &at)?,
            DataType::FixedSizeList(_, size) => {
                let list = array.as_fixed_size_list();
                Kind::FixedSizeList(
                    usize::try_from(*size).unwrap_or(0),
                    Box::new(Column::of(list.values().as_ref(), format!("{at}[]"))?),
                )
            }
            DataType::Struct(fields) => {
                let columns = array.as_struct().columns();
                let mut members = Vec::with_capacity(fields.len());
                for (field, column) in fields.iter().zip(columns) {
                    let name = field.name();
                    if members.iter().any(|(seen, _): &(String, Column)| seen == name) {
                        return refuse("two of its members have the same name, which a JSON object cannot hold");
                    }
                    let member = Column::of(column.as_ref(), format!("{at}.{name}"))?;
                    members.push((name.clone(), member));
                }
                Kind::Struct(members)
            }
            DataType::Map(_, _) => {
                let map = array.as_map();
                if !matches!(
                    map.keys().data_type(),
                    DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
                ) {
                    return refuse("a JSON object's keys are text, and this map's keys are not");
                }
                Kind::Map(
                    i32::offsets(map.offsets().inner()),
                    Box::new(Column::of(map.keys().as_ref(), format!("{at}{{key}}"))?),
                    Box::new(Column::of(map.values().as_ref(), format!("{at}{{value}}"))?),
                )
            }
            DataType::Dictionary(_, _) => {
                let dictionary = array.as_any_dictionary();
                Kind::Dictionary(
                    dictionary.normalized_keys(),
                    Box::new(Column::of(dictionary.values().as_ref(), at.clone())?),
                )
            }
            DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_) => {
                return refuse("bytes have no JSON form; decode them into text first, or leave the column out")
            }
            DataType::Interval(_) => {
                return refuse("calendar intervals have no JSON form here; cast them to a duration or to text first")
            }
            DataType::Union(_, _) => {
                return refuse("unions have no JSON form here; split the column by type first")
            }
            DataType::RunEndEncoded(_, _) => {
                return refuse("run-end encoded columns are not read here; cast the column to its value type first")
            }
        };
        Ok(Column {
            nulls: array.logical_nulls(),
            kind,
        })
    }

    fn is_null(&self, i: usize) -> bool {
        matches!(self.kind, Kind::Null) || self.nulls.as_ref().is_some_and(|n| n.is_null(i))
    }

    /// Cell `i`, ready to serialize; `name` and `row` name it in errors.
    pub(crate) fn cell<'c>(&'c self, i: usize, place: &'c Place<'c>) -> Cell<'c> {
        Cell {
            column: self,
            i,
            place,
        }
    }
}

/// Where a cell is, for the message of a value that cannot be written.
#[derive(Debug)]
pub(crate) struct Place<'p> {
    pub(crate) column: &'p str,
    pub(crate) row: usize,
}

/// One cell of a column, as JSON.
pub(crate) struct Cell<'c> {
    column: &'c Column,
    i: usize,
    place: &'c Place<'c>,
}

impl Cell<'_> {
    fn at<'s>(&'s self, column: &'s Column, i: usize) -> Cell<'s> {
        Cell {
            column,
            i,
            place: self.place,
        }
    }

    fn error<E: serde::ser::Error>(&self, what: fmt::Arguments<'_>) -> E {
        E::custom(format_args!(
            "column `{}`, row {}: {what}",
            self.place.column, self.place.row
        ))
    }

    fn float<S: Serializer>(&self, v: f64, serializer: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            serializer.serialize_f64(v)
        } else {
            Err(self.error(format_args!(
                "{v} has no JSON form (JSON numbers are finite); replace it with null or a number first"
            )))
        }
    }

    fn list<S: Serializer>(
        &self,
        values: &Column,
        range: std::ops::Range<usize>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(range.len()))?;
        for j in range {
            seq.serialize_element(&self.at(values, j))?;
        }
        seq.end()
    }

    fn out_of_range<E: serde::ser::Error>(&self, what: &str) -> E {
        self.error(format_args!(
            "the {what} is outside the range of dates this program can write"
        ))
    }
}

/// Splits a count of `unit`s into whole seconds and nanoseconds (0 to 999 999 999).
fn split(v: i64, unit: TimeUnit) -> (i64, u32) {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let nanos = v.rem_euclid(per_second) * (1_000_000_000 / per_second);
    (v.div_euclid(per_second), u32::try_from(nanos).unwrap_or(0))
}

fn date_time(v: i64, unit: TimeUnit) -> Option<NaiveDateTime> {
    let (secs, nanos) = split(v, unit);
    DateTime::from_timestamp(secs, nanos).map(|d| d.naive_utc())
}

/// Days from 0001-01-01 (chrono's day 1) to 1970-01-01.
const UNIX_EPOCH_DAY: i32 = 719_163;

impl Serialize for Cell<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let i = self.i;
        if self.column.is_null(i) {
            return serializer.serialize_unit();
        }
        match &self.column.kind {
            Kind::Null => serializer.serialize_unit(),
            Kind::Bool(a) => serializer.serialize_bool(a.value(i)),
            Kind::I8(v) => serializer.serialize_i8(v[i]),
            Kind::I16(v) => serializer.serialize_i16(v[i]),
            Kind::I32(v) => serializer.serialize_i32(v[i]),
            Kind::I64(v) => serializer.serialize_i64(v[i]),
            Kind::U8(v) => serializer.serialize_u8(v[i]),
            Kind::U16(v) => serializer.serialize_u16(v[i]),
            Kind::U32(v) => serializer.serialize_u32(v[i]),
            Kind::U64(v) => serializer.serialize_u64(v[i]),
            Kind::F16(v) => {
                let v = v[i].to_f32();
                if v.is_finite() {
                    serializer.serialize_f32(v)
                } else {
                    self.float(f64::from(v), serializer)
                }
            }
            Kind::F32(v) => {
                if v[i].is_finite() {
                    serializer.serialize_f32(v[i])
                } else {
                    self.float(f64::from(v[i]), serializer)
                }
            }
            Kind::F64(v) => self.float(v[i], serializer),
            Kind::Decimal(values, scale) => {
                let mut text = DecimalText::new();
                match values {
                    Decimals::D32(v) => text.write(v[i], *scale),
                    Decimals::D64(v) => text.write(v[i], *scale),
                    Decimals::D128(v) => text.write(v[i], *scale),
                    Decimals::D256(v) => text.write(v[i], *scale),
                }
                .map_err(|()| self.error(format_args!("the decimal is too long to write")))?;
                // The exact digits, as a JSON number: a borrowed raw value, checked as JSON.
                let raw: &serde_json::value::RawValue = serde_json::from_str(text.as_str())
                    .map_err(|e| self.error(format_args!("the decimal is not a number: {e}")))?;
                raw.serialize(serializer)
            }
            Kind::Utf8(a) => serializer.serialize_str(a.value(i)),
            Kind::LargeUtf8(a) => serializer.serialize_str(a.value(i)),
            Kind::Utf8View(a) => serializer.serialize_str(a.value(i)),
            Kind::Date32(v) => {
                let date = v[i]
                    .checked_add(UNIX_EPOCH_DAY)
                    .and_then(NaiveDate::from_num_days_from_ce_opt)
                    .ok_or_else(|| self.out_of_range("date"))?;
                serializer.collect_str(&date)
            }
            Kind::Date64(v) => {
                let at = date_time(v[i], TimeUnit::Millisecond)
                    .ok_or_else(|| self.out_of_range("date"))?;
                if at.time() == NaiveTime::MIN {
                    serializer.collect_str(&at.date())
                } else {
                    // Arrow's Date64 should hold whole days; one that does not keeps its time.
                    serializer.collect_str(&format_args!("{at:?}"))
                }
            }
            Kind::Time32(v, unit) => time(self, i64::from(v[i]), *unit, serializer),
            Kind::Time64(v, unit) => time(self, v[i], *unit, serializer),
            Kind::Timestamp(v, unit, zone) => {
                let at = date_time(v[i], *unit).ok_or_else(|| self.out_of_range("timestamp"))?;
                match zone {
                    None => serializer.collect_str(&format_args!("{at:?}")),
                    Some(zone) => {
                        let local = Utc.from_utc_datetime(&at).with_timezone(zone);
                        if local.offset().fix().local_minus_utc() == 0 {
                            serializer.collect_str(&local.format("%Y-%m-%dT%H:%M:%S%.fZ"))
                        } else {
                            serializer.collect_str(&local.format("%Y-%m-%dT%H:%M:%S%.f%:z"))
                        }
                    }
                }
            }
            Kind::Duration(v, unit) => {
                let (secs, nanos) = split(v[i], *unit);
                let delta = TimeDelta::new(secs, nanos)
                    .ok_or_else(|| self.error(format_args!("the duration is too long to write")))?;
                // chrono writes a duration in ISO 8601: `PT1.5S`, `-P1DT3S`.
                serializer.collect_str(&delta)
            }
            Kind::List(offsets, values) => {
                self.list(values, offsets.get(i)..offsets.get(i + 1), serializer)
            }
            Kind::ListView(offsets, sizes, values) => {
                let start = offsets.get(i);
                self.list(values, start..start + sizes.get(i), serializer)
            }
            Kind::FixedSizeList(size, values) => {
                self.list(values, i * size..(i + 1) * size, serializer)
            }
            Kind::Struct(members) => {
                let mut map = serializer.serialize_map(Some(members.len()))?;
                for (name, member) in members {
                    map.serialize_entry(name, &self.at(member, i))?;
                }
                map.end()
            }
            Kind::Map(offsets, keys, values) => {
                let (start, end) = (offsets.get(i), offsets.get(i + 1));
                let mut map = serializer.serialize_map(Some(end - start))?;
                for j in start..end {
                    map.serialize_entry(&self.at(keys, j), &self.at(values, j))?;
                }
                map.end()
            }
            Kind::Dictionary(keys, values) => self.at(values, keys[i]).serialize(serializer),
        }
    }
}

fn time<S: Serializer>(
    cell: &Cell<'_>,
    v: i64,
    unit: TimeUnit,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let (secs, nanos) = split(v, unit);
    let time = u32::try_from(secs)
        .ok()
        .and_then(|secs| NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos))
        .ok_or_else(|| cell.error(format_args!("{v} is not a time of day")))?;
    serializer.collect_str(&time)
}

/// A decimal's exact digits, written into a buffer on the stack (a 256-bit decimal has at most
/// 77 digits, a sign, a point and as many zeros as a scale of -76 calls for).
struct DecimalText {
    buf: [u8; 160],
    len: usize,
}

impl DecimalText {
    fn new() -> Self {
        DecimalText {
            buf: [0; 160],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII digits, `-` and `.` are written.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let end = self.len + bytes.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(())?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    /// `unscaled × 10^-scale`, with exactly `scale` digits after the point (none for a scale of
    /// 0 or less, where `-scale` zeros follow the digits).
    fn write(&mut self, unscaled: impl fmt::Display, scale: i8) -> Result<(), ()> {
        let mut digits = DecimalText::new();
        {
            use std::io::Write;
            let mut slot: &mut [u8] = &mut digits.buf;
            let before = slot.len();
            write!(slot, "{unscaled}").map_err(|_| ())?;
            digits.len = before - slot.len();
        }
        let text = digits.as_str();
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if negative {
            self.push(b"-")?;
        }
        if scale <= 0 {
            self.push(digits.as_bytes())?;
            if digits != "0" {
                for _ in 0..scale.unsigned_abs() {
                    self.push(b"0")?;
                }
            }
            return Ok(());
        }
        let scale = usize::from(scale.unsigned_abs());
        if digits.len() <= scale {
            self.push(b"0.")?;
            for _ in digits.len()..scale {
                self.push(b"0")?;
            }
            self.push(digits.as_bytes())
        } else {
            let (whole, fraction) = digits.split_at(digits.len() - scale);
            self.push(whole.as_bytes())?;
            self.push(b".")?;
            self.push(fraction.as_bytes())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decimal(unscaled: i128, scale: i8) -> String {
        let mut text = DecimalText::new();
        text.write(unscaled, scale).unwrap();
        text.as_str().to_owned()
    }

    #[test]
    fn decimals_keep_every_digit_and_their_scale() {
        assert_eq!(decimal(12345, 2), "123.45");
        assert_eq!(decimal(-12345, 2), "-123.45");
        assert_eq!(decimal(1230, 2), "12.30");
        assert_eq!(decimal(5, 3), "0.005");
        assert_eq!(decimal(-5, 3), "-0.005");
        assert_eq!(decimal(0, 2), "0.00");
        assert_eq!(decimal(123, 0), "123");
        assert_eq!(decimal(123, -2), "12300");
        assert_eq!(decimal(0, -2), "0");
        assert_eq!(
            decimal(i128::MAX, 38),
            "1.70141183460469231731687303715884105727"
        );
        let mut text = DecimalText::new();
        text.write(i256::MIN, 76).unwrap();
        assert!(text.as_str().starts_with(
            "-5.789604461865809771178549250434395392663499233282028201972879200395656481996"
        ));
    }

    #[test]
    fn units_split_into_seconds_and_nanoseconds_below_zero_too() {
        assert_eq!(split(1_500, TimeUnit::Millisecond), (1, 500_000_000));
        assert_eq!(split(-1, TimeUnit::Nanosecond), (-1, 999_999_999));
        assert_eq!(split(7, TimeUnit::Second), (7, 0));
    }
}

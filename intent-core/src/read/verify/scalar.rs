//! Checking, and where it is safe normalizing, one scalar of a reply.
//!
//! Numbers written as strings (`"12"`) are read as numbers, and an integer written with a zero
//! fraction (`12.0`) as an integer; a fraction for an integer, a value outside the Rust type's range,
//! and a string where a number has no numeric reading are refused. A `NaiveDateTime` written with a
//! UTC designator (`Z`, `+00:00`) is read without it; any other offset is refused, since dropping it
//! would change the moment.

use std::fmt::Display;

use serde_json::{Number, Value};

use crate::shape::{FloatKind, IntKind, Scalar, TextForm};

use super::rules::num;
use crate::read::parse::number;
use crate::read::text::clip;

/// The largest magnitude below which every whole `f64` is exactly the integer it was written as.
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

/// Checks `value` against `scalar`, normalizing it in place; `Err` holds the message.
/// `label` is the type's name in descriptions (`uint`, `DateOnly (yyyy-MM-dd)`). How a string is
/// read is the shape table's [`TextForm`]. `lossy` holds the doubles (bits, sorted) that numbers of
/// the reply read as by losing their fraction: no integer is read from them.
pub(crate) fn check(
    scalar: Scalar,
    label: &dyn Display,
    value: &mut Value,
    lossy: &[u64],
) -> Result<(), String> {
    if let Value::String(text) = value {
        match scalar.text_form() {
            TextForm::Text => return temporal(scalar, label, value),
            TextForm::Char => {
                let count = text.chars().count();
                return if count == 1 {
                    Ok(())
                } else {
                    Err(format!(
                        "Must be exactly one character; got {count} characters."
                    ))
                };
            }
            TextForm::Number => match number::in_text(text) {
                Some(number) => *value = number,
                None => return Err(mismatch(&expected(scalar, label), value)),
            },
            TextForm::NumericText => {
                return match number::in_text(text) {
                    Some(_) => Ok(()),
                    None => Err(mismatch(&expected(scalar, label), value)),
                }
            }
            TextForm::VariantName | TextForm::Refused => {
                return Err(mismatch(&expected(scalar, label), value))
            }
        }
    }
    let fits = match (scalar, &*value) {
        (Scalar::Int(kind), _) => return int(kind, label, value, lossy),
        (Scalar::Float(kind), _) => return float(kind, label, value),
        (Scalar::Bool, Value::Bool(_))
        | (Scalar::Decimal, Value::Number(_))
        | (Scalar::Unit, Value::Null)
        | (Scalar::Json, _)
        | (Scalar::JsonObject, Value::Object(_)) => true,
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(mismatch(&expected(scalar, label), value))
    }
}

/// What the scalar must be, in words: `a string`, `true or false`, `a number (double)`.
fn expected(scalar: Scalar, label: &dyn Display) -> String {
    match scalar {
        Scalar::String if label.to_string() == "string" => "a string".to_owned(),
        Scalar::Char => "exactly one character in a string".to_owned(),
        Scalar::Bool => "true or false".to_owned(),
        Scalar::Int(kind) => whole(kind, label),
        Scalar::Float(_) | Scalar::Decimal => format!("a number ({label})"),
        Scalar::Unit => "null".to_owned(),
        Scalar::JsonObject => "a JSON object".to_owned(),
        _ => format!("a string ({label})"),
    }
}

fn whole(kind: IntKind, label: &dyn Display) -> String {
    format!(
        "a whole number from {} to {} ({label})",
        kind.min(),
        kind.max()
    )
}

/// "Must be {expected}; got {what}."
pub(crate) fn mismatch(expected: &str, got: &Value) -> String {
    format!("Must be {expected}; got {}.", describe(got))
}

/// A value in words: `the string "abc"`, `the number 2.5`, `an object`.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", Value::from(clip(s))),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// An integer in the kind's range, normalized to a JSON integer; a whole number written with a
/// fraction or exponent (`40.0`, `4e1`) is read as the integer, exactly or not at all.
fn int(kind: IntKind, label: &dyn Display, value: &mut Value, lossy: &[u64]) -> Result<(), String> {
    let Value::Number(number) = &*value else {
        return Err(mismatch(&whole(kind, label), value));
    };
    let in_range = |v: i128| v >= kind.min() && v <= kind.max();
    let normalized = if let Some(u) = number.as_u64() {
        if !in_range(i128::from(u)) {
            return Err(format!("Must be {}; got {u}.", whole(kind, label)));
        }
        Number::from(u)
    } else if let Some(i) = number.as_i64() {
        if !in_range(i128::from(i)) {
            return Err(format!("Must be {}; got {i}.", whole(kind, label)));
        }
        Number::from(i)
    } else {
        let f = number.as_f64().unwrap_or(f64::NAN);
        if lossy.binary_search(&f.to_bits()).is_ok() {
            return Err(format!(
                "Must be {}, without a fraction; got a number with more digits than a double holds, which would read as {}.",
                whole(kind, label),
                num(f)
            ));
        }
        if f.fract() != 0.0 {
            return Err(format!(
                "Must be {}, without a fraction; got {}.",
                whole(kind, label),
                num(f)
            ));
        }
        // Beyond 2^53 a double no longer holds every whole number: the one written may not be
        // the one read.
        if f < kind.min() as f64 || f > kind.max() as f64 {
            return Err(format!("Must be {}; got {}.", whole(kind, label), num(f)));
        }
        if f.abs() >= EXACT_F64 {
            return Err(format!(
                "Must be {}; got {}, which cannot be read exactly: write the whole number in range, without a fraction or exponent.",
                whole(kind, label),
                num(f)
            ));
        }
        if f >= 0.0 {
            Number::from(f as u64)
        } else {
            Number::from(f as i64)
        }
    };
    *value = Value::Number(normalized);
    Ok(())
}

fn float(kind: FloatKind, label: &dyn Display, value: &mut Value) -> Result<(), String> {
    let f = match value {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        other => return Err(mismatch(&format!("a number ({label})"), other)),
    };
    if kind == FloatKind::F32 && f.abs() > f64::from(f32::MAX) {
        return Err(format!(
            "Must be a number within ±3.4e38 ({label}); got {}.",
            num(f)
        ));
    }
    Ok(())
}

/// A string for a text scalar: any string for text, UUIDs and URLs (their own readers check
/// their form), an ISO 8601 form for dates and times.
#[cfg(feature = "chrono")]
fn temporal(scalar: Scalar, label: &dyn Display, value: &mut Value) -> Result<(), String> {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};
    let Value::String(text) = value else {
        return Ok(());
    };
    if !matches!(
        scalar,
        Scalar::Date | Scalar::Time | Scalar::DateTime | Scalar::DateTimeOffset
    ) {
        return Ok(());
    }
    let s = text.trim();
    let refused = |hint: &str| format!("Must be {hint}; got {}.", Value::from(clip(s)));
    let ok = match scalar {
        Scalar::Date => s.parse::<NaiveDate>().is_ok(),
        Scalar::Time => s.parse::<NaiveTime>().is_ok(),
        Scalar::DateTime => {
            if s.parse::<NaiveDateTime>().is_ok() {
                true
            } else if let Some(local) = strip_utc(s).filter(|l| l.parse::<NaiveDateTime>().is_ok())
            {
                let local = local.to_owned();
                *text = local;
                return Ok(());
            } else if s.parse::<DateTime<FixedOffset>>().is_ok() {
                return Err(refused(
                    "a date and time without an offset, such as 2026-11-15T09:30:00 (the offset given would change the moment)",
                ));
            } else {
                false
            }
        }
        Scalar::DateTimeOffset => {
            if s.parse::<DateTime<FixedOffset>>().is_ok() {
                true
            } else if s.parse::<NaiveDateTime>().is_ok() {
                return Err(refused(
                    "a date and time with its offset, such as 2026-11-15T09:30:00Z or 2026-11-15T09:30:00+02:00",
                ));
            } else {
                false
            }
        }
        _ => true,
    };
    if ok {
        if s.len() != text.len() {
            let trimmed = s.to_owned();
            *text = trimmed;
        }
        return Ok(());
    }
    Err(refused(&match scalar {
        Scalar::Date => "a date written yyyy-MM-dd, such as 2026-11-15".to_owned(),
        Scalar::Time => "a time written HH:mm:ss, such as 09:30:00".to_owned(),
        Scalar::DateTime => "a date and time in ISO 8601, such as 2026-11-15T09:30:00".to_owned(),
        _ => format!("a {label}"),
    }))
}

#[cfg(feature = "chrono")]
fn strip_utc(s: &str) -> Option<&str> {
    s.strip_suffix(['Z', 'z'])
        .or_else(|| s.strip_suffix("+00:00"))
        .or_else(|| s.strip_suffix("-00:00"))
}

/// Without `chrono` no shape holds a date or time: every text is a text.
#[cfg(not(feature = "chrono"))]
fn temporal(_: Scalar, _: &dyn Display, _: &mut Value) -> Result<(), String> {
    Ok(())
}

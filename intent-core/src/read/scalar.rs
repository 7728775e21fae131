//! Checking, and where it is safe normalizing, one scalar of a reply.
//!
//! Numbers written as strings (`"12"`) are read as numbers, and an integer written with a zero
//! fraction (`12.0`) as an integer; a fraction for an integer, a value outside the Rust type's range,
//! and a string where a number has no numeric reading are refused. A `NaiveDateTime` written with a
//! UTC designator (`Z`, `+00:00`) is read without it; any other offset is refused, since dropping it
//! would change the moment.

use serde_json::{Number, Value};

use crate::shape::{FloatKind, IntKind, Scalar};

use super::lenient::{clip, number_value};
use super::rules::num;

/// Checks `value` against `scalar`, normalizing it in place; `Err` holds the message.
/// `label` is the type's name in descriptions (`uint`, `DateOnly (yyyy-MM-dd)`).
pub(crate) fn check(scalar: Scalar, label: &str, value: &mut Value) -> Result<(), String> {
    match scalar {
        Scalar::String | Scalar::Uuid | Scalar::Url => expect_string(value, label),
        Scalar::Char => match value {
            Value::String(s) if s.chars().count() == 1 => Ok(()),
            Value::String(s) => Err(format!(
                "Must be exactly one character; got {} characters.",
                s.chars().count()
            )),
            other => Err(mismatch("exactly one character in a string", other)),
        },
        Scalar::Bool => match value {
            Value::Bool(_) => Ok(()),
            other => Err(mismatch("true or false", other)),
        },
        Scalar::Int(kind) => int(kind, label, value),
        Scalar::Float(kind) => float(kind, label, value),
        Scalar::Decimal => match value {
            Value::Number(_) => Ok(()),
            Value::String(s) if number_value(s.trim()).is_some() => Ok(()),
            other => Err(mismatch(&format!("a number ({label})"), other)),
        },
        Scalar::Unit => match value {
            Value::Null => Ok(()),
            other => Err(mismatch("null", other)),
        },
        Scalar::Date | Scalar::Time | Scalar::DateTime | Scalar::DateTimeOffset => {
            expect_string(value, label)?;
            temporal(scalar, label, value)
        }
        Scalar::Json => Ok(()),
        Scalar::JsonObject => match value {
            Value::Object(_) => Ok(()),
            other => Err(mismatch("a JSON object", other)),
        },
    }
}

fn expect_string(value: &Value, label: &str) -> Result<(), String> {
    match value {
        Value::String(_) => Ok(()),
        other if label == "string" => Err(mismatch("a string", other)),
        other => Err(mismatch(&format!("a string ({label})"), other)),
    }
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

fn int(kind: IntKind, label: &str, value: &mut Value) -> Result<(), String> {
    let whole = || {
        format!(
            "a whole number from {} to {} ({label})",
            kind.min(),
            kind.max()
        )
    };
    let number = match value {
        Value::Number(n) => n.clone(),
        Value::String(s) => match number_value(s.trim()) {
            Some(Value::Number(n)) => n,
            _ => return Err(mismatch(&whole(), value)),
        },
        other => return Err(mismatch(&whole(), other)),
    };
    let in_range = |v: i128| v >= kind.min() && v <= kind.max();
    let normalized = if let Some(u) = number.as_u64() {
        if !in_range(i128::from(u)) {
            return Err(format!("Must be {}; got {u}.", whole()));
        }
        Number::from(u)
    } else if let Some(i) = number.as_i64() {
        if !in_range(i128::from(i)) {
            return Err(format!("Must be {}; got {i}.", whole()));
        }
        Number::from(i)
    } else {
        let f = number.as_f64().unwrap_or(f64::NAN);
        if f.fract() != 0.0 {
            return Err(format!(
                "Must be {}, without a fraction; got {}.",
                whole(),
                num(f)
            ));
        }
        if f < kind.min() as f64 || f > kind.max() as f64 {
            return Err(format!("Must be {}; got {}.", whole(), num(f)));
        }
        if f >= 0.0 && f <= u64::MAX as f64 {
            Number::from(f as u64)
        } else if f < 0.0 && f >= i64::MIN as f64 {
            Number::from(f as i64)
        } else {
            number
        }
    };
    *value = Value::Number(normalized);
    Ok(())
}

fn float(kind: FloatKind, label: &str, value: &mut Value) -> Result<(), String> {
    let f = match value {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => match number_value(s.trim()) {
            Some(number) => {
                let f = number.as_f64().unwrap_or(f64::NAN);
                *value = number;
                f
            }
            None => return Err(mismatch(&format!("a number ({label})"), value)),
        },
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

#[cfg(feature = "chrono")]
fn temporal(scalar: Scalar, label: &str, value: &mut Value) -> Result<(), String> {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};
    let Value::String(text) = value else {
        return Ok(());
    };
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

#[cfg(not(feature = "chrono"))]
fn temporal(_: Scalar, _: &str, _: &mut Value) -> Result<(), String> {
    Ok(())
}

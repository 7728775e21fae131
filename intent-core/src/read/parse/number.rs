//! JSON numbers: one grammar for a number written in a reply and for a string that holds one.
//!
//! A number is `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as JSON writes it, and
//! its token must end where the number ends: `4,250` at the top of a reply, `3/4` and
//! `512e7f30-...` are not numbers, and neither is `0789` (a leading zero, which JSON refuses; such
//! a value is usually a code that belongs in a string). Beyond JSON, a point with no digits on one
//! side is read, since the number it writes is plain: `.25` and `-.3` are 0.25 and -0.3, `1.` and
//! `2.` are 1.0 and 2.0 (`1.5.2`, `.` and `-.` are still no numbers). A string holding a number
//! (`" 40 "`) is read by the same grammar once trimmed, so `"0789"`, `"4,250"`, `"0x1F"` and
//! `"NaN"` are not numbers either.

use serde_json::{Number, Value};

use crate::read::text::{self, clip};

/// Why a token is not a JSON number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bad {
    /// The text ends inside the number (`-`, `1.`, `2e`): the reply was cut off.
    CutOff,
    /// The message for the model, naming the token.
    Wrong(String),
}

/// The length of the JSON number at the start of `text`, whose first byte is `-`, `.` or a digit.
/// `ends` says what may follow a number (anything else makes the token no number).
pub(crate) fn scan(text: &str, ends: impl Fn(&str) -> bool) -> Result<usize, Bad> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    if bytes.first() == Some(&b'-') {
        pos += 1;
        if bytes[pos..].starts_with(b"Infinity") {
            return Err(Bad::Wrong(
                "`-Infinity` is not a JSON number; write a finite number, or null where the member may be empty".to_owned(),
            ));
        }
    }
    let int_start = pos;
    let digits = |pos: &mut usize| {
        while bytes.get(*pos).is_some_and(u8::is_ascii_digit) {
            *pos += 1;
        }
    };
    digits(&mut pos);
    let whole_digits = pos - int_start;
    // A point with digits after it may stand for the whole part (`.25`, `-.3`).
    let leading_point = whole_digits == 0
        && bytes.get(pos) == Some(&b'.')
        && bytes.get(pos + 1).is_some_and(u8::is_ascii_digit);
    if whole_digits == 0 && !leading_point {
        return Err(match bytes.get(pos) {
            None => Bad::CutOff,
            Some(b'.') if pos + 1 == bytes.len() => Bad::CutOff,
            Some(b'.') => not_a_number(text, &ends),
            Some(_) => wrong(text, "Expected digits after `-`"),
        });
    }
    let leading_zero = whole_digits > 1 && bytes[int_start] == b'0';
    // An exponent needs digits: none at the end of the text is a cut.
    let some_digits = |pos: &mut usize| {
        let start = *pos;
        digits(pos);
        match () {
            _ if *pos > start => Ok(()),
            _ if *pos == bytes.len() => Err(Bad::CutOff),
            _ => Err(not_a_number(text, &ends)),
        }
    };
    // A fraction may have no digits after a whole part (`1.` is 1.0).
    if bytes.get(pos) == Some(&b'.') {
        pos += 1;
        digits(&mut pos);
    }
    if let Some(b'e' | b'E') = bytes.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = bytes.get(pos) {
            pos += 1;
        }
        some_digits(&mut pos)?;
    }
    if pos < bytes.len() && !ends(&text[pos..]) {
        return Err(not_a_number(text, &ends));
    }
    if leading_zero {
        let token = &text[..pos];
        let trimmed = token.trim_start_matches('-').trim_start_matches('0');
        let suggestion = if trimmed.is_empty() || trimmed.starts_with('.') {
            "0".to_owned() + trimmed
        } else {
            trimmed.to_owned()
        };
        return Err(Bad::Wrong(format!(
            "The number {token} has a leading zero, which JSON does not allow; write {}{suggestion}, or \"{token}\" in quotes if it is a code whose zeros matter",
            if token.starts_with('-') { "-" } else { "" }
        )));
    }
    Ok(pos)
}

/// The message for a token that starts like a number but is none, naming the whole token: it
/// runs to the next white space or JSON separator.
fn not_a_number(text: &str, ends: &impl Fn(&str) -> bool) -> Bad {
    let end = text
        .char_indices()
        .skip(1)
        .find(|&(at, c)| text::is_space(c) || ends(&text[at..]))
        .map_or(text.len(), |(at, _)| at);
    Bad::Wrong(format!(
        "`{}` is not a JSON number; write a number such as 4250 or 0.75 (no separators, fractions or units), or put the text in quotes",
        clip(&text[..end])
    ))
}

fn wrong(text: &str, what: &str) -> Bad {
    let end = text.find(text::is_space).unwrap_or(text.len());
    Bad::Wrong(format!("{what}: `{}`", clip(&text[..end])))
}

/// True when a number written in JSON may end before `rest`: white space, a separator, the end of
/// an array or object, or a comment.
pub(crate) fn ends_in_json(rest: &str) -> bool {
    let mut chars = rest.chars();
    match chars.next() {
        None | Some(',' | ']' | '}' | ':') => true,
        Some('/') => matches!(chars.next(), Some('/' | '*')),
        Some(c) => text::is_space(c),
    }
}

/// The JSON number that a string holds, trimmed (`" 40 "` holds 40), by the grammar above; `None`
/// when it holds none, or one a double cannot hold without losing its fraction.
pub(crate) fn in_text(text: &str) -> Option<Value> {
    let token = text.trim_matches(text::is_space);
    if !matches!(token.as_bytes().first(), Some(b'-' | b'.' | b'0'..=b'9')) {
        return None;
    }
    let len = scan(token, |_| false).ok()?;
    if len != token.len() {
        return None;
    }
    let value = value(token).ok()?;
    (!loses_fraction(token, &value)).then_some(value)
}

/// The JSON number of a token already scanned, as serde_json reads it: `u64`, then `i64`, then the
/// nearest finite `f64`; refused beyond the range of a double.
pub(crate) fn value(token: &str) -> Result<Value, String> {
    if let Ok(n) = token.parse::<u64>() {
        return Ok(Value::Number(n.into()));
    }
    if let Ok(n) = token.parse::<i64>() {
        return Ok(Value::Number(n.into()));
    }
    token
        .parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| {
            format!(
                "The number {} is beyond the range of a JSON number (about ±1.8e308)",
                clip(token)
            )
        })
}

/// True when the double `value` read from `token` is a whole number the token is not: its
/// fraction was lost (`1.0000000000000000001` reads as 1, `1e-400` as 0). As a float that is the
/// nearest double, a faithful reading; as an integer it would be a wrong one, so the reader
/// remembers such doubles and no integer is read from them.
pub(crate) fn loses_fraction(token: &str, value: &Value) -> bool {
    value
        .as_f64()
        .is_some_and(|f| f.fract() == 0.0 && !value.is_u64() && !value.is_i64())
        && !is_whole(token)
}

/// True when the number written as `token` (already scanned) is a whole number.
fn is_whole(token: &str) -> bool {
    let unsigned = token.trim_start_matches('-');
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], &unsigned[at + 1..]),
        None => (unsigned, "0"),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = || whole.bytes().chain(fraction.bytes());
    if digits().all(|d| d == b'0') {
        return true;
    }
    // The digits after the point, once the exponent moves it: all zeros for a whole number.
    let exponent: i64 =
        exponent
            .trim_start_matches('+')
            .parse()
            .unwrap_or(if exponent.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            });
    let shift = i64::try_from(fraction.len())
        .unwrap_or(i64::MAX)
        .saturating_sub(exponent);
    if shift <= 0 {
        return true;
    }
    let total = whole.len() + fraction.len();
    let kept = usize::try_from(shift).map_or(0, |s| total.saturating_sub(s));
    digits().skip(kept).all(|d| d == b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Result<usize, Bad> {
        scan(text, ends_in_json)
    }

    #[test]
    fn numbers_end_where_json_lets_them() {
        assert_eq!(json("12,"), Ok(2));
        assert_eq!(json("-0.5e+3]"), Ok(7));
        assert_eq!(json("0"), Ok(1));
        assert_eq!(json("7 // note"), Ok(1));
        assert_eq!(json("7\u{a0}"), Ok(1));
        assert!(matches!(json("3/4"), Err(Bad::Wrong(m)) if m.contains("`3/4`")));
        assert!(
            matches!(json("512e7f30-0c1a"), Err(Bad::Wrong(m)) if m.contains("`512e7f30-0c1a`"))
        );
        assert!(matches!(json("0789"), Err(Bad::Wrong(m)) if m.contains("leading zero")));
        assert!(matches!(json("-05,"), Err(Bad::Wrong(m)) if m.contains("write -5")));
        assert_eq!(json("-"), Err(Bad::CutOff));
        assert_eq!(json("-."), Err(Bad::CutOff));
        assert_eq!(json("2e"), Err(Bad::CutOff));
        assert!(matches!(json("1.5.2"), Err(Bad::Wrong(m)) if m.contains("`1.5.2`")));
        assert!(matches!(json(".,"), Err(Bad::Wrong(_))));
        assert!(matches!(json("00.5"), Err(Bad::Wrong(m)) if m.contains("leading zero")));
    }

    #[test]
    fn a_point_with_no_digits_on_one_side_is_read() {
        for (token, read) in [
            (".25", 0.25),
            ("-.3", -0.3),
            ("1.", 1.0),
            ("2.]", 2.0),
            ("-7.,", -7.0),
            ("1.e2", 100.0),
            (".5e1", 5.0),
        ] {
            let len = json(token).unwrap_or_else(|e| panic!("{token}: {e:?}"));
            assert_eq!(value(&token[..len]), Ok(Value::from(read)), "{token}");
        }
        assert!(!loses_fraction("2.", &value("2.").unwrap()));
        assert!(!loses_fraction(".5", &value(".5").unwrap()));
    }

    #[test]
    fn a_fraction_a_double_loses_is_told() {
        let lost = |token: &str| loses_fraction(token, &value(token).unwrap());
        assert!(lost("1.0000000000000000001"));
        assert!(lost("1e-400"));
        assert!(lost("4503599627370497.5"));
        assert!(!lost("4e1") && !lost("13.0") && !lost("2.5") && !lost("7"));
        assert_eq!(in_text("1.0000000000000000001"), None);
        assert_eq!(value("4e1"), Ok(Value::from(40.0)));
        assert_eq!(value("1.50e1"), Ok(Value::from(15.0)));
        assert_eq!(value("0.0"), Ok(Value::from(0.0)));
        assert_eq!(value("2.5"), Ok(Value::from(2.5)));
        assert!(value("1e400").unwrap_err().contains("beyond the range"));
        assert!(is_whole("12.30e1") && !is_whole("12.34e1") && is_whole("-0.000e5"));
    }

    #[test]
    fn strings_hold_numbers_by_the_same_grammar() {
        assert_eq!(in_text(" 40 "), Some(Value::from(40)));
        assert_eq!(in_text("-2.5e1"), Some(Value::from(-25.0)));
        assert_eq!(in_text(" .5"), Some(Value::from(0.5)));
        assert_eq!(in_text("5."), Some(Value::from(5.0)));
        for not in [
            "0789", "4,250", "+5", ".", "-.", "0x1F", "NaN", "inf", "1e400", "", "1 2", "1.5.2",
        ] {
            assert_eq!(in_text(not), None, "{not}");
        }
    }
}

//! Where a value occurs in the input: the one comparison of the grounded members, the sample
//! values and the rule bounds.
//!
//! A text is looked for *folded*: letters and digits only, lower case, so "A-1192", "a 1192" and
//! "A1192" are the same text, and "Sam (Contoso)" is found in "sam, contoso". Folding alone would
//! find "Sam" in "Samantha" and "12" in "1200", so a match must start and end at a boundary of the
//! input: where the input had a character that is neither letter nor digit, at its start or end, or
//! where a run of letters meets a run of digits ("1192" is found in "A1192"). A text that is a
//! number is also looked for as a number among the numbers the input writes ("1200" in
//! "1,200 units", "12.5" in "12.50"). The input's text is the one the model read; for a JSON input
//! (a struct, a `serde_json::Value`) its strings, numbers and member names are read out of the
//! JSON first, so that an escape such as `\n` never glues two words into one.
//!
//! Written by hand: the comparison is this library's definition of "the input holds this value",
//! and no crate states it.

use serde_json::Value;

use crate::input::SerializedInput;

/// The input's text, folded for looking values up, and the numbers it writes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grounds {
    /// The letters and digits of the input, lower case.
    folded: String,
    /// For each byte offset of `folded` (and its end): whether a match may start or end there.
    boundary: Vec<bool>,
    /// The numbers the input writes, each in every reading its separators allow.
    numbers: Vec<f64>,
}

impl Grounds {
    /// The grounds of a call's input: its text, or for a JSON input the texts it holds.
    pub(crate) fn of(input: &SerializedInput) -> Grounds {
        if input.label == "string" {
            return Grounds::of_text(&input.text);
        }
        Grounds::of_json_text(&input.text)
    }

    /// The grounds of a text that may be JSON (a collection element's input): the texts it holds
    /// when it parses as JSON, else the text itself.
    pub(crate) fn of_json_text(text: &str) -> Grounds {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => Grounds::of_value(&value),
            Err(_) => Grounds::of_text(text),
        }
    }

    /// The grounds of a JSON value: its strings, numbers and member names, one per line.
    pub(crate) fn of_value(value: &Value) -> Grounds {
        let mut text = String::new();
        collect_texts(value, &mut text);
        Grounds::of_text(&text)
    }

    /// The grounds of a plain text.
    pub(crate) fn of_text(text: &str) -> Grounds {
        let (folded, boundary) = fold_with_boundaries(text);
        Grounds {
            folded,
            boundary,
            numbers: written_numbers(text),
        }
    }

    /// True when the input holds `value`: as a folded text between boundaries, or, when `value`
    /// is a number, as a number. A value with no letter or digit is never held.
    pub(crate) fn contains(&self, value: &str) -> bool {
        let needle = fold(value);
        // A value with no letter or digit holds nothing of any input.
        if needle.is_empty() {
            return false;
        }
        if self.contains_folded(&needle) {
            return true;
        }
        number_readings(value.trim())
            .iter()
            .any(|n| self.contains_number(*n))
    }

    /// True when the input writes the number `n`.
    pub(crate) fn contains_number(&self, n: f64) -> bool {
        self.numbers.iter().any(|m| same_number(*m, n))
    }

    fn contains_folded(&self, needle: &str) -> bool {
        let mut from = 0;
        while let Some(at) = self.folded[from..].find(needle) {
            let start = from + at;
            let end = start + needle.len();
            if self.boundary[start] && self.boundary[end] {
                return true;
            }
            // The next character of the input, not the next byte.
            from = start
                + self.folded[start..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
        }
        false
    }
}

/// Two numbers equal as written numbers are (a double's rounding aside).
fn same_number(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= f64::EPSILON * a.abs().max(b.abs()) * 4.0
}

/// The strings, numbers and member names of `value`, each on a line of `out`.
fn collect_texts(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Number(n) => {
            out.push_str(&n.to_string());
            out.push('\n');
        }
        Value::Bool(b) => {
            out.push_str(if *b { "true\n" } else { "false\n" });
        }
        Value::Null => {}
        Value::Array(items) => items.iter().for_each(|v| collect_texts(v, out)),
        Value::Object(members) => {
            for (key, v) in members {
                out.push_str(key);
                out.push('\n');
                collect_texts(v, out);
            }
        }
    }
}

/// What kind of character a folded character is, for the boundary between runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Letter,
    Digit,
}

fn kind(c: char) -> Kind {
    if c.is_numeric() {
        Kind::Digit
    } else {
        Kind::Letter
    }
}

/// `text`'s letters and digits in lower case (a value looked for, whose boundaries are its ends).
fn fold(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    folded.extend(
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase),
    );
    folded
}

/// `text`'s letters and digits in lower case, and for each byte offset of the result (and its
/// end) whether it is a boundary.
fn fold_with_boundaries(text: &str) -> (String, Vec<bool>) {
    let mut folded = String::with_capacity(text.len());
    let mut boundary = Vec::with_capacity(text.len() + 1);
    // A separator was met since the last letter or digit (true at the start).
    let mut separated = true;
    let mut last: Option<Kind> = None;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            separated = true;
            continue;
        }
        let here = separated || last != Some(kind(c));
        // Only the first byte of the character's lower case may be a boundary.
        for (n, lower) in c.to_lowercase().enumerate() {
            for i in 0..lower.len_utf8() {
                boundary.push(here && n == 0 && i == 0);
            }
            folded.push(lower);
        }
        separated = false;
        last = Some(kind(c));
    }
    boundary.push(true);
    (folded, boundary)
}

/// Every reading of `text` as one number: `1,200` is 1200 (thousands) and 1.2 (a decimal comma),
/// `1.200,50` is 1200.5; a sign, a currency sign before or a percent sign after are allowed.
/// None when `text` is not a number.
pub(crate) fn number_readings(text: &str) -> Vec<f64> {
    let trimmed = text
        .trim()
        .trim_start_matches(['$', '€', '£', '¥'])
        .trim_end_matches('%')
        .trim();
    let (negative, digits) = match trimmed.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, trimmed.strip_prefix('+').unwrap_or(trimmed)),
    };
    if digits.is_empty()
        || !digits.starts_with(|c: char| c.is_ascii_digit())
        || !digits.ends_with(|c: char| c.is_ascii_digit())
        || !digits
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return Vec::new();
    }
    let sign = if negative { -1.0 } else { 1.0 };
    let mut out = Vec::new();
    readings(digits, &mut out);
    out.iter_mut().for_each(|n| *n *= sign);
    out
}

/// The readings of a run of digits with `.` and `,` separators, without a sign, in `out` (which
/// is cleared first: one buffer serves every run of a text).
fn readings(run: &str, out: &mut Vec<f64>) {
    out.clear();
    let mut push = |text: &str| {
        if let Ok(n) = text.parse::<f64>() {
            if n.is_finite() && !out.contains(&n) {
                out.push(n);
            }
        }
    };
    let dots = run.matches('.').count();
    let commas = run.matches(',').count();
    // Groups after a separator of exactly three digits read as thousands.
    let thousands = |sep: char| run.split(sep).skip(1).all(|group| group.len() == 3);
    match (dots, commas) {
        (0, 0) => push(run),
        (1, 0) => {
            push(run);
            if thousands('.') {
                push(&run.replace('.', ""));
            }
        }
        (_, 0) if thousands('.') => push(&run.replace('.', "")),
        (0, 1) => {
            push(&run.replace(',', "."));
            if thousands(',') {
                push(&run.replace(',', ""));
            }
        }
        (0, _) if thousands(',') => push(&run.replace(',', "")),
        _ => {
            // Both: the last one is the decimal separator.
            let (last_dot, last_comma) = (run.rfind('.'), run.rfind(','));
            if last_dot > last_comma {
                push(&run.replace(',', ""));
            } else {
                push(&run.replace('.', "").replace(',', "."));
            }
        }
    }
}

/// Every number `text` writes, each in every reading its separators allow: runs of digits with
/// `.` and `,` between digits, a `-` before them a sign unless a digit precedes it (`5-1` is a
/// range holding 1).
pub(crate) fn written_numbers(text: &str) -> Vec<f64> {
    let bytes = text.as_bytes();
    let (mut out, mut run) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        while end < bytes.len() {
            match bytes[end] {
                b'0'..=b'9' => end += 1,
                b'.' | b',' if bytes.get(end + 1).is_some_and(u8::is_ascii_digit) => end += 1,
                _ => break,
            }
        }
        let negative = start > 0
            && bytes[start - 1] == b'-'
            && !(start > 1 && bytes[start - 2].is_ascii_digit());
        let sign = if negative { -1.0 } else { 1.0 };
        readings(&text[start..end], &mut run);
        for n in &run {
            let n = n * sign;
            if !out.contains(&n) {
                out.push(n);
            }
        }
        i = end;
    }
    out
}

/// True when `text` writes the number `n`, as [`written_numbers`] reads numbers: `1` is not found
/// in `10`, `1.5`, `2,1` or `-1`, and is found in `5-1`.
pub(crate) fn contains_number(text: &str, n: f64) -> bool {
    written_numbers(text).iter().any(|m| same_number(*m, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_found_without_case_space_or_punctuation_differences() {
        let grounds = Grounds::of_text(
            "Hi team, Dana from Northwind here: 40 units of A-1192, by 2026-11-15.",
        );
        for found in [
            "dana",
            "DANA",
            "Northwind",
            "A-1192",
            "a 1192",
            "A1192",
            "1192",
            "40",
        ] {
            assert!(grounds.contains(found), "{found}");
        }
        for missing in [
            "Dan",
            "North",
            "A-119",
            "B-220",
            "Sam (Contoso)",
            "4",
            "119",
        ] {
            assert!(!grounds.contains(missing), "{missing}");
        }
        assert!(Grounds::of_text("sam, contoso").contains("Sam (Contoso)"));
        assert!(Grounds::of_text("Sam's order").contains("Sam"));
        assert!(Grounds::of_text("Ünïcödé Straße").contains("straße"));
    }

    #[test]
    fn numbers_are_found_as_numbers() {
        let grounds = Grounds::of_text("Total: 1,200 units at 12.50 each; ref 0042");
        assert!(grounds.contains("1200"));
        assert!(grounds.contains("1,200"));
        assert!(grounds.contains("12.5"));
        assert!(grounds.contains("42"));
        assert!(!grounds.contains("120"));
        assert!(!grounds.contains("12.05"));
        assert_eq!(number_readings("1.200,50"), vec![1200.5]);
        assert_eq!(number_readings("$40"), vec![40.0]);
        assert!(number_readings("A-1").is_empty());
    }

    #[test]
    fn a_json_input_is_read_for_its_texts() {
        let grounds =
            Grounds::of_json_text(r#"{"from":"Dana","body":"Line one\nWorld peace","n":7}"#);
        assert!(grounds.contains("World peace"));
        assert!(grounds.contains("Dana"));
        assert!(grounds.contains("7"));
        assert!(!grounds.contains("nWorld"));
    }

    #[test]
    fn a_number_is_found_only_as_a_whole_number() {
        assert!(contains_number("Suite 1, Leeds", 1.0));
        assert!(contains_number("1", 1.0));
        assert!(contains_number("between 1 and 9", 9.0));
        assert!(!contains_number("10 units", 1.0));
        assert!(!contains_number("1.5 kg", 1.0));
        assert!(!contains_number("2,1 kg", 1.0));
        assert!(!contains_number("21", 1.0));
        assert!(!contains_number("one unit", 1.0));
        assert!(contains_number("at 0.5 each", 0.5));
        assert!(!contains_number("at 10.5 each", 0.5));
        assert!(!contains_number("it fell by -1", 1.0));
        assert!(contains_number("for 5-1 votes", 1.0));
        assert!(contains_number("it fell by -1", -1.0));
    }
}

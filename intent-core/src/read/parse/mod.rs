//! A forgiving JSON parser for replies that strict JSON refuses.
//!
//! Besides standard JSON it accepts what models commonly write around it: `//` and `/* */` comments,
//! trailing commas, single-quoted strings, unquoted member names (`{sku: "A-1"}`), raw control
//! characters inside strings, and any Unicode white space (a no-break space, a thin space, a byte
//! order mark) between tokens. It refuses, with a message naming the place, what has no faithful
//! reading: numbers that break JSON's grammar (`0789`, `3/4`, `4,250` as one value; see
//! [`number`]), `NaN` and `Infinity`, numbers beyond the range of a double, lone
//! UTF-16 surrogates and malformed `\u` escapes, and nesting deeper than [`MAX_DEPTH`] levels. Duplicate
//! member names are recorded (the last one is kept) so the reader can refuse them with their
//! paths, and so are the doubles of numbers that lost their fraction in reading
//! (`1.0000000000000000001` reads as 1.0), from which no integer is then read.
//!
//! A failure says whether the text ended inside the value (it was cut off) and whether the parser
//! had already read JSON (a member name and its colon, or a whole element) before failing, which
//! tells a broken answer from a brace in prose.
//!
//! The parser is iterative over input length and recursive only over nesting, which the depth limit
//! bounds, so no input can overflow the stack or take more than linear time.

use serde_json::{Map, Value};

use super::path::Path;
pub(crate) use super::text::{clip, is_space, position};
use number::Bad;

pub(crate) mod number;

/// The deepest nesting of arrays and objects the reader accepts.
pub const MAX_DEPTH: usize = 128;

/// The most repeated member names recorded for one value; the rest are counted.
const MAX_DUPLICATES: usize = super::findings::MAX_FINDINGS;

/// A parsed value, where it ended, and the members named twice.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub value: Value,
    /// The byte offset just past the value.
    pub end: usize,
    /// `(pointer relative to the parsed value, member name)` of each repeated member, at most
    /// [`MAX_DUPLICATES`].
    pub duplicates: Vec<(String, String)>,
    /// Repeated members beyond those recorded.
    pub more_duplicates: usize,
    /// The doubles, as bits, that numbers read as by losing their fraction (see
    /// [`loses_fraction`](number::loses_fraction)), sorted: no integer is read from them.
    pub lossy: Vec<u64>,
}

/// Why the text holds no readable value. Its message, with line and column, is written only
/// when it is reported ([`message`](Self::message)): a scan tries many brackets in prose, and
/// placing each failure would cost a pass over the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// What is wrong, without the place; for a cut, the kind of the part left open.
    what: String,
    /// Where it is wrong; for a cut, where the part left open opened.
    place: usize,
    /// Where the parser stopped.
    pub at: usize,
    /// The text ended inside the value: it was cut off.
    pub cut_off: bool,
    /// JSON had been read before the failure (a member name and its colon, a whole element, or
    /// nesting beyond the limit): the text is a broken JSON value, not prose.
    pub progress: bool,
}

/// Parses one value starting at byte `start` of `text` (leading white space and comments
/// skipped).
pub(crate) fn parse_at(text: &str, start: usize) -> Result<Parsed, ParseError> {
    let mut parser = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: start,
        depth: 0,
        outer: None,
        progress: false,
        duplicates: Vec::new(),
        more_duplicates: 0,
        lossy: Vec::new(),
    };
    let result = parser.skip_space().and_then(|()| parser.value(&Path::Root));
    match result {
        Ok(value) => {
            let mut lossy = parser.lossy;
            lossy.sort_unstable();
            lossy.dedup();
            Ok(Parsed {
                value,
                end: parser.pos,
                duplicates: parser.duplicates,
                more_duplicates: parser.more_duplicates,
                lossy,
            })
        }
        Err(Stop::CutOff) => Err(parser.cut_off()),
        Err(Stop::Broken(what, place)) => Err(ParseError {
            what,
            place,
            at: parser.pos,
            cut_off: false,
            progress: parser.progress,
        }),
    }
}

impl ParseError {
    /// The message for the model, placed in `text` (the text that was parsed).
    pub(crate) fn message(&self, text: &str) -> String {
        let at = position(text, self.place);
        if self.cut_off {
            let what = &self.what;
            format!(
                "The reply's JSON ends before its {what} is closed: the {what} opened at {at} is never closed, so the reply was cut off. Reply with the complete value."
            )
        } else {
            format!("{} (at {at}).", self.what)
        }
    }
}

/// Why parsing stopped: the text ended, or it holds something else than JSON (what, and where).
enum Stop {
    CutOff,
    Broken(String, usize),
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// The outermost array, object or string: its kind and where it opened.
    outer: Option<(&'static str, usize)>,
    progress: bool,
    duplicates: Vec<(String, String)>,
    more_duplicates: usize,
    lossy: Vec<u64>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn broken(&self, at: usize, what: impl std::fmt::Display) -> Stop {
        Stop::Broken(what.to_string(), at)
    }

    /// The error for a value the text ends inside, naming the outermost part left open.
    fn cut_off(&self) -> ParseError {
        let (what, opened) = self.outer.unwrap_or(("value", self.pos));
        ParseError {
            what: what.to_owned(),
            place: opened,
            at: self.src.len(),
            cut_off: true,
            progress: true,
        }
    }

    fn opened(&mut self, what: &'static str) {
        if self.outer.is_none() {
            self.outer = Some((what, self.pos));
        }
    }

    fn skip_space(&mut self) -> Result<(), Stop> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => match self.bytes.get(self.pos + 1) {
                    Some(b'/') => {
                        let rest = &self.bytes[self.pos..];
                        self.pos += rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
                    }
                    Some(b'*') => match self.src[self.pos + 2..].find("*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => return Err(Stop::CutOff),
                    },
                    _ => return Ok(()),
                },
                Some(b) if b >= 0x80 => match self.src[self.pos..].chars().next() {
                    Some(c) if is_space(c) => self.pos += c.len_utf8(),
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, path: &Path<'_>) -> Result<Value, Stop> {
        match self.peek() {
            None => Err(Stop::CutOff),
            Some(b'{') => self.nested(|p| p.object(path)),
            Some(b'[') => self.nested(|p| p.array(path)),
            Some(q @ (b'"' | b'\'')) => self.string(q).map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            // `.25`: a number whose whole part is left out.
            Some(b'.') if self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => {
                self.number()
            }
            Some(_) => self.word(),
        }
    }

    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<Value, Stop>,
    ) -> Result<Value, Stop> {
        if self.depth >= MAX_DEPTH {
            // Nesting this deep is JSON, not prose: the failure is the reply's, not a brace's.
            self.progress = true;
            return Err(self.broken(
                self.pos,
                format_args!(
                    "The reply nests arrays and objects deeper than {MAX_DEPTH} levels, the reader's limit; reply with a flatter value"
                ),
            ));
        }
        self.depth += 1;
        let value = parse(self);
        self.depth -= 1;
        value
    }

    fn object(&mut self, path: &Path<'_>) -> Result<Value, Stop> {
        self.opened("object");
        self.pos += 1;
        let mut map = Map::new();
        let mut after_number = false;
        loop {
            self.skip_space()?;
            let key = match self.peek() {
                None => return Err(Stop::CutOff),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                Some(q @ (b'"' | b'\'')) => self.string(q)?,
                Some(b) if b == b'_' || b == b'$' || b.is_ascii_alphabetic() => {
                    self.identifier().to_owned()
                }
                Some(b'0'..=b'9') if after_number => {
                    return Err(self.broken(
                        self.pos,
                        "Expected a member name in quotes, not a number; a number is written without thousands separators (4250, not 4,250)",
                    ))
                }
                Some(_) => {
                    return Err(self.broken(
                        self.pos,
                        "Expected a member name in quotes or the end of the object `}`",
                    ))
                }
            };
            self.skip_space()?;
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(Stop::CutOff),
                Some(_) => {
                    return Err(self.broken(
                        self.pos,
                        format_args!("Expected `:` after the member name `{}`", clip(&key)),
                    ))
                }
            }
            self.progress = true;
            self.skip_space()?;
            let value = self.value(&path.key(&key))?;
            after_number = value.is_number();
            if map.contains_key(&key) {
                if self.duplicates.len() < MAX_DUPLICATES {
                    self.duplicates
                        .push((path.key(&key).relative(), key.clone()));
                } else {
                    self.more_duplicates += 1;
                }
            }
            map.insert(key, value);
            self.separator(b'}', "Expected `,` or `}` after an object member")?;
        }
    }

    /// After a member or an element: a `,` (passed over), the `close` bracket (left for the
    /// loop), or else the error `message`.
    fn separator(&mut self, close: u8, message: &str) -> Result<(), Stop> {
        self.skip_space()?;
        match self.peek() {
            Some(b',') => self.pos += 1,
            Some(c) if c == close => {}
            None => return Err(Stop::CutOff),
            Some(_) => return Err(self.broken(self.pos, message)),
        }
        Ok(())
    }

    fn array(&mut self, path: &Path<'_>) -> Result<Value, Stop> {
        self.opened("array");
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space()?;
            match self.peek() {
                None => return Err(Stop::CutOff),
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(_) => {}
            }
            items.push(self.value(&path.index(items.len()))?);
            self.progress = true;
            self.separator(b']', "Expected `,` or `]` after an array element")?;
        }
    }

    fn identifier(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b == b'_' || b == b'$' || b == b'-' || b.is_ascii_alphanumeric() {
                self.pos += 1;
            } else {
                break;
            }
        }
        &self.src[start..self.pos]
    }

    fn word(&mut self) -> Result<Value, Stop> {
        let start = self.pos;
        let word = self.identifier();
        if self.pos == self.src.len() && !word.is_empty() {
            // `tru` at the end of the text: cut off inside a word.
            return Err(Stop::CutOff);
        }
        match word {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            "null" => Ok(Value::Null),
            "NaN" | "Infinity" => Err(self.broken(
                start,
                format_args!(
                    "`{word}` is not a JSON number; write a finite number, or null where the member may be empty"
                ),
            )),
            "" => {
                let c = self.src[start..].chars().next().unwrap_or(' ');
                Err(self.broken(start, format_args!("Unexpected character `{c}` where a JSON value should start")))
            }
            _ => Err(self.broken(
                start,
                format_args!("Unexpected word `{}` where a JSON value should start; quote strings with \"", clip(word))),
            ),
        }
    }

    fn number(&mut self) -> Result<Value, Stop> {
        let start = self.pos;
        let len = match number::scan(&self.src[start..], number::ends_in_json) {
            Ok(len) => len,
            Err(Bad::CutOff) => return Err(Stop::CutOff),
            Err(Bad::Wrong(message)) => return Err(self.broken(start, message)),
        };
        let text = &self.src[start..start + len];
        self.pos = start + len;
        let value = number::value(text).map_err(|message| self.broken(start, message))?;
        if number::loses_fraction(text, &value) {
            self.lossy.extend(value.as_f64().map(f64::to_bits));
        }
        Ok(value)
    }

    fn string(&mut self, quote: u8) -> Result<String, Stop> {
        self.opened("string");
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.bytes[self.pos..];
            let Some(stop) = rest.iter().position(|b| *b == quote || *b == b'\\') else {
                return Err(Stop::CutOff);
            };
            out.push_str(&self.src[self.pos..self.pos + stop]);
            self.pos += stop;
            if self.bytes[self.pos] == quote {
                self.pos += 1;
                return Ok(out);
            }
            let escape = self.pos;
            self.pos += 1;
            let Some(code) = self.peek() else {
                return Err(Stop::CutOff);
            };
            self.pos += 1;
            match code {
                b'"' => out.push('"'),
                b'\'' => out.push('\''),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => out.push(self.unicode_escape(escape)?),
                _ => {
                    // Point at the escape itself, whatever character follows the backslash.
                    self.pos = escape;
                    return Err(self.broken(
                        escape,
                        "Unknown escape in a string; write \\\\ for a backslash",
                    ));
                }
            }
        }
    }

    /// Four hex digits of a `\u` escape; a short or malformed escape is named as such.
    fn hex4(&mut self, escape: usize) -> Result<u16, Stop> {
        let mut code: u16 = 0;
        for i in 0..4 {
            match self.bytes.get(self.pos + i) {
                None => return Err(Stop::CutOff),
                Some(b) => match (*b as char).to_digit(16) {
                    Some(d) if b.is_ascii() => code = code * 16 + d as u16,
                    _ => {
                        let end = self.src[escape..]
                            .char_indices()
                            .nth(6)
                            .map_or(self.src.len(), |(at, _)| escape + at);
                        let written = &self.src[escape..end];
                        self.pos = escape;
                        return Err(self.broken(
                            escape,
                            format_args!(
                                "The escape `{written}` is broken: \\u needs four hex digits (0-9, a-f), such as \\u00e9; or write the character itself"
                            ),
                        ));
                    }
                },
            }
        }
        self.pos += 4;
        Ok(code)
    }

    fn unicode_escape(&mut self, escape: usize) -> Result<char, Stop> {
        let first = self.hex4(escape)?;
        let lone = |p: &Self| {
            p.broken(
                escape,
                format_args!(
                    "The escape \\u{first:04X} is a lone UTF-16 surrogate, which is no character; write the character itself"
                ),
            )
        };
        match first {
            0xD800..=0xDBFF => {
                let rest = &self.bytes[self.pos..];
                if !rest.starts_with(b"\\u") {
                    // The text ends where the pair's second half would be: cut off.
                    return Err(if b"\\u".starts_with(rest) {
                        Stop::CutOff
                    } else {
                        lone(self)
                    });
                }
                self.pos += 2;
                let second = self.hex4(escape)?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(lone(self));
                }
                let code =
                    0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(second) - 0xDC00);
                char::from_u32(code).ok_or_else(|| lone(self))
            }
            0xDC00..=0xDFFF => Err(lone(self)),
            _ => char::from_u32(u32::from(first)).ok_or_else(|| lone(self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_names_the_outermost_part_left_open() {
        let text = r#"{"value": [1, 2"#;
        let error = parse_at(text, 0).unwrap_err();
        assert!(error.cut_off);
        assert!(error
            .message(text)
            .starts_with("The reply's JSON ends before its object is closed"));
        for cut in [
            r#"{"a": tr"#,
            r#"{"a": 1."#,
            r#"{"a": "x\u00"#,
            r#"{"a": -"#,
            "[1, /* c",
        ] {
            assert!(parse_at(cut, 0).unwrap_err().cut_off, "{cut}");
        }
    }

    #[test]
    fn progress_tells_broken_json_from_a_brace_in_prose() {
        assert!(!parse_at("{ like this }", 0).unwrap_err().progress);
        assert!(!parse_at("[see note]", 0).unwrap_err().progress);
        assert!(parse_at(r#"{"a": 1 "b": 2}"#, 0).unwrap_err().progress);
        assert!(parse_at(r#"{"a": 05}"#, 0).unwrap_err().progress);
        assert!(parse_at("[1 2]", 0).unwrap_err().progress);
    }

    #[test]
    fn unicode_spaces_separate_tokens_and_broken_escapes_are_named() {
        let parsed = parse_at("{\u{a0}\"a\"\u{2009}:\u{3000}1\u{feff}}", 0).unwrap();
        assert_eq!(parsed.value, serde_json::json!({"a": 1}));
        let text = r#"["\u000é"]"#;
        let error = parse_at(text, 0).unwrap_err();
        let message = error.message(text);
        assert!(
            message.contains("The escape `\\u000é` is broken"),
            "{message}"
        );
        assert!(!error.cut_off);
    }

    #[test]
    fn repeated_members_are_recorded_up_to_the_limit_and_counted_beyond() {
        let members: Vec<String> = (0..200).map(|_| "\"a\": 1".to_owned()).collect();
        let parsed = parse_at(&format!("{{{}}}", members.join(",")), 0).unwrap();
        assert_eq!(parsed.duplicates.len(), MAX_DUPLICATES);
        assert_eq!(parsed.more_duplicates, 199 - MAX_DUPLICATES);
    }
}

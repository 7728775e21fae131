//! A forgiving JSON parser for replies that strict JSON refuses.
//!
//! Besides standard JSON it accepts what models commonly write around it: `//` and `/* */` comments,
//! trailing commas, single-quoted strings, unquoted member names (`{sku: "A-1"}`) and raw control
//! characters inside strings. It refuses, with a message naming the place, what has no faithful
//! reading: truncated values, `NaN` and `Infinity`, numbers beyond the range of a double, lone UTF-16
//! surrogates in `\u` escapes, and nesting deeper than [`MAX_DEPTH`] levels. Duplicate member names
//! are recorded (the last one is kept) so the reader can refuse them with their paths.
//!
//! The parser is iterative over input length and recursive only over nesting, which the depth limit
//! bounds, so no input can overflow the stack or take more than linear time.

use serde_json::{Map, Number, Value};

use super::path::Path;

/// The deepest nesting of arrays and objects the reader accepts.
pub const MAX_DEPTH: usize = 128;

/// A parsed value, where it ended, and the members named twice.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub value: Value,
    /// The byte offset just past the value.
    pub end: usize,
    /// `(pointer relative to the parsed value, member name)` of each repeated member.
    pub duplicates: Vec<(String, String)>,
}

/// Why the text holds no readable value: a message a model can act on, with line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub message: String,
}

/// Parses one value starting at byte `start` of `text` (leading whitespace and comments skipped).
pub(crate) fn parse_at(text: &str, start: usize) -> Result<Parsed, ParseError> {
    let mut parser = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: start,
        depth: 0,
        duplicates: Vec::new(),
    };
    parser.skip_space()?;
    let value = parser.value(&Path::Root)?;
    Ok(Parsed {
        value,
        end: parser.pos,
        duplicates: parser.duplicates,
    })
}

/// Skips whitespace and comments from `pos`; returns the offset of the next significant byte.
pub(crate) fn skip_space_from(text: &str, pos: usize) -> usize {
    let mut parser = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos,
        depth: 0,
        duplicates: Vec::new(),
    };
    match parser.skip_space() {
        Ok(()) => parser.pos,
        Err(_) => text.len(),
    }
}

/// "line 3, column 7" for a byte offset (columns count characters).
pub(crate) fn position(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let mut cut = offset;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let before = &text[..cut];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    format!("line {line}, column {column}")
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    duplicates: Vec<(String, String)>,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn error(&self, at: usize, what: impl std::fmt::Display) -> ParseError {
        ParseError {
            message: format!("{what} (at {}).", position(self.src, at)),
        }
    }

    fn truncated(&self, opened: usize, what: &str) -> ParseError {
        ParseError {
            message: format!(
                "The reply ends before the JSON value is complete: the {what} opened at {} is not closed.",
                position(self.src, opened)
            ),
        }
    }

    fn skip_space(&mut self) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') => match self.bytes.get(self.pos + 1) {
                    Some(b'/') => {
                        let rest = &self.bytes[self.pos..];
                        self.pos += rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
                    }
                    Some(b'*') => {
                        let opened = self.pos;
                        match self.src[self.pos + 2..].find("*/") {
                            Some(i) => self.pos += 2 + i + 2,
                            None => return Err(self.truncated(opened, "comment")),
                        }
                    }
                    _ => return Ok(()),
                },
                Some(0xEF) if self.src[self.pos..].starts_with('\u{feff}') => self.pos += 3,
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, path: &Path<'_>) -> Result<Value, ParseError> {
        match self.peek() {
            None => Err(ParseError {
                message: "The reply ends where a JSON value should start.".to_owned(),
            }),
            Some(b'{') => self.nested(|p| p.object(path)),
            Some(b'[') => self.nested(|p| p.array(path)),
            Some(q @ (b'"' | b'\'')) => self.string(q).map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.word(),
        }
    }

    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<Value, ParseError>,
    ) -> Result<Value, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(
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

    fn object(&mut self, path: &Path<'_>) -> Result<Value, ParseError> {
        let opened = self.pos;
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_space()?;
            let key = match self.peek() {
                None => return Err(self.truncated(opened, "object")),
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(map));
                }
                Some(q @ (b'"' | b'\'')) => self.string(q)?,
                Some(b) if b == b'_' || b == b'$' || b.is_ascii_alphabetic() => {
                    self.identifier().to_owned()
                }
                Some(_) => {
                    return Err(self.error(
                        self.pos,
                        "Expected a member name in quotes or the end of the object `}`",
                    ))
                }
            };
            self.skip_space()?;
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err(self.truncated(opened, "object")),
                Some(_) => {
                    return Err(self.error(
                        self.pos,
                        format_args!("Expected `:` after the member name `{key}`"),
                    ))
                }
            }
            self.skip_space()?;
            let value = {
                let member = path.key(&key);
                if self.peek().is_none() {
                    return Err(self.truncated(opened, "object"));
                }
                self.value(&member)?
            };
            if map.contains_key(&key) {
                self.duplicates
                    .push((path.key(&key).relative(), key.clone()));
            }
            map.insert(key, value);
            self.skip_space()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                None => return Err(self.truncated(opened, "object")),
                Some(_) => {
                    return Err(self.error(self.pos, "Expected `,` or `}` after an object member"))
                }
            }
        }
    }

    fn array(&mut self, path: &Path<'_>) -> Result<Value, ParseError> {
        let opened = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space()?;
            match self.peek() {
                None => return Err(self.truncated(opened, "array")),
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                Some(_) => {}
            }
            let element = path.index(items.len());
            items.push(self.value(&element)?);
            self.skip_space()?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                None => return Err(self.truncated(opened, "array")),
                Some(_) => {
                    return Err(self.error(self.pos, "Expected `,` or `]` after an array element"))
                }
            }
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

    fn word(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let word = self.identifier();
        match word {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            "null" => Ok(Value::Null),
            "NaN" | "Infinity" => Err(self.error(
                start,
                format_args!(
                    "`{word}` is not a JSON number; write a finite number, or null where the member may be empty"
                ),
            )),
            "" => {
                let c = self.src[start..].chars().next().unwrap_or(' ');
                Err(self.error(start, format_args!("Unexpected character `{c}` where a JSON value should start")))
            }
            _ => Err(self.error(
                start,
                format_args!("Unexpected word `{}` where a JSON value should start; quote strings with \"", clip(word))),
            ),
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if self.src[self.pos..].starts_with("Infinity") {
                return Err(self.error(
                    start,
                    "`-Infinity` is not a JSON number; write a finite number, or null where the member may be empty",
                ));
            }
        }
        let int_start = self.pos;
        self.digits();
        if self.pos == int_start {
            return Err(self.error(start, "Expected digits after `-`"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let frac = self.pos;
            self.digits();
            if self.pos == frac {
                return Err(self.error(start, "Expected digits after the decimal point"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            let exp = self.pos;
            self.digits();
            if self.pos == exp {
                return Err(self.error(start, "Expected digits in the exponent"));
            }
        }
        let text = &self.src[start..self.pos];
        number_value(text).ok_or_else(|| {
            self.error(
                start,
                format_args!(
                    "The number {} is beyond the range of a JSON number (about ±1.8e308)",
                    clip(text)
                ),
            )
        })
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    fn string(&mut self, quote: u8) -> Result<String, ParseError> {
        let opened = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = &self.bytes[self.pos..];
            let Some(stop) = rest.iter().position(|b| *b == quote || *b == b'\\') else {
                return Err(self.truncated(opened, "string"));
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
                return Err(self.truncated(opened, "string"));
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
                b'u' => out.push(self.unicode_escape(escape, opened)?),
                _ => {
                    return Err(self.error(
                        escape,
                        "Unknown escape in a string; write \\\\ for a backslash",
                    ))
                }
            }
        }
    }

    fn hex4(&mut self, escape: usize, opened: usize) -> Result<u16, ParseError> {
        let Some(hex) = self.src.get(self.pos..self.pos + 4) else {
            return Err(self.truncated(opened, "string"));
        };
        let code = u16::from_str_radix(hex, 16)
            .ok()
            .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.error(escape, "A \\u escape needs four hex digits"))?;
        self.pos += 4;
        Ok(code)
    }

    fn unicode_escape(&mut self, escape: usize, opened: usize) -> Result<char, ParseError> {
        let first = self.hex4(escape, opened)?;
        let lone = |p: &Self| {
            p.error(
                escape,
                format_args!(
                    "The escape \\u{first:04X} is a lone UTF-16 surrogate, which is no character; write the character itself"
                ),
            )
        };
        match first {
            0xD800..=0xDBFF => {
                if !self.src[self.pos..].starts_with("\\u") {
                    return Err(lone(self));
                }
                self.pos += 2;
                let second = self.hex4(escape, opened)?;
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

/// A JSON number from its text, as serde_json reads it: `u64`, then `i64`, then a finite `f64`.
pub(crate) fn number_value(text: &str) -> Option<Value> {
    if let Ok(n) = text.parse::<u64>() {
        return Some(Value::Number(n.into()));
    }
    if let Ok(n) = text.parse::<i64>() {
        return Some(Value::Number(n.into()));
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}

/// The first 40 characters of `text`, with an ellipsis when cut.
pub(crate) fn clip(text: &str) -> String {
    const LIMIT: usize = 40;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

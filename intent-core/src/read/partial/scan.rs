//! The partial reader's tokenizer: JSON read as it arrives, in pieces cut anywhere.
//!
//! It keeps only what a token cut by a piece's end needs (a number's or literal's characters so
//! far, a `\u` escape's digits), so each piece costs work in proportion to its length. A string's
//! text is handed on as it comes, borrowed from the piece where it has no escapes. A number,
//! `true`, `false` or `null` is handed on only once the character after it shows it complete: a
//! reader never sees 4 on its way to 40.
//!
//! It reads strict JSON: comments, single quotes and unquoted names are an error here (the reply's
//! final reading is lenient about them; the partial view just stops growing).

use std::borrow::Cow;

use serde_json::Value;

use crate::read::parse::number;

/// One JSON token, or a part of a string.
#[derive(Debug, PartialEq)]
pub(super) enum Token<'s> {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    Colon,
    Comma,
    /// A whole string that opened and closed within one piece and has no escapes: the same as
    /// `StringStart`, `StringPart`, `StringEnd`, borrowed from the piece.
    String(&'s str),
    /// A string opens.
    StringStart,
    /// More of the open string's text, escapes decoded.
    StringPart(Cow<'s, str>),
    /// The open string closes.
    StringEnd,
    /// A complete number, `true`, `false` or `null`, and whether the number read as a double
    /// lost its fraction (`1.0000000000000000001` reads as 1.0): a whole-number member refuses it,
    /// as the final reading does.
    Scalar(Value, bool),
}

/// Text that is not JSON where a token must be; the partial view stops there.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct NotJson;

/// The longest number or literal token kept while it is cut: no JSON number a reader accepts is
/// longer, and a longer run is not JSON a partial can show.
const MAX_TOKEN: usize = 512;

#[derive(Debug, Default)]
enum State {
    /// Between tokens.
    #[default]
    Between,
    /// Inside a string.
    Text,
    /// After a backslash in a string.
    Escape,
    /// The hex digits of a `\u` escape so far.
    Unicode { code: u32, digits: u8 },
    /// A number or literal's characters so far.
    Word(String),
}

/// The tokenizer's state between pieces.
#[derive(Debug, Default)]
pub(super) struct Scanner {
    state: State,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
}

impl Scanner {
    /// Reads `piece` (the JSON from where the last piece ended, up to the answer's end), handing
    /// each token to `emit`; stops at the first error, or when `emit` returns false (the answer
    /// has ended) with the count of bytes read.
    pub(super) fn scan<'s>(
        &mut self,
        piece: &'s str,
        mut emit: impl FnMut(Token<'s>) -> Result<bool, NotJson>,
    ) -> Result<usize, NotJson> {
        let bytes = piece.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match &mut self.state {
                State::Between => {
                    let b = bytes[i];
                    let token = match b {
                        b' ' | b'\t' | b'\n' | b'\r' => {
                            i += 1;
                            continue;
                        }
                        b'{' => Token::BeginObject,
                        b'}' => Token::EndObject,
                        b'[' => Token::BeginArray,
                        b']' => Token::EndArray,
                        b':' => Token::Colon,
                        b',' => Token::Comma,
                        b'"' => {
                            let text = &bytes[i + 1..];
                            match text.iter().position(|&b| b == b'"' || b == b'\\') {
                                // The whole string is in this piece.
                                Some(end) if text[end] == b'"' => {
                                    i += end + 2;
                                    if !emit(Token::String(&piece[i - end - 1..i - 1]))? {
                                        return Ok(i);
                                    }
                                    continue;
                                }
                                _ => {
                                    self.state = State::Text;
                                    Token::StringStart
                                }
                            }
                        }
                        b'-' | b'.' | b'0'..=b'9' | b'a'..=b'z' => {
                            let len = bytes[i..]
                                .iter()
                                .position(|&b| !is_word_byte(b))
                                .unwrap_or(bytes.len() - i);
                            if i + len == bytes.len() {
                                // The word may go on in the next piece.
                                if len > MAX_TOKEN {
                                    return Err(NotJson);
                                }
                                self.state = State::Word(piece[i..].to_owned());
                                return Ok(bytes.len());
                            }
                            let word = &piece[i..i + len];
                            i += len;
                            let (value, lossy) = word_token(word)?;
                            if !emit(Token::Scalar(value, lossy))? {
                                return Ok(i);
                            }
                            continue;
                        }
                        _ => return Err(NotJson),
                    };
                    i += 1;
                    if !emit(token)? {
                        return Ok(i);
                    }
                }
                State::Text => {
                    let rest = &piece[i..];
                    let end = rest
                        .bytes()
                        .position(|b| b == b'"' || b == b'\\')
                        .unwrap_or(rest.len());
                    if end > 0 {
                        if self.high.is_some() {
                            return Err(NotJson);
                        }
                        emit(Token::StringPart(Cow::Borrowed(&rest[..end])))?;
                        i += end;
                        continue;
                    }
                    i += 1;
                    if rest.as_bytes()[0] == b'\\' {
                        self.state = State::Escape;
                    } else {
                        if self.high.is_some() {
                            return Err(NotJson);
                        }
                        self.state = State::Between;
                        if !emit(Token::StringEnd)? {
                            return Ok(i);
                        }
                    }
                }
                State::Escape => {
                    let c = match bytes[i] {
                        b'u' => {
                            self.state = State::Unicode { code: 0, digits: 0 };
                            i += 1;
                            continue;
                        }
                        _ if self.high.is_some() => return Err(NotJson),
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        _ => return Err(NotJson),
                    };
                    i += 1;
                    self.state = State::Text;
                    emit(Token::StringPart(Cow::Owned(c.to_string())))?;
                }
                State::Unicode { code, digits } => {
                    let digit = (bytes[i] as char).to_digit(16).ok_or(NotJson)?;
                    *code = *code * 16 + digit;
                    *digits += 1;
                    i += 1;
                    if *digits < 4 {
                        continue;
                    }
                    let code = *code;
                    self.state = State::Text;
                    if let Some(c) = self.unicode(code)? {
                        emit(Token::StringPart(Cow::Owned(c.to_string())))?;
                    }
                }
                State::Word(word) => {
                    let len = bytes[i..]
                        .iter()
                        .position(|&b| !is_word_byte(b))
                        .unwrap_or(bytes.len() - i);
                    if word.len() + len > MAX_TOKEN {
                        return Err(NotJson);
                    }
                    word.push_str(&piece[i..i + len]);
                    i += len;
                    if i == bytes.len() {
                        continue;
                    }
                    let (value, lossy) = word_token(word)?;
                    self.state = State::Between;
                    if !emit(Token::Scalar(value, lossy))? {
                        return Ok(i);
                    }
                }
            }
        }
        Ok(i)
    }

    /// The character of a `\u` escape's code, `None` for a high surrogate that waits for its low
    /// half; a lone or misplaced surrogate is an error, as for the final reading.
    fn unicode(&mut self, code: u32) -> Result<Option<char>, NotJson> {
        match (self.high.take(), code) {
            (None, 0xD800..=0xDBFF) => {
                self.high = Some(code);
                Ok(None)
            }
            (None, 0xDC00..=0xDFFF) => Err(NotJson),
            (None, code) => char::from_u32(code).map(Some).ok_or(NotJson),
            (Some(high), 0xDC00..=0xDFFF) => {
                char::from_u32(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                    .map(Some)
                    .ok_or(NotJson)
            }
            (Some(_), _) => Err(NotJson),
        }
    }
}

/// A byte a number or literal token may hold.
fn is_word_byte(b: u8) -> bool {
    matches!(b, b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'E')
}

/// A complete number or literal, and whether the number lost a fraction (see [`Token::Scalar`]).
fn word_token(word: &str) -> Result<(Value, bool), NotJson> {
    // A plain whole number (no sign but `-`, no leading zero): read at once.
    let digits = word.strip_prefix('-').unwrap_or(word);
    if !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (word == "0" || !digits.starts_with('0'))
    {
        if let Ok(n) = word.parse::<i64>() {
            return Ok((Value::from(n), false));
        }
    }
    let value = word_value(word)?;
    let lossy = number::loses_fraction(word, &value);
    Ok((value, lossy))
}

/// A complete number or literal, by the final reading's grammar ([`number`]: `0789` and `+1`
/// are not numbers, `.25` and `2.` are).
fn word_value(word: &str) -> Result<Value, NotJson> {
    match word {
        "true" => Ok(Value::Bool(true)),
        "false" => Ok(Value::Bool(false)),
        "null" => Ok(Value::Null),
        _ if word.starts_with(|c: char| c == '-' || c == '.' || c.is_ascii_digit()) => {
            match number::scan(word, |_| false) {
                Ok(len) if len == word.len() => number::value(word).map_err(|_| NotJson),
                _ => Err(NotJson),
            }
        }
        _ => Err(NotJson),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `text` cut into pieces at `cuts`, string parts joined.
    fn tokens(text: &str, cuts: &[usize]) -> Result<Vec<String>, NotJson> {
        let mut scanner = Scanner::default();
        let mut out: Vec<String> = Vec::new();
        let mut last = 0;
        for &cut in cuts.iter().chain([&text.len()]) {
            scanner.scan(&text[last..cut], |t| {
                match t {
                    Token::StringPart(p) => match out.last_mut() {
                        Some(s) if s.starts_with('"') && !s.ends_with("\"!") => s.push_str(&p),
                        _ => out.push(format!("\"{p}")),
                    },
                    Token::String(whole) => out.push(format!("\"{whole}\"!")),
                    Token::StringStart => out.push("\"".into()),
                    Token::StringEnd => out.last_mut().unwrap().push_str("\"!"),
                    other => out.push(format!("{other:?}")),
                }
                Ok(true)
            })?;
            last = cut;
        }
        Ok(out)
    }

    #[test]
    fn tokens_are_the_same_wherever_the_pieces_are_cut() {
        let text = r#"{"a\u00e9\ud83d\ude00": [40, -1.5e3, true, null], "b": "x\"y"} "#;
        let whole = tokens(text, &[]).unwrap();
        for cut in 1..text.len() {
            assert_eq!(tokens(text, &[cut]).unwrap(), whole, "cut at {cut}");
        }
        assert!(whole.contains(&"\"aé😀\"!".to_owned()));
        assert!(whole.contains(&"Scalar(Number(40), false)".to_owned()));
    }

    #[test]
    fn a_number_is_handed_on_only_once_complete() {
        let mut scanner = Scanner::default();
        let mut seen = Vec::new();
        scanner
            .scan("[4", |t| {
                seen.push(format!("{t:?}"));
                Ok(true)
            })
            .unwrap();
        assert_eq!(seen, ["BeginArray"]);
        scanner
            .scan("0]", |t| {
                seen.push(format!("{t:?}"));
                Ok(true)
            })
            .unwrap();
        assert_eq!(
            seen,
            ["BeginArray", "Scalar(Number(40), false)", "EndArray"]
        );
    }

    #[test]
    fn what_is_not_json_is_an_error() {
        for text in [
            "[0789 ]",
            "[tru ]",
            "// x",
            "['a']",
            r#"["\ud800x"]"#,
            r#"["\q"]"#,
        ] {
            assert_eq!(tokens(text, &[]), Err(NotJson), "{text}");
        }
    }
}

//! Listing what a reply holds: its reasoning blocks, and every candidate JSON value in its prose.
//!
//! The scan walks the reply's prose from the start. A reasoning tag in prose opens a block that
//! runs to its closing tag; a closing tag with no opening one ends a block that began where the
//! reply (or the last block) did. A `{` or `[` in prose is parsed as JSON: a complete value is a
//! candidate and the scan goes on after it, so a tag or bracket inside a JSON string is never
//! prose; a value the text ends inside is cut off and ends the scan; a value that breaks after
//! JSON was read (or that starts its line) is a broken candidate; anything else was a bracket in
//! prose. A number, string or literal is a candidate only at the very start of the answer.

use std::ops::Range;

use super::super::parse::{self, number, ParseError, Parsed};
use super::super::text::is_space;

/// The reasoning tags: `<think>`, `<thinking>`, `<reasoning>` (any case).
pub(crate) const TAGS: [&str; 3] = ["thinking", "think", "reasoning"];

/// What the scan found.
#[derive(Debug)]
pub(crate) struct Scan {
    pub(crate) candidates: Vec<Candidate>,
    pub(crate) blocks: Vec<Block>,
    /// A block opened and never closed: its tag's name and where it opened.
    pub(crate) unclosed: Option<(&'static str, usize)>,
    /// Why the answer's first token, which looked like a number, is none.
    pub(crate) leading_error: Option<String>,
}

/// A reasoning block.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    /// The whole block, tags included.
    pub(crate) whole: Range<usize>,
    /// Its content.
    pub(crate) content: Range<usize>,
}

/// A candidate JSON value and the prose around it.
#[derive(Debug)]
pub(crate) struct Candidate {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) form: Form,
    /// The prose until the next candidate or block.
    pub(crate) after: Range<usize>,
    /// A bare number, string or literal at the start of the answer.
    pub(crate) scalar: bool,
}

/// How a candidate reads as JSON.
#[derive(Debug)]
pub(crate) enum Form {
    Complete(Parsed),
    /// JSON was read, then something else: the error says where.
    Broken(ParseError),
    /// The text ends inside the value.
    CutOff(ParseError),
    /// The value was moved out to be read.
    Taken,
}

/// Scans `text`.
pub(crate) fn scan(text: &str) -> Scan {
    let mut scanner = Scanner {
        text,
        out: Scan {
            candidates: Vec::new(),
            blocks: Vec::new(),
            unclosed: None,
            leading_error: None,
        },
        span_start: 0,
        region_start: 0,
        first_of_region: 0,
        last_was_candidate: false,
        prose_seen: false,
        line_clean: true,
    };
    scanner.run();
    scanner.out
}

/// The reasoning blocks of `text` (what [`scan`] finds, without reading candidates' values
/// twice).
pub(crate) fn blocks(text: &str) -> (Vec<Block>, Option<(&'static str, usize)>) {
    if !has_tag(text) {
        return (Vec::new(), None);
    }
    let scan = scan(text);
    (scan.blocks, scan.unclosed)
}

/// Where the reasoning blocks that open `text` end (white space between them), or `None` when
/// it opens with none or one is never closed: the same blocks [`scan`] finds there.
pub(crate) fn leading_blocks_end(text: &str) -> Option<usize> {
    let mut pos = 0;
    let mut end = None;
    loop {
        pos += text[pos..].len() - text[pos..].trim_start_matches(is_space).len();
        let Some((name, len)) = open_tag(text, pos) else {
            return end;
        };
        let (close, close_len) = find_close(text, name, pos + len)?;
        pos = close + close_len;
        end = Some(pos);
    }
}

/// True when `text` has a reasoning tag anywhere (a quick test before a scan).
pub(crate) fn has_tag(text: &str) -> bool {
    let mut from = 0;
    // `str::find` of one ASCII character is a word-at-a-time memchr; `from` always follows a
    // `<`, so it is a character boundary.
    while let Some(at) = text[from..].find('<') {
        let at = from + at;
        if open_tag(text, at).is_some() || close_tag(text, at).is_some() {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The tag `<name>` at `at`: its name and length.
fn open_tag(text: &str, at: usize) -> Option<(&'static str, usize)> {
    let rest = text.get(at + 1..)?;
    TAGS.iter().find_map(|name| {
        let bytes = rest.as_bytes();
        (bytes.len() > name.len()
            && bytes[..name.len()].eq_ignore_ascii_case(name.as_bytes())
            && bytes[name.len()] == b'>')
            .then_some((*name, name.len() + 2))
    })
}

/// The tag `</name>` at `at`: its name and length.
fn close_tag(text: &str, at: usize) -> Option<(&'static str, usize)> {
    if text.as_bytes().get(at + 1) != Some(&b'/') {
        return None;
    }
    open_tag(text, at + 1).map(|(name, len)| (name, len + 1))
}

/// Where the closing tag of `name` starts at or after `from`, and its length.
fn find_close(text: &str, name: &str, from: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while let Some(found) = bytes[at..].iter().position(|b| *b == b'<') {
        let here = at + found;
        if let Some((tag, len)) = close_tag(text, here) {
            if tag == name {
                return Some((here, len));
            }
        }
        at = here + 1;
    }
    None
}

struct Scanner<'t> {
    text: &'t str,
    out: Scan,
    /// Where the prose since the last candidate or block began.
    span_start: usize,
    /// Where the text that a closing tag alone would make reasoning began.
    region_start: usize,
    /// The first candidate of that text.
    first_of_region: usize,
    last_was_candidate: bool,
    /// Prose (not white space or blocks) was seen since the region began.
    prose_seen: bool,
    /// Only white space (or blocks) precede the position on its line.
    line_clean: bool,
}

impl Scanner<'_> {
    fn run(&mut self) {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut pos = 0;
        while pos < bytes.len() {
            let c = match text[pos..].chars().next() {
                Some(c) => c,
                None => break,
            };
            if is_space(c) {
                self.line_clean |= c == '\n';
                pos += c.len_utf8();
                continue;
            }
            if c == '<' {
                if let Some((name, len)) = open_tag(text, pos) {
                    match find_close(text, name, pos + len) {
                        Some((close, close_len)) => {
                            self.block(pos..close + close_len, pos + len..close);
                            pos = close + close_len;
                        }
                        None => {
                            self.out.unclosed = Some((name, pos));
                            self.block(pos..text.len(), pos + len..text.len());
                            return;
                        }
                    }
                    continue;
                }
                if let Some((_, len)) = close_tag(text, pos) {
                    // Everything since the region began was reasoning, candidates included.
                    let start = self.region_start;
                    self.out.candidates.truncate(self.first_of_region);
                    self.last_was_candidate = false;
                    self.block(start..pos + len, start..pos);
                    self.out.leading_error = None;
                    self.prose_seen = false;
                    pos += len;
                    continue;
                }
            }
            if !self.prose_seen {
                if let Some(end) = self.leading_scalar(pos) {
                    pos = end;
                    continue;
                }
            }
            if c == '{' || c == '[' {
                match parse::parse_at(text, pos) {
                    Ok(parsed) => {
                        let end = parsed.end;
                        self.candidate(pos, end, Form::Complete(parsed), false);
                        pos = end;
                        continue;
                    }
                    Err(error) if error.cut_off => {
                        self.candidate(pos, text.len(), Form::CutOff(error), false);
                        break;
                    }
                    Err(error)
                        if error.progress || (self.line_clean && json_follows(text, pos)) =>
                    {
                        let end = error.at.max(pos + 1);
                        self.candidate(pos, end, Form::Broken(error), false);
                        pos = end;
                        continue;
                    }
                    Err(_) => {}
                }
            }
            self.prose_seen = true;
            self.line_clean = false;
            pos += c.len_utf8();
        }
        self.close_span(text.len());
    }

    /// Ends the prose span at `at`: it is the `after` of the last candidate, if that came last.
    fn close_span(&mut self, at: usize) {
        if self.last_was_candidate {
            if let Some(last) = self.out.candidates.last_mut() {
                last.after = self.span_start..at;
            }
        }
    }

    fn block(&mut self, whole: Range<usize>, content: Range<usize>) {
        self.close_span(whole.start);
        self.span_start = whole.end;
        self.region_start = whole.end;
        self.first_of_region = self.out.candidates.len();
        self.last_was_candidate = false;
        self.out.blocks.push(Block { whole, content });
    }

    fn candidate(&mut self, start: usize, end: usize, form: Form, scalar: bool) {
        self.close_span(start);
        self.out.candidates.push(Candidate {
            start,
            end,
            form,
            after: end..end,
            scalar,
        });
        self.span_start = end;
        self.last_was_candidate = true;
        self.prose_seen = true;
        self.line_clean = false;
    }

    /// A number, string or literal at the start of the answer: its end, when it is a candidate.
    fn leading_scalar(&mut self, pos: usize) -> Option<usize> {
        let text = self.text;
        let rest = &text[pos..];
        match rest.as_bytes()[0] {
            b'"' => match parse::parse_at(text, pos) {
                Ok(parsed) => {
                    let end = parsed.end;
                    self.candidate(pos, end, Form::Complete(parsed), true);
                    Some(end)
                }
                Err(error) if error.cut_off => {
                    self.candidate(pos, text.len(), Form::CutOff(error), true);
                    Some(text.len())
                }
                Err(error) => {
                    let end = error.at.max(pos + 1);
                    self.candidate(pos, end, Form::Broken(error), true);
                    Some(end)
                }
            },
            // An apostrophe that closes no string is prose.
            b'\'' => match parse::parse_at(text, pos) {
                Ok(parsed) => {
                    let end = parsed.end;
                    self.candidate(pos, end, Form::Complete(parsed), true);
                    Some(end)
                }
                Err(_) => None,
            },
            b'-' | b'.' | b'0'..=b'9' => {
                if rest.starts_with('.') && !rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
                    return None;
                }
                let ends = |after: &str| after.chars().next().is_none_or(is_space);
                let token = match number::scan(rest, ends) {
                    // `1. ` before more text is a numbered item in prose, not the number 1.
                    Ok(len) if rest[..len].ends_with('.') && !rest[len..].chars().all(is_space) => {
                        return None;
                    }
                    Ok(len) => &rest[..len],
                    Err(number::Bad::Wrong(message)) => {
                        self.out.leading_error.get_or_insert(message);
                        return None;
                    }
                    Err(number::Bad::CutOff) => {
                        let token = rest.split(is_space).next().unwrap_or(rest);
                        self.out.leading_error.get_or_insert(format!(
                            "`{}` is not a JSON number; write a number such as 4250 or 0.75",
                            super::super::text::clip(token)
                        ));
                        return None;
                    }
                };
                match number::value(token) {
                    Ok(value) => {
                        let lossy = number::loses_fraction(token, &value)
                            .then(|| value.as_f64().map(f64::to_bits))
                            .flatten();
                        Some(self.bare(pos, token.len(), value, lossy))
                    }
                    Err(message) => {
                        self.out.leading_error.get_or_insert(message);
                        None
                    }
                }
            }
            _ => {
                let word = literal(rest)?;
                Some(self.bare(pos, word.len(), literal_value(word), None))
            }
        }
    }

    /// A bare number or literal of `len` bytes at `pos`, read as `value` (the bits of a double
    /// that lost its fraction, if so): its end.
    fn bare(
        &mut self,
        pos: usize,
        len: usize,
        value: serde_json::Value,
        lossy: Option<u64>,
    ) -> usize {
        let end = pos + len;
        let parsed = Parsed {
            value,
            end,
            duplicates: Vec::new(),
            more_duplicates: 0,
            lossy: lossy.into_iter().collect(),
        };
        self.candidate(pos, end, Form::Complete(parsed), true);
        end
    }
}

/// True when what follows the bracket at `at` starts like JSON (a string, a number, a bracket, a
/// literal): a bracket starting its line so is an answer that broke, not prose (`[05]`, not
/// `[see note]`).
fn json_follows(text: &str, at: usize) -> bool {
    let next = text[at + 1..].trim_start_matches(is_space);
    next.starts_with(['"', '\'', '{', '[', '-'])
        || next.starts_with(|c: char| c.is_ascii_digit())
        || literal(next).is_some()
}

/// The value of a literal [`literal`] found.
pub(crate) fn literal_value(word: &str) -> serde_json::Value {
    match word {
        "true" => serde_json::Value::Bool(true),
        "false" => serde_json::Value::Bool(false),
        _ => serde_json::Value::Null,
    }
}

/// `true`, `false` or `null` at the start of `rest`, ending at white space or the end of a
/// sentence.
pub(crate) fn literal(rest: &str) -> Option<&'static str> {
    ["true", "false", "null"].into_iter().find(|word| {
        rest.starts_with(word)
            && rest[word.len()..]
                .chars()
                .next()
                .is_none_or(|c| is_space(c) || matches!(c, '.' | ',' | ';' | '!' | '?' | ')'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(text: &str) -> Vec<&'static str> {
        scan(text)
            .candidates
            .iter()
            .map(|c| match c.form {
                Form::Complete(_) => "complete",
                Form::Broken(_) => "broken",
                Form::CutOff(_) => "cut off",
                Form::Taken => "taken",
            })
            .collect()
    }

    #[test]
    fn candidates_are_listed_with_the_prose_around_them() {
        let text = r#"Looking at listing['rooms'] first: {"rooms": 3}."#;
        let found = scan(text);
        assert_eq!(found.candidates.len(), 2);
        assert_eq!(&text[found.candidates[0].after.clone()], " first: ");
        assert_eq!(&text[found.candidates[1].after.clone()], ".");
        assert_eq!(forms(r#"{"a": 1} and {"a": 2"#), ["complete", "cut off"]);
        assert_eq!(
            forms(r#"Use { like this } and {"a": 1 "b": 2}"#),
            ["broken"]
        );
        assert_eq!(forms("[05]"), ["broken"]);
        assert_eq!(forms("see [05] here"), Vec::<&str>::new());
        assert_eq!(forms("[see note] {\"a\": 1}"), ["complete"]);
    }

    #[test]
    fn reasoning_blocks_hold_no_candidates() {
        let text = "<think>maybe {\"a\": 0}</think>{\"a\": 1}";
        let found = scan(text);
        assert_eq!(found.blocks.len(), 1);
        assert_eq!(&text[found.blocks[0].content.clone()], "maybe {\"a\": 0}");
        assert_eq!(found.candidates.len(), 1);
        assert_eq!(found.candidates[0].start, text.find("{\"a\": 1}").unwrap());

        let text = "maybe {\"a\": 0}\n</THINK>\n{\"a\": 1}";
        let found = scan(text);
        assert_eq!(found.candidates.len(), 1);
        assert_eq!(&text[found.blocks[0].content.clone()], "maybe {\"a\": 0}\n");

        let text = "{\"a\": \"</think>\"}";
        assert!(scan(text).blocks.is_empty());
        assert_eq!(scan("<think>never closed").unclosed, Some(("think", 0)));
        let text = " <think>a</think>\n<Reasoning>b</Reasoning> {\"a\": 1}";
        assert_eq!(&text[leading_blocks_end(text).unwrap()..], " {\"a\": 1}");
        assert_eq!(leading_blocks_end("<think>a"), None);
        assert_eq!(leading_blocks_end("{\"a\": 1}"), None);
    }

    #[test]
    fn scalars_count_only_at_the_start_of_the_answer() {
        assert_eq!(forms("42 apples"), ["complete"]);
        assert_eq!(forms("The 42 apples"), Vec::<&str>::new());
        assert_eq!(forms("<think>x</think> true"), ["complete"]);
        assert!(scan("4,250").leading_error.unwrap().contains("`4,250`"));
        assert!(scan("'Twas so").candidates.is_empty());
        assert_eq!(forms("1. {\"a\": 1}"), ["complete"]);
        assert_eq!(forms("2."), ["complete"]);
        assert_eq!(forms(".25"), ["complete"]);
        assert_eq!(forms("- .25"), Vec::<&str>::new());
    }
}

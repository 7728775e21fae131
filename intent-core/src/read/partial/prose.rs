//! What comes before the answer in a reply that is still arriving: prose, a code fence, and
//! reasoning blocks (the tags the locator skips, `super::super::locate::scan::TAGS`), whose
//! brackets are not the answer's.

use std::borrow::Cow;

use super::super::locate::scan::TAGS;

/// The longest tag read (`<reasoning>`, `</thinking>` and a little more).
const MAX_TAG: usize = 16;

#[derive(Debug, Default)]
enum State {
    /// Nothing but white space yet (text results: a reasoning block may still open).
    #[default]
    Start,
    /// In prose.
    Prose,
    /// Reading a tag: what follows `<` so far, and whether it came first.
    Tag { name: String, first: bool },
    /// In a reasoning block, until `</name>`: how much of the closing tag has matched.
    Block { close: String, matched: usize },
    /// Past the leading reasoning (text results).
    Body,
}

/// The state of the text before the answer, between pieces.
#[derive(Debug, Default)]
pub(super) struct Prose {
    state: State,
}

impl Prose {
    /// Skips `text` up to the answer's first bracket outside a reasoning block: its offset, or
    /// `None` when `text` ends first.
    pub(super) fn skip(&mut self, text: &str) -> Option<usize> {
        for (at, c) in text.char_indices() {
            match &mut self.state {
                State::Start | State::Prose | State::Body => match c {
                    '{' | '[' => return Some(at),
                    '<' => {
                        self.state = State::Tag {
                            name: String::new(),
                            first: false,
                        }
                    }
                    _ => self.state = State::Prose,
                },
                State::Tag { name, .. } => self.state = tag_step(std::mem::take(name), c),
                State::Block { close, matched } => {
                    if block_step(close, matched, c) {
                        self.state = State::Prose;
                    }
                }
            }
            if let State::Tag { .. } | State::Block { .. } = self.state {
                continue;
            }
            // A bracket right after a tag that was not a reasoning tag starts the answer.
            if matches!(c, '{' | '[') {
                return Some(at);
            }
        }
        None
    }

    /// The part of `text` that is the text result: a leading reasoning block is held back.
    pub(super) fn text<'t>(&mut self, text: &'t str) -> Cow<'t, str> {
        let mut out = String::new();
        for (at, c) in text.char_indices() {
            match &mut self.state {
                State::Body | State::Prose => {
                    if out.is_empty() {
                        return Cow::Borrowed(&text[at..]);
                    }
                    out.push_str(&text[at..]);
                    return Cow::Owned(out);
                }
                State::Start if c.is_whitespace() => {}
                State::Start if c == '<' => {
                    self.state = State::Tag {
                        name: String::new(),
                        first: true,
                    }
                }
                State::Start => {
                    self.state = State::Body;
                    return Cow::Borrowed(&text[at..]);
                }
                State::Tag { name, .. } => {
                    let held = format!("<{name}{c}");
                    self.state = tag_step(std::mem::take(name), c);
                    if let State::Prose = self.state {
                        // Not a reasoning tag: what was held is text.
                        self.state = State::Body;
                        out.push_str(&held);
                    } else if let State::Tag { first, .. } = &mut self.state {
                        *first = true;
                    }
                }
                State::Block { close, matched } => {
                    if block_step(close, matched, c) {
                        self.state = State::Body;
                    }
                }
            }
        }
        Cow::Owned(out)
    }
}

/// The state after `c` in a tag whose name so far is `name`.
fn tag_step(mut name: String, c: char) -> State {
    if c == '>' {
        let lower = name.to_ascii_lowercase();
        return match TAGS.iter().find(|t| **t == lower) {
            Some(tag) => State::Block {
                close: format!("</{tag}>"),
                matched: 0,
            },
            None => State::Prose,
        };
    }
    if name.len() >= MAX_TAG || !(c.is_ascii_alphanumeric() || c == '/') {
        return State::Prose;
    }
    name.push(c);
    State::Tag { name, first: false }
}

/// Matches `c` against the closing tag `close`; at its end, back to prose.
/// Returns true at the closing tag's end.
fn block_step(close: &str, matched: &mut usize, c: char) -> bool {
    let expected = close[*matched..].chars().next();
    if expected.is_some_and(|e| e.eq_ignore_ascii_case(&c)) {
        *matched += c.len_utf8();
        *matched == close.len()
    } else {
        *matched = usize::from(c == '<');
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_brackets_are_skipped_and_the_answer_found() {
        let text = "<think>maybe {x} or [y]</think>Sure: ```json\n{\"value\": 1}";
        for cut in 1..text.len() {
            if !text.is_char_boundary(cut) {
                continue;
            }
            let mut prose = Prose::default();
            let at = match prose.skip(&text[..cut]) {
                Some(at) => Some(at),
                None => prose.skip(&text[cut..]).map(|at| at + cut),
            };
            assert_eq!(at, text.find("{\""), "cut at {cut}");
        }
    }

    #[test]
    fn a_text_result_skips_a_leading_reasoning_block_only() {
        let mut prose = Prose::default();
        let mut shown = String::new();
        for piece in ["  <thi", "nk>hmm</th", "ink>Hello", " <b>world</b>"] {
            shown.push_str(&prose.text(piece));
        }
        assert_eq!(shown, "Hello <b>world</b>");
        let mut prose = Prose::default();
        assert_eq!(prose.text("<b>bold</b>"), "<b>bold</b>");
    }
}

//! Telling prose from JSON debris around an answer.
//!
//! Prose may stand before and after the answer. Text that continues JSON does not: after the
//! answer, a closing bracket with no opening one, a `"` right after it, a `:` or `,` followed by
//! more JSON (`{"a": 1}, "b": 2}`, `{"a": 1}: 2`), a comma and another whole value (`{}, {}, {}`:
//! several values, of which reading the first would drop the rest), a `+` joining another value
//! (`"hello" + " world"`: an expression, whose first part is not what it says); before it, a
//! quoted member name and its colon (`"b": {...}`); after a bare string, an odd number of quotes
//! (`"A 27" monitor"`). Comments between them hide nothing. Such an answer is a part of something
//! larger that did not parse, never the answer.

use super::super::parse::number;
use super::super::text::is_space;
use super::scan::{literal, literal_value};

/// How the text after an answer continues it as JSON would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Debris {
    /// More of something larger: a closing bracket, a quote, a member, a colon and a value.
    Continues,
    /// A comma and another whole value: several values, not one.
    Values,
    /// A `+` and another value: an expression, not a value.
    Joined,
}

/// How the text after an answer continues it as JSON would, if it does: `rest` is all the text
/// after the answer, `gap` the prose up to the next candidate. `string` is set when the answer is
/// a bare string, whose stray quotes are then telling.
pub(crate) fn debris_after(rest: &str, gap: &str, string: bool) -> Option<Debris> {
    let rest = skip_space_and_comments(rest);
    let mut chars = rest.chars();
    match chars.next() {
        Some('}' | ']' | '"') => return Some(Debris::Continues),
        // `{...}: 2` continues JSON; `{...}:` ending a line introduces what follows.
        Some(':') => {
            let next = chars.as_str().trim_start_matches([' ', '\t']);
            if starts_value(next) || literal(next).is_some() {
                return Some(Debris::Continues);
            }
        }
        Some(',') => {
            let next = skip_space_and_comments(chars.as_str());
            if is_member_name(next) || is_quoted_member_name(next) {
                return Some(Debris::Continues);
            }
            if starts_value(next) {
                return Some(Debris::Values);
            }
        }
        Some('+') => {
            let next = skip_space_and_comments(chars.as_str());
            if starts_value(next) {
                return Some(Debris::Joined);
            }
        }
        _ => {}
    }
    if string && gap.matches('"').count() % 2 == 1 {
        return Some(Debris::Continues);
    }
    unmatched_closer(gap).then_some(Debris::Continues)
}

/// True when `text` starts a JSON string, object, array or number.
fn starts_value(text: &str) -> bool {
    text.starts_with(['"', '\'', '{', '[', '-']) || text.starts_with(|c: char| c.is_ascii_digit())
}

/// `text` after its leading white space and `//` or `/* */` comments.
fn skip_space_and_comments(text: &str) -> &str {
    let mut rest = text.trim_start_matches(is_space);
    loop {
        if let Some(line) = rest.strip_prefix("//") {
            rest = line.find('\n').map_or("", |end| &line[end..]);
        } else if let Some(block) = rest.strip_prefix("/*") {
            rest = block.find("*/").map_or("", |end| &block[end + 2..]);
        } else {
            return rest;
        }
        rest = rest.trim_start_matches(is_space);
    }
}

/// True when the text before an answer ends as a member name and its colon would (`"b": ` or
/// `'b': `), or with a value and a comma (`"a", `).
pub(crate) fn debris_before(before: &str) -> bool {
    let rest = before.trim_end_matches(is_space);
    if let Some(head) = rest.strip_suffix(':') {
        return head.trim_end_matches(is_space).ends_with(['"', '\'']);
    }
    if let Some(head) = rest.strip_suffix(',') {
        return head.trim_end_matches(is_space).ends_with(['"', '}', ']']);
    }
    false
}

/// The first bare number or literal in prose (`3` in "42 apples, 3 pears"), with its offset: a
/// second answer beside a bare scalar.
pub(crate) fn scalar_word(gap: &str) -> Option<(usize, serde_json::Value)> {
    let separates = |c: char| is_space(c) || matches!(c, ',' | '(' | '/');
    let mut start = None;
    for (at, c) in gap.char_indices().chain(std::iter::once((gap.len(), ' '))) {
        if !separates(c) {
            start.get_or_insert(at);
            continue;
        }
        let Some(from) = start.take() else {
            continue;
        };
        let word = gap[from..at].trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
        if let Some(lit) = literal(word) {
            return Some((from, literal_value(lit)));
        }
        if let Some(value) = number::in_text(word) {
            return Some((from, value));
        }
    }
    None
}

/// `b: ` at the start of `text`: an unquoted member name and its colon.
fn is_member_name(text: &str) -> bool {
    let name_len = text
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    name_len > 0
        && text[name_len..]
            .trim_start_matches(is_space)
            .starts_with(':')
}

/// `"b": ` at the start of `text`: a quoted member name and its colon.
fn is_quoted_member_name(text: &str) -> bool {
    let Some(quote) = text.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
        return false;
    };
    let mut escaped = false;
    for (at, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '\n' => return false,
            c if c == quote => return text[at + 1..].trim_start_matches(is_space).starts_with(':'),
            _ => {}
        }
    }
    false
}

/// True when `gap` closes a `}` or `]` it did not open.
fn unmatched_closer(gap: &str) -> bool {
    let mut open: usize = 0;
    for b in gap.bytes() {
        match b {
            b'{' | b'[' => open += 1,
            b'}' | b']' => match open.checked_sub(1) {
                Some(left) => open = left,
                None => return true,
            },
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_continuing_after_the_answer_is_debris() {
        let after = |text: &str, string: bool| debris_after(text, text, string).is_some();
        assert!(after(r#", "b": 2}"#, false));
        assert!(after("}", false));
        assert!(after(" and then ]", false));
        assert!(after(", b: 2", false));
        assert!(after(r#" monitor""#, true));
        assert!(!after(r#" monitor""#, false));
        assert!(!after(", as you asked.", false));
        assert!(after(": 2", false));
        assert!(!after(":\n```json\n{\"value\": 5}\n```", false));
        assert!(!after("\n```\nHope this helps (see [the docs]).", false));
        assert!(!after(" + tax", false));
    }

    #[test]
    fn more_values_after_a_comma_or_a_plus_are_named() {
        let after = |text: &str| debris_after(text, text, false);
        assert_eq!(
            debris_after(", {\"a\": 2}", ", ", false),
            Some(Debris::Values)
        );
        assert_eq!(after(",\n\n/* 2 */\n{},"), Some(Debris::Values));
        assert_eq!(after(", // the next\n[1]"), Some(Debris::Values));
        assert_eq!(after(" + \" world\""), Some(Debris::Joined));
        assert_eq!(after(" +\n /* and */ 'b'"), Some(Debris::Joined));
        assert_eq!(after(", b: 2"), Some(Debris::Continues));
        assert_eq!(after(r#", "b": 2}"#), Some(Debris::Continues));
        assert_eq!(after(r#", "b", "c""#), Some(Debris::Values));
    }

    #[test]
    fn a_member_name_before_the_answer_is_debris() {
        assert!(debris_before(r#"", "b": "#));
        assert!(debris_before("'b':"));
        assert!(!debris_before("Here is the answer: "));
        assert!(!debris_before("Sure, "));
    }

    #[test]
    fn bare_numbers_and_literals_in_prose_are_found() {
        assert_eq!(
            scalar_word(" apples, 3 pears").map(|(_, v)| v),
            Some(3.into())
        );
        assert_eq!(scalar_word(" or true.").map(|(_, v)| v), Some(true.into()));
        assert_eq!(scalar_word(" apples (about a dozen)"), None);
    }
}

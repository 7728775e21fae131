//! Telling prose from JSON debris around an answer.
//!
//! Prose may stand before and after the answer. Text that continues JSON does not: after the
//! answer, a closing bracket with no opening one, a `"` right after it, a `:` or `,` followed by
//! more JSON (`{"a": 1}, "b": 2}`, `{"a": 1}: 2`); before it, a quoted member name and its colon
//! (`"b": {...}`); after a bare string, an odd number of quotes (`"A 27" monitor"`). Such an
//! answer is a part of something larger that did not parse, never the answer.

use super::super::parse::number;
use super::super::text::is_space;
use super::scan::{literal, literal_value};

/// True when the text after an answer continues it as JSON would: `rest` is all the text after
/// the answer, `gap` the prose up to the next candidate. `string` is set when the answer is a
/// bare string, whose stray quotes are then telling.
pub(crate) fn debris_after(rest: &str, gap: &str, string: bool) -> bool {
    let rest = rest.trim_start_matches(is_space);
    let mut chars = rest.chars();
    match chars.next() {
        Some('}' | ']' | '"') => return true,
        // `{...}: 2` continues JSON; `{...}:` ending a line introduces what follows.
        Some(':') => {
            let next = chars.as_str().trim_start_matches([' ', '\t']);
            if next.starts_with(['"', '\'', '{', '[', '-'])
                || next.starts_with(|c: char| c.is_ascii_digit())
                || literal(next).is_some()
            {
                return true;
            }
        }
        Some(',') => {
            let next = chars.as_str().trim_start_matches(is_space);
            if next.starts_with(['"', '\'', '{', '[', '-'])
                || next.starts_with(|c: char| c.is_ascii_digit())
                || is_member_name(next)
            {
                return true;
            }
        }
        _ => {}
    }
    if string && gap.matches('"').count() % 2 == 1 {
        return true;
    }
    unmatched_closer(gap)
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
        let after = |text: &str, string: bool| debris_after(text, text, string);
        assert!(after(r#", "b": 2}"#, false));
        assert!(debris_after(", {\"a\": 2}", ", ", false));
        assert!(after("}", false));
        assert!(after(" and then ]", false));
        assert!(after(", b: 2", false));
        assert!(after(r#" monitor""#, true));
        assert!(!after(r#" monitor""#, false));
        assert!(!after(", as you asked.", false));
        assert!(after(": 2", false));
        assert!(!after(":\n```json\n{\"value\": 5}\n```", false));
        assert!(!after("\n```\nHope this helps (see [the docs]).", false));
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

//! Finding the answer in a reply, one way.
//!
//! The reply is scanned once ([`scan`]): reasoning blocks are set aside, and every candidate JSON
//! value in its prose is listed — bare, enveloped, fenced, after, before or between prose. Then
//! the answer is decided by these rules, in order:
//!
//! 1. **Reasoning is not the answer.** `<think>…</think>`, `<thinking>…</thinking>` and
//!    `<reasoning>…</reasoning>` blocks (any case) are skipped, with any JSON in them; a closing
//!    tag with no opening one (the opening tag was in the prompt) makes everything before it
//!    reasoning. Tags inside a JSON value's strings are text. A block that is never closed leaves
//!    no answer: an issue.
//! 2. **A cut-off value is truncation.** A value the reply ends inside is refused as cut off,
//!    naming the part left open, never read as one of its parts.
//! 3. **Broken JSON is refused.** A `{` or `[` whose JSON breaks after a member name and colon or
//!    a whole element was read (or that starts its line) is refused with the place it breaks; its
//!    parts are never candidates. A bracket that breaks at once (`{ like this }`, `[see note]`) is
//!    prose.
//! 4. **Only candidates of a kind the type takes compete.** A candidate is *relevant* when its
//!    JSON kind (or, for `{"value": X}`, X's kind) is one the type's JSON form can be: so
//!    `listing['rooms']` in prose does not compete with the object that follows it for a struct.
//!    With no relevant candidate, the largest candidate is read and its issues are reported (an
//!    array for a struct is "Must be an object"); with none at all, the reply holds no JSON value.
//! 5. **Exactly one answer.** Every relevant candidate is read as the answer. One candidate is the
//!    answer (or its issues are); several that all read to the same value are one answer; several
//!    that differ, or of which one does not read, are refused naming the first two that disagree.
//! 6. **Prose around the answer, not JSON.** The text after the answer must not continue JSON
//!    (a closing bracket it did not open, `:`, a `"`, or `,` and more JSON), nor hold more values
//!    after a comma (`{}, {}, {}`) or joined with `+` (`"hello" + " world"`), comments between
//!    them or not: reading the first alone would drop the rest, so such a reply is refused with
//!    that reason. Nor may the text before it end with a member name and its colon ([`gap`]). A bare number, string or literal
//!    counts only at the very start of the reply, must end at white space (`4,250`, `3/4` and
//!    `512e7f30-…` are no numbers), and no second bare number or literal of a kind the type takes
//!    may follow it in the prose (`false or true`).
//!
//! Tokens inside JSON end at a delimiter too, leading zeros are refused, and Unicode white space
//! separates tokens ([`parse`](super::parse), [`number`](super::parse::number)). Markdown bullets and
//! numbers before the JSON (`- {...}`, `1. {...}`) are prose.

mod gap;
pub(crate) mod scan;

use std::borrow::Cow;

use serde_json::Value;

use crate::result::{IssueKind, ResultIssue};
use crate::shape::{Kinds, TypeInfo};

use super::answer::{self, Answer};
use super::text::{clip, position};
use gap::Debris;
use scan::{Candidate, Form};

/// What a model is asked to reply, added to issues about the reply's form.
pub(crate) const REPLY_FORM: &str = "Reply with one JSON object {\"value\": ...} and nothing else.";

/// The reply's answer, read and normalized, or every issue that keeps the reply from having one.
pub(crate) fn locate(info: &TypeInfo, text: &str) -> Result<Answer, Vec<ResultIssue>> {
    locate_at(info, text).map(|(answer, _)| answer)
}

/// Where in `text` the answer [`locate`] takes begins (the byte offset of its candidate's first
/// character), or `None` when it takes none: for a stream, which follows one candidate while the
/// reply arrives, to learn whether the final reading took that one.
pub(crate) fn answer_start(info: &TypeInfo, text: &str) -> Option<usize> {
    locate_at(info, text).ok().map(|(_, start)| start)
}

/// [`locate`], with the offset of the answer's candidate.
fn locate_at(info: &TypeInfo, text: &str) -> Result<(Answer, usize), Vec<ResultIssue>> {
    if text.trim_matches(super::text::is_space).is_empty() {
        return Err(parse_issue(format!("The reply was empty. {REPLY_FORM}")));
    }
    let found = scan::scan(text);
    if let Some((tag, at)) = found.unclosed {
        return Err(parse_issue(format!(
            "The reply's reasoning block <{tag}> (opened at {}) is never closed, so no answer follows it; close it with </{tag}> and give the answer after it. {REPLY_FORM}",
            position(text, at)
        )));
    }
    for candidate in &found.candidates {
        if let Form::CutOff(error) = &candidate.form {
            return Err(parse_issue(error.message(text)));
        }
    }
    for candidate in &found.candidates {
        if let Form::Broken(error) = &candidate.form {
            return Err(parse_issue(format!("{} {REPLY_FORM}", error.message(text))));
        }
    }
    let kinds = info.graph().accepts(info.root()).kinds(info.graph());
    let mut candidates = found.candidates;
    let relevant: Vec<usize> = (0..candidates.len())
        .filter(|&i| is_relevant(info, kinds, &candidates[i]))
        .collect();
    if relevant.is_empty() {
        // Nothing of a kind the type takes: the largest value says what is wrong.
        let largest =
            (0..candidates.len()).max_by_key(|&i| candidates[i].end - candidates[i].start);
        return match largest {
            Some(i) => read(info, &mut candidates[i]).map(|a| (a, candidates[i].start)),
            None => Err(parse_issue(match found.leading_error {
                Some(error) => format!("{error}. {REPLY_FORM}"),
                None => format!("The reply holds no JSON value. {REPLY_FORM}"),
            })),
        };
    }
    // Read until two candidates disagree: the first pair that does decides the refusal.
    let first = read(info, &mut candidates[relevant[0]]);
    for &i in &relevant[1..] {
        let other = read(info, &mut candidates[i]);
        if matches!((&first, &other), (Ok(a), Ok(b)) if a.value == b.value) {
            continue;
        }
        let what = if first.is_ok() && other.is_ok() {
            "two different answers"
        } else {
            "more than one JSON value that could be the answer"
        };
        return Err(parse_issue(format!(
            "The reply holds {what}: {} and {}. Reply with exactly one JSON value.",
            shown(text, &candidates[relevant[0]]),
            shown(text, &candidates[i])
        )));
    }
    for &i in &relevant {
        surroundings(kinds, text, &candidates[i])?;
    }
    first.map(|answer| (answer, candidates[relevant[0]].start))
}

/// The reply's text with its reasoning blocks taken out, and the reasoning itself (the blocks'
/// contents, trimmed, joined by blank lines), for keeping on an attempt's record. The blocks are
/// the ones [`locate`] skips, so reading the answer text finds the same answer as reading the
/// whole reply.
pub(crate) fn split_reasoning(text: &str) -> (Cow<'_, str>, Option<String>) {
    let (blocks, _) = scan::blocks(text);
    if blocks.is_empty() {
        return (Cow::Borrowed(text), None);
    }
    let mut answer = String::with_capacity(text.len());
    let mut reasoning: Vec<&str> = Vec::with_capacity(blocks.len());
    let mut from = 0;
    for block in &blocks {
        answer.push_str(&text[from..block.whole.start]);
        from = block.whole.end;
        let content = text[block.content.clone()].trim_matches(super::text::is_space);
        if !content.is_empty() {
            reasoning.push(content);
        }
    }
    answer.push_str(&text[from..]);
    let reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n\n"));
    (
        Cow::Owned(answer.trim_matches(super::text::is_space).to_owned()),
        reasoning,
    )
}

/// True when the candidate's value (or an envelope's content) is of a kind the type takes.
fn is_relevant(info: &TypeInfo, kinds: Kinds, candidate: &Candidate) -> bool {
    let Form::Complete(parsed) = &candidate.form else {
        return true;
    };
    let value = &parsed.value;
    let mut own = Kinds::of(value);
    if let Some(inner) = answer::envelope_inner(value) {
        own = own.or(Kinds::of(inner));
    }
    if let Value::String(text) = value {
        if answer::wants_structure(info)
            && text
                .trim_start_matches(super::text::is_space)
                .starts_with(['{', '['])
        {
            own = own.or(Kinds::OBJECT).or(Kinds::ARRAY);
        }
    }
    own.meets(kinds)
}

/// Reads a candidate as the answer, moving its value out.
fn read(info: &TypeInfo, candidate: &mut Candidate) -> Result<Answer, Vec<ResultIssue>> {
    match std::mem::replace(&mut candidate.form, Form::Taken) {
        Form::Complete(parsed) => answer::read(info, parsed),
        Form::Broken(_) | Form::CutOff(_) | Form::Taken => Err(parse_issue(format!(
            "The reply holds no JSON value. {REPLY_FORM}"
        ))),
    }
}

/// Checks that prose, not JSON, surrounds the answer, and that a bare scalar has no rival.
fn surroundings(kinds: Kinds, text: &str, candidate: &Candidate) -> Result<(), Vec<ResultIssue>> {
    let after = &text[candidate.after.clone()];
    let bare_string = candidate.scalar && text[candidate.start..].starts_with(['"', '\'']);
    if let Some(debris) = gap::debris_after(&text[candidate.end..], after, bare_string) {
        let value = shown(text, candidate);
        let rest = clip(text[candidate.end..].trim_matches(super::text::is_space));
        return Err(parse_issue(match debris {
            Debris::Continues => format!(
                "The reply's JSON value {value} is followed by `{rest}`, which looks like more JSON but is not part of the value; reply with exactly one complete JSON value (a quote inside a string is written \\\")."
            ),
            Debris::Values => format!(
                "The reply's JSON value {value} is followed by `{rest}`: several values separated by commas are not one JSON value, and reading the first alone would drop the others; reply with exactly one JSON value (several go in one list: [..., ...])."
            ),
            Debris::Joined => format!(
                "The reply's JSON value {value} is followed by `{rest}`: values joined with `+` are an expression, not JSON, and reading the first part alone would drop the rest; reply with the whole value as one JSON value (one string for a text)."
            ),
        }));
    }
    let before = &text[..candidate.start];
    if gap::debris_before(before) {
        let shown_before = before.trim_matches(super::text::is_space);
        let tail = shown_before
            .char_indices()
            .rev()
            .nth(39)
            .map_or(shown_before, |(at, _)| &shown_before[at..]);
        return Err(parse_issue(format!(
            "The reply's JSON value {} follows `{tail}`, which looks like JSON it is not part of; reply with exactly one complete JSON value.",
            shown(text, candidate)
        )));
    }
    if candidate.scalar {
        if let Some((offset, rival)) = gap::scalar_word(after) {
            if Kinds::of(&rival).meets(kinds) {
                let at = candidate.after.start + offset;
                return Err(parse_issue(format!(
                    "The reply holds two different answers: {} and `{rival}` (at {}). Reply with exactly one JSON value.",
                    shown(text, candidate),
                    position(text, at)
                )));
            }
        }
    }
    Ok(())
}

/// A candidate as messages show it: "`{"rooms": 2}` (at line 1, column 8)".
fn shown(text: &str, candidate: &Candidate) -> String {
    format!(
        "`{}` (at {})",
        clip(&text[candidate.start..candidate.end]),
        position(text, candidate.start)
    )
}

fn parse_issue(message: String) -> Vec<ResultIssue> {
    vec![ResultIssue::new(IssueKind::Parse, message)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasoning_is_split_off_and_kept() {
        let (answer, reasoning) = split_reasoning(
            "<think> Two rooms? </think>\n<reasoning>No, three.</reasoning>{\"value\": 3}",
        );
        assert_eq!(answer, "{\"value\": 3}");
        assert_eq!(reasoning.as_deref(), Some("Two rooms?\n\nNo, three."));
        let (answer, reasoning) = split_reasoning("Draft {\"value\": 2}\n</think>\n{\"value\": 3}");
        assert_eq!(answer, "{\"value\": 3}");
        assert_eq!(reasoning.as_deref(), Some("Draft {\"value\": 2}"));
        let plain = "{\"value\": \"<think>is text here</think>\"}";
        assert!(matches!(split_reasoning(plain), (Cow::Borrowed(text), None) if text == plain));
    }
}

//! Finding the one JSON value in a reply: inside a code fence, after or before prose.

use super::lenient::{self, ParseError, Parsed};

/// The text inside the first code fence of `text` (its info string such as `json` dropped), or
/// `text` itself when it has no fence. Prose before and after the fence is dropped; an unclosed
/// fence yields everything after its opening line.
pub(crate) fn strip_fence(text: &str) -> &str {
    // A reply that starts as a JSON object or array has no fence around it: a ``` in it is text.
    if text.starts_with(['{', '[']) {
        return text;
    }
    let Some(open) = text.find("```") else {
        return text;
    };
    let after = &text[open + 3..];
    // The info string runs to the end of the opening line; a one-line fence has none.
    let body = match after.find('\n') {
        Some(eol) if !after[..eol].contains("```") && !after[..eol].contains(['{', '[']) => {
            &after[eol + 1..]
        }
        _ => after.trim_start_matches(|c: char| c.is_ascii_alphanumeric()),
    };
    // The last fence closes: a ``` inside the fenced JSON's strings is text.
    match body.rfind("```") {
        Some(close) => body[..close].trim(),
        None => body.trim(),
    }
}

/// What was found in a reply.
#[derive(Debug)]
pub(crate) enum Found {
    /// One value.
    Value(Parsed),
    /// No value could be read: the message says why.
    Unreadable(ParseError),
    /// More than one top-level value.
    Several,
}

/// Finds the one JSON value in `text`, which is already trimmed and unfenced.
///
/// A reply that starts like a JSON value is read from its start; otherwise the value is looked for
/// at the first `{` or `[` (and, when that fails, at the other one), so prose before and after it is
/// ignored. Text after the value is accepted when it is prose, and refused when another JSON value
/// starts there.
pub(crate) fn find_value(text: &str) -> Found {
    let starts_like_json = matches!(
        text.as_bytes().first(),
        Some(b'{' | b'[' | b'"' | b'\'' | b'-' | b'0'..=b'9')
    ) || ["true", "false", "null"]
        .iter()
        .any(|w| starts_with_word(text, w));
    if starts_like_json {
        return finish(text, lenient::parse_at(text, 0));
    }
    let brace = text.find('{');
    let bracket = text.find('[');
    let (first, second) = match (brace, bracket) {
        (Some(a), Some(b)) if b < a => (Some(b), Some(a)),
        (a, b) => (a.or(b), if a.is_some() { b } else { None }),
    };
    let Some(first) = first else {
        return Found::Unreadable(ParseError {
            message: "The reply holds no JSON value.".to_owned(),
        });
    };
    match lenient::parse_at(text, first) {
        Ok(parsed) => finish(text, Ok(parsed)),
        Err(error) => match second {
            Some(second) => match lenient::parse_at(text, second) {
                Ok(parsed) => finish(text, Ok(parsed)),
                Err(_) => Found::Unreadable(error),
            },
            None => Found::Unreadable(error),
        },
    }
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.starts_with(word)
        && !text[word.len()..]
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn finish(text: &str, parsed: Result<Parsed, ParseError>) -> Found {
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return Found::Unreadable(error),
    };
    let next = lenient::skip_space_from(text, parsed.end);
    let rest = &text[next..];
    if rest.starts_with(['{', '[']) || (rest.starts_with('"') && lenient::parse_at(rest, 0).is_ok())
    {
        Found::Several
    } else {
        Found::Value(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_with_language_and_prose() {
        assert_eq!(
            strip_fence("Sure:\n```json\n{\"a\": 1}\n```\nDone."),
            "{\"a\": 1}"
        );
        assert_eq!(strip_fence("```{\"a\": 1}```"), "{\"a\": 1}");
        assert_eq!(strip_fence("```json\n{\"a\": 1"), "{\"a\": 1");
        assert_eq!(strip_fence("no fence"), "no fence");
    }

    #[test]
    fn value_after_prose_is_found() {
        let Found::Value(p) = find_value("The answer is {\"value\": 2} as asked.") else {
            panic!("no value");
        };
        assert_eq!(p.value, serde_json::json!({"value": 2}));
    }

    #[test]
    fn two_values_are_several() {
        assert!(matches!(find_value("{\"a\":1} {\"a\":2}"), Found::Several));
        assert!(matches!(find_value("[1] [2]"), Found::Several));
    }
}

#[cfg(test)]
mod fence_tests {
    use super::strip_fence;

    #[test]
    fn backticks_inside_unfenced_json_are_text() {
        let reply = r#"{"value": {"id": "```", "n": 1}}"#;
        assert_eq!(strip_fence(reply), reply);
    }

    #[test]
    fn the_last_fence_closes_so_backticks_inside_fenced_json_are_text() {
        let reply = "Here:\n```json\n{\"value\": \"a ``` b\"}\n```\nThanks.";
        assert_eq!(strip_fence(reply), "{\"value\": \"a ``` b\"}");
    }
}

//! The values an answer holds at a member's path, with where they sit: what every check on named
//! members (grounded members, sample values, rule bounds) looks at.
//!
//! A walk writes no text: each value comes with an [`At`], its JSON pointer not yet written, whose
//! steps borrow the walk's stack. Only a finding writes its pointer out, so checking an answer that
//! passes costs no allocation for the pointers it passed through.

use std::fmt::Write as _;

use serde_json::Value;

use crate::read::push_pointer_token;
use crate::shape::Seg;

/// Where a value sits in an answer: a JSON pointer not yet written, each step borrowing the one
/// before it. [`pointer`](Self::pointer) writes it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum At<'p> {
    /// The pointer the walk starts at, as written (`/value`).
    Root(&'p str),
    /// The element at an index of a list (`/3`) below another place.
    Element(&'p At<'p>, usize),
    /// A member of an object (`/sku`, escaped) below another place.
    Member(&'p At<'p>, &'p str),
}

/// Where an answer's value sits inside its envelope: `/value` (the envelope's
/// [`ENVELOPE_PROPERTY`], as a test below holds).
pub(crate) const ANSWER: At<'static> = At::Root("/value");

impl At<'_> {
    /// The JSON pointer, written out (a finding's path).
    pub(crate) fn pointer(&self) -> String {
        match self {
            At::Root(root) => (*root).to_owned(),
            At::Element(parent, index) => {
                let mut out = parent.pointer();
                // Writing into a `String` cannot fail.
                let _ = write!(out, "/{index}");
                out
            }
            At::Member(parent, key) => {
                let mut out = parent.pointer();
                push_pointer_token(&mut out, key);
                out
            }
        }
    }
}

/// Calls `visit` with every value of `value` at `path` and where it sits below `at`. A member is
/// found by its wire name, or failing that by the same name in another case (an element's JSON
/// read as the model wrote it).
pub(crate) fn values_at<'v>(
    value: &'v Value,
    path: &[Seg],
    at: &At<'_>,
    visit: &mut dyn FnMut(&At<'_>, &'v Value),
) {
    let Some((step, rest)) = path.split_first() else {
        visit(at, value);
        return;
    };
    match (step, value) {
        (Seg::Member(name), Value::Object(object)) => {
            let found = object.get_key_value(name.as_str()).or_else(|| {
                object
                    .iter()
                    .find(|(key, _)| key.eq_ignore_ascii_case(name))
            });
            if let Some((key, member)) = found {
                values_at(member, rest, &At::Member(at, key), visit);
            }
        }
        (Seg::Each, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                values_at(item, rest, &At::Element(at, i), visit);
            }
        }
        (Seg::EachValue, Value::Object(object)) => {
            for (key, item) in object {
                values_at(item, rest, &At::Member(at, key), visit);
            }
        }
        (Seg::Index(i), Value::Array(items)) => {
            if let Some(item) = items.get(*i) {
                values_at(item, rest, &At::Element(at, *i), visit);
            }
        }
        // An enum variant's members sit below its tag; a value of another form holds none.
        (_, Value::Object(object)) if object.len() == 1 => {
            if let Some(inner) = object.values().next() {
                values_at(inner, path, at, visit);
            }
        }
        _ => {}
    }
}

/// Calls `visit` with every value of an answer (the value inside the envelope) at a member's
/// `path`, and where it sits from the envelope (`/value/...`).
pub(crate) fn answer_values_at<'v>(
    answer: &'v Value,
    path: &[Seg],
    visit: &mut dyn FnMut(&At<'_>, &'v Value),
) {
    values_at(answer, path, &ANSWER, visit);
}

/// A value as a message quotes it: a string as it is, anything else as JSON, cut at 80
/// characters.
pub(crate) fn quoted(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() <= 80 {
        return text;
    }
    let mut cut: String = text.chars().take(77).collect();
    cut.push_str("...");
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::ENVELOPE_PROPERTY;

    #[test]
    fn values_are_found_at_their_paths() {
        let json: Value = serde_json::json!({"lines": [{"q": 1}, {"Q": 2}], "a/b": {"q": 3}});
        let mut found = Vec::new();
        let path = [
            Seg::Member("lines".into()),
            Seg::Each,
            Seg::Member("q".into()),
        ];
        answer_values_at(&json, &path, &mut |at, value| {
            found.push((at.pointer(), value.clone()))
        });
        assert_eq!(
            found,
            vec![
                ("/value/lines/0/q".to_owned(), Value::from(1)),
                ("/value/lines/1/Q".to_owned(), Value::from(2))
            ]
        );
        let mut escaped = Vec::new();
        let path = [Seg::Member("a/b".into()), Seg::Member("q".into())];
        answer_values_at(&json, &path, &mut |at, _| escaped.push(at.pointer()));
        assert_eq!(escaped, ["/value/a~1b/q"]);
    }

    #[test]
    fn the_answer_is_the_envelope_member() {
        assert_eq!(ANSWER.pointer(), format!("/{ENVELOPE_PROPERTY}"));
    }
}

//! The values an answer holds at a member's path, with their JSON pointers: what every check on
//! named members (grounded members, sample values, rule bounds) looks at.

use serde_json::Value;

use crate::read::join_pointer;
use crate::shape::Seg;

/// Every value of `value` at `path`, with its JSON pointer below `pointer`. A member is found by
/// its wire name, or failing that by the same name in another case (an element's JSON read as
/// the model wrote it).
pub(crate) fn values_at<'v>(
    value: &'v Value,
    path: &[Seg],
    pointer: String,
    out: &mut Vec<(String, &'v Value)>,
) {
    let Some((step, rest)) = path.split_first() else {
        out.push((pointer, value));
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
                values_at(member, rest, join_pointer(&pointer, key), out);
            }
        }
        (Seg::Each, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                values_at(item, rest, join_pointer(&pointer, &i.to_string()), out);
            }
        }
        (Seg::EachValue, Value::Object(object)) => {
            for (key, item) in object {
                values_at(item, rest, join_pointer(&pointer, key), out);
            }
        }
        (Seg::Index(i), Value::Array(items)) => {
            if let Some(item) = items.get(*i) {
                values_at(item, rest, join_pointer(&pointer, &i.to_string()), out);
            }
        }
        // An enum variant's members sit below its tag; a value of another form holds none.
        (_, Value::Object(object)) if object.len() == 1 => {
            if let Some(inner) = object.values().next() {
                values_at(inner, path, pointer, out);
            }
        }
        _ => {}
    }
}

/// Every value of an answer (the value inside the envelope) at a member's `path`, with its JSON
/// pointer from the envelope (`/value/...`).
pub(crate) fn answer_values_at<'v>(answer: &'v Value, path: &[Seg]) -> Vec<(String, &'v Value)> {
    let mut found = Vec::new();
    values_at(
        answer,
        path,
        format!("/{}", crate::schema::ENVELOPE_PROPERTY),
        &mut found,
    );
    found
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

    #[test]
    fn values_are_found_at_their_paths() {
        let json: Value = serde_json::json!({"lines": [{"q": 1}, {"Q": 2}], "total": 3});
        let mut out = Vec::new();
        values_at(
            &json,
            &[
                Seg::Member("lines".into()),
                Seg::Each,
                Seg::Member("q".into()),
            ],
            "/value".into(),
            &mut out,
        );
        let found: Vec<(String, Value)> = out.into_iter().map(|(p, v)| (p, v.clone())).collect();
        assert_eq!(
            found,
            vec![
                ("/value/lines/0/q".to_owned(), Value::from(1)),
                ("/value/lines/1/Q".to_owned(), Value::from(2))
            ]
        );
    }
}

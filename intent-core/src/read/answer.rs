//! Reading one candidate value as the answer: a string holding JSON opened, the envelope
//! unwrapped, repeated members refused, the value verified and normalized, and serde's final word.

use serde_json::Value;

use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{Kinds, Node, Scalar, TypeInfo};

use super::findings::Findings;
use super::parse::{self, Parsed};
use super::path::{self, Path};
use super::verify::Walker;

/// A reply's answer: its value, normalized, and the doubles its numbers read as by losing their
/// fraction (for reading parts of it as integers later, as collections do).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub(crate) value: Value,
    pub(crate) lossy: Vec<u64>,
}

/// The candidate's value as the answer, normalized, or every issue that keeps it from being one.
pub(crate) fn read(info: &TypeInfo, mut parsed: Parsed) -> Result<Answer, Vec<ResultIssue>> {
    if let Some(inner) = held_json(info, &parsed.value) {
        parsed = inner;
    }
    let (value, enveloped) = unwrap_envelope(info, parsed.value).map_err(|issue| vec![issue])?;
    let mut findings = Findings::new();
    for (relative, key) in parsed.duplicates {
        let pointer = if enveloped {
            relative
        } else {
            format!("/{ENVELOPE_PROPERTY}{relative}")
        };
        findings.push(ResultIssue::at(
            pointer,
            IssueKind::Shape,
            format!("The member `{key}` is given more than once in the same object; give it once."),
        ));
    }
    findings.count_more(parsed.more_duplicates);
    let value = verify(info, value, findings, &parsed.lossy)?;
    Ok(Answer {
        value,
        lossy: parsed.lossy,
    })
}

/// The JSON a string holds (`"{\"value\": 3}"`), when the type's JSON form is an object or an
/// array and the string is one whole JSON value of that kind.
fn held_json(info: &TypeInfo, value: &Value) -> Option<Parsed> {
    let Value::String(text) = value else {
        return None;
    };
    if !wants_structure(info)
        || !text
            .trim_start_matches(super::text::is_space)
            .starts_with(['{', '['])
    {
        return None;
    }
    let parsed = parse::parse_at(text, 0).ok()?;
    text[parsed.end..]
        .chars()
        .all(super::text::is_space)
        .then_some(parsed)
}

/// True when the type's JSON form is an object or array (and not any JSON), so a string holding
/// such JSON is read as the JSON it holds.
pub(crate) fn wants_structure(info: &TypeInfo) -> bool {
    let kinds = info.graph().accepts(info.root()).kinds(info.graph());
    kinds.meets(Kinds::OBJECT.or(Kinds::ARRAY)) && !kinds.is_any()
}

/// The value of an envelope-shaped object (`{"value": X}`, the name in any case, nothing beside
/// it).
pub(crate) fn envelope_inner(value: &Value) -> Option<&Value> {
    match value {
        Value::Object(map) if map.len() == 1 => map
            .iter()
            .next()
            .filter(|(key, _)| key.eq_ignore_ascii_case(ENVELOPE_PROPERTY))
            .map(|(_, inner)| inner),
        _ => None,
    }
}

/// Verifies and normalizes a value already out of its envelope; `findings` holds findings so
/// far, `lossy` the doubles its numbers read as by losing their fraction.
pub(crate) fn verify(
    info: &TypeInfo,
    mut value: Value,
    findings: Findings,
    lossy: &[u64],
) -> Result<Value, Vec<ResultIssue>> {
    let mut walker = Walker::new(info.graph());
    walker.issues = findings;
    walker.lossy = lossy.to_vec();
    // Any JSON may sit inside a `Value`, but a whole answer of `null` is no answer (unless the
    // type is an `Option`, as a runtime schema's reading is: the schema says).
    let root = info.graph().accepts(info.root());
    if value.is_null()
        && matches!(root.node, Node::Scalar(Scalar::Json))
        && !matches!(info.graph().node(info.root()), Node::Option(_))
    {
        walker.issues.push(ResultIssue::at(
            format!("/{ENVELOPE_PROPERTY}"),
            IssueKind::Shape,
            "Must not be null: answer with the JSON value the intent asks for.",
        ));
        return Err(walker.issues.into_issues());
    }
    walker.walk(info.root(), &mut value, &Path::Root);
    let budget = walker.budget_issue();
    if walker.issues.is_empty() && budget.is_none() {
        return Ok(value);
    }
    let mut issues = walker.issues.into_issues();
    // The walk stopped early: say so first, whatever else was found.
    issues.splice(0..0, budget);
    Err(issues)
}

/// Deserializes a normalized value with serde, the final authority: a `Value`, or a `&Value`
/// when the caller keeps the answer's JSON (read without copying it).
pub(crate) fn deserialize<'de, T, D>(value: D) -> Result<T, Vec<ResultIssue>>
where
    T: serde::de::DeserializeOwned,
    D: serde::Deserializer<'de, Error = serde_json::Error>,
{
    serde_path_to_error::deserialize(value).map_err(|error| {
        let mut pointer = String::from("/value");
        for segment in error.path() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => {
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                }
                serde_path_to_error::Segment::Map { key } => path::push_token(&mut pointer, key),
                serde_path_to_error::Segment::Enum { variant } => {
                    path::push_token(&mut pointer, variant)
                }
                serde_path_to_error::Segment::Unknown => {}
            }
        }
        let message = error.into_inner().to_string();
        vec![ResultIssue::at(
            pointer,
            IssueKind::Shape,
            format!("The value could not be read: {message}."),
        )]
    })
}

/// Splits the envelope off a reply: `(value, true)` when it was `{"value": X}`, `(reply, false)`
/// for a bare value. An object with `value` and other members is refused unless the type could be
/// that object itself.
fn unwrap_envelope(info: &TypeInfo, reply: Value) -> Result<(Value, bool), ResultIssue> {
    let Value::Object(mut map) = reply else {
        return Ok((reply, false));
    };
    let envelope_key = map
        .keys()
        .find(|k| k.eq_ignore_ascii_case(ENVELOPE_PROPERTY))
        .cloned();
    let Some(key) = envelope_key else {
        return Ok((Value::Object(map), false));
    };
    let lookalike = info.accepts_envelope_lookalike();
    if map.len() > 1 {
        if lookalike {
            return Ok((Value::Object(map), false));
        }
        let others: Vec<String> = map
            .keys()
            .filter(|k| **k != key)
            .map(|k| format!("`{k}`"))
            .collect();
        return Err(ResultIssue::new(
            IssueKind::Shape,
            format!(
                "The reply's object has `{ENVELOPE_PROPERTY}` and other members ({}); put the whole answer inside `{ENVELOPE_PROPERTY}`: {{\"{ENVELOPE_PROPERTY}\": ...}} with nothing beside it.",
                others.join(", ")
            ),
        ));
    }
    if lookalike {
        // `{"value": X}` may be the envelope or the value itself: the envelope when X fits.
        let inner = map.get(&key).cloned().unwrap_or(Value::Null);
        let mut trial = inner.clone();
        let mut walker = Walker::new(info.graph());
        walker.walk(info.root(), &mut trial, &Path::Root);
        if !walker.issues.is_empty() {
            let mut bare = Value::Object(map.clone());
            let mut walker = Walker::new(info.graph());
            walker.walk(info.root(), &mut bare, &Path::Root);
            if walker.issues.is_empty() {
                return Ok((Value::Object(map), false));
            }
        }
        return Ok((inner, true));
    }
    let inner = map.shift_remove(&key).unwrap_or(Value::Null);
    Ok((inner, true))
}

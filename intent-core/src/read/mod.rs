//! Reading a reply: lenient about form, strict about content.
//!
//! [`read_reply`] turns a model's reply text into the result type, or into every issue that keeps
//! it from being one. It works in four steps:
//!
//! 1. **Find the value.** A surrounding code fence (```` ```json ````) is stripped and the one JSON
//!    value is found inside any prose around it. The JSON may be loose: `//` and `/* */` comments,
//!    trailing commas, single-quoted strings and unquoted member names are read. A reply that is a
//!    JSON string holding an object or array (`"{\"value\": 3}"`) is read as that object or array
//!    when the type is not itself a string. Two top-level values, a truncated value, `NaN`, numbers
//!    beyond a double, lone surrogates and nesting deeper than [`MAX_DEPTH`] are refused.
//! 2. **Unwrap the envelope.** `{"value": X}` yields `X`; a bare `X` is accepted too. An object with
//!    `value` *and* other members is refused unless the type could be such an object itself (a map,
//!    a JSON object, or a struct with its own member named `value`); for such types a reply
//!    `{"value": X}` is read as the envelope when `X` fits the type and as the value itself otherwise.
//! 3. **Verify** the value against the type's shape, reporting every violation with its JSON
//!    pointer (`/value/lines/2/sku`): required members present, `null` only where the type is an
//!    `Option`, enums by name (any case, never a number), integers in range and whole, arrays of the
//!    right length, set elements unique, dates in ISO 8601, and each member's rules. Along the way
//!    member names written in another case are mapped to their wire names, numbers written as strings
//!    are read as numbers, and enum names are put in their canonical case. Members the type does
//!    not know are ignored, as serde ignores them. A member named twice is refused.
//! 4. **Deserialize** the normalized value with serde, the final authority; a serde error is an
//!    issue with its path.
//!
//! A well-formed reply takes a fast path: serde reads the text straight into the type in one pass,
//! with no intermediate `serde_json::Value`, while every value it reads is checked against the
//! shape. The fast path never changes an outcome: whatever fails a check goes through the steps
//! above.
//!
//! For a `String` result (a text result) the reply itself, trimmed, is the value; an empty reply is
//! an issue.

mod checked;
mod enums;
mod extract;
mod lenient;
mod path;
mod rules;
mod scalar;
mod skim;
mod verify;

pub use lenient::MAX_DEPTH;
pub(crate) use rules::messages as rule_messages;
pub use verify::{MAX_WALK_DEPTH, MAX_WALK_STEPS};

use serde_json::Value;

use crate::intent::Intent;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{Node, Scalar, StructKind, TargetKind, TypeInfo};

use extract::Found;
use path::Path;
use verify::Walker;

const REPLY_FORM: &str = "Reply with one JSON object {\"value\": ...} and nothing else.";

/// Reads a reply's text into a `T`, or every issue found.
///
/// ```
/// use intent_core::read::read_reply;
/// use intent_core::Intent;
///
/// let info = <Vec<u8>>::type_info();
/// let read: Vec<u8> = read_reply(&info, "Sure:\n```json\n{\"value\": [1, \"2\", 3,]}\n```").unwrap();
/// assert_eq!(read, vec![1, 2, 3]);
///
/// let issues = read_reply::<Vec<u8>>(&info, r#"{"value": [1, 300, 2.5]}"#).unwrap_err();
/// assert_eq!(issues.len(), 2);
/// assert_eq!(issues[0].path.as_deref(), Some("/value/1"));
/// assert_eq!(issues[0].message, "Must be a whole number from 0 to 255 (byte); got 300.");
/// ```
pub fn read_reply<T: Intent>(info: &TypeInfo, text: &str) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        return read_text(text);
    }
    let trimmed = text.trim();
    let body = if trimmed.starts_with("```") {
        extract::strip_fence(trimmed)
    } else {
        trimmed
    };
    if body.starts_with('{') && info.fast_read(skim::eligible) {
        if let Some(value) = skim::read::<T>(info.graph(), info.root(), body) {
            return Ok(value);
        }
    }
    read_lenient(info, trimmed)
}

/// Reads a value that is already JSON (the `<result>` itself, not its envelope) into a `T`: the
/// same verification, normalization and rules as [`read_reply`], without parsing text. Issue
/// paths start at `/value`. A text result takes a JSON string.
///
/// ```
/// use intent_core::read::read_value;
/// use intent_core::Intent;
///
/// let info = <Vec<u8>>::type_info();
/// assert_eq!(read_value::<Vec<u8>>(&info, serde_json::json!([1, "2"])).unwrap(), vec![1, 2]);
/// let issues = read_value::<Vec<u8>>(&info, serde_json::json!([300])).unwrap_err();
/// assert_eq!(issues[0].path.as_deref(), Some("/value/0"));
/// ```
pub fn read_value<T: Intent>(info: &TypeInfo, value: Value) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        return match value {
            Value::String(text) => read_text(&text),
            other => Err(vec![ResultIssue::at(
                format!("/{ENVELOPE_PROPERTY}"),
                IssueKind::Shape,
                format!(
                    "Must be text (a JSON string); got {}.",
                    crate::schema::kind_of(&other)
                ),
            )]),
        };
    }
    deserialize(verify_value(info, value, Vec::new())?)
}

/// The lenient path alone (the fast path skipped): used by [`read_reply`] and by tests that hold
/// the two paths to the same outcome.
#[doc(hidden)]
pub fn read_reply_lenient<T: Intent>(info: &TypeInfo, text: &str) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        return read_text(text);
    }
    read_lenient(info, text.trim())
}

fn read_text<T: Intent>(text: &str) -> Result<T, Vec<ResultIssue>> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(vec![ResultIssue::new(
            IssueKind::Parse,
            "The reply was empty. Answer with the text the intent asks for.",
        )]);
    }
    serde_json::from_value(Value::String(trimmed.to_owned()))
        .map_err(|e| vec![ResultIssue::new(IssueKind::Shape, e.to_string())])
}

/// Reads a reply into a `T` and also returns the reply's value as normalized JSON (envelope
/// removed, member and enum names in their wire spelling, numbers from strings read as numbers),
/// for checks written over JSON, such as an intent file's rules. For a text result the JSON is the
/// trimmed text as a string.
///
/// ```
/// use intent_core::read::read_reply_json;
/// use intent_core::Intent;
///
/// let info = <Vec<u8>>::type_info();
/// let (read, json) = read_reply_json::<Vec<u8>>(&info, "{\"value\": [1, \"2\", /* three */ 3,]}").unwrap();
/// assert_eq!(read, vec![1, 2, 3]);
/// assert_eq!(json, serde_json::json!([1, 2, 3]));
/// ```
pub fn read_reply_json<T: Intent>(
    info: &TypeInfo,
    text: &str,
) -> Result<(T, Value), Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        let value = read_text(text)?;
        return Ok((value, Value::String(text.trim().to_owned())));
    }
    let json = normalize(info, text.trim())?;
    let value = deserialize(json.clone())?;
    Ok((value, json))
}

fn read_lenient<T: Intent>(info: &TypeInfo, trimmed: &str) -> Result<T, Vec<ResultIssue>> {
    deserialize(normalize(info, trimmed)?)
}

/// The reply's value, found, unwrapped from its envelope, verified and normalized.
fn normalize(info: &TypeInfo, trimmed: &str) -> Result<Value, Vec<ResultIssue>> {
    if trimmed.is_empty() {
        return Err(vec![ResultIssue::new(
            IssueKind::Parse,
            format!("The reply was empty. {REPLY_FORM}"),
        )]);
    }
    let body = extract::strip_fence(trimmed);
    let mut parsed = match extract::find_value(body) {
        Found::Value(parsed) => parsed,
        Found::Unreadable(error) => {
            return Err(vec![ResultIssue::new(
                IssueKind::Parse,
                format!("{} {REPLY_FORM}", error.message),
            )])
        }
        Found::Several => {
            return Err(vec![ResultIssue::new(
                IssueKind::Parse,
                format!("The reply holds more than one JSON value. {REPLY_FORM}"),
            )])
        }
    };
    if let Value::String(inner) = &parsed.value {
        let inner = inner.trim();
        if wants_structure(info) && inner.starts_with(['{', '[']) {
            if let Found::Value(unquoted) = extract::find_value(inner) {
                parsed = unquoted;
            }
        }
    }

    let (value, enveloped) = match unwrap_envelope(info, parsed.value) {
        Ok(found) => found,
        Err(issue) => return Err(vec![issue]),
    };
    let issues: Vec<ResultIssue> = parsed
        .duplicates
        .into_iter()
        .map(|(relative, key)| {
            let pointer = if enveloped {
                relative
            } else {
                format!("/{ENVELOPE_PROPERTY}{relative}")
            };
            ResultIssue::at(
                pointer,
                IssueKind::Shape,
                format!(
                    "The member `{key}` is given more than once in the same object; give it once."
                ),
            )
        })
        .collect();
    verify_value(info, value, issues)
}

/// Verifies and normalizes a value already out of its envelope; `issues` holds findings so far.
fn verify_value(
    info: &TypeInfo,
    mut value: Value,
    mut issues: Vec<ResultIssue>,
) -> Result<Value, Vec<ResultIssue>> {
    // Any JSON may sit inside a `Value`, but a whole answer of `null` is no answer.
    let root = info.graph().resolve(info.root());
    if value.is_null() && matches!(info.graph().node(root), Node::Scalar(Scalar::Json)) {
        issues.push(ResultIssue::at(
            format!("/{ENVELOPE_PROPERTY}"),
            IssueKind::Shape,
            "Must not be null: answer with the JSON value the intent asks for.",
        ));
        return Err(issues);
    }
    let mut walker = Walker::new(info.graph());
    walker.walk(info.root(), &mut value, &Path::Root);
    issues.extend(walker.budget_issue());
    issues.append(&mut walker.issues);
    if !issues.is_empty() {
        return Err(issues);
    }
    Ok(value)
}

/// Deserializes a normalized value with serde, the final authority.
fn deserialize<T: Intent>(value: Value) -> Result<T, Vec<ResultIssue>> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let mut pointer = String::from("/value");
        for segment in error.path() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => {
                    pointer.push('/');
                    pointer.push_str(&index.to_string());
                }
                serde_path_to_error::Segment::Map { key } => {
                    pointer.push('/');
                    path::push_escaped(&mut pointer, key);
                }
                serde_path_to_error::Segment::Enum { variant } => {
                    pointer.push('/');
                    path::push_escaped(&mut pointer, variant);
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

/// True when the type's JSON form is an object or array, so a string reply holding JSON is read as
/// the JSON it holds.
fn wants_structure(info: &TypeInfo) -> bool {
    let graph = info.graph();
    match graph.node(graph.resolve(graph.strip_option(info.root()))) {
        Node::Struct(s) => !matches!(s.kind, StructKind::Unit),
        Node::Seq { .. } | Node::Map { .. } | Node::Tuple(_) => true,
        Node::Enum(e) => !e.is_unit_only(),
        Node::Scalar(s) => *s == Scalar::JsonObject,
        _ => false,
    }
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

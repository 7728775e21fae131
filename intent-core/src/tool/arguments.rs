//! A tool's arguments: the schema the model is given for them, and their reading.
//!
//! The parameters of a tool whose argument type is a struct are that struct's strict schema (an
//! object, as every vendor requires of a tool's parameters); for any other type they are the
//! type's `{"value": ...}` envelope. The arguments are read by the answers' reader
//! ([`read_reply`](crate::read::read_reply)): a struct's arguments as the envelope's value, so a
//! struct with a member named `value` is never mistaken for the envelope, and each finding's
//! path is the path in the arguments as the model wrote them (`/order_id`).
//!
//! Before the reader, the arguments must be one JSON object of at most
//! [`MAX_ARGUMENT_BYTES`]: text that is not JSON, is cut off, or nests deeper than JSON's
//! reader allows (128 levels) is refused with the reason, and the model may call again.

use std::any::Any;
use std::fmt::Write as _;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::intent::Intent;
use crate::read::read_reply;
use crate::result::{IssueKind, ResultIssue};
use crate::shape::TypeInfo;
use crate::toolbox::ToolError;

/// The most bytes a tool call's arguments may have (64 KiB): more is refused unread.
pub(crate) const MAX_ARGUMENT_BYTES: usize = 64 * 1024;

/// The tool's parameter schema for an argument type, and whether its arguments are the
/// envelope's value (a struct's) rather than the envelope itself.
pub(super) fn parameters(info: &TypeInfo) -> (Value, bool) {
    let inner = info
        .envelope_schema()
        .and_then(|envelope| envelope.get("properties")?.get("value"));
    match inner {
        Some(schema) if schema.get("type").and_then(Value::as_str) == Some("object") => {
            (schema.clone(), true)
        }
        Some(_) => (info.envelope_schema().cloned().unwrap_or_default(), false),
        None => (serde_json::json!({"type": "object"}), false),
    }
}

/// Reads `text`, a tool call's arguments, as an `A`, or every finding on them.
pub(super) fn read<A: Intent + DeserializeOwned>(
    info: &TypeInfo,
    wrapped: bool,
    text: &str,
) -> Result<A, Vec<ResultIssue>> {
    let text = match text.trim() {
        // Some servers send no arguments at all for a call that needs none.
        "" => "{}",
        text => text,
    };
    if text.len() > MAX_ARGUMENT_BYTES {
        return Err(vec![ResultIssue::new(
            IssueKind::Parse,
            format!(
                "The arguments are {} bytes, more than the {MAX_ARGUMENT_BYTES} a tool call may \
                 have; they were not read.",
                text.len()
            ),
        )]);
    }
    match serde_json::from_str::<Value>(text) {
        Err(error) => {
            let cut = error.is_eof();
            let message = if cut {
                format!("The arguments end before their JSON does ({error}): they are cut off. Call the tool again with the whole JSON object.")
            } else {
                format!("The arguments are not JSON ({error}). Call the tool again with one JSON object matching its parameters.")
            };
            return Err(vec![ResultIssue::new(IssueKind::Parse, message)]);
        }
        Ok(value) if wrapped && !value.is_object() => {
            return Err(vec![ResultIssue::new(
                IssueKind::Shape,
                format!(
                    "The arguments must be one JSON object matching the tool's parameters; got {}.",
                    crate::schema::kind_of(&value)
                ),
            )]);
        }
        Ok(_) => {}
    }
    if !wrapped {
        return read_reply(info, text);
    }
    let mut enveloped = String::with_capacity(text.len() + 12);
    enveloped.push_str("{\"value\":");
    enveloped.push_str(text);
    enveloped.push('}');
    read_reply(info, &enveloped).map_err(|issues| issues.into_iter().map(unwrapped).collect())
}

/// A finding on the enveloped arguments, its path made the path in the arguments themselves.
fn unwrapped(mut issue: ResultIssue) -> ResultIssue {
    if let Some(path) = issue.path.take() {
        let inner = path.strip_prefix("/value").unwrap_or(&path);
        issue.path = Some(if inner.is_empty() {
            "/".to_owned()
        } else {
            inner.to_owned()
        });
    }
    issue
}

/// What the model is told of a call whose arguments did not read as the tool's type.
pub(super) fn refused(name: &str, findings: &[ResultIssue]) -> String {
    let mut text = format!(
        "The arguments of `{name}` do not match its parameters, so it was not run. Fix them and call it again:"
    );
    for finding in findings {
        match finding.path.as_deref() {
            Some(path) => {
                let _ = write!(text, "\n- {path}: {}", finding.message);
            }
            None => {
                let _ = write!(text, "\n- {}", finding.message);
            }
        }
    }
    text
}

/// The error a panicking handler's panic becomes.
pub(crate) fn panicked(panic: &(dyn Any + Send)) -> ToolError {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned());
    match what {
        Some(what) => ToolError::new(format!("the tool failed: it panicked ({what})")),
        None => ToolError::new("the tool failed: it panicked"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::Intent;

    #[derive(Debug, serde::Deserialize, PartialEq, Intent)]
    struct Lookup {
        order_id: String,
        #[intent(minimum = 1)]
        quantity: u32,
    }

    fn lookup(text: &str) -> Result<Lookup, Vec<ResultIssue>> {
        let info = Lookup::type_info();
        let (_, wrapped) = parameters(&info);
        read(&info, wrapped, text)
    }

    #[test]
    fn a_struct_s_parameters_are_its_object_schema() {
        let (schema, wrapped) = parameters(&Lookup::type_info());
        assert!(wrapped);
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["order_id"]["type"], "string");
        assert_eq!(schema["additionalProperties"], false);
    }

    #[test]
    fn arguments_read_like_answers_and_findings_carry_the_arguments_path() {
        assert_eq!(
            lookup(r#"{"Order_Id": "A17", "quantity": "2"}"#).unwrap(),
            Lookup {
                order_id: "A17".into(),
                quantity: 2
            }
        );
        let issues = lookup(r#"{"order_id": "A17", "quantity": 0}"#).unwrap_err();
        assert_eq!(issues[0].path.as_deref(), Some("/quantity"), "{issues:?}");
        let issues = lookup(r#"{"quantity": 1}"#).unwrap_err();
        assert!(
            issues.iter().any(|i| i.message.contains("order_id")),
            "{issues:?}"
        );
    }

    #[test]
    fn arguments_not_json_cut_off_enormous_or_recursing_are_refused_with_the_reason() {
        let not_json = lookup("order A17 please").unwrap_err();
        assert!(not_json[0]
            .message
            .starts_with("The arguments are not JSON"));
        let cut = lookup(r#"{"order_id": "A1"#).unwrap_err();
        assert!(cut[0].message.contains("cut off"), "{cut:?}");
        let big = format!(
            r#"{{"order_id": "{}", "quantity": 1}}"#,
            "x".repeat(MAX_ARGUMENT_BYTES)
        );
        assert!(lookup(&big).unwrap_err()[0].message.contains("65536"));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(lookup(&deep).unwrap_err()[0]
            .message
            .starts_with("The arguments are not JSON"));
        let array = lookup("[1]").unwrap_err();
        assert!(array[0].message.contains("one JSON object"), "{array:?}");
    }
}

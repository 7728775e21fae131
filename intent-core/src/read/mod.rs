//! Reading a reply: lenient about form, strict about content.

use serde_json::Value;

use crate::intent::Intent;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{TargetKind, TypeInfo};

/// Reads a reply's text into a `T`, or every issue found.
pub fn read_reply<T: Intent>(info: &TypeInfo, text: &str) -> Result<T, Vec<ResultIssue>> {
    if info.target() == TargetKind::Text {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(vec![ResultIssue::new(
                IssueKind::Parse,
                "The reply was empty. Answer with the text the intent asks for.",
            )]);
        }
        return serde_json::from_value(Value::String(trimmed.to_owned()))
            .map_err(|e| vec![ResultIssue::new(IssueKind::Shape, e.to_string())]);
    }
    let body = strip_fence(text.trim());
    let mut value: Value = serde_json::from_str(body).map_err(|e| {
        vec![ResultIssue::new(
            IssueKind::Parse,
            format!(
                "The reply is not valid JSON ({e}). Reply with one JSON object {{\"value\": ...}}."
            ),
        )]
    })?;
    if let Value::Object(map) = &mut value {
        if map.len() == 1 {
            if let Some(inner) = map.remove(ENVELOPE_PROPERTY) {
                value = inner;
            }
        }
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        vec![ResultIssue::at(
            format!("/value/{}", path.replace('.', "/")),
            IssueKind::Shape,
            e.inner().to_string(),
        )]
    })
}

fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let rest = rest.split_once('\n').map_or(rest, |(_, body)| body);
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

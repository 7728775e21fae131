//! Reading `intent run`'s input: a file, or standard input; as text, or as JSON.

use std::io::{IsTerminal, Read};
use std::path::Path;

use serde_json::Value;

use crate::exit::{CliResult, Failure};

/// An input as the intent receives it: text as it is, JSON as its JSON text.
#[derive(Debug, Clone)]
pub enum Input {
    Text(String),
    Json(Value),
}

impl Input {
    /// A test's input: a JSON string is text, any other value is JSON.
    pub fn of_value(value: &Value) -> Input {
        match value {
            Value::String(text) => Input::Text(text.clone()),
            other => Input::Json(other.clone()),
        }
    }
}

/// Reads the input named by `--input` (`-` or none: standard input), as JSON when `json`.
pub fn read(path: Option<&Path>, json: bool) -> CliResult<Input> {
    let (bytes, source) = match path {
        Some(path) if path.as_os_str() != "-" => {
            let bytes = std::fs::read(path).map_err(|e| {
                Failure::usage(if e.kind() == std::io::ErrorKind::NotFound {
                    format!("the input file {} does not exist", path.display())
                } else {
                    format!("the input file {} cannot be read: {e}", path.display())
                })
            })?;
            (bytes, path.display().to_string())
        }
        _ => {
            let stdin = std::io::stdin();
            if path.is_none() && stdin.is_terminal() {
                return Err(Failure::usage(
                    "no input: give it with --input FILE, or pipe it in (--input - reads standard input)",
                ));
            }
            let mut bytes = Vec::new();
            stdin
                .lock()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::usage(format!("standard input cannot be read: {e}")))?;
            (bytes, "standard input".to_owned())
        }
    };
    let text = String::from_utf8(bytes)
        .map_err(|e| Failure::usage(format!("the input ({source}) is not UTF-8 text: {e}")))?;
    if text.trim().is_empty() {
        return Err(Failure::usage(format!("the input ({source}) is empty")));
    }
    if !json {
        return Ok(Input::Text(text));
    }
    serde_json::from_str(&text).map(Input::Json).map_err(|e| {
        Failure::usage(format!(
            "the input ({source}) is not valid JSON (--input-json): {e}"
        ))
    })
}

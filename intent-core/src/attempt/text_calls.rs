//! Tool calls a model wrote as text: for servers whose chat-template parser misses them.
//!
//! A model trained on the Hermes tool format writes a call as `<tool_call>{"name": ...,
//! "arguments": {...}}</tool_call>`, which the server is meant to parse into the reply's
//! `tool_calls`. Small models often drop the tags, and then the call arrives as the reply's text:
//! llama.cpp serving Qwen2.5-Coder-0.5B-Instruct with its own template answers
//! `{"name": "lookup_order", "arguments": {"order_id": "A17"}}` as `content` (observed on the
//! project's local model, December 2026). A reply with no parsed calls whose whole text is such
//! calls (tagged or not, one or several), each naming an offered tool, is read as those calls;
//! any other text, or a name that is not offered, is left as the reply's text. Never an answer:
//! an answer is the `{"value": ...}` envelope, or text beside such a call.

use serde_json::Value;

use crate::toolbox::{RequestTools, ToolCall};

/// The calls `text` writes, when it is nothing but calls of tools `offered` has; else none.
pub(super) fn calls_in_text(text: &str, offered: &RequestTools) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let tagged = rest.strip_prefix("<tool_call>");
        let body = tagged.unwrap_or(rest);
        let (call, after) = match tagged {
            Some(_) => match body.find("</tool_call>") {
                Some(end) => (&body[..end], &body[end + "</tool_call>".len()..]),
                None => (body, ""),
            },
            None => (body, ""),
        };
        let Some(call) = call_of(call.trim(), offered, calls.len()) else {
            return Vec::new();
        };
        calls.push(call);
        rest = after.trim();
    }
    calls
}

/// One call's JSON: `{"name", "arguments"}` and nothing else, naming an offered tool.
fn call_of(text: &str, offered: &RequestTools, index: usize) -> Option<ToolCall> {
    let Ok(Value::Object(call)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    if call.len() != 2 {
        return None;
    }
    let name = call.get("name")?.as_str()?;
    if !offered.definitions.iter().any(|d| d.name == name) {
        return None;
    }
    let arguments = match call.get("arguments")? {
        Value::String(text) => text.clone(),
        object @ Value::Object(_) => object.to_string(),
        _ => return None,
    };
    Some(ToolCall::new(
        format!("text_call_{}", index + 1),
        name,
        arguments,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolbox::ToolDefinition;
    use serde_json::json;

    fn offered() -> RequestTools {
        RequestTools::new(vec![ToolDefinition::new("lookup_order", "", json!({}))])
    }

    #[test]
    fn bare_and_tagged_calls_of_offered_tools_are_read() {
        let bare = calls_in_text(
            r#" {"name": "lookup_order", "arguments": {"order_id": "A17"}} "#,
            &offered(),
        );
        assert_eq!(
            bare,
            [ToolCall::new(
                "text_call_1",
                "lookup_order",
                r#"{"order_id":"A17"}"#
            )]
        );
        let tagged = calls_in_text(
            "<tool_call>\n{\"name\": \"lookup_order\", \"arguments\": {}}\n</tool_call>\n<tool_call>{\"name\": \"lookup_order\", \"arguments\": \"{}\"}</tool_call>",
            &offered(),
        );
        assert_eq!(tagged.len(), 2);
        assert_eq!(tagged[1].id, "text_call_2");
    }

    #[test]
    fn answers_prose_and_unknown_names_are_left_as_text() {
        for text in [
            r#"{"value": {"name": "lookup_order", "arguments": {}}}"#,
            r#"{"name": "refund", "arguments": {}}"#,
            r#"{"name": "lookup_order", "arguments": {}, "extra": 1}"#,
            r#"Sure: {"name": "lookup_order", "arguments": {}}"#,
            r#"{"name": "lookup_order", "arguments": {}}. Done."#,
            "",
        ] {
            assert!(calls_in_text(text, &offered()).is_empty(), "{text}");
        }
    }
}

//! Tool calling on `generateContent`: the tools a request offers, the rounds it sends back, and
//! the calls a reply makes.
//!
//! Wire facts (googleapis/python-genai `types.py`: `Tool`, `FunctionDeclaration`
//! (`parametersJsonSchema`), `ToolConfig`, `FunctionCallingConfig`, `FunctionCall`,
//! `FunctionResponse`, `Part.thoughtSignature`; ai.google.dev "Function calling" and "Thought
//! signatures"), checked against recorded replies (`vendor-fixtures/google-gemini/
//! google-tool-call.json`, `google-tool-call-gemini3.json`, `google-strict-forced-tool-choice-any.json`)
//! and second-round requests the API accepted (pydantic-ai's cassettes,
//! `tests/models/cassettes/test_google/`):
//!
//! - `tools: [{"functionDeclarations": [{"name","description","parametersJsonSchema"}]}]`, the
//!   schema in the dialect Gemini takes (`dialect`); `toolConfig: {"functionCallingConfig":
//!   {"mode": "ANY"}}` when a call is forced (left out otherwise: `AUTO` is the default). An
//!   answer round ([`ToolChoice::None`]) is sent no declarations and no `toolConfig`, its rounds
//!   kept in `contents`: Gemini before 3 refuses a response format beside any function
//!   declaration, whatever the calling mode ("Function calling with a response mime type:
//!   'application/json' is unsupported", a 400 reported on gemini-2.5-flash in
//!   googleapis/python-genai#867 and symfony/ai#1777). That Gemini takes `functionCall` and
//!   `functionResponse` parts in `contents` with no declarations beside them is read from its
//!   API reference, not yet shown by recorded traffic; a refusal would fail that attempt with
//!   Gemini's error, never pass a value.
//! - A reply's calls are its parts with `functionCall: {"name","args","id"?}` (`args` an object;
//!   `id` only on some models); a part may carry a `thoughtSignature`, which Gemini 3 requires
//!   back on the same part of the turn. Gemini's replies come whole (it does not stream here).
//! - A round goes back as the model's `{"role":"model","parts":[...]}` exactly as it came (its
//!   signatures kept), then one `{"role":"user","parts":[{"functionResponse":{"name","id"?,
//!   "response":{"result": OUTPUT}}}]}` (or `{"error": MESSAGE}` for an error), a part per call
//!   in order; `OUTPUT` is the tool's JSON where it is JSON, else its text.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{json, Value};

use super::dialect;
use crate::provider::tool_wire::{arguments_object, calls_and_turn, turn_of};
use crate::provider::{ProviderError, ProviderErrorKind, ToolCall, ToolChoice, ToolRound};
use crate::request::AiRequest;

/// `tools` and `toolConfig` of a `generateContent` body.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Tools {
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<[Value; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<Value>,
}

/// The tools `request` offers, each schema in Gemini's dialect; one it cannot express is refused
/// before sending.
pub(super) fn tools(request: &AiRequest, provider: &str) -> Result<Tools, ProviderError> {
    let Some(tools) = request
        .tools
        .as_deref()
        .filter(|t| t.choice != ToolChoice::None)
    else {
        return Ok(Tools {
            tools: None,
            tool_config: None,
        });
    };
    let mut declarations = Vec::with_capacity(tools.definitions.len());
    for definition in tools.definitions.iter() {
        let parameters: Cow<'_, Value> =
            dialect::prepare(&definition.parameters).map_err(|refusal| {
                ProviderError::new(
                    ProviderErrorKind::InvalidRequest,
                    format!(
                        "the parameters of the tool `{}` cannot be sent to Gemini: {refusal}",
                        definition.name
                    ),
                )
                .with_provider(provider)
            })?;
        declarations.push(json!({
            "name": definition.name,
            "description": definition.description,
            "parametersJsonSchema": parameters,
        }));
    }
    Ok(Tools {
        tools: Some([json!({"functionDeclarations": declarations})]),
        tool_config: (tools.choice == ToolChoice::Required)
            .then(|| json!({"functionCallingConfig": {"mode": "ANY"}})),
    })
}

/// A round of the `contents` list: the model's turn as it came (its thought signatures kept),
/// then one `user` content of `functionResponse` parts.
pub(super) fn round_contents(round: &ToolRound) -> [Value; 2] {
    let parts = turn_of(
        round,
        |text| json!({"text": text}),
        |call| {
            let mut function =
                json!({"name": call.name, "args": arguments_object(&call.arguments)});
            if !call.id.is_empty() {
                function["id"] = Value::from(call.id.as_str());
            }
            json!({"functionCall": function})
        },
    );
    let responses: Vec<Value> = round
        .results
        .iter()
        .map(|result| {
            let output = serde_json::from_str::<Value>(&result.content)
                .unwrap_or_else(|_| Value::from(result.content.as_str()));
            let response = if result.is_error {
                json!({"error": output})
            } else {
                json!({"result": output})
            };
            let mut function = json!({"name": result.name, "response": response});
            if !result.call_id.is_empty() {
                function["id"] = Value::from(result.call_id.as_str());
            }
            json!({"functionResponse": function})
        })
        .collect();
    [
        json!({"role": "model", "parts": parts}),
        json!({"role": "user", "parts": responses}),
    ]
}

/// The calls of a reply's parts, and the turn to send back when there are any.
pub(super) fn calls_of(parts: &[Value]) -> (Vec<ToolCall>, Option<Box<Value>>) {
    let calls = parts
        .iter()
        .filter_map(|part| {
            let call = part.get("functionCall")?;
            let name = call.get("name").and_then(Value::as_str)?;
            let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
            let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
            Some(ToolCall::new(id, name, args.to_string()))
        })
        .collect();
    calls_and_turn(calls, parts)
}

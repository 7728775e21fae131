//! Tool calling on OpenAI's two APIs: the tools a request offers, the rounds of calls and results
//! it sends back, and the calls a reply (whole or streamed) makes.
//!
//! Wire facts (OpenAI's `openapi.yaml`: `ChatCompletionTool`, `ChatCompletionToolChoiceOption`,
//! `ChatCompletionMessageToolCall`, `ChatCompletionRequestAssistantMessage`,
//! `ChatCompletionRequestToolMessage`, `ChatCompletionMessageToolCallChunk`; `FunctionTool`,
//! `FunctionToolCall`, `FunctionCallOutputItemParam`, `ResponseFunctionCallArgumentsDeltaEvent`),
//! checked against recorded replies (`vendor-fixtures/openai-chat/deepseek-tool-call.*`,
//! `groq-tool-call.*`, `xai-tool-call.chunks.txt`, `openai-responses/azure-tool-call.1.*`) and
//! against second-round requests the APIs accepted (pydantic-ai's VCR cassettes,
//! `tests/models/cassettes/test_openai/`):
//!
//! - Chat Completions: `tools: [{"type":"function","function":{"name","description",
//!   "parameters","strict":true}}]` (`strict` only for a schema strict mode takes: one with
//!   `additionalProperties: false`); `tool_choice` the string `"required"` when a call is forced,
//!   `"none"` for an answer round
//!   (llama.cpp takes only the strings `auto`, `required` and `none`, not the object naming one
//!   tool), and left out otherwise (`auto` is the default with tools); `parallel_tool_calls` is not
//!   sent (llama.cpp answers 500 to `true`). A round goes back as an assistant message
//!   `{"role":"assistant","content":TEXT|null,"tool_calls":[{"id","type":"function","function":
//!   {"name","arguments"}}]}` (`arguments` the JSON text as the model wrote it), then one
//!   `{"role":"tool","tool_call_id","content"}` message per call, in the calls' order.
//! - A Chat reply's calls are `choices[0].message.tool_calls[]` (`id`, `function.name`,
//!   `function.arguments`: a JSON string; some compatible servers send an object, read as its
//!   text), `finish_reason` `tool_calls`. Streamed, each call comes in
//!   `choices[0].delta.tool_calls[]` pieces keyed by `index`: the first with `id` and
//!   `function.name`, the rest with more of `function.arguments`; the calls are assembled and
//!   handed on whole when the stream ends.
//! - Responses: `tools: [{"type":"function","name","description","parameters","strict"}]`,
//!   `tool_choice` `"required"` when forced. A round goes back in `input` as the model's
//!   `{"type":"function_call","call_id","name","arguments"}` items (after a `message` item with
//!   its text, if it wrote any), then `{"type":"function_call_output","call_id","output"}` items.
//!   Reasoning items are not sent back (requests are sent with `store: false`, so there is no
//!   stored item to name); the model reasons afresh each round.
//! - A Responses reply's calls are its `output[]` items of `type` `function_call` (`call_id`,
//!   `name`, `arguments`); streamed, the `response.output_item.done` event carries each whole.

use std::collections::BTreeMap;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::OpenAiApi;
use crate::provider::tool_wire::rounds;
use crate::provider::{RequestTools, StreamPiece, ToolCall, ToolChoice, ToolDefinition};
use crate::request::AiRequest;

/// `tools` and `tool_choice` of a Chat Completions or Responses body, flattened into it (nothing
/// for a request without tools). The two APIs take the same function definition: Chat nests it
/// under `function`, Responses writes its members beside `type`.
pub(super) struct OfferedTools<'a> {
    tools: Option<&'a RequestTools>,
    api: OpenAiApi,
}

#[derive(Serialize)]
struct ChatTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize)]
struct ResponsesTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    function: Function<'a>,
}

/// The `tools` list, written from the request's definitions without collecting them first.
struct Definitions<'a>(&'a [ToolDefinition], OpenAiApi);

impl Serialize for Definitions<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for definition in self.0 {
            let function = Function::of(definition);
            match self.1 {
                OpenAiApi::ChatCompletions => seq.serialize_element(&ChatTool {
                    kind: "function",
                    function,
                })?,
                OpenAiApi::Responses => seq.serialize_element(&ResponsesTool {
                    kind: "function",
                    function,
                })?,
            }
        }
        seq.end()
    }
}

impl Serialize for OfferedTools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(tools) = self.tools {
            map.serialize_entry("tools", &Definitions(&tools.definitions, self.api))?;
            if let Some(choice) = choice(tools) {
                map.serialize_entry("tool_choice", choice)?;
            }
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Function<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

impl<'a> Function<'a> {
    fn of(definition: &'a ToolDefinition) -> Self {
        Function {
            name: &definition.name,
            description: &definition.description,
            parameters: &definition.parameters,
            strict: strict(&definition.parameters),
        }
    }
}

/// True when strict mode takes the parameters: an object schema closed to other members.
fn strict(parameters: &Value) -> bool {
    parameters.get("additionalProperties") == Some(&Value::Bool(false))
}

fn choice(tools: &RequestTools) -> Option<&'static str> {
    match tools.choice {
        ToolChoice::Required => Some("required"),
        ToolChoice::None => Some("none"),
        _ => None,
    }
}

/// The tools a Chat Completions request offers.
pub(super) fn chat_tools(request: &AiRequest) -> OfferedTools<'_> {
    OfferedTools {
        tools: request.tools.as_deref(),
        api: OpenAiApi::ChatCompletions,
    }
}

/// The tools a Responses request offers.
pub(super) fn responses_tools(request: &AiRequest) -> OfferedTools<'_> {
    OfferedTools {
        tools: request.tools.as_deref(),
        api: OpenAiApi::Responses,
    }
}

/// A Chat Completions `messages` list: the system and user messages, then each tool round's
/// assistant turn and tool messages.
pub(super) struct ChatMessages<'a, M> {
    pub(super) head: Vec<M>,
    pub(super) tools: Option<&'a RequestTools>,
}

impl<M: Serialize> Serialize for ChatMessages<'_, M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for message in &self.head {
            seq.serialize_element(message)?;
        }
        for round in rounds(self.tools) {
            let calls: Vec<ChatCallOut<'_>> = round
                .calls
                .iter()
                .map(|call| ChatCallOut {
                    id: &call.id,
                    kind: "function",
                    function: CallFunction {
                        name: &call.name,
                        arguments: &call.arguments,
                    },
                })
                .collect();
            seq.serialize_element(&Assistant {
                role: "assistant",
                content: (!round.text.is_empty()).then_some(round.text.as_str()),
                tool_calls: calls,
            })?;
            for result in &round.results {
                seq.serialize_element(&ToolMessage {
                    role: "tool",
                    tool_call_id: &result.call_id,
                    content: &result.content,
                })?;
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Assistant<'a> {
    role: &'static str,
    content: Option<&'a str>,
    tool_calls: Vec<ChatCallOut<'a>>,
}

#[derive(Serialize)]
struct ChatCallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'a>,
}

#[derive(Serialize)]
struct CallFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct ToolMessage<'a> {
    role: &'static str,
    tool_call_id: &'a str,
    content: &'a str,
}

/// One call of a Chat Completions reply, read leniently: a call without a name is dropped.
#[derive(Deserialize, Debug, Clone, PartialEq)]
pub(super) struct ChatCallIn {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    id: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    function: Option<CallFunctionIn>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
struct CallFunctionIn {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// The calls of a Chat Completions reply's message.
pub(super) fn chat_calls(calls: Option<Vec<ChatCallIn>>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .flatten()
        .filter_map(|call| {
            let function = call.function?;
            let name = function.name.filter(|n| !n.is_empty())?;
            Some(ToolCall::new(
                call.id.unwrap_or_default(),
                name,
                arguments_text(function.arguments),
            ))
        })
        .collect()
}

/// Arguments as text: a JSON string's content, or the JSON of an object a server sent instead.
fn arguments_text(arguments: Option<Value>) -> String {
    match arguments {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
    }
}

/// One streamed piece of a Chat Completions call.
#[derive(Deserialize)]
pub(super) struct ChatCallDelta {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    index: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    id: Option<String>,
    #[serde(default)]
    function: Option<DeltaFunction>,
}

#[derive(Deserialize)]
struct DeltaFunction {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<Value>,
}

/// The calls of a streamed reply, assembled from their pieces by index.
#[derive(Default)]
pub(crate) struct CallAssembler {
    calls: BTreeMap<u64, (String, String, String)>,
}

impl CallAssembler {
    /// Adds a chunk's call pieces.
    pub(super) fn push(&mut self, deltas: Vec<ChatCallDelta>) {
        for (position, delta) in deltas.into_iter().enumerate() {
            let index = delta.index.unwrap_or(position as u64);
            let (id, name, arguments) = self.calls.entry(index).or_default();
            if let Some(new_id) = delta.id.filter(|i| !i.is_empty()) {
                *id = new_id;
            }
            if let Some(function) = delta.function {
                if let Some(new_name) = function.name.filter(|n| !n.is_empty()) {
                    // A server that repeats the name on every piece does not repeat the tool.
                    if !name.ends_with(&new_name) || name.is_empty() {
                        name.push_str(&new_name);
                    }
                }
                arguments.push_str(&arguments_text(function.arguments));
            }
        }
    }

    /// The assembled calls, in index order, as pieces (calls without a name are dropped).
    pub(crate) fn finish(&mut self, pieces: &mut crate::provider::pieces::Pieces) {
        for (_, (id, name, arguments)) in std::mem::take(&mut self.calls) {
            if !name.is_empty() {
                pieces.push_back(StreamPiece::ToolCall(ToolCall::new(id, name, arguments)));
            }
        }
    }
}

/// A Responses `input` list: the user message, then each round's items.
pub(super) struct ResponsesInput<'a, M> {
    pub(super) user: M,
    pub(super) tools: Option<&'a RequestTools>,
}

impl<M: Serialize> Serialize for ResponsesInput<'_, M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        seq.serialize_element(&self.user)?;
        for round in rounds(self.tools) {
            if !round.text.is_empty() {
                seq.serialize_element(&AssistantText {
                    role: "assistant",
                    content: &round.text,
                })?;
            }
            for call in &round.calls {
                seq.serialize_element(&FunctionCallItem {
                    kind: "function_call",
                    call_id: &call.id,
                    name: &call.name,
                    arguments: &call.arguments,
                })?;
            }
            for result in &round.results {
                seq.serialize_element(&FunctionOutputItem {
                    kind: "function_call_output",
                    call_id: &result.call_id,
                    output: &result.content,
                })?;
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct AssistantText<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct FunctionCallItem<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct FunctionOutputItem<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    output: &'a str,
}

/// The call an `output` item of a Responses reply is, when it is a `function_call`.
pub(super) fn responses_call(item: &Value) -> Option<ToolCall> {
    if item.get("type").and_then(Value::as_str) != Some("function_call") {
        return None;
    }
    let name = item
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())?;
    let id = item
        .get("call_id")
        .or_else(|| item.get("id"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    Some(ToolCall::new(
        id,
        name,
        arguments_text(item.get("arguments").cloned()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn streamed_pieces_assemble_into_whole_calls_in_index_order() {
        let mut calls = CallAssembler::default();
        let deltas = |v: Value| serde_json::from_str::<Vec<ChatCallDelta>>(&v.to_string()).unwrap();
        calls.push(deltas(
            json!([{"index": 1, "id": "b", "function": {"name": "w", "arguments": ""}}]),
        ));
        calls.push(deltas(
            json!([{"index": 0, "id": "a", "function": {"name": "v", "arguments": "{\"x\""}}]),
        ));
        calls.push(deltas(json!([{"index": 0, "function": {"arguments": ": 1}"}}, {"index": 1, "function": {"arguments": "{}"}}])));
        let mut pieces = crate::provider::pieces::Pieces::new();
        calls.finish(&mut pieces);
        let got: Vec<_> = pieces.into_iter().collect();
        assert_eq!(
            got,
            [
                StreamPiece::ToolCall(ToolCall::new("a", "v", "{\"x\": 1}")),
                StreamPiece::ToolCall(ToolCall::new("b", "w", "{}")),
            ]
        );
    }
}

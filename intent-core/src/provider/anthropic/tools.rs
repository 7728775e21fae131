//! Tool calling on the Messages API: the tools a request offers, the rounds it sends back, and
//! the calls a reply (whole or streamed) makes.
//!
//! Wire facts (Anthropic's Messages API reference, "Tool use" and "Extended thinking" guides),
//! checked against recorded replies (`vendor-fixtures/anthropic-messages/anthropic-json-tool.1.*`,
//! `anthropic-json-other-tool.1.*`, `anthropic-tool-no-args.*`, `issue-10781.1.chunks.txt`) and
//! second-round requests the API accepted (pydantic-ai's cassettes,
//! `tests/models/cassettes/test_anthropic/`):
//!
//! - `tools: [{"name","description","input_schema"}]`; `tool_choice` `{"type":"any"}` when a
//!   call is forced, `{"type":"none"}` for an answer round (left out otherwise: `auto` is the
//!   default). Anthropic refuses a forced tool
//!   call with extended thinking, so that request is refused here, before sending.
//! - A round goes back as an `assistant` message holding the model's turn exactly as it came
//!   (its `thinking` blocks with their `signature`s, which Anthropic requires back unchanged on
//!   the turn that called tools; its `text` and `tool_use` blocks), then one `user` message of
//!   `{"type":"tool_result","tool_use_id","content","is_error"?}` blocks, one per call, in order.
//! - A reply's calls are its `tool_use` blocks (`id`, `name`, `input`: an object), with
//!   `stop_reason` `tool_use`. Streamed, a `tool_use` block starts with `id` and `name` and an
//!   empty `input`; its input comes as `input_json_delta` pieces of `partial_json` text, joined
//!   (none for a call without arguments, whose input is `{}`); `thinking` blocks end with a
//!   `signature_delta`. The turn is rebuilt block by block and handed on whole when the stream
//!   ends.

use serde::Serialize;
use serde_json::{json, Value};

use crate::provider::tool_wire::{arguments_object, calls_and_turn, turn_of};
use crate::provider::{ProviderError, ProviderErrorKind, ToolCall, ToolChoice, ToolRound};
use crate::request::AiRequest;

/// `tools` and `tool_choice` of a Messages body.
#[derive(Serialize)]
pub(super) struct Tools<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<Tool<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<Value>,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

/// The tools `request` offers; a forced call with extended thinking is refused.
pub(super) fn tools<'a>(
    request: &'a AiRequest,
    thinks: bool,
    provider: &str,
) -> Result<Tools<'a>, ProviderError> {
    let Some(tools) = request.tools.as_deref() else {
        return Ok(Tools {
            tools: None,
            tool_choice: None,
        });
    };
    let forced = tools.choice == ToolChoice::Required;
    if forced && thinks {
        return Err(ProviderError::new(
            ProviderErrorKind::InvalidRequest,
            "Anthropic refuses a forced tool call (OutputMode::Tool) together with extended thinking (thinking_budget); nothing was sent",
        )
        .with_provider(provider));
    }
    Ok(Tools {
        tools: Some(
            tools
                .definitions
                .iter()
                .map(|d| Tool {
                    name: &d.name,
                    description: &d.description,
                    input_schema: &d.parameters,
                })
                .collect(),
        ),
        tool_choice: match tools.choice {
            ToolChoice::Required => Some(json!({"type": "any"})),
            ToolChoice::None => Some(json!({"type": "none"})),
            _ => None,
        },
    })
}

/// A round of the `messages` list: the model's turn as it came (or rebuilt), then one `user`
/// message of `tool_result` blocks.
pub(super) fn round_messages(round: &ToolRound) -> [Value; 2] {
    let content = turn_of(
        round,
        |text| json!({"type": "text", "text": text}),
        |call| {
            json!({"type": "tool_use", "id": call.id, "name": call.name,
                   "input": arguments_object(&call.arguments)})
        },
    );
    let results: Vec<Value> = round
        .results
        .iter()
        .map(|result| {
            let mut block = json!({"type": "tool_result", "tool_use_id": result.call_id,
                                   "content": result.content});
            if result.is_error {
                block["is_error"] = Value::Bool(true);
            }
            block
        })
        .collect();
    [
        json!({"role": "assistant", "content": content}),
        json!({"role": "user", "content": results}),
    ]
}

/// The calls of a reply's content blocks, and the turn to send back when there are any.
pub(super) fn calls_of(blocks: &[Value]) -> (Vec<ToolCall>, Option<Box<Value>>) {
    calls_and_turn(blocks.iter().filter_map(call_of).collect(), blocks)
}

fn call_of(block: &Value) -> Option<ToolCall> {
    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
        return None;
    }
    let name = block.get("name").and_then(Value::as_str)?;
    let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
    let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
    Some(ToolCall::new(id, name, input.to_string()))
}

/// The blocks of a streamed reply a tool round must send back (`thinking`, `redacted_thinking`,
/// `tool_use`), rebuilt from their events; text blocks are not kept (their text is the reply's,
/// and a turn that goes back without them is taken).
#[derive(Default)]
pub(super) struct TurnAssembler {
    blocks: Vec<Kept>,
    tool_use: bool,
}

/// A kept block: its start, and its thinking or input text and signature so far.
struct Kept {
    index: u64,
    block: Value,
    text: String,
    signature: String,
}

impl TurnAssembler {
    /// A block started: `block` is its `content_block`.
    pub(super) fn start(&mut self, index: u64, block: &Value) {
        let kind = block.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("thinking" | "redacted_thinking" | "tool_use")) {
            return;
        }
        self.tool_use |= kind == Some("tool_use");
        self.blocks.retain(|kept| kept.index != index);
        self.blocks.push(Kept {
            index,
            block: block.clone(),
            text: String::new(),
            signature: String::new(),
        });
    }

    /// True when a block that is kept started at `index`.
    pub(super) fn keeps(&self, index: u64) -> bool {
        self.blocks.iter().any(|kept| kept.index == index)
    }

    /// A delta of `kind` of the block at `index`: `piece` is its thinking, signature or
    /// `partial_json` text.
    pub(super) fn delta(&mut self, index: u64, kind: &str, piece: &str) {
        let Some(kept) = self.blocks.iter_mut().find(|kept| kept.index == index) else {
            return;
        };
        match kind {
            "thinking_delta" | "input_json_delta" => kept.text.push_str(piece),
            "signature_delta" => kept.signature.push_str(piece),
            _ => {}
        }
    }

    /// When a block was a `tool_use`: its calls pushed as pieces, and the turn to send back.
    pub(super) fn finish(&mut self, pieces: &mut crate::provider::pieces::Pieces) -> Option<Value> {
        if !self.tool_use {
            return None;
        }
        let mut blocks = std::mem::take(&mut self.blocks);
        blocks.sort_by_key(|kept| kept.index);
        let mut turn = Vec::with_capacity(blocks.len());
        for Kept {
            mut block,
            text,
            signature,
            ..
        } in blocks
        {
            match block.get("type").and_then(Value::as_str) {
                Some("thinking") => {
                    let start = block
                        .get("thinking")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    block["thinking"] = Value::String(format!("{start}{text}"));
                    if !signature.is_empty() {
                        block["signature"] = Value::String(signature);
                    }
                }
                Some("tool_use") => {
                    let id = block
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let name = block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let arguments = match text.trim() {
                        "" => block
                            .get("input")
                            .cloned()
                            .unwrap_or_else(|| json!({}))
                            .to_string(),
                        _ => text,
                    };
                    block["input"] = arguments_object(&arguments);
                    if !name.is_empty() {
                        // Cut-off input goes to the tool's reader as the text it is.
                        pieces.push_back(crate::provider::StreamPiece::ToolCall(ToolCall::new(
                            id, name, arguments,
                        )));
                    }
                }
                _ => {}
            }
            turn.push(block);
        }
        Some(Value::Array(turn))
    }
}

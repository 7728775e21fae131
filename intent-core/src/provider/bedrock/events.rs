//! Converse streaming: `POST {base}/model/{modelId}/converse-stream`, the reply in AWS's
//! event-stream framing (read into events by `transport::sse::aws_frames`).
//!
//! Wire facts (Amazon Bedrock API reference, `ConverseStream` and `ConverseStreamOutput`; the
//! stream's events as recorded in pydantic-ai's cassettes, `test_bedrock_model_thinking_part_stream`):
//! - Events, each named by its `:event-type` and carrying JSON (with a `p` padding field to
//!   ignore): `messageStart {role}`; per content block `contentBlockStart {start: {toolUse:
//!   {toolUseId, name}}, contentBlockIndex}` (tool blocks only), `contentBlockDelta {delta,
//!   contentBlockIndex}` and `contentBlockStop`; then `messageStop {stopReason}` and last
//!   `metadata {usage, metrics}`.
//! - Deltas: `{text}` adds to the text; `{toolUse: {input}}` is the next piece of the tool's
//!   input JSON (the forced tool's input is the answer, as when read whole); `{reasoningContent:
//!   {text}}` is the model's reasoning ([`StreamPiece::Reasoning`]), `{reasoningContent:
//!   {signature}}` and `{redactedContent}` carry nothing for the reply.
//! - With the caller's tools offered, a `toolUse` block of another name than the schema's tool
//!   is a call: its `input` pieces are joined and the call handed on at the block's
//!   `contentBlockStop`, and the model's turn (reasoning with its signature, text, calls) is
//!   rebuilt block by block for the next round, as a whole reply's is kept.
//! - An exception after HTTP 200 is an `exception` message (`throttlingException`,
//!   `modelStreamErrorException`, `validationException`, `serviceUnavailableException`, ...)
//!   with `{"message"}`: the stream breaks with it. A stream that ends before `metadata` is
//!   broken.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Value};

use super::wire::{stop_reason, ConverseUsage};
use crate::provider::pieces::{
    not_an_event, EventDecoder, Pieces, StreamEnd, StreamModel, StreamPiece,
};
use crate::provider::tool_wire::arguments_object;
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::ApiKey;
use crate::provider::{ProviderError, ProviderErrorKind, ToolCall};

/// Reads Converse stream events into pieces.
pub(crate) struct ConverseDecoder {
    key: ApiKey,
    model: StreamModel,
    stop_reason: Option<String>,
    /// A tool's input came: the answer is the tool's.
    tool_answer: bool,
    /// With the caller's tools offered: the turn's blocks so far.
    turn: Option<Turn>,
}

/// A streamed turn that may call the caller's tools, block by block.
struct Turn {
    /// The schema's tool, whose input is the answer.
    answer: Option<String>,
    blocks: BTreeMap<u64, Block>,
    calls: usize,
}

/// One content block of a streamed turn.
enum Block {
    Text(String),
    Reasoning {
        text: String,
        signature: String,
    },
    Call {
        id: String,
        name: String,
        input: String,
    },
    /// The schema's tool: its input is the reply's text.
    Answer,
}

impl Turn {
    /// The turn as Converse takes it back, when it called a tool.
    fn finish(self) -> Option<Box<Value>> {
        (self.calls > 0).then(|| {
            let blocks = self.blocks.into_values().filter_map(|block| match block {
                Block::Text(text) => Some(json!({"text": text})),
                Block::Reasoning { text, signature } => Some(json!({"reasoningContent": {
                    "reasoningText": {"text": text, "signature": signature}
                }})),
                Block::Call { id, name, input } => Some(json!({"toolUse": {
                    "toolUseId": id, "name": name, "input": arguments_object(&input)
                }})),
                Block::Answer => None,
            });
            Box::new(Value::Array(blocks.collect()))
        })
    }
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    delta: Value,
    #[serde(default, rename = "contentBlockIndex")]
    index: u64,
}

#[derive(Deserialize)]
struct Start {
    #[serde(default)]
    start: Value,
    #[serde(default, rename = "contentBlockIndex")]
    index: u64,
}

/// `messageStop` (its stop reason) or `contentBlockStop` (its block).
#[derive(Deserialize)]
struct Stop {
    #[serde(rename = "stopReason")]
    stop_reason: Option<String>,
    #[serde(default, rename = "contentBlockIndex")]
    index: u64,
}

fn reasoning() -> Block {
    Block::Reasoning {
        text: String::new(),
        signature: String::new(),
    }
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    usage: Option<ConverseUsage>,
}

impl ConverseDecoder {
    pub(crate) fn new(sent_model: &str, key: &ApiKey) -> Self {
        ConverseDecoder {
            key: key.clone(),
            model: StreamModel::new(sent_model),
            stop_reason: None,
            tool_answer: false,
            turn: None,
        }
    }

    /// A decoder for a request that offers the caller's tools, the answer's schema going as the
    /// tool `answer` (when there is one).
    pub(crate) fn with_tools(mut self, answer: Option<&str>) -> Self {
        self.turn = Some(Turn {
            answer: answer.map(str::to_owned),
            blocks: BTreeMap::new(),
            calls: 0,
        });
        self
    }

    /// The block at `index` of a turn that may call tools.
    fn block(&mut self, index: u64, new: impl FnOnce() -> Block) -> Option<&mut Block> {
        self.turn
            .as_mut()
            .map(|turn| turn.blocks.entry(index).or_insert_with(new))
    }

    fn malformed(&self, event: &SseEvent, why: impl std::fmt::Display) -> ProviderError {
        not_an_event(
            &event.data,
            format_args!(
                "a `{}` event that is not a Converse stream event ({why})",
                event.name()
            ),
            &self.key,
        )
    }

    fn read<'de, T: Deserialize<'de>>(&self, event: &'de SseEvent) -> Result<T, ProviderError> {
        serde_json::from_str(&event.data).map_err(|e| self.malformed(event, e))
    }
}

impl EventDecoder for ConverseDecoder {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        let name = event.name();
        if let Some(exception) = name
            .strip_prefix("exception:")
            .or_else(|| name.strip_prefix("error:"))
        {
            let data: Value =
                serde_json::from_str(&self.key.redact(event.data.clone())).unwrap_or_default();
            let message = data
                .get("message")
                .or_else(|| data.get("Message"))
                .and_then(Value::as_str)
                .map_or_else(|| event.data.chars().take(300).collect(), str::to_owned);
            return Err(ProviderError::new(
                ProviderErrorKind::StreamBroken,
                format!(
                    "the server sent an error: {exception}: {}",
                    self.key.redact(message)
                ),
            ));
        }
        match name {
            "contentBlockDelta" => {
                let Delta { delta, index } = self.read(&event)?;
                let text = |v: Option<&Value>| {
                    v.and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned)
                };
                if let Some(t) = text(delta.get("text")) {
                    if let Some(Block::Text(kept)) =
                        self.block(index, || Block::Text(String::new()))
                    {
                        kept.push_str(&t);
                    }
                    pieces.push_back(StreamPiece::Text(t));
                } else if let Some(input) = delta.pointer("/toolUse/input") {
                    let Value::String(piece) = input else {
                        return Err(self.malformed(
                            &event,
                            format_args!("toolUse.input is {input}, not a string"),
                        ));
                    };
                    if let Some(Block::Call { input, .. }) = self.block(index, || Block::Answer) {
                        input.push_str(piece);
                    } else {
                        self.tool_answer = true;
                        if !piece.is_empty() {
                            pieces.push_back(StreamPiece::Text(piece.clone()));
                        }
                    }
                } else if let Some(t) = text(delta.pointer("/reasoningContent/text")) {
                    if let Some(Block::Reasoning { text, .. }) = self.block(index, reasoning) {
                        text.push_str(&t);
                    }
                    pieces.push_back(StreamPiece::Reasoning(t));
                } else if let Some(t) = text(delta.pointer("/reasoningContent/signature")) {
                    if let Some(Block::Reasoning { signature, .. }) = self.block(index, reasoning) {
                        signature.push_str(&t);
                    }
                }
                Ok(false)
            }
            "contentBlockStart" => {
                let Start { start, index } = self.read(&event)?;
                if let Some(tool_use) = start.get("toolUse") {
                    let name = tool_use.get("name").and_then(Value::as_str).unwrap_or("");
                    let id = tool_use
                        .get("toolUseId")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    match self.turn.as_mut() {
                        Some(turn) if turn.answer.as_deref() != Some(name) => {
                            turn.calls += 1;
                            let call = Block::Call {
                                id: id.to_owned(),
                                name: name.to_owned(),
                                input: String::new(),
                            };
                            turn.blocks.insert(index, call);
                        }
                        _ => self.tool_answer = true,
                    }
                }
                Ok(false)
            }
            "contentBlockStop" => {
                let Stop { index, .. } = self.read(&event)?;
                if let Some(Block::Call { id, name, input }) =
                    self.turn.as_ref().and_then(|turn| turn.blocks.get(&index))
                {
                    let arguments = if input.is_empty() { "{}" } else { input };
                    pieces.push_back(StreamPiece::ToolCall(ToolCall::new(
                        id.as_str(),
                        name.as_str(),
                        arguments,
                    )));
                }
                Ok(false)
            }
            "messageStop" => {
                let stop: Stop = self.read(&event)?;
                self.stop_reason = stop.stop_reason;
                Ok(false)
            }
            "metadata" => {
                let metadata: Metadata = self.read(&event)?;
                let turn = self.turn.take().and_then(Turn::finish);
                let by_tool = self.tool_answer || turn.is_some();
                let finish = stop_reason(self.stop_reason.as_deref(), by_tool);
                let usage = metadata.usage.unwrap_or_default().usage();
                let mut end = StreamEnd::new(finish, usage, self.model.answered());
                end.vendor_turn = turn;
                pieces.push_back(StreamPiece::End(end));
                Ok(true)
            }
            // messageStart and events added later carry nothing for the reply.
            _ => Ok(false),
        }
    }

    fn end_marker(&self) -> &'static str {
        "its `metadata` event"
    }
}

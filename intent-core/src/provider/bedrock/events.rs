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
//! - An exception after HTTP 200 is an `exception` message (`throttlingException`,
//!   `modelStreamErrorException`, `validationException`, `serviceUnavailableException`, ...)
//!   with `{"message"}`: the stream breaks with it. A stream that ends before `metadata` is
//!   broken.

use serde::Deserialize;
use serde_json::Value;

use super::wire::{stop_reason, ConverseUsage};
use crate::provider::pieces::{
    not_an_event, EventDecoder, Pieces, StreamEnd, StreamModel, StreamPiece,
};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::ApiKey;
use crate::provider::{ProviderError, ProviderErrorKind};

/// Reads Converse stream events into pieces.
pub(crate) struct ConverseDecoder {
    key: ApiKey,
    model: StreamModel,
    stop_reason: Option<String>,
    /// A tool's input came: the answer is the tool's.
    tool_answer: bool,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    delta: Value,
}

#[derive(Deserialize)]
struct Stop {
    #[serde(rename = "stopReason")]
    stop_reason: Option<String>,
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
        }
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
                let Delta { delta } = self.read(&event)?;
                let text = |v: Option<&Value>| {
                    v.and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned)
                };
                if let Some(t) = text(delta.get("text")) {
                    pieces.push_back(StreamPiece::Text(t));
                } else if let Some(input) = delta.pointer("/toolUse/input") {
                    self.tool_answer = true;
                    match input {
                        Value::String(s) if s.is_empty() => {}
                        Value::String(s) => pieces.push_back(StreamPiece::Text(s.clone())),
                        other => {
                            return Err(self.malformed(
                                &event,
                                format_args!("toolUse.input is {other}, not a string"),
                            ))
                        }
                    }
                } else if let Some(t) = text(delta.pointer("/reasoningContent/text")) {
                    pieces.push_back(StreamPiece::Reasoning(t));
                }
                Ok(false)
            }
            "contentBlockStart" => {
                let start: Value = self.read(&event)?;
                if start.pointer("/start/toolUse").is_some() {
                    self.tool_answer = true;
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
                let finish = stop_reason(self.stop_reason.as_deref(), self.tool_answer);
                let usage = metadata.usage.unwrap_or_default().usage();
                pieces.push_back(StreamPiece::End(StreamEnd::new(
                    finish,
                    usage,
                    self.model.answered(),
                )));
                Ok(true)
            }
            // messageStart, contentBlockStop and events added later carry nothing for the reply.
            _ => Ok(false),
        }
    }

    fn end_marker(&self) -> &'static str {
        "its `metadata` event"
    }
}

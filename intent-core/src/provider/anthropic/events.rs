//! Messages API streaming: `"stream": true`.
//!
//! Wire facts relied on (Anthropic's "Streaming Messages" reference; `anthropic-sdk-python`'s
//! `_streaming.py` and `lib/streaming/_messages.py`):
//! - The body is an event stream whose events are named (`event: NAME`) and carry JSON data with
//!   the same `type`. In order: `message_start` (`message.model`, `message.usage` with the input
//!   and cache counts), then per content block `content_block_start` (`index`, `content_block`
//!   with its `type`: `text`, `thinking`, `redacted_thinking`, `tool_use`, ...),
//!   `content_block_delta`s and `content_block_stop`; then `message_delta` (`delta.stop_reason`,
//!   `usage`), and `message_stop`, the end. `ping` may come anywhere; unknown events are skipped.
//! - Deltas: `text_delta {text}` adds to a text block, `thinking_delta {thinking}` to a thinking
//!   block (the model's reasoning: [`StreamPiece::Reasoning`], never text); `signature_delta`,
//!   `input_json_delta` and `citations_delta` carry nothing for the reply's text. As in the SDK, a
//!   delta counts only for a block of its kind.
//! - `message_delta.usage` counts are cumulative: they replace, never add to, the counts so far
//!   (`output_tokens` always; the input and cache counts when present, else those of
//!   `message_start` stand).
//! - After HTTP 200 the server may end the stream with `event: error` and data
//!   `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: the stream
//!   breaks. A stream that ends before `message_stop` is broken.
//!
//! The reply rebuilt from the pieces is the one [`super::wire::parse`] reads from the same reply
//! sent whole: every text block's text joined, the same stop-reason and usage rules (shared), the
//! model the server named else the one asked for, and on a refusal the text as its message.

use serde::Deserialize;
use serde_json::Value;

use super::wire::{stop_reason, MessagesUsage, THINKING_SEPARATOR};
use crate::provider::pieces::{
    not_an_event, server_error, typed_error_text, EventDecoder, Pieces, StreamEnd, StreamModel,
    StreamPiece, UntilNotBlank,
};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::ApiKey;
use crate::provider::{FinishReason, ProviderError};

/// What a content block holds, as far as the reply is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    Other,
}

/// Reads Messages API events into pieces.
pub(crate) struct MessagesDecoder {
    key: ApiKey,
    model: StreamModel,
    usage: MessagesUsage,
    stop_reason: Option<String>,
    /// The kind of each block started, by index.
    blocks: Vec<(u64, Block)>,
    /// The thinking block being read, sent once it is not blank.
    thinking: UntilNotBlank,
    /// A thinking block was sent: the next one is set apart by a blank line.
    thought: bool,
    /// The blocks a tool round sends back, and the tool calls.
    turn: super::tools::TurnAssembler,
}

impl MessagesDecoder {
    pub(crate) fn new(sent_model: &str, key: &ApiKey) -> Self {
        MessagesDecoder {
            key: key.clone(),
            model: StreamModel::new(sent_model),
            usage: MessagesUsage::default(),
            stop_reason: None,
            blocks: Vec::new(),
            thinking: UntilNotBlank::default(),
            thought: false,
            turn: Default::default(),
        }
    }

    fn block(&self, index: Option<u64>) -> Option<Block> {
        let index = index?;
        self.blocks
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, block)| *block)
    }

    fn end(&mut self) -> StreamEnd {
        let finish_reason = stop_reason(self.stop_reason.as_deref());
        let refused = finish_reason == FinishReason::Refusal;
        let mut end = StreamEnd::new(finish_reason, self.usage.usage(), self.model.answered());
        end.refusal_is_text = refused;
        end
    }

    fn malformed(&self, event: &SseEvent, why: impl std::fmt::Display) -> ProviderError {
        not_an_event(
            &event.data,
            format_args!(
                "a `{}` event that is not a Messages API event ({why})",
                event.name()
            ),
            &self.key,
        )
    }

    /// The content a block start or a delta of `kind` carries, as a piece: its `text` or its
    /// `thinking`, which must be a string.
    fn content(
        &mut self,
        kind: Block,
        part: Part,
        event: &SseEvent,
        pieces: &mut Pieces,
    ) -> Result<(), ProviderError> {
        let (value, field, piece): (_, _, fn(String) -> StreamPiece) = match kind {
            Block::Text => (part.text, "text", StreamPiece::Text),
            Block::Thinking => (part.thinking, "thinking", StreamPiece::Reasoning),
            Block::Other => return Ok(()),
        };
        match value {
            Some(Value::String(text)) if text.is_empty() => Ok(()),
            Some(Value::String(text)) if kind == Block::Thinking => {
                // As in a reply read whole: blank thinking blocks are left out, the others are
                // joined with a blank line.
                let first = !self.thinking.shown();
                if let Some(mut thinking) = self.thinking.push(text) {
                    if first && self.thought {
                        thinking.insert_str(0, THINKING_SEPARATOR);
                    }
                    self.thought = true;
                    pieces.push_back(piece(thinking));
                }
                Ok(())
            }
            Some(Value::String(text)) => {
                pieces.push_back(piece(text));
                Ok(())
            }
            _ => Err(self.malformed(event, format_args!("its `{field}` is not a string"))),
        }
    }
}

impl EventDecoder for MessagesDecoder {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        // Events the reply does not need are skipped unread, whatever their data.
        if let Some(name) = &event.event {
            if !KNOWN_EVENTS.contains(&name.as_str()) || name == "ping" {
                return Ok(false);
            }
        }
        let data: EventData =
            serde_json::from_str(&event.data).map_err(|e| self.malformed(&event, e))?;
        let kind = match (&event.event, &data.kind) {
            (Some(name), _) => name.as_str(),
            (None, Some(kind)) => kind.as_str(),
            (None, None) => return Err(self.malformed(&event, "it has no `type`")),
        };
        match kind {
            "message_start" => {
                if let Some(message) = data.message {
                    self.model.name(message.model);
                    self.usage = message.usage.unwrap_or_default();
                }
            }
            "content_block_start" => {
                let Some(block) = data.content_block else {
                    return Err(self.malformed(&event, "it has no `content_block`"));
                };
                let kept = turn_block(&block);
                let kind = match block.kind.as_deref() {
                    Some("text") => Block::Text,
                    Some("thinking") => Block::Thinking,
                    _ => Block::Other,
                };
                if kind == Block::Thinking {
                    self.thinking = UntilNotBlank::default();
                }
                // A block may start with some of its content.
                let starts_with_content = match kind {
                    Block::Text => block.text.is_some(),
                    Block::Thinking => block.thinking.is_some(),
                    Block::Other => false,
                };
                if starts_with_content {
                    self.content(kind, block, &event, pieces)?;
                }
                let index = data.index.unwrap_or(self.blocks.len() as u64);
                if let Some(kept) = kept {
                    self.turn.start(index, &kept);
                }
                self.blocks.retain(|(i, _)| *i != index);
                self.blocks.push((index, kind));
            }
            "content_block_delta" => {
                let Some(delta) = data.delta else {
                    return Err(self.malformed(&event, "it has no `delta`"));
                };
                let kind = match delta.kind.as_deref() {
                    Some("text_delta") => Block::Text,
                    Some("thinking_delta") => Block::Thinking,
                    _ => Block::Other,
                };
                if let (Some(index), Some(name)) = (data.index, delta.kind.as_deref()) {
                    if self.turn.keeps(index) {
                        let piece = match name {
                            "thinking_delta" => delta.thinking.as_ref().and_then(Value::as_str),
                            "signature_delta" => delta.signature.as_deref(),
                            "input_json_delta" => delta.partial_json.as_deref(),
                            _ => None,
                        };
                        self.turn.delta(index, name, piece.unwrap_or_default());
                    }
                }
                // A delta counts only for a block of its kind (or one whose start never came).
                if self.block(data.index).is_none_or(|block| block == kind) {
                    self.content(kind, delta, &event, pieces)?;
                }
            }
            "message_delta" => {
                if let Some(reason) = data.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = data.usage {
                    self.usage.replace_with(usage);
                }
            }
            "message_stop" => {
                let turn = self.turn.finish(pieces);
                let mut end = self.end();
                end.vendor_turn = turn.map(Box::new);
                pieces.push_back(StreamPiece::End(end));
                return Ok(true);
            }
            "error" => {
                return Err(server_error(event.data, &self.key, typed_error_text));
            }
            _ => {}
        }
        Ok(false)
    }

    fn end_marker(&self) -> &'static str {
        "`message_stop`"
    }
}

/// The events the reply is read from.
const KNOWN_EVENTS: [&str; 8] = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

/// One event's data. Text-bearing fields are checked where they are read (a delta whose text
/// cannot be read is an error, never text quietly lost); fields that only inform are read
/// leniently, as in a reply read whole.
#[derive(Deserialize)]
struct EventData {
    #[serde(
        rename = "type",
        default,
        deserialize_with = "crate::provider::lenient"
    )]
    kind: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    message: Option<StartMessage>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    index: Option<u64>,
    #[serde(default)]
    content_block: Option<Part>,
    #[serde(default)]
    delta: Option<Part>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<MessagesUsage>,
}

#[derive(Deserialize)]
struct StartMessage {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    model: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<MessagesUsage>,
}

/// A `content_block` (of a block start) or a `delta` (of a block delta or `message_delta`).
#[derive(Deserialize)]
struct Part {
    #[serde(
        rename = "type",
        default,
        deserialize_with = "crate::provider::lenient"
    )]
    kind: Option<String>,
    #[serde(default)]
    text: Option<Value>,
    #[serde(default)]
    thinking: Option<Value>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    stop_reason: Option<String>,
    // What a tool round sends back: a `tool_use` block's id, name and input and its
    // `input_json_delta` pieces; a thinking block's signature; a redacted block's data.
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    id: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    name: Option<String>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    partial_json: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    signature: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    data: Option<String>,
}

/// A block start as a tool round sends it back, for the kinds it keeps.
fn turn_block(part: &Part) -> Option<Value> {
    let kind = part.kind.as_deref()?;
    let mut block = serde_json::Map::new();
    block.insert("type".into(), Value::from(kind));
    match kind {
        "tool_use" => {
            block.insert(
                "id".into(),
                Value::from(part.id.clone().unwrap_or_default()),
            );
            block.insert(
                "name".into(),
                Value::from(part.name.clone().unwrap_or_default()),
            );
            block.insert(
                "input".into(),
                part.input
                    .clone()
                    .unwrap_or_else(|| Value::Object(Default::default())),
            );
        }
        "thinking" => {
            block.insert(
                "thinking".into(),
                part.thinking.clone().unwrap_or_else(|| Value::from("")),
            );
            if let Some(signature) = part.signature.as_deref().filter(|s| !s.is_empty()) {
                block.insert("signature".into(), Value::from(signature));
            }
        }
        "redacted_thinking" => {
            block.insert(
                "data".into(),
                Value::from(part.data.clone().unwrap_or_default()),
            );
        }
        _ => return None,
    }
    Some(Value::Object(block))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::anthropic::wire::parse as parse_reply;
    use crate::provider::pieces::decode_all;
    use crate::provider::{AiResponse, ProviderErrorKind, ReplyAssembler};

    fn event(name: &str, data: &str) -> String {
        format!("event: {name}\ndata: {data}\n\n")
    }

    fn decode(body: &str) -> Result<Vec<StreamPiece>, ProviderError> {
        decode_all(
            body.as_bytes(),
            MessagesDecoder::new("sent-model", &ApiKey::new("sk-ant-secret")),
        )
    }

    fn assemble(pieces: Vec<StreamPiece>) -> (AiResponse, Option<String>) {
        let mut reply = ReplyAssembler::new();
        pieces.into_iter().for_each(|p| reply.push(p));
        let reasoning = reply.reasoning().map(str::to_owned);
        (reply.finish().unwrap(), reasoning)
    }

    fn start() -> String {
        event(
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_creation_input_tokens":4,"cache_read_input_tokens":10,"output_tokens":1}}}"#,
        )
    }

    fn stop(reason: &str, usage: &str) -> String {
        [
            event(
                "message_delta",
                &format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}","stop_sequence":null}},"usage":{usage}}}"#),
            ),
            event("message_stop", r#"{"type":"message_stop"}"#),
        ]
        .concat()
    }

    #[test]
    fn text_thinking_usage_and_model_are_read() {
        let body = [
            start(),
            event("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Count the words."}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            event("ping", r#"{"type": "ping"}"#),
            event("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}}"#),
            event("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"!"}}"#),
            event("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
            event("some_future_event", "not even JSON"),
            stop("end_turn", r#"{"output_tokens":15}"#),
        ]
        .concat();
        let pieces = decode(&body).unwrap();
        assert_eq!(pieces[0], StreamPiece::Reasoning("Count the words.".into()));
        assert_eq!(pieces[1], StreamPiece::Text("Hello".into()));
        let (reply, reasoning) = assemble(pieces);
        assert_eq!(reply.text, "Hello!");
        assert_eq!(reasoning.as_deref(), Some("Count the words."));
        assert_eq!(reply.finish_reason, FinishReason::Stop);
        assert_eq!(reply.model, "claude-sonnet-4-5");
        assert_eq!(
            (
                reply.usage.input_tokens,
                reply.usage.output_tokens,
                reply.usage.cached_tokens
            ),
            (39, 15, 10)
        );
    }

    #[test]
    fn thinking_blocks_join_as_in_a_reply_read_whole() {
        let thinking = |index: u32, parts: &[&str]| {
            let mut events = event(
                "content_block_start",
                &format!(
                    r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"thinking","thinking":""}}}}"#
                ),
            );
            for part in parts {
                events += &event(
                    "content_block_delta",
                    &format!(
                        r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"thinking_delta","thinking":{}}}}}"#,
                        serde_json::to_string(part).unwrap()
                    ),
                );
            }
            events
        };
        let body = [
            start(),
            thinking(0, &[" ", "\n"]),
            thinking(1, &["  ", "First", " idea."]),
            thinking(2, &[""]),
            thinking(3, &["Second."]),
            stop("end_turn", r#"{"output_tokens":20}"#),
        ]
        .concat();
        let (streamed, _) = assemble(decode(&body).unwrap());
        let whole = serde_json::json!({
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "thinking", "thinking": " \n", "signature": "s"},
                {"type": "thinking", "thinking": "  First idea.", "signature": "s"},
                {"type": "thinking", "thinking": "", "signature": "s"},
                {"type": "thinking", "thinking": "Second.", "signature": "s"},
                {"type": "text", "text": ""}
            ],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 25, "cache_creation_input_tokens": 4, "cache_read_input_tokens": 10, "output_tokens": 20}
        });
        let completed =
            parse_reply(whole.to_string().as_bytes(), "sent-model", &ApiKey::new("")).unwrap();
        assert_eq!(
            streamed.reasoning.as_deref(),
            Some("  First idea.\n\nSecond.")
        );
        assert_eq!(streamed, completed);
    }

    #[test]
    fn message_delta_usage_replaces_what_it_carries() {
        let body = [
            start(),
            stop(
                "max_tokens",
                r#"{"input_tokens":30,"output_tokens":7,"cache_read_input_tokens":null}"#,
            ),
        ]
        .concat();
        let (reply, _) = assemble(decode(&body).unwrap());
        assert_eq!(reply.finish_reason, FinishReason::Length);
        assert_eq!(
            (
                reply.usage.input_tokens,
                reply.usage.output_tokens,
                reply.usage.cached_tokens
            ),
            (44, 7, 10)
        );
    }

    #[test]
    fn a_refusal_is_the_text_trimmed() {
        let body = [
            start(),
            event("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" I can't help with that. "}}"#),
            stop("refusal", r#"{"output_tokens":9}"#),
        ]
        .concat();
        let (reply, _) = assemble(decode(&body).unwrap());
        assert_eq!(reply.finish_reason, FinishReason::Refusal);
        assert_eq!(reply.refusal.as_deref(), Some("I can't help with that."));
        assert_eq!(reply.text, " I can't help with that. ");
    }

    #[test]
    fn deltas_count_only_for_blocks_of_their_kind_and_events_without_names_are_read() {
        let body = [
            "data: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\n".to_owned(),
            "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\n".to_owned(),
            "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"not text\"}}\n\n".to_owned(),
            "data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"Hi\"}}\n\n".to_owned(),
            "data: {\"type\":\"message_stop\"}\n\n".to_owned(),
        ]
        .concat();
        let (reply, _) = assemble(decode(&body).unwrap());
        assert_eq!(reply.text, "Hi");
        assert_eq!(reply.model, "m");
    }

    #[test]
    fn an_error_event_breaks_the_stream_without_the_key() {
        let body = [
            start(),
            event("error", r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded (key sk-ant-secret)"}}"#),
        ]
        .concat();
        let error = decode(&body).unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
        assert_eq!(
            error.message,
            "the server sent an error: overloaded_error: Overloaded (key [redacted])"
        );
    }

    #[test]
    fn unreadable_events_are_decode_errors() {
        for body in [
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}"#,
            ),
            event("message_start", "{\"type\":"),
            event(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0}"#,
            ),
        ] {
            let error = decode(&body).unwrap_err();
            assert_eq!(error.kind, ProviderErrorKind::Decode, "{body}");
            assert!(error.message.starts_with("sent a `"), "{}", error.message);
        }
    }
}

//! Responses API streaming: `"stream": true` on `POST {base}/responses`.
//!
//! Wire facts relied on (OpenAI's `openapi.yaml`, `ResponseStreamEvent` and the events it lists:
//! `ResponseTextDeltaEvent`, `ResponseReasoningSummaryTextDeltaEvent`,
//! `ResponseReasoningTextDeltaEvent`, `ResponseRefusalDeltaEvent`, `ResponseOutputItemAddedEvent`,
//! `ResponseCompletedEvent`, `ResponseIncompleteEvent`, `ResponseFailedEvent`, `ResponseErrorEvent`;
//! and the streams recorded from the live API in `../shared/corpora/vendor-fixtures/openai-responses/`,
//! OpenAI's and Azure's):
//! - Each event is `event: <type>` and `data: <JSON with the same "type">`; there is no `[DONE]`.
//!   The type is read from the JSON (a proxy may drop the `event:` lines).
//! - `response.output_text.delta {output_index, content_index, delta}`: a piece of a message's text.
//!   A message whose `response.output_item.added` item has `"phase": "commentary"` is intermediate
//!   (gpt-5.3-codex and later, `openai-phase.1.chunks.txt`): its text is kept as reasoning, as the
//!   whole reply's reading keeps it.
//! - `response.reasoning_summary_text.delta {output_index, summary_index, delta}` and
//!   `response.reasoning_text.delta {output_index, content_index, delta}`: pieces of the reasoning
//!   summaries (asked for with `reasoning.summary`) or of the reasoning itself (open-weight models);
//!   parts are set apart by a blank line, as the whole reply's are.
//! - `response.refusal.delta {delta}`: a piece of the refusal.
//! - The stream ends with `response.completed` or `response.incomplete` (its `response` is the whole
//!   `Response`: status, `incomplete_details`, `usage` with `input_tokens_details.cached_tokens` and
//!   `output_tokens_details.reasoning_tokens`, `model`), read by the same code as a reply sent whole;
//!   or with `response.failed` (`response.error {code, message}`) or `error` (`{code, message,
//!   param}`, or `{error: {type, code, message}}` as recorded in `openai-error.1.chunks.txt`), which
//!   break the stream with the vendor's message.
//! - Function calls are read from the final `response`'s `function_call` items, their arguments
//!   whole (`azure-tool-call.1.chunks.txt`): `response.function_call_arguments.delta` repeats
//!   them in pieces and is not read.
//! - Every other event type (`response.created`, `response.in_progress`, `*.done`, `*.added`,
//!   function-call argument deltas, event types added later) carries nothing read here and is
//!   skipped. The `*.done` events repeat the text of the deltas and are not read, so nothing is
//!   counted twice (a trimmed recording's deltas are what it streamed).
//! - `item_id` may change on every event (`github-copilot-id-rotation.1.chunks.txt`): parts are told
//!   apart by `output_index` and the part's index, never by id.
//!
//! Only text the deltas carried is delivered: when a stream sent no delta at all and its final
//! `response` holds output, that output is delivered at the end, whole, as a reply read whole
//! would give it.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::super::responses::{is_commentary, read, ResponsesReply};
use crate::provider::pieces::{
    not_an_event, read_event, typed_error_text, EventDecoder, Pieces, StreamEnd, StreamPiece,
    UntilNotBlank,
};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::{clip_body, ApiKey};
use crate::provider::{FinishReason, ProviderError, ProviderErrorKind};

/// Reads Responses API events into pieces.
pub(crate) struct ResponsesDecoder {
    key: ApiKey,
    model: String,
    /// The output items in the `commentary` phase, by `output_index`.
    commentary: Vec<u64>,
    /// The reasoning part the last reasoning piece belonged to: `(output_index, kind, index)`.
    reasoning_part: Option<(u64, u8, u64)>,
    reasoning: UntilNotBlank,
    refusal: UntilNotBlank,
    /// Whether any text, reasoning or refusal delta came.
    delivered: bool,
}

impl ResponsesDecoder {
    pub(crate) fn new(sent_model: &str, key: &ApiKey) -> Self {
        ResponsesDecoder {
            key: key.clone(),
            model: sent_model.to_owned(),
            commentary: Vec::new(),
            reasoning_part: None,
            reasoning: UntilNotBlank::default(),
            refusal: UntilNotBlank::default(),
            delivered: false,
        }
    }

    /// A piece of reasoning of the part `part`, a blank line before it when it begins a new part.
    fn reasoning(&mut self, part: (u64, u8, u64), delta: String, pieces: &mut Pieces) {
        self.delivered = true;
        let new_part = self.reasoning_part.is_some_and(|last| last != part);
        self.reasoning_part = Some(part);
        let delta = if new_part && self.reasoning.shown() {
            format!("\n\n{delta}")
        } else {
            delta
        };
        if let Some(piece) = self.reasoning.push(delta) {
            pieces.push_back(StreamPiece::Reasoning(piece));
        }
    }

    /// The end of the stream, from its final `response`.
    fn end(
        &mut self,
        data: &str,
        response: &RawValue,
        pieces: &mut Pieces,
    ) -> Result<(), ProviderError> {
        let reply: ResponsesReply = serde_json::from_str(response.get()).map_err(|e| {
            not_an_event(
                data,
                format_args!("a final event whose response is not a Response ({e})"),
                &self.key,
            )
        })?;
        let whole = read(reply, &self.model).map_err(|e| {
            ProviderError::new(ProviderErrorKind::StreamBroken, self.key.redact(e.message))
        })?;
        if !self.delivered {
            // Nothing streamed: the final response's output, whole.
            if let Some(reasoning) = whole.reasoning {
                pieces.push_back(StreamPiece::Reasoning(reasoning));
            }
            if !whole.text.is_empty() {
                pieces.push_back(StreamPiece::Text(whole.text));
            }
            if let Some(refusal) = whole.refusal {
                pieces.push_back(StreamPiece::Refusal(refusal));
            }
        }
        if let Some(tokens) = whole.logprobs {
            pieces.push_back(StreamPiece::Logprobs(tokens));
        }
        // The calls as the final response holds them, their arguments whole: the argument deltas
        // before it repeat them piece by piece.
        pieces.extend(whole.tool_calls.into_iter().map(StreamPiece::ToolCall));
        let finish_reason = if self.refusal.shown() {
            FinishReason::Refusal
        } else {
            whole.finish_reason
        };
        pieces.push_back(StreamPiece::End(StreamEnd::new(
            finish_reason,
            whole.usage,
            whole.model,
        )));
        Ok(())
    }

    /// The error a `response.failed` or `error` event carries.
    fn failed(&self, error: &Value) -> ProviderError {
        let error = self.key.redact(typed_error_text(error));
        ProviderError::new(
            ProviderErrorKind::StreamBroken,
            format!("the server sent an error: {error}"),
        )
    }
}

/// One event, as far as it is read here. Text-bearing fields are read strictly: a delta that is
/// not a string is an error, never text quietly lost.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    delta: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    output_index: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    content_index: Option<u64>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    summary_index: Option<u64>,
    #[serde(default)]
    item: Option<Value>,
    #[serde(default)]
    response: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    code: Option<Value>,
}

impl EventDecoder for ResponsesDecoder {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        let parsed: Event = read_event(&event.data, "a Responses API event", &self.key)?;
        let index = parsed.output_index.unwrap_or(0);
        match parsed.kind.as_str() {
            "response.output_item.added" if parsed.item.as_ref().is_some_and(is_commentary) => {
                self.commentary.push(index);
            }
            "response.output_text.delta" => {
                let delta = parsed.delta.unwrap_or_default();
                if self.commentary.contains(&index) {
                    let part = (index, 0, parsed.content_index.unwrap_or(0));
                    self.reasoning(part, delta, pieces);
                } else if !delta.is_empty() {
                    self.delivered = true;
                    pieces.push_back(StreamPiece::Text(delta));
                }
            }
            "response.reasoning_summary_text.delta" => {
                let part = (index, 1, parsed.summary_index.unwrap_or(0));
                self.reasoning(part, parsed.delta.unwrap_or_default(), pieces);
            }
            "response.reasoning_text.delta" => {
                let part = (index, 2, parsed.content_index.unwrap_or(0));
                self.reasoning(part, parsed.delta.unwrap_or_default(), pieces);
            }
            "response.refusal.delta" => {
                self.delivered = true;
                let delta = parsed.delta.unwrap_or_default();
                if let Some(piece) = self.refusal.push(delta) {
                    pieces.push_back(StreamPiece::Refusal(piece));
                }
            }
            "response.completed" | "response.incomplete" => {
                let Some(response) = parsed.response else {
                    return Err(not_an_event(
                        &event.data,
                        format_args!("a {} event with no response", parsed.kind),
                        &self.key,
                    ));
                };
                self.end(&event.data, &response, pieces)?;
                return Ok(true);
            }
            "response.failed" => {
                let error = parsed
                    .response
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    .and_then(|mut r| r.get_mut("error").map(Value::take))
                    .filter(|e| !e.is_null())
                    .unwrap_or_else(|| Value::String("the response failed".into()));
                return Err(self.failed(&error));
            }
            "error" => {
                let error = match parsed.error.filter(|e| !e.is_null()) {
                    Some(error) => error,
                    None => serde_json::json!({
                        "code": parsed.code,
                        "message": parsed.message,
                    }),
                };
                let error = if error.get("message").is_some_and(|m| !m.is_null()) {
                    error
                } else {
                    Value::String(clip_body(event.data.as_bytes(), &self.key))
                };
                return Err(self.failed(&error));
            }
            _ => {}
        }
        Ok(false)
    }

    fn end_marker(&self) -> &'static str {
        "`response.completed` or `response.incomplete`"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::pieces::{assemble, assert_broken, assert_reply, decode_all};

    fn event(data: &str) -> String {
        let kind: Value = serde_json::from_str(data).unwrap();
        format!(
            "event: {}\ndata: {data}\n\n",
            kind["type"].as_str().unwrap_or("message")
        )
    }

    const COMPLETED: &str = r#"{"type":"response.completed","response":{"status":"completed","model":"gpt-5-mini-2025-08-07","output":[],"usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":256},"output_tokens":120,"output_tokens_details":{"reasoning_tokens":96}}}}"#;

    const KEY: &str = "sk-secret-key";

    fn decode(events: &[&str]) -> Result<Vec<StreamPiece>, ProviderError> {
        let body: String = events.iter().map(|e| event(e)).collect();
        decode_all(body, ResponsesDecoder::new("gpt-5-mini", &ApiKey::new(KEY)))
    }

    #[test]
    fn text_reasoning_usage_and_model_are_read_and_unknown_events_skipped() {
        let pieces = decode(&[
            r#"{"type":"response.created","response":{"status":"in_progress"}}"#,
            r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":0,"delta":"First."}"#,
            r#"{"type":"response.reasoning_summary_text.delta","output_index":0,"summary_index":1,"delta":"Second."}"#,
            r#"{"type":"response.some_event_added_later","whatever":[1,2]}"#,
            r#"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"{\"value\":"}"#,
            r#"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":" 1}","new_field":true}"#,
            r#"{"type":"response.output_text.done","output_index":1,"text":"{\"value\": 1}"}"#,
            COMPLETED,
        ])
        .unwrap();
        assert_eq!(pieces[0], StreamPiece::Reasoning("First.".into()));
        assert_reply(
            pieces,
            "{\"value\": 1}",
            Some("First.\n\nSecond."),
            FinishReason::Stop,
            "gpt-5-mini-2025-08-07",
            (300, 120, 256, 96),
        );
    }

    #[test]
    fn incomplete_is_a_cut_reply_and_commentary_is_reasoning() {
        let pieces = decode(&[
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"message","phase":"commentary"}}"#,
            r#"{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"Checking."}"#,
            r#"{"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"{\"va"}"#,
            r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}}"#,
        ])
        .unwrap();
        let reply = assemble(pieces);
        assert_eq!(reply.text, "{\"va");
        assert_eq!(reply.reasoning.as_deref(), Some("Checking."));
        assert_eq!(reply.finish_reason, FinishReason::Length);
        assert_eq!(reply.model, "gpt-5-mini");
    }

    #[test]
    fn failures_and_error_events_break_the_stream_with_the_vendors_message_and_no_key() {
        for failing in [
            r#"{"type":"error","error":{"type":"insufficient_quota","code":"insufficient_quota","message":"You exceeded your quota, sk-secret-key"}}"#,
            r#"{"type":"error","code":"insufficient_quota","message":"You exceeded your quota, sk-secret-key","param":null}"#,
            r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"insufficient_quota","message":"You exceeded your quota, sk-secret-key"},"output":[]}}"#,
        ] {
            let error = decode(&[
                r#"{"type":"response.output_text.delta","output_index":0,"delta":"Hel"}"#,
                failing,
            ])
            .unwrap_err();
            assert_broken(&error, "You exceeded your quota", KEY);
        }
    }

    #[test]
    fn a_stream_without_its_end_or_with_unreadable_text_is_an_error() {
        let cut =
            decode(&[r#"{"type":"response.output_text.delta","output_index":0,"delta":"Hel"}"#])
                .unwrap_err();
        assert_broken(&cut, "response.completed", KEY);
        for bad in [
            r#"{"type":"response.output_text.delta","delta":7}"#,
            r#"{"delta":"no type"}"#,
            r#"{"type":"response.completed"}"#,
        ] {
            let error = decode(&[bad]).unwrap_err();
            assert_eq!(error.kind, ProviderErrorKind::Decode, "{bad}");
        }
    }

    #[test]
    fn a_stream_with_no_deltas_delivers_its_final_output() {
        let pieces = decode(&[
            r#"{"type":"response.completed","response":{"status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"42"}]}]}}"#,
        ])
        .unwrap();
        assert_eq!(assemble(pieces).text, "42");
    }
}

//! Gemini streaming: `POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Wire facts relied on (Gemini API reference, "Method: models.streamGenerateContent" at
//! ai.google.dev/api/generate-content#method:-models.streamgeneratecontent; googleapis/python-genai
//! `models.py`, which asks `alt=sse`; and the streams recorded from the live API in
//! `../shared/corpora/vendor-fixtures/google-gemini/`):
//! - With `alt=sse` the body is an event stream of `data: <GenerateContentResponse JSON>` events,
//!   CRLF-framed, with no event names and no end marker. Each chunk is a `generateContent` reply
//!   of its own: `candidates[0].content.parts[]` of `{"text"}` and `{"text", "thought": true}`
//!   (a piece of the text, or of the thought summaries), `usageMetadata` (on every chunk, each
//!   the totals so far: the last one stands; early chunks may hold only `trafficType`),
//!   `modelVersion`; the last chunk carries `candidates[0].finishReason`. A blocked prompt is one
//!   chunk with `promptFeedback.blockReason` and no candidate.
//! - A stream's last part is often `{"text": "", "thoughtSignature": ...}`: no text.
//! - An error after HTTP 200 comes as a chunk `{"error": {"code", "message", "status"}}`.
//!
//! - Function calls come as `functionCall` parts, whole or with their arguments streamed
//!   (`stream_calls`); they are handed on whole, before the end.
//!
//! The stream ends at the chunk with a finish reason (or a block reason); a body that ends before
//! one is a broken stream, never a reply. The finish reasons, usage and reasoning are read by the
//! same rules as a reply sent whole (`wire`): the reply rebuilt from the pieces is the one
//! [`super::wire::parse`] reads.

use super::stream_calls::StreamCalls;
use super::tools::calls_of;
use super::wire::{finish_reason, part_text, usage, GenerateReply, UsageMetadata};
use crate::provider::pieces::{
    no_server_error, read_event, typed_error_text, EventDecoder, Pieces, StreamEnd, StreamModel,
    StreamPiece, UntilNotBlank,
};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::ApiKey;
use crate::provider::{FinishReason, ProviderError};

/// Reads `streamGenerateContent` chunks into pieces.
pub(crate) struct GeminiDecoder {
    key: ApiKey,
    model: StreamModel,
    usage: Option<UsageMetadata>,
    /// The thoughts, sent once they are not blank.
    reasoning: UntilNotBlank,
    /// The function calls, whole or with their arguments streamed.
    calls: StreamCalls,
}

impl GeminiDecoder {
    pub(crate) fn new(sent_model: &str, key: &ApiKey) -> Self {
        GeminiDecoder {
            key: key.clone(),
            model: StreamModel::new(sent_model),
            usage: None,
            reasoning: UntilNotBlank::default(),
            calls: StreamCalls::default(),
        }
    }

    fn end(&mut self, finish: FinishReason, pieces: &mut Pieces) {
        let parts = std::mem::take(&mut self.calls).finish();
        let (calls, turn) = calls_of(&parts);
        pieces.extend(calls.into_iter().map(StreamPiece::ToolCall));
        let mut end = StreamEnd::new(
            finish,
            usage(self.usage.take().unwrap_or_default()),
            self.model.answered(),
        );
        end.vendor_turn = turn;
        pieces.push_back(StreamPiece::End(end));
    }
}

impl EventDecoder for GeminiDecoder {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        let chunk: GenerateReply = read_event(&event.data, "a GenerateContentResponse", &self.key)?;
        no_server_error(
            chunk.error.as_ref(),
            &event.data,
            &self.key,
            typed_error_text,
        )?;
        self.model.name(chunk.model_version);
        if chunk.usage_metadata.is_some() {
            self.usage = chunk.usage_metadata;
        }
        let Some(candidate) = chunk.candidates.and_then(|c| c.into_iter().next()) else {
            if chunk.prompt_feedback.and_then(|f| f.block_reason).is_some() {
                // The prompt itself was blocked: no candidate, and nothing more to come.
                self.end(FinishReason::ContentFilter, pieces);
                return Ok(true);
            }
            return Ok(false);
        };
        for part in candidate
            .content
            .and_then(|c| c.parts)
            .unwrap_or_default()
            .iter()
        {
            if self.calls.push(part)? {
                continue;
            }
            match part_text(part) {
                Some((thought, true)) => {
                    if let Some(piece) = self.reasoning.push(thought.to_owned()) {
                        pieces.push_back(StreamPiece::Reasoning(piece));
                    }
                }
                Some((text, false)) if !text.is_empty() => {
                    pieces.push_back(StreamPiece::Text(text.to_owned()));
                }
                _ => {}
            }
        }
        if let Some(tokens) = crate::provider::logprobs::gemini(candidate.logprobs_result) {
            pieces.push_back(StreamPiece::Logprobs(tokens));
        }
        match candidate.finish_reason {
            Some(reason) => {
                self.end(finish_reason(Some(&reason)), pieces);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn end_marker(&self) -> &'static str {
        "a chunk with a finishReason"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::pieces::{assemble, assert_broken, assert_reply, decode_all};
    use crate::provider::ProviderErrorKind;

    const KEY: &str = "AIza-secret-key";

    fn decode(chunks: &[&str]) -> Result<Vec<StreamPiece>, ProviderError> {
        let body: String = chunks
            .iter()
            .map(|c| format!("data: {c}\r\n\r\n"))
            .collect();
        decode_all(
            body,
            GeminiDecoder::new("gemini-2.5-flash", &ApiKey::new(KEY)),
        )
    }

    #[test]
    fn text_thoughts_usage_and_finish_are_read_chunk_by_chunk() {
        let pieces = decode(&[
            r#"{"usageMetadata":{"trafficType":"ON_DEMAND"}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"Counting.","thought":true}],"role":"model"}}],"usageMetadata":{"promptTokenCount":9}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"{\"value\":"}]}}],"newField":{"a":1}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":" 3}"},{"text":"","thoughtSignature":"abc"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":5,"cachedContentTokenCount":4,"thoughtsTokenCount":20},"modelVersion":"gemini-2.5-flash-001"}"#,
        ])
        .unwrap();
        assert_eq!(pieces[0], StreamPiece::Reasoning("Counting.".into()));
        assert_reply(
            pieces,
            "{\"value\": 3}",
            Some("Counting."),
            FinishReason::Stop,
            "gemini-2.5-flash-001",
            (9, 25, 4, 20),
        );
    }

    #[test]
    fn a_blocked_prompt_is_a_filtered_reply_and_other_finishes_are_named() {
        let reply = assemble(
            decode(&[r#"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3}}"#])
                .unwrap(),
        );
        assert_eq!(reply.finish_reason, FinishReason::ContentFilter);
        assert_eq!(reply.text, "");
        let reply = assemble(
            decode(&[r#"{"candidates":[{"content":{"parts":[{"text":"{"}]},"finishReason":"MAX_TOKENS"}]}"#])
                .unwrap(),
        );
        assert_eq!(reply.finish_reason, FinishReason::Length);
    }

    #[test]
    fn errors_cuts_and_non_json_break_the_stream() {
        let error = decode(&[
            r#"{"candidates":[{"content":{"parts":[{"text":"Hel"}]}}]}"#,
            r#"{"error":{"code":503,"message":"The model is overloaded, AIza-secret-key","status":"UNAVAILABLE"}}"#,
        ])
        .unwrap_err();
        assert_broken(&error, "The model is overloaded", KEY);
        let cut =
            decode(&[r#"{"candidates":[{"content":{"parts":[{"text":"Hel"}]}}]}"#]).unwrap_err();
        assert_broken(&cut, "finishReason", KEY);
        let bad = decode(&["not json"]).unwrap_err();
        assert_eq!(bad.kind, ProviderErrorKind::Decode);
    }
}

//! Chat Completions streaming: `"stream": true` with `"stream_options": {"include_usage": true}`.
//!
//! Wire facts relied on (OpenAI's `openapi.yaml`, `CreateChatCompletionStreamResponse` and
//! `ChatCompletionStreamOptions`; `openai-python`'s `_streaming.py`; llama.cpp's server README;
//! vLLM's "Reasoning Outputs"; Ollama's OpenAI compatibility page; and a recorded llama.cpp stream):
//! - The body is an event stream of `data: <chunk JSON>` events with no `event:` names, ended by
//!   `data: [DONE]`. A stream that ends without `[DONE]` is broken, even after a `finish_reason`:
//!   the usage chunk comes after it.
//! - A chunk is `{"id","object":"chat.completion.chunk","created","model","choices":[{"index",
//!   "delta":{"role"?,"content"?,"refusal"?},"finish_reason"}],"usage"}`. `delta.content` and
//!   `delta.refusal` are pieces of the text and of the refusal (null or absent when the chunk has
//!   none); `finish_reason` is null until the last chunk of the choice.
//! - With `include_usage`, every chunk carries `"usage": null` and one more chunk before `[DONE]`
//!   has `"choices": []` and the totals. Azure's first chunk also has empty `choices`. So choices
//!   are never indexed blindly: the one with `index` 0 (or none) is read.
//! - Reasoning servers stream thoughts apart from the text: `delta.reasoning_content` (llama.cpp
//!   with `--reasoning-format deepseek`, its default; DeepSeek; older vLLM) or `delta.reasoning`
//!   (newer vLLM, Ollama). They become [`StreamPiece::Reasoning`], never text.
//! - A server may end the stream with an error after HTTP 200: the OpenAI SDK fails on any event
//!   whose JSON has an `error` key; some servers name such an event `error`. Both break the stream.
//!
//! The reply rebuilt from the pieces is the one [`super::super::chat::parse`] reads from the same reply
//! sent whole: the same finish-reason and usage rules (shared), the refusal and the reasoning only
//! when they are not blank (blank pieces are held back until one that is not comes), the model the server
//! named else the one asked for.

use serde::Deserialize;
use serde_json::Value;

use super::super::chat::{content_text, finish_reason, ChatUsage};
use crate::provider::pieces::{
    no_server_error, read_event, EventDecoder, Pieces, StreamEnd, StreamModel, StreamPiece,
    UntilNotBlank,
};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::{clip_body, error_text, ApiKey};
use crate::provider::{ProviderError, ProviderErrorKind};

/// Reads Chat Completions chunks into pieces.
pub(crate) struct ChatDecoder {
    key: ApiKey,
    model: StreamModel,
    finish_reason: Option<String>,
    usage: Option<ChatUsage>,
    /// The refusal, sent once it is not blank.
    refusal: UntilNotBlank,
    /// The reasoning, sent once it is not blank.
    reasoning: UntilNotBlank,
    /// The tool calls, assembled from their pieces.
    tool_calls: super::super::tools::CallAssembler,
}

impl ChatDecoder {
    pub(crate) fn new(sent_model: &str, key: &ApiKey) -> Self {
        ChatDecoder {
            key: key.clone(),
            model: StreamModel::new(sent_model),
            finish_reason: None,
            usage: None,
            refusal: UntilNotBlank::default(),
            reasoning: UntilNotBlank::default(),
            tool_calls: Default::default(),
        }
    }

    fn end(&mut self) -> StreamEnd {
        StreamEnd::new(
            finish_reason(self.finish_reason.as_deref(), self.refusal.shown()),
            self.usage.take().unwrap_or_default().usage(),
            self.model.answered(),
        )
    }
}

impl EventDecoder for ChatDecoder {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        if event.name() == "error" {
            return Err(ProviderError::new(
                ProviderErrorKind::StreamBroken,
                format!(
                    "the server sent an error event: {}",
                    clip_body(event.data.as_bytes(), &self.key)
                ),
            ));
        }
        if event.data.trim() == "[DONE]" {
            self.tool_calls.finish(pieces);
            let end = self.end();
            pieces.push_back(StreamPiece::End(end));
            return Ok(true);
        }
        let chunk: Chunk = read_event(&event.data, "a Chat Completions chunk", &self.key)?;
        no_server_error(chunk.error.as_ref(), &event.data, &self.key, error_text)?;
        self.model.name(chunk.model);
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        let choice = chunk
            .choices
            .into_iter()
            .flatten()
            .find(|c| c.index.unwrap_or(0) == 0);
        let Some(choice) = choice else {
            return Ok(false);
        };
        if let Some(delta) = choice.delta {
            let reasoning = delta.reasoning_content.or(delta.reasoning);
            if let Some(reasoning) = reasoning.and_then(|r| self.reasoning.push(r)) {
                pieces.push_back(StreamPiece::Reasoning(reasoning));
            }
            let text = content_text(delta.content);
            if !text.is_empty() {
                pieces.push_back(StreamPiece::Text(text));
            }
            if let Some(refusal) = delta.refusal.and_then(|r| self.refusal.push(r)) {
                pieces.push_back(StreamPiece::Refusal(refusal));
            }
            if let Some(calls) = delta.tool_calls {
                self.tool_calls.push(calls);
            }
        }
        if let Some(tokens) = crate::provider::logprobs::chat(choice.logprobs) {
            pieces.push_back(StreamPiece::Logprobs(tokens));
        }
        if choice.finish_reason.is_some() {
            self.finish_reason = choice.finish_reason;
        }
        Ok(false)
    }

    fn end_marker(&self) -> &'static str {
        "`data: [DONE]`"
    }
}

/// One streamed chunk. Text-bearing fields are read strictly (a chunk whose text cannot be read is
/// an error, never text quietly lost); fields that only inform are read leniently, as in a reply
/// read whole.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    model: Option<String>,
    #[serde(default)]
    choices: Option<Vec<ChunkChoice>>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    usage: Option<ChatUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    index: Option<u64>,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    finish_reason: Option<String>,
    #[serde(default, deserialize_with = "crate::provider::lenient")]
    logprobs: Option<crate::provider::logprobs::ChatLogprobs>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    refusal: Option<String>,
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<super::super::tools::ChatCallDelta>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::pieces::{assemble, decode_all};
    use crate::provider::{FinishReason, ReplyAssembler};

    fn chunk(delta: &str, finish: &str) -> String {
        format!(
            "data: {{\"model\":\"gpt-4o-mini\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}],\"usage\":null}}\n\n"
        )
    }

    const USAGE: &str = "data: {\"model\":\"gpt-4o-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":2,\"total_tokens\":10,\"prompt_tokens_details\":{\"cached_tokens\":3}}}\n\n";

    fn decode(body: &str) -> Result<Vec<StreamPiece>, ProviderError> {
        decode_all(
            body.as_bytes(),
            ChatDecoder::new("sent-model", &ApiKey::new("sk-secret-key")),
        )
    }

    #[test]
    fn text_finish_reason_usage_and_model_are_read() {
        let body = [
            chunk(r#"{"role":"assistant","content":""}"#, "null"),
            chunk(r#"{"content":"Hel"}"#, "null"),
            chunk(r#"{"content":"lo"}"#, "null"),
            chunk("{}", "\"length\""),
            USAGE.to_owned(),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let pieces = decode(&body).unwrap();
        assert_eq!(pieces[0], StreamPiece::Text("Hel".into()));
        assert_eq!(pieces[1], StreamPiece::Text("lo".into()));
        let reply = assemble(pieces);
        assert_eq!(reply.text, "Hello");
        assert_eq!(reply.finish_reason, FinishReason::Length);
        assert_eq!(reply.model, "gpt-4o-mini");
        assert_eq!(
            (
                reply.usage.input_tokens,
                reply.usage.output_tokens,
                reply.usage.cached_tokens,
                reply.usage.calls
            ),
            (8, 2, 3, 1)
        );
    }

    #[test]
    fn refusals_are_their_own_pieces_and_blank_ones_are_no_refusal() {
        let body = [
            chunk(r#"{"refusal":" "}"#, "null"),
            chunk(r#"{"refusal":"I can't"}"#, "null"),
            chunk(r#"{"refusal":" help."}"#, "\"stop\""),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let pieces = decode(&body).unwrap();
        assert_eq!(pieces[0], StreamPiece::Refusal(" I can't".into()));
        let reply = assemble(pieces);
        assert_eq!(reply.finish_reason, FinishReason::Refusal);
        assert_eq!(reply.refusal.as_deref(), Some(" I can't help."));

        let blank = [
            chunk(r#"{"refusal":"  "}"#, "\"stop\""),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let reply = assemble(decode(&blank).unwrap());
        assert_eq!(reply.finish_reason, FinishReason::Stop);
        assert_eq!(reply.refusal, None);
    }

    #[test]
    fn reasoning_is_never_text() {
        let body = [
            chunk(r#"{"reasoning_content":"The user wants"}"#, "null"),
            chunk(r#"{"reasoning":" a number."}"#, "null"),
            chunk(r#"{"content":"42"}"#, "\"stop\""),
            "data: [DONE]\n\n".to_owned(),
        ]
        .concat();
        let mut reply = ReplyAssembler::new();
        decode(&body)
            .unwrap()
            .into_iter()
            .for_each(|p| reply.push(p));
        assert_eq!(reply.reasoning(), Some("The user wants a number."));
        assert_eq!(reply.finish().unwrap().text, "42");
    }

    #[test]
    fn only_the_first_choice_is_read() {
        let body = "data: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"B\"}},{\"index\":0,\"delta\":{\"content\":\"A\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        let reply = assemble(decode(body).unwrap());
        assert_eq!(reply.text, "A");
        assert_eq!(reply.model, "sent-model");
    }

    #[test]
    fn errors_in_the_stream_break_it_without_the_key() {
        let body = format!(
            "{}data: {{\"error\":{{\"message\":\"Overloaded, key sk-secret-key\",\"type\":\"server_error\"}}}}\n\n",
            chunk(r#"{"content":"Hel"}"#, "null")
        );
        let error = decode(&body).unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
        assert!(
            error.message.contains("Overloaded, key [redacted]"),
            "{}",
            error.message
        );

        let error = decode("event: error\ndata: {\"message\":\"boom\"}\n\n").unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
        assert!(error.message.contains("boom"), "{}", error.message);
    }

    #[test]
    fn a_chunk_that_is_not_json_or_has_unreadable_text_is_a_decode_error() {
        for body in [
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"\n\n",
            "data: {\"choices\":[{\"delta\":{\"refusal\":7}}]}\n\n",
            "data: hello\n\n",
        ] {
            let error = decode(body).unwrap_err();
            assert_eq!(error.kind, ProviderErrorKind::Decode, "{body}");
            assert!(
                error
                    .message
                    .starts_with("sent an event that is not a Chat Completions chunk"),
                "{}",
                error.message
            );
        }
    }
}

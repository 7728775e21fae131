//! The pieces of a streamed reply: [`Provider::stream`](super::Provider::stream) yields a [`PieceStream`] of
//! [`StreamPiece`]s, and a [`ReplyAssembler`] rebuilds from them the same [`AiResponse`] that
//! [`Provider::complete`](super::Provider::complete) gives.
//!
//! The contract every provider's stream keeps:
//! - Pieces come in the order the model wrote them. `Text` pieces joined are the reply's text;
//!   `Refusal` pieces joined are its refusal message; `Reasoning` pieces joined are the model's
//!   reasoning, which is not part of the text.
//! - A successful stream ends with exactly one [`StreamPiece::End`], last: the finish reason, the
//!   usage and the model. Pieces without an `End` are not a reply.
//! - An `Err` item ends the stream; the pieces before it are not a reply. Its kind says why:
//!   [`StreamBroken`](super::ProviderErrorKind::StreamBroken) when the stream broke after it began
//!   (the connection dropped, the server went silent past the idle timeout or stopped before its
//!   end marker, or sent an error event), or the same kinds [`complete`](super::Provider::complete)
//!   gives before it began (refused connection, HTTP status, ...) and for replies that cannot be read
//!   or pass a limit (`Decode`).
//! - Dropping the stream cancels the request: the HTTP connection is closed. A stream read until
//!   it returns `None` after its `End` leaves its connection to the next request.
//!
//! How a vendor's event stream becomes pieces (its decoder, the key's redaction, the stream's
//! errors) is [`decode`]'s; the events themselves are read off the wire by the transport
//! (`transport::sse`).

mod decode;

use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;

use futures::{Stream, StreamExt as _};

use super::{AiResponse, BoxFuture, FinishReason, ProviderError, ProviderErrorKind};
use crate::result::Usage;
#[allow(unused_imports)]
pub(crate) use decode::NoEvents;
#[cfg(test)]
pub(crate) use decode::{assemble, assert_broken, assert_reply, decode_all};
pub(crate) use decode::{
    no_server_error, not_an_event, open_and_read, read_event, server_error, typed_error_text,
    EventDecoder, Pieces, StreamModel, UntilNotBlank,
};

/// A boxed, sendable stream of reply pieces, as [`Provider::stream`](super::Provider::stream)
/// returns.
///
/// ```
/// use futures::StreamExt;
/// use intent_core::provider::{PieceStream, Provider, ScriptedProvider, StreamPiece};
/// use intent_core::AiRequest;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new(["Hello, world"]).with_stream_chunk_chars(5);
/// let request = AiRequest::new("", "Greet.");
/// let mut pieces: PieceStream<'_> = model.stream(&request);
/// assert_eq!(pieces.next().await.unwrap().unwrap(), StreamPiece::Text("Hello".into()));
/// # });
/// ```
pub type PieceStream<'a> =
    Pin<Box<dyn Stream<Item = Result<StreamPiece, ProviderError>> + Send + 'a>>;

/// One piece of a streamed reply.
///
/// ```
/// use intent_core::provider::StreamPiece;
///
/// let piece = StreamPiece::Text("{\"value\": ".into());
/// assert_eq!(piece.as_text(), Some("{\"value\": "));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamPiece {
    /// More of the reply's text.
    Text(String),
    /// More of the model's reasoning (`reasoning_content` on llama.cpp, vLLM and DeepSeek,
    /// `reasoning` on Ollama and newer vLLM, Anthropic `thinking` blocks): never part of the text.
    Reasoning(String),
    /// More of the refusal message, when the provider states it apart from the text (OpenAI's
    /// `refusal`).
    Refusal(String),
    /// The log probabilities of the tokens of the text pieces so far not covered by an earlier
    /// such piece, when the request asked for them.
    Logprobs(Vec<super::TokenLogprob>),
    /// A tool call, whole: its arguments assembled from the vendor's deltas before it is
    /// handed on (a streamed call's partial answers are of its final answer only).
    ToolCall(super::ToolCall),
    /// The end of a complete reply: always the last piece.
    End(StreamEnd),
}

impl StreamPiece {
    /// The piece's text, for a [`StreamPiece::Text`].
    ///
    /// ```
    /// use intent_core::provider::StreamPiece;
    /// assert_eq!(StreamPiece::Reasoning("hmm".into()).as_text(), None);
    /// ```
    pub fn as_text(&self) -> Option<&str> {
        match self {
            StreamPiece::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// What the last piece of a complete reply says: why the model stopped, the tokens used and the
/// model that answered.
///
/// ```
/// use intent_core::provider::{FinishReason, StreamEnd};
/// use intent_core::Usage;
///
/// let end = StreamEnd::new(FinishReason::Stop, Usage { calls: 1, ..Usage::default() }, "gpt-4o-mini");
/// assert!(!end.refusal_is_text);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StreamEnd {
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// Tokens used by this call (`calls` is 1).
    pub usage: Usage,
    /// The model that answered.
    pub model: String,
    /// With [`FinishReason::Refusal`]: the refusal message is the reply's text, trimmed (Anthropic
    /// states its refusal in the text, with no `Refusal` pieces).
    pub refusal_is_text: bool,
    /// With tool calls: the model's turn as the vendor must be sent it again
    /// ([`AiResponse::vendor_turn`](super::AiResponse::vendor_turn)).
    pub vendor_turn: Option<Box<serde_json::Value>>,
}

impl StreamEnd {
    /// The end of a reply, its refusal (if any) in `Refusal` pieces.
    pub fn new(finish_reason: FinishReason, usage: Usage, model: impl Into<String>) -> Self {
        StreamEnd {
            finish_reason,
            usage,
            model: model.into(),
            refusal_is_text: false,
            vendor_turn: None,
        }
    }
}

/// Rebuilds a reply from its pieces: the same [`AiResponse`] that
/// [`Provider::complete`](super::Provider::complete) gives for the same reply.
///
/// It keeps the text so far ([`text`](Self::text)), so a reader of partial answers can read each
/// new piece against it without a second copy.
///
/// ```
/// use intent_core::provider::{FinishReason, ReplyAssembler, StreamEnd, StreamPiece};
/// use intent_core::Usage;
///
/// let mut reply = ReplyAssembler::new();
/// reply.push(StreamPiece::Text("{\"value\": ".into()));
/// reply.push(StreamPiece::Text("42}".into()));
/// assert_eq!(reply.text(), "{\"value\": 42}");
/// reply.push(StreamPiece::End(StreamEnd::new(FinishReason::Stop, Usage { calls: 1, ..Usage::default() }, "m")));
/// let response = reply.finish().unwrap();
/// assert_eq!(response.text, "{\"value\": 42}");
/// assert_eq!(response.model, "m");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ReplyAssembler {
    text: String,
    reasoning: Option<String>,
    refusal: Option<String>,
    logprobs: Option<Vec<super::TokenLogprob>>,
    tool_calls: Vec<super::ToolCall>,
    end: Option<StreamEnd>,
}

impl ReplyAssembler {
    /// An empty reply.
    pub fn new() -> Self {
        ReplyAssembler::default()
    }

    /// Adds a piece.
    pub fn push(&mut self, piece: StreamPiece) {
        match piece {
            StreamPiece::Text(text) => append(&mut self.text, text),
            StreamPiece::Reasoning(text) => {
                append(self.reasoning.get_or_insert_with(String::new), text);
            }
            StreamPiece::Refusal(text) => {
                append(self.refusal.get_or_insert_with(String::new), text)
            }
            StreamPiece::Logprobs(tokens) => {
                self.logprobs.get_or_insert_with(Vec::new).extend(tokens)
            }
            StreamPiece::ToolCall(call) => self.tool_calls.push(call),
            StreamPiece::End(end) => self.end = Some(end),
        }
    }

    /// The text so far.
    ///
    /// ```
    /// let reply = intent_core::provider::ReplyAssembler::new();
    /// assert_eq!(reply.text(), "");
    /// ```
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The reasoning so far, when the model sent any.
    ///
    /// ```
    /// use intent_core::provider::{ReplyAssembler, StreamPiece};
    /// let mut reply = ReplyAssembler::new();
    /// reply.push(StreamPiece::Reasoning("The user wants".into()));
    /// assert_eq!(reply.reasoning(), Some("The user wants"));
    /// assert_eq!(reply.text(), "");
    /// ```
    pub fn reasoning(&self) -> Option<&str> {
        self.reasoning.as_deref()
    }

    /// True once the [`StreamPiece::End`] came.
    ///
    /// ```
    /// assert!(!intent_core::provider::ReplyAssembler::new().is_complete());
    /// ```
    pub fn is_complete(&self) -> bool {
        self.end.is_some()
    }

    /// The reply; an error when its [`StreamPiece::End`] never came.
    ///
    /// ```
    /// use intent_core::provider::{ProviderErrorKind, ReplyAssembler};
    /// let error = ReplyAssembler::new().finish().unwrap_err();
    /// assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
    /// ```
    pub fn finish(self) -> Result<AiResponse, ProviderError> {
        let Some(end) = self.end else {
            return Err(ProviderError::new(
                ProviderErrorKind::StreamBroken,
                "the stream ended without its end piece; the reply is incomplete",
            ));
        };
        let refusal = self.refusal.or_else(|| {
            (end.refusal_is_text && end.finish_reason == FinishReason::Refusal)
                .then(|| self.text.trim().to_owned())
        });
        let mut response = AiResponse::new(self.text, end.model);
        response.finish_reason = end.finish_reason;
        response.refusal = refusal;
        response.reasoning = self.reasoning;
        response.usage = end.usage;
        response.logprobs = self.logprobs;
        response.tool_calls = self.tool_calls;
        response.vendor_turn = end.vendor_turn;
        Ok(response)
    }

    /// Reads a whole stream and rebuilds its reply; the stream's first error, if any.
    ///
    /// ```
    /// use intent_core::provider::{Provider, ReplyAssembler, ScriptedProvider};
    /// use intent_core::AiRequest;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedProvider::new(["a reply longer than one piece"]);
    /// let request = AiRequest::new("", "Say something.");
    /// let reply = ReplyAssembler::collect(model.stream(&request)).await.unwrap();
    /// assert_eq!(reply.text, "a reply longer than one piece");
    /// # });
    /// ```
    pub async fn collect(mut stream: PieceStream<'_>) -> Result<AiResponse, ProviderError> {
        let mut reply = ReplyAssembler::new();
        while let Some(piece) = stream.next().await {
            reply.push(piece?);
        }
        reply.finish()
    }
}

/// Appends `piece` to `buffer`, taking its allocation when the buffer is empty.
fn append(buffer: &mut String, piece: String) {
    if buffer.is_empty() {
        *buffer = piece;
    } else {
        buffer.push_str(&piece);
    }
}

/// The pieces of a whole reply: its reasoning, its text in pieces of at most `chunk_chars`
/// characters (whole when `None`), its refusal, then its end. Assembled, they give back `response`
/// exactly.
pub(crate) fn reply_pieces(
    response: AiResponse,
    chunk_chars: Option<NonZeroUsize>,
) -> Vec<StreamPiece> {
    let text = response.text;
    let mut pieces = Vec::new();
    if let Some(reasoning) = response.reasoning {
        pieces.push(StreamPiece::Reasoning(reasoning));
    }
    match chunk_chars {
        _ if text.is_empty() => {}
        None => pieces.push(StreamPiece::Text(text)),
        Some(n) => {
            let mut rest = text.as_str();
            while !rest.is_empty() {
                let end = rest
                    .char_indices()
                    .nth(n.get())
                    .map_or(rest.len(), |(i, _)| i);
                let (piece, tail) = rest.split_at(end);
                pieces.push(StreamPiece::Text(piece.to_owned()));
                rest = tail;
            }
        }
    }
    if let Some(refusal) = response.refusal {
        pieces.push(StreamPiece::Refusal(refusal));
    }
    if let Some(tokens) = response.logprobs {
        pieces.push(StreamPiece::Logprobs(tokens));
    }
    pieces.extend(response.tool_calls.into_iter().map(StreamPiece::ToolCall));
    let mut end = StreamEnd::new(response.finish_reason, response.usage, response.model);
    end.vendor_turn = response.vendor_turn;
    pieces.push(StreamPiece::End(end));
    pieces
}

/// The stream of a reply that comes whole: [`Provider::stream`](super::Provider::stream)'s
/// default.
pub(crate) fn whole_reply(
    reply: BoxFuture<'_, Result<AiResponse, ProviderError>>,
) -> PieceStream<'_> {
    Box::pin(
        futures::stream::once(reply)
            .map(|reply| {
                let pieces = match reply {
                    Ok(response) => reply_pieces(response, None).into_iter().map(Ok).collect(),
                    Err(error) => vec![Err(error)],
                };
                futures::stream::iter(pieces)
            })
            .flatten(),
    )
}

/// The stream of a request that first has to be opened: `open` yields the stream, or the error
/// that is then its only item.
pub(crate) fn opening<'a>(
    open: impl Future<Output = Result<PieceStream<'a>, ProviderError>> + Send + 'a,
) -> PieceStream<'a> {
    Box::pin(
        futures::stream::once(open)
            .map(|opened| {
                opened.unwrap_or_else(|error| Box::pin(futures::stream::iter([Err(error)])))
            })
            .flatten(),
    )
}

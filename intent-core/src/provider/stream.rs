//! Streamed replies: [`Provider::stream`](super::Provider::stream) yields a [`PieceStream`] of
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

mod decoding;

use std::collections::VecDeque;
use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;

use futures::{Stream, StreamExt as _};

use super::sse::SseEvent;
use super::transport::{ApiKey, EventBody, Opened, PieceRedactor, Post, Redact, Transport};
use super::{AiResponse, BoxFuture, FinishReason, ProviderError, ProviderErrorKind};
use crate::result::Usage;
pub(crate) use decoding::{not_an_event, server_error, typed_error_text, StreamModel};

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
}

impl StreamEnd {
    /// The end of a reply, its refusal (if any) in `Refusal` pieces.
    pub fn new(finish_reason: FinishReason, usage: Usage, model: impl Into<String>) -> Self {
        StreamEnd {
            finish_reason,
            usage,
            model: model.into(),
            refusal_is_text: false,
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
    let AiResponse {
        text,
        finish_reason,
        refusal,
        usage,
        model,
        reasoning,
        logprobs,
        ..
    } = response;
    let mut pieces = Vec::new();
    if let Some(reasoning) = reasoning {
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
    if let Some(refusal) = refusal {
        pieces.push(StreamPiece::Refusal(refusal));
    }
    if let Some(tokens) = logprobs {
        pieces.push(StreamPiece::Logprobs(tokens));
    }
    pieces.push(StreamPiece::End(StreamEnd::new(
        finish_reason,
        usage,
        model,
    )));
    pieces
}

/// Text that counts only once it is not blank, as providers read a refusal or reasoning sent whole:
/// blank pieces are held back until a piece that is not blank comes, then sent with it.
#[derive(Debug, Default)]
pub(crate) struct UntilNotBlank {
    held: String,
    shown: bool,
}

impl UntilNotBlank {
    /// The piece to send for `piece`, if any yet.
    pub(crate) fn push(&mut self, piece: String) -> Option<String> {
        if self.shown {
            Some(piece)
        } else if piece.trim().is_empty() {
            self.held.push_str(&piece);
            None
        } else {
            self.shown = true;
            let mut all = std::mem::take(&mut self.held);
            all.push_str(&piece);
            Some(all)
        }
    }

    /// True once a piece that is not blank came.
    pub(crate) fn shown(&self) -> bool {
        self.shown
    }
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

/// Opens a streamed request and reads its reply: an event stream through `decoder`, or the whole
/// JSON reply of a server that did not stream through `parse`, the provider's reply parser.
pub(crate) async fn open_and_read<D: EventDecoder>(
    transport: &Transport,
    post: Post<'_>,
    decoder: D,
    parse: impl FnOnce(&[u8]) -> Result<AiResponse, ProviderError>,
) -> Result<PieceStream<'static>, ProviderError> {
    let (provider, key) = (post.provider, post.key);
    Ok(match transport.open(post).await? {
        Opened::Events(body) => event_pieces(*body, decoder),
        Opened::Json(reply) => {
            let response = parse(&reply)
                .map_err(|mut e| {
                    // A reply echoing the key must not carry it into an error.
                    e.message = key.redact(std::mem::take(&mut e.message));
                    e.with_provider(provider)
                })?
                .redact(key);
            Box::pin(futures::stream::iter(
                reply_pieces(response, None).into_iter().map(Ok),
            ))
        }
    })
}

/// What a provider's stream decoder makes of one event.
pub(crate) trait EventDecoder: Send + 'static {
    /// Reads one event, adding the pieces it carries to `pieces`. Returns `Ok(true)` for the
    /// stream's last event (after which the decoder has added its [`StreamPiece::End`]).
    fn event(
        &mut self,
        event: SseEvent,
        pieces: &mut VecDeque<StreamPiece>,
    ) -> Result<bool, ProviderError>;

    /// The event that ends this provider's stream, for the error when the body ends before it.
    fn end_marker(&self) -> &'static str;
}

/// The pieces of an event stream, decoded by `decoder`.
pub(crate) fn event_pieces<D: EventDecoder>(body: EventBody, decoder: D) -> PieceStream<'static> {
    struct State<D> {
        body: EventBody,
        decoder: D,
        /// What the decoder read from the last event.
        decoded: VecDeque<StreamPiece>,
        /// What is passed on, without the key.
        pieces: VecDeque<StreamPiece>,
        redact: Redacting,
        done: bool,
    }
    let redact = Redacting::new(body.key().clone());
    let state = State {
        body,
        decoder,
        decoded: VecDeque::new(),
        pieces: VecDeque::new(),
        redact,
        done: false,
    };
    Box::pin(futures::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(piece) = state.pieces.pop_front() {
                return Some((Ok(piece), state));
            }
            if state.done {
                // Asked for more after the last piece: the body's end is read, for the connection.
                state.body.drain().await;
                return None;
            }
            let failed = match state.body.next_event().await {
                Ok(Some(event)) => {
                    let last = state.decoder.event(event, &mut state.decoded);
                    for piece in state.decoded.drain(..) {
                        state.redact.pass(piece, &mut state.pieces);
                    }
                    match last {
                        Ok(last) => {
                            state.done = last;
                            continue;
                        }
                        Err(error) => state.body.error_from(error),
                    }
                }
                Ok(None) => state.body.broken(format!(
                    "it ended without {}; the reply is incomplete",
                    state.decoder.end_marker()
                )),
                Err(error) => error,
            };
            // The stream ends at its first error; the reply is dropped with its connection.
            state.done = true;
            state.pieces.clear();
            state.body.release_now();
            return Some((Err(failed), state));
        }
    }))
}

/// The key's redaction for a stream's pieces: each of text, reasoning and refusal redacted as
/// [`Redact`] redacts a reply read whole, a key cut across pieces included.
struct Redacting {
    key: ApiKey,
    text: PieceRedactor,
    reasoning: PieceRedactor,
    refusal: PieceRedactor,
}

impl Redacting {
    fn new(key: ApiKey) -> Self {
        Redacting {
            key,
            text: PieceRedactor::default(),
            reasoning: PieceRedactor::default(),
            refusal: PieceRedactor::default(),
        }
    }

    /// Passes `piece` on to `out`, redacted; before the end, what each part held back.
    fn pass(&mut self, piece: StreamPiece, out: &mut VecDeque<StreamPiece>) {
        let key = &self.key;
        let mut send = |text: String, piece: fn(String) -> StreamPiece| {
            if !text.is_empty() {
                out.push_back(piece(text));
            }
        };
        match piece {
            StreamPiece::Text(text) => send(self.text.push(key, text), StreamPiece::Text),
            StreamPiece::Reasoning(text) => {
                send(self.reasoning.push(key, text), StreamPiece::Reasoning);
            }
            StreamPiece::Refusal(text) => send(self.refusal.push(key, text), StreamPiece::Refusal),
            StreamPiece::Logprobs(tokens) => {
                if !key.in_tokens(&tokens) {
                    out.push_back(StreamPiece::Logprobs(tokens));
                }
            }
            StreamPiece::End(mut end) => {
                send(self.reasoning.finish(key), StreamPiece::Reasoning);
                send(self.text.finish(key), StreamPiece::Text);
                send(self.refusal.finish(key), StreamPiece::Refusal);
                end.model = key.redact(std::mem::take(&mut end.model));
                if let FinishReason::Other(reason) | FinishReason::Abnormal(reason) =
                    &mut end.finish_reason
                {
                    *reason = key.redact(std::mem::take(reason));
                }
                out.push_back(StreamPiece::End(end));
            }
        }
    }
}

/// Decodes a whole event-stream body, as [`event_pieces`] does, without a connection.
#[cfg(test)]
pub(crate) fn decode_all<D: EventDecoder>(
    body: &[u8],
    mut decoder: D,
) -> Result<Vec<StreamPiece>, ProviderError> {
    let mut parser = super::sse::SseParser::new(1 << 20);
    let mut input = body;
    let mut pieces = VecDeque::new();
    while let Some(event) = parser
        .next_event(&mut input)
        .map_err(|e| ProviderError::new(ProviderErrorKind::Decode, e.to_string()))?
    {
        if decoder.event(event, &mut pieces)? {
            return Ok(pieces.into());
        }
    }
    Err(ProviderError::new(
        ProviderErrorKind::StreamBroken,
        format!("it ended without {}", decoder.end_marker()),
    ))
}

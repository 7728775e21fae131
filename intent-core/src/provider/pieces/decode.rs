//! From a vendor's events to pieces: the [`EventDecoder`] each vendor's `events.rs` implements,
//! the stream of pieces it drives (with the key redacted from every piece, a key cut across
//! pieces included), and what the decoders share around their own events: the model the reply
//! names (else the one asked for), text held back until it is not blank, and the errors of a
//! stream (an event the vendor's wire does not allow, an error the server sends after HTTP 200),
//! with the key redacted before any text is cut for a message.

use std::collections::VecDeque;

use serde_json::Value;

use super::{reply_pieces, PieceStream, StreamPiece};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::{
    clip_body, error_text, ApiKey, EventBody, Opened, PieceRedactor, Post, Redact, Transport,
};
use crate::provider::{AiResponse, FinishReason, ProviderError, ProviderErrorKind};

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

/// The pieces a decoder reads from one event.
pub(crate) type Pieces = VecDeque<StreamPiece>;

/// What a provider's stream decoder makes of one event.
pub(crate) trait EventDecoder: Send + 'static {
    /// Reads one event, adding the pieces it carries to `pieces`. Returns `Ok(true)` for the
    /// stream's last event (after which the decoder has added its [`StreamPiece::End`]).
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError>;

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
            StreamPiece::ToolCall(call) => {
                // Whole calls: redacted as a whole, like a complete reply's.
                out.push_back(StreamPiece::ToolCall(super::super::ToolCall::new(
                    key.redact(call.id),
                    key.redact(call.name),
                    key.redact(call.arguments),
                )));
            }
            StreamPiece::End(mut end) => {
                send(self.reasoning.finish(key), StreamPiece::Reasoning);
                send(self.text.finish(key), StreamPiece::Text);
                send(self.refusal.finish(key), StreamPiece::Refusal);
                end.model = key.redact(std::mem::take(&mut end.model));
                end.vendor_turn = end
                    .vendor_turn
                    .take()
                    .map(|turn| Box::new(key.redact_json(*turn)));
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
    body: impl AsRef<[u8]>,
    mut decoder: D,
) -> Result<Vec<StreamPiece>, ProviderError> {
    let mut parser = crate::provider::transport::sse::SseParser::new(1 << 20);
    let mut input = body.as_ref();
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

/// The reply the pieces of a complete stream make, for the decoders' tests.
#[cfg(test)]
pub(crate) fn assemble(pieces: Vec<StreamPiece>) -> AiResponse {
    let mut reply = super::ReplyAssembler::new();
    pieces.into_iter().for_each(|p| reply.push(p));
    reply.finish().expect("the pieces end with their end piece")
}

/// Checks the reply the pieces of a complete stream make: its text, reasoning, finish reason,
/// model, and input, output, cached and reasoning tokens, for the decoders' tests.
#[cfg(test)]
pub(crate) fn assert_reply(
    pieces: Vec<StreamPiece>,
    text: &str,
    reasoning: Option<&str>,
    finish_reason: FinishReason,
    model: &str,
    tokens: (u64, u64, u64, u64),
) {
    let reply = assemble(pieces);
    assert_eq!(reply.text, text);
    assert_eq!(reply.reasoning.as_deref(), reasoning);
    assert_eq!(reply.finish_reason, finish_reason);
    assert_eq!(reply.model, model);
    assert_eq!(token_counts(&reply.usage), tokens);
}

/// Checks that a stream broke with an error that says `says` and does not show `key`, for the
/// decoders' tests.
#[cfg(test)]
pub(crate) fn assert_broken(error: &ProviderError, says: &str, key: &str) {
    assert_eq!(
        error.kind,
        ProviderErrorKind::StreamBroken,
        "{}",
        error.message
    );
    assert!(error.message.contains(says), "{}", error.message);
    assert!(!error.message.contains(key), "{}", error.message);
}

/// A reply's input, output, cached and reasoning tokens, for the decoders' tests.
#[cfg(test)]
pub(crate) fn token_counts(usage: &crate::result::Usage) -> (u64, u64, u64, u64) {
    (
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_tokens,
        usage.reasoning_tokens,
    )
}

/// The events of a vendor whose replies come whole: there are none to decode. Every vendor of
/// this crate streams today; this is the `Vendor::Events` of one that does not.
#[derive(Debug)]
#[allow(dead_code)]
pub(crate) enum NoEvents {}

impl EventDecoder for NoEvents {
    fn event(&mut self, _event: SseEvent, _pieces: &mut Pieces) -> Result<bool, ProviderError> {
        match *self {}
    }

    fn end_marker(&self) -> &'static str {
        match *self {}
    }
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

/// The model of a streamed reply: the last one an event named, else the one asked for.
pub(crate) struct StreamModel {
    sent: String,
    named: Option<String>,
}

impl StreamModel {
    /// A reply to a request that asked for `sent`.
    pub(crate) fn new(sent: &str) -> Self {
        StreamModel {
            sent: sent.to_owned(),
            named: None,
        }
    }

    /// An event named `model` (a blank name changes nothing).
    pub(crate) fn name(&mut self, model: Option<String>) {
        if let Some(model) = model.filter(|m| !m.is_empty()) {
            self.named = Some(model);
        }
    }

    /// The model that answered, once the stream ends.
    pub(crate) fn answered(&mut self) -> String {
        self.named
            .take()
            .unwrap_or_else(|| std::mem::take(&mut self.sent))
    }
}

/// An event the provider's wire does not allow: `what` says what it is not, and the event's data
/// is quoted (clipped, the key redacted).
pub(crate) fn not_an_event(
    data: &str,
    what: impl std::fmt::Display,
    key: &ApiKey,
) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::Decode,
        format!("sent {what}: {}", clip_body(data.as_bytes(), key)),
    )
}

/// An event's `data` read as a `T`; when it does not read, a decode error saying the provider sent
/// an event that is not `what` (`"a Chat Completions chunk"`), with serde's reason.
pub(crate) fn read_event<'de, T: serde::Deserialize<'de>>(
    data: &'de str,
    what: &str,
    key: &ApiKey,
) -> Result<T, ProviderError> {
    serde_json::from_str(data)
        .map_err(|e| not_an_event(data, format_args!("an event that is not {what} ({e})"), key))
}

/// An error the server sent in the stream, whose JSON `data` holds it under `error`: the stream
/// breaks, with the provider's message (as `describe` words it from the error object).
pub(crate) fn server_error(
    data: String,
    key: &ApiKey,
    describe: impl FnOnce(&Value) -> String,
) -> ProviderError {
    // Redacted before it is cut for the message: a cut could fall inside the key.
    let data: Value = serde_json::from_str(&key.redact(data)).unwrap_or_default();
    ProviderError::new(
        ProviderErrorKind::StreamBroken,
        format!("the server sent an error: {}", describe(&data["error"])),
    )
}

/// Breaks the stream when a chunk carries the server's `error` (present and not null), as
/// [`server_error`] words it from the chunk's `data`.
pub(crate) fn no_server_error(
    error: Option<&Value>,
    data: &str,
    key: &ApiKey,
    describe: impl FnOnce(&Value) -> String,
) -> Result<(), ProviderError> {
    if error.is_some_and(|e| !e.is_null()) {
        return Err(server_error(data.to_owned(), key, describe));
    }
    Ok(())
}

/// The provider's own error object as text: its `type` and message when it names a type.
pub(crate) fn typed_error_text(error: &Value) -> String {
    match error.get("type").and_then(Value::as_str) {
        Some(kind) => format!("{kind}: {}", error_text(error)),
        None => error_text(error),
    }
}

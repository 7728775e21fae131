//! [`ScriptedProvider`]: answers from a script, in order, and records what it was sent.

use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::pieces::{opening, reply_pieces};
use super::{
    AiResponse, FinishReason, PieceStream, Provider, ProviderError, ProviderErrorKind, ReplyFuture,
    StreamPiece,
};
use crate::request::AiRequest;

/// One scripted answer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ScriptedReply {
    /// A full reply.
    Response(AiResponse),
    /// A provider failure.
    Error(ProviderError),
    /// A reply that arrives after a delay (for deadlines and concurrency tests).
    Delayed(Duration, Box<ScriptedReply>),
    /// A streamed reply that breaks after this text: streamed, the text comes in pieces and then
    /// a [`ProviderErrorKind::StreamBroken`] error; completed, only the error.
    BrokenStream(String),
}

impl ScriptedReply {
    /// A reply cut off at the token limit.
    pub fn truncated(text: impl Into<String>) -> Self {
        let mut response = AiResponse::new(text, ScriptedProvider::MODEL);
        response.finish_reason = FinishReason::Length;
        ScriptedReply::Response(response)
    }

    /// A refusal.
    pub fn refusal(message: impl Into<String>) -> Self {
        let mut response = AiResponse::new("", ScriptedProvider::MODEL);
        response.finish_reason = FinishReason::Refusal;
        response.refusal = Some(message.into());
        ScriptedReply::Response(response)
    }

    /// The same reply after `delay`.
    pub fn after(self, delay: Duration) -> Self {
        ScriptedReply::Delayed(delay, Box::new(self))
    }

    /// One assistant turn of tool calls: each a tool's name and its arguments, in order (the
    /// calls get the ids `call_1`, `call_2`, ...). A call with tools runs them and asks again.
    ///
    /// ```
    /// use intent_core::provider::ScriptedReply;
    ///
    /// let turn = ScriptedReply::tool_calls([("lookup_order", serde_json::json!({"order_id": "A17"}))]);
    /// let ScriptedReply::Response(reply) = turn else { unreachable!() };
    /// assert_eq!(reply.tool_calls[0].name, "lookup_order");
    /// assert_eq!(reply.tool_calls[0].arguments, r#"{"order_id":"A17"}"#);
    /// ```
    pub fn tool_calls<'n>(calls: impl IntoIterator<Item = (&'n str, serde_json::Value)>) -> Self {
        let calls = calls.into_iter().enumerate().map(|(i, (name, arguments))| {
            let arguments = match arguments {
                // A string is the arguments' text itself, as a model may write it (broken,
                // cut off): sent on unread.
                serde_json::Value::String(text) => text,
                other => other.to_string(),
            };
            super::ToolCall::new(format!("call_{}", i + 1), name, arguments)
        });
        let mut response = AiResponse::new("", ScriptedProvider::MODEL);
        response.finish_reason = FinishReason::Other("tool_calls".to_owned());
        response.tool_calls = calls.collect();
        ScriptedReply::Response(response)
    }

    /// A streamed reply that breaks after `text` (see [`ScriptedReply::BrokenStream`]).
    ///
    /// ```
    /// use futures::StreamExt;
    /// use intent_core::provider::{Provider, ProviderErrorKind, ScriptedProvider, ScriptedReply, StreamPiece};
    /// use intent_core::AiRequest;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedProvider::new([ScriptedReply::broken_stream("{\"value\": ")]);
    /// let request = AiRequest::new("", "Count.");
    /// let pieces: Vec<_> = model.stream(&request).collect().await;
    /// assert_eq!(pieces[0].as_ref().unwrap(), &StreamPiece::Text("{\"value\": ".into()));
    /// assert_eq!(pieces[1].as_ref().unwrap_err().kind, ProviderErrorKind::StreamBroken);
    /// # });
    /// ```
    pub fn broken_stream(text: impl Into<String>) -> Self {
        ScriptedReply::BrokenStream(text.into())
    }
}

impl From<&str> for ScriptedReply {
    fn from(text: &str) -> Self {
        ScriptedReply::Response(AiResponse::new(text, ScriptedProvider::MODEL))
    }
}

impl From<String> for ScriptedReply {
    fn from(text: String) -> Self {
        ScriptedReply::Response(AiResponse::new(text, ScriptedProvider::MODEL))
    }
}

impl From<AiResponse> for ScriptedReply {
    fn from(response: AiResponse) -> Self {
        ScriptedReply::Response(response)
    }
}

impl From<ProviderError> for ScriptedReply {
    fn from(error: ProviderError) -> Self {
        ScriptedReply::Error(error)
    }
}

#[derive(Debug, Default)]
struct Script {
    replies: VecDeque<ScriptedReply>,
    scripted: usize,
    requests: Vec<AiRequest>,
}

/// A provider that answers from a script, offline: the default for examples and tests.
///
/// Replies are given in order; each request is recorded. Clones share the script and the record.
/// When the script runs out, calls fail with [`ProviderErrorKind::ScriptExhausted`].
///
/// ```
/// use intent_core::prelude::*;
///
/// # tokio_test();
/// # fn tokio_test() {
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([r#"{"value": 42}"#]);
/// let client = IntentClient::new(model.clone());
/// let answer = u32::ai(&client, "six times seven", "Compute.").await;
/// assert_eq!(answer.value(), Some(&42));
/// assert!(model.requests()[0].user.contains("six times seven"));
/// # });
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScriptedProvider {
    script: Arc<Mutex<Script>>,
    name: Arc<str>,
    stream_chunk_chars: Option<NonZeroUsize>,
    /// False when it plays a server that cannot call tools under a response format.
    tools_apart: bool,
}

impl ScriptedProvider {
    /// The model name scripted replies report.
    pub const MODEL: &'static str = "scripted";
    /// The number of characters in each text piece of a streamed reply, by default.
    pub const DEFAULT_STREAM_CHUNK_CHARS: NonZeroUsize = match NonZeroUsize::new(16) {
        Some(n) => n,
        None => unreachable!(),
    };

    /// A provider that answers with `replies`, in order.
    pub fn new<R: Into<ScriptedReply>>(replies: impl IntoIterator<Item = R>) -> Self {
        let replies: VecDeque<ScriptedReply> = replies.into_iter().map(Into::into).collect();
        ScriptedProvider {
            script: Arc::new(Mutex::new(Script {
                scripted: replies.len(),
                replies,
                requests: Vec::new(),
            })),
            name: Arc::from("scripted"),
            stream_chunk_chars: None,
            tools_apart: false,
        }
    }

    /// Plays a server that can (`true`, the default) or cannot call tools in a reply
    /// constrained to a response format (see
    /// [`Provider::tools_beside_format`]), so that a test can script the rounds such a server
    /// is sent.
    ///
    /// ```
    /// use intent_core::provider::{Provider, ScriptedProvider};
    ///
    /// let grammar = ScriptedProvider::new(["{}"]).with_tools_beside_format(false);
    /// assert!(!grammar.tools_beside_format(&intent_core::AiRequest::new("", "")));
    /// ```
    pub fn with_tools_beside_format(mut self, can: bool) -> Self {
        self.tools_apart = !can;
        self
    }

    /// The number of characters in each text piece when a reply is streamed
    /// ([`DEFAULT_STREAM_CHUNK_CHARS`](Self::DEFAULT_STREAM_CHUNK_CHARS) by default; 0 counts as
    /// 1). Pieces never split a character.
    ///
    /// ```
    /// use intent_core::provider::ScriptedProvider;
    ///
    /// let model = ScriptedProvider::new(["{}"]).with_stream_chunk_chars(4);
    /// assert_eq!(model.stream_chunk_chars(), 4);
    /// assert_eq!(ScriptedProvider::new(["{}"]).stream_chunk_chars(), 16);
    /// ```
    pub fn with_stream_chunk_chars(mut self, chars: usize) -> Self {
        self.stream_chunk_chars = NonZeroUsize::new(chars.max(1));
        self
    }

    /// The number of characters in each text piece when a reply is streamed.
    pub fn stream_chunk_chars(&self) -> usize {
        self.chunk_chars().get()
    }

    fn chunk_chars(&self) -> NonZeroUsize {
        self.stream_chunk_chars
            .unwrap_or(Self::DEFAULT_STREAM_CHUNK_CHARS)
    }

    /// The same script under another provider name (for fallback tests).
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = Arc::from(name);
        self
    }

    /// Adds replies at the end of the script.
    pub fn push<R: Into<ScriptedReply>>(&self, replies: impl IntoIterator<Item = R>) {
        let mut script = self.lock();
        for reply in replies {
            script.replies.push_back(reply.into());
            script.scripted += 1;
        }
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<AiRequest> {
        self.lock().requests.clone()
    }

    /// The number of replies not yet given.
    pub fn remaining(&self) -> usize {
        self.lock().replies.len()
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        self.script
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ScriptedProvider {
    /// Records `request` and takes the next scripted reply, at once (calls made together are
    /// answered in the order they were made).
    fn next(&self, request: &AiRequest) -> Result<ScriptedReply, ProviderError> {
        let mut script = self.lock();
        script.requests.push(request.clone());
        let scripted = script.scripted;
        script.replies.pop_front().ok_or_else(|| {
            ProviderError::new(
                ProviderErrorKind::ScriptExhausted,
                format!("the script has no reply left ({scripted} were scripted)"),
            )
            .with_provider(&*self.name)
        })
    }

    /// A scripted reply to `request`, after its delays: a response, or the text of a broken
    /// stream.
    async fn answer(
        &self,
        request: &AiRequest,
        next: Result<ScriptedReply, ProviderError>,
    ) -> Result<Answer, ProviderError> {
        let mut reply = next?;
        loop {
            match reply {
                ScriptedReply::Delayed(delay, inner) => {
                    tokio::time::sleep(delay).await;
                    reply = *inner;
                }
                ScriptedReply::Response(mut response) => {
                    if let Some(model) = &request.model {
                        response.model.clone_from(model);
                    }
                    return Ok(Answer::Response(response));
                }
                ScriptedReply::Error(error) => return Err(error.with_provider(&*self.name)),
                ScriptedReply::BrokenStream(text) => return Ok(Answer::Broken(text)),
            }
        }
    }

    /// The error a scripted stream breaks with after `text`.
    fn broken(&self, text: &str) -> ProviderError {
        ProviderError::new(
            ProviderErrorKind::StreamBroken,
            format!(
                "the scripted stream broke after {} characters",
                text.chars().count()
            ),
        )
        .with_provider(&*self.name)
    }
}

/// A scripted reply, once its delays are over.
// A reply is the common case: boxing it would allocate once more on every call.
#[allow(clippy::large_enum_variant)]
enum Answer {
    Response(AiResponse),
    Broken(String),
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn default_model(&self) -> Option<&str> {
        Some(Self::MODEL)
    }

    fn tools_beside_format(&self, _request: &AiRequest) -> bool {
        !self.tools_apart
    }

    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        let next = self.next(request);
        Box::pin(async move {
            match self.answer(request, next).await? {
                Answer::Response(response) => Ok(response),
                Answer::Broken(text) => Err(self.broken(&text)),
            }
        })
    }

    /// Streams each scripted reply in pieces of [`stream_chunk_chars`](Self::stream_chunk_chars)
    /// characters; a [`ScriptedReply::BrokenStream`] streams its text, then breaks.
    fn stream<'a>(&'a self, request: &'a AiRequest) -> PieceStream<'a> {
        let chunk_chars = self.chunk_chars();
        let next = self.next(request);
        opening(async move {
            let pieces: Vec<Result<StreamPiece, ProviderError>> =
                match self.answer(request, next).await? {
                    Answer::Response(response) => reply_pieces(response, Some(chunk_chars))
                        .into_iter()
                        .map(Ok)
                        .collect(),
                    Answer::Broken(text) => {
                        let error = self.broken(&text);
                        reply_pieces(AiResponse::new(text, Self::MODEL), Some(chunk_chars))
                            .into_iter()
                            .filter(|piece| !matches!(piece, StreamPiece::End(_)))
                            .map(Ok)
                            .chain([Err(error)])
                            .collect()
                    }
                };
            Ok(Box::pin(futures::stream::iter(pieces)) as PieceStream)
        })
    }
}

//! Model providers: the [`Provider`] trait and its implementations.
//!
//! [`OpenAiProvider`] speaks Chat Completions (OpenAI and compatible servers) or OpenAI's Responses
//! API, [`AnthropicProvider`] the Messages API, [`GeminiProvider`] Gemini's `generateContent` (and
//! `streamGenerateContent` when streamed), and [`ScriptedProvider`] answers from a script, offline.
//! With the features `bedrock` and `vertex`, `BedrockProvider` speaks Amazon Bedrock's Converse
//! API and `VertexProvider` reaches Gemini and Claude models on Google Vertex AI (`cloud`).
//! What each does with each option is one table (`capabilities`, the README's provider table);
//! which models refuse which settings another (`models`), read by the bodies through `plan`.
//!
//! The three vendors are one type, [`HttpProvider`], over a vendor's wire ([`OpenAi`],
//! [`Anthropic`], [`Gemini`]): the transport, the settings and the [`Provider`] methods are
//! written once (`http`, `transport`), and each vendor has one folder with the same files
//! (`mod.rs`, `wire.rs` or one file per API, `parts.rs`, and `events.rs`, `batch.rs`,
//! `dialect.rs` where the vendor has them: see `http` for what each holds and how a new vendor
//! is added). What the vendors' bodies share is beside them: `message_parts` (the attachments
//! of a message, in order), `sampling` (the sampling options and which vendor takes which),
//! `extra_body` (fields merged over a body), `batch` (the batch capability, and the requests
//! every batch API sends).
//!
//! A reply streams through three layers, each with one home and one name:
//!
//! - **events**: the server-sent events on the wire, parsed within the provider's limits
//!   (`transport::sse`);
//! - **pieces**: the vendor's events decoded (its `events.rs`) into [`StreamPiece`]s, the
//!   contract every provider's [`Provider::stream`] keeps ([`PieceStream`],
//!   [`ReplyAssembler`]; `pieces`);
//! - **streams**: what users read, built on the pieces above the provider layer: a call's
//!   [`AiStream`](crate::stream::AiStream) and [`ElementStream`](crate::stream::ElementStream)
//!   ([`crate::stream`]), a collection's [`CollectionStream`](crate::collections::CollectionStream)
//!   and [`MapStream`](crate::collections::MapStream) ([`crate::collections`]).

mod anthropic;
pub(crate) mod batch;
#[cfg(feature = "bedrock")]
mod bedrock;
/// The table the README's provider table is written from, read by the tests that compare the
/// two and walk it: no program needs it.
#[cfg(any(test, feature = "__internals"))]
pub(crate) mod capabilities;
mod cloud;
mod extra_body;
mod gemini;
mod http;
pub(crate) mod logprobs;
mod message_parts;
mod models;
mod openai;
pub(crate) mod pieces;
mod plan;
mod sampling;
mod scripted;
mod tool_wire;
mod transport;

pub use crate::error::{ProviderError, ProviderErrorKind};
pub use crate::request::{AiRequest, ResponseFormat, SharedSchema};
pub use crate::result::FinishReason;
pub use crate::toolbox::{
    RequestTools, ToolCall, ToolChoice, ToolDefinition, ToolResult, ToolRound,
};
pub use anthropic::{Anthropic, AnthropicProvider};
pub use batch::BatchClient;
#[cfg(feature = "bedrock")]
pub use bedrock::{Bedrock, BedrockProvider};
#[cfg(feature = "vertex")]
pub use cloud::VertexProvider;
pub use gemini::{Gemini, GeminiProvider};
pub use http::HttpProvider;
pub use logprobs::TokenLogprob;
pub use openai::{MaxTokensField, OpenAi, OpenAiApi, OpenAiProvider};
pub use pieces::{PieceStream, ReplyAssembler, StreamEnd, StreamPiece};
pub use scripted::{ScriptedProvider, ScriptedReply};
pub use transport::{RateLimitStatus, RetryPolicy};

/// The providers' error, defined with the library's error type (which carries it) so that the
/// error layer does not depend on the providers; reachable here as `super::error` for the
/// provider implementations.
mod error {
    pub(super) use crate::error::{ProviderError, ProviderErrorKind};
}

use std::future::Future;
use std::pin::Pin;

use crate::result::{ResultIssue, Usage};

/// A boxed, sendable future, as [`Provider::complete`] returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The future of one whole reply, as [`Provider::complete`] returns it.
pub(crate) type ReplyFuture<'a> = BoxFuture<'a, Result<AiResponse, ProviderError>>;

/// Reads a reply field that only informs (usage, model, finish reason), or `None` when the server
/// sent it with another type: an odd field never costs the answer it came with.
pub(crate) fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    // The field's text is borrowed, not built into a `Value`: an ordinary reply is scanned once
    // here and read once below.
    let raw = <&'de serde_json::value::RawValue as serde::Deserialize>::deserialize(deserializer)?;
    Ok(serde_json::from_str(raw.get()).ok())
}

/// A provider's reply to one [`AiRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AiResponse {
    /// The reply's text (empty when the model gave none).
    pub text: String,
    /// Why the model stopped.
    pub finish_reason: FinishReason,
    /// The refusal message, when the model refused.
    pub refusal: Option<String>,
    /// Tokens used by this call (`calls` is 1).
    pub usage: Usage,
    /// The model that answered.
    pub model: String,
    /// The model's reasoning, when the provider returned it apart from the answer (Anthropic
    /// `thinking` blocks, Gemini thought parts, OpenAI-compatible `reasoning_content`, Responses
    /// reasoning summaries). Never part of `text`.
    pub reasoning: Option<String>,
    /// The key's rate-limit state, when the reply's headers reported it (OpenAI's
    /// `x-ratelimit-*`, Anthropic's `anthropic-ratelimit-*`): what lets a client's
    /// [`RateLimiter`](crate::ratelimit::RateLimiter) slow down before the provider refuses.
    /// Boxed, so that a reply without one stays small.
    pub rate_limit: Option<Box<RateLimitStatus>>,
    /// The log probabilities of the reply's tokens, in order, when the request asked for them
    /// ([`AiRequest::logprobs`]) and the provider gave them; `None` when it gave none.
    pub logprobs: Option<Vec<TokenLogprob>>,
    /// The tools the model called, in order, when the request offered tools
    /// ([`AiRequest::tools`]) and the model called some instead of answering; empty otherwise.
    pub tool_calls: Vec<ToolCall>,
    /// With tool calls: the model's turn as the vendor must be sent it again on the next round,
    /// when it holds more than text and calls (Anthropic's content blocks with their signed
    /// `thinking` blocks; Gemini's parts with their `thoughtSignature`s). Goes to
    /// [`ToolRound::vendor_turn`].
    pub vendor_turn: Option<Box<serde_json::Value>>,
}

impl AiResponse {
    /// A complete reply (`finish_reason` [`FinishReason::Stop`]) with no usage reported.
    ///
    /// ```
    /// let reply = intent_core::provider::AiResponse::new("{\"value\": 1}", "gpt-test");
    /// assert_eq!(reply.usage.calls, 1);
    /// ```
    pub fn new(text: impl Into<String>, model: impl Into<String>) -> Self {
        AiResponse {
            text: text.into(),
            finish_reason: FinishReason::Stop,
            refusal: None,
            usage: Usage {
                calls: 1,
                ..Usage::default()
            },
            model: model.into(),
            reasoning: None,
            rate_limit: None,
            logprobs: None,
            tool_calls: Vec::new(),
            vendor_turn: None,
        }
    }
}

/// A model provider.
///
/// Implementations send the request and return the reply, retrying transport faults themselves;
/// they never verify the reply. A provider is shared by every call of a client, so it keeps one HTTP
/// client for its lifetime.
///
/// ```
/// use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError};
/// use intent_core::AiRequest;
///
/// struct Echo;
///
/// impl Provider for Echo {
///     fn name(&self) -> &str {
///         "echo"
///     }
///     fn complete<'a>(&'a self, request: &'a AiRequest) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
///         Box::pin(async move { Ok(AiResponse::new(request.user.as_str(), "echo-1")) })
///     }
/// }
/// ```
pub trait Provider: Send + Sync {
    /// The provider's name, as `AiRequestOptions::provider` names it (`openai`, `anthropic`, ...).
    fn name(&self) -> &str;

    /// The model used when a request names none.
    fn default_model(&self) -> Option<&str> {
        None
    }

    /// Sends one request and returns the reply.
    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>>;

    /// Sends one request and returns the reply in pieces, as the model writes it (see
    /// [`PieceStream`] for the contract). A [`ReplyAssembler`] rebuilds from the pieces the reply
    /// [`complete`](Self::complete) gives. Dropping the stream cancels the request.
    ///
    /// The default waits for [`complete`](Self::complete) and yields its reply as one text piece,
    /// so every provider streams; providers that can stream for real override it.
    ///
    /// ```
    /// use futures::StreamExt;
    /// use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError, StreamPiece};
    /// use intent_core::AiRequest;
    ///
    /// struct Echo;
    ///
    /// impl Provider for Echo {
    ///     fn name(&self) -> &str {
    ///         "echo"
    ///     }
    ///     fn complete<'a>(&'a self, request: &'a AiRequest) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
    ///         Box::pin(async move { Ok(AiResponse::new(request.user.as_str(), "echo-1")) })
    ///     }
    /// }
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let request = AiRequest::new("", "hello");
    /// let pieces: Vec<_> = Echo.stream(&request).collect().await;
    /// assert_eq!(pieces[0].as_ref().unwrap(), &StreamPiece::Text("hello".into()));
    /// assert!(matches!(pieces[1], Ok(StreamPiece::End(_))));
    /// # });
    /// ```
    fn stream<'a>(&'a self, request: &'a AiRequest) -> PieceStream<'a> {
        pieces::whole_reply(self.complete(request))
    }

    /// The provider's batch API, when it has one (see [`BatchClient`]): what
    /// [`CollectionCall::batch`](crate::collections::CollectionCall::batch) runs on. The default is none, and a
    /// batch run on a provider without one is refused before anything is sent.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider, ScriptedProvider};
    ///
    /// assert!(OpenAiProvider::new("sk-example").batch_client().is_some());
    /// assert!(ScriptedProvider::new(["{}"]).batch_client().is_none());
    /// ```
    fn batch_client(&self) -> Option<BatchClient<'_>> {
        None
    }

    /// What this provider does with `request` that its caller must be told, without sending it:
    /// each option it leaves out (a sampling setting a reasoning model refuses, a thinking budget
    /// an API has no field for) and why, noted on the attempt's
    /// [`notices`](crate::AttemptRecord::notices). An option it cannot honour at all is refused
    /// when sending instead. The default is none.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider};
    /// use intent_core::AiRequest;
    ///
    /// let mut request = AiRequest::new("", "Sum 2 and 3.");
    /// request.model = Some("o3-mini".into());
    /// request.temperature = Some(0.0);
    /// let notices = OpenAiProvider::new("sk-example").notices(&request);
    /// assert!(notices[0].message.starts_with("`temperature` was not sent to openai"));
    /// ```
    fn notices(&self, _request: &AiRequest) -> Vec<ResultIssue> {
        Vec::new()
    }

    /// Whether the model behind this provider can call tools in a reply constrained to
    /// `request`'s response format. Servers that constrain a reply with a grammar
    /// (llama.cpp, vLLM's guided decoding, Ollama's `format`) leave a model no room for a call
    /// there, and Gemini before 3 refuses a format beside function declarations. Where this is
    /// false, the rounds that offer tools are sent without the format (the schema written into
    /// the prompt), and an answer that does not read is asked for once more with the format and
    /// no tool calls allowed. The default is true.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider};
    /// use intent_core::AiRequest;
    ///
    /// let request = AiRequest::new("", "Look it up.");
    /// assert!(OpenAiProvider::new("sk-example").tools_beside_format(&request));
    /// let local = OpenAiProvider::new("").with_base_url("http://127.0.0.1:8080/v1");
    /// assert!(!local.tools_beside_format(&request));
    /// assert!(local.with_tools_beside_format(true).tools_beside_format(&request));
    /// ```
    fn tools_beside_format(&self, _request: &AiRequest) -> bool {
        true
    }
}

impl<P: Provider + ?Sized> Provider for std::sync::Arc<P> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn default_model(&self) -> Option<&str> {
        (**self).default_model()
    }
    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        (**self).complete(request)
    }
    fn stream<'a>(&'a self, request: &'a AiRequest) -> PieceStream<'a> {
        (**self).stream(request)
    }
    fn batch_client(&self) -> Option<BatchClient<'_>> {
        (**self).batch_client()
    }
    fn notices(&self, request: &AiRequest) -> Vec<ResultIssue> {
        (**self).notices(request)
    }
    fn tools_beside_format(&self, request: &AiRequest) -> bool {
        (**self).tools_beside_format(request)
    }
}

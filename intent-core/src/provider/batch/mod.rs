//! The batch capability of a provider: what [`Provider::batch_client`](super::Provider::batch_client)
//! returns, and the operations a batch run needs from a provider's batch API.
//!
//! A batch API takes many requests at once, runs them within a day at half the price of live
//! calls, and hands back one result per request, matched by the `custom_id` each request was given.
//! OpenAI ([`super::OpenAiProvider`], the Batch API) and Anthropic ([`super::AnthropicProvider`],
//! Message Batches) have one; their folders' `batch.rs` document the wire and implement
//! `VendorBatch`, which the generic provider turns into a [`BatchApi`]. The operations are the crate's own:
//! a provider outside the crate cannot offer them, and the collections' batch driver
//! ([`CollectionCall::batch`](crate::CollectionCall::batch)) is their only user.

mod http;

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{AiResponse, BoxFuture, ProviderError};
use crate::request::AiRequest;
pub(crate) use http::{result_line, BatchHttp};

/// A provider's batch API, as [`Provider::batch_client`](super::Provider::batch_client) returns it.
///
/// Only the providers of this crate build one; any other provider has none, and a batch run on it
/// is refused before anything is sent.
///
/// ```
/// use intent_core::provider::{AnthropicProvider, OpenAiProvider, Provider, ScriptedProvider};
///
/// assert!(OpenAiProvider::new("sk-example").batch_client().is_some());
/// assert!(AnthropicProvider::new("sk-ant-example").batch_client().is_some());
/// // A compatible server has no batch API unless it is said to have one.
/// let ollama = OpenAiProvider::new("").with_base_url("http://localhost:11434/v1");
/// assert!(ollama.batch_client().is_none());
/// assert!(ScriptedProvider::new(["{}"]).batch_client().is_none());
/// ```
#[derive(Clone, Copy)]
pub struct BatchClient<'a> {
    pub(crate) api: &'a dyn BatchApi,
}

impl fmt::Debug for BatchClient<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limits = self.api.limits();
        f.debug_struct("BatchClient")
            .field("max_requests", &limits.max_requests)
            .field("max_bytes", &limits.max_bytes)
            .finish()
    }
}

impl BatchClient<'_> {
    /// The most requests one batch may hold.
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider};
    /// let openai = OpenAiProvider::new("sk-example");
    /// assert_eq!(openai.batch_client().unwrap().max_requests(), 50_000);
    /// ```
    pub fn max_requests(&self) -> usize {
        self.api.limits().max_requests
    }

    /// The most bytes one batch may hold, as the provider counts them (the input file, or the
    /// request body).
    ///
    /// ```
    /// use intent_core::provider::{AnthropicProvider, Provider};
    /// let anthropic = AnthropicProvider::new("sk-ant-example");
    /// assert_eq!(anthropic.batch_client().unwrap().max_bytes(), 256 * 1000 * 1000);
    /// ```
    pub fn max_bytes(&self) -> usize {
        self.api.limits().max_bytes
    }
}

/// How much one batch may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BatchLimits {
    /// Requests per batch.
    pub(crate) max_requests: usize,
    /// Bytes per batch, framing included.
    pub(crate) max_bytes: usize,
}

impl BatchLimits {
    /// At most `max_requests` requests and `max_bytes` bytes a batch.
    pub(crate) const fn new(max_requests: usize, max_bytes: usize) -> Self {
        BatchLimits {
            max_requests,
            max_bytes,
        }
    }
}

/// Where a batch is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Accepted and not yet running (OpenAI's `validating`).
    Validating,
    /// Running.
    InProgress,
    /// Done running, results being written (OpenAI's `finalizing`).
    Finalizing,
    /// Being cancelled.
    Cancelling,
    /// Over: its results (if any) can be read.
    Ended(End),
}

/// How a batch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum End {
    /// Every request ran (each may still have failed on its own).
    Completed,
    /// The batch as a whole was refused, with the provider's reason.
    Failed(String),
    /// The completion window passed: finished requests have results, the rest expired.
    Expired,
    /// Cancelled: finished requests have results, the rest were cancelled.
    Cancelled,
}

/// A batch as the provider reports it.
#[derive(Debug, Clone)]
pub(crate) struct Status {
    pub(crate) phase: Phase,
    /// Requests answered so far.
    pub(crate) answered: u64,
    /// Requests that failed so far.
    pub(crate) failed: u64,
    /// Where the results are (file ids, or the batch id), read by [`BatchApi::results`].
    pub(crate) results: Vec<String>,
}

/// A batch's requests handed to the provider but not yet a batch: what is needed to create it, and
/// to find it again if the process stopped while creating it. Kept in a batch run's state file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Staged {
    /// The uploaded input file (OpenAI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) file: Option<String>,
    /// The newest batch of the account before this one was created (Anthropic), to find it
    /// among those created after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) newest_before: Option<String>,
}

/// Why a request of a batch has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemFailure {
    /// The provider refused or failed the request.
    Errored,
    /// The batch's completion window passed before the request ran.
    Expired,
    /// The batch was cancelled before the request ran.
    Canceled,
}

impl ItemFailure {
    pub(crate) fn word(self) -> &'static str {
        match self {
            ItemFailure::Errored => "errored",
            ItemFailure::Expired => "expired",
            ItemFailure::Canceled => "was cancelled",
        }
    }
}

/// What a batch says of one request: its reply, or why it has none.
pub(crate) type ItemOutcome = Result<AiResponse, (ItemFailure, String)>;

/// One line of a batch's results.
#[derive(Debug)]
// A reply is the common case: boxing it would allocate once more on every call.
#[allow(clippy::large_enum_variant)]
pub(crate) enum ResultLine {
    /// The result of the request named `custom_id`.
    Item {
        custom_id: String,
        outcome: ItemOutcome,
    },
    /// A line that could not be read, and why.
    Unreadable(String),
}

/// The operations of a provider's batch API.
pub(crate) trait BatchApi: Send + Sync {
    /// How much one batch may hold.
    fn limits(&self) -> BatchLimits;

    /// One request as the batch carries it, with its `custom_id`: the body is the one a live call
    /// sends, byte for byte (less `stream`).
    fn encode(&self, custom_id: &str, request: &AiRequest) -> Result<Vec<u8>, ProviderError>;

    /// The bytes a batch of requests of `lines_len` bytes in all (line ends included) takes.
    fn batch_bytes(&self, lines_len: usize) -> usize;

    /// Hands `lines` to the provider ahead of creating their batch (OpenAI uploads the input file;
    /// Anthropic notes its newest batch). Nothing is paid for yet.
    fn stage<'a>(&'a self, lines: &'a [Vec<u8>]) -> BoxFuture<'a, Result<Staged, ProviderError>>;

    /// Creates the batch of `lines` (staged as `staged`) and returns its id. Never retried on its
    /// own: a fault may hide a batch that was created, which [`find`](Self::find) looks for.
    fn create<'a>(
        &'a self,
        staged: &'a Staged,
        lines: &'a [Vec<u8>],
    ) -> BoxFuture<'a, Result<String, ProviderError>>;

    /// The batch created from `staged` (of `requests` requests), when there is one.
    fn find<'a>(
        &'a self,
        staged: &'a Staged,
        requests: usize,
    ) -> BoxFuture<'a, Result<Option<String>, ProviderError>>;

    /// Where the batch `id` is.
    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Status, ProviderError>>;

    /// The results of an ended batch, one line each.
    fn results<'a>(
        &'a self,
        id: &'a str,
        status: &'a Status,
    ) -> BoxFuture<'a, Result<Vec<ResultLine>, ProviderError>>;

    /// Asks the provider to cancel the batch `id`.
    fn cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), ProviderError>>;
}

/// The largest batch results read, in bytes: a batch of the largest input (256 MB) may answer
/// with more than it was sent, so results are read up to four times that.
pub(crate) const MAX_RESULTS_BYTES: usize = 1 << 30;

/// `{"custom_id":"…",` + `middle` + `body` + `}`: a batch line written around a body already
/// serialized, so the body is the live request's bytes.
pub(crate) fn line_around(custom_id: &str, middle: &str, body: &[u8]) -> Vec<u8> {
    let mut line = Vec::with_capacity(body.len() + custom_id.len() + middle.len() + 20);
    line.extend_from_slice(b"{\"custom_id\":");
    // A custom id is made of letters, digits, `-` and `_`: it needs no escaping, but is written
    // through the serializer all the same.
    let _ = serde_json::to_writer(&mut line, custom_id);
    line.push(b',');
    line.extend_from_slice(middle.as_bytes());
    line.extend_from_slice(body);
    line.push(b'}');
    line
}

/// A result line's text for a message: the key already redacted, clipped to 200 characters.
fn clip_line(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

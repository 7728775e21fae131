//! Anthropic's Message Batches API for [`AnthropicProvider`]: the requests of a batch run sent in
//! one body, run within 24 hours at half the price of live calls.
//!
//! The wire, as Anthropic's API reference gives it (`platform.claude.com/docs/en/api/…/batches`):
//!
//! - **Create**: `POST {base}/v1/messages/batches` with `{"requests": [{"custom_id", "params"}]}`;
//!   `params` is the Messages API body a live call sends, byte for byte (less `stream`). At most
//!   **100,000 requests** and **256 MB** a batch. A `custom_id` is 1 to 64 letters, digits, `-`
//!   and `_`. The reply is the batch object.
//! - **Status**: `GET {base}/v1/messages/batches/{id}`: `processing_status` is `in_progress`,
//!   `canceling` or `ended`; `request_counts {processing, succeeded, errored, canceled, expired}`;
//!   `results_url` once ended.
//! - **Results**: `GET {base}/v1/messages/batches/{id}/results`, JSON Lines in any order:
//!   `{"custom_id", "result": {"type": "succeeded", "message": {…}}}`, or a `type` of `errored`
//!   (`"error": {"type": "error", "error": {"type", "message"}}`), `canceled` or `expired`. The
//!   results are read at that documented path under the provider's base URL, never at the
//!   `results_url` the server names, so the key goes nowhere else.
//! - **List**: `GET {base}/v1/messages/batches?limit=N`, newest first (`data`, `first_id`): how a
//!   batch whose creation reply was lost is found again (created after the newest batch seen
//!   before creating, with as many requests).
//! - **Cancel**: `POST {base}/v1/messages/batches/{id}/cancel`.
//!
//! A batch API is Anthropic's own: a provider on another server offers none unless
//! [`with_batch_api(true)`](AnthropicProvider::with_batch_api) says the server has one.

use reqwest::Method;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::wire;
use super::{Anthropic, AnthropicProvider};
use crate::provider::batch::{
    line_around, result_line, BatchHttp, BatchLimits, End, ItemFailure, ItemOutcome, Phase,
    ResultLine, Staged, Status,
};
use crate::provider::http::{batch_http, Call, Vendor as _, VendorBatch};
use crate::provider::transport::error_text;
use crate::provider::ProviderError;

/// `{"requests":[` and `]}` around the lines.
const FRAMING_BYTES: usize = 15;

impl AnthropicProvider {
    /// Says whether the server has Anthropic's Message Batches API. On by default for Anthropic's
    /// own base URL (`api.anthropic.com`), off for any other server; turn it on for one that has it.
    ///
    /// ```
    /// use intent_core::provider::{AnthropicProvider, Provider};
    ///
    /// let proxy = AnthropicProvider::new("key")
    ///     .with_base_url("https://proxy.example.com")
    ///     .with_batch_api(true);
    /// assert!(proxy.batch_client().is_some());
    /// ```
    pub fn with_batch_api(self, available: bool) -> Self {
        self.with_vendor(|anthropic| anthropic.batch_api = Some(available))
    }

    /// One line of a batch's results.
    fn result_line(&self, line: &[u8]) -> ResultLine {
        result_line(
            line,
            |l: &mut WireLine<'_>| l.custom_id.take(),
            |l| self.outcome(l.result.ok_or("a line has no result")?),
        )
    }

    /// What a result says of its request, or why it cannot be read.
    fn outcome(&self, result: WireResult<'_>) -> Result<ItemOutcome, String> {
        Ok(match result.kind.as_deref() {
            Some("succeeded") => match result.message {
                Some(message) => wire::parse(message.get().as_bytes(), &self.model, &self.key)
                    .map_err(|e| (ItemFailure::Errored, e.message)),
                None => return Err("a succeeded result has no message".to_owned()),
            },
            Some("errored") => {
                let error = result.error.unwrap_or(Value::Null);
                let inner = error.get("error").unwrap_or(&error);
                Err((ItemFailure::Errored, error_text(inner)))
            }
            Some("expired") => Err((
                ItemFailure::Expired,
                "the batch's 24-hour window passed before the request ran".to_owned(),
            )),
            Some("canceled") => Err((
                ItemFailure::Canceled,
                "the batch was cancelled before the request ran".to_owned(),
            )),
            other => return Err(format!("a result has the unknown type {other:?}")),
        })
    }
}

impl VendorBatch for Anthropic {
    const OWN_HOST: &'static str = "api.anthropic.com";
    /// Anthropic's limits on one batch.
    const LIMITS: BatchLimits = BatchLimits::new(100_000, 256 * 1000 * 1000);

    fn batch_bytes(lines_len: usize) -> usize {
        // Lines are joined by commas where a file has line ends: the same count.
        lines_len + FRAMING_BYTES
    }

    fn encode(&self, call: Call<'_>, custom_id: &str) -> Result<Vec<u8>, ProviderError> {
        Ok(line_around(
            custom_id,
            "\"params\":",
            &self.body(call, false)?,
        ))
    }

    /// Notes the account's newest batch, to find this one among those created after it.
    async fn stage(
        provider: &AnthropicProvider,
        _lines: &[Vec<u8>],
    ) -> Result<Staged, ProviderError> {
        let http = batch_http(provider)?;
        let exchange = http.exchange(Method::GET, "v1/messages/batches?limit=1", None, true)?;
        let list: WireList = http.json(exchange, "listing the batches").await?;
        Ok(Staged {
            file: None,
            newest_before: list.data.into_iter().next().map(|b| b.id),
        })
    }

    async fn create(
        provider: &AnthropicProvider,
        _staged: &Staged,
        lines: &[Vec<u8>],
    ) -> Result<String, ProviderError> {
        let mut body =
            Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + FRAMING_BYTES);
        body.extend_from_slice(b"{\"requests\":[");
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            body.extend_from_slice(line);
        }
        body.extend_from_slice(b"]}");
        let http = batch_http(provider)?;
        let exchange = http.exchange(
            Method::POST,
            "v1/messages/batches",
            BatchHttp::json_body(body),
            false,
        )?;
        let created: WireBatch = http.json(exchange, "creating the batch").await?;
        Ok(created.id)
    }

    async fn find(
        provider: &AnthropicProvider,
        staged: &Staged,
        requests: usize,
    ) -> Result<Option<String>, ProviderError> {
        let http = batch_http(provider)?;
        let exchange = http.exchange(Method::GET, "v1/messages/batches?limit=100", None, true)?;
        let list: WireList = http.json(exchange, "listing the batches").await?;
        // Newest first: the batches created since `newest_before`, with as many requests.
        for batch in list.data {
            if Some(&batch.id) == staged.newest_before.as_ref() {
                break;
            }
            if batch.request_counts.map(|c| c.total()) == Some(requests as u64) {
                return Ok(Some(batch.id));
            }
        }
        Ok(None)
    }

    async fn status(provider: &AnthropicProvider, id: &str) -> Result<Status, ProviderError> {
        let http = batch_http(provider)?;
        let exchange = http.exchange(
            Method::GET,
            &format!("v1/messages/batches/{id}"),
            None,
            true,
        )?;
        let batch: WireBatch = http.json(exchange, "reading the batch").await?;
        let counts = batch.request_counts.unwrap_or_default();
        let phase = match batch.processing_status.as_deref() {
            Some("in_progress") => Phase::InProgress,
            Some("canceling") => Phase::Cancelling,
            Some("ended") if batch.cancel_initiated_at.is_some() => Phase::Ended(End::Cancelled),
            Some("ended") if counts.expired > 0 && counts.succeeded + counts.errored == 0 => {
                Phase::Ended(End::Expired)
            }
            Some("ended") => Phase::Ended(End::Completed),
            other => {
                tracing::warn!(status = ?other, batch = id, "unknown batch status; still waiting");
                Phase::InProgress
            }
        };
        Ok(Status {
            phase,
            answered: counts.succeeded,
            failed: counts.errored + counts.expired + counts.canceled,
            results: vec![id.to_owned()],
        })
    }

    async fn results(
        provider: &AnthropicProvider,
        id: &str,
        _status: &Status,
    ) -> Result<Vec<ResultLine>, ProviderError> {
        let parse = |line: &[u8]| provider.result_line(line);
        batch_http(provider)?
            .result_lines(&format!("v1/messages/batches/{id}/results"), &parse)
            .await
    }

    fn said(&self) -> Option<bool> {
        self.batch_api
    }

    fn cancel_path(id: &str) -> String {
        format!("v1/messages/batches/{id}/cancel")
    }
}

#[derive(Deserialize)]
struct WireList {
    #[serde(default)]
    data: Vec<WireBatch>,
}

#[derive(Deserialize)]
struct WireBatch {
    id: String,
    #[serde(default)]
    processing_status: Option<String>,
    #[serde(default)]
    request_counts: Option<WireCounts>,
    #[serde(default)]
    cancel_initiated_at: Option<Value>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct WireCounts {
    #[serde(default)]
    processing: u64,
    #[serde(default)]
    succeeded: u64,
    #[serde(default)]
    errored: u64,
    #[serde(default)]
    canceled: u64,
    #[serde(default)]
    expired: u64,
}

impl WireCounts {
    fn total(self) -> u64 {
        self.processing + self.succeeded + self.errored + self.canceled + self.expired
    }
}

#[derive(Deserialize)]
struct WireLine<'a> {
    #[serde(default)]
    custom_id: Option<String>,
    #[serde(default, borrow)]
    result: Option<WireResult<'a>>,
}

#[derive(Deserialize)]
struct WireResult<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<Value>,
}

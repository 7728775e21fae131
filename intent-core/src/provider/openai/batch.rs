//! OpenAI's Batch API for [`OpenAiProvider`]: the requests of a batch run as one input file, run
//! within 24 hours at half the price of live calls.
//!
//! The wire, as OpenAI's API reference and its OpenAPI description give it:
//!
//! - **Input**: a JSON Lines file, one request a line, `{"custom_id": "…", "method": "POST", "url":
//!   "/v1/chat/completions", "body": {…}}` (`"/v1/responses"` for the Responses API). The `body`
//!   is the one a live call sends, byte for byte, less `stream`. At most **50,000 requests** and
//!   **200 MB** a file.
//! - **Upload**: `POST {base}/files`, multipart/form-data with the fields `purpose=batch` and
//!   `file`; the reply's `id` is the file's.
//! - **Create**: `POST {base}/batches` with `{"input_file_id", "endpoint", "completion_window":
//!   "24h", "metadata"}` (metadata: at most 16 pairs, keys of 64 and values of 512 characters).
//!   Creating is never sent twice: a fault is followed by a look for the batch among the
//!   account's latest (`GET {base}/batches?limit=100`, newest first), matched by its input file.
//! - **Status**: `GET {base}/batches/{id}`: `status` is `validating`, `in_progress`, `finalizing`,
//!   `completed`, `failed` (the file was refused: `errors.data[{code, message, line}]`),
//!   `expired` (the window passed; finished requests keep their results), `cancelling` (up to 10
//!   minutes) or `cancelled` (partial results); `request_counts {total, completed, failed}`;
//!   `output_file_id` and `error_file_id` once there are results.
//! - **Results**: `GET {base}/files/{id}/content` of the output file and of the error file, JSON
//!   Lines in any order: `{"id", "custom_id", "response": {"status_code", "request_id", "body"},
//!   "error": null}`, or `"response": null, "error": {"code", "message"}` for a request that did
//!   not run (`batch_expired`, `batch_cancelled`). A body with a status other than 200 carries the
//!   API's error object.
//! - **Cancel**: `POST {base}/batches/{id}/cancel`.
//!
//! A batch API is OpenAI's own: a provider on another server (Ollama, llama.cpp, vLLM) offers
//! none unless [`with_batch_api(true)`](OpenAiProvider::with_batch_api) says the server has one.

use reqwest::Method;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::{OpenAi, OpenAiApi, OpenAiProvider};
use crate::provider::batch::{
    line_around, result_line, BatchHttp, BatchLimits, End, ItemFailure, ItemOutcome, Phase,
    ResultLine, Staged, Status,
};
use crate::provider::http::{batch_http, Call, Vendor as _, VendorBatch};
use crate::provider::transport::{error_text, multipart_file};
use crate::provider::{ProviderError, ProviderErrorKind};

impl OpenAiProvider {
    /// Says whether the server has OpenAI's Batch API. On by default for OpenAI's own base URL
    /// (`api.openai.com`), off for any other server (Ollama, llama.cpp and vLLM have none); turn it
    /// on for a server that has one (Azure OpenAI's v1 endpoint, a gateway).
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider};
    ///
    /// let gateway = OpenAiProvider::new("key")
    ///     .with_base_url("https://gateway.example.com/v1")
    ///     .with_batch_api(true);
    /// assert!(gateway.batch_client().is_some());
    /// assert!(OpenAiProvider::new("key").with_batch_api(false).batch_client().is_none());
    /// ```
    pub fn with_batch_api(self, available: bool) -> Self {
        self.with_vendor(|openai| openai.batch_api = Some(available))
    }
}

impl OpenAi {
    /// The endpoint every line of a batch names.
    fn batch_endpoint(&self) -> &'static str {
        match self.api {
            OpenAiApi::ChatCompletions => "/v1/chat/completions",
            OpenAiApi::Responses => "/v1/responses",
        }
    }
}

/// Reading a batch's result lines.
impl OpenAiProvider {
    /// One line of an output or error file.
    fn result_line(&self, line: &[u8]) -> ResultLine {
        result_line(
            line,
            |l: &mut WireLine<'_>| l.custom_id.take(),
            |l| self.outcome(l),
        )
    }

    /// What a result line says of its request, or why it cannot be read.
    fn outcome(&self, parsed: WireLine<'_>) -> Result<ItemOutcome, String> {
        if let Some(error) = parsed.error.filter(|e| !e.is_null()) {
            let code = error.get("code").and_then(Value::as_str).unwrap_or("");
            let failure = match code {
                "batch_expired" => ItemFailure::Expired,
                "batch_cancelled" => ItemFailure::Canceled,
                _ => ItemFailure::Errored,
            };
            let message = if code.is_empty() {
                error_text(&error)
            } else {
                format!("{code}: {}", error_text(&error))
            };
            return Ok(Err((failure, message)));
        }
        let response = parsed
            .response
            .ok_or("a line has neither a response nor an error")?;
        let body = response.body.ok_or("a line's response has no body")?;
        Ok(match response.status_code {
            // A request's reply inside a result line, read as a live reply is.
            Some(200) => self
                .vendor
                .reply(body.get().as_bytes(), &self.model, &self.key)
                .map_err(|e| (ItemFailure::Errored, e.message)),
            status => {
                let body: Value = serde_json::from_str(body.get()).unwrap_or(Value::Null);
                let error = body.get("error").unwrap_or(&body);
                Err((
                    ItemFailure::Errored,
                    format!(
                        "HTTP {}: {}",
                        status.map_or_else(|| "status unknown".to_owned(), |s| s.to_string()),
                        error_text(error)
                    ),
                ))
            }
        })
    }
}

/// `errors.data[].message` of a failed batch, joined.
fn batch_errors(errors: Option<&Value>) -> String {
    let messages: Vec<String> = errors
        .and_then(|e| e.get("data"))
        .and_then(Value::as_array)
        .map(|data| {
            data.iter()
                .map(|e| {
                    let line = e
                        .get("line")
                        .and_then(Value::as_u64)
                        .map(|l| format!(" (line {l})"))
                        .unwrap_or_default();
                    format!("{}{line}", error_text(e))
                })
                .collect()
        })
        .unwrap_or_default();
    if messages.is_empty() {
        "no reason given".to_owned()
    } else {
        messages.join("; ")
    }
}

impl VendorBatch for OpenAi {
    const OWN_HOST: &'static str = "api.openai.com";
    /// OpenAI's limits on one batch's input file.
    const LIMITS: BatchLimits = BatchLimits::new(50_000, 200 * 1000 * 1000);

    fn said(&self) -> Option<bool> {
        self.batch_api
    }

    fn encode(&self, call: Call<'_>, custom_id: &str) -> Result<Vec<u8>, ProviderError> {
        let body = self.body(call, false)?;
        let middle = format!(
            "\"method\":\"POST\",\"url\":\"{}\",\"body\":",
            self.batch_endpoint()
        );
        Ok(line_around(custom_id, &middle, &body))
    }

    fn batch_bytes(lines_len: usize) -> usize {
        lines_len
    }

    async fn stage(provider: &OpenAiProvider, lines: &[Vec<u8>]) -> Result<Staged, ProviderError> {
        let mut file = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            file.extend_from_slice(line);
            file.push(b'\n');
        }
        let form = multipart_file(
            &[("purpose", "batch")],
            "file",
            "batch.jsonl",
            "application/jsonl",
            &file,
        );
        drop(file);
        let http = batch_http(provider)?;
        let exchange = http.exchange(Method::POST, "files", Some(form), true)?;
        let uploaded: WireId = http.json(exchange, "the file upload").await?;
        Ok(Staged {
            file: Some(uploaded.id),
            newest_before: None,
        })
    }

    async fn create(
        provider: &OpenAiProvider,
        staged: &Staged,
        _lines: &[Vec<u8>],
    ) -> Result<String, ProviderError> {
        let file = staged.file.as_deref().ok_or_else(|| {
            ProviderError::new(
                ProviderErrorKind::Config,
                "a batch is created from an uploaded input file, and none was uploaded",
            )
            .with_provider(&provider.name)
        })?;
        let body = json!({
            "input_file_id": file,
            "endpoint": provider.vendor.batch_endpoint(),
            "completion_window": "24h",
            "metadata": {"created_by": "intent"},
        });
        let body = serde_json::to_vec(&body).unwrap_or_default();
        let http = batch_http(provider)?;
        let exchange = http.exchange(Method::POST, "batches", BatchHttp::json_body(body), false)?;
        let created: WireId = http.json(exchange, "creating the batch").await?;
        Ok(created.id)
    }

    async fn find(
        provider: &OpenAiProvider,
        staged: &Staged,
        _requests: usize,
    ) -> Result<Option<String>, ProviderError> {
        let Some(file) = staged.file.as_deref() else {
            return Ok(None);
        };
        let http = batch_http(provider)?;
        let exchange = http.exchange(Method::GET, "batches?limit=100", None, true)?;
        let list: WireList = http.json(exchange, "listing the batches").await?;
        Ok(list
            .data
            .into_iter()
            .find(|b| b.input_file_id.as_deref() == Some(file))
            .map(|b| b.id))
    }

    async fn status(provider: &OpenAiProvider, id: &str) -> Result<Status, ProviderError> {
        let http = batch_http(provider)?;
        let exchange = http.exchange(Method::GET, &format!("batches/{id}"), None, true)?;
        let batch: WireBatch = http.json(exchange, "reading the batch").await?;
        let phase = match batch.status.as_str() {
            "validating" => Phase::Validating,
            "in_progress" => Phase::InProgress,
            "finalizing" => Phase::Finalizing,
            "cancelling" => Phase::Cancelling,
            "completed" => Phase::Ended(End::Completed),
            "expired" => Phase::Ended(End::Expired),
            "cancelled" => Phase::Ended(End::Cancelled),
            "failed" => Phase::Ended(End::Failed(batch_errors(batch.errors.as_ref()))),
            other => {
                tracing::warn!(
                    status = other,
                    batch = id,
                    "unknown batch status; still waiting"
                );
                Phase::InProgress
            }
        };
        let counts = batch.request_counts.unwrap_or_default();
        Ok(Status {
            phase,
            answered: counts.completed,
            failed: counts.failed,
            results: batch
                .output_file_id
                .into_iter()
                .chain(batch.error_file_id)
                .collect(),
        })
    }

    async fn results(
        provider: &OpenAiProvider,
        _id: &str,
        status: &Status,
    ) -> Result<Vec<ResultLine>, ProviderError> {
        let http = batch_http(provider)?;
        let mut lines = Vec::new();
        let parse = |line: &[u8]| provider.result_line(line);
        for file in &status.results {
            lines.extend(
                http.result_lines(&format!("files/{file}/content"), &parse)
                    .await?,
            );
        }
        Ok(lines)
    }

    fn cancel_path(id: &str) -> String {
        format!("batches/{id}/cancel")
    }
}

#[derive(Deserialize)]
struct WireId {
    id: String,
}

#[derive(Deserialize)]
struct WireList {
    #[serde(default)]
    data: Vec<WireListed>,
}

#[derive(Deserialize)]
struct WireListed {
    id: String,
    #[serde(default)]
    input_file_id: Option<String>,
}

#[derive(Deserialize)]
struct WireBatch {
    status: String,
    #[serde(default)]
    output_file_id: Option<String>,
    #[serde(default)]
    error_file_id: Option<String>,
    #[serde(default)]
    request_counts: Option<WireCounts>,
    #[serde(default)]
    errors: Option<Value>,
}

#[derive(Deserialize, Default)]
struct WireCounts {
    #[serde(default)]
    completed: u64,
    #[serde(default)]
    failed: u64,
}

#[derive(Deserialize)]
struct WireLine<'a> {
    #[serde(default)]
    custom_id: Option<String>,
    #[serde(default, borrow)]
    response: Option<WireResponse<'a>>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireResponse<'a> {
    #[serde(default)]
    status_code: Option<u16>,
    #[serde(default, borrow)]
    body: Option<&'a RawValue>,
}

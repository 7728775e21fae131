//! The requests every batch API sends, alike for each provider: an endpoint under the provider's
//! base URL with the key's headers, a JSON reply read into the provider's wire type, results read
//! as JSON Lines one line at a time, and the first steps of reading a result line (JSON, with a
//! `custom_id`). Each provider keeps its paths, its wire types and what its lines mean.

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::Method;
use serde::Deserialize;

use super::{clip_line, ItemOutcome, ResultLine, MAX_RESULTS_BYTES};
use crate::provider::transport::{
    check_base_url, clip_body, join_url, ApiKey, Exchange, Transport,
};
use crate::provider::{ProviderError, ProviderErrorKind};

/// A provider's batch API as its requests need it: where it is, the key and its headers, and the
/// provider's one HTTP client with its retry policy and limits.
pub(crate) struct BatchHttp<'a> {
    /// The provider's name, for errors.
    pub(crate) provider: &'a str,
    /// The provider's base URL; every path is under it.
    pub(crate) base_url: &'a str,
    /// The key, redacted from any message and line.
    pub(crate) key: &'a ApiKey,
    /// The provider's transport.
    pub(crate) transport: &'a Transport,
    /// The key's and the API's headers, sent with every request.
    pub(crate) headers: HeaderMap,
}

impl<'a> BatchHttp<'a> {
    /// One request: `method` on `path` under the base URL, with `body` (its content type and
    /// bytes) when there is one; `retry` is false for a request that must not reach the server
    /// twice.
    pub(crate) fn exchange(
        &self,
        method: Method,
        path: &str,
        body: Option<(HeaderValue, Vec<u8>)>,
        retry: bool,
    ) -> Result<Exchange<'a>, ProviderError> {
        Ok(Exchange {
            provider: self.provider,
            method,
            url: self.url(path)?,
            headers: self.headers.clone(),
            body,
            key: self.key,
            retry,
        })
    }

    /// A JSON body, as an exchange's body.
    pub(crate) fn json_body(body: Vec<u8>) -> Option<(HeaderValue, Vec<u8>)> {
        Some((HeaderValue::from_static("application/json"), body))
    }

    /// Sends `exchange` and reads its JSON reply into `T`; `what` names the request in a decode
    /// error.
    pub(crate) async fn json<T: serde::de::DeserializeOwned>(
        &self,
        exchange: Exchange<'_>,
        what: &str,
    ) -> Result<T, ProviderError> {
        let body = self.transport.batch_request(exchange).await?;
        serde_json::from_slice(&body).map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::Decode,
                format!(
                    "the reply to {what} is not the JSON expected ({e}): {}",
                    clip_body(&body, self.key)
                ),
            )
            .with_provider(self.provider)
        })
    }

    /// POSTs to `path` with no body and ignores the reply (cancelling a batch).
    pub(crate) async fn post_empty(&self, path: &str) -> Result<(), ProviderError> {
        let exchange = self.exchange(Method::POST, path, None, true)?;
        self.transport.batch_request(exchange).await.map(drop)
    }

    /// GETs the results at `path` as JSON Lines, each line read by `parse` as it arrives.
    pub(crate) async fn result_lines(
        &self,
        path: &str,
        parse: &(dyn Fn(&[u8]) -> ResultLine + Sync),
    ) -> Result<Vec<ResultLine>, ProviderError> {
        let exchange = self.exchange(Method::GET, path, None, true)?;
        self.transport
            .exchange_lines(exchange, MAX_RESULTS_BYTES, parse)
            .await
    }

    /// The endpoint `path` under the base URL, checked.
    fn url(&self, path: &str) -> Result<reqwest::Url, ProviderError> {
        let config = |message: String| {
            ProviderError::new(ProviderErrorKind::Config, message).with_provider(self.provider)
        };
        check_base_url(self.base_url).map_err(config)?;
        reqwest::Url::parse(&join_url(self.base_url, path))
            .map_err(|e| config(format!("the batch endpoint URL is not valid ({e})")))
    }
}

/// A result line of a provider whose lines read as `W`: its `custom_id` (taken out by
/// `custom_id`), and the outcome `outcome` reads from the rest, or why the line cannot be read.
/// A line that is not JSON, or has no `custom_id`, is unreadable, with the line quoted.
pub(crate) fn result_line<'l, W: Deserialize<'l>>(
    line: &'l [u8],
    custom_id: impl FnOnce(&mut W) -> Option<String>,
    outcome: impl FnOnce(W) -> Result<ItemOutcome, String>,
) -> ResultLine {
    let unreadable = |why: &str| ResultLine::Unreadable(format!("{why}: {}", clip_line(line)));
    let mut parsed: W = match serde_json::from_slice(line) {
        Ok(parsed) => parsed,
        Err(e) => return unreadable(&format!("a line is not JSON ({e})")),
    };
    let Some(custom_id) = custom_id(&mut parsed) else {
        return unreadable("a line has no custom_id");
    };
    match outcome(parsed) {
        Ok(outcome) => ResultLine::Item { custom_id, outcome },
        Err(why) => unreadable(&why),
    }
}

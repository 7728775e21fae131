//! [`Cloud`]: how a provider reaches its vendor's API through a cloud (Amazon Bedrock, Google
//! Vertex AI) instead of the vendor's own server. The clouds themselves are in `provider::cloud`.

use std::fmt;

use reqwest::header::HeaderMap;
use reqwest::Url;

use crate::provider::{BoxFuture, ProviderError};

/// How a cloud reaches a vendor's API: the endpoint of each request, the body as the cloud takes
/// it and the headers that authorize it. Set on an [`HttpProvider`](super::HttpProvider) with
/// `with_cloud`; the transport (retries, redirects, limits) is the provider's own.
pub(crate) trait Cloud: Send + Sync + fmt::Debug + 'static {
    /// The endpoint of a request for `model` under `base_url`; `stream` asks for events.
    fn url(&self, base_url: &str, model: &str, stream: bool) -> Result<Url, ProviderError>;

    /// The vendor's JSON body as the cloud takes it (unchanged by default).
    fn body(&self, body: Vec<u8>) -> Result<Vec<u8>, ProviderError> {
        Ok(body)
    }

    /// The vendor's fixed headers as the cloud takes them (all of them by default).
    fn headers(&self, vendor: &HeaderMap) -> HeaderMap {
        vendor.clone()
    }

    /// Adds to `headers` what authorizes this one request to `url` with `body` (a signature, an
    /// access token), each value marked sensitive.
    fn authorize<'a>(
        &'a self,
        url: &'a Url,
        body: &'a [u8],
        headers: &'a mut HeaderMap,
    ) -> BoxFuture<'a, Result<(), ProviderError>>;
}

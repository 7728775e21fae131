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

    /// Adds to the request's headers what authorizes this one request (a signature, an access
    /// token), each value marked sensitive.
    fn authorize<'a>(&'a self, request: Outgoing<'a>) -> BoxFuture<'a, Result<(), ProviderError>>;
}

/// One request on its way to a cloud: where it goes, its body as sent, and its headers, which
/// [`Cloud::authorize`] adds to. (Read only by the clouds, which are behind features; the URL
/// and body only by Bedrock's signature.)
#[cfg_attr(not(feature = "bedrock"), allow(dead_code))]
pub(crate) struct Outgoing<'a> {
    /// The request's endpoint.
    pub(crate) url: &'a Url,
    /// The body as the cloud takes it.
    pub(crate) body: &'a [u8],
    /// The headers sent with it.
    pub(crate) headers: &'a mut HeaderMap,
}

//! Clouds a vendor's API is reached through: Amazon Bedrock ([`BedrockProvider`], feature
//! `bedrock`) and Google Vertex AI ([`VertexProvider`], feature `vertex`).
//!
//! A cloud changes where a request goes and how it is authorized, not what it says: a provider
//! reaching a vendor through a cloud is the vendor's own [`HttpProvider`](super::HttpProvider)
//! with a cloud set (`http::Cloud`), so its body and the reading of its reply are the vendor's, written once
//! (Vertex AI sends Gemini's `generateContent` and Anthropic's Messages bodies exactly as
//! [`GeminiProvider`](super::GeminiProvider) and [`AnthropicProvider`](super::AnthropicProvider)
//! write them). What a cloud adds is here, beside the vendors, so that no vendor folder names
//! another: the endpoint of each request, the small changes a cloud makes to a body (Vertex AI's
//! `anthropic_version`), and the credentials that sign each request (AWS Signature Version 4,
//! Google OAuth2 access tokens), fetched and refreshed as they expire, never shown in `Debug`,
//! a log, an error or a record.
//!
//! - `aws` (feature `bedrock`): the AWS credentials chain and the SigV4 signature of a request.
//! - `google` (feature `vertex`): Application Default Credentials as OAuth2 access tokens.
//! - `vertex` (feature `vertex`): [`VertexProvider`], Gemini and Anthropic models on Vertex AI.

#[cfg(feature = "bedrock")]
pub(crate) mod aws;
#[cfg(feature = "vertex")]
mod google;
#[cfg(feature = "vertex")]
mod vertex;

#[cfg(feature = "vertex")]
pub use vertex::VertexProvider;

#[cfg(feature = "vertex")]
use reqwest::Url;

#[cfg(feature = "vertex")]
use super::ProviderError;

/// `base_url` with `segments` pushed onto its path, each one whole (a `/` or `?` in one cannot
/// reach another path or the query), and `query` set.
#[cfg(feature = "vertex")]
pub(crate) fn endpoint(
    base_url: &str,
    segments: &[&str],
    query: Option<&str>,
) -> Result<Url, ProviderError> {
    use super::ProviderErrorKind;
    let config = |message: String| ProviderError::new(ProviderErrorKind::Config, message);
    super::transport::check_base_url(base_url).map_err(config)?;
    let mut url =
        Url::parse(base_url).map_err(|e| config(format!("the base URL is not valid ({e})")))?;
    url.path_segments_mut()
        .map_err(|()| config("the base URL cannot take a path".into()))?
        .pop_if_empty()
        .extend(segments);
    url.set_query(query);
    Ok(url)
}

/// Checks a model id a cloud puts in its endpoint's path: letters, digits and `-_.:@`, no `..`.
#[cfg(feature = "vertex")]
pub(crate) fn check_model(model: &str, cloud: &str) -> Result<(), ProviderError> {
    let valid = !model.is_empty()
        && !model.contains("..")
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '@'));
    if valid {
        Ok(())
    } else {
        Err(ProviderError::new(
            super::ProviderErrorKind::Config,
            format!(
                "{model:?} is not a {cloud} model id (letters, digits, '-', '_', '.', ':' and '@')"
            ),
        ))
    }
}

/// Whether `value` can name part of a host (a region, a location): lowercase letters, digits
/// and `-` only.
#[cfg_attr(not(any(feature = "bedrock", feature = "vertex")), allow(dead_code))]
pub(crate) fn is_host_label(value: &str) -> bool {
    !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

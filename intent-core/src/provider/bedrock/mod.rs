//! [`BedrockProvider`]: Amazon Bedrock's Converse API (`wire`), with its attachments (`parts`)
//! and streamed events (`events`); each request is signed with AWS Signature Version 4 by
//! `provider::cloud::aws`.
//!
//! Endpoints (Amazon Bedrock API reference, "Amazon Bedrock Runtime endpoints"):
//! `https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse` and
//! `.../converse-stream`, the model id percent-encoded as one path segment (`:` as `%3A`, and the
//! `/` of an inference profile's ARN as `%2F`), as the AWS SDK sends it.

mod events;
mod parts;
mod wire;

use std::fmt;
use std::sync::Arc;

use aws_credential_types::Credentials;
use reqwest::header::HeaderMap;
use reqwest::Url;

use super::cloud::aws::AwsCredentials;
use super::http::{
    env_var, with_defaults, Call, Cloud, Defaults, HttpProvider, Outgoing, ReplyRead, Vendor,
};
use super::transport::ApiKey;
use super::{AiResponse, BoxFuture, ProviderError, ProviderErrorKind};
use crate::error::IntentError;
use crate::result::ResultIssue;
use events::ConverseDecoder;

/// The region when none is set.
const DEFAULT_REGION: &str = "us-east-1";

/// Amazon Bedrock's Converse API, as [`BedrockProvider`] speaks it: the region and the keys it
/// signs with.
#[derive(Clone, Default)]
pub struct Bedrock {
    region: String,
    keys: Option<Credentials>,
}

impl fmt::Debug for Bedrock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bedrock")
            .field("region", &self.region)
            .field("keys", &self.keys.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

/// A provider for models on Amazon Bedrock (Claude, Llama, Mistral, Nova, ...) through the
/// Converse API: `POST {base}/model/{modelId}/converse`, signed with AWS Signature Version 4.
///
/// The system prompt goes in `system` (with a `cachePoint` after it when the request asks for
/// prompt caching), the user message and its attachments (images and PDFs, as `image` and
/// `document` blocks) in `messages`, `maxTokens`, `temperature`, `topP` and `stopSequences` in
/// `inferenceConfig`, Claude's thinking budget in `additionalModelRequestFields`. A strict schema
/// is sent as one tool whose input schema is the schema, and the model is forced to call it: the
/// tool's input is the answer. Usage counts the cache reads and writes in the input, the reads
/// as cached tokens; `max_tokens` is a cut-off, `guardrail_intervened` and `content_filtered`
/// the provider's filter. A seed, log probabilities and a reasoning effort are refused before
/// anything is sent.
///
/// Credentials: the keys given with [`with_credentials`](Self::with_credentials), else
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, else the AWS default
/// chain (shared config and credentials files, SSO, web identity, container and instance roles).
/// None is an error naming where it looked; the keys never show in `Debug`, a log or an error.
/// Throttling (`ThrottlingException`, HTTP 429) and `ServiceUnavailableException` are retried
/// under the [`RetryPolicy`](super::RetryPolicy).
///
/// ```
/// use intent_core::provider::{BedrockProvider, Provider};
///
/// let bedrock = BedrockProvider::new()
///     .with_region("eu-central-1")
///     .with_model("anthropic.claude-3-5-haiku-20241022-v1:0");
/// assert_eq!(
///     bedrock.endpoint(),
///     "https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse"
/// );
/// assert_eq!(bedrock.name(), "bedrock");
/// let keyed = bedrock.with_credentials("AKIDEXAMPLE", "secret-example", None);
/// assert!(!format!("{keyed:?}").contains("secret-example"));
/// ```
pub type BedrockProvider = HttpProvider<Bedrock>;

impl HttpProvider<Bedrock> {
    /// A provider for Bedrock in `us-east-1`, asking `amazon.nova-lite-v1:0` when a request
    /// names no model, with the AWS default chain's credentials.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::BedrockProvider::new().region(), "us-east-1");
    /// ```
    pub fn new() -> Self {
        with_defaults::<Bedrock>("").with_region(DEFAULT_REGION)
    }

    /// A provider configured from the environment: the region from `AWS_REGION`, else
    /// `AWS_DEFAULT_REGION`; `BEDROCK_MODEL` and `BEDROCK_BASE_URL`; the keys from
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` when set, else the
    /// AWS default chain, asked on the first request. No region is an error naming the
    /// variables.
    ///
    /// ```no_run
    /// use intent_core::provider::BedrockProvider;
    /// let bedrock = BedrockProvider::from_env()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<Self, IntentError> {
        Self::from_vars(env_var)
    }

    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, IntentError> {
        let region = var("AWS_REGION").or_else(|| var("AWS_DEFAULT_REGION")).ok_or_else(|| {
            IntentError::Config(
                "neither AWS_REGION nor AWS_DEFAULT_REGION is set: Amazon Bedrock needs the region its models run in".into(),
            )
        })?;
        check_region(&region).map_err(IntentError::Config)?;
        let mut provider = Self::new().with_region(region);
        if let Some(keys) = AwsCredentials::keys_from(&var) {
            provider = provider.with_vendor(|v| v.keys = Some(keys)).routed();
        }
        if let Some(model) = var("BEDROCK_MODEL") {
            provider = provider.with_model(model);
        }
        if let Some(base_url) = var("BEDROCK_BASE_URL") {
            super::transport::check_base_url(&base_url)
                .map_err(|e| IntentError::Config(format!("BEDROCK_BASE_URL: {e}")))?;
            provider = provider.with_base_url(base_url);
        }
        Ok(provider)
    }

    /// The region: it names the endpoint's host (`https://bedrock-runtime.{region}.amazonaws.com`,
    /// set as the base URL; call [`with_base_url`](Self::with_base_url) after it for another) and
    /// signs each request.
    ///
    /// ```
    /// use intent_core::provider::BedrockProvider;
    /// let bedrock = BedrockProvider::new().with_region("us-west-2");
    /// assert_eq!(bedrock.base_url(), "https://bedrock-runtime.us-west-2.amazonaws.com");
    /// ```
    pub fn with_region(self, region: impl Into<String>) -> Self {
        let region = region.into();
        let base_url = format!("https://bedrock-runtime.{region}.amazonaws.com");
        self.with_vendor(|v| v.region = region)
            .with_base_url(base_url)
            .routed()
    }

    /// Signs with these keys (and the session token of temporary credentials) instead of the
    /// environment's or the default chain's.
    ///
    /// ```
    /// use intent_core::provider::BedrockProvider;
    /// let bedrock = BedrockProvider::new().with_credentials("AKIDEXAMPLE", "secret", None);
    /// # let _ = bedrock;
    /// ```
    pub fn with_credentials(
        self,
        access_key_id: impl Into<String>,
        secret_access_key: impl Into<String>,
        session_token: Option<String>,
    ) -> Self {
        let keys = Credentials::new(
            access_key_id.into(),
            secret_access_key.into(),
            session_token,
            None,
            "given",
        );
        self.with_vendor(|v| v.keys = Some(keys)).routed()
    }

    /// The region.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::BedrockProvider::new().region(), "us-east-1");
    /// ```
    pub fn region(&self) -> &str {
        &self.vendor.region
    }

    /// The endpoint of the provider's own model (whole replies).
    ///
    /// ```
    /// use intent_core::provider::BedrockProvider;
    /// assert!(BedrockProvider::new().endpoint().ends_with("/model/amazon.nova-lite-v1%3A0/converse"));
    /// ```
    pub fn endpoint(&self) -> String {
        converse_url(&self.base_url, &self.model, false).map_or_else(
            |e| format!("(no endpoint: {})", e.message),
            |url| url.to_string(),
        )
    }

    /// The signing route for the region and keys now set.
    fn routed(self) -> Self {
        let route = Route {
            credentials: AwsCredentials::new(self.vendor.keys.clone(), &self.vendor.region),
            region: self.vendor.region.clone(),
        };
        self.with_cloud(Arc::new(route))
    }
}

impl Default for HttpProvider<Bedrock> {
    fn default() -> Self {
        Self::new()
    }
}

impl Vendor for Bedrock {
    const DEFAULTS: Defaults = Defaults::new(
        "bedrock",
        "https://bedrock-runtime.us-east-1.amazonaws.com",
        "amazon.nova-lite-v1:0",
    )
    .keys(&["AWS_ACCESS_KEY_ID"])
    .keyless();

    type Events = ConverseDecoder;

    /// The endpoints' common part; each request's names its model (see `Route`).
    fn path(&self) -> &str {
        "model/"
    }

    /// No fixed header: each request is signed on its own.
    fn headers(&self, _key: Option<&str>, _provider: &str) -> Result<HeaderMap, ProviderError> {
        Ok(HeaderMap::new())
    }

    fn body(&self, call: Call<'_>, _stream: bool) -> Result<Vec<u8>, ProviderError> {
        wire::body(call)
    }

    fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
        wire::parse(body, model, key, wire::Offered::default())
    }

    /// The reply read knowing the tools offered: the schema's tool is the answer, another is a
    /// call of the caller's.
    fn reply_to(&self, body: &[u8], call: Call<'_>, key: &ApiKey) -> ReplyRead {
        wire::parse(body, call.model, key, wire::Offered::of(call.request))
    }

    fn events(&self, model: &str, key: &ApiKey) -> Option<ConverseDecoder> {
        Some(ConverseDecoder::new(model, key))
    }

    /// A request that offers the caller's tools has its calls told from the answer, and its
    /// turn (signed reasoning, text and calls) rebuilt for the next round.
    fn events_for(&self, call: Call<'_>, key: &ApiKey) -> Option<ConverseDecoder> {
        let decoder = ConverseDecoder::new(call.model, key);
        Some(match call.request.tools {
            None => decoder,
            Some(_) => decoder.with_tools(wire::Offered::of(call.request).answer()),
        })
    }

    fn notices(&self, call: Call<'_>) -> Vec<ResultIssue> {
        wire::notices(call)
    }
}

/// A region names a host: lowercase letters, digits and `-` only.
fn check_region(region: &str) -> Result<(), String> {
    if super::cloud::is_host_label(region) {
        Ok(())
    } else {
        Err(format!("{region:?} is not an AWS region (like us-east-1)"))
    }
}

/// `{base}/model/{modelId}/converse` (or `converse-stream`), the model id percent-encoded.
fn converse_url(base_url: &str, model: &str, stream: bool) -> Result<Url, ProviderError> {
    let config = |message: String| ProviderError::new(ProviderErrorKind::Config, message);
    let model = model.trim();
    if model.is_empty()
        || model.len() > 2048
        || model.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(config(format!(
            "{model:?} is not a Bedrock model id or ARN"
        )));
    }
    super::transport::check_base_url(base_url).map_err(config)?;
    let mut url =
        Url::parse(base_url).map_err(|e| config(format!("the base URL is not valid ({e})")))?;
    let mut path = url.path().trim_end_matches('/').to_owned();
    path.push_str("/model/");
    for byte in model.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            path.push(char::from(byte));
        } else {
            path.push_str(&format!("%{byte:02X}"));
        }
    }
    path.push_str(if stream {
        "/converse-stream"
    } else {
        "/converse"
    });
    url.set_path(&path);
    url.set_query(None);
    Ok(url)
}

/// Bedrock's endpoints in one region, and the credentials that sign them.
#[derive(Debug)]
struct Route {
    region: String,
    credentials: AwsCredentials,
}

impl Cloud for Route {
    fn url(&self, base_url: &str, model: &str, stream: bool) -> Result<Url, ProviderError> {
        check_region(&self.region).map_err(|e| ProviderError::new(ProviderErrorKind::Config, e))?;
        converse_url(base_url, model, stream)
    }

    fn authorize<'a>(&'a self, request: Outgoing<'a>) -> BoxFuture<'a, Result<(), ProviderError>> {
        Box::pin(self.credentials.sign_post(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::http::{assert_refused, vars};

    #[test]
    fn from_env_reads_the_region_model_and_keys_and_names_the_variables_when_unset() {
        let bedrock = BedrockProvider::from_vars(vars(&[
            ("AWS_DEFAULT_REGION", "eu-west-1"),
            ("AWS_REGION", "us-west-2"),
            ("AWS_ACCESS_KEY_ID", "AKID"),
            ("AWS_SECRET_ACCESS_KEY", "secret-key"),
            (
                "BEDROCK_MODEL",
                "us.anthropic.claude-sonnet-4-20250514-v1:0",
            ),
        ]))
        .unwrap();
        assert_eq!(bedrock.region(), "us-west-2");
        assert!(bedrock.vendor.keys.is_some());
        assert_eq!(
            bedrock.endpoint(),
            "https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse"
        );
        assert!(!format!("{bedrock:?}").contains("secret-key"));
        assert_refused(
            BedrockProvider::from_vars(vars(&[])),
            &["AWS_REGION", "AWS_DEFAULT_REGION"],
        );
        assert_refused(
            BedrockProvider::from_vars(vars(&[("AWS_REGION", "evil.example/x")])),
            &["not an AWS region"],
        );
    }

    #[test]
    fn a_model_id_or_arn_is_one_encoded_path_segment() {
        let arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.meta.llama3-2-1b-instruct-v1:0";
        let url = converse_url("http://127.0.0.1:9/base/", arn, true).unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:9/base/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.meta.llama3-2-1b-instruct-v1%3A0/converse-stream"
        );
        for bad in ["", "a b", "a\nb"] {
            assert!(
                converse_url("http://127.0.0.1:9", bad, false).is_err(),
                "{bad:?}"
            );
        }
        let sneaky = converse_url("http://127.0.0.1:9", "../x?y#z", false).unwrap();
        assert_eq!(sneaky.path(), "/model/..%2Fx%3Fy%23z/converse");
        assert_eq!(sneaky.query(), None);
    }
}

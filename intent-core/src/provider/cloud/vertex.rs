//! [`VertexProvider`]: Gemini and Anthropic models on Google Vertex AI, through the vendors' own
//! request and reply handling ([`GeminiProvider`], [`AnthropicProvider`]) with Vertex AI's
//! endpoints and Google access tokens.
//!
//! Wire facts (Vertex AI's REST reference, "Generate content with the Gemini API in Vertex AI";
//! Anthropic's "Claude on Vertex AI"):
//!
//! - Gemini: `POST {base}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
//!   (`:streamGenerateContent?alt=sse` for server-sent events), the same `generateContent` body
//!   and reply as the Gemini API.
//! - Claude: `POST .../publishers/anthropic/models/{model}:rawPredict` (`:streamRawPredict`
//!   streamed), the Messages body without `model` (the endpoint names it) and with
//!   `"anthropic_version": "vertex-2023-10-16"`; the reply and its events are the Messages API's.
//!   No `anthropic-version` header and no API key are sent.
//! - The base URL is `https://{location}-aiplatform.googleapis.com`, and
//!   `https://aiplatform.googleapis.com` for the `global` location.
//! - Authorization: `authorization: Bearer {access token}`, tokens from Application Default
//!   Credentials (`google`).
//! - Errors are Google's `{"error": {"code", "message", "status"}}`; 429 (`RESOURCE_EXHAUSTED`)
//!   and 5xx are retried by the transport, as for Gemini.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{HeaderMap, AUTHORIZATION};
use reqwest::Url;
use serde_json::Value;

use super::google::GoogleAuth;
use super::{check_model, endpoint};
use crate::error::IntentError;
use crate::provider::http::{env_var, key_header_value, Cloud, Outgoing};
use crate::provider::pieces::PieceStream;
use crate::provider::{
    AnthropicProvider, BoxFuture, GeminiProvider, Provider, ProviderError, ProviderErrorKind,
    ReplyFuture, RetryPolicy,
};
use crate::request::AiRequest;
use crate::result::ResultIssue;

/// The `anthropic_version` Vertex AI takes in a Messages body.
const ANTHROPIC_VERSION: &str = "vertex-2023-10-16";
/// The model asked when none is set.
const DEFAULT_MODEL: &str = "gemini-2.5-flash";
/// The location when none is set.
const DEFAULT_LOCATION: &str = "global";

/// Gemini and Claude models on Google Vertex AI, with the project's Google credentials.
///
/// A request for a model whose id starts with `claude` goes to Anthropic's endpoint on Vertex AI
/// (`publishers/anthropic/models/{model}:rawPredict`, the body and reply of
/// [`AnthropicProvider`]); any other to Gemini's (`publishers/google/models/{model}:generateContent`,
/// the body and reply of [`GeminiProvider`]). Both are read exactly as those providers read them:
/// finish reasons, usage, reasoning, refusals, strict schemas, attachments and streamed events.
///
/// Credentials are Google's Application Default Credentials: the service account key file
/// `GOOGLE_APPLICATION_CREDENTIALS` names, gcloud's `application_default_credentials.json`, or
/// the machine's metadata server (`GCE_METADATA_HOST` overrides its host). Access tokens are
/// fetched on the first request, kept, and fetched again before they expire; none shows in
/// `Debug`, a log or an error. No credentials is an error naming each place looked.
///
/// ```
/// use intent_core::provider::{Provider, VertexProvider};
///
/// let vertex = VertexProvider::new("my-project")
///     .with_location("europe-west4")
///     .with_model("gemini-2.5-pro");
/// assert_eq!(
///     vertex.endpoint(),
///     "https://europe-west4-aiplatform.googleapis.com/v1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent"
/// );
/// assert_eq!(vertex.default_model(), Some("gemini-2.5-pro"));
/// let claude = vertex.with_location("global").with_model("claude-sonnet-4-5@20250929");
/// assert!(claude.endpoint().ends_with("/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"));
/// ```
#[derive(Clone, Debug)]
pub struct VertexProvider {
    name: String,
    project: String,
    location: String,
    /// Set with `with_base_url`; else the location's.
    base_url: Option<String>,
    model: String,
    auth: Arc<GoogleAuth>,
    gemini: GeminiProvider,
    anthropic: AnthropicProvider,
}

impl VertexProvider {
    /// A provider for the Google Cloud project `project`, in the `global` location, asking
    /// `gemini-2.5-flash` when a request names no model, with Application Default Credentials
    /// read from the environment.
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert_eq!(VertexProvider::new("my-project").location(), "global");
    /// ```
    pub fn new(project: impl Into<String>) -> Self {
        Self::with_auth(project.into(), GoogleAuth::from_vars(env_var))
    }

    fn with_auth(project: String, auth: GoogleAuth) -> Self {
        VertexProvider {
            name: "vertex".to_owned(),
            project,
            location: DEFAULT_LOCATION.to_owned(),
            base_url: None,
            model: DEFAULT_MODEL.to_owned(),
            auth: Arc::new(auth),
            gemini: GeminiProvider::new(""),
            anthropic: AnthropicProvider::new(""),
        }
        .routed()
    }

    /// A provider configured from the environment: the project from `GOOGLE_VERTEX_PROJECT`,
    /// else `GOOGLE_CLOUD_PROJECT`; the location from `GOOGLE_VERTEX_LOCATION`, else
    /// `GOOGLE_CLOUD_LOCATION` (default `global`); `VERTEX_MODEL` and `VERTEX_BASE_URL`; the
    /// credentials as [`VertexProvider`] says. No project is an error naming the variables.
    ///
    /// ```no_run
    /// use intent_core::provider::VertexProvider;
    /// let vertex = VertexProvider::from_env()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<Self, IntentError> {
        Self::from_vars(env_var)
    }

    pub(crate) fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, IntentError> {
        let project = var("GOOGLE_VERTEX_PROJECT")
            .or_else(|| var("GOOGLE_CLOUD_PROJECT"))
            .ok_or_else(|| {
                IntentError::Config(
                    "neither GOOGLE_VERTEX_PROJECT nor GOOGLE_CLOUD_PROJECT is set: Vertex AI needs the Google Cloud project".into(),
                )
            })?;
        let mut provider = Self::with_auth(project, GoogleAuth::from_vars(&var));
        if let Some(location) =
            var("GOOGLE_VERTEX_LOCATION").or_else(|| var("GOOGLE_CLOUD_LOCATION"))
        {
            check_location(&location).map_err(IntentError::Config)?;
            provider = provider.with_location(location);
        }
        if let Some(model) = var("VERTEX_MODEL") {
            provider = provider.with_model(model);
        }
        if let Some(base_url) = var("VERTEX_BASE_URL") {
            crate::provider::transport::check_base_url(&base_url)
                .map_err(|e| IntentError::Config(format!("VERTEX_BASE_URL: {e}")))?;
            provider = provider.with_base_url(base_url);
        }
        Ok(provider)
    }

    /// The Google Cloud project.
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert_eq!(VertexProvider::new("a").with_project("b").project(), "b");
    /// ```
    pub fn with_project(mut self, project: impl Into<String>) -> Self {
        self.project = project.into();
        self.routed()
    }

    /// The location (region) the models run in: `global` (the default), `us-central1`,
    /// `europe-west4`, ... It names the endpoint's host unless a base URL is set.
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// let vertex = VertexProvider::new("p").with_location("us-east5");
    /// assert_eq!(vertex.base_url(), "https://us-east5-aiplatform.googleapis.com");
    /// ```
    pub fn with_location(mut self, location: impl Into<String>) -> Self {
        self.location = location.into();
        self.routed()
    }

    /// The base URL, instead of the location's `https://{location}-aiplatform.googleapis.com`
    /// (a private endpoint, a proxy, a local server).
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// let vertex = VertexProvider::new("p").with_base_url("http://127.0.0.1:9000");
    /// assert!(vertex.endpoint().starts_with("http://127.0.0.1:9000/v1/projects/p/"));
    /// ```
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = Some(base_url.into());
        self.routed()
    }

    /// The model asked when a request names none: a Gemini model (`gemini-2.5-pro`) or a Claude
    /// model (`claude-sonnet-4-5@20250929`).
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert_eq!(VertexProvider::new("p").with_model("gemini-2.5-pro").model(), "gemini-2.5-pro");
    /// ```
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self.routed()
    }

    /// The provider's name, as `AiRequestOptions::provider` names it (`vertex` by default).
    ///
    /// ```
    /// use intent_core::provider::{Provider, VertexProvider};
    /// assert_eq!(VertexProvider::new("p").with_name("gcp").name(), "gcp");
    /// ```
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self.routed()
    }

    /// How many times a transport fault is retried after the first try (2 by default).
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert_eq!(VertexProvider::new("p").with_max_retries(5).retry_policy().max_retries, 5);
    /// ```
    pub fn with_max_retries(self, retries: u32) -> Self {
        let policy = RetryPolicy {
            max_retries: retries,
            ..self.retry_policy()
        };
        self.with_retry_policy(policy)
    }

    /// The whole retry policy of transport faults (see [`RetryPolicy`]).
    ///
    /// ```
    /// use intent_core::provider::{RetryPolicy, VertexProvider};
    /// let vertex = VertexProvider::new("p").with_retry_policy(RetryPolicy::none());
    /// assert_eq!(vertex.retry_policy(), RetryPolicy::none());
    /// ```
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.gemini = self.gemini.with_retry_policy(policy);
        self.anthropic = self.anthropic.with_retry_policy(policy);
        self
    }

    /// The timeout for one HTTP request (600 s by default).
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::provider::VertexProvider;
    /// let vertex = VertexProvider::new("p").with_timeout(Duration::from_secs(30));
    /// # let _ = vertex;
    /// ```
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.gemini = self.gemini.with_timeout(timeout);
        self.anthropic = self.anthropic.with_timeout(timeout);
        self
    }

    /// The retry policy of transport faults.
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert_eq!(VertexProvider::new("p").retry_policy().max_retries, 2);
    /// ```
    pub fn retry_policy(&self) -> RetryPolicy {
        self.gemini.retry_policy()
    }

    /// The project.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::VertexProvider::new("p").project(), "p");
    /// ```
    pub fn project(&self) -> &str {
        &self.project
    }

    /// The location.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::VertexProvider::new("p").location(), "global");
    /// ```
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The model asked when a request names none.
    ///
    /// ```
    /// assert_eq!(intent_core::provider::VertexProvider::new("p").model(), "gemini-2.5-flash");
    /// ```
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The base URL: the one set, else the location's.
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert_eq!(VertexProvider::new("p").base_url(), "https://aiplatform.googleapis.com");
    /// ```
    pub fn base_url(&self) -> String {
        match &self.base_url {
            Some(base_url) => base_url.clone(),
            None if self.location == "global" => "https://aiplatform.googleapis.com".to_owned(),
            None => format!("https://{}-aiplatform.googleapis.com", self.location),
        }
    }

    /// The endpoint of the provider's own model (whole replies).
    ///
    /// ```
    /// use intent_core::provider::VertexProvider;
    /// assert!(VertexProvider::new("p").endpoint().ends_with("/models/gemini-2.5-flash:generateContent"));
    /// ```
    pub fn endpoint(&self) -> String {
        let route = self.route(Publisher::of(&self.model));
        route.url(&self.base_url(), &self.model, false).map_or_else(
            |e| format!("(no endpoint: {})", e.message),
            |url| url.to_string(),
        )
    }

    fn route(&self, publisher: Publisher) -> Route {
        Route {
            project: self.project.clone(),
            location: self.location.clone(),
            publisher,
            auth: Arc::clone(&self.auth),
        }
    }

    /// The two vendors' providers with this provider's endpoint, model, name and credentials.
    fn routed(mut self) -> Self {
        let base_url = self.base_url();
        let gemini_route = Arc::new(self.route(Publisher::Google));
        let anthropic_route = Arc::new(self.route(Publisher::Anthropic));
        self.gemini = self
            .gemini
            .with_base_url(base_url.clone())
            .with_model(self.model.clone())
            .with_name(self.name.clone())
            .with_cloud(gemini_route);
        self.anthropic = self
            .anthropic
            .with_base_url(base_url)
            .with_model(self.model.clone())
            .with_name(self.name.clone())
            .with_cloud(anthropic_route);
        self
    }

    /// The provider a request for `model` goes through, or why it cannot go.
    fn pick(&self, request: &AiRequest) -> Result<&dyn Provider, ProviderError> {
        let model = request.model.as_deref().unwrap_or(&self.model);
        if let Err(location) = check_location(&self.location) {
            return Err(
                ProviderError::new(ProviderErrorKind::Config, location).with_provider(&self.name)
            );
        }
        Ok(match Publisher::of(model) {
            Publisher::Google => &self.gemini,
            Publisher::Anthropic => &self.anthropic,
        })
    }
}

impl Provider for VertexProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn default_model(&self) -> Option<&str> {
        Some(&self.model)
    }

    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        match self.pick(request) {
            Ok(provider) => provider.complete(request),
            Err(error) => Box::pin(std::future::ready(Err(error))),
        }
    }

    fn stream<'a>(&'a self, request: &'a AiRequest) -> PieceStream<'a> {
        match self.pick(request) {
            Ok(provider) => provider.stream(request),
            Err(error) => Box::pin(futures::stream::once(std::future::ready(Err(error)))),
        }
    }

    /// The notices of the vendor's provider the request goes through.
    fn notices(&self, request: &AiRequest) -> Vec<ResultIssue> {
        self.pick(request)
            .map_or_else(|_| Vec::new(), |provider| provider.notices(request))
    }

    /// As the vendor's provider the request goes through says.
    fn tools_beside_format(&self, request: &AiRequest) -> bool {
        self.pick(request)
            .map_or(true, |provider| provider.tools_beside_format(request))
    }
}

/// Whose models an endpoint serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Publisher {
    Google,
    Anthropic,
}

impl Publisher {
    fn of(model: &str) -> Publisher {
        if model.trim().starts_with("claude") {
            Publisher::Anthropic
        } else {
            Publisher::Google
        }
    }
}

/// A location names a host: lowercase letters, digits and `-` only.
fn check_location(location: &str) -> Result<(), String> {
    if super::is_host_label(location) {
        Ok(())
    } else {
        Err(format!(
            "{location:?} is not a Vertex AI location (lowercase letters, digits and '-', like us-central1 or global)"
        ))
    }
}

/// Vertex AI's endpoints of one publisher, and the credentials that authorize them.
#[derive(Debug)]
struct Route {
    project: String,
    location: String,
    publisher: Publisher,
    auth: Arc<GoogleAuth>,
}

impl Cloud for Route {
    fn url(&self, base_url: &str, model: &str, stream: bool) -> Result<Url, ProviderError> {
        let model = model.trim();
        let model = model.strip_prefix("models/").unwrap_or(model);
        check_model(model, "Vertex AI")?;
        check_location(&self.location)
            .map_err(|e| ProviderError::new(ProviderErrorKind::Config, e))?;
        if self.project.trim().is_empty() {
            return Err(ProviderError::new(
                ProviderErrorKind::Config,
                "no Google Cloud project is set (with_project, or GOOGLE_VERTEX_PROJECT)",
            ));
        }
        let (publisher, method, query) = match (self.publisher, stream) {
            (Publisher::Google, false) => ("google", "generateContent", None),
            (Publisher::Google, true) => ("google", "streamGenerateContent", Some("alt=sse")),
            (Publisher::Anthropic, false) => ("anthropic", "rawPredict", None),
            (Publisher::Anthropic, true) => ("anthropic", "streamRawPredict", None),
        };
        endpoint(
            base_url,
            &[
                "v1",
                "projects",
                self.project.trim(),
                "locations",
                &self.location,
                "publishers",
                publisher,
                "models",
                &format!("{model}:{method}"),
            ],
            query,
        )
    }

    /// Claude's Messages body without `model` and with Vertex AI's `anthropic_version`.
    fn body(&self, body: Vec<u8>) -> Result<Vec<u8>, ProviderError> {
        if self.publisher == Publisher::Google {
            return Ok(body);
        }
        let mut value: serde_json::Map<String, Value> =
            serde_json::from_slice(&body).map_err(|e| {
                ProviderError::new(
                    ProviderErrorKind::Config,
                    format!("the Messages body is not a JSON object: {e}"),
                )
            })?;
        value.remove("model");
        value.insert("anthropic_version".into(), Value::from(ANTHROPIC_VERSION));
        serde_json::to_vec(&value).map_err(|e| {
            ProviderError::new(
                ProviderErrorKind::Config,
                format!("the request could not be serialized: {e}"),
            )
        })
    }

    /// The vendor's headers less Anthropic's `anthropic-version` (Vertex AI takes it in the body).
    fn headers(&self, vendor: &HeaderMap) -> HeaderMap {
        let mut headers = vendor.clone();
        headers.remove("anthropic-version");
        headers.remove("x-api-key");
        headers.remove("x-goog-api-key");
        headers
    }

    fn authorize<'a>(&'a self, request: Outgoing<'a>) -> BoxFuture<'a, Result<(), ProviderError>> {
        Box::pin(async move {
            let token = self.auth.token().await?;
            request.headers.insert(
                AUTHORIZATION,
                key_header_value(&format!("Bearer {token}"), "vertex")?,
            );
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::http::{assert_refused, vars};

    #[test]
    fn from_env_reads_project_location_model_and_names_the_variables_when_unset() {
        let vertex = VertexProvider::from_vars(vars(&[
            ("GOOGLE_CLOUD_PROJECT", "cloud-project"),
            ("GOOGLE_VERTEX_PROJECT", "vertex-project"),
            ("GOOGLE_CLOUD_LOCATION", "us-east5"),
            ("VERTEX_MODEL", "claude-sonnet-4-5@20250929"),
        ]))
        .unwrap();
        assert_eq!(vertex.project(), "vertex-project");
        assert_eq!(vertex.location(), "us-east5");
        assert_eq!(
            vertex.endpoint(),
            "https://us-east5-aiplatform.googleapis.com/v1/projects/vertex-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
        );
        assert_refused(
            VertexProvider::from_vars(vars(&[])),
            &["GOOGLE_VERTEX_PROJECT", "GOOGLE_CLOUD_PROJECT"],
        );
        let bad_location = [
            ("GOOGLE_CLOUD_PROJECT", "p"),
            ("GOOGLE_CLOUD_LOCATION", "evil.example/"),
        ];
        assert_refused(
            VertexProvider::from_vars(vars(&bad_location)),
            &["not a Vertex AI location"],
        );
    }

    #[test]
    fn a_model_id_cannot_reach_into_the_path_or_query() {
        let route = VertexProvider::new("p").route(Publisher::Google);
        for model in ["../x", "a/b", "a?b", "", "a b"] {
            assert!(
                route
                    .url("https://aiplatform.googleapis.com", model, false)
                    .is_err(),
                "{model}"
            );
        }
        let url = route
            .url("https://aiplatform.googleapis.com", "gemini-2.5-pro", true)
            .unwrap();
        assert_eq!(url.as_str(), "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    }

    #[test]
    fn a_claude_body_loses_its_model_and_gains_the_vertex_version() {
        let route = VertexProvider::new("p").route(Publisher::Anthropic);
        let body = route
            .body(br#"{"model":"claude-x","max_tokens":5,"messages":[]}"#.to_vec())
            .unwrap();
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"max_tokens": 5, "messages": [], "anthropic_version": "vertex-2023-10-16"})
        );
    }
}

//! [`GeminiProvider`]: Gemini's `generateContent`.

mod parts;
mod schema;
mod wire;

use reqwest::header::HeaderMap;

use super::http_provider::{
    debug_provider, endpoint_settings, key_header_value, provider_identity, request_body,
    strict_schema,
};
use super::transport::{
    check_base_url, env_var, join_url, transport_settings, ApiKey, EnvEndpoint, Post, Prepared,
    Transport,
};
use super::{AiResponse, Provider, ProviderError, ProviderErrorKind};
use crate::error::IntentError;
use crate::request::{AiRequest, ResponseFormat};
use parts::Parts;
use wire::{Content, GenerateBody, GenerationConfig, ThinkingConfig};

/// A provider that speaks Gemini's `generateContent`:
/// `POST {base}/v1beta/models/{model}:generateContent`.
///
/// The key goes in the `x-goog-api-key` header, never in the URL. The system prompt goes in
/// `systemInstruction`, the user message in `contents`, and `generationConfig` carries
/// `responseMimeType` (`text/plain` for text, `application/json` for JSON), the strict schema as
/// `responseJsonSchema` (converted to the dialect Gemini takes, or refused before sending when it
/// cannot be: see below), `maxOutputTokens`, `temperature` and, when the request asks for
/// reasoning, `thinkingConfig` (`thinkingBudget` from the thinking budget, else `thinkingLevel` from
/// the reasoning effort, with `includeThoughts` so the reply's thought parts become
/// [`AiResponse::reasoning`], never its text).
///
/// Finish reasons: `STOP` is a natural end, `MAX_TOKENS` a cut-off, `SAFETY`, `RECITATION`,
/// `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII` and the image filters the provider's filter; every
/// other one (`OTHER`, `LANGUAGE`, `MALFORMED_FUNCTION_CALL`, ...) an abnormal end
/// ([`FinishReason::Abnormal`](crate::provider::FinishReason::Abnormal)) that fails its attempt
/// with the reason named, never a reply read as if it had ended well. A prompt blocked outright (`promptFeedback.blockReason`, no candidate) is a
/// filtered reply with no text. Usage reads `usageMetadata`: the prompt tokens (cached content
/// included), the candidates' tokens plus the thoughts' as output, the cached content tokens and
/// the thoughts tokens as reasoning.
///
/// Errors (`{"error": {"code", "message", "status"}}`) and retries go through the shared
/// transport: 408, 429, 5xx are retried under the [`RetryPolicy`](super::RetryPolicy), honouring a
/// `retry-after` header or the `google.rpc.RetryInfo` delay of the body; a 429 whose
/// `google.rpc.QuotaFailure` names a per-day quota is not retried.
///
/// Strict schemas: Gemini's `responseJsonSchema` takes a subset of JSON Schema and ignores the
/// keywords it does not know. Before sending, `const` becomes a one-value `enum`, an `enum` with
/// `null` and a type array of several types become `anyOf`, and a `$ref` with keywords beside it
/// moves into `anyOf`; enum values that are not strings or numbers, a reference cycle through
/// required members only and a `$ref` beside keywords that cannot move are refused with an
/// [`InvalidRequest`](ProviderErrorKind::InvalidRequest) error naming the JSON pointer, before
/// anything is sent. The strict schemas of derived types are sent unchanged, but for nullable unit
/// enums (their `enum` lists `null`), sent as `anyOf`.
///
/// ```
/// use intent_core::provider::{GeminiProvider, Provider};
///
/// let provider = GeminiProvider::new("AIza-example").with_model("gemini-2.5-pro");
/// assert_eq!(
///     provider.endpoint(),
///     "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"
/// );
/// assert_eq!(provider.default_model(), Some("gemini-2.5-pro"));
/// assert!(!format!("{provider:?}").contains("AIza-example"));
/// ```
#[derive(Clone)]
pub struct GeminiProvider {
    name: String,
    base_url: String,
    model: String,
    key: ApiKey,
    transport: Transport,
    /// The checked `{base}/v1beta/` URL and the headers, built once.
    prepared: Prepared,
}

debug_provider!(GeminiProvider {});

transport_settings!(GeminiProvider);
endpoint_settings! {
    GeminiProvider,
    path: "v1beta/models/{model}:generateContent",
    base_url: "http://127.0.0.1:9000/" => "http://127.0.0.1:9000/v1beta/models/gemini-2.5-flash:generateContent",
    model: "gemini-2.5-flash-lite",
    /// A name may start with `models/`, or name a tuned model as `tunedModels/NAME`.
    name: "google" (default "gemini"),
    key: "k",
}

impl GeminiProvider {
    /// The default base URL.
    pub const DEFAULT_BASE_URL: &'static str = "https://generativelanguage.googleapis.com";
    /// The model asked when neither the request nor the provider names one.
    pub const DEFAULT_MODEL: &'static str = "gemini-2.5-flash";
    /// The provider's default name.
    pub const DEFAULT_NAME: &'static str = "gemini";
    /// The API version in the endpoint's path.
    pub const API_VERSION: &'static str = "v1beta";

    /// A provider for Gemini with this key (an empty key sends no `x-goog-api-key`, for proxies
    /// that add their own).
    ///
    /// ```
    /// let provider = intent_core::provider::GeminiProvider::new("AIza-example");
    /// assert_eq!(provider.base_url(), "https://generativelanguage.googleapis.com");
    /// ```
    pub fn new(api_key: impl Into<String>) -> Self {
        GeminiProvider {
            name: Self::DEFAULT_NAME.to_owned(),
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            model: Self::DEFAULT_MODEL.to_owned(),
            key: ApiKey::new(api_key),
            transport: Transport::default(),
            prepared: Prepared::default(),
        }
    }

    /// A provider configured from the environment: the key from `GEMINI_API_KEY`, else
    /// `GOOGLE_API_KEY` (the more specific name wins when both are set; Google's SDK prefers
    /// `GOOGLE_API_KEY`), `GEMINI_BASE_URL` and `GEMINI_MODEL`. The key may be missing only when
    /// `GEMINI_BASE_URL` names another server.
    ///
    /// ```no_run
    /// use intent_core::provider::GeminiProvider;
    ///
    /// let provider = GeminiProvider::from_env()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<Self, IntentError> {
        Self::from_vars(env_var)
    }

    /// [`from_env`](Self::from_env) with the variables read by `var`.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, IntentError> {
        let key = var("GEMINI_API_KEY").or_else(|| var("GOOGLE_API_KEY"));
        let endpoint = EnvEndpoint::read(&var, "GEMINI_BASE_URL", "GEMINI_MODEL")?;
        if key.is_none() && endpoint.base_url.is_none() {
            return Err(IntentError::Config(
                "neither GEMINI_API_KEY nor GOOGLE_API_KEY is set; set one, or set GEMINI_BASE_URL to a server that needs no key".into(),
            ));
        }
        let mut provider = GeminiProvider::new(key.unwrap_or_default());
        endpoint.apply(&mut provider.base_url, &mut provider.model);
        Ok(provider)
    }

    /// The endpoint of the provider's own model: `{base}/v1beta/models/{model}:generateContent`
    /// (a request that names another model goes to that model's endpoint).
    ///
    /// ```
    /// let provider = intent_core::provider::GeminiProvider::new("k");
    /// assert_eq!(
    ///     provider.endpoint(),
    ///     "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    /// );
    /// ```
    pub fn endpoint(&self) -> String {
        let (collection, id) = split_model(&self.model);
        join_url(
            &self.base_url,
            &format!("{}/{collection}/{id}:generateContent", Self::API_VERSION),
        )
    }

    fn headers(&self) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = self.key.expose() {
            headers.insert("x-goog-api-key", key_header_value(key, &self.name)?);
        }
        Ok(headers)
    }

    fn error(&self, kind: ProviderErrorKind, message: String) -> ProviderError {
        ProviderError::new(kind, message).with_provider(&self.name)
    }

    /// The endpoint for `model`: the prepared `{base}/v1beta/` with the model's segments pushed,
    /// so no model name can reach into the query or another path.
    fn url(&self, base: &reqwest::Url, model: &str) -> Result<reqwest::Url, ProviderError> {
        let (collection, id) = split_model(model);
        let valid = !id.is_empty()
            && !id.contains("..")
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !valid {
            return Err(self.error(
                ProviderErrorKind::Config,
                format!("{model:?} is not a Gemini model name (letters, digits, '-', '_' and '.', optionally after models/ or tunedModels/)"),
            ));
        }
        let mut url = base.clone();
        url.path_segments_mut()
            .map_err(|()| {
                self.error(
                    ProviderErrorKind::Config,
                    "the base URL cannot take a path".into(),
                )
            })?
            .pop_if_empty()
            .push(collection)
            .push(&format!("{id}:generateContent"));
        Ok(url)
    }

    /// The JSON body for `request`.
    fn body(&self, request: &AiRequest) -> Result<Vec<u8>, ProviderError> {
        parts::RULES.check(&request.attachments, &self.name)?;
        let prepared_schema;
        let (response_mime_type, response_json_schema) = match request.format {
            ResponseFormat::Text => (wire::TEXT_MIME_TYPE, None),
            ResponseFormat::JsonObject => (wire::JSON_MIME_TYPE, None),
            ResponseFormat::JsonSchema => {
                prepared_schema =
                    schema::prepare(strict_schema(request, &self.name)?).map_err(|refusal| {
                        self.error(
                            ProviderErrorKind::InvalidRequest,
                            format!("the strict schema cannot be sent to Gemini: {refusal}"),
                        )
                    })?;
                (wire::JSON_MIME_TYPE, Some(&*prepared_schema))
            }
        };
        let body = GenerateBody {
            system_instruction: (!request.system.is_empty()).then(|| Content {
                role: None,
                parts: Parts {
                    text: &request.system,
                    attachments: &[],
                },
            }),
            contents: [Content {
                role: Some("user"),
                parts: Parts {
                    text: &request.user,
                    attachments: &request.attachments,
                },
            }],
            generation_config: GenerationConfig {
                response_mime_type,
                response_json_schema,
                max_output_tokens: request.max_output_tokens,
                temperature: request.temperature,
                thinking_config: ThinkingConfig::of(
                    request.thinking_budget,
                    request.reasoning_effort,
                ),
                sampling: super::sampling::gemini(request, &self.name)?,
                response_logprobs: request.logprobs,
            },
        };
        request_body(&body, request, &self.name)
    }

    async fn send(&self, request: &AiRequest) -> Result<AiResponse, ProviderError> {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let (base, headers) = self.prepared.get(|| {
            check_base_url(&self.base_url).map_err(|e| self.error(ProviderErrorKind::Config, e))?;
            let base = reqwest::Url::parse(&join_url(
                &self.base_url,
                &format!("{}/", Self::API_VERSION),
            ))
            .map_err(|e| {
                self.error(
                    ProviderErrorKind::Config,
                    format!("the endpoint URL is not valid ({e})"),
                )
            })?;
            Ok((base, self.headers()?))
        })?;
        let url = self.url(base, model)?;
        let body = self.body(request)?;
        self.transport
            .send_json_at(
                Post {
                    provider: &self.name,
                    url: &url,
                    headers,
                    body,
                    key: &self.key,
                },
                |reply| wire::parse_reply(reply, model, &self.key),
            )
            .await
    }
}

/// A model name's collection and id: `models/ID` or a bare `ID` is under `models`,
/// `tunedModels/ID` under `tunedModels`.
fn split_model(model: &str) -> (&'static str, &str) {
    let model = model.trim();
    if let Some(id) = model.strip_prefix("tunedModels/") {
        ("tunedModels", id)
    } else {
        ("models", model.strip_prefix("models/").unwrap_or(model))
    }
}

impl Provider for GeminiProvider {
    provider_identity!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn from_env_prefers_gemini_api_key_and_reads_base_url_and_model() {
        let provider = GeminiProvider::from_vars(vars(&[
            ("GOOGLE_API_KEY", "google-key"),
            ("GEMINI_API_KEY", "gemini-key"),
            ("GEMINI_BASE_URL", "http://127.0.0.1:9/"),
            ("GEMINI_MODEL", "gemini-2.5-pro"),
        ]))
        .unwrap();
        assert_eq!(provider.key.expose(), Some("gemini-key"));
        assert_eq!(provider.base_url(), "http://127.0.0.1:9/");
        assert_eq!(provider.model(), "gemini-2.5-pro");
        let google = GeminiProvider::from_vars(vars(&[("GOOGLE_API_KEY", "google-key")])).unwrap();
        assert_eq!(google.key.expose(), Some("google-key"));
        assert_eq!(google.base_url(), GeminiProvider::DEFAULT_BASE_URL);
    }

    #[test]
    fn from_env_names_the_variables_when_no_key_is_set() {
        let error = GeminiProvider::from_vars(vars(&[]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("GEMINI_API_KEY") && error.contains("GOOGLE_API_KEY"),
            "{error}"
        );
        let error = GeminiProvider::from_vars(vars(&[
            ("GEMINI_API_KEY", "k"),
            ("GEMINI_BASE_URL", "ftp://example.com"),
        ]))
        .unwrap_err()
        .to_string();
        assert!(error.contains("GEMINI_BASE_URL"), "{error}");
    }
}

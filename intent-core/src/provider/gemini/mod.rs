//! [`GeminiProvider`]: Gemini's wire, `generateContent` (`wire`) and `streamGenerateContent`
//! (`events`), with its attachments (`parts`) and the JSON Schema dialect it takes (`dialect`).
//! It offers no batch API: a batch run on Gemini is refused before anything is sent.

mod dialect;
mod events;
mod parts;
mod stream_calls;
mod tools;
mod wire;

use std::borrow::Cow;

use reqwest::header::HeaderMap;
use reqwest::Url;

use super::http::{
    env_var, from_vars, key_header_value, request_body, strict_schema, with_defaults, Call,
    Defaults, HttpProvider, Vendor,
};
use super::transport::{join_url, ApiKey};
use super::{AiResponse, ProviderError, ProviderErrorKind};
use crate::error::IntentError;
use crate::provider::models::Maker;
use crate::provider::plan::{plan, Asker, Plan};
use crate::provider::sampling;
use crate::provider::tool_wire::Conversation;
use crate::request::ResponseFormat;
use crate::result::ResultIssue;
use events::GeminiDecoder;
use parts::Parts;
use wire::{Content, GenerateBody, GenerationConfig, ThinkingConfig};

/// The API version in the endpoint's path.
const API_VERSION: &str = "v1beta";

/// Gemini's wire, as [`GeminiProvider`] speaks it (it has no settings of its own).
#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

/// A provider that speaks Gemini's `generateContent`:
/// `POST {base}/v1beta/models/{model}:generateContent`; a streamed reply is asked of
/// `:streamGenerateContent?alt=sse` and each chunk's text and thoughts delivered as they come.
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
pub type GeminiProvider = HttpProvider<Gemini>;

impl HttpProvider<Gemini> {
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
            &format!("{API_VERSION}/{collection}/{id}:generateContent"),
        )
    }

    /// A provider for Gemini with this key (an empty key sends no `x-goog-api-key`, for proxies
    /// that add their own), named `gemini`, at `https://generativelanguage.googleapis.com`,
    /// asking `gemini-2.5-flash` when a request names no model.
    ///
    /// ```
    /// let provider = intent_core::provider::GeminiProvider::new("AIza-example");
    /// assert_eq!(provider.base_url(), "https://generativelanguage.googleapis.com");
    /// ```
    pub fn new(api_key: impl Into<String>) -> Self {
        with_defaults(api_key)
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
        from_vars(Self::new, env_var)
    }
}

impl Vendor for Gemini {
    const DEFAULTS: Defaults = Defaults::new(
        "gemini",
        "https://generativelanguage.googleapis.com",
        "gemini-2.5-flash",
    )
    .keys(&["GEMINI_API_KEY", "GOOGLE_API_KEY"])
    .keyless();

    type Events = GeminiDecoder;

    /// The endpoint's first part, `{base}/v1beta/`: each request's endpoint names its model.
    fn path(&self) -> &str {
        "v1beta/"
    }

    /// The endpoint for `model`: `{base}/v1beta/models/{model}:generateContent`.
    fn url<'u>(&self, base: &'u Url, model: &str) -> Result<Cow<'u, Url>, ProviderError> {
        model_url(base, model, "generateContent").map(Cow::Owned)
    }

    /// `{base}/v1beta/models/{model}:streamGenerateContent?alt=sse`: the reply as server-sent
    /// events (without `alt=sse` Gemini streams one JSON array instead).
    fn stream_url<'u>(&self, base: &'u Url, model: &str) -> Result<Cow<'u, Url>, ProviderError> {
        let mut url = model_url(base, model, "streamGenerateContent")?;
        url.set_query(Some("alt=sse"));
        Ok(Cow::Owned(url))
    }

    fn headers(&self, key: Option<&str>, provider: &str) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert("x-goog-api-key", key_header_value(key, provider)?);
        }
        Ok(headers)
    }

    /// The JSON body for `request`.
    fn body(&self, call: Call<'_>, _stream: bool) -> Result<Vec<u8>, ProviderError> {
        let (request, provider) = (call.request, call.provider);
        parts::RULES.check(&request.attachments, provider)?;
        let plan = plan_of(call)?;
        let prepared_schema;
        let (response_mime_type, response_json_schema) = match request.format {
            ResponseFormat::Text => (wire::TEXT_MIME_TYPE, None),
            ResponseFormat::JsonObject => (wire::JSON_MIME_TYPE, None),
            ResponseFormat::JsonSchema => {
                prepared_schema =
                    dialect::prepare(strict_schema(request, provider)?).map_err(|refusal| {
                        ProviderError::new(
                            ProviderErrorKind::InvalidRequest,
                            format!("the strict schema cannot be sent to Gemini: {refusal}"),
                        )
                        .with_provider(provider)
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
            contents: Conversation {
                user: Content {
                    role: Some("user"),
                    parts: Parts {
                        text: &request.user,
                        attachments: &request.attachments,
                    },
                },
                tools: request.tools.as_deref(),
                round: tools::round_contents,
            },
            tools: tools::tools(request, provider)?,
            generation_config: GenerationConfig {
                response_mime_type,
                response_json_schema,
                max_output_tokens: request.max_output_tokens,
                temperature: plan.temperature,
                thinking_config: ThinkingConfig::of(plan.thinking_budget, plan.reasoning_effort),
                sampling: sampling::GEMINI.fields(request, plan.top_p, provider)?,
                response_logprobs: request.logprobs,
            },
        };
        request_body(&body, request, provider)
    }

    fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
        wire::parse(body, model, key)
    }

    fn events(&self, model: &str, key: &ApiKey) -> Option<GeminiDecoder> {
        Some(GeminiDecoder::new(model, key))
    }

    fn notices(&self, call: Call<'_>) -> Vec<ResultIssue> {
        plan_of(call).map_or_else(|_| Vec::new(), |plan| plan.notices)
    }

    /// As the model's family says (Gemini 3 can; Gemini 2.5 and earlier refuse a format beside
    /// function declarations); a model of no known family is taken to be able to.
    fn tools_beside_format(&self, call: Call<'_>, _base_url: &str) -> bool {
        crate::provider::models::family(Maker::Gemini, call.model)
            .is_none_or(|family| family.tools_beside_format)
    }
}

/// What `call`'s model settings become on Gemini (see `provider::plan`).
fn plan_of(call: Call<'_>) -> Result<Plan, ProviderError> {
    let asker = Asker {
        maker: Maker::Gemini,
        api: "Gemini generateContent",
        provider: call.provider,
        model: call.model,
        send_temperature: true,
    };
    plan(asker, call.request)
}

/// The endpoint of `method` for `model`: the prepared `{base}/v1beta/` with the model's segments
/// pushed, so no model name can reach into the query or another path.
fn model_url(base: &Url, model: &str, method: &str) -> Result<Url, ProviderError> {
    let error = |message: String| ProviderError::new(ProviderErrorKind::Config, message);
    let (collection, id) = split_model(model);
    let valid = !id.is_empty()
        && !id.contains("..")
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(error(format!("{model:?} is not a Gemini model name (letters, digits, '-', '_' and '.', optionally after models/ or tunedModels/)")));
    }
    let mut url = base.clone();
    url.path_segments_mut()
        .map_err(|()| error("the base URL cannot take a path".into()))?
        .pop_if_empty()
        .push(collection)
        .push(&format!("{id}:{method}"));
    Ok(url)
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
        let provider = from_vars(
            GeminiProvider::new,
            vars(&[
                ("GOOGLE_API_KEY", "google-key"),
                ("GEMINI_API_KEY", "gemini-key"),
                ("GEMINI_BASE_URL", "http://127.0.0.1:9/"),
                ("GEMINI_MODEL", "gemini-2.5-pro"),
            ]),
        )
        .unwrap();
        assert_eq!(provider.key.expose(), Some("gemini-key"));
        assert_eq!(provider.base_url(), "http://127.0.0.1:9/");
        assert_eq!(provider.model(), "gemini-2.5-pro");
        let google = from_vars(
            GeminiProvider::new,
            vars(&[("GOOGLE_API_KEY", "google-key")]),
        )
        .unwrap();
        assert_eq!(google.key.expose(), Some("google-key"));
        assert_eq!(
            google.base_url(),
            "https://generativelanguage.googleapis.com"
        );
    }

    #[test]
    fn from_env_names_the_variables_when_no_key_is_set() {
        let error = from_vars(GeminiProvider::new, vars(&[]))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("GEMINI_API_KEY") && error.contains("GOOGLE_API_KEY"),
            "{error}"
        );
        let error = from_vars(
            GeminiProvider::new,
            vars(&[
                ("GEMINI_API_KEY", "k"),
                ("GEMINI_BASE_URL", "ftp://example.com"),
            ]),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("GEMINI_BASE_URL"), "{error}");
    }
}

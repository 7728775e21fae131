//! What every HTTP provider shares besides the transport: its endpoint settings (`with_base_url`,
//! `with_model`, `with_name` and their getters), its [`Provider`](super::Provider) identity, the
//! header that carries its key, the parts of its request body that do not depend on the wire
//! format (the strict schema a request must carry, the `extra_body` fields) and the first steps of
//! reading its reply (one JSON object, an error object where the answer should be, the model that
//! answered). Each provider keeps only its wire format: its body, its reply's fields, its finish
//! reasons.

use reqwest::header::HeaderValue;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::extra_body::WithExtra;
use super::transport::{clip_body, error_text, json_body, ApiKey};
use super::{ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, SharedSchema};

/// `key` as the value of the header that carries it, marked sensitive so no log shows it, or a
/// configuration error for `provider` when it has characters a header cannot carry.
pub(crate) fn key_header_value(key: &str, provider: &str) -> Result<HeaderValue, ProviderError> {
    let mut value = HeaderValue::from_str(key).map_err(|_| {
        ProviderError::new(
            ProviderErrorKind::Config,
            "the API key contains characters not allowed in an HTTP header",
        )
        .with_provider(provider)
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// The strict schema of a request that asks for `ResponseFormat::JsonSchema`, or a configuration
/// error for `provider` when it carries none.
pub(crate) fn strict_schema<'r>(
    request: &'r AiRequest,
    provider: &str,
) -> Result<&'r SharedSchema, ProviderError> {
    request.schema.as_ref().ok_or_else(|| {
        ProviderError::new(
            ProviderErrorKind::Config,
            "the request asks for ResponseFormat::JsonSchema but carries no schema",
        )
        .with_provider(provider)
    })
}

/// A provider's request body: `body` serialized once, with the request's `extra_body` fields
/// over its own.
pub(crate) fn request_body(
    body: &impl serde::Serialize,
    request: &AiRequest,
    provider: &str,
) -> Result<Vec<u8>, ProviderError> {
    match request.extra_body.as_deref().filter(|e| !e.is_empty()) {
        None => json_body(body, request.text_len(), provider),
        Some(extra) => json_body(&WithExtra { body, extra }, request.text_len(), provider),
    }
}

/// A reply `body` read as the JSON object `T` of the API named `api`, or a decode error quoting the
/// body (clipped, the key redacted).
pub(crate) fn read_reply<T: DeserializeOwned>(
    body: &[u8],
    api: &str,
    key: &ApiKey,
) -> Result<T, ProviderError> {
    serde_json::from_slice(body).map_err(|e| {
        ProviderError::new(
            ProviderErrorKind::Decode,
            format!(
                "the reply is not a {api} JSON object ({e}): {}",
                clip_body(body, key)
            ),
        )
    })
}

/// The error of a reply without its answer (`expected`, as the API names it): the provider's own
/// error object when the reply carries one, else `missing`.
pub(crate) fn no_answer(error: Option<&Value>, expected: &str, missing: &str) -> ProviderError {
    let message = match error {
        Some(error) => format!(
            "the reply carries an error instead of {expected}: {}",
            error_text(error)
        ),
        None => missing.to_owned(),
    };
    ProviderError::new(ProviderErrorKind::Decode, message)
}

/// The model that answered: the one the reply names, else the one asked for.
pub(crate) fn answering_model(named: Option<String>, sent: &str) -> String {
    named
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| sent.to_owned())
}

/// Adds `with_base_url`, `with_model`, `with_name`, `base_url` and `model` to a provider with the
/// fields `name`, `base_url`, `model` and `prepared` (the endpoint and headers built once, started
/// again when the base URL changes). The arguments fill the examples of the docs: the endpoint's
/// path, a base URL and the endpoint it gives, a model, a name, the default name and a key.
macro_rules! endpoint_settings {
    (
        $ty:ident,
        path: $path:literal,
        base_url: $base:literal => $endpoint:literal,
        model: $model:literal,
        $(#[$model_doc:meta])*
        name: $name:literal (default $default_name:literal),
        key: $key:literal $(,)?
    ) => {
        impl $ty {
            #[doc = concat!("The base URL; requests go to `{base}/", $path, "`.")]
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(", stringify!($key), ").with_base_url(", stringify!($base), ");")]
            #[doc = concat!("assert_eq!(provider.endpoint(), ", stringify!($endpoint), ");")]
            /// ```
            pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
                self.prepared = $crate::provider::transport::Prepared::default();
                self.base_url = base_url.into();
                self
            }

            /// The model asked when a request names none.
            $(#[$model_doc])*
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(", stringify!($key), ").with_model(", stringify!($model), ");")]
            #[doc = concat!("assert_eq!(provider.model(), ", stringify!($model), ");")]
            /// ```
            pub fn with_model(mut self, model: impl Into<String>) -> Self {
                self.model = model.into();
                self
            }

            #[doc = concat!("The provider's name, as `AiRequestOptions::provider` names it (`", $default_name, "` by default).")]
            ///
            /// ```
            #[doc = concat!("use intent_core::provider::{", stringify!($ty), ", Provider};")]
            #[doc = concat!("assert_eq!(", stringify!($ty), "::new(", stringify!($key), ").with_name(", stringify!($name), ").name(), ", stringify!($name), ");")]
            /// ```
            pub fn with_name(mut self, name: impl Into<String>) -> Self {
                self.name = name.into();
                self
            }

            /// The base URL.
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(", stringify!($key), ");")]
            #[doc = concat!("assert_eq!(provider.base_url(), intent_core::provider::", stringify!($ty), "::DEFAULT_BASE_URL);")]
            /// ```
            pub fn base_url(&self) -> &str {
                &self.base_url
            }

            /// The model asked when a request names none.
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(", stringify!($key), ");")]
            #[doc = concat!("assert_eq!(provider.model(), intent_core::provider::", stringify!($ty), "::DEFAULT_MODEL);")]
            /// ```
            pub fn model(&self) -> &str {
                &self.model
            }
        }
    };
}

pub(crate) use endpoint_settings;

/// The [`Provider`](super::Provider) methods every HTTP provider implements alike, inside its
/// `impl Provider`: `name` and `default_model` from its fields, `complete` by its own `send`; with
/// `stream, batch`, also `stream` by its module `stream` and `batch_client` by its own `batch`.
macro_rules! provider_identity {
    (stream, batch) => {
        $crate::provider::http_provider::provider_identity!();

        fn stream<'a>(
            &'a self,
            request: &'a $crate::request::AiRequest,
        ) -> $crate::provider::PieceStream<'a> {
            stream::stream(self, request)
        }

        fn batch_client(&self) -> Option<$crate::provider::BatchClient<'_>> {
            self.batch()
        }
    };
    () => {
        fn name(&self) -> &str {
            &self.name
        }

        fn default_model(&self) -> Option<&str> {
            Some(&self.model)
        }

        fn complete<'a>(
            &'a self,
            request: &'a $crate::request::AiRequest,
        ) -> $crate::provider::BoxFuture<
            'a,
            Result<$crate::provider::AiResponse, $crate::provider::ProviderError>,
        > {
            Box::pin(self.send(request))
        }
    };
}

pub(crate) use provider_identity;

/// A provider's `Debug`: its name, base URL (without user info or query), model and key (shown
/// as redacted), then the `extra` fields named, then its transport settings.
macro_rules! debug_provider {
    ($ty:ident { $($extra:ident),* $(,)? }) => {
        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("name", &self.name)
                    .field(
                        "base_url",
                        &$crate::provider::transport::display_url(&self.base_url),
                    )
                    .field("model", &self.model)
                    .field("api_key", &self.key)
                    $(.field(stringify!($extra), &self.$extra))*
                    .field("transport", &self.transport)
                    .finish()
            }
        }
    };
}

pub(crate) use debug_provider;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_without_its_answer_names_the_error_it_carries() {
        let error = serde_json::json!({"message": "overloaded", "type": "x"});
        let with = no_answer(Some(&error), "content", "the reply has no content");
        assert_eq!(
            with.message,
            "the reply carries an error instead of content: overloaded"
        );
        assert_eq!(with.kind, ProviderErrorKind::Decode);
        let without = no_answer(None, "content", "the reply has no content");
        assert_eq!(without.message, "the reply has no content");
    }

    #[test]
    fn a_body_without_extra_fields_is_written_as_it_is_and_one_with_them_once() {
        #[derive(serde::Serialize)]
        struct Body {
            b: u8,
            a: u8,
        }
        let mut request = AiRequest::new("s", "u");
        let plain = request_body(&Body { b: 1, a: 2 }, &request, "p").unwrap();
        assert_eq!(plain, br#"{"b":1,"a":2}"#);
        let extra = serde_json::json!({"a": 3, "c": 4});
        request.extra_body = Some(std::sync::Arc::new(extra.as_object().unwrap().clone()));
        let merged = request_body(&Body { b: 1, a: 2 }, &request, "p").unwrap();
        assert_eq!(merged, br#"{"b":1,"a":3,"c":4}"#);
    }

    #[test]
    fn the_answering_model_is_the_one_named_unless_blank() {
        assert_eq!(answering_model(Some("m".into()), "sent"), "m");
        assert_eq!(answering_model(Some(String::new()), "sent"), "sent");
        assert_eq!(answering_model(None, "sent"), "sent");
    }

    #[test]
    fn a_key_header_is_sensitive_and_a_bad_key_is_refused() {
        assert!(key_header_value("sk-1", "p").unwrap().is_sensitive());
        let error = key_header_value("bad\nkey", "p").unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Config);
        assert!(!error.message.contains("bad"), "{}", error.message);
    }
}

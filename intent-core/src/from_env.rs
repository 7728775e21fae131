//! [`IntentClient::from_env`]: a client of the providers the environment configures.
//!
//! The providers are tried in the order of [`ENV_PROVIDERS`]: the first configured one is the
//! primary, the others its fallbacks. A provider counts as configured when any of its variables
//! is set and not blank; it is then built by its own `from_env`, whose error (a base URL that is
//! not a URL, say) is returned rather than skipped.

use std::sync::Arc;

use crate::client::IntentClient;
use crate::error::IntentError;
use crate::provider::{AnthropicProvider, GeminiProvider, OpenAiProvider, Provider};

/// A provider that can be configured by environment variables.
struct EnvProvider {
    /// The provider's name, as `AiRequestOptions::provider` names it.
    name: &'static str,
    /// Any of these set (and not blank) configures the provider.
    variables: &'static [&'static str],
    /// Builds the provider from the environment.
    build: fn() -> Result<Arc<dyn Provider>, IntentError>,
}

fn shared<P: Provider + 'static>(provider: P) -> Arc<dyn Provider> {
    Arc::new(provider)
}

/// The providers [`IntentClient::from_env`] looks for, in order of preference.
const ENV_PROVIDERS: &[EnvProvider] = &[
    EnvProvider {
        name: "openai",
        variables: &["OPENAI_API_KEY", "OPENAI_BASE_URL"],
        build: || OpenAiProvider::from_env().map(shared),
    },
    EnvProvider {
        name: "anthropic",
        variables: &["ANTHROPIC_API_KEY"],
        build: || AnthropicProvider::from_env().map(shared),
    },
    EnvProvider {
        name: "gemini",
        variables: &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
        build: || GeminiProvider::from_env().map(shared),
    },
    // A cloud is chosen by its own variables, not by AWS_REGION or GOOGLE_CLOUD_PROJECT alone,
    // which many programs set for other services.
    #[cfg(feature = "bedrock")]
    EnvProvider {
        name: "bedrock",
        variables: &["BEDROCK_MODEL", "BEDROCK_BASE_URL"],
        build: || crate::provider::BedrockProvider::from_env().map(shared),
    },
    #[cfg(feature = "vertex")]
    EnvProvider {
        name: "vertex",
        variables: &["GOOGLE_VERTEX_PROJECT", "VERTEX_MODEL", "VERTEX_BASE_URL"],
        build: || crate::provider::VertexProvider::from_env().map(shared),
    },
];

/// The providers configured by the variables `lookup` finds, in order; or the error naming every
/// variable that would configure one.
fn configured(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<&'static EnvProvider>, IntentError> {
    let set = |name: &str| lookup(name).is_some_and(|value| !value.trim().is_empty());
    let found: Vec<&EnvProvider> = ENV_PROVIDERS
        .iter()
        .filter(|provider| provider.variables.iter().any(|v| set(v)))
        .collect();
    if found.is_empty() {
        let variables: Vec<String> = ENV_PROVIDERS
            .iter()
            .map(|p| format!("{} ({})", p.variables.join(" or "), p.name))
            .collect();
        return Err(IntentError::Config(format!(
            "no provider is configured in the environment; set {}",
            variables.join(", or ")
        )));
    }
    Ok(found)
}

impl IntentClient {
    /// A client of the providers configured in the environment: OpenAI (`OPENAI_API_KEY`, or
    /// `OPENAI_BASE_URL` for a compatible server that needs no key), then Anthropic
    /// (`ANTHROPIC_API_KEY`), then Gemini (`GEMINI_API_KEY` or `GOOGLE_API_KEY`), then with the
    /// feature `bedrock` Amazon Bedrock (`BEDROCK_MODEL` or `BEDROCK_BASE_URL`; the region and
    /// credentials from AWS's variables and chain) and with `vertex` Google Vertex AI
    /// (`GOOGLE_VERTEX_PROJECT`, `VERTEX_MODEL` or `VERTEX_BASE_URL`); the first configured is the
    /// primary, the others are fallbacks in that order. Each reads its own other variables (`OPENAI_MODEL`, `ANTHROPIC_BASE_URL`, …).
    ///
    /// # Errors
    ///
    /// [`IntentError::Config`] naming the variables when none is set, or a provider's own
    /// configuration error.
    ///
    /// ```no_run
    /// use intent_core::IntentClient;
    ///
    /// let client = IntentClient::from_env()?;
    /// println!("asking {:?}", client.provider_names());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<IntentClient, IntentError> {
        let mut builder = IntentClient::builder();
        for (i, provider) in Self::providers_from_env()?.into_iter().enumerate() {
            builder = if i == 0 {
                builder.provider(provider)
            } else {
                builder.fallback(provider)
            };
        }
        builder.build()
    }

    /// The providers [`from_env`](Self::from_env) would use, primary first: to wrap them (in a
    /// [`RecordingProvider`](crate::testing::RecordingProvider), say) or to build a client with
    /// other options.
    ///
    /// # Errors
    ///
    /// As [`from_env`](Self::from_env).
    ///
    /// ```no_run
    /// use intent_core::{IntentClient, IntentClientOptions};
    ///
    /// let mut builder = IntentClient::builder().options(IntentClientOptions { max_attempts: 2, ..Default::default() });
    /// for (i, provider) in IntentClient::providers_from_env()?.into_iter().enumerate() {
    ///     builder = if i == 0 { builder.provider(provider) } else { builder.fallback(provider) };
    /// }
    /// let client = builder.build()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn providers_from_env() -> Result<Vec<Arc<dyn Provider>>, IntentError> {
        configured(|name| std::env::var(name).ok())?
            .into_iter()
            .map(|provider| (provider.build)())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn names(vars: &[(&str, &str)]) -> Result<Vec<&'static str>, String> {
        let vars: HashMap<&str, &str> = vars.iter().copied().collect();
        configured(|name| vars.get(name).map(|v| (*v).to_owned()))
            .map(|found| found.iter().map(|p| p.name).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_first_configured_provider_is_the_primary() {
        assert_eq!(names(&[("ANTHROPIC_API_KEY", "a")]), Ok(vec!["anthropic"]));
        assert_eq!(
            names(&[("ANTHROPIC_API_KEY", "a"), ("OPENAI_API_KEY", "o")]),
            Ok(vec!["openai", "anthropic"])
        );
        assert_eq!(
            names(&[("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]),
            Ok(vec!["openai"])
        );
        assert_eq!(
            names(&[("GOOGLE_API_KEY", "g"), ("ANTHROPIC_API_KEY", "a")]),
            Ok(vec!["anthropic", "gemini"])
        );
    }

    #[test]
    fn no_configured_provider_names_every_variable() {
        let error = names(&[("OPENAI_API_KEY", "  "), ("OPENAI_MODEL", "gpt-4o")]).unwrap_err();
        // The clouds follow, with their features.
        assert!(
            error.starts_with("configuration: no provider is configured in the environment; set OPENAI_API_KEY or OPENAI_BASE_URL (openai), or ANTHROPIC_API_KEY (anthropic), or GEMINI_API_KEY or GOOGLE_API_KEY (gemini)"),
            "{error}"
        );
        #[cfg(feature = "bedrock")]
        assert!(
            error.contains("BEDROCK_MODEL or BEDROCK_BASE_URL (bedrock)"),
            "{error}"
        );
        #[cfg(feature = "vertex")]
        assert!(
            error.contains("GOOGLE_VERTEX_PROJECT or VERTEX_MODEL or VERTEX_BASE_URL (vertex)"),
            "{error}"
        );
    }

    #[test]
    fn every_provider_names_its_variables_once() {
        let mut all: Vec<&str> = ENV_PROVIDERS
            .iter()
            .flat_map(|p| p.variables.iter().copied())
            .collect();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count);
    }
}

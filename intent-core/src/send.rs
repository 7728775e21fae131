//! Sending a request: the named provider, or the primary and then each fallback in turn.

use std::sync::Arc;

use crate::client::IntentClient;
use crate::provider::{AiResponse, Provider, ProviderError, ProviderErrorKind};
use crate::request::AiRequest;

/// Sends a request to the named provider, or to the primary and then each fallback in turn.
///
/// Returns the answering provider's name with its reply, or the last provider's error.
pub(crate) async fn send(
    client: &IntentClient,
    request: &AiRequest,
    named: Option<&str>,
) -> Result<(String, AiResponse), ProviderError> {
    let providers = client.providers();
    if let Some(name) = named {
        let Some(provider) = providers.iter().find(|p| p.name() == name) else {
            let known: Vec<&str> = providers.iter().map(|p| p.name()).collect();
            return Err(ProviderError::new(
                ProviderErrorKind::Config,
                format!(
                    "no provider named \"{name}\"; this client has: {}",
                    known.join(", ")
                ),
            ));
        };
        return complete(provider, request).await;
    }
    let mut last_error = None;
    for (index, provider) in providers.iter().enumerate() {
        match complete(provider, request).await {
            Ok(answer) => return Ok(answer),
            Err(error) => {
                if index + 1 < providers.len() {
                    tracing::warn!(
                        provider = provider.name(),
                        error = %error,
                        "provider failed; asking the fallback"
                    );
                }
                last_error = Some(error);
            }
        }
    }
    Err(last_error.unwrap_or_else(|| {
        ProviderError::new(ProviderErrorKind::Config, "the client has no provider")
    }))
}

async fn complete(
    provider: &Arc<dyn Provider>,
    request: &AiRequest,
) -> Result<(String, AiResponse), ProviderError> {
    let name = provider.name().to_owned();
    match provider.complete(request).await {
        Ok(response) => Ok((name, response)),
        Err(error) => {
            let error = if error.provider.is_empty() {
                error.with_provider(name)
            } else {
                error
            };
            Err(error)
        }
    }
}

//! The sampling fields of a request (`seed`, `top_p`, stop sequences) as each provider's body
//! names them, and the `extra_body` fields written over a finished body.
//!
//! | field | OpenAI Chat Completions | OpenAI Responses | Anthropic Messages | Gemini `generateContent` |
//! |---|---|---|---|---|
//! | seed | `seed` | refused: the API has none | refused: the API has none | `generationConfig.seed` (32-bit) |
//! | top_p | `top_p` | `top_p` | `top_p` | `generationConfig.topP` |
//! | stop | `stop`, at most 4 | refused: the API has none | `stop_sequences` | `generationConfig.stopSequences`, at most 5 |
//!
//! A field a provider cannot take is refused before anything is sent, with an
//! [`InvalidRequest`](crate::provider::ProviderErrorKind::InvalidRequest) error that names the
//! field, rather than dropped: a seed silently ignored would make replies look reproducible
//! when they are not. Sources: the OpenAI API reference (Create chat completion: `seed`, `stop`
//! "up to 4 sequences", `top_p`; Create a model response: `top_p`, no seed or stop), the
//! Anthropic Messages reference (`top_p`, `stop_sequences`; no seed), and the Gemini
//! `GenerationConfig` reference (`seed`: integer, `topP`, `stopSequences`: "up to 5").

use serde::Serialize;

use super::{ProviderError, ProviderErrorKind};
use crate::request::AiRequest;

/// The most stop sequences OpenAI Chat Completions takes.
const OPENAI_MAX_STOP: usize = 4;

/// The most stop sequences Gemini takes.
const GEMINI_MAX_STOP: usize = 5;

fn refuse(provider: &str, message: String) -> ProviderError {
    ProviderError::new(ProviderErrorKind::InvalidRequest, message).with_provider(provider)
}

/// Refuses a field the API does not take, when the request sets it (`set`).
fn absent(set: bool, provider: &str, message: &str) -> Result<(), ProviderError> {
    if set {
        return Err(refuse(provider, message.into()));
    }
    Ok(())
}

fn at_most(
    request: &AiRequest,
    limit: usize,
    api: &str,
    provider: &str,
) -> Result<(), ProviderError> {
    if request.stop.len() > limit {
        return Err(refuse(
            provider,
            format!(
                "{api} takes at most {limit} stop sequences; the request has {}",
                request.stop.len()
            ),
        ));
    }
    Ok(())
}

fn stop(request: &AiRequest) -> Option<&[String]> {
    (!request.stop.is_empty()).then_some(request.stop.as_slice())
}

/// OpenAI Chat Completions' sampling fields, flattened into its body.
#[derive(Serialize, Default, Debug)]
pub(crate) struct ChatSampling<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop: Option<&'a [String]>,
}

/// The sampling fields of `request` for OpenAI Chat Completions.
/// `top_p` is the request's as the model's plan keeps it (`provider::plan`).
pub(crate) fn chat<'a>(
    request: &'a AiRequest,
    top_p: Option<f32>,
    provider: &str,
) -> Result<ChatSampling<'a>, ProviderError> {
    at_most(
        request,
        OPENAI_MAX_STOP,
        "OpenAI Chat Completions",
        provider,
    )?;
    Ok(ChatSampling {
        seed: request.seed,
        top_p,
        stop: stop(request),
    })
}

/// The OpenAI Responses API's sampling fields, flattened into its body.
#[derive(Serialize, Default, Debug)]
pub(crate) struct ResponsesSampling {
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
}

/// The sampling fields of `request` for the OpenAI Responses API, which takes no seed and no stop
/// sequences; `top_p` as the model's plan keeps it.
pub(crate) fn responses(
    request: &AiRequest,
    top_p: Option<f32>,
    provider: &str,
) -> Result<ResponsesSampling, ProviderError> {
    absent(
        request.seed.is_some(),
        provider,
        "the OpenAI Responses API takes no seed; leave `seed` unset, or use Chat Completions",
    )?;
    absent(
        !request.stop.is_empty(),
        provider,
        "the OpenAI Responses API takes no stop sequences; leave `stop` empty, or use Chat Completions",
    )?;
    Ok(ResponsesSampling { top_p })
}

/// Anthropic Messages' sampling fields, flattened into its body.
#[derive(Serialize, Default, Debug)]
pub(crate) struct AnthropicSampling<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_sequences: Option<&'a [String]>,
}

/// The sampling fields of `request` for Anthropic Messages, which takes no seed.
/// `top_p` as the model's plan keeps it.
pub(crate) fn anthropic<'a>(
    request: &'a AiRequest,
    top_p: Option<f32>,
    provider: &str,
) -> Result<AnthropicSampling<'a>, ProviderError> {
    absent(
        request.seed.is_some(),
        provider,
        "Anthropic's Messages API takes no seed; leave `seed` unset for this provider",
    )?;
    Ok(AnthropicSampling {
        top_p,
        stop_sequences: stop(request),
    })
}

/// Gemini's sampling fields, flattened into its `generationConfig`.
#[derive(Serialize, Default, Debug)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GeminiSampling<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_sequences: Option<&'a [String]>,
}

/// The sampling fields of `request` for Gemini, whose seed is a 32-bit integer.
/// `top_p` as the model's plan keeps it.
pub(crate) fn gemini<'a>(
    request: &'a AiRequest,
    top_p: Option<f32>,
    provider: &str,
) -> Result<GeminiSampling<'a>, ProviderError> {
    at_most(request, GEMINI_MAX_STOP, "Gemini", provider)?;
    let seed = match request.seed {
        None => None,
        Some(seed) => Some(i32::try_from(seed).map_err(|_| {
            refuse(
                provider,
                format!(
                    "Gemini takes a seed of at most {}; the request asks for {seed}",
                    i32::MAX
                ),
            )
        })?),
    };
    Ok(GeminiSampling {
        seed,
        top_p,
        stop_sequences: stop(request),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_a_provider_cannot_take_are_refused_by_name() {
        let mut request = AiRequest::new("s", "u");
        request.seed = Some(1);
        assert!(anthropic(&request, None, "claude")
            .unwrap_err()
            .to_string()
            .contains("no seed"));
        assert!(responses(&request, None, "oai")
            .unwrap_err()
            .to_string()
            .contains("no seed"));
        request.seed = Some(u64::from(u32::MAX));
        assert!(gemini(&request, None, "g")
            .unwrap_err()
            .to_string()
            .contains("at most 2147483647"));
        request.seed = None;
        request.stop = (0..5).map(|i| i.to_string()).collect();
        assert!(chat(&request, None, "oai")
            .unwrap_err()
            .to_string()
            .contains("at most 4 stop sequences; the request has 5"));
        assert!(gemini(&request, None, "g").is_ok());
        assert!(responses(&request, None, "oai")
            .unwrap_err()
            .to_string()
            .contains("no stop sequences"));
    }
}

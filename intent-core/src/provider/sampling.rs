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

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{ProviderError, ProviderErrorKind};
use crate::request::AiRequest;

/// How one API's body takes a sampling field: under a name, up to a largest value (a seed) or
/// count (stop sequences), or not at all (the refusal's text).
#[derive(Debug, Clone, Copy)]
enum Field<Max> {
    Named(&'static str, Max),
    Refused(&'static str),
}

/// One API's row of the table above: the names its body gives the sampling fields and its limits.
#[derive(Debug)]
pub(crate) struct SamplingWire {
    /// The API's name in a refusal.
    api: &'static str,
    /// The seed's name and the largest seed the API's integer holds.
    seed: Field<u64>,
    top_p: &'static str,
    /// The stop sequences' name and the most of them the API takes.
    stop: Field<usize>,
}

/// OpenAI Chat Completions: `seed`, `top_p`, `stop` (at most 4).
pub(crate) const CHAT: SamplingWire = SamplingWire {
    api: "OpenAI Chat Completions",
    seed: Field::Named("seed", u64::MAX),
    top_p: "top_p",
    stop: Field::Named("stop", 4),
};

/// The OpenAI Responses API: `top_p` only.
pub(crate) const RESPONSES: SamplingWire = SamplingWire {
    api: "the OpenAI Responses API",
    seed: Field::Refused(
        "the OpenAI Responses API takes no seed; leave `seed` unset, or use Chat Completions",
    ),
    top_p: "top_p",
    stop: Field::Refused(
        "the OpenAI Responses API takes no stop sequences; leave `stop` empty, or use Chat Completions",
    ),
};

/// Anthropic Messages: `top_p`, `stop_sequences`; no seed.
pub(crate) const ANTHROPIC: SamplingWire = SamplingWire {
    api: "Anthropic's Messages API",
    seed: Field::Refused(
        "Anthropic's Messages API takes no seed; leave `seed` unset for this provider",
    ),
    top_p: "top_p",
    stop: Field::Named("stop_sequences", usize::MAX),
};

/// Gemini's `generationConfig`: a 32-bit `seed`, `topP`, `stopSequences` (at most 5).
pub(crate) const GEMINI: SamplingWire = SamplingWire {
    api: "Gemini",
    seed: Field::Named("seed", i32::MAX as u64),
    top_p: "topP",
    stop: Field::Named("stopSequences", 5),
};

/// The sampling fields of one request as one API names them, flattened into its body (or, for
/// Gemini, its `generationConfig`); a field the request leaves unset is not written.
#[derive(Debug)]
pub(crate) struct SamplingFields<'a> {
    wire: &'static SamplingWire,
    seed: Option<u64>,
    top_p: Option<f32>,
    stop: Option<&'a [String]>,
}

impl SamplingWire {
    /// The sampling fields of `request` for this API, or the refusal of one it cannot take.
    /// `top_p` is the request's as the model's plan keeps it (`provider::plan`).
    pub(crate) fn fields<'a>(
        &'static self,
        request: &'a AiRequest,
        top_p: Option<f32>,
        provider: &str,
    ) -> Result<SamplingFields<'a>, ProviderError> {
        let refuse = |message: String| {
            ProviderError::new(ProviderErrorKind::InvalidRequest, message).with_provider(provider)
        };
        let seed = match (request.seed, self.seed) {
            (Some(_), Field::Refused(why)) => return Err(refuse(why.into())),
            (Some(seed), Field::Named(_, max)) if seed > max => {
                return Err(refuse(format!(
                    "{} takes a seed of at most {max}; the request asks for {seed}",
                    self.api
                )))
            }
            (seed, _) => seed,
        };
        let stop = match (request.stop.as_slice(), self.stop) {
            ([], _) => None,
            (_, Field::Refused(why)) => return Err(refuse(why.into())),
            (stop, Field::Named(_, max)) if stop.len() > max => {
                return Err(refuse(format!(
                    "{} takes at most {max} stop sequences; the request has {}",
                    self.api,
                    stop.len()
                )))
            }
            (stop, Field::Named(..)) => Some(stop),
        };
        Ok(SamplingFields {
            wire: self,
            seed,
            top_p,
            stop,
        })
    }
}

impl Serialize for SamplingFields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let (Some(seed), Field::Named(key, _)) = (self.seed, self.wire.seed) {
            map.serialize_entry(key, &seed)?;
        }
        if let Some(top_p) = self.top_p {
            map.serialize_entry(self.wire.top_p, &top_p)?;
        }
        if let (Some(stop), Field::Named(key, _)) = (self.stop, self.wire.stop) {
            map.serialize_entry(key, stop)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_a_provider_cannot_take_are_refused_by_name() {
        let mut request = AiRequest::new("s", "u");
        request.seed = Some(1);
        assert!(ANTHROPIC
            .fields(&request, None, "claude")
            .unwrap_err()
            .to_string()
            .contains("no seed"));
        assert!(RESPONSES
            .fields(&request, None, "oai")
            .unwrap_err()
            .to_string()
            .contains("no seed"));
        request.seed = Some(u64::from(u32::MAX));
        assert!(GEMINI
            .fields(&request, None, "g")
            .unwrap_err()
            .to_string()
            .contains("Gemini takes a seed of at most 2147483647"));
        request.seed = None;
        request.stop = (0..5).map(|i| i.to_string()).collect();
        assert!(CHAT
            .fields(&request, None, "oai")
            .unwrap_err()
            .to_string()
            .contains("at most 4 stop sequences; the request has 5"));
        assert!(GEMINI.fields(&request, None, "g").is_ok());
        assert!(RESPONSES
            .fields(&request, None, "oai")
            .unwrap_err()
            .to_string()
            .contains("no stop sequences"));
    }
}

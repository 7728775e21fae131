//! OpenAI's streamed events, one decoder per API: Chat Completions chunks (`chat`) and the
//! Responses API's typed events (`responses`). [`OpenAiEvents`] is the one the provider's API
//! reads.

mod chat;
mod responses;

use crate::provider::pieces::{EventDecoder, Pieces};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::ApiKey;
use crate::provider::ProviderError;

use super::OpenAiApi;
pub(crate) use chat::ChatDecoder;
pub(crate) use responses::ResponsesDecoder;

/// The decoder of a streamed reply of either API.
pub(crate) enum OpenAiEvents {
    Chat(ChatDecoder),
    Responses(ResponsesDecoder),
}

impl OpenAiEvents {
    /// The decoder of a reply of `api` to a request for `model`.
    pub(crate) fn new(api: OpenAiApi, model: &str, key: &ApiKey) -> Self {
        match api {
            OpenAiApi::ChatCompletions => OpenAiEvents::Chat(ChatDecoder::new(model, key)),
            OpenAiApi::Responses => OpenAiEvents::Responses(ResponsesDecoder::new(model, key)),
        }
    }
}

impl EventDecoder for OpenAiEvents {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        match self {
            OpenAiEvents::Chat(decoder) => decoder.event(event, pieces),
            OpenAiEvents::Responses(decoder) => decoder.event(event, pieces),
        }
    }

    fn end_marker(&self) -> &'static str {
        match self {
            OpenAiEvents::Chat(decoder) => decoder.end_marker(),
            OpenAiEvents::Responses(decoder) => decoder.end_marker(),
        }
    }
}

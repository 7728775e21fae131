//! A whole vendor, the smallest one: what a new vendor folder holds, compiled and run against a
//! server on 127.0.0.1 so that this example cannot drift from the [`Vendor`] trait.
//!
//! `Plain` speaks a made-up JSON API: `POST {base}/generate` with the key as a bearer token,
//! `{"model", "system", "prompt", "json", "max_tokens", "stream"}` in, `{"model", "output",
//! "stop", "usage": {"in", "out"}}` out; asked to stream, it sends `data: {"delta": "..."}`
//! events and ends with `data: {"stop": "...", "model": "..."}`. A real vendor splits the same
//! pieces over its folder: the type, its settings, `new` and `from_env` in `mod.rs`, the request
//! and reply in `wire.rs`, the attachments in `parts.rs`, the events in `events.rs` and, where
//! the vendor has a batch API, [`VendorBatch`](super::VendorBatch) in `batch.rs`.

use futures::StreamExt as _;
use reqwest::header::{HeaderMap, AUTHORIZATION};
use serde::{Deserialize, Serialize};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::{key_header_value, read_reply, request_body, with_defaults, Call, Defaults};
use super::{HttpProvider, Vendor};
use crate::provider::pieces::{EventDecoder, Pieces, StreamEnd, StreamPiece};
use crate::provider::transport::sse::SseEvent;
use crate::provider::transport::ApiKey;
use crate::provider::{AiResponse, FinishReason, Provider, ProviderError};
use crate::request::{AiRequest, ResponseFormat};
use crate::result::Usage;

/// The vendor's wire and its settings (it has none).
#[derive(Debug, Clone, Default)]
struct Plain;

/// What users name: the generic provider over the vendor.
type PlainProvider = HttpProvider<Plain>;

/// The request body (`wire.rs`).
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    system: &'a str,
    prompt: &'a str,
    json: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    stream: bool,
}

/// The reply read whole (`wire.rs`).
#[derive(Deserialize)]
struct Reply {
    model: Option<String>,
    output: String,
    stop: Option<String>,
    #[serde(default)]
    usage: PlainUsage,
}

#[derive(Deserialize, Default)]
struct PlainUsage {
    #[serde(rename = "in")]
    input: u64,
    #[serde(rename = "out")]
    output: u64,
}

fn finish_reason(stop: Option<&str>) -> FinishReason {
    match stop {
        None | Some("stop") => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

/// The streamed events (`events.rs`).
struct PlainEvents {
    model: String,
}

#[derive(Deserialize)]
struct Event {
    delta: Option<String>,
    stop: Option<String>,
    model: Option<String>,
}

impl EventDecoder for PlainEvents {
    fn event(&mut self, event: SseEvent, pieces: &mut Pieces) -> Result<bool, ProviderError> {
        let event: Event = serde_json::from_str(&event.data).map_err(|e| {
            ProviderError::new(crate::provider::ProviderErrorKind::Decode, e.to_string())
        })?;
        if let Some(delta) = event.delta {
            pieces.push_back(StreamPiece::Text(delta));
        }
        match event.stop {
            None => Ok(false),
            Some(stop) => {
                let model = event.model.unwrap_or_else(|| self.model.clone());
                let end = StreamEnd::new(finish_reason(Some(&stop)), Usage::default(), model);
                pieces.push_back(StreamPiece::End(end));
                Ok(true)
            }
        }
    }

    fn end_marker(&self) -> &'static str {
        "an event with `stop`"
    }
}

impl Vendor for Plain {
    const DEFAULTS: Defaults =
        Defaults::new("plain", "https://plain.invalid/v1", "plain-1").keys(&["PLAIN_API_KEY"]);

    type Events = PlainEvents;

    fn path(&self) -> &str {
        "generate"
    }

    fn headers(&self, key: Option<&str>, provider: &str) -> Result<HeaderMap, ProviderError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert(
                AUTHORIZATION,
                key_header_value(&format!("Bearer {key}"), provider)?,
            );
        }
        Ok(headers)
    }

    fn body(&self, call: Call<'_>, stream: bool) -> Result<Vec<u8>, ProviderError> {
        let request = call.request;
        let body = Body {
            model: call.model,
            system: &request.system,
            prompt: &request.user,
            json: request.format != ResponseFormat::Text,
            max_tokens: request.max_output_tokens,
            stream,
        };
        request_body(&body, request, call.provider)
    }

    fn reply(&self, body: &[u8], model: &str, key: &ApiKey) -> Result<AiResponse, ProviderError> {
        let reply: Reply = read_reply(body, "Plain", key)?;
        let mut response = AiResponse::new(reply.output, reply.model.as_deref().unwrap_or(model));
        response.finish_reason = finish_reason(reply.stop.as_deref());
        response.usage.input_tokens = reply.usage.input;
        response.usage.output_tokens = reply.usage.output;
        Ok(response)
    }

    fn events(&self, model: &str, _key: &ApiKey) -> Option<PlainEvents> {
        Some(PlainEvents {
            model: model.to_owned(),
        })
    }
}

#[tokio::test]
async fn a_vendor_is_its_wire_and_the_generic_provider_does_the_rest() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/generate"))
        .and(header("authorization", "Bearer pk-1"))
        .and(body_partial_json(
            serde_json::json!({"model": "plain-1", "prompt": "Count.", "stream": false}),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "model": "plain-1-2026", "output": "{\"value\": 3}", "stop": "stop",
            "usage": {"in": 12, "out": 4}
        })))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/generate"))
        .and(body_partial_json(serde_json::json!({"stream": true})))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(
                    "data: {\"delta\": \"{\\\"value\\\": \"}\n\n\
                     data: {\"delta\": \"3}\"}\n\n\
                     data: {\"stop\": \"length\", \"model\": \"plain-1-2026\"}\n\n",
                ),
        )
        .mount(&server)
        .await;

    let provider: PlainProvider =
        with_defaults::<Plain>("pk-1").with_base_url(format!("{}/v1", server.uri()));
    let mut request = AiRequest::new("Answer in JSON.", "Count.");
    request.format = ResponseFormat::JsonObject;

    // Whole: the settings, the transport and the Provider methods are the generic provider's.
    let reply = provider.complete(&request).await.unwrap();
    assert_eq!(reply.text, "{\"value\": 3}");
    assert_eq!(reply.model, "plain-1-2026");
    assert_eq!(
        (reply.usage.input_tokens, reply.usage.output_tokens),
        (12, 4)
    );
    assert_eq!(provider.name(), "plain");
    assert!(!format!("{provider:?}").contains("pk-1"));

    // Streamed: the vendor's decoder turns its events into pieces.
    let pieces: Vec<_> = provider.stream(&request).collect().await;
    let pieces: Vec<StreamPiece> = pieces.into_iter().map(Result::unwrap).collect();
    assert_eq!(pieces[0], StreamPiece::Text("{\"value\": ".into()));
    assert_eq!(pieces[1], StreamPiece::Text("3}".into()));
    let StreamPiece::End(end) = &pieces[2] else {
        panic!("no end: {pieces:?}")
    };
    assert_eq!(end.finish_reason, FinishReason::Length);
    assert_eq!(end.model, "plain-1-2026");
}

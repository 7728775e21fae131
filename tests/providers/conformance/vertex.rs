//! The recordings of Anthropic Messages and Gemini `generateContent` that read as recorded
//! ([`super::conforms`]), served as Vertex AI serves those models (`publishers/anthropic/models/
//! {model}:rawPredict` and `:streamRawPredict`, `publishers/google/models/{model}:generateContent`)
//! and read by [`VertexProvider`] with an access token from a metadata server on 127.0.0.1: each
//! must read exactly as through the vendor's own provider, streams read whole and cut at every
//! byte. The request must carry the token, name no `model` in a Messages body and carry Vertex
//! AI's `anthropic_version`.

use std::sync::Arc;
use std::time::Duration;

use intent_core::provider::{Provider, ReplyAssembler, RetryPolicy, VertexProvider};
use intent_core::AiRequest;
use serde_json::Value;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::compare::compare_all;
use super::corpus::{entry_of, Entry, Family, Want, WantError};
use super::replay::{Answer, Delivery, ReplayServer};
use super::run::Outcome;

const TOKEN: &str = "ya29.vertex-conformance-token";

/// A metadata server on 127.0.0.1 that hands out [`TOKEN`] to a request with the right header.
async fn metadata_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(
            "/computeMetadata/v1/instance/service-accounts/default/token",
        ))
        .and(header("metadata-flavor", "Google"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"
        })))
        .mount(&server)
        .await;
    server
}

fn vertex(metadata: &MockServer, base: &str) -> VertexProvider {
    let host = metadata.address().to_string();
    let empty = std::env::temp_dir().join("intent-vertex-no-gcloud");
    intent_core::__internals::vertex_from_vars(&[
        ("GOOGLE_CLOUD_PROJECT", "conformance-project"),
        ("GOOGLE_CLOUD_LOCATION", "us-east5"),
        ("GCE_METADATA_HOST", &host),
        ("CLOUDSDK_CONFIG", empty.to_str().unwrap()),
    ])
    .unwrap()
    .with_base_url(base)
    .with_retry_policy(RetryPolicy::none())
    .with_timeout(Duration::from_secs(30))
}

fn model(entry: &Entry) -> String {
    match (&entry.model, entry.family) {
        (Some(model), _) => model.clone(),
        (None, Family::Anthropic) => "claude-sonnet-4-5".to_owned(),
        _ => "gemini-2.5-flash".to_owned(),
    }
}

/// Why the request does not go where Vertex AI serves `entry`, or does not say what it must.
fn mismatch(
    entry: &Entry,
    target: &str,
    body: &str,
    authorization: Option<&str>,
) -> Option<String> {
    let model = model(entry);
    let publisher = if entry.family == Family::Anthropic {
        "anthropic"
    } else {
        "google"
    };
    let method = match (entry.family, entry.stream) {
        (Family::Anthropic, false) => "rawPredict".to_owned(),
        (Family::Anthropic, true) => "streamRawPredict".to_owned(),
        (_, false) => "generateContent".to_owned(),
        (_, true) => "streamGenerateContent?alt=sse".to_owned(),
    };
    let want = format!(
        "/v1/projects/conformance-project/locations/us-east5/publishers/{publisher}/models/{model}:{method}"
    );
    if target != want {
        return Some(format!("the request went to {target}, not {want}"));
    }
    if authorization != Some(&format!("Bearer {TOKEN}")) {
        return Some(format!("the request's authorization is {authorization:?}"));
    }
    let body: Value = serde_json::from_str(body).unwrap_or_default();
    if entry.family == Family::Anthropic
        && (body.get("model").is_some() || body["anthropic_version"] != "vertex-2023-10-16")
    {
        return Some(format!("the Messages body is not Vertex AI's: {body}"));
    }
    None
}

/// The recording's events framed as the vendor sends them.
fn framed(entry: &Entry) -> Vec<u8> {
    let mut body = Vec::new();
    for event in entry.stream_events() {
        if entry.family == Family::Anthropic {
            let value: Value = serde_json::from_str(&event).unwrap();
            let name = value["type"].as_str().unwrap_or_default().to_owned();
            body.extend_from_slice(format!("event: {name}\ndata: {event}\n\n").as_bytes());
        } else {
            body.extend_from_slice(format!("data: {event}\r\n\r\n").as_bytes());
        }
    }
    body
}

/// Reads `file` through Vertex AI: whole, and for a stream cut at every byte.
async fn reads_as_recorded(file: &'static str) {
    let entry = entry_of(file);
    let outcome = match entry.error() {
        Some(error) => Outcome::Error(WantError::of(error)),
        None => Outcome::Reply(Want::of(entry)),
    };
    let status = match &outcome {
        Outcome::Error(error) => error.status,
        _ => 200,
    };
    let (body, content_type, deliveries) = if entry.stream {
        let body = framed(entry);
        let len = body.len();
        (
            body,
            "text/event-stream",
            vec![Delivery::Whole, Delivery::Cuts((1..len).collect())],
        )
    } else {
        (
            entry.response_body().to_string().into_bytes(),
            "application/json",
            vec![Delivery::Whole],
        )
    };
    let metadata = metadata_server().await;
    let body = Arc::new(body);
    let plan = deliveries.clone();
    let server = ReplayServer::start(move |n, request| {
        let authorization = request.header("authorization");
        match mismatch(entry, &request.target, &request.body, authorization) {
            Some(why) => Answer::refusal(why),
            None => Answer {
                status,
                content_type,
                body: body.clone(),
                delivery: plan[n % plan.len()].clone(),
            },
        }
    })
    .await;
    let provider = vertex(&metadata, &server.base);
    let mut request = AiRequest::new("You are terse.", "Answer the question.");
    request.model = Some(model(entry));
    for delivery in &deliveries {
        let reply = if entry.stream {
            ReplyAssembler::collect(provider.stream(&request)).await
        } else {
            provider.complete(&request).await
        };
        let failures = compare_all(&[reply], &outcome);
        assert!(
            failures.is_empty(),
            "{file} through Vertex AI ({delivery:?}):\n  - {}",
            failures.join("\n  - ")
        );
    }
    // One token served every request.
    assert_eq!(
        metadata.received_requests().await.unwrap().len(),
        1,
        "{file}"
    );
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn anthropic_and_gemini_recordings_read_through_vertex_as_through_their_vendors() {
    let files: Vec<&'static str> = super::conforms::FILES
        .iter()
        .map(|(file, _)| *file)
        .filter(|file| {
            let family = entry_of(file).family;
            family == Family::Anthropic || family == Family::Gemini
        })
        .collect();
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        reads_as_recorded(file).await;
    }
}

//! The capability table walked whole (`intent_core::__internals::capabilities`, the README's
//! provider table): every option and request form set on every provider and API, against a
//! server on 127.0.0.1, lands where its cell says: on the wire at the cell's field, refused before
//! anything is sent (naming the option), or left out with a notice naming it
//! (`Provider::notices`, what the attempt's record carries). No option is dropped in silence.
//! Every body sent is compared field by field with the fields of requests the real API accepted
//! (`conformance::requests`: pydantic-ai's cassettes, vendor fixtures, the vendors' references).
//!
//! The cloud columns (Amazon Bedrock, Gemini and Claude on Vertex AI) are walked in `cloud`,
//! built with the features `bedrock` and `vertex`: Bedrock signs with fixed keys, Vertex AI
//! takes its access token from a metadata server on 127.0.0.1.

use std::sync::Arc;
use std::time::Duration;

use intent_core::__internals::capabilities::{
    Api, Cell, Kind, Outcome, Row, Wire, OWN_APIS, TABLE,
};
use intent_core::provider::{
    AiResponse, AnthropicProvider, GeminiProvider, OpenAiApi, OpenAiProvider, Provider,
    ProviderError, ReplyAssembler,
};
use intent_core::provider::{RequestTools, ToolDefinition};
use intent_core::{AiRequest, ReasoningEffort, ResponseFormat};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::conformance::requests::{anthropic, field_defects, gemini, openai, Field};
use intent_tests::wire::{body_of, sent};

/// The fields requests to `api` were seen accepted with; `None` for Bedrock's Converse, of which
/// no recorded request is at hand (its bodies are checked in `bedrock.rs`).
fn accepted(api: Api) -> Option<&'static [Field]> {
    match api.own() {
        Api::OpenAiChat => Some(openai::CHAT),
        Api::OpenAiResponses => Some(openai::RESPONSES),
        Api::Anthropic => Some(anthropic::MESSAGES),
        Api::Gemini => Some(gemini::GENERATE),
        _ => None,
    }
}

/// The provider of `api` at `server`, retrying nothing.
async fn provider(api: Api, server: &MockServer) -> Box<dyn Provider> {
    let timeout = Duration::from_secs(10);
    match api {
        Api::Bedrock | Api::VertexGemini | Api::VertexClaude => cloud::provider(api, server).await,
        Api::OpenAiChat | Api::OpenAiResponses => Box::new(
            OpenAiProvider::new("sk-walk")
                .with_base_url(format!("{}/v1", server.uri()))
                .with_api(if api == Api::OpenAiChat {
                    OpenAiApi::ChatCompletions
                } else {
                    OpenAiApi::Responses
                })
                .with_max_retries(0)
                .with_timeout(timeout),
        ),
        Api::Anthropic => Box::new(
            AnthropicProvider::new("sk-ant-walk")
                .with_base_url(server.uri())
                .with_max_retries(0)
                .with_timeout(timeout),
        ),
        Api::Gemini => Box::new(
            GeminiProvider::new("AIza-walk")
                .with_base_url(server.uri())
                .with_max_retries(0)
                .with_timeout(timeout),
        ),
    }
}

/// A request with the row's option set (or its form), for `model`.
fn request(kind: Kind, model: Option<&str>) -> AiRequest {
    let mut request = AiRequest::new(
        "You are terse.",
        "## Intent\nCount the fruit.\n\n## Input (text)\n2 apples",
    );
    request.model = model.map(str::to_owned);
    match kind {
        Kind::Option("max_output_tokens") => request.max_output_tokens = Some(300),
        Kind::Option("temperature") => request.temperature = Some(0.5),
        Kind::Option("top_p") => request.top_p = Some(0.96),
        Kind::Option("seed") => request.seed = Some(7),
        Kind::Option("stop") => request.stop = vec!["END".into()],
        Kind::Option("reasoning_effort") => request.reasoning_effort = Some(ReasoningEffort::Low),
        Kind::Option("thinking_budget") => request.thinking_budget = Some(2048),
        Kind::Option("prompt_caching") => request.prompt_caching = true,
        Kind::Option("logprobs") => request.logprobs = true,
        Kind::Option("extra_body") => {
            let extra = json!({"extra_field": 1});
            request.extra_body = Some(Arc::new(extra.as_object().unwrap().clone()));
        }
        Kind::Request("strict schema") => {
            request = request.with_format(
                ResponseFormat::JsonSchema,
                Some(json!({
                    "type": "object",
                    "properties": {"value": {"type": "integer"}},
                    "required": ["value"],
                    "additionalProperties": false
                })),
            );
        }
        Kind::Request("JSON object") => {
            request = request.with_format(ResponseFormat::JsonObject, None);
        }
        Kind::Request("tools") => {
            let parameters = json!({
                "type": "object",
                "properties": {"order": {"type": "string"}},
                "required": ["order"],
                "additionalProperties": false
            });
            let lookup = ToolDefinition::new("lookup_order", "Finds an order.", parameters);
            request.tools = Some(Arc::new(RequestTools::new(vec![lookup])));
        }
        Kind::Request("`.stream()`") => {}
        other => panic!("the walk does not know how to set {other:?}: teach it"),
    }
    request
}

/// What makes a cell's exception happen beyond its model: the values some refusals are about.
fn trigger(kind: Kind, api: Api, request: &mut AiRequest) {
    match (kind, api) {
        (Kind::Option("max_output_tokens"), Api::OpenAiResponses) => {
            request.max_output_tokens = Some(8);
        }
        (Kind::Option("temperature"), Api::Anthropic | Api::VertexClaude | Api::Bedrock) => {
            request.thinking_budget = Some(2048)
        }
        (Kind::Option("top_p"), Api::Anthropic | Api::VertexClaude) => {
            request.model = Some("claude-haiku-4-5".into());
            request.temperature = Some(0.5);
        }
        _ => {}
    }
}

/// The option's name as refusals and notices name it.
fn name(kind: Kind) -> &'static str {
    match kind {
        Kind::Option(name) | Kind::Request(name) | Kind::Reply(name) => name,
    }
}

/// What reached the server for `request`, and the provider's outcome.
struct Walked {
    outcome: Result<AiResponse, ProviderError>,
    /// The target (path and query) and body of the one request sent, if one was.
    sent: Option<(String, Value)>,
    notices: Vec<String>,
}

async fn walk(api: Api, request: &AiRequest, stream: bool) -> Walked {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(
            json!({"error": {"message": "captured", "type": "invalid_request_error"}}),
        ))
        .mount(&server)
        .await;
    let provider = provider(api, &server).await;
    let outcome = if stream {
        ReplyAssembler::collect(provider.stream(request)).await
    } else {
        provider.complete(request).await
    };
    // Vertex AI's token is fetched from the same server with a GET: the walk counts the POSTs.
    let requests: Vec<_> = sent(&server)
        .await
        .into_iter()
        .filter(|r| r.method.as_str() == "POST")
        .collect();
    assert!(
        requests.len() <= 1,
        "{api:?}: sent {} requests",
        requests.len()
    );
    // `extra_body`'s fields are the caller's own, as they chose them.
    if let Some(request) = requests.first().filter(|_| request.extra_body.is_none()) {
        let mut body = body_of(request);
        if api == Api::VertexClaude {
            // Vertex AI's own field, checked in `conformance::vertex`.
            body.as_object_mut().map(|b| b.remove("anthropic_version"));
        }
        let defects = accepted(api).map_or_else(Vec::new, |fields| field_defects(&body, fields));
        assert!(
            defects.is_empty(),
            "{}: the body has fields no recorded request or reference shows:\n  - {}",
            api.heading(),
            defects.join("\n  - ")
        );
    }
    let sent = requests.first().map(|r| {
        let target = match r.url.query() {
            Some(query) => format!("{}?{query}", r.url.path()),
            None => r.url.path().to_owned(),
        };
        (target, body_of(r))
    });
    let notices = provider
        .notices(request)
        .into_iter()
        .map(|n| n.message)
        .collect();
    Walked {
        outcome,
        sent,
        notices,
    }
}

/// Whether `at` (a JSON pointer, or an endpoint's tail) is in what was sent.
fn on_wire(wire: &Wire, target: &str, body: &Value) -> bool {
    if wire.is_endpoint() {
        target.ends_with(wire.at)
    } else {
        body.pointer(wire.at).is_some_and(|v| !v.is_null())
    }
}

/// The differences between what `row`'s cell of `api` says and what the provider did.
async fn check(row: &Row, api: Api) -> Vec<String> {
    let cell: &Cell = row.cell(api);
    let option = name(row.kind);
    let stream = row.kind == Kind::Request("`.stream()`");
    let mut failures = Vec::new();
    let tag = format!("{option} on {}", api.heading());
    if let Some(wire) = cell.wire.filter(|w| !w.at.is_empty()) {
        let walked = walk(api, &request(row.kind, wire.model), stream).await;
        match &walked.sent {
            Some((target, body)) if on_wire(&wire, target, body) => {}
            Some((target, body)) => failures.push(format!(
                "{tag}: {} is not on the wire (POST {target}): {body}",
                wire.at
            )),
            None => failures.push(format!(
                "{tag}: nothing was sent: {:?}",
                walked.outcome.err()
            )),
        }
        let left_out = format!("`{option}` was not sent");
        if let Some(notice) = walked.notices.iter().find(|n| n.starts_with(&left_out)) {
            failures.push(format!("{tag}: sent, yet noticed as left out: {notice}"));
        }
    }
    if let Some(unless) = cell.unless {
        let model = unless.model.or_else(|| cell.wire.and_then(|w| w.model));
        let mut request = request(row.kind, model);
        trigger(row.kind, api, &mut request);
        let walked = walk(api, &request, stream).await;
        match unless.outcome {
            Outcome::Refused => match (&walked.sent, &walked.outcome) {
                (None, Err(error)) if error.message.contains(option) => {}
                (None, Err(error)) => failures.push(format!(
                    "{tag}: refused, but the error does not name it: {}",
                    error.message
                )),
                (Some((target, _)), _) => failures.push(format!(
                    "{tag}: must be refused before sending ({}), yet POST {target} went out",
                    unless.when
                )),
                (None, Ok(_)) => failures.push(format!("{tag}: a reply with nothing sent")),
            },
            Outcome::Noticed => {
                if let (Some(wire), Some((target, body))) = (cell.wire, &walked.sent) {
                    if on_wire(&wire, target, body) {
                        failures.push(format!(
                            "{tag}: must be left out ({}), yet {} was sent: {body}",
                            unless.when, wire.at
                        ));
                    }
                }
                if walked.sent.is_none() {
                    failures.push(format!(
                        "{tag}: must be left out with a notice, yet nothing was sent: {:?}",
                        walked.outcome.err()
                    ));
                }
                let left_out = format!("`{option}` was not sent");
                if !walked.notices.iter().any(|n| n.starts_with(&left_out)) {
                    failures.push(format!(
                        "{tag}: left out ({}) without a notice naming it; notices: {:?}",
                        unless.when, walked.notices
                    ));
                }
            }
        }
    }
    failures
}

/// Walks every cell of `apis` that a request shows, failing with each difference.
async fn walk_columns(apis: &[Api], at_least: usize) {
    let mut failures = Vec::new();
    let mut walked = 0;
    for row in TABLE {
        if matches!(row.kind, Kind::Reply(_) | Kind::Request("batch run")) {
            continue;
        }
        for &api in apis {
            failures.extend(check(row, api).await);
            walked += 1;
        }
    }
    assert!(walked >= at_least, "only {walked} cells were walked");
    assert!(
        failures.is_empty(),
        "the providers differ from the capability table:\n  - {}",
        failures.join("\n  - ")
    );
}

#[tokio::test]
async fn every_option_on_every_provider_is_sent_refused_or_noticed() {
    walk_columns(&OWN_APIS[..4], 50).await;
}

#[test]
fn a_batch_run_goes_where_the_table_says() {
    let row = TABLE
        .iter()
        .find(|r| r.kind == Kind::Request("batch run"))
        .expect("the table has a batch row");
    let providers: [(Api, Box<dyn Provider>); 4] = [
        (Api::OpenAiChat, Box::new(OpenAiProvider::new("sk-walk"))),
        (
            Api::OpenAiResponses,
            Box::new(OpenAiProvider::new("sk-walk").with_api(OpenAiApi::Responses)),
        ),
        (
            Api::Anthropic,
            Box::new(AnthropicProvider::new("sk-ant-walk")),
        ),
        (Api::Gemini, Box::new(GeminiProvider::new("AIza-walk"))),
    ];
    for (api, provider) in providers {
        let refused = row
            .cell(api)
            .unless
            .is_some_and(|u| u.outcome == Outcome::Refused);
        assert_eq!(provider.batch_client().is_none(), refused, "{api:?}");
    }
}

/// The cloud columns, walked with the features that build their providers.
mod cloud {
    use super::*;

    /// Vertex AI's access token, served by the walk's own server as a metadata server.
    #[cfg(feature = "vertex")]
    const TOKEN: &str = "ya29.capability-walk-token";

    /// The provider of a cloud column at `server`, retrying nothing.
    #[cfg_attr(
        not(any(feature = "bedrock", feature = "vertex")),
        allow(unused_variables)
    )]
    pub(super) async fn provider(api: Api, server: &MockServer) -> Box<dyn Provider> {
        let timeout = Duration::from_secs(10);
        match api {
            #[cfg(feature = "bedrock")]
            Api::Bedrock => Box::new(
                intent_core::provider::BedrockProvider::new()
                    .with_region("us-west-2")
                    .with_base_url(server.uri())
                    .with_credentials("AKIDEXAMPLE", "walk-secret-key", None)
                    .with_retry_policy(intent_core::provider::RetryPolicy::none())
                    .with_timeout(timeout),
            ),
            #[cfg(feature = "vertex")]
            Api::VertexGemini | Api::VertexClaude => {
                use wiremock::matchers::{header, path};
                Mock::given(method("GET"))
                    .and(path(
                        "/computeMetadata/v1/instance/service-accounts/default/token",
                    ))
                    .and(header("metadata-flavor", "Google"))
                    .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                        "access_token": TOKEN, "expires_in": 3599, "token_type": "Bearer"
                    })))
                    .mount(server)
                    .await;
                let host = server.address().to_string();
                let empty = std::env::temp_dir().join("intent-capability-walk-no-gcloud");
                let vertex = intent_core::__internals::vertex_from_vars(&[
                    ("GOOGLE_CLOUD_PROJECT", "walk-project"),
                    ("GOOGLE_CLOUD_LOCATION", "us-east5"),
                    ("GCE_METADATA_HOST", &host),
                    ("CLOUDSDK_CONFIG", empty.to_str().unwrap()),
                ])
                .expect("the walk's Vertex AI settings are complete")
                .with_base_url(server.uri())
                .with_retry_policy(intent_core::provider::RetryPolicy::none())
                .with_timeout(timeout);
                // A cell that names no model is walked with the column's own kind of model.
                Box::new(if api == Api::VertexClaude {
                    vertex.with_model("claude-sonnet-4-5")
                } else {
                    vertex
                })
            }
            other => panic!("{other:?} is walked only with its feature (bedrock, vertex)"),
        }
    }

    #[cfg(feature = "bedrock")]
    #[tokio::test]
    async fn every_option_on_bedrock_is_sent_refused_or_noticed() {
        walk_columns(&[Api::Bedrock], 14).await;
    }

    #[cfg(feature = "vertex")]
    #[tokio::test]
    async fn every_option_on_vertex_ai_is_sent_refused_or_noticed() {
        walk_columns(&[Api::VertexGemini, Api::VertexClaude], 28).await;
    }

    /// Bedrock's cache point follows the system prompt: with none, nothing would be cached, and
    /// the attempt's record says so rather than sending a request that caches nothing.
    #[cfg(feature = "bedrock")]
    #[tokio::test]
    async fn bedrock_prompt_caching_without_a_system_prompt_is_a_notice() {
        let mut request = AiRequest::new("", "## Intent\nCount the fruit.");
        request.prompt_caching = true;
        let server = MockServer::start().await;
        let provider = provider(Api::Bedrock, &server).await;
        let notices = provider.notices(&request);
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0]
                .message
                .starts_with("`prompt_caching` was not sent to bedrock")
                && notices[0].message.contains("nothing would be cached"),
            "{}",
            notices[0].message
        );
        let walked = walk(Api::Bedrock, &request, false).await;
        let (_, body) = walked.sent.expect("the request is sent");
        assert!(body.get("system").is_none(), "{body}");
        assert!(!body.to_string().contains("cachePoint"), "{body}");
        // With a system prompt the cache point is sent, and no notice.
        request.system = Arc::new("You are terse.".to_owned());
        assert!(provider.notices(&request).is_empty());
        let walked = walk(Api::Bedrock, &request, false).await;
        let (_, body) = walked.sent.expect("the request is sent");
        assert_eq!(
            body.pointer("/system/1/cachePoint/type"),
            Some(&json!("default"))
        );
    }

    /// A reasoning effort beside a thinking budget: Converse takes the budget only, and the
    /// effort left out is said on the attempt's record.
    #[cfg(feature = "bedrock")]
    #[tokio::test]
    async fn bedrock_sends_the_thinking_budget_and_notes_the_effort_left_out() {
        let mut request = request(
            Kind::Option("thinking_budget"),
            Some("anthropic.claude-sonnet-4-5-20250929-v1:0"),
        );
        request.reasoning_effort = Some(ReasoningEffort::High);
        let walked = walk(Api::Bedrock, &request, false).await;
        let (_, body) = walked.sent.expect("the request is sent");
        assert_eq!(
            body.pointer("/additionalModelRequestFields/thinking/budget_tokens"),
            Some(&json!(2048))
        );
        assert!(!body.to_string().contains("effort"), "{body}");
        assert_eq!(walked.notices.len(), 1, "{:?}", walked.notices);
        assert!(
            walked.notices[0].starts_with("`reasoning_effort` was not sent to bedrock"),
            "{}",
            walked.notices[0]
        );
    }

    /// The clouds' batch cells say refused: their providers offer no batch client.
    #[cfg(all(feature = "bedrock", feature = "vertex"))]
    #[tokio::test]
    async fn the_clouds_offer_no_batch_run_as_the_table_says() {
        let row = TABLE
            .iter()
            .find(|r| r.kind == Kind::Request("batch run"))
            .expect("the table has a batch row");
        let server = MockServer::start().await;
        for api in [Api::Bedrock, Api::VertexGemini, Api::VertexClaude] {
            let refused = row
                .cell(api)
                .unless
                .is_some_and(|u| u.outcome == Outcome::Refused);
            assert!(refused, "{api:?}");
            assert!(provider(api, &server).await.batch_client().is_none());
        }
    }
}

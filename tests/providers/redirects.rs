//! Redirects never carry a key, a prompt or an input to another origin: a cross-origin redirect is
//! refused with an error naming the status and the target, and the other server receives nothing;
//! a same-origin 307/308 is followed; a same-origin 301/302/303 (which would turn the POST into a
//! GET) is refused. Each origin is a wiremock server on 127.0.0.1 (another port is another origin).

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{AiRequest, Provider, ProviderError, ProviderErrorKind, RetryPolicy};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const KEY: &str = "sk-redirect-test-0123456789";

fn no_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(1),
    }
}

fn chat_reply() -> serde_json::Value {
    json!({
        "model": "gpt-4o-mini",
        "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1}
    })
}

fn messages_reply() -> serde_json::Value {
    json!({
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 1}
    })
}

/// A server answering every request with a success, to show that nothing reaches it.
async fn elsewhere() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat_reply()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat_reply()))
        .mount(&server)
        .await;
    server
}

/// Has `server` answer POSTs to `endpoint` with `template`.
async fn answer(server: &MockServer, endpoint: &str, template: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path(endpoint))
        .respond_with(template)
        .mount(server)
        .await;
}

/// A server redirecting `endpoint` with `status` to `location`.
async fn redirecting(endpoint: &str, status: u16, location: &str) -> MockServer {
    let server = MockServer::start().await;
    let redirect = ResponseTemplate::new(status).insert_header("location", location);
    answer(&server, endpoint, redirect).await;
    server
}

/// A server that redirects `from` with `status` to `to` (a path on itself) and answers `to` with
/// `reply`.
async fn moving(from: &str, status: u16, to: &str, reply: serde_json::Value) -> MockServer {
    let server = MockServer::start().await;
    let redirect = ResponseTemplate::new(status).insert_header("location", to);
    answer(&server, from, redirect).await;
    answer(&server, to, ResponseTemplate::new(200).set_body_json(reply)).await;
    server
}

async fn requests(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap_or_default()
}

fn openai(base: &str) -> OpenAiProvider {
    OpenAiProvider::new(KEY)
        .with_base_url(format!("{base}/v1"))
        .with_retry_policy(no_retries())
}

fn request() -> AiRequest {
    AiRequest::new("the system prompt", "the user's input: order 40 of A-1192")
}

fn assert_refused(error: &ProviderError, status: u16, target: &MockServer) {
    assert_eq!(error.status, Some(status), "{error}");
    assert_eq!(error.kind, ProviderErrorKind::Config, "{error}");
    let host = target.address().to_string();
    let message = error.to_string();
    assert!(message.contains(&format!("HTTP {status}")), "{message}");
    assert!(
        message.contains(&format!("another origin, http://{host}/")),
        "{message}"
    );
    assert!(!message.contains(KEY), "{message}");
}

#[tokio::test]
async fn a_cross_origin_301_307_or_308_is_refused_and_the_other_server_receives_nothing() {
    for status in [301, 302, 303, 307, 308] {
        let other = elsewhere().await;
        let location = format!("{}/v1/chat/completions", other.uri());
        let first = redirecting("/v1/chat/completions", status, &location).await;
        let error = openai(&first.uri()).complete(&request()).await.unwrap_err();
        assert_refused(&error, status, &other);
        assert!(
            requests(&other).await.is_empty(),
            "{status}: the other origin was sent a request"
        );
        // Refused once, not retried: the base URL needs changing.
        assert_eq!(requests(&first).await.len(), 1, "{status}");
    }
}

#[tokio::test]
async fn a_redirect_to_another_host_on_the_same_port_is_another_origin() {
    let first = MockServer::start().await;
    let port = first.address().port();
    // `localhost` is another host than `127.0.0.1`, even on the same port.
    answer(
        &first,
        "/v1/chat/completions",
        ResponseTemplate::new(307).insert_header(
            "location",
            format!("http://localhost:{port}/v1/final/chat/completions"),
        ),
    )
    .await;
    answer(
        &first,
        "/v1/final/chat/completions",
        ResponseTemplate::new(200).set_body_json(chat_reply()),
    )
    .await;
    let error = openai(&first.uri()).complete(&request()).await.unwrap_err();
    assert!(error.to_string().contains("(host localhost)"), "{error}");
    assert_eq!(requests(&first).await.len(), 1);
}

#[tokio::test]
async fn anthropic_gemini_and_a_custom_key_header_are_never_sent_across_origins() {
    for status in [307, 308] {
        // Anthropic's `x-api-key`.
        let other = elsewhere().await;
        let first = redirecting(
            "/v1/messages",
            status,
            &format!("{}/v1/messages", other.uri()),
        )
        .await;
        let anthropic = AnthropicProvider::new(KEY)
            .with_base_url(first.uri())
            .with_retry_policy(no_retries());
        let error = anthropic.complete(&request()).await.unwrap_err();
        assert_refused(&error, status, &other);
        assert!(requests(&other).await.is_empty());
        let sent = &requests(&first).await[0];
        assert_eq!(sent.headers.get("x-api-key").unwrap(), KEY);

        // Gemini's `x-goog-api-key`.
        let endpoint = "/v1beta/models/gemini-2.5-flash:generateContent";
        let other = elsewhere().await;
        let first = redirecting(endpoint, status, &format!("{}{endpoint}", other.uri())).await;
        let gemini = GeminiProvider::new(KEY)
            .with_base_url(first.uri())
            .with_model("gemini-2.5-flash")
            .with_retry_policy(no_retries());
        let error = gemini.complete(&request()).await.unwrap_err();
        assert_refused(&error, status, &other);
        assert!(requests(&other).await.is_empty());
        assert_eq!(
            requests(&first).await[0]
                .headers
                .get("x-goog-api-key")
                .unwrap(),
            KEY
        );

        // Azure's `api-key`, through `with_key_header`.
        let other = elsewhere().await;
        let location = format!("{}/openai/chat/completions", other.uri());
        let first = redirecting("/openai/chat/completions", status, &location).await;
        let azure = OpenAiProvider::new(KEY)
            .with_base_url(format!("{}/openai", first.uri()))
            .with_key_header("api-key")
            .with_retry_policy(no_retries());
        let error = azure.complete(&request()).await.unwrap_err();
        assert_refused(&error, status, &other);
        assert!(requests(&other).await.is_empty());
        assert_eq!(
            requests(&first).await[0].headers.get("api-key").unwrap(),
            KEY
        );
    }
}

#[tokio::test]
async fn a_same_origin_307_or_308_is_followed_with_its_body_and_key() {
    for status in [307, 308] {
        let server = moving(
            "/v1/chat/completions",
            status,
            "/v2/chat/completions",
            chat_reply(),
        )
        .await;
        let reply = openai(&server.uri()).complete(&request()).await.unwrap();
        assert_eq!(reply.text, "ok");
        let sent = requests(&server).await;
        assert_eq!(sent.len(), 2, "{status}");
        assert_eq!(sent[1].url.path(), "/v2/chat/completions");
        assert_eq!(sent[1].method.as_str(), "POST");
        assert_eq!(
            sent[1].body, sent[0].body,
            "the body is sent again unchanged"
        );
        assert_eq!(
            sent[1].headers.get("authorization").unwrap(),
            &format!("Bearer {KEY}")
        );

        // Anthropic too: `x-api-key` goes along within the origin.
        let server = moving("/v1/messages", status, "/v9/messages", messages_reply()).await;
        let anthropic = AnthropicProvider::new(KEY)
            .with_base_url(server.uri())
            .with_retry_policy(no_retries());
        assert_eq!(anthropic.complete(&request()).await.unwrap().text, "ok");
        let sent = requests(&server).await;
        assert_eq!(sent[1].headers.get("x-api-key").unwrap(), KEY);
    }
}

#[tokio::test]
async fn a_same_origin_301_302_or_303_is_refused_since_it_would_turn_the_post_into_a_get() {
    for status in [301, 302, 303] {
        let server = moving(
            "/v1/chat/completions",
            status,
            "/v2/chat/completions",
            chat_reply(),
        )
        .await;
        // The address answers a GET too: a client that turned the POST into one would get a 200.
        Mock::given(method("GET"))
            .and(path("/v2/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_json(chat_reply()))
            .mount(&server)
            .await;
        let error = openai(&server.uri())
            .complete(&request())
            .await
            .unwrap_err();
        assert_eq!(error.status, Some(status));
        let message = error.to_string();
        assert!(
            message.contains(&format!(
                "redirected the request to {}/v2/chat/completions",
                server.uri()
            )),
            "{message}"
        );
        assert!(message.contains("turn the POST into a GET"), "{message}");
        assert_eq!(requests(&server).await.len(), 1, "{status}");
    }
}

#[tokio::test]
async fn a_same_origin_redirect_loop_ends_after_the_limit() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(307).insert_header("location", "/v1/chat/completions"))
        .mount(&server)
        .await;
    let error = openai(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("more than 5 redirects"),
        "{error}"
    );
    assert_eq!(requests(&server).await.len(), 6);
}

#[tokio::test]
async fn a_refused_redirect_fails_the_call_over_to_the_fallback() {
    let other = elsewhere().await;
    let first = redirecting(
        "/v1/chat/completions",
        308,
        &format!("{}/v1/chat/completions", other.uri()),
    )
    .await;
    let client = IntentClient::builder()
        .provider(openai(&first.uri()))
        .fallback(ScriptedProvider::new([r#"{"value": 3}"#]))
        .build()
        .unwrap();
    let count = u32::ai(&client, "a, b, c", "Count the letters.").await;
    assert_eq!(count.into_result().unwrap(), 3);
    assert!(requests(&other).await.is_empty());
}

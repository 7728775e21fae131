//! Transport faults against real servers on 127.0.0.1: retries with backoff honouring the server's
//! delay, errors that are not retried, timeouts, dropped connections and bodies that are not JSON.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use intent_core::prelude::*;
use intent_core::provider::{OpenAiProvider, Provider, ProviderErrorKind, RetryPolicy};
use intent_core::AiRequest;
use intent_core::IssueKind;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fast(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(2),
    }
}

fn provider_at(base: &str) -> OpenAiProvider {
    OpenAiProvider::new("sk-test")
        .with_base_url(format!("{base}/v1"))
        .with_retry_policy(fast(2))
        .with_timeout(Duration::from_secs(5))
}

fn ok_reply() -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "ok", "refusal": null}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    })
}

fn openai_error(message: &str, kind: &str, code: Value) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

/// A server that answers `failures` in order, then `ok_reply()`.
async fn failing_then_ok(failures: Vec<ResponseTemplate>) -> MockServer {
    let server = MockServer::start().await;
    for failure in failures {
        Mock::given(method("POST"))
            .respond_with(failure)
            .up_to_n_times(1)
            .with_priority(1)
            .mount(&server)
            .await;
    }
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok_reply()))
        .with_priority(2)
        .mount(&server)
        .await;
    server
}

async fn count(server: &MockServer) -> usize {
    server.received_requests().await.map_or(0, |r| r.len())
}

fn request() -> AiRequest {
    AiRequest::new("system", "user")
}

#[tokio::test]
async fn retries_on_429_then_succeeds_after_the_servers_retry_after() {
    let server = failing_then_ok(vec![ResponseTemplate::new(429)
        .insert_header("retry-after", "0.3")
        .set_body_json(openai_error(
            "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3.",
            "requests",
            json!("rate_limit_exceeded"),
        ))])
    .await;
    let started = Instant::now();
    let response = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(count(&server).await, 2);
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn retry_after_ms_is_honoured_before_retry_after() {
    let server = failing_then_ok(vec![ResponseTemplate::new(429)
        .insert_header("retry-after-ms", "150")
        .insert_header("retry-after", "60")])
    .await;
    let started = Instant::now();
    provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_millis(150) && elapsed < Duration::from_secs(5),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn retries_500_and_503_then_succeeds() {
    let server = failing_then_ok(vec![
        ResponseTemplate::new(500).set_body_json(openai_error(
            "The server had an error while processing your request.",
            "server_error",
            Value::Null,
        )),
        ResponseTemplate::new(503).set_body_string("upstream connect error"),
    ])
    .await;
    let response = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(response.text, "ok");
    assert_eq!(count(&server).await, 3);
}

#[tokio::test]
async fn retries_408_409_and_529() {
    let server =
        failing_then_ok(vec![ResponseTemplate::new(408), ResponseTemplate::new(409)]).await;
    provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(count(&server).await, 3);
    let server = failing_then_ok(vec![ResponseTemplate::new(529)]).await;
    provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(count(&server).await, 2);
}

#[tokio::test]
async fn gives_up_after_max_retries_with_the_last_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_json(openai_error(
            "The engine is currently overloaded, please try again later.",
            "server_error",
            Value::Null,
        )))
        .mount(&server)
        .await;
    let error = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(count(&server).await, 3);
    assert_eq!(error.kind, ProviderErrorKind::Server);
    assert_eq!(error.status, Some(503));
    assert_eq!(
        error.message,
        "HTTP 503 server_error: The engine is currently overloaded, please try again later. (gave up after 3 tries; max_retries = 2)"
    );
}

#[tokio::test]
async fn client_errors_are_not_retried_and_keep_the_providers_message() {
    for (status, kind, message) in [
        (401, ProviderErrorKind::Auth, "Incorrect API key provided."),
        (
            403,
            ProviderErrorKind::Auth,
            "Country, region, or territory not supported.",
        ),
        (
            404,
            ProviderErrorKind::InvalidRequest,
            "The model `gpt-9` does not exist or you do not have access to it.",
        ),
    ] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status).set_body_json(openai_error(
                message,
                "invalid_request_error",
                Value::Null,
            )))
            .mount(&server)
            .await;
        let error = provider_at(&server.uri())
            .complete(&request())
            .await
            .unwrap_err();
        assert_eq!(count(&server).await, 1, "{status}");
        assert_eq!(error.kind, kind, "{status}");
        assert_eq!(
            error.message,
            format!("HTTP {status} invalid_request_error: {message}")
        );
    }
}

#[tokio::test]
async fn quota_exhausted_429_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(openai_error(
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            json!("insufficient_quota"),
        )))
        .mount(&server)
        .await;
    let error = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(count(&server).await, 1);
    assert_eq!(error.kind, ProviderErrorKind::QuotaExhausted);
    assert!(!error.kind.is_retryable());
}

#[tokio::test]
async fn x_should_retry_overrides_the_status() {
    let server = failing_then_ok(vec![
        ResponseTemplate::new(500).insert_header("x-should-retry", "false")
    ])
    .await;
    let error = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(error.status, Some(500));
    assert_eq!(count(&server).await, 1);

    let server = failing_then_ok(vec![
        ResponseTemplate::new(400).insert_header("x-should-retry", "true")
    ])
    .await;
    provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap();
    assert_eq!(count(&server).await, 2);
}

#[tokio::test]
async fn a_server_delay_over_the_cap_is_not_waited_for() {
    let server = failing_then_ok(vec![
        ResponseTemplate::new(429).insert_header("retry-after", "300")
    ])
    .await;
    let started = Instant::now();
    let error = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(count(&server).await, 1);
    assert_eq!(error.kind, ProviderErrorKind::RateLimited);
    assert_eq!(error.retry_after, Some(Duration::from_secs(300)));
    assert!(
        error.message.contains("more than max_retry_after (2.0 s)"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_slow_server_past_the_timeout_is_a_timeout_after_retries() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(ok_reply())
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    let started = Instant::now();
    let error = provider_at(&server.uri())
        .with_timeout(Duration::from_millis(150))
        .with_max_retries(1)
        .complete(&request())
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(error.kind, ProviderErrorKind::Timeout);
    assert_eq!(count(&server).await, 2);
    assert!(
        error.message.contains("within the timeout (0.1 s"),
        "{}",
        error.message
    );
}

/// A raw HTTP server that answers each connection with `replies[i]` (the last one repeats) and
/// closes it, counting connections.
async fn raw_server(replies: Vec<&'static str>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = connections.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let index = seen.fetch_add(1, Ordering::SeqCst);
            let reply = replies[index.min(replies.len() - 1)];
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 64 * 1024];
                let mut read = 0;
                // Read the head and the body (its length is in content-length).
                loop {
                    let Ok(n) = stream.read(&mut buffer[read..]).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    read += n;
                    let text = String::from_utf8_lossy(&buffer[..read]).to_string();
                    if let Some(head_end) = text.find("\r\n\r\n") {
                        let length = text[..head_end]
                            .lines()
                            .find_map(|l| {
                                l.to_ascii_lowercase()
                                    .strip_prefix("content-length:")
                                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                            })
                            .unwrap_or(0);
                        if read >= head_end + 4 + length {
                            break;
                        }
                    }
                }
                let _ = stream.write_all(reply.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    (format!("http://{address}"), connections)
}

const DROPPED_MID_BODY: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,";
const COMPLETE: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 91\r\nconnection: close\r\n\r\n{\"model\":\"m\",\"choices\":[{\"finish_reason\":\"stop\",\"message\":{\"content\":\"whole\"}}],\"usage\":{}}";

#[tokio::test]
async fn a_connection_dropped_mid_body_is_retried() {
    assert_eq!(COMPLETE.split("\r\n\r\n").nth(1).unwrap().len(), 91);
    let (base, connections) = raw_server(vec![DROPPED_MID_BODY, COMPLETE]).await;
    let response = provider_at(&base).complete(&request()).await.unwrap();
    assert_eq!(response.text, "whole");
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_connection_always_dropped_mid_body_ends_in_a_connection_error() {
    let (base, connections) = raw_server(vec![DROPPED_MID_BODY]).await;
    let error = provider_at(&base).complete(&request()).await.unwrap_err();
    assert_eq!(connections.load(Ordering::SeqCst), 3);
    assert_eq!(error.kind, ProviderErrorKind::Connect);
    assert!(
        error.message.contains("while reading the reply from"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("gave up after 3 tries"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_refused_connection_is_a_connection_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let error = provider_at(&format!("http://{address}"))
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Connect);
    assert!(
        error
            .message
            .starts_with("could not connect to http://127.0.0.1:"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_decode_error_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string("<html><body>Gateway says hello</body></html>"),
        )
        .mount(&server)
        .await;
    let error = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(count(&server).await, 1);
    assert_eq!(error.kind, ProviderErrorKind::Decode);
    assert!(
        error.message.contains("<html><body>Gateway says hello"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn an_error_body_that_is_not_json_is_clipped() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(502).set_body_string("x".repeat(5000)))
        .mount(&server)
        .await;
    let error = provider_at(&server.uri())
        .with_max_retries(0)
        .complete(&request())
        .await
        .unwrap_err();
    assert!(
        error.message.starts_with("HTTP 502: xxx"),
        "{}",
        error.message
    );
    assert!(
        error.message.ends_with("(cut at 500 characters)"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn vllm_top_level_error_messages_are_read() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({
            "object": "error", "message": "The model `m` does not exist.", "type": "NotFoundError", "param": null, "code": 404
        })))
        .mount(&server)
        .await;
    let error = provider_at(&server.uri())
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(error.message, "HTTP 404: The model `m` does not exist.");
}

#[tokio::test]
async fn a_reply_over_max_response_bytes_is_refused() {
    let server = MockServer::start().await;
    let mut big = ok_reply();
    big["choices"][0]["message"]["content"] = json!("y".repeat(10_000));
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(big))
        .mount(&server)
        .await;
    let error = provider_at(&server.uri())
        .with_max_response_bytes(4096)
        .complete(&request())
        .await
        .unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::Decode);
    assert!(
        error.message.contains("max_response_bytes (4096 bytes)"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn transport_retries_are_not_verification_attempts() {
    let server =
        failing_then_ok(vec![ResponseTemplate::new(500), ResponseTemplate::new(429)]).await;
    let client = IntentClient::new(provider_at(&server.uri()));
    let result = String::ai(&client, "hello", "Echo the input.").await;
    assert_eq!(result.value().map(String::as_str), Some("ok"));
    assert_eq!(result.attempts().len(), 1);
    assert_eq!(result.usage().calls, 1);
    assert_eq!(count(&server).await, 3);
}

#[tokio::test]
async fn a_provider_failure_ends_the_call_with_a_provider_issue() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(openai_error(
            "Incorrect API key provided.",
            "invalid_request_error",
            json!("invalid_api_key"),
        )))
        .mount(&server)
        .await;
    let client = IntentClient::new(provider_at(&server.uri()));
    let result = u32::ai(&client, "x", "Count.").await;
    assert!(!result.is_success());
    assert_eq!(result.attempts().len(), 1);
    assert_eq!(result.issues()[0].kind, IssueKind::Provider);
    assert_eq!(
        result.issues()[0].message,
        "openai: HTTP 401 invalid_request_error: Incorrect API key provided."
    );
}

//! The providers' rate-limit headers over HTTP: read into `AiResponse::rate_limit`, and slowing
//! the limiter before the provider would answer 429, measured by the server on 127.0.0.1.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{AnthropicProvider, OpenAiProvider, Provider};
use intent_core::ratelimit::RateLimit;
use intent_core::AiRequest;

use intent_tests::clocked_server::{gaps, ClockedServer, Headers, Wire};

fn openai(server: &ClockedServer) -> OpenAiProvider {
    OpenAiProvider::new("sk-test").with_base_url(server.uri())
}

fn anthropic(server: &ClockedServer) -> AnthropicProvider {
    AnthropicProvider::new("sk-ant-test").with_base_url(server.uri())
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect()
}

/// OpenAI's headers for a key of 60 requests a minute with none left: one refills each second.
fn openai_exhausted() -> Headers {
    Box::new(|_| {
        headers(&[
            ("x-ratelimit-limit-requests", "60"),
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", "1m0s"),
            ("x-ratelimit-limit-tokens", "150000"),
            ("x-ratelimit-remaining-tokens", "149000"),
            ("x-ratelimit-reset-tokens", "400ms"),
        ])
    })
}

async fn three_calls(client: &IntentClient) {
    for _ in 0..3 {
        let result = u32::ai(client, "a b c", "Count the words.").await;
        assert!(result.is_success(), "{:?}", result.issues());
    }
}

/// Three calls to `server` through `provider`, paced by its headers alone (no configured figure):
/// each gap the server saw is within `min..max` milliseconds.
async fn assert_paced_by_headers(
    server: &ClockedServer,
    provider: impl Provider + 'static,
    (min, max): (u64, u64),
) {
    let client = IntentClient::builder()
        .provider(provider)
        .rate_limit(RateLimit::default())
        .build()
        .unwrap();
    three_calls(&client).await;
    for gap in gaps(&server.times()) {
        assert!(
            gap >= Duration::from_millis(min) && gap < Duration::from_millis(max),
            "{gap:?}"
        );
    }
}

#[tokio::test]
async fn openai_rate_limit_headers_reach_the_response() {
    let server = ClockedServer::start(Wire::OpenAi, (10, 2), openai_exhausted()).await;
    let reply = openai(&server)
        .complete(&AiRequest::new("", "hi"))
        .await
        .unwrap();
    let status = reply.rate_limit.expect("the reply's headers were read");
    assert_eq!(status.requests_limit, Some(60));
    assert_eq!(status.requests_remaining, Some(0));
    assert_eq!(status.requests_reset, Some(Duration::from_secs(60)));
    assert_eq!(status.tokens_remaining, Some(149_000));
    assert_eq!(status.tokens_reset, Some(Duration::from_millis(400)));
}

#[tokio::test]
async fn anthropic_rate_limit_headers_reach_the_response() {
    let server = ClockedServer::start(
        Wire::Anthropic,
        (10, 2),
        Box::new(|_| {
            let reset = (chrono::Utc::now() + chrono::Duration::seconds(30))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            headers(&[
                ("anthropic-ratelimit-requests-limit", "50"),
                ("anthropic-ratelimit-requests-remaining", "49"),
                ("anthropic-ratelimit-requests-reset", &reset),
                ("anthropic-ratelimit-tokens-limit", "40000"),
                ("anthropic-ratelimit-tokens-remaining", "39000"),
                ("anthropic-ratelimit-tokens-reset", &reset),
            ])
        }),
    )
    .await;
    let reply = anthropic(&server)
        .complete(&AiRequest::new("", "hi"))
        .await
        .unwrap();
    let status = reply.rate_limit.expect("the reply's headers were read");
    assert_eq!(
        (status.requests_remaining, status.tokens_limit),
        (Some(49), Some(40_000))
    );
    let reset = status.requests_reset.unwrap();
    assert!(
        reset > Duration::from_secs(27) && reset <= Duration::from_secs(30),
        "{reset:?}"
    );
}

#[tokio::test]
async fn without_headers_there_is_no_status() {
    let server = ClockedServer::openai().await;
    let reply = openai(&server)
        .complete(&AiRequest::new("", "hi"))
        .await
        .unwrap();
    assert_eq!(reply.rate_limit, None);
}

#[tokio::test]
async fn openai_headers_with_no_request_left_slow_the_next_request_before_a_429() {
    let server = ClockedServer::start(Wire::OpenAi, (10, 2), openai_exhausted()).await;
    assert_paced_by_headers(&server, openai(&server), (990, 1500)).await;
}

#[tokio::test]
async fn without_a_limiter_the_same_headers_change_nothing() {
    let server = ClockedServer::start(Wire::OpenAi, (10, 2), openai_exhausted()).await;
    let client = IntentClient::new(openai(&server));
    three_calls(&client).await;
    for gap in gaps(&server.times()) {
        assert!(gap < Duration::from_millis(500), "{gap:?}");
    }
}

#[tokio::test]
async fn openai_headers_with_too_few_tokens_left_hold_the_request_for_the_shortfall() {
    // 60,000 tokens a minute (1000 a second), 100 left: a request estimated at over 1024 tokens
    // (its bytes over four, the prompt's preamble and schema included, plus 1024 for the reply)
    // waits for the shortfall to refill, about a second.
    let server = ClockedServer::start(
        Wire::OpenAi,
        (10, 2),
        Box::new(|_| {
            headers(&[
                ("x-ratelimit-limit-tokens", "60000"),
                ("x-ratelimit-remaining-tokens", "100"),
                ("x-ratelimit-reset-tokens", "59.9s"),
            ])
        }),
    )
    .await;
    assert_paced_by_headers(&server, openai(&server), (900, 2500)).await;
}

#[tokio::test]
async fn anthropic_headers_with_no_request_left_slow_the_next_request() {
    // 60 a minute, none left, full again in 60 s (an RFC 3339 time): one refills each second.
    let server = ClockedServer::start(
        Wire::Anthropic,
        (10, 2),
        Box::new(|_| {
            let reset = (chrono::Utc::now() + chrono::Duration::seconds(60))
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            headers(&[
                ("anthropic-ratelimit-requests-limit", "60"),
                ("anthropic-ratelimit-requests-remaining", "0"),
                ("anthropic-ratelimit-requests-reset", &reset),
            ])
        }),
    )
    .await;
    assert_paced_by_headers(&server, anthropic(&server), (950, 1500)).await;
}

#[tokio::test]
async fn a_429_retry_after_holds_the_next_call() {
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(serde_json::json!({"error": {"message": "Rate limit reached", "type": "requests"}})),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "id": "c", "object": "chat.completion", "model": "gpt-test",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{\"value\": 3}"}}]
        })))
        .with_priority(2)
        .mount(&server)
        .await;
    // No transport retry: the 429 reaches the limiter, which holds the next call for 1 s.
    let client = IntentClient::builder()
        .provider(
            OpenAiProvider::new("sk-test")
                .with_base_url(server.uri())
                .with_max_retries(0),
        )
        .rate_limit(RateLimit::default())
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let refused = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(!refused.is_success());
    let second = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(second.is_success(), "{:?}", second.issues());
    assert!(
        started.elapsed() >= Duration::from_millis(990),
        "{:?}",
        started.elapsed()
    );
}

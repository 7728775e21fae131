//! What the providers' wire tests share: servers on 127.0.0.1 that answer as told, what they
//! received, fast retries, and a log writer to search.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use intent_core::provider::{AnthropicProvider, OpenAiProvider, RetryPolicy};
use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// Retries fast enough for tests, honouring a server's delay up to 2 s.
pub fn quick_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
        max_retry_after: Duration::from_secs(2),
    }
}

/// An OpenAI provider for `server`, with a test key and one quick retry.
pub fn openai(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new("sk-test")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(quick_retries(1))
}

/// An Anthropic provider for `server`, with a test key and one quick retry.
pub fn anthropic(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new("sk-ant-test")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(1))
}

/// A server that answers every POST with `body`.
pub async fn answering(body: Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(&server)
        .await;
    server
}

/// A server that answers `failures` in order, then `ok` to every later POST.
pub async fn failing_then(failures: Vec<ResponseTemplate>, ok: Value) -> MockServer {
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
        .respond_with(ResponseTemplate::new(200).set_body_json(ok))
        .with_priority(2)
        .mount(&server)
        .await;
    server
}

/// The requests a server received, in order.
pub async fn sent(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap_or_default()
}

/// A request's JSON body.
pub fn body_of(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("the request body is JSON")
}

/// A log writer whose text can be read back.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

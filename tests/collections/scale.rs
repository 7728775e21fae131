//! `map_each` at scale: large inputs split within `max_input_chars`, and the concurrency limit
//! measured, in process and against a local HTTP server that answers after a fixed delay.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use intent_core::prelude::*;
use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError, ProviderErrorKind};
use intent_core::AiRequest;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The chunk's input: the last line of the `## Input` section.
fn input_of(user: &str) -> &str {
    let end = user.find("\n\n## Output requirements").unwrap();
    let section = &user[..end];
    &section[section.rfind('\n').unwrap() + 1..]
}

/// The right answer to a `map_each` chunk: each input's length in characters.
fn answer(user: &str) -> String {
    let items: Vec<Value> = serde_json::from_str(input_of(user)).unwrap();
    let answers: Vec<Value> = items
        .iter()
        .map(|item| json!({"index": item["index"], "value": item["input"].as_str().unwrap().chars().count()}))
        .collect();
    json!({ "value": answers }).to_string()
}

/// Tracks requests in flight and the most seen at once.
#[derive(Default)]
struct Gauge {
    now: AtomicUsize,
    peak: AtomicUsize,
}

impl Gauge {
    fn enter(&self) {
        let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
    }
    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::SeqCst);
    }
    fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }
}

/// A model that answers every chunk correctly after `delay`, measuring how many calls overlap.
#[derive(Clone, Default)]
struct Answering {
    delay: Duration,
    gauge: Arc<Gauge>,
    inputs: Arc<Mutex<Vec<String>>>,
}

impl Provider for Answering {
    fn name(&self) -> &str {
        "answering"
    }
    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            self.gauge.enter();
            self.inputs
                .lock()
                .unwrap()
                .push(input_of(&request.user).to_owned());
            tokio::time::sleep(self.delay).await;
            self.gauge.leave();
            Ok(AiResponse::new(answer(&request.user), "answering-1"))
        })
    }
}

fn names(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("Product name number {i}, blue"))
        .collect()
}

#[tokio::test]
async fn thousand_elements_are_split_into_chunks_within_max_input_chars() {
    let model = Answering::default();
    let client = IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_input_chars: 3_000,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap();
    let inputs = names(1_000);
    let result = client
        .map_each::<usize>(&inputs, "Count the characters.")
        .chunk_size(100)
        .concurrency(4)
        .await;
    let expected: Vec<usize> = inputs.iter().map(|s| s.chars().count()).collect();
    assert_eq!(result.into_result().unwrap(), expected);

    let sent = model.inputs.lock().unwrap();
    let total_chars: usize = sent.iter().map(|s| s.chars().count()).sum();
    assert!(sent.iter().all(|s| s.chars().count() <= 3_000));
    // Cut by size, not by count: more chunks than 1000 / 100, each as full as the limit allows.
    assert!(sent.len() > 10, "{} chunks", sent.len());
    assert!(sent.len() >= total_chars.div_ceil(3_000));
    // Greedy and in order: every chunk but the last is within one element of the limit.
    let mut by_first_index: Vec<(u64, usize)> = sent
        .iter()
        .map(|s| {
            let items: Vec<Value> = serde_json::from_str(s).unwrap();
            (items[0]["index"].as_u64().unwrap(), s.chars().count())
        })
        .collect();
    by_first_index.sort_unstable();
    let longest_element = inputs.iter().map(|s| s.len()).max().unwrap() + 30;
    for (_, chars) in &by_first_index[..by_first_index.len() - 1] {
        assert!(
            *chars > 3_000 - longest_element,
            "a chunk of {chars} characters"
        );
    }
    let elements: usize = sent
        .iter()
        .map(|s| serde_json::from_str::<Vec<Value>>(s).unwrap().len())
        .sum();
    assert_eq!(elements, 1_000);
}

#[tokio::test]
async fn chunks_are_cut_by_count_when_they_are_small() {
    let model = Answering::default();
    let client = IntentClient::new(model.clone());
    let inputs = names(1_000);
    let result = client
        .map_each::<usize>(&inputs, "Count the characters.")
        .chunk_size(100)
        .await;
    assert!(result.is_complete());
    assert_eq!(result.chunks().len(), 10);
    assert!(result.chunks().iter().all(|c| c.positions.len() == 100));
    assert_eq!(result.usage().calls, 10);
}

#[tokio::test]
async fn concurrency_never_goes_above_the_limit() {
    let model = Answering {
        delay: Duration::from_millis(30),
        ..Answering::default()
    };
    let client = IntentClient::new(model.clone());
    let inputs = names(48);
    let result = client
        .map_each::<usize>(&inputs, "Count the characters.")
        .chunk_size(2)
        .concurrency(3)
        .await;
    assert!(result.is_complete());
    assert_eq!(result.chunks().len(), 24);
    assert_eq!(model.gauge.peak(), 3, "peak concurrency");
}

/// A provider that POSTs each request to a local HTTP server and returns the body it answers.
struct LocalHttp {
    address: SocketAddr,
    gauge: Arc<Gauge>,
}

impl LocalHttp {
    async fn post(&self, body: &str) -> Result<String, ProviderError> {
        let fail =
            |e: std::io::Error| ProviderError::new(ProviderErrorKind::Connect, e.to_string());
        let mut stream = TcpStream::connect(self.address).await.map_err(fail)?;
        let head = format!(
            "POST /v1/answer HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.address,
            body.len()
        );
        stream.write_all(head.as_bytes()).await.map_err(fail)?;
        stream.write_all(body.as_bytes()).await.map_err(fail)?;
        let mut reply = Vec::new();
        stream.read_to_end(&mut reply).await.map_err(fail)?;
        let reply = String::from_utf8(reply)
            .map_err(|e| ProviderError::new(ProviderErrorKind::Decode, e.to_string()))?;
        let (status, body) = reply
            .split_once("\r\n\r\n")
            .ok_or_else(|| ProviderError::new(ProviderErrorKind::Decode, "no HTTP body"))?;
        if !status.starts_with("HTTP/1.1 200") {
            return Err(ProviderError::new(
                ProviderErrorKind::Server,
                status.to_owned(),
            ));
        }
        Ok(body.to_owned())
    }
}

impl Provider for LocalHttp {
    fn name(&self) -> &str {
        "local-http"
    }
    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            self.gauge.enter();
            let body = json!({ "user": request.user }).to_string();
            let reply = self.post(&body).await;
            self.gauge.leave();
            Ok(AiResponse::new(reply?, "local-http-1"))
        })
    }
}

#[tokio::test]
async fn http_server_with_fixed_delay_sees_the_limit_and_near_ideal_total_time() {
    const DELAY: Duration = Duration::from_millis(200);
    const CHUNKS: u32 = 16;
    const LIMIT: u32 = 4;
    let server = MockServer::start().await;
    let served = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&served);
    Mock::given(method("POST"))
        .respond_with(move |request: &Request| {
            count.fetch_add(1, Ordering::SeqCst);
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            ResponseTemplate::new(200)
                .set_body_string(answer(body["user"].as_str().unwrap()))
                .set_delay(DELAY)
        })
        .mount(&server)
        .await;
    let provider = LocalHttp {
        address: *server.address(),
        gauge: Arc::default(),
    };
    let gauge = Arc::clone(&provider.gauge);
    let client = IntentClient::new(provider);
    let inputs = names(CHUNKS as usize * 5);

    let started = Instant::now();
    let result = client
        .map_each::<usize>(&inputs, "Count the characters.")
        .chunk_size(5)
        .concurrency(LIMIT as usize)
        .await;
    let elapsed = started.elapsed();

    assert!(result.is_complete(), "{:?}", result.issues());
    assert_eq!(served.load(Ordering::SeqCst), CHUNKS as usize);
    assert_eq!(gauge.peak(), LIMIT as usize, "peak concurrency");
    let ideal = DELAY * (CHUNKS / LIMIT);
    println!("16 chunks, limit 4, delay 200 ms: {elapsed:?} against an ideal of {ideal:?}");
    assert!(
        elapsed >= ideal,
        "{elapsed:?} is faster than the ideal {ideal:?}"
    );
    assert!(
        elapsed < ideal + ideal / 2,
        "{elapsed:?} is far from the ideal {ideal:?}"
    );
}

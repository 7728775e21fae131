//! A model server on 127.0.0.1 that timestamps every request it receives, answers as OpenAI or
//! Anthropic would (with the rate-limit headers a test asks for), and measures the spacing it saw.
//! Shared by the operations tests and the Redis fleet test (`redis/rate_limit.rs`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The headers of the reply to the `n`th request (from 0).
pub type Headers = Box<dyn Fn(usize) -> Vec<(String, String)> + Send + Sync>;

/// Which provider's reply shape the server answers with.
#[derive(Clone, Copy)]
pub enum Wire {
    OpenAi,
    Anthropic,
}

/// The server and the times its requests arrived.
pub struct ClockedServer {
    server: MockServer,
    times: Arc<Mutex<Vec<Instant>>>,
}

struct Clock {
    wire: Wire,
    times: Arc<Mutex<Vec<Instant>>>,
    count: AtomicUsize,
    headers: Headers,
    usage: (u64, u64),
}

impl Respond for Clock {
    fn respond(&self, _request: &Request) -> ResponseTemplate {
        let arrived = Instant::now();
        self.times.lock().unwrap().push(arrived);
        let n = self.count.fetch_add(1, Ordering::SeqCst);
        let (input, output) = self.usage;
        let body = match self.wire {
            Wire::OpenAi => json!({
                "id": format!("chatcmpl-{n}"), "object": "chat.completion", "model": "gpt-test",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "{\"value\": 3}"}}],
                "usage": {"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output}
            }),
            Wire::Anthropic => json!({
                "id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": "claude-test",
                "content": [{"type": "text", "text": "{\"value\": 3}"}], "stop_reason": "end_turn",
                "usage": {"input_tokens": input, "output_tokens": output}
            }),
        };
        let mut reply = ResponseTemplate::new(200).set_body_json(body);
        for (name, value) in (self.headers)(n) {
            reply = reply.insert_header(name.as_str(), value.as_str());
        }
        reply
    }
}

impl ClockedServer {
    /// A server answering every POST in `wire`'s shape, with `usage` (input, output tokens) and
    /// the headers `headers` gives for each request.
    pub async fn start(wire: Wire, usage: (u64, u64), headers: Headers) -> ClockedServer {
        let server = MockServer::start().await;
        let times = Arc::new(Mutex::new(Vec::new()));
        Mock::given(method("POST"))
            .respond_with(Clock {
                wire,
                times: times.clone(),
                count: AtomicUsize::new(0),
                headers,
                usage,
            })
            .mount(&server)
            .await;
        ClockedServer { server, times }
    }

    /// A server answering as OpenAI, with no rate-limit headers.
    pub async fn openai() -> ClockedServer {
        ClockedServer::start(Wire::OpenAi, (10, 2), Box::new(|_| Vec::new())).await
    }

    /// The base URL (OpenAI's: requests go to `{uri}/chat/completions`).
    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// When each request arrived, in order.
    pub fn times(&self) -> Vec<Instant> {
        let mut times = self.times.lock().unwrap().clone();
        times.sort();
        times
    }
}

/// The most arrivals in any half-open window `[t, t + window)`.
pub fn most_in_window(times: &[Instant], window: Duration) -> usize {
    let mut most = 0;
    let mut start = 0;
    for end in 0..times.len() {
        while times[end] - times[start] >= window {
            start += 1;
        }
        most = most.max(end - start + 1);
    }
    most
}

/// The time from the first arrival to the last.
pub fn span(times: &[Instant]) -> Duration {
    match (times.first(), times.last()) {
        (Some(first), Some(last)) => *last - *first,
        _ => Duration::ZERO,
    }
}

/// The gaps between consecutive arrivals.
pub fn gaps(times: &[Instant]) -> Vec<Duration> {
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

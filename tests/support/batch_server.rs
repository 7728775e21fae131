//! A stateful batch server on 127.0.0.1 for both providers' batch APIs: files, batches, status
//! moving on with each look, results written when a batch ends, partial failures, expiry,
//! cancellation, and faults while polling. It answers each request through a function of the
//! request's user message, as a model would.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// What the "model" does with one request.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Answers with this text.
    Text(String),
    /// The request errored, with this message.
    Error(String),
    /// The request expired before it ran.
    Expired,
    /// No line at all for this request.
    Missing,
    /// Two lines for this request, both with this text.
    Twice(String),
}

pub type Answer = dyn Fn(&str, &str) -> Outcome + Send + Sync;

/// Which API the server speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Api {
    OpenAi,
    Anthropic,
}

struct Batch {
    id: String,
    input_file_id: Option<String>,
    /// (custom_id, user message)
    requests: Vec<(String, String)>,
    looks: u32,
    cancel_requested: bool,
    ended: Option<String>,
    output_file_id: Option<String>,
    error_file_id: Option<String>,
    results: Vec<Value>,
}

/// How the server behaves.
pub struct Behaviour {
    /// Looks at a batch before it ends.
    pub looks_to_end: u32,
    /// Every n-th look at a batch answers 500 (0: never).
    pub fail_every_nth_look: u32,
    /// A batch ends as expired: its requests answer `Outcome::Expired` past the first `keep`.
    pub expire_keeping: Option<usize>,
    /// A cancelled batch still answers its first `n` requests.
    pub cancel_keeps: usize,
    /// Extra lines written into every output (an unknown custom id, a line that is not JSON).
    pub junk_lines: bool,
    /// The first creation's reply is a 500, though the batch was created.
    pub lose_first_create_reply: bool,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            looks_to_end: 3,
            fail_every_nth_look: 0,
            expire_keeping: None,
            cancel_keeps: 0,
            junk_lines: false,
            lose_first_create_reply: false,
        }
    }
}

#[derive(Default)]
pub struct Counts {
    pub uploads: usize,
    pub creates: usize,
    pub cancels: usize,
    pub looks: usize,
    pub failed_looks: usize,
    /// Requests submitted, in all batches.
    pub requests: usize,
    /// Requests per batch, in creation order.
    pub batch_sizes: Vec<usize>,
    /// The user messages submitted, in order.
    pub messages: Vec<String>,
    /// The attachment parts of each user message submitted, in order (empty for a text message).
    pub parts: Vec<Vec<Value>>,
    /// Live model calls (not through a batch).
    pub live_calls: usize,
}

struct State {
    api: Api,
    base: String,
    files: HashMap<String, Vec<u8>>,
    batches: Vec<Batch>,
    behaviour: Behaviour,
    counts: Counts,
    answer: Arc<Answer>,
    next_id: usize,
}

#[derive(Clone)]
struct Handler(Arc<Mutex<State>>);

pub struct BatchServer {
    _server: MockServer,
    state: Arc<Mutex<State>>,
}

impl BatchServer {
    pub async fn start(
        api: Api,
        behaviour: Behaviour,
        answer: impl Fn(&str, &str) -> Outcome + Send + Sync + 'static,
    ) -> BatchServer {
        let server = MockServer::start().await;
        let state = Arc::new(Mutex::new(State {
            api,
            base: server.uri(),
            files: HashMap::new(),
            batches: Vec::new(),
            behaviour,
            counts: Counts::default(),
            answer: Arc::new(answer),
            next_id: 0,
        }));
        Mock::given(any())
            .respond_with(Handler(Arc::clone(&state)))
            .mount(&server)
            .await;
        BatchServer {
            _server: server,
            state,
        }
    }

    /// The base URL a provider is given: `{uri}/v1` for OpenAI, `{uri}` for Anthropic.
    pub fn base_url(&self) -> String {
        let state = self.state.lock().unwrap();
        match state.api {
            Api::OpenAi => format!("{}/v1", state.base),
            Api::Anthropic => state.base.clone(),
        }
    }

    pub fn counts<R>(&self, read: impl FnOnce(&Counts) -> R) -> R {
        read(&self.state.lock().unwrap().counts)
    }
}

impl Respond for Handler {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let mut state = self.0.lock().unwrap();
        let path = request.url.path().to_owned();
        let method = request.method.as_str().to_owned();
        match state.api {
            Api::OpenAi => state.openai(&method, &path, request),
            Api::Anthropic => state.anthropic(&method, &path, request),
        }
    }
}

fn not_found() -> ResponseTemplate {
    ResponseTemplate::new(404).set_body_json(json!({"error": {"message": "no such route"}}))
}

impl State {
    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}_{}", self.next_id)
    }

    /// One look at batch `i`: moves it on, and ends it when its time has come.
    fn look(&mut self, i: usize) -> Option<ResponseTemplate> {
        self.counts.looks += 1;
        let nth = self.behaviour.fail_every_nth_look;
        if nth > 0 && (self.counts.looks as u32).is_multiple_of(nth) {
            self.counts.failed_looks += 1;
            return Some(
                ResponseTemplate::new(500)
                    .set_body_json(json!({"error": {"message": "try later"}})),
            );
        }
        let looks_to_end = self.behaviour.looks_to_end;
        let batch = &mut self.batches[i];
        batch.looks += 1;
        if batch.ended.is_none() {
            if batch.cancel_requested && batch.looks > 1 {
                self.end(i, "cancelled");
            } else if batch.looks >= looks_to_end && !batch.cancel_requested {
                let end = if self.behaviour.expire_keeping.is_some() {
                    "expired"
                } else {
                    "completed"
                };
                self.end(i, end);
            }
        }
        None
    }

    /// Ends batch `i` as `how`, writing its results.
    fn end(&mut self, i: usize, how: &str) {
        let answer = Arc::clone(&self.answer);
        let api = self.api;
        let keep = match how {
            "cancelled" => self.behaviour.cancel_keeps,
            "expired" => self.behaviour.expire_keeping.unwrap_or(0),
            _ => usize::MAX,
        };
        let junk = self.behaviour.junk_lines;
        let mut results = Vec::new();
        let requests = self.batches[i].requests.clone();
        for (n, (custom_id, message)) in requests.iter().enumerate() {
            let outcome = if n >= keep {
                if how == "cancelled" {
                    Outcome::Error("__cancelled".into())
                } else {
                    Outcome::Expired
                }
            } else {
                answer(custom_id, message)
            };
            match outcome {
                Outcome::Missing => {}
                Outcome::Twice(text) => {
                    results.push(success_line(api, custom_id, &text));
                    results.push(success_line(api, custom_id, &text));
                }
                Outcome::Text(text) => results.push(success_line(api, custom_id, &text)),
                Outcome::Error(message) => results.push(error_line(api, custom_id, &message)),
                Outcome::Expired => results.push(expired_line(api, custom_id)),
            }
        }
        if junk {
            results.push(success_line(api, "chunk-999-attempt-1", "{}"));
            results.push(Value::String("not json at all".into()));
        }
        let (output, errors): (Vec<Value>, Vec<Value>) = results
            .iter()
            .cloned()
            .partition(|line| line.get("error").is_none_or(Value::is_null));
        let output_id = self.id("file");
        let error_id = self.id("file");
        self.files.insert(output_id.clone(), jsonl(&output));
        self.files.insert(error_id.clone(), jsonl(&errors));
        let batch = &mut self.batches[i];
        batch.ended = Some(how.to_owned());
        batch.output_file_id = Some(output_id);
        batch.error_file_id = (!errors.is_empty()).then_some(error_id);
        batch.results = results;
    }

    fn openai(&mut self, method: &str, path: &str, request: &Request) -> ResponseTemplate {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match (method, parts.as_slice()) {
            ("POST", ["v1", "files"]) => {
                let body = String::from_utf8_lossy(&request.body).into_owned();
                if !body.contains("name=\"purpose\"\r\n\r\nbatch\r\n") {
                    return ResponseTemplate::new(400)
                        .set_body_json(json!({"error": {"message": "purpose must be batch"}}));
                }
                let start = body.find("\r\n\r\n{").map(|i| i + 4).unwrap_or(0);
                let end = body.rfind("\r\n--").unwrap_or(body.len());
                let id = self.id("file");
                self.files
                    .insert(id.clone(), body.as_bytes()[start..end].to_vec());
                self.counts.uploads += 1;
                ResponseTemplate::new(200)
                    .set_body_json(json!({"id": id, "object": "file", "purpose": "batch"}))
            }
            ("POST", ["v1", "batches"]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                assert_eq!(body["completion_window"], "24h");
                assert_eq!(body["endpoint"], "/v1/chat/completions");
                let file_id = body["input_file_id"].as_str().unwrap().to_owned();
                let Some(file) = self.files.get(&file_id) else {
                    return ResponseTemplate::new(400)
                        .set_body_json(json!({"error": {"message": "no such file"}}));
                };
                let mut parts = Vec::new();
                let requests: Vec<(String, String)> = String::from_utf8_lossy(file)
                    .lines()
                    .map(|line| {
                        let line: Value =
                            serde_json::from_str(line).expect("each input line is JSON");
                        assert_eq!(line["method"], "POST");
                        assert_eq!(line["url"], "/v1/chat/completions");
                        let messages = line["body"]["messages"].as_array().unwrap();
                        let (user, attached) = user_content(&messages.last().unwrap()["content"]);
                        parts.push(attached);
                        (line["custom_id"].as_str().unwrap().to_owned(), user)
                    })
                    .collect();
                self.counts.parts.extend(parts);
                let created = self.register(Some(file_id), requests);
                if std::mem::take(&mut self.behaviour.lose_first_create_reply) {
                    return ResponseTemplate::new(500)
                        .set_body_json(json!({"error": {"message": "lost"}}));
                }
                created
            }
            ("GET", ["v1", "batches"]) => {
                let data: Vec<Value> = self
                    .batches
                    .iter()
                    .rev()
                    .map(|b| self.openai_batch(b))
                    .collect();
                ResponseTemplate::new(200).set_body_json(json!({"object": "list", "data": data}))
            }
            ("GET", ["v1", "batches", id]) => {
                let Some(i) = self.batches.iter().position(|b| b.id == *id) else {
                    return not_found();
                };
                if let Some(fault) = self.look(i) {
                    return fault;
                }
                ResponseTemplate::new(200).set_body_json(self.openai_batch(&self.batches[i]))
            }
            ("POST", ["v1", "batches", id, "cancel"]) => {
                let Some(i) = self.batches.iter().position(|b| b.id == *id) else {
                    return not_found();
                };
                self.counts.cancels += 1;
                self.batches[i].cancel_requested = true;
                self.batches[i].looks = 0;
                ResponseTemplate::new(200).set_body_json(self.openai_batch(&self.batches[i]))
            }
            ("POST", ["v1", "chat", "completions"]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                let user = body["messages"].as_array().unwrap().last().unwrap()["content"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                self.counts.live_calls += 1;
                match (self.answer)("live", &user) {
                    Outcome::Text(text) => ResponseTemplate::new(200).set_body_json(
                        success_line(Api::OpenAi, "live", &text)["response"]["body"].clone(),
                    ),
                    _ => ResponseTemplate::new(400)
                        .set_body_json(json!({"error": {"message": "refused"}})),
                }
            }
            ("GET", ["v1", "files", id, "content"]) => match self.files.get(*id) {
                Some(bytes) => ResponseTemplate::new(200).set_body_bytes(bytes.clone()),
                None => not_found(),
            },
            _ => not_found(),
        }
    }

    fn register(
        &mut self,
        input_file_id: Option<String>,
        requests: Vec<(String, String)>,
    ) -> ResponseTemplate {
        let id = self.id(if self.api == Api::OpenAi {
            "batch"
        } else {
            "msgbatch"
        });
        self.counts.creates += 1;
        self.counts.requests += requests.len();
        self.counts.batch_sizes.push(requests.len());
        self.counts
            .messages
            .extend(requests.iter().map(|(_, m)| m.clone()));
        self.batches.push(Batch {
            id,
            input_file_id,
            requests,
            looks: 0,
            cancel_requested: false,
            ended: None,
            output_file_id: None,
            error_file_id: None,
            results: Vec::new(),
        });
        let batch = self.batches.last().unwrap();
        let body = match self.api {
            Api::OpenAi => self.openai_batch(batch),
            Api::Anthropic => self.anthropic_batch(batch),
        };
        ResponseTemplate::new(200).set_body_json(body)
    }

    fn openai_batch(&self, batch: &Batch) -> Value {
        let status = match (&batch.ended, batch.cancel_requested, batch.looks) {
            (Some(end), _, _) => end.clone(),
            (None, true, _) => "cancelling".into(),
            (None, false, 0 | 1) => "validating".into(),
            (None, false, _) => "in_progress".into(),
        };
        let answered = batch
            .results
            .iter()
            .filter(|r| r.get("error").is_none_or(Value::is_null))
            .count();
        json!({
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "request_counts": {"total": batch.requests.len(), "completed": answered, "failed": batch.results.len() - answered},
        })
    }

    fn anthropic(&mut self, method: &str, path: &str, request: &Request) -> ResponseTemplate {
        assert_eq!(
            request
                .headers
                .get("anthropic-version")
                .map(|v| v.to_str().unwrap()),
            Some("2023-06-01")
        );
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        match (method, parts.as_slice()) {
            ("POST", ["v1", "messages"]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                let user = body["messages"][0]["content"].as_str().unwrap().to_owned();
                self.counts.live_calls += 1;
                match (self.answer)("live", &user) {
                    Outcome::Text(text) => ResponseTemplate::new(200).set_body_json(success_line(Api::Anthropic, "live", &text)["result"]["message"].clone()),
                    _ => ResponseTemplate::new(400).set_body_json(json!({"type": "error", "error": {"type": "invalid_request_error", "message": "refused"}})),
                }
            }
            ("POST", ["v1", "messages", "batches"]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                let mut parts = Vec::new();
                let requests = body["requests"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        let (user, attached) = user_content(&r["params"]["messages"][0]["content"]);
                        parts.push(attached);
                        assert!(r["params"]["max_tokens"].is_u64());
                        (r["custom_id"].as_str().unwrap().to_owned(), user)
                    })
                    .collect();
                self.counts.parts.extend(parts);
                let created = self.register(None, requests);
                if std::mem::take(&mut self.behaviour.lose_first_create_reply) {
                    return ResponseTemplate::new(500).set_body_json(
                        json!({"type": "error", "error": {"type": "api_error", "message": "lost"}}),
                    );
                }
                created
            }
            ("GET", ["v1", "messages", "batches"]) => {
                let limit: usize = request
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "limit")
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(20);
                let data: Vec<Value> = self
                    .batches
                    .iter()
                    .rev()
                    .take(limit)
                    .map(|b| self.anthropic_batch(b))
                    .collect();
                ResponseTemplate::new(200).set_body_json(json!({"data": data, "has_more": false}))
            }
            ("GET", ["v1", "messages", "batches", id]) => {
                let Some(i) = self.batches.iter().position(|b| b.id == *id) else {
                    return not_found();
                };
                if let Some(fault) = self.look(i) {
                    return fault;
                }
                ResponseTemplate::new(200).set_body_json(self.anthropic_batch(&self.batches[i]))
            }
            ("GET", ["v1", "messages", "batches", id, "results"]) => {
                let Some(batch) = self.batches.iter().find(|b| b.id == *id) else {
                    return not_found();
                };
                ResponseTemplate::new(200).set_body_bytes(jsonl(&batch.results))
            }
            ("POST", ["v1", "messages", "batches", id, "cancel"]) => {
                let Some(i) = self.batches.iter().position(|b| b.id == *id) else {
                    return not_found();
                };
                self.counts.cancels += 1;
                self.batches[i].cancel_requested = true;
                self.batches[i].looks = 0;
                ResponseTemplate::new(200).set_body_json(self.anthropic_batch(&self.batches[i]))
            }
            _ => not_found(),
        }
    }

    fn anthropic_batch(&self, batch: &Batch) -> Value {
        let status = match (&batch.ended, batch.cancel_requested) {
            (Some(_), _) => "ended",
            (None, true) => "canceling",
            (None, false) => "in_progress",
        };
        let count = |kind: &str| {
            batch
                .results
                .iter()
                .filter(|r| r["result"]["type"] == kind)
                .count()
        };
        json!({
            "id": batch.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": {
                "processing": if batch.ended.is_some() { 0 } else { batch.requests.len() },
                "succeeded": count("succeeded"),
                "errored": count("errored"),
                "canceled": count("canceled"),
                "expired": count("expired"),
            },
            "cancel_initiated_at": batch.cancel_requested.then_some("2026-12-01T00:00:00Z"),
            "results_url": batch.ended.as_ref().map(|_| format!("https://elsewhere.example/{}/results", batch.id)),
        })
    }
}

fn jsonl(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        match line {
            Value::String(raw) => out.extend_from_slice(raw.as_bytes()),
            other => out.extend_from_slice(other.to_string().as_bytes()),
        }
        out.push(b'\n');
    }
    out
}

fn success_line(api: Api, custom_id: &str, text: &str) -> Value {
    match api {
        Api::OpenAi => json!({
            "id": "batch_req_1",
            "custom_id": custom_id,
            "response": {"status_code": 200, "request_id": "req_1", "body": {
                "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-batch",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            }},
            "error": null,
        }),
        Api::Anthropic => json!({
            "custom_id": custom_id,
            "result": {"type": "succeeded", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-batch",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 5}
            }},
        }),
    }
}

fn error_line(api: Api, custom_id: &str, message: &str) -> Value {
    let cancelled = message == "__cancelled";
    match api {
        Api::OpenAi if cancelled => json!({"id": "r", "custom_id": custom_id, "response": null,
            "error": {"code": "batch_cancelled", "message": "This request could not be executed before the batch was cancelled."}}),
        Api::OpenAi => json!({"id": "r", "custom_id": custom_id,
            "response": {"status_code": 400, "request_id": "req", "body": {"error": {"message": message, "type": "invalid_request_error"}}},
            "error": null}),
        Api::Anthropic if cancelled => {
            json!({"custom_id": custom_id, "result": {"type": "canceled"}})
        }
        Api::Anthropic => json!({"custom_id": custom_id, "result": {"type": "errored",
            "error": {"type": "error", "error": {"type": "invalid_request_error", "message": message}}}}),
    }
}

fn expired_line(api: Api, custom_id: &str) -> Value {
    match api {
        Api::OpenAi => json!({"id": "r", "custom_id": custom_id, "response": null,
            "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}),
        Api::Anthropic => json!({"custom_id": custom_id, "result": {"type": "expired"}}),
    }
}

/// A user message's text, and its attachment parts: a string content is the text alone; a list
/// of parts holds one `text` part and the attachments' parts.
fn user_content(content: &Value) -> (String, Vec<Value>) {
    match content {
        Value::String(text) => (text.clone(), Vec::new()),
        Value::Array(parts) => {
            let text = parts
                .iter()
                .find(|p| p["type"] == "text")
                .and_then(|p| p["text"].as_str())
                .expect("a text part")
                .to_owned();
            let attached = parts
                .iter()
                .filter(|p| p["type"] != "text")
                .cloned()
                .collect();
            (text, attached)
        }
        other => panic!("a user message's content is text or parts, not {other}"),
    }
}

/// The `map_each` elements of a chunk's user message: `(index, input)` for each
/// `{"index":N,"input":"..."}`.
pub fn elements(message: &str) -> Vec<(usize, String)> {
    let pattern = regex::Regex::new(r#"\{"index":(\d+),"input":"([^"]*)"\}"#).unwrap();
    pattern
        .captures_iter(message)
        .map(|c| (c[1].parse().unwrap(), c[2].to_owned()))
        .collect()
}

/// A `map_each` answer to `message` that upper-cases each input.
pub fn upper(message: &str) -> String {
    let items: Vec<Value> = first_section_elements(message)
        .into_iter()
        .map(|(index, input)| json!({"index": index, "value": input.to_uppercase()}))
        .collect();
    json!({"value": items}).to_string()
}

/// The elements of the chunk's input, not those quoted in a previous attempt.
pub fn first_section_elements(message: &str) -> Vec<(usize, String)> {
    let input = message
        .split("## Previous attempt")
        .next()
        .unwrap_or(message);
    let mut seen = std::collections::BTreeMap::new();
    for (index, value) in elements(input) {
        seen.entry(index).or_insert(value);
    }
    seen.into_iter().collect()
}

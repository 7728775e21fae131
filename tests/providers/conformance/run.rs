//! One fixture's case: the recording served from 127.0.0.1 as the vendor sends it, read by our
//! provider, and what it yields compared with what the recording holds.
//!
//! A response is read by [`Provider::complete`]. A stream is read by [`Provider::stream`] whole,
//! cut at every byte boundary (each byte its own chunk), cut at random places (seeded, so a failure
//! repeats), and held open after its first event that carries text or reasoning, where the piece
//! must arrive before the rest of the stream does. Every difference is reported at once, each with
//! the delivery that showed it.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use intent_core::provider::{
    AiResponse, AnthropicProvider, GeminiProvider, OpenAiApi, OpenAiProvider, Provider,
    ProviderError, ReplyAssembler, RetryPolicy, StreamPiece,
};
use intent_core::AiRequest;
use serde_json::Value;

use super::compare::compare_all;
use super::corpus::{entry_of, Entry, Family, Want, WantError};
use super::replay::{Answer, Delivery, ReplayServer};

/// Checks that the recording `file` reads as it must; panics listing every difference.
pub async fn conforms(file: &str) {
    let entry = entry_of(file);
    let failures = check(entry).await;
    assert!(
        failures.is_empty(),
        "{file} ({}) does not read as recorded:\n  - {}",
        entry.vendor,
        failures.join("\n  - ")
    );
}

/// Checks a recording that holds tool calls, as [`conforms`] does (its tool calls included),
/// where another defect of the provider still keeps it from reading as recorded.
pub async fn pending_tools(file: &str) {
    conforms(file).await;
}

/// What a recording must yield.
pub(super) enum Outcome {
    Reply(Want),
    /// Several streams in one recording (an agent loop), one reply each: each one's usage and
    /// finish, and the text and reasoning of them all, in order.
    Replies {
        each: Vec<Want>,
        all: Want,
    },
    Error(WantError),
}

impl Outcome {
    fn of(entry: &Entry, streams: usize) -> Outcome {
        if let Some(error) = entry.error() {
            return Outcome::Error(WantError::of(error));
        }
        if streams < 2 {
            return Outcome::Reply(Want::of(entry));
        }
        let per_stream = entry.expected["streams"]
            .as_array()
            .expect("a recording of several streams lists them");
        let each = per_stream
            .iter()
            .map(|s| {
                let mut want = Want::from_parts(
                    entry.family,
                    &entry.expected,
                    &s["usage"],
                    entry.model.clone(),
                );
                // Text and reasoning are compared over all the streams together.
                want.text.clear();
                want.reasoning = None;
                want.tool_calls = None;
                want
            })
            .collect();
        Outcome::Replies {
            each,
            all: Want::of(entry),
        }
    }
}

/// The differences between what `entry` yields and what it must.
async fn check(entry: &'static Entry) -> Vec<String> {
    if !entry.stream {
        return check_response(entry).await;
    }
    let streams = Framed::streams(entry);
    let outcome = Outcome::of(entry, streams.len());
    let mut failures = Vec::new();
    let deliveries = deliveries(entry.file.as_str(), &streams);
    for (label, delivery) in &deliveries {
        let replies = read_streams(entry, &streams, delivery).await;
        failures.extend(
            compare_all(&replies, &outcome)
                .into_iter()
                .map(|f| format!("{label}: {f}")),
        );
        if !failures.is_empty() {
            // One delivery's differences say it; the others would repeat them.
            break;
        }
    }
    if failures.is_empty() {
        let within = Duration::from_secs(10);
        let make = |base: &str| provider(entry.family, base);
        failures.extend(check_partials(entry, &streams[0], &make, within).await);
    }
    failures
}

/// A response recording, served whole and read by `complete`.
async fn check_response(entry: &'static Entry) -> Vec<String> {
    let body = entry.response_body();
    let outcome = Outcome::of(entry, 1);
    let status = match &outcome {
        Outcome::Error(error) => error.status,
        _ => 200,
    };
    let body = Arc::new(body.to_string().into_bytes());
    let server = ReplayServer::start(move |_, request| {
        match request_mismatch(entry, &request.target, &request.body) {
            Some(why) => Answer::refusal(why),
            None => Answer {
                status,
                content_type: "application/json",
                body: body.clone(),
                delivery: Delivery::Whole,
            },
        }
    })
    .await;
    let provider = provider(entry.family, &server.base);
    let reply = provider.complete(&request(entry)).await;
    compare_all(&[reply], &outcome)
}

/// A stream recording as the vendor frames it on the wire, with where each event ends.
struct Framed {
    body: Arc<Vec<u8>>,
    /// The byte offset after each event, and whether the event carries text or reasoning.
    events: Vec<(usize, bool)>,
}

impl Framed {
    /// The streams of a recording (several when it holds an agent loop's), framed.
    fn streams(entry: &Entry) -> Vec<Framed> {
        let events = entry.stream_events();
        let mut streams: Vec<Vec<String>> = Vec::new();
        for event in events {
            let starts = entry.family == Family::OpenAiResponses
                && event_type(&event).as_deref() == Some("response.created");
            if starts || streams.is_empty() {
                streams.push(Vec::new());
            }
            streams.last_mut().unwrap().push(event);
        }
        streams
            .iter()
            .map(|s| Framed::of(entry.family, s))
            .collect()
    }

    /// The vendor's framing: Chat Completions `data:` events ended by `data: [DONE]`; Responses and
    /// Messages events named by their `type` (`event:` lines); Gemini `data:` events, CRLF.
    fn of(family: Family, events: &[String]) -> Framed {
        let mut body = Vec::new();
        let mut ends = Vec::new();
        for event in events {
            match family {
                Family::OpenAiChat => {
                    body.extend_from_slice(format!("data: {event}\n\n").as_bytes())
                }
                Family::OpenAiResponses | Family::Anthropic => {
                    let name = event_type(event).unwrap_or_default();
                    body.extend_from_slice(format!("event: {name}\ndata: {event}\n\n").as_bytes());
                }
                Family::Gemini => {
                    body.extend_from_slice(format!("data: {event}\r\n\r\n").as_bytes())
                }
            }
            ends.push((body.len(), carries_content(family, event)));
        }
        if family == Family::OpenAiChat {
            body.extend_from_slice(b"data: [DONE]\n\n");
        }
        Framed {
            body: Arc::new(body),
            events: ends,
        }
    }
}

fn event_type(event: &str) -> Option<String> {
    let value: Value = serde_json::from_str(event).ok()?;
    value["type"].as_str().map(str::to_owned)
}

/// Whether an event carries text or reasoning that is not blank.
fn carries_content(family: Family, event: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(event) else {
        return false;
    };
    let some = |v: &Value| v.as_str().is_some_and(|s| !s.trim().is_empty());
    match family {
        Family::OpenAiChat => value["choices"].as_array().into_iter().flatten().any(|c| {
            some(&c["delta"]["content"])
                || some(&c["delta"]["reasoning_content"])
                || some(&c["delta"]["reasoning"])
        }),
        Family::OpenAiResponses => {
            matches!(
                value["type"].as_str(),
                Some("response.output_text.delta" | "response.reasoning_summary_text.delta")
            ) && some(&value["delta"])
        }
        Family::Anthropic => some(&value["delta"]["text"]) || some(&value["delta"]["thinking"]),
        Family::Gemini => value["candidates"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| {
                c["content"]["parts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| some(&p["text"]))
            }),
    }
}

/// The deliveries every stream is read in: whole, every byte its own chunk, and three sets of
/// random cuts (seeded by the fixture's name).
fn deliveries(file: &str, streams: &[Framed]) -> Vec<(String, Vec<Delivery>)> {
    let lengths: Vec<usize> = streams.iter().map(|s| s.body.len()).collect();
    let mut all = vec![
        (
            "read whole".to_owned(),
            vec![Delivery::Whole; streams.len()],
        ),
        (
            "cut at every byte".to_owned(),
            lengths
                .iter()
                .map(|&len| Delivery::Cuts((1..len).collect()))
                .collect(),
        ),
    ];
    for seed in 1..=3u64 {
        let mut random = SplitMix(seed ^ name_hash(file));
        let cuts = lengths
            .iter()
            .map(|&len| {
                let mut cuts = Vec::new();
                let mut at = 0;
                // Gaps of 1 to 64 bytes, then now and then a long one.
                while at < len {
                    let span = if random.next().is_multiple_of(8) {
                        4096
                    } else {
                        64
                    };
                    at += 1 + (random.next() % span) as usize;
                    cuts.push(at.min(len));
                }
                Delivery::Cuts(cuts)
            })
            .collect();
        all.push((format!("cut at random (seed {seed})"), cuts));
    }
    all
}

/// Reads each stream of a recording, one request each, delivered as `deliveries` say.
async fn read_streams(
    entry: &'static Entry,
    streams: &[Framed],
    deliveries: &[Delivery],
) -> Vec<Result<AiResponse, ProviderError>> {
    let plan: Vec<(Arc<Vec<u8>>, Delivery)> = streams
        .iter()
        .zip(deliveries)
        .map(|(s, d)| (s.body.clone(), d.clone()))
        .collect();
    let server = ReplayServer::start(move |n, request| {
        if let Some(why) = request_mismatch(entry, &request.target, &request.body) {
            return Answer::refusal(why);
        }
        let (body, delivery) = plan[n % plan.len()].clone();
        Answer {
            status: 200,
            content_type: "text/event-stream",
            body,
            delivery,
        }
    })
    .await;
    let provider = provider(entry.family, &server.base);
    let request = request(entry);
    let mut replies = Vec::new();
    for _ in streams {
        replies.push(ReplyAssembler::collect(provider.stream(&request)).await);
    }
    replies
}

/// The first piece of text or reasoning must come, `within` the time given, while the rest of the
/// stream is held back.
async fn check_partials(
    entry: &'static Entry,
    stream: &Framed,
    make: &dyn Fn(&str) -> Box<dyn Provider>,
    within: Duration,
) -> Vec<String> {
    let Some(&(hold_at, _)) = stream.events.iter().find(|(_, content)| *content) else {
        return Vec::new();
    };
    let body = stream.body.clone();
    let server = ReplayServer::start(move |_, request| {
        match request_mismatch(entry, &request.target, &request.body) {
            Some(why) => Answer::refusal(why),
            None => Answer {
                status: 200,
                content_type: "text/event-stream",
                body: body.clone(),
                delivery: Delivery::HoldAfter(hold_at),
            },
        }
    })
    .await;
    let provider = make(&server.base);
    let request = request(entry);
    let mut pieces = provider.stream(&request);
    let first = tokio::time::timeout(within, async {
        while let Some(piece) = pieces.next().await {
            match piece {
                Ok(StreamPiece::Text(_) | StreamPiece::Reasoning(_)) => return Ok(()),
                Ok(_) => {}
                Err(error) => return Err(format!("the stream failed: {error}")),
            }
        }
        Err("the stream ended without a piece".to_owned())
    })
    .await;
    match first {
        Ok(Ok(())) => Vec::new(),
        Ok(Err(why)) => vec![format!(
            "held open after its first event with text or reasoning (byte {hold_at} of {}): {why}",
            stream.body.len()
        )],
        Err(_) => vec![format!(
            "held open after its first event with text or reasoning (byte {hold_at} of {}): no \
             piece came within {within:?}; the provider waits for the whole reply instead of \
             streaming",
            stream.body.len()
        )],
    }
}

/// The model the request names: the recording's, else one of the family's.
fn request(entry: &Entry) -> AiRequest {
    let mut request = AiRequest::new("You are terse.", "Answer the question.");
    request.model = Some(match (&entry.model, entry.family) {
        (Some(model), _) => model.clone(),
        (None, Family::OpenAiChat | Family::OpenAiResponses) => "gpt-5-mini".to_owned(),
        (None, Family::Anthropic) => "claude-sonnet-4-5".to_owned(),
        (None, Family::Gemini) => "gemini-2.5-flash".to_owned(),
    });
    request
}

/// Our provider for `family`, at the replay server, retrying nothing.
fn provider(family: Family, base: &str) -> Box<dyn Provider> {
    let once = RetryPolicy {
        max_retries: 0,
        ..RetryPolicy::default()
    };
    let timeout = Duration::from_secs(30);
    match family {
        Family::OpenAiChat => Box::new(
            OpenAiProvider::new("sk-conformance")
                .with_base_url(format!("{base}/v1"))
                .with_retry_policy(once)
                .with_timeout(timeout),
        ),
        Family::OpenAiResponses => Box::new(
            OpenAiProvider::new("sk-conformance")
                .with_base_url(format!("{base}/v1"))
                .with_api(OpenAiApi::Responses)
                .with_retry_policy(once)
                .with_timeout(timeout),
        ),
        Family::Anthropic => Box::new(
            AnthropicProvider::new("sk-ant-conformance")
                .with_base_url(base)
                .with_retry_policy(once)
                .with_timeout(timeout),
        ),
        Family::Gemini => Box::new(
            GeminiProvider::new("AIza-conformance")
                .with_base_url(base)
                .with_retry_policy(once)
                .with_timeout(timeout),
        ),
    }
}

/// Why the real API would not have answered this request with the recording, if it would not:
/// the wrong endpoint, or a stream asked for (or not) against what was recorded.
fn request_mismatch(entry: &Entry, target: &str, body: &str) -> Option<String> {
    let model = request(entry).model.unwrap_or_default();
    let (path, form) = match (entry.family, entry.stream) {
        (Family::OpenAiChat, _) => ("/v1/chat/completions".to_owned(), "Chat Completions"),
        (Family::OpenAiResponses, _) => ("/v1/responses".to_owned(), "Responses API"),
        (Family::Anthropic, _) => ("/v1/messages".to_owned(), "Messages API"),
        (Family::Gemini, false) => (format!("/v1beta/models/{model}:generateContent"), "Gemini"),
        (Family::Gemini, true) => (
            format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
            "Gemini",
        ),
    };
    if target != path {
        return Some(format!(
            "this {form} recording answers POST {path}; the request went to {target}"
        ));
    }
    if entry.family == Family::Gemini {
        return None;
    }
    let streams = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|b| b["stream"].as_bool())
        .unwrap_or(false);
    match (entry.stream, streams) {
        (true, false) => Some(format!(
            "this {form} recording is a stream; the request did not ask for one (\"stream\": true)"
        )),
        (false, true) => Some(format!(
            "this {form} recording is a whole reply; the request asked for a stream"
        )),
        _ => None,
    }
}

/// A fixture's name as a seed.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64: random cut places, the same for the same seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A provider that asks for the stream but hands the reply over only once it has all of it.
struct Buffering(Box<dyn Provider>);

impl Provider for Buffering {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> intent_core::provider::BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(ReplyAssembler::collect(self.0.stream(request)))
    }
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn the_held_open_check_fails_a_provider_that_waits_for_the_end() {
    let entry = entry_of("openai-chat/openai-text.chunks.txt");
    let stream = &Framed::streams(entry)[0];
    let streaming = |base: &str| provider(entry.family, base);
    let within = Duration::from_secs(2);
    assert_eq!(
        check_partials(entry, stream, &streaming, within).await,
        Vec::<String>::new()
    );
    let buffering =
        |base: &str| Box::new(Buffering(provider(entry.family, base))) as Box<dyn Provider>;
    let failures = check_partials(entry, stream, &buffering, within).await;
    assert!(
        failures.len() == 1 && failures[0].contains("waits for the whole reply"),
        "{failures:?}"
    );
}

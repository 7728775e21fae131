//! Streamed replies from servers that misbehave, for every provider's event-stream form (Chat
//! Completions, Anthropic Messages, the Responses API's typed events, Gemini's chunks): malformed
//! events, bytes that are not UTF-8, a stream that stops in the middle of an event or before its
//! end, an error event, a 50 MB event, a server that drips one byte a second or only sends
//! keep-alive comments, a body over its limit, a body that is no event stream. Each ends with a
//! clear error naming what failed and any limit, within the provider's limits, and closes the
//! connection.

use std::time::{Duration, Instant};

use intent_core::provider::{
    AiResponse, AnthropicProvider, GeminiProvider, OpenAiApi, OpenAiProvider, Provider,
    ProviderError, ProviderErrorKind, ReplyAssembler,
};
use intent_core::AiRequest;

use intent_tests::sse_server::{Reply, SseServer, Step};
use intent_tests::wire::quick_retries;

/// One provider's event-stream form.
#[derive(Debug, Clone, Copy)]
enum Wire {
    OpenAi,
    Anthropic,
    Responses,
    Gemini,
}

const WIRES: [Wire; 4] = [Wire::OpenAi, Wire::Anthropic, Wire::Responses, Wire::Gemini];

/// A Responses API stream as the API frames it (event names, typed JSON events, no end marker
/// but `response.completed`), written after the event shapes of OpenAI's `openapi.yaml`.
const RESPONSES_STREAM: &[u8] = b"event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"model\":\"gpt-5-mini-2025-08-07\",\"output\":[],\"usage\":null}}\n\n\
event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":1,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"{\\\"value\\\": \"}\n\n\
event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"42}\"}\n\n\
event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":3,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"model\":\"gpt-5-mini-2025-08-07\",\"output\":[],\"usage\":{\"input_tokens\":12,\"output_tokens\":5,\"total_tokens\":17}}}\n\n";

/// A Gemini `streamGenerateContent?alt=sse` stream: `data:` chunks, the last with its finish
/// reason.
const GEMINI_STREAM: &[u8] = b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"{\\\"value\\\": \"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":9},\"modelVersion\":\"gemini-2.5-flash\"}\n\n\
data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"4\"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":4},\"modelVersion\":\"gemini-2.5-flash\"}\n\n\
data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":4},\"modelVersion\":\"gemini-2.5-flash\"}\n\n\
data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"2}\"}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":9,\"candidatesTokenCount\":5},\"modelVersion\":\"gemini-2.5-flash\"}\n\n";

/// The limits a test sets; the providers' defaults otherwise (retries made fast).
struct Limits {
    timeout: Duration,
    idle_timeout: Duration,
    max_event_bytes: Option<usize>,
    max_response_bytes: Option<usize>,
    max_retries: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(20),
            idle_timeout: Duration::from_secs(120),
            max_event_bytes: None,
            max_response_bytes: None,
            max_retries: 2,
        }
    }
}

macro_rules! configure {
    ($provider:expr, $limits:expr) => {{
        let mut provider = $provider
            .with_retry_policy(quick_retries($limits.max_retries))
            .with_timeout($limits.timeout)
            .with_idle_timeout($limits.idle_timeout);
        if let Some(bytes) = $limits.max_event_bytes {
            provider = provider.with_max_event_bytes(bytes);
        }
        if let Some(bytes) = $limits.max_response_bytes {
            provider = provider.with_max_response_bytes(bytes);
        }
        Box::new(provider) as Box<dyn Provider>
    }};
}

impl Wire {
    fn provider(self, base: &str, limits: &Limits) -> Box<dyn Provider> {
        match self {
            Wire::OpenAi => configure!(
                OpenAiProvider::new("sk-test").with_base_url(format!("{base}/v1")),
                limits
            ),
            Wire::Anthropic => {
                configure!(AnthropicProvider::new("sk-ant").with_base_url(base), limits)
            }
            Wire::Responses => configure!(
                OpenAiProvider::new("sk-test")
                    .with_base_url(format!("{base}/v1"))
                    .with_api(OpenAiApi::Responses),
                limits
            ),
            Wire::Gemini => {
                configure!(GeminiProvider::new("AIza-test").with_base_url(base), limits)
            }
        }
    }

    /// A whole, valid stream.
    fn stream(self) -> &'static [u8] {
        match self {
            Wire::OpenAi => include_bytes!("../fixtures/recorded/llama_cpp.sse"),
            Wire::Anthropic => include_bytes!("../fixtures/recorded/anthropic.sse"),
            Wire::Responses => RESPONSES_STREAM,
            Wire::Gemini => GEMINI_STREAM,
        }
    }

    /// The stream without its last event.
    fn without_end(self) -> &'static [u8] {
        let stream = self.stream();
        let last = stream[..stream.len() - 2]
            .windows(2)
            .rposition(|w| w == b"\n\n")
            .unwrap();
        &stream[..last + 2]
    }

    /// The stream's first event.
    fn first_event(self) -> &'static [u8] {
        let stream = self.stream();
        &stream[..stream.windows(2).position(|w| w == b"\n\n").unwrap() + 2]
    }

    /// An event whose data is not JSON.
    fn malformed_event(self) -> &'static [u8] {
        match self {
            Wire::OpenAi => b"data: {\"choices\":[{\"delta\":{\"content\":\"un\n\n",
            Wire::Anthropic => {
                b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\n\n"
            }
            Wire::Responses => {
                b"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\n\n"
            }
            Wire::Gemini => b"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"un\n\n",
        }
    }

    /// The start of an event's data line.
    fn data_prefix(self) -> &'static [u8] {
        match self {
            Wire::OpenAi | Wire::Gemini => b"data: ",
            Wire::Anthropic => b"event: content_block_delta\ndata: ",
            Wire::Responses => b"event: response.output_text.delta\ndata: ",
        }
    }

    /// An event carrying `text` as a piece of the reply.
    fn text_event(self, text: &str) -> Vec<u8> {
        let text = serde_json::to_string(text).unwrap();
        match self {
            Wire::OpenAi => format!("data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{text}}}}}]}}\n\n"),
            Wire::Anthropic => format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":{text}}}}}\n\n"),
            Wire::Responses => format!("event: response.output_text.delta\ndata: {{\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,\"delta\":{text}}}\n\n"),
            Wire::Gemini => format!("data: {{\"candidates\":[{{\"content\":{{\"parts\":[{{\"text\":{text}}}]}}}}]}}\n\n"),
        }
        .into_bytes()
    }

    fn end_marker(self) -> &'static str {
        match self {
            Wire::OpenAi => "`data: [DONE]`",
            Wire::Anthropic => "`message_stop`",
            Wire::Responses => "`response.completed` or `response.incomplete`",
            Wire::Gemini => "a chunk with a finishReason",
        }
    }

    fn endpoint(self, base: &str) -> String {
        match self {
            Wire::OpenAi => format!("{base}/v1/chat/completions"),
            Wire::Anthropic => format!("{base}/v1/messages"),
            Wire::Responses => format!("{base}/v1/responses"),
            Wire::Gemini => format!("{base}/v1beta/models/gemini-2.5-flash:streamGenerateContent"),
        }
    }
}

/// Streams one request from `wire` against a server answering with `reply`.
async fn stream_with(
    wire: Wire,
    limits: Limits,
    reply: impl Fn(usize) -> Reply + Send + Sync + 'static,
) -> (Result<AiResponse, ProviderError>, SseServer) {
    let server = SseServer::start(reply).await;
    let provider = wire.provider(&server.base, &limits);
    let request = AiRequest::new("system", "user");
    let result = ReplyAssembler::collect(provider.stream(&request)).await;
    (result, server)
}

/// Streams `body`, sent in one read, from `wire` with the default limits, and checks the error.
async fn assert_body_fails(
    wire: Wire,
    body: Vec<u8>,
    kind: ProviderErrorKind,
    says: &str,
) -> SseServer {
    let (result, server) = stream_with(wire, Limits::default(), move |_| {
        Reply::events([body.clone()])
    })
    .await;
    assert_error(&result.unwrap_err(), kind, wire, &server, says);
    server
}

fn assert_error(
    error: &ProviderError,
    kind: ProviderErrorKind,
    wire: Wire,
    server: &SseServer,
    says: &str,
) {
    assert_eq!(error.kind, kind, "{wire:?}: {}", error.message);
    let prefix = format!("the stream from {} ", wire.endpoint(&server.base));
    assert!(
        error.message.starts_with(&prefix),
        "{wire:?}: {}",
        error.message
    );
    assert!(error.message.contains(says), "{wire:?}: {}", error.message);
}

#[tokio::test]
async fn an_event_that_is_not_json_is_a_decode_error_showing_the_event() {
    for wire in WIRES {
        let body = [wire.first_event(), wire.malformed_event()].concat();
        let says = match wire {
            Wire::OpenAi => "sent an event that is not a Chat Completions chunk (EOF while parsing a string at line 1 column 35): {\"choices\":[{\"delta\":{\"content\":\"un",
            Wire::Anthropic => "sent a `content_block_delta` event that is not a Messages API event (EOF while parsing a value at line 1 column 30): {\"type\":\"content_block_delta\",",
            Wire::Responses => "sent an event that is not a Responses API event (EOF while parsing a value at line 1 column 37): {\"type\":\"response.output_text.delta\",",
            Wire::Gemini => "sent an event that is not a GenerateContentResponse (EOF while parsing a string at line 1 column 47): {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"un",
        };
        let server = assert_body_fails(wire, body, ProviderErrorKind::Decode, says).await;
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn bytes_that_are_not_utf8_are_a_decode_error() {
    for wire in WIRES {
        let body = [wire.first_event(), wire.data_prefix(), b"\"\xff\xfe\"\n\n"].concat();
        assert_body_fails(
            wire,
            body,
            ProviderErrorKind::Decode,
            "is not an event stream: event 2 is not valid UTF-8",
        )
        .await;
    }
}

#[tokio::test]
async fn a_stream_that_stops_in_the_middle_of_an_event_is_broken() {
    for wire in WIRES {
        let stream = wire.stream();
        let cut = wire.first_event().len() + 40;
        // The body ends cleanly, but inside an event.
        assert_body_fails(
            wire,
            stream[..cut].to_vec(),
            ProviderErrorKind::StreamBroken,
            &format!("broke after {cut} bytes: the stream ended in the middle of an event"),
        )
        .await;
        // The connection drops inside an event.
        let (result, server) = stream_with(wire, Limits::default(), move |_| {
            Reply::events([stream[..cut].to_vec()]).then([Step::Drop])
        })
        .await;
        assert_error(
            &result.unwrap_err(),
            ProviderErrorKind::StreamBroken,
            wire,
            &server,
            &format!("broke after {cut} bytes: the connection failed"),
        );
        assert_eq!(server.requests().len(), 1, "not retried");
    }
}

#[tokio::test]
async fn an_error_in_the_stream_breaks_it_with_the_servers_message() {
    for wire in WIRES {
        let error_event: &[u8] = match wire {
            Wire::OpenAi => b"data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n",
            Wire::Anthropic => b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"The server had an error while processing your request.\"}}\n\n",
            Wire::Responses => b"event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error while processing your request.\",\"param\":null}\n\n",
            Wire::Gemini => b"data: {\"error\":{\"code\":500,\"message\":\"The server had an error while processing your request.\",\"status\":\"INTERNAL\"}}\n\n",
        };
        let body = [wire.first_event(), error_event].concat();
        assert_body_fails(
            wire,
            body,
            ProviderErrorKind::StreamBroken,
            "the server sent an error: ",
        )
        .await;
    }
}

#[tokio::test]
async fn a_stream_cut_inside_a_multi_byte_character_is_broken_and_never_a_reply() {
    for wire in WIRES {
        let event = wire.text_event("café, naïve");
        let inside = event.windows(2).position(|w| w == "é".as_bytes()).unwrap() + 1;
        // The body ends after the first byte of a two-byte character.
        let body = [wire.first_event(), &event[..inside]].concat();
        let (result, server) = stream_with(wire, Limits::default(), move |_| {
            Reply::events([body.clone()])
        })
        .await;
        let error = result.unwrap_err();
        assert_error(
            &error,
            ProviderErrorKind::StreamBroken,
            wire,
            &server,
            "the stream ended in the middle of an event",
        );
        // Split inside the character but whole, it reads as written.
        let whole = [
            wire.first_event(),
            &event,
            &wire.stream()[wire.first_event().len()..],
        ]
        .concat();
        let (result, _) = stream_with(wire, Limits::default(), move |_| {
            Reply::events([
                whole[..inside + wire.first_event().len()].to_vec(),
                whole[inside + wire.first_event().len()..].to_vec(),
            ])
        })
        .await;
        let reply = result.unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        assert!(
            reply.text.contains("café, naïve"),
            "{wire:?}: {:?}",
            reply.text
        );
    }
}

#[tokio::test]
async fn a_stream_without_its_end_is_broken_whether_it_closes_or_goes_silent() {
    for wire in WIRES {
        let body = wire.without_end();
        assert_body_fails(
            wire,
            body.to_vec(),
            ProviderErrorKind::StreamBroken,
            &format!(
                "broke after {} bytes: it ended without {}; the reply is incomplete",
                body.len(),
                wire.end_marker()
            ),
        )
        .await;

        let limits = Limits {
            idle_timeout: Duration::from_millis(300),
            ..Limits::default()
        };
        let started = Instant::now();
        let (result, server) = stream_with(wire, limits, move |_| {
            Reply::events([body.to_vec()]).then([Step::Hold])
        })
        .await;
        assert_error(
            &result.unwrap_err(),
            ProviderErrorKind::StreamBroken,
            wire,
            &server,
            "no event for 0.3 s (the idle timeout; set it with with_idle_timeout)",
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(server.wait_closed(0, Duration::from_secs(5)).await);
    }
}

#[tokio::test]
async fn a_50_mb_event_is_refused_at_the_event_limit_and_the_connection_closed() {
    for wire in WIRES {
        let started = Instant::now();
        let (result, server) = stream_with(wire, Limits::default(), move |_| {
            Reply::events([wire.first_event().to_vec(), wire.data_prefix().to_vec()])
                .then([Step::Repeat(vec![b'x'; 64 * 1024], 800)])
        })
        .await;
        assert_error(
            &result.unwrap_err(),
            ProviderErrorKind::Decode,
            wire,
            &server,
            "sent an event larger than max_event_bytes (4194304 bytes; set it with with_max_event_bytes); the rest was not read",
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(server.wait_closed(0, Duration::from_secs(5)).await);
    }
}

#[tokio::test]
async fn a_server_that_drips_one_byte_a_second_is_stopped_by_the_idle_timeout() {
    let drips = WIRES.map(|wire| async move {
        let limits = Limits {
            idle_timeout: Duration::from_millis(1500),
            ..Limits::default()
        };
        let started = Instant::now();
        let (result, server) = stream_with(wire, limits, move |_| Reply {
            status: 200,
            content_type: "text/event-stream",
            steps: wire
                .stream()
                .iter()
                .flat_map(|&b| [Step::Chunk(vec![b]), Step::Sleep(Duration::from_secs(1))])
                .collect(),
        })
        .await;
        let elapsed = started.elapsed();
        assert_error(
            &result.unwrap_err(),
            ProviderErrorKind::StreamBroken,
            wire,
            &server,
            "bytes: no event for 1.5 s (the idle timeout",
        );
        assert!(
            elapsed >= Duration::from_millis(1400) && elapsed < Duration::from_secs(4),
            "{elapsed:?}"
        );
        assert!(server.wait_closed(0, Duration::from_secs(5)).await);
    });
    futures::future::join_all(drips).await;
}

#[tokio::test]
async fn a_server_that_only_sends_keep_alives_is_stopped_by_the_timeout() {
    for wire in WIRES {
        let limits = Limits {
            timeout: Duration::from_secs(1),
            idle_timeout: Duration::from_millis(500),
            max_retries: 0,
            ..Limits::default()
        };
        let started = Instant::now();
        let (result, server) = stream_with(wire, limits, move |_| Reply {
            status: 200,
            content_type: "text/event-stream",
            steps: (0..100)
                .flat_map(|_| {
                    [
                        Step::Chunk(b": keep-alive\n".to_vec()),
                        Step::Sleep(Duration::from_millis(100)),
                    ]
                })
                .collect(),
        })
        .await;
        assert_error(
            &result.unwrap_err(),
            ProviderErrorKind::StreamBroken,
            wire,
            &server,
            "it did not end within the timeout (1.0 s; set it with with_timeout)",
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
}

#[tokio::test]
async fn a_stream_over_max_response_bytes_is_refused() {
    for wire in WIRES {
        let limits = Limits {
            max_response_bytes: Some(20_000),
            ..Limits::default()
        };
        // Valid events, many of them: the stream without its end, again and again.
        let events = wire.without_end()[wire.first_event().len()..].to_vec();
        let (result, server) = stream_with(wire, limits, move |_| {
            Reply::events([wire.first_event().to_vec()]).then([Step::Repeat(events.clone(), 100)])
        })
        .await;
        assert_error(
            &result.unwrap_err(),
            ProviderErrorKind::Decode,
            wire,
            &server,
            "is larger than max_response_bytes (20000 bytes); the rest was not read",
        );
    }
}

#[tokio::test]
async fn a_body_that_is_not_an_event_stream_says_what_it_was() {
    for wire in WIRES {
        assert_body_fails(
            wire,
            b"<html><body>Bad gateway</body></html>\n".to_vec(),
            ProviderErrorKind::StreamBroken,
            "(1 line was not an event-stream field; the first: \"<html><body>Bad gateway</body></html>\")",
        )
        .await;
    }
}

#[tokio::test]
async fn a_server_silent_before_the_first_byte_is_a_timeout_retried() {
    for wire in WIRES {
        let limits = Limits {
            timeout: Duration::from_millis(500),
            max_retries: 1,
            ..Limits::default()
        };
        let (result, server) = stream_with(wire, limits, |_| {
            Reply::events([]).then([Step::Sleep(Duration::from_secs(3))])
        })
        .await;
        let error = result.unwrap_err();
        assert_eq!(error.kind, ProviderErrorKind::Timeout, "{}", error.message);
        assert!(
            error
                .message
                .contains("within the timeout (0.5 s; set it with with_timeout)"),
            "{}",
            error.message
        );
        assert_eq!(server.requests().len(), 2);
    }
}

//! OpenAI Chat Completions streaming on the wire (127.0.0.1): recorded streams read the same cut
//! at every byte, the streamed reply equals the reply read whole, retries before the first byte
//! only, and connections kept or closed as they should be.

use std::time::Duration;

use futures::StreamExt;
use intent_core::provider::{
    AiResponse, FinishReason, OpenAiProvider, Provider, ProviderError, ProviderErrorKind,
    ReplyAssembler, StreamPiece,
};
use intent_core::{AiRequest, Usage};
use serde_json::{json, Value};
use wiremock::matchers::{body_partial_json, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

use intent_tests::sse_server::{Reply, SseServer, Step};
use intent_tests::wire::quick_retries;

/// A stream recorded from llama.cpp's server (Qwen2.5-Coder-0.5B, temperature 0).
const LLAMA_CPP: &[u8] = include_bytes!("../fixtures/recorded/llama_cpp.sse");
/// A stream in OpenAI's own form: `obfuscation`, `service_tier`, a usage chunk with details.
const OPENAI: &[u8] = include_bytes!("../fixtures/recorded/openai.sse");

pub fn provider_at(base: &str) -> OpenAiProvider {
    OpenAiProvider::new("sk-test")
        .with_base_url(format!("{base}/v1"))
        .with_retry_policy(quick_retries(2))
        .with_timeout(Duration::from_secs(10))
}

fn request() -> AiRequest {
    AiRequest::new("You are terse.", "Greet.")
}

fn reply(text: &str, model: &str, usage: (u64, u64, u64)) -> AiResponse {
    let mut reply = AiResponse::new(text, model);
    reply.usage = Usage {
        input_tokens: usage.0,
        output_tokens: usage.1,
        cached_tokens: usage.2,
        reasoning_tokens: 0,
        calls: 1,
    };
    reply
}

fn llama_cpp_reply() -> AiResponse {
    reply(
        " Grüße aus Köln — 日本 🙂",
        "qwen2.5-coder-0.5b-instruct",
        (41, 9, 4),
    )
}

fn openai_reply() -> AiResponse {
    reply(
        r#"{"value": {"greeting": "Grüße aus Köln — 日本 🙂", "count": 3}}"#,
        "gpt-4o-mini-2024-07-18",
        (52, 19, 0),
    )
}

async fn stream(provider: &OpenAiProvider) -> Result<AiResponse, ProviderError> {
    ReplyAssembler::collect(provider.stream(&request())).await
}

/// Cut lists for `body`: every position (8 to a reply), then every byte its own read.
pub fn cuts(body: &[u8]) -> Vec<Vec<usize>> {
    let mut cuts = Reply::every_cut(body.len(), 8);
    cuts.push((1..body.len()).collect());
    cuts
}

#[tokio::test]
async fn a_recorded_llama_cpp_stream_reads_the_same_cut_at_every_byte() {
    let cuts = cuts(LLAMA_CPP);
    let script = cuts.clone();
    let server = SseServer::start(move |n| Reply::cut(LLAMA_CPP, &script[n])).await;
    let provider = provider_at(&server.base);
    for cut in &cuts {
        assert_eq!(
            stream(&provider).await.unwrap(),
            llama_cpp_reply(),
            "cut at {cut:?}"
        );
    }
    // Every stream was read to its end: one connection served them all.
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn the_request_asks_for_a_stream_with_usage() {
    let server = SseServer::start(|_| Reply::events([LLAMA_CPP.to_vec()])).await;
    let provider = provider_at(&server.base).with_model("qwen");
    stream(&provider).await.unwrap();
    let sent: Value = serde_json::from_str(&server.requests()[0]).unwrap();
    assert_eq!(sent["stream"], json!(true));
    assert_eq!(sent["stream_options"], json!({"include_usage": true}));
    assert_eq!(sent["model"], json!("qwen"));
    assert_eq!(
        sent["messages"][1],
        json!({"role": "user", "content": "Greet."})
    );
}

/// Checks that `body`, with LF, CRLF or lone CR line endings, cut at every byte, streams to
/// `expected` from the provider `at(base)` builds, all over one connection.
pub async fn assert_reads_the_same_at_every_cut(
    body: &[u8],
    at: impl Fn(&str) -> Box<dyn Provider>,
    expected: &AiResponse,
) {
    let text = String::from_utf8(body.to_vec()).unwrap();
    let bodies = [
        body.to_vec(),
        text.replace('\n', "\r\n").into_bytes(),
        text.replace('\n', "\r").into_bytes(),
    ];
    let cuts: Vec<(usize, Vec<usize>)> = (0..bodies.len())
        .flat_map(|b| cuts(&bodies[b]).into_iter().map(move |c| (b, c)))
        .collect();
    let script = {
        let cuts = cuts.clone();
        move |n: usize| Reply::cut(&bodies[cuts[n].0], &cuts[n].1)
    };
    let server = SseServer::start(script).await;
    let provider = at(&server.base);
    let request = request();
    for (body, cut) in cuts {
        let reply = ReplyAssembler::collect(provider.stream(&request)).await;
        assert_eq!(&reply.unwrap(), expected, "body {body} cut at {cut:?}");
    }
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn openais_own_form_reads_the_same_cut_at_every_byte_and_with_any_line_ending() {
    let at = |base: &str| Box::new(provider_at(base)) as Box<dyn Provider>;
    assert_reads_the_same_at_every_cut(OPENAI, at, &openai_reply()).await;
}

/// A Chat Completions stream: one chunk per delta, the finish reason, the usage chunk, `[DONE]`.
fn chat_stream(deltas: &[Value], finish: &str) -> String {
    let chunk = |choices: Value, usage: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "c1", "object": "chat.completion.chunk", "model": "gpt-4o-mini",
                   "choices": choices, "usage": usage})
        )
    };
    let mut body: String = deltas
        .iter()
        .map(|d| {
            chunk(
                json!([{"index": 0, "delta": d, "finish_reason": null}]),
                Value::Null,
            )
        })
        .collect();
    body += &chunk(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        Value::Null,
    );
    body += &chunk(
        json!([]),
        json!({"prompt_tokens": 8, "completion_tokens": 2, "total_tokens": 10,
               "prompt_tokens_details": {"cached_tokens": 5}}),
    );
    body + "data: [DONE]\n\n"
}

/// The same reply, read whole.
fn chat_reply(content: Value, refusal: Value, finish: &str) -> Value {
    json!({
        "id": "c1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": content, "refusal": refusal}}],
        "usage": {"prompt_tokens": 8, "completion_tokens": 2, "total_tokens": 10,
                  "prompt_tokens_details": {"cached_tokens": 5}}
    })
}

/// Checks that the provider `at(base)` builds gives the same reply streamed (from `events`) as
/// read whole (from `whole`), against a server that answers a request asking for a stream with the
/// one and any other with the other.
pub async fn assert_streamed_is_whole(
    events: String,
    whole: &Value,
    at: impl Fn(&str) -> Box<dyn Provider>,
    case: &str,
) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"stream": true})))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(events),
        )
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(whole))
        .with_priority(2)
        .mount(&server)
        .await;
    let provider = at(&server.uri());
    let request = request();
    let completed = provider.complete(&request).await.unwrap();
    let streamed = ReplyAssembler::collect(provider.stream(&request))
        .await
        .unwrap();
    assert_eq!(streamed, completed, "{case}");
}

#[tokio::test]
async fn the_streamed_reply_is_the_reply_read_whole() {
    let cases = [
        (
            vec![
                json!({"role": "assistant", "content": ""}),
                json!({"content": "{\"value\": "}),
                json!({"content": "42}"}),
            ],
            chat_reply(json!("{\"value\": 42}"), Value::Null, "stop"),
            "stop",
        ),
        (
            vec![json!({"content": "{\"value\": [1, 2"})],
            chat_reply(json!("{\"value\": [1, 2"), Value::Null, "length"),
            "length",
        ),
        (
            vec![
                json!({"refusal": ""}),
                json!({"refusal": "I can't help"}),
                json!({"refusal": " with that."}),
            ],
            chat_reply(Value::Null, json!("I can't help with that."), "stop"),
            "stop",
        ),
        (
            vec![json!({"refusal": " "}), json!({"content": "ok"})],
            chat_reply(json!("ok"), json!(" "), "stop"),
            "stop",
        ),
        (
            vec![json!({"reasoning": "  "}), json!({"content": "x"})],
            {
                let mut whole = chat_reply(json!("x"), Value::Null, "stop");
                whole["choices"][0]["message"]["reasoning"] = json!("  ");
                whole
            },
            "stop",
        ),
        (
            vec![json!({"content": "partial"})],
            chat_reply(json!("partial"), Value::Null, "content_filter"),
            "content_filter",
        ),
        (
            vec![
                json!({"reasoning_content": " "}),
                json!({"reasoning_content": "Think."}),
                json!({"content": "7"}),
            ],
            {
                let mut whole = chat_reply(json!("7"), Value::Null, "tool_calls");
                whole["choices"][0]["message"]["reasoning_content"] = json!(" Think.");
                whole
            },
            "tool_calls",
        ),
    ];
    for (deltas, whole, finish) in cases {
        let at = |base: &str| Box::new(provider_at(base)) as Box<dyn Provider>;
        assert_streamed_is_whole(
            chat_stream(&deltas, finish),
            &whole,
            at,
            &format!("{deltas:?}"),
        )
        .await;
    }
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_is_read_whole() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat_reply(
            json!("whole"),
            Value::Null,
            "stop",
        )))
        .mount(&server)
        .await;
    let provider = provider_at(&server.uri());
    let pieces: Vec<_> = provider.stream(&request()).collect().await;
    assert_eq!(
        pieces[0].as_ref().unwrap(),
        &StreamPiece::Text("whole".into())
    );
    assert!(matches!(pieces[1], Ok(StreamPiece::End(_))));
    assert_eq!(
        stream(&provider).await.unwrap(),
        provider.complete(&request()).await.unwrap()
    );
}

#[tokio::test]
async fn faults_before_the_first_byte_are_retried() {
    let server = SseServer::start(|n| match n {
        0 => Reply {
            status: 503,
            content_type: "application/json",
            steps: vec![Step::Chunk(
                br#"{"error":{"message":"busy","type":"server_error"}}"#.to_vec(),
            )],
        },
        // The headers, then the connection dropped before the body's first byte.
        1 => Reply::events([]).then([Step::Drop]),
        _ => Reply::events([LLAMA_CPP.to_vec()]),
    })
    .await;
    let reply = stream(&provider_at(&server.base)).await.unwrap();
    assert_eq!(reply, llama_cpp_reply());
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn http_errors_are_the_errors_complete_gives() {
    let server = SseServer::start(|_| Reply {
        status: 400,
        content_type: "application/json",
        steps: vec![Step::Chunk(
            br#"{"error":{"message":"Invalid schema for response_format 'intent_output'.","type":"invalid_request_error","param":null,"code":null}}"#.to_vec(),
        )],
    })
    .await;
    let provider = provider_at(&server.base);
    let streamed = stream(&provider).await.unwrap_err();
    let completed = provider.complete(&request()).await.unwrap_err();
    assert_eq!(streamed.kind, ProviderErrorKind::InvalidRequest);
    assert_eq!(streamed.message, completed.message);
    assert_eq!(
        streamed.message,
        "HTTP 400 invalid_request_error: Invalid schema for response_format 'intent_output'."
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_stream_that_breaks_after_it_began_is_not_retried() {
    let half = LLAMA_CPP.len() / 2;
    let server =
        SseServer::start(move |_| Reply::cut(&LLAMA_CPP[..half], &[]).then([Step::Drop])).await;
    let provider = provider_at(&server.base);
    let request = request();
    let mut pieces = provider.stream(&request);
    let mut text = String::new();
    let error = loop {
        match pieces.next().await.expect("the stream ends with an error") {
            Ok(StreamPiece::Text(piece)) => text.push_str(&piece),
            Ok(other) => panic!("{other:?}"),
            Err(error) => break error,
        }
    };
    assert!(pieces.next().await.is_none());
    assert_eq!(text, " Grüße aus Köln —");
    assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
    assert_eq!(error.provider, "openai");
    assert!(
        error.message.starts_with(&format!(
            "the stream from {}/v1/chat/completions broke after {half} bytes: the connection failed",
            server.base
        )),
        "{}",
        error.message
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn pieces_come_as_the_server_writes_them_and_dropping_the_stream_closes_the_connection() {
    let first_event = LLAMA_CPP.windows(2).position(|w| w == b"\n\n").unwrap() + 2;
    let second_event = first_event
        + LLAMA_CPP[first_event..]
            .windows(2)
            .position(|w| w == b"\n\n")
            .unwrap()
        + 2;
    let server = SseServer::start(move |_| {
        Reply::events([LLAMA_CPP[..second_event].to_vec()]).then([Step::Hold])
    })
    .await;
    let provider = provider_at(&server.base);
    let request = request();
    let mut pieces = provider.stream(&request);
    // The first text piece arrives while the server still holds the rest.
    let piece = tokio::time::timeout(Duration::from_secs(5), pieces.next())
        .await
        .expect("a piece before the body ends")
        .unwrap()
        .unwrap();
    assert_eq!(piece, StreamPiece::Text(" Grü".into()));
    assert!(!server.wait_closed(0, Duration::from_millis(200)).await);
    drop(pieces);
    assert!(
        server.wait_closed(0, Duration::from_secs(5)).await,
        "the server did not see the connection close: {:?}",
        server.seen()
    );
}

#[tokio::test]
async fn a_finish_reason_on_the_last_chunk_is_read() {
    let body = chat_stream(&[json!({"content": "cut"})], "length");
    let server = SseServer::start(move |_| Reply::events([body.clone().into_bytes()])).await;
    let reply = stream(&provider_at(&server.base)).await.unwrap();
    assert_eq!(reply.finish_reason, FinishReason::Length);
    assert_eq!(reply.text, "cut");
}

#[tokio::test]
async fn a_key_echoed_in_the_stream_is_redacted_even_cut_across_pieces() {
    let deltas = [
        json!({"reasoning_content": "The key is sk-"}),
        json!({"reasoning_content": "test."}),
        json!({"content": "Your key: s"}),
        json!({"content": "k-te"}),
        json!({"content": "st; escaped: \\u0073k-test; almost: sk-tes"}),
    ];
    let mut whole = chat_reply(
        json!("Your key: sk-test; escaped: \\u0073k-test; almost: sk-tes"),
        Value::Null,
        "stop",
    );
    whole["choices"][0]["message"]["reasoning_content"] = json!("The key is sk-test.");
    let at = |base: &str| Box::new(provider_at(base)) as Box<dyn Provider>;
    assert_streamed_is_whole(chat_stream(&deltas, "stop"), &whole, at, "a key").await;

    let body = chat_stream(&deltas, "stop");
    let server = SseServer::start(move |_| Reply::events([body.clone().into_bytes()])).await;
    let provider = provider_at(&server.base);
    let request = request();
    let pieces: Vec<StreamPiece> = provider
        .stream(&request)
        .map(Result::unwrap)
        .collect()
        .await;
    let texts: Vec<&str> = pieces.iter().filter_map(StreamPiece::as_text).collect();
    assert_eq!(
        texts,
        [
            "Your key: ",
            "[redacted]; escaped: [redacted]; almost: ",
            "sk-tes"
        ]
    );
    assert!(pieces.iter().all(|p| !format!("{p:?}").contains("sk-test")));
}

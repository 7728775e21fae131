//! API keys never show: not in `Debug`, errors, issues or logs (captured at TRACE), even when a
//! server echoes the key back in any part of its reply.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::{Provider, RetryPolicy};
use intent_core::AiRequest;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "SECRETKEY-0123456789abcdefXYZ";

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every trace event of this thread, at TRACE, into the returned buffer while the guard lives.
fn capture_traces() -> (Captured, intent_tests::trace_route::RouteGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    (captured, intent_tests::trace_route::route_to(subscriber))
}

/// Fails when any 8 characters of the key in a row show in `text`.
fn assert_no_key(text: &str, what: &str) {
    for start in 0..=KEY.len() - 8 {
        let piece = &KEY[start..start + 8];
        assert!(
            !text.contains(piece),
            "{what} shows part of the key ({piece}):\n{text}"
        );
    }
}

fn fast() -> RetryPolicy {
    RetryPolicy {
        max_retries: 1,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(10),
        max_retry_after: Duration::from_secs(1),
    }
}

async fn server_answering(template: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(template)
        .mount(&server)
        .await;
    server
}

/// Replies that echo the key in every place an error message is made from.
fn echoing_replies() -> Vec<(&'static str, ResponseTemplate)> {
    let padded = format!("{}{KEY}", "x".repeat(490));
    vec![
        (
            "a 200 that is not JSON",
            ResponseTemplate::new(200).set_body_string(format!("<html>bad key {KEY}</html>")),
        ),
        (
            "a 200 with an error and no choices",
            ResponseTemplate::new(200)
                .set_body_json(json!({"error": {"message": format!("key {KEY} refused")}})),
        ),
        (
            "a 200 with an error that is a bare string",
            ResponseTemplate::new(200).set_body_json(json!({"error": format!("key {KEY}")})),
        ),
        (
            "a 401 whose raw body is cut in the middle of the key",
            ResponseTemplate::new(401).set_body_string(padded.clone()),
        ),
        (
            "a 500, retried, echoing the key",
            ResponseTemplate::new(500)
                .set_body_json(json!({"error": {"message": format!("boom {KEY}")}})),
        ),
        (
            "a 200 with choices of the wrong type echoing the key",
            ResponseTemplate::new(200).set_body_json(json!({"choices": format!("{KEY}")})),
        ),
    ]
}

#[tokio::test]
async fn a_failing_openai_call_never_shows_the_key_in_issues_errors_or_trace_logs() {
    for (case, template) in echoing_replies() {
        let (captured, _guard) = capture_traces();

        let server = server_answering(template).await;
        let provider = OpenAiProvider::new(KEY)
            .with_base_url(format!("{}/v1", server.uri()))
            .with_retry_policy(fast());
        assert_no_key(&format!("{provider:?}"), "the provider's Debug");
        let error = provider
            .complete(&AiRequest::new("s", "u"))
            .await
            .unwrap_err();
        assert_no_key(&format!("{error} {error:?}"), case);

        // Through a client with a fallback, so the fallback's warning is logged too.
        let client = IntentClient::builder()
            .provider(provider)
            .fallback(ScriptedProvider::new(Vec::<String>::new()))
            .build()
            .unwrap();
        let result = u32::ai(&client, "three", "Count.").await;
        assert!(!result.is_success(), "{case}");
        assert_no_key(&format!("{result:?}"), case);
        for issue in result.issues() {
            assert_no_key(&issue.to_string(), case);
        }
        let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(!log.is_empty(), "{case}: nothing was logged");
        assert_no_key(&log, case);
    }
}

#[tokio::test]
async fn a_failing_anthropic_call_never_shows_the_key() {
    for (case, template) in echoing_replies() {
        let server = server_answering(template).await;
        let provider = AnthropicProvider::new(KEY)
            .with_base_url(server.uri())
            .with_retry_policy(fast());
        assert_no_key(&format!("{provider:?}"), "the provider's Debug");
        let error = provider
            .complete(&AiRequest::new("s", "u"))
            .await
            .unwrap_err();
        assert_no_key(&format!("{error} {error:?}"), case);
    }
}

/// A server that answers in order with `replies`, each built by `reply(model, text)`.
async fn answering_in_order(replies: Vec<serde_json::Value>) -> MockServer {
    let server = MockServer::start().await;
    let count = replies.len();
    for (i, body) in replies.into_iter().enumerate() {
        let mock = Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .with_priority(u8::try_from(i + 1).unwrap());
        if i + 1 < count {
            mock.up_to_n_times(1).mount(&server).await;
        } else {
            mock.mount(&server).await;
        }
    }
    server
}

fn chat(model: &str, text: &str) -> serde_json::Value {
    json!({
        "model": model,
        "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1}
    })
}

fn messages(model: &str, text: &str) -> serde_json::Value {
    json!({
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 1}
    })
}

/// Runs a call whose first answer echoes the key (in `model` and in the answer, which fails
/// verification), then a valid one; checks that the key shows nowhere a later stage puts text.
async fn echoed_key_is_redacted_everywhere(
    provider: impl Provider + 'static,
    server: &MockServer,
    case: &str,
) {
    let (captured, _guard) = capture_traces();

    let client = IntentClient::new(provider);
    let result = u32::ai(&client, "three", "Count.").await;
    assert_eq!(result.value(), Some(&3), "{case}: {result:?}");
    let attempts = result.attempts();
    assert_eq!(attempts.len(), 2, "{case}");
    let first = &attempts[0];
    assert!(
        !first.issues.is_empty(),
        "{case}: the echoing answer must fail"
    );
    assert!(
        first.raw_output.contains("[redacted]"),
        "{case}: {}",
        first.raw_output
    );
    assert!(
        first.model.contains("[redacted]"),
        "{case}: {}",
        first.model
    );
    for attempt in attempts {
        assert_no_key(&attempt.raw_output, case);
        assert_no_key(&attempt.model, case);
        for issue in &attempt.issues {
            assert_no_key(&issue.to_string(), case);
        }
    }
    assert_no_key(&format!("{result:?}"), case);

    // The second attempt's prompt quotes the first answer and its problems: redacted.
    let sent = server.received_requests().await.unwrap();
    assert_eq!(sent.len(), 2, "{case}");
    let retry_prompt = String::from_utf8(sent[1].body.clone()).unwrap();
    assert!(
        retry_prompt.contains("Previous attempt"),
        "{case}: {retry_prompt}"
    );
    assert!(
        retry_prompt.contains("[redacted]"),
        "{case}: {retry_prompt}"
    );
    assert_no_key(&retry_prompt, case);

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        log.contains("[redacted]"),
        "{case}: the model's name is logged: {log}"
    );
    assert_no_key(&log, case);
}

#[tokio::test]
async fn a_key_echoed_in_the_model_and_the_answer_is_redacted_everywhere() {
    let echoed_model = format!("gpt-{KEY}");
    // The answer carries the key both as it is and JSON-escaped, which decodes to the key.
    let escaped: String = KEY
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let server = answering_in_order(vec![
        chat(
            &echoed_model,
            &format!(r#"{{"value": "{KEY} / {escaped}"}}"#),
        ),
        chat(&echoed_model, r#"{"value": 3}"#),
    ])
    .await;
    let openai = OpenAiProvider::new(KEY)
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(fast());
    echoed_key_is_redacted_everywhere(openai, &server, "openai").await;

    let server = answering_in_order(vec![
        messages(&echoed_model, &format!("The key is {KEY}.")),
        messages(&echoed_model, r#"{"value": 3}"#),
    ])
    .await;
    let anthropic = AnthropicProvider::new(KEY)
        .with_base_url(server.uri())
        .with_retry_policy(fast());
    echoed_key_is_redacted_everywhere(anthropic, &server, "anthropic").await;
}

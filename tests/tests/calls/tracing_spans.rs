//! Tracing: a span per call and per attempt with type, provider, model, tokens, latency and
//! outcome; no prompt text or input, at any level this library logs at.

use std::io::Write;
use std::sync::{Arc, Mutex};

use intent_core::prelude::*;
use intent_core::provider::AiResponse;
use intent_core::Usage;

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

#[tokio::test]
async fn spans_carry_the_call_and_attempt_facts_but_no_prompt_text() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let mut reply = AiResponse::new(r#"{"value": 3}"#, "scripted");
    reply.usage = Usage {
        input_tokens: 40,
        output_tokens: 3,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    let client = IntentClient::new(ScriptedProvider::new([
        "nope".into(),
        intent_core::provider::ScriptedReply::from(reply),
    ]));
    let secret_input = "the patient's name is Jane Q. Example";
    let result = u32::ai(
        &client,
        secret_input,
        "Count the words in this confidential note.",
    )
    .await;
    assert_eq!(result.value(), Some(&3));

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("intent.call"), "{log}");
    assert!(log.contains("intent.attempt"), "{log}");
    assert!(
        log.contains("target=\"u32\"") || log.contains("target=u32"),
        "{log}"
    );
    assert!(log.contains("attempt=2"), "{log}");
    assert!(
        log.contains("provider=\"scripted\"") || log.contains("provider=scripted"),
        "{log}"
    );
    assert!(log.contains("input_tokens=40"), "{log}");
    assert!(
        log.contains("outcome=\"success\"") || log.contains("outcome=success"),
        "{log}"
    );
    assert!(
        !log.contains("Jane"),
        "the input leaked into the log: {log}"
    );
    assert!(
        !log.contains("confidential"),
        "the intent leaked into the log: {log}"
    );
}

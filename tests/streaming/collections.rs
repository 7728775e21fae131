//! `CollectionCall::stream_elements`: each element of a chunk's reply delivered the moment it is
//! certain, once, and `Done` equal to what `.await` gives.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures::StreamExt;
use intent_core::collections::CollectionResult;
use intent_core::prelude::*;
use intent_core::provider::{
    AiResponse, BoxFuture, PieceStream, Provider, ProviderError, StreamPiece,
};
use intent_core::AiRequest;
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
struct Line {
    sku: String,
    #[intent(minimum = 1)]
    quantity: u32,
}

/// What a [`Watched`] provider has streamed: per reply, in the order asked, its text so far and
/// whether it ended.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<(String, bool)>>>);

impl Log {
    fn snapshot(&self) -> Streamed {
        self.0.lock().unwrap().clone()
    }
}

/// A scripted model whose streamed pieces are logged as they leave it.
struct Watched {
    inner: ScriptedProvider,
    log: Log,
}

impl Provider for Watched {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        self.inner.complete(request)
    }
    fn stream<'a>(&'a self, request: &'a AiRequest) -> PieceStream<'a> {
        let log = self.log.clone();
        let reply = {
            let mut replies = log.0.lock().unwrap();
            replies.push((String::new(), false));
            replies.len() - 1
        };
        // Each piece waits a turn first, as a piece from the network does: the scripted model
        // alone would hand out its whole reply in one poll.
        let pieces = self.inner.stream(request).then(|piece| async {
            tokio::task::yield_now().await;
            piece
        });
        Box::pin(pieces.map(move |piece| {
            let mut replies = log.0.lock().unwrap();
            match &piece {
                Ok(StreamPiece::Text(text)) => replies[reply].0.push_str(text),
                Ok(StreamPiece::End(_)) => replies[reply].1 = true,
                _ => {}
            }
            piece
        }))
    }
}

fn watched(replies: &[&str]) -> (IntentClient, Log) {
    let log = Log::default();
    let model = Watched {
        inner: ScriptedProvider::new(replies.iter().copied()).with_stream_chunk_chars(1),
        log: log.clone(),
    };
    (IntentClient::new(model), log)
}

fn each_reply(lines: &[(usize, &str, u32)]) -> String {
    let items: Vec<String> = lines
        .iter()
        .map(|(i, sku, q)| {
            format!(r#"{{"index": {i}, "value": {{"sku": "{sku}", "quantity": {q}}}}}"#)
        })
        .collect();
    format!(r#"{{"value": [{}]}}"#, items.join(", "))
}

const INPUTS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

/// What the model had streamed: per reply, its text so far and whether it ended.
type Streamed = Vec<(String, bool)>;

/// An event and what the model had streamed when it came.
type Seen<K, O> = (CollectionEvent<K, O>, Streamed);

/// Every event, each with what the model had streamed when it came.
async fn events<K: Clone, O>(
    stream: intent_core::collections::CollectionStream<'_, K, O>,
    log: &Log,
) -> Vec<Seen<K, O>> {
    stream
        .map(|event| (event, log.snapshot()))
        .collect::<Vec<_>>()
        .await
}

fn done<K, O>(events: &[Seen<K, O>]) -> &CollectionResult<K, O> {
    match events.last() {
        Some((CollectionEvent::Done(result), _)) => result,
        _ => panic!("Done comes last"),
    }
}

fn delivered<K: Clone, O: Clone>(events: &[Seen<K, O>]) -> Vec<(K, O)> {
    events
        .iter()
        .filter_map(|(e, _)| match e {
            CollectionEvent::Element(k, v) => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn each_element_arrives_before_its_chunk_reply_ends_exactly_once_and_done_equals_await() {
    let first = each_reply(&[(0, "A", 1), (1, "B", 2), (2, "C", 3)]);
    let second = each_reply(&[(3, "D", 4), (4, "E", 5), (5, "F", 6)]);
    let script = [first.as_str(), second.as_str()];

    let (client, _) = watched(&script);
    let awaited = client
        .map_each::<Line>(&INPUTS, "Read the line.")
        .chunk_size(3)
        .concurrency(2)
        .await;
    assert!(awaited.is_complete());

    let (client, log) = watched(&script);
    let stream = client
        .map_each::<Line>(&INPUTS, "Read the line.")
        .chunk_size(3)
        .concurrency(2)
        .stream_elements();
    let events = events(stream, &log).await;

    let mut seen = Vec::new();
    for (event, streamed) in &events {
        let CollectionEvent::Element(index, line) = event else {
            continue;
        };
        // The reply that answers this index had streamed the whole element, and not yet ended.
        let needle = format!(
            r#""index": {index}, "value": {{"sku": "{}", "quantity": {}}}}}"#,
            line.sku, line.quantity
        );
        let (text, ended) = streamed
            .iter()
            .find(|(text, _)| text.contains(&needle))
            .unwrap_or_else(|| panic!("element {index} came before its text: {streamed:?}"));
        assert!(
            !ended,
            "element {index} came only after its reply ended: {text}"
        );
        seen.push(*index);
    }
    seen.sort_unstable();
    assert_eq!(seen, [0, 1, 2, 3, 4, 5], "each input exactly once");

    let result = done(&events);
    assert_eq!(result.values(), awaited.values());
    assert_eq!(result.usage().calls, awaited.usage().calls);
    for (index, line) in delivered(&events) {
        assert_eq!(result.get(index), Some(&line));
    }
    // Both chunks were in flight at once: the second reply began before the first ended.
    let overlapped = events
        .iter()
        .any(|(_, streamed)| streamed.len() == 2 && !streamed[0].1 && !streamed[1].0.is_empty());
    assert!(overlapped, "the chunks ran concurrently");
}

#[tokio::test]
async fn a_reply_that_drops_an_element_is_retried_and_only_the_missing_one_comes_from_the_retry() {
    let dropped = each_reply(&[(0, "A", 1), (1, "B", 2)]);
    let full = each_reply(&[(0, "A", 1), (1, "B", 2), (2, "C", 3)]);
    let second = each_reply(&[(3, "D", 4), (4, "E", 5), (5, "F", 6)]);
    let script = [dropped.as_str(), full.as_str(), second.as_str()];

    let (client, _) = watched(&script);
    let awaited = client
        .map_each::<Line>(&INPUTS, "Read the line.")
        .chunk_size(3)
        .concurrency(1)
        .await;

    let (client, log) = watched(&script);
    let stream = client
        .map_each::<Line>(&INPUTS, "Read the line.")
        .chunk_size(3)
        .concurrency(1)
        .stream_elements();
    let events = events(stream, &log).await;
    let order: Vec<String> = events
        .iter()
        .map(|(e, streamed)| match e {
            CollectionEvent::Element(i, _) => format!("element {i} (reply {})", streamed.len()),
            CollectionEvent::Invalid(i, _) => format!("invalid {i}"),
            CollectionEvent::Retry(chunk, record) => {
                format!("retry chunk {chunk} attempt {}", record.number)
            }
            CollectionEvent::Done(_) => "done".to_owned(),
            _ => "other".to_owned(),
        })
        .collect();
    assert_eq!(
        order,
        [
            "element 0 (reply 1)",
            "element 1 (reply 1)",
            "retry chunk 1 attempt 1",
            "element 2 (reply 2)",
            "element 3 (reply 3)",
            "element 4 (reply 3)",
            "element 5 (reply 3)",
            "done",
        ]
    );
    let result = done(&events);
    assert!(result.is_complete());
    assert_eq!(result.values(), awaited.values());
    assert_eq!(result.chunks()[0].attempts.len(), 2);
}

#[tokio::test]
async fn a_retry_never_changes_a_value_already_delivered() {
    let dropped = each_reply(&[(0, "A", 1), (1, "B", 2)]);
    // The retry answers index 0 differently: the delivered "A" stands.
    let changed = each_reply(&[(0, "Z", 9), (1, "B", 2), (2, "C", 3)]);
    let (client, log) = watched(&[dropped.as_str(), changed.as_str()]);
    let stream = client
        .map_each::<Line>(&INPUTS[..3], "Read the line.")
        .chunk_size(3)
        .stream_elements();
    let events = events(stream, &log).await;
    let delivered = delivered(&events);
    assert_eq!(delivered.iter().filter(|(i, _)| *i == 0).count(), 1);
    assert_eq!(
        delivered[0],
        (
            0,
            Line {
                sku: "A".into(),
                quantity: 1
            }
        )
    );
    let result = done(&events);
    assert!(result.is_complete());
    assert_eq!(result.get(0).map(|l| l.sku.as_str()), Some("A"));
    assert_eq!(result.get(2).map(|l| l.sku.as_str()), Some("C"));
    // The retry's own answer is kept in its record.
    assert!(result.chunks()[0].attempts[1].raw_output.contains("\"Z\""));
}

#[tokio::test]
async fn an_element_that_fails_its_rule_or_its_check_is_not_delivered_early() {
    // Index 1 breaks the `require` check; index 2 breaks the type's `minimum`.
    let bad = each_reply(&[(0, "A", 1), (1, "B", 50), (2, "C", 0)]);
    let good = each_reply(&[(0, "A", 1), (1, "B", 5), (2, "C", 3)]);
    let script = [bad.as_str(), good.as_str()];
    let (client, log) = watched(&script);
    let stream = client
        .map_each::<Line>(&INPUTS[..3], "Read the line.")
        .require(|l| l.quantity <= 10, "The quantity must be at most 10.")
        .stream_elements();
    let events = events(stream, &log).await;
    let retry_at = events
        .iter()
        .position(|(e, _)| matches!(e, CollectionEvent::Retry(1, _)))
        .expect("the chunk is retried");
    for (event, _) in &events[..retry_at] {
        if let CollectionEvent::Element(index, line) = event {
            assert_eq!(
                *index, 0,
                "only index 0 was right the first time, not {line:?}"
            );
        }
    }
    let invalid: Vec<_> = events
        .iter()
        .filter_map(|(e, _)| match e {
            CollectionEvent::Invalid(i, issues) => {
                Some((*i, issues[0].path.clone(), issues[0].message.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        invalid,
        [(
            1,
            Some("/1".to_owned()),
            "The quantity must be at most 10.".to_owned()
        )]
    );
    let delivered = delivered(&events);
    assert_eq!(
        delivered,
        [
            (
                0,
                Line {
                    sku: "A".into(),
                    quantity: 1
                }
            ),
            (
                1,
                Line {
                    sku: "B".into(),
                    quantity: 5
                }
            ),
            (
                2,
                Line {
                    sku: "C".into(),
                    quantity: 3
                }
            ),
        ]
    );
    let (client, _) = watched(&script);
    let awaited = client
        .map_each::<Line>(&INPUTS[..3], "Read the line.")
        .require(|l| l.quantity <= 10, "The quantity must be at most 10.")
        .await;
    assert_eq!(done(&events).values(), awaited.values());
}

#[tokio::test]
async fn an_element_out_of_place_is_never_delivered_under_another_index() {
    // Index 1 and 2 are swapped: neither stands at its own place.
    let swapped = each_reply(&[(0, "A", 1), (2, "C", 3), (1, "B", 2)]);
    let (client, log) = watched(&[swapped.as_str(), swapped.as_str()]);
    let stream = client
        .map_each::<Line>(&INPUTS[..3], "Read the line.")
        .max_attempts(2)
        .stream_elements();
    let events = events(stream, &log).await;
    assert_eq!(
        delivered(&events),
        [(
            0,
            Line {
                sku: "A".into(),
                quantity: 1
            }
        )]
    );
    let result = done(&events);
    assert_eq!(result.missing(), [&1, &2]);
}

#[tokio::test]
async fn map_values_delivers_each_key_once_as_it_closes_named_exactly() {
    let tickets = BTreeMap::from([
        ("sku 1", "lamp"),
        ("sku 2", "table"),
        ("sku 3", "chair"),
        ("sku 4", "desk"),
    ]);
    // The first chunk's first reply respells "sku 2": only "sku 1" is right, the retry answers
    // "sku 2".
    let script = [
        r#"{"value": {"sku 1": "Lampe", "SKU 2": "Tisch"}}"#,
        r#"{"value": {"sku 1": "Lampe", "sku 2": "Tisch"}}"#,
        r#"{"value": {"sku 3": "Stuhl", "sku 4": "Schreibtisch"}}"#,
    ];
    let (client, _) = watched(&script);
    let awaited = client
        .map_values::<String, _, _>(&tickets, "Translate into German.")
        .chunk_size(2)
        .concurrency(1)
        .await;
    assert!(awaited.is_complete());

    let (client, log) = watched(&script);
    let stream = client
        .map_values::<String, _, _>(&tickets, "Translate into German.")
        .chunk_size(2)
        .concurrency(1)
        .stream_elements();
    let events = events(stream, &log).await;
    let order: Vec<String> = events
        .iter()
        .map(|(e, _)| match e {
            CollectionEvent::Element(key, value) => format!("{key} = {value}"),
            CollectionEvent::Retry(chunk, _) => format!("retry {chunk}"),
            CollectionEvent::Done(_) => "done".to_owned(),
            _ => "other".to_owned(),
        })
        .collect();
    assert_eq!(
        order,
        [
            "sku 1 = Lampe",
            "retry 1",
            "sku 2 = Tisch",
            "sku 3 = Stuhl",
            "sku 4 = Schreibtisch",
            "done"
        ]
    );
    // A member is delivered the moment it closes, before its reply ends.
    let (_, streamed) = events
        .iter()
        .find(|(e, _)| matches!(e, CollectionEvent::Element(key, _) if *key == "sku 3"))
        .expect("sku 3 delivered");
    let (text, ended) = streamed.last().expect("a reply streamed");
    assert!(!ended && !text.contains("Schreibtisch"), "{text}");
    let result = done(&events);
    assert_eq!(result.values(), awaited.values());
    assert_eq!(result.keys(), awaited.keys());
}

#[tokio::test]
async fn a_chunk_that_fails_every_attempt_keeps_what_was_delivered_and_says_what_is_missing() {
    let dropped = each_reply(&[(0, "A", 1)]);
    let (client, log) = watched(&[dropped.as_str(), "not json at all", "still not json"]);
    let stream = client
        .map_each::<Line>(&INPUTS[..2], "Read the line.")
        .max_attempts(3)
        .stream_elements();
    let events = events(stream, &log).await;
    let result = done(&events);
    assert_eq!(delivered(&events).len(), 1);
    assert_eq!(result.get(0).map(|l| l.sku.as_str()), Some("A"));
    assert_eq!(result.missing(), [&1]);
    assert!(
        result.issues_for(0).next().is_none(),
        "a delivered element has no finding"
    );
    assert!(result.issues_for(1).next().is_some());
}

#[tokio::test]
async fn finish_returns_what_await_returns() {
    let reply = each_reply(&[(0, "A", 1), (1, "B", 2)]);
    let (client, _) = watched(&[reply.as_str()]);
    let result = client
        .map_each::<Line>(&INPUTS[..2], "Read the line.")
        .stream_elements()
        .finish()
        .await;
    assert!(result.is_complete());
    assert_eq!(result.get(1).map(|l| l.quantity), Some(2));
}

#[tokio::test]
async fn over_http_elements_arrive_while_the_server_holds_the_reply_and_dropping_closes_it() {
    use intent_tests::sse_server::{Reply, SseServer, Step};
    use std::time::Duration;

    let pieces = [
        r#"{"value": [{"index": 0, "value": {"sku": "A", "quan"#,
        r#"tity": 1}}, {"index": 1, "value": {"sku": "B", "quantity": 2}}"#,
    ];
    let events: Vec<Vec<u8>> = pieces
        .iter()
        .map(|p| {
            let chunk = serde_json::json!({"model": "m", "choices": [{"index": 0, "delta": {"content": p}}]});
            format!("data: {chunk}\n\n").into_bytes()
        })
        .collect();
    // The reply never ends: the list stays open and the server holds the connection.
    let server = SseServer::start(move |_| Reply::events(events.clone()).then([Step::Hold])).await;
    let provider = OpenAiProvider::new("sk-test")
        .with_base_url(format!("{}/v1", server.base))
        .with_model("m")
        .with_timeout(Duration::from_secs(10));
    let client = IntentClient::new(provider);
    let mut stream = client
        .map_each::<Line>(&INPUTS[..2], "Read the line.")
        .stream_elements();
    let mut seen = Vec::new();
    while seen.len() < 2 {
        match tokio::time::timeout(Duration::from_secs(5), stream.next()).await {
            Ok(Some(CollectionEvent::Element(index, line))) => seen.push((index, line.sku)),
            Ok(Some(other)) => panic!("only elements while the reply is open: {other:?}"),
            Ok(None) | Err(_) => panic!("the elements came while the server held the reply"),
        }
    }
    assert_eq!(seen, [(0, "A".to_owned()), (1, "B".to_owned())]);
    drop(stream);
    assert!(
        server.wait_closed(0, Duration::from_secs(5)).await,
        "dropping the stream closed the connection"
    );
}

#[tokio::test]
async fn with_a_judge_nothing_is_delivered_before_the_judge_accepts() {
    let judged = || AiRequestOptions {
        judge: Some(intent_core::JudgeOptions::default()),
        ..AiRequestOptions::default()
    };
    let french = r#"{"value": [{"index": 0, "value": "Bonjour"}, {"index": 1, "value": "Merci"}]}"#;
    let german =
        r#"{"value": [{"index": 0, "value": "Guten Tag"}, {"index": 1, "value": "Danke"}]}"#;
    let script = [
        french,
        r#"{"verdict": "fail", "problems": ["The answer is French; the intent asks for German."]}"#,
        german,
        r#"{"verdict": "pass", "problems": []}"#,
    ];
    let (client, _) = watched(&script);
    let awaited = client
        .map_each::<String>(&["Good day", "Thanks"], "Translate into German.")
        .options(judged())
        .await;
    let (client, log) = watched(&script);
    let stream = client
        .map_each::<String>(&["Good day", "Thanks"], "Translate into German.")
        .options(judged())
        .stream_elements();
    let events = events(stream, &log).await;
    assert_eq!(
        delivered(&events),
        [(0, "Guten Tag".to_owned()), (1, "Danke".to_owned())]
    );
    assert!(events
        .iter()
        .any(|(e, _)| matches!(e, CollectionEvent::Retry(1, _))));
    assert_eq!(done(&events).values(), awaited.values());
}

#[tokio::test]
async fn a_number_that_may_have_lost_digits_waits_for_the_whole_reply() {
    // 1.0000000000000000001 reads as the double 1.0: only the whole reply's reading knows that
    // the text said more than a double holds, and refuses it for a `u32`.
    let lossy =
        r#"{"value": [{"index": 0, "value": 1.0000000000000000001}, {"index": 1, "value": 2}]}"#;
    let fixed = r#"{"value": [{"index": 0, "value": 1}, {"index": 1, "value": 2}]}"#;
    let (client, log) = watched(&[lossy, fixed]);
    let stream = client
        .map_each::<u32>(&["one", "two"], "The number.")
        .stream_elements();
    let first = events(stream, &log).await;
    let order: Vec<String> = first
        .iter()
        .map(|(e, streamed)| match e {
            CollectionEvent::Element(i, v) => format!("{i} = {v} (reply {})", streamed.len()),
            CollectionEvent::Retry(chunk, _) => format!("retry {chunk}"),
            CollectionEvent::Done(_) => "done".to_owned(),
            _ => "other".to_owned(),
        })
        .collect();
    assert_eq!(
        order,
        ["1 = 2 (reply 1)", "retry 1", "0 = 1 (reply 2)", "done"]
    );

    // A fractional answer is delivered too, once its reply is read whole.
    let halves = r#"{"value": [{"index": 0, "value": 0.5}, {"index": 1, "value": 1.5}]}"#;
    let (client, log) = watched(&[halves]);
    let stream = client
        .map_each::<f64>(&["half", "one and a half"], "The number.")
        .stream_elements();
    let seen = events(stream, &log).await;
    assert_eq!(delivered(&seen), [(0, 0.5), (1, 1.5)]);
    assert_eq!(done(&seen).values(), &[Some(0.5), Some(1.5)]);
}

#[tokio::test]
async fn dropping_the_stream_closes_every_chunk_in_flight() {
    use intent_tests::sse_server::{Reply, SseServer, Step};
    use std::time::Duration;

    let opening = serde_json::json!({"model": "m", "choices": [{"index": 0, "delta": {"content": "{\"value\": ["}}]});
    let opening = format!("data: {opening}\n\n").into_bytes();
    let server =
        SseServer::start(move |_| Reply::events([opening.clone()]).then([Step::Hold])).await;
    let provider = OpenAiProvider::new("sk-test")
        .with_base_url(format!("{}/v1", server.base))
        .with_model("m")
        .with_timeout(Duration::from_secs(10));
    let client = IntentClient::new(provider);
    let mut stream = client
        .map_each::<Line>(&INPUTS[..3], "Read the line.")
        .chunk_size(1)
        .concurrency(2)
        .stream_elements();
    // Two chunks in flight (the concurrency), the third waiting.
    for _ in 0..100 {
        if server.connections() == 2 {
            break;
        }
        let polled = tokio::time::timeout(Duration::from_millis(20), stream.next()).await;
        assert!(
            polled.is_err(),
            "nothing to yield while both replies are open"
        );
    }
    assert_eq!(server.connections(), 2);
    drop(stream);
    for connection in 0..2 {
        assert!(
            server.wait_closed(connection, Duration::from_secs(5)).await,
            "connection {connection} closed"
        );
    }
    assert_eq!(server.connections(), 2, "the waiting chunk was never sent");
}

#[tokio::test]
async fn finish_after_done_was_read_says_so_instead_of_a_result() {
    let reply = each_reply(&[(0, "A", 1)]);
    let (client, _) = watched(&[reply.as_str()]);
    let mut stream = client
        .map_each::<Line>(&INPUTS[..1], "Read the line.")
        .stream_elements();
    while stream.next().await.is_some() {}
    let result = stream.finish().await;
    assert_eq!(result.missing(), [&0]);
    assert!(result.issues()[0]
        .issue
        .message
        .contains("already yielded its result"));
}

#[tokio::test]
async fn a_map_values_member_that_fails_a_check_is_invalid_under_its_key_as_it_closes() {
    let scores = BTreeMap::from([("a", "fine"), ("b", "good")]);
    let (client, log) = watched(&[
        r#"{"value": {"a": 42, "b": 4}}"#,
        r#"{"value": {"a": 3, "b": 4}}"#,
    ]);
    let stream = client
        .map_values::<u8, _, _>(&scores, "Score it.")
        .require(|score| *score <= 5, "Score from 0 to 5.")
        .stream_elements();
    let events = events(stream, &log).await;
    let (issues, streamed) = events
        .iter()
        .find_map(|(e, streamed)| match e {
            CollectionEvent::Invalid(key, issues) if *key == "a" => Some((issues, streamed)),
            _ => None,
        })
        .expect("a is invalid");
    assert_eq!(issues[0].path.as_deref(), Some("/a"));
    assert!(issues[0].message.contains("Score from 0 to 5."));
    // Reported before the first reply ended.
    assert!(!streamed[0].1, "{:?}", streamed[0]);
    let result = done(&events);
    assert!(result.is_complete());
    assert_eq!(result.values(), [Some(3), Some(4)]);
}

#[tokio::test]
async fn a_draft_before_the_answer_is_never_delivered_at_any_piece_size() {
    // The draft list stands before a closing `</think>` whose opening tag was in the prompt, or
    // in prose before the real answer: the final reading takes the real one (or refuses the
    // reply), so nothing is delivered from the draft; a delivered value is final.
    let drafted = [
        "Draft: [{\"index\": 0, \"value\": \"wrong\"}]\n</think>\n{\"value\": [{\"index\": 0, \"value\": \"right\"}]}",
        "Hmm, [{\"index\": 0, \"value\": \"wrong\"}]? No.\n</think>\n{\"value\": [{\"index\": 0, \"value\": \"right\"}]}",
    ];
    for reply in drafted {
        for chunk in 1..=reply.len() {
            let model = ScriptedProvider::new([reply, reply]).with_stream_chunk_chars(chunk);
            let client = IntentClient::new(model);
            let awaited = client.map_each::<String>(&["x"], "Answer.").await;
            assert_eq!(awaited.values(), [Some("right".to_owned())]);
            let mut events = client
                .map_each::<String>(&["x"], "Answer.")
                .stream_elements();
            let mut delivered = Vec::new();
            while let Some(event) = events.next().await {
                match event {
                    CollectionEvent::Element(_, value) => delivered.push(value),
                    CollectionEvent::Done(result) => {
                        assert_eq!(result.values(), awaited.values(), "piece size {chunk}")
                    }
                    _ => {}
                }
            }
            assert_eq!(delivered, ["right"], "piece size {chunk}");
        }
    }
}

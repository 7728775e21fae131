//! The values a collection stream delivers and the answers its chunks' final readings take: a
//! delivered value stands only when the final reading of its reply took the answer it came from;
//! otherwise the stream says so with `CollectionEvent::Withdrawn`, and what `Done` holds is what
//! `.await` gives. Replies that begin with their answer and then add a second, different one (or
//! close a reasoning block whose opening was in the prompt and answer again), and a reply broken
//! off and answered by the fallback, each streamed at every piece size; and a property test that
//! runs the stream and `.await` on the same replies.

use std::collections::BTreeMap;

use futures::StreamExt;
use intent_core::collections::{CollectionCall, CollectionResult};
use intent_core::prelude::*;
use intent_core::provider::ScriptedReply;
use proptest::prelude::*;

use crate::located::after;

/// What a collection stream yielded, one word per event (`key:value`, `withdrawn key`,
/// `invalid key`, `retry`), and its result; every `Element` and `Withdrawn` checked against what
/// stands: a key is delivered again only after it was withdrawn, and only what was delivered is
/// withdrawn. At the end, what stands is exactly what `Done` holds.
async fn words<K, O>(call: CollectionCall<'_, K, O>) -> (Vec<String>, CollectionResult<K, O>)
where
    K: Clone + Ord + std::fmt::Display + std::fmt::Debug + Send,
    O: Intent + Clone + PartialEq + std::fmt::Display + std::fmt::Debug + Send,
{
    let mut stream = call.stream_elements();
    let mut seen = Vec::new();
    let mut standing: BTreeMap<K, O> = BTreeMap::new();
    while let Some(event) = stream.next().await {
        match event {
            CollectionEvent::Element(key, value) => {
                seen.push(format!("{key}:{value}"));
                let before = standing.insert(key, value);
                assert!(
                    before.is_none(),
                    "delivered twice without a withdrawal: {seen:?}"
                );
            }
            CollectionEvent::Withdrawn(key) => {
                seen.push(format!("withdrawn {key}"));
                assert!(
                    standing.remove(&key).is_some(),
                    "withdrew what was not delivered: {seen:?}"
                );
            }
            CollectionEvent::Invalid(key, _) => seen.push(format!("invalid {key}")),
            CollectionEvent::Retry(..) => seen.push("retry".to_owned()),
            CollectionEvent::Done(result) => {
                let held: BTreeMap<K, O> = result
                    .keys()
                    .iter()
                    .zip(result.values())
                    .filter_map(|(k, v)| v.clone().map(|v| (k.clone(), v)))
                    .collect();
                assert_eq!(standing, held, "what stands is what Done holds: {seen:?}");
                return (seen, result);
            }
            _ => seen.push("other".to_owned()),
        }
    }
    panic!("the stream ended without Done: {seen:?}");
}

/// A `map_each` reply answering each of `values` in order.
fn each(values: &[&str]) -> String {
    let items: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{{\"index\": {i}, \"value\": \"{v}\"}}"))
        .collect();
    format!("{{\"value\": [{}]}}", items.join(", "))
}

/// Every piece size from one character to the whole of the longest reply.
fn piece_sizes(replies: &[&str]) -> std::ops::RangeInclusive<usize> {
    1..=replies.iter().map(|r| r.chars().count()).max().unwrap_or(1)
}

/// `map_each::<String>` over two inputs, streamed in pieces of `chunk` characters, and the same
/// call awaited on the same replies: (the stream's words, its result, the awaited result).
async fn each_both_ways(
    replies: &[&str],
    chunk: usize,
    attempts: u32,
) -> (
    Vec<String>,
    CollectionResult<usize, String>,
    CollectionResult<usize, String>,
) {
    let model = ScriptedProvider::new(replies.iter().copied()).with_stream_chunk_chars(chunk);
    let client = IntentClient::new(model);
    let call = client
        .map_each::<String>(&["x", "y"], "Name it.")
        .max_attempts(attempts);
    let (seen, result) = words(call).await;
    let client = IntentClient::new(ScriptedProvider::new(replies.iter().copied()));
    let awaited = client
        .map_each::<String>(&["x", "y"], "Name it.")
        .max_attempts(attempts)
        .await;
    (seen, result, awaited)
}

#[tokio::test]
async fn a_second_different_answer_after_the_first_withdraws_what_was_delivered_at_any_piece_size()
{
    let first = each(&["a", "b"]);
    let good = each(&["p", "q"]);
    for second in [
        format!("{first} or perhaps {good}"),
        format!("{first}, {good}"),
        format!("{first}\n\nActually:\n```json\n{good}\n```"),
    ] {
        let replies = [second.as_str(), good.as_str()];
        for chunk in piece_sizes(&replies) {
            let (seen, result, awaited) = each_both_ways(&replies, chunk, 2).await;
            assert_eq!(result.values(), awaited.values(), "{second} at {chunk}");
            assert_eq!(
                result.values(),
                [Some("p".to_owned()), Some("q".to_owned())]
            );
            assert_eq!(
                seen,
                [
                    "0:a",
                    "1:b",
                    "withdrawn 0",
                    "withdrawn 1",
                    "retry",
                    "0:p",
                    "1:q"
                ],
                "{second} at {chunk}"
            );
        }
    }
}

#[tokio::test]
async fn a_refused_reply_on_the_last_attempt_leaves_nothing_delivered_standing() {
    let reply = format!("{} or perhaps {}", each(&["a", "b"]), each(&["p", "q"]));
    for chunk in piece_sizes(&[&reply]) {
        let (seen, result, awaited) = each_both_ways(&[&reply], chunk, 1).await;
        assert_eq!(result.values(), awaited.values(), "piece size {chunk}");
        assert_eq!(result.values(), [None, None]);
        assert_eq!(result.missing(), [&0, &1]);
        assert_eq!(
            seen,
            ["0:a", "1:b", "withdrawn 0", "withdrawn 1"],
            "piece size {chunk}"
        );
    }
}

#[tokio::test]
async fn an_answer_before_an_orphan_closing_think_is_withdrawn_for_the_one_after_it() {
    // The opening `<think>` was in the prompt: the first list is reasoning, and the final
    // reading takes the answer after `</think>`.
    let reply = format!("{}\n</think>\n{}", each(&["a", "b"]), each(&["a", "q"]));
    for chunk in piece_sizes(&[&reply]) {
        let (seen, result, awaited) = each_both_ways(&[&reply], chunk, 1).await;
        assert_eq!(result.values(), awaited.values(), "piece size {chunk}");
        assert_eq!(
            result.values(),
            [Some("a".to_owned()), Some("q".to_owned())]
        );
        assert_eq!(
            seen,
            ["0:a", "1:b", "withdrawn 0", "withdrawn 1", "0:a", "1:q"],
            "piece size {chunk}"
        );
    }
}

#[tokio::test]
async fn the_same_answer_again_or_prose_after_it_keeps_what_was_delivered() {
    let answer = each(&["a", "b"]);
    for reply in [
        format!("{answer}\n\nAgain: {answer}"),
        format!("{answer} Hope that helps."),
        format!("```json\n{answer}\n```"),
    ] {
        for chunk in piece_sizes(&[&reply]) {
            let (seen, result, awaited) = each_both_ways(&[&reply], chunk, 1).await;
            assert_eq!(result.values(), awaited.values(), "{reply} at {chunk}");
            assert_eq!(seen, ["0:a", "1:b"], "{reply} at {chunk}");
        }
    }
}

#[tokio::test]
async fn a_map_values_reply_with_a_second_answer_withdraws_its_members() {
    let map = BTreeMap::from([("a", "one"), ("b", "two")]);
    let replies = [
        "{\"value\": {\"a\": 1, \"b\": 2}} or {\"value\": {\"a\": 5, \"b\": 6}}",
        "{\"value\": {\"a\": 5, \"b\": 6}}",
    ];
    for chunk in piece_sizes(&replies) {
        let model = ScriptedProvider::new(replies).with_stream_chunk_chars(chunk);
        let client = IntentClient::new(model);
        let (seen, result) = words(client.map_values::<u32, _, _>(&map, "The number.")).await;
        let client = IntentClient::new(ScriptedProvider::new(replies));
        let awaited = client.map_values::<u32, _, _>(&map, "The number.").await;
        assert_eq!(result.values(), awaited.values(), "piece size {chunk}");
        assert_eq!(result.values(), [Some(5), Some(6)]);
        assert_eq!(
            seen,
            [
                "a:1",
                "b:2",
                "withdrawn a",
                "withdrawn b",
                "retry",
                "a:5",
                "b:6"
            ],
            "piece size {chunk}"
        );
    }
}

#[tokio::test]
async fn a_reply_broken_off_and_answered_by_the_fallback_withdraws_what_it_delivered() {
    // The primary's stream breaks after its first element; the fallback answers otherwise.
    let broken = "{\"value\": [{\"index\": 0, \"value\": \"a\"}, {\"index\": 1".to_owned();
    let good = each(&["p", "q"]);
    for chunk in piece_sizes(&[&broken, &good]) {
        let primary = ScriptedProvider::new([ScriptedReply::BrokenStream(broken.clone())])
            .with_stream_chunk_chars(chunk);
        let fallback = ScriptedProvider::new([good.as_str()]).with_stream_chunk_chars(chunk);
        let client = IntentClient::builder()
            .provider(primary)
            .fallback(fallback)
            .build()
            .expect("a client");
        let (seen, result) = words(client.map_each::<String>(&["x", "y"], "Name it.")).await;
        assert_eq!(
            result.values(),
            [Some("p".to_owned()), Some("q".to_owned())],
            "piece size {chunk}"
        );
        assert_eq!(
            seen,
            ["0:a", "withdrawn 0", "0:p", "1:q"],
            "piece size {chunk}"
        );
    }
}

/// What may come before a `map_each` answer.
fn before() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("```json\n".to_owned()),
        Just("Here you go: ".to_owned()),
        Just(format!("Draft: {}\n</think>\n", each(&["d", "d"]))),
    ]
}

fn collection_reply() -> impl Strategy<Value = String> {
    let value = prop_oneof![Just("a"), Just("b"), Just("c")];
    (
        before(),
        proptest::collection::vec(value.clone(), 1..=2),
        proptest::collection::vec(value, 1..=2),
        after(),
    )
        .prop_map(|(before, answer, other, after)| {
            let answer = each(&answer);
            let other = each(&other);
            let after = after
                .replace("{answer}", &answer)
                .replace("{other}", &other);
            format!("{before}{answer}{after}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_collection_stream_leaves_standing_what_await_gives(
        reply in collection_reply(),
        chunk in 1usize..24,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        // `words` checks that what the events leave standing is what `Done` holds.
        let (seen, result, awaited) = runtime.block_on(each_both_ways(&[&reply], chunk, 1));
        prop_assert_eq!(result.values(), awaited.values(), "{} at {}: {:?}", reply, chunk, seen);
    }
}

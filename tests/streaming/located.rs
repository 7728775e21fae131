//! The elements a list stream delivers and the answer the final reading takes: they agree, or
//! the stream says with `ElementEvent::Withdrawn` that what it delivered does not stand. Replies
//! with prose, a draft list, reasoning, and a second answer before or after the real one, each
//! streamed at every piece size; and a property test that runs the stream and `.await` on the
//! same replies.

use futures::StreamExt;
use intent_core::prelude::*;
use proptest::prelude::*;

/// What an element stream of `Vec<u32>` yielded for `replies` streamed in pieces of `chunk`
/// characters, one word per event; and the result.
async fn events(
    replies: &[&str],
    chunk: usize,
    attempts: u32,
) -> (Vec<String>, AiResult<Vec<u32>>) {
    let model = ScriptedProvider::new(replies.iter().copied()).with_stream_chunk_chars(chunk);
    let client = IntentClient::new(model);
    let mut stream = <Vec<u32>>::ai(&client, "the numbers", "List the numbers.")
        .max_attempts(attempts)
        .stream_elements();
    let mut seen = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            ElementEvent::Element(i, n) => seen.push(format!("{i}:{n}")),
            ElementEvent::Invalid(i, _) => seen.push(format!("invalid {i}")),
            ElementEvent::Withdrawn(n) => seen.push(format!("withdrawn {n}")),
            ElementEvent::Retry(_) => seen.push("retry".to_owned()),
            ElementEvent::Done(result) => return (seen, result),
            _ => seen.push("other".to_owned()),
        }
    }
    panic!("the stream ended without Done: {seen:?}");
}

/// Every piece size from one character to the whole of the longest reply.
fn piece_sizes(replies: &[&str]) -> std::ops::RangeInclusive<usize> {
    1..=replies.iter().map(|r| r.chars().count()).max().unwrap_or(1)
}

#[tokio::test]
async fn a_draft_list_in_reasoning_closed_without_its_opening_tag_is_withdrawn() {
    // The opening `<think>` was in the prompt: everything before `</think>` is reasoning, and
    // the final reading takes `[3]`; the stream had already followed the draft.
    let reply = "Draft: [1, 2]\n</think>\n{\"value\": [3]}";
    for chunk in piece_sizes(&[reply]) {
        let (seen, result) = events(&[reply], chunk, 1).await;
        assert_eq!(result.value(), Some(&vec![3]), "piece size {chunk}");
        assert_eq!(seen, ["0:1", "1:2", "withdrawn 2"], "piece size {chunk}");
    }
}

#[tokio::test]
async fn a_draft_list_in_prose_before_the_answer_is_withdrawn_and_the_retry_streams_anew() {
    let draft = "Maybe [1, 2]? No, final: {\"value\": [1, 2, 3]}";
    let good = "{\"value\": [1, 2, 3]}";
    for chunk in piece_sizes(&[draft, good]) {
        let (seen, result) = events(&[draft, good], chunk, 2).await;
        assert_eq!(result.value(), Some(&vec![1, 2, 3]), "piece size {chunk}");
        assert_eq!(
            seen,
            ["0:1", "1:2", "withdrawn 2", "retry", "0:1", "1:2", "2:3"],
            "piece size {chunk}"
        );
    }
}

#[tokio::test]
async fn a_second_different_answer_after_the_first_withdraws_its_elements() {
    let reply = "{\"value\": [1, 2]} or perhaps {\"value\": [4]}";
    for chunk in piece_sizes(&[reply]) {
        let (seen, result) = events(&[reply], chunk, 1).await;
        assert!(!result.is_success(), "piece size {chunk}");
        assert!(
            result.issues()[0].message.contains("two different answers"),
            "{:?}",
            result.issues()
        );
        assert_eq!(seen, ["0:1", "1:2", "withdrawn 2"], "piece size {chunk}");
    }
}

#[tokio::test]
async fn prose_around_one_answer_or_the_same_answer_twice_keeps_what_was_delivered() {
    for reply in [
        "Here it is: {\"value\": [1, 2]} Hope that helps.",
        "<think>maybe [7]</think>Sure:\n```json\n{\"value\": [1, 2]}\n```",
        "{\"value\": [1, 2]}\n\nAgain: {\"value\": [1, 2]}",
    ] {
        for chunk in piece_sizes(&[reply]) {
            let (seen, result) = events(&[reply], chunk, 1).await;
            assert_eq!(result.value(), Some(&vec![1, 2]), "{reply} at {chunk}");
            assert_eq!(seen, ["0:1", "1:2"], "{reply} at {chunk}");
        }
    }
}

#[tokio::test]
async fn elements_of_a_reply_refused_for_a_rule_on_the_whole_list_are_withdrawn() {
    let reply = "{\"value\": [1, 2, 3]}";
    let model = ScriptedProvider::new([reply]).with_stream_chunk_chars(3);
    let client = IntentClient::new(model);
    let mut stream = <Vec<u32>>::ai(&client, "the numbers", "List two numbers.")
        .max_attempts(1)
        .require(|v| v.len() == 2, "Return exactly 2 numbers.")
        .stream_elements();
    let mut seen = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            ElementEvent::Element(i, _) => seen.push(format!("{i}")),
            ElementEvent::Withdrawn(n) => seen.push(format!("withdrawn {n}")),
            ElementEvent::Done(result) => seen.push(format!("done {}", result.is_success())),
            _ => seen.push("other".to_owned()),
        }
    }
    assert_eq!(seen, ["0", "1", "2", "withdrawn 3", "done false"]);
}

/// What may come before the answer.
fn before() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("Here you go: ".to_owned()),
        Just("Draft: [9, 8]\n</think>\n".to_owned()),
        Just("<think>[5] or [6]?</think>".to_owned()),
        Just("Maybe [4]? ".to_owned()),
        Just("```json\n".to_owned()),
        Just("- ".to_owned()),
    ]
}

/// What may come after an answer: `{answer}` is the answer again, `{other}` another one (the
/// collection streams' property test asks the same).
pub(crate) fn after() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" Hope that helps.".to_owned()),
        Just("\n```".to_owned()),
        Just(" Again: {answer}".to_owned()),
        Just(" or perhaps {other}".to_owned()),
        Just(", {other}".to_owned()),
        Just("\n</think>\n{other}".to_owned()),
        Just("]".to_owned()),
    ]
}

fn reply() -> impl Strategy<Value = String> {
    (
        before(),
        proptest::collection::vec(0u32..1000, 0..5),
        any::<bool>(),
        after(),
    )
        .prop_map(|(before, list, envelope, after)| {
            let list = serde_json::to_string(&list).expect("a list");
            let answer = if envelope {
                format!("{{\"value\": {list}}}")
            } else {
                list
            };
            let after = after
                .replace("{answer}", &answer)
                .replace("{other}", "{\"value\": [0]}");
            format!("{before}{answer}{after}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn streamed_elements_agree_with_the_final_reading(reply in reply(), chunk in 1usize..24) {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let (streamed, awaited) = runtime.block_on(async {
            let streamed = events(&[&reply], chunk, 1).await;
            let client = IntentClient::new(ScriptedProvider::new([reply.as_str()]));
            let awaited = <Vec<u32>>::ai(&client, "the numbers", "List the numbers.")
                .max_attempts(1)
                .await;
            (streamed, awaited)
        });
        let (seen, result) = streamed;
        // The stream's result is the one `.await` gives.
        prop_assert_eq!(result.value(), awaited.value());
        let delivered: Vec<u32> = seen
            .iter()
            .filter_map(|e| e.split_once(':').map(|(_, n)| n.parse().expect("a number")))
            .collect();
        let withdrawn = seen.iter().any(|e| e.starts_with("withdrawn"));
        match result.value() {
            // Accepted and not withdrawn: what was delivered is the value, or its beginning.
            Some(value) if !withdrawn => prop_assert!(
                value.starts_with(&delivered),
                "delivered {:?}, Done {:?}: {:?}", delivered, value, seen
            ),
            // Withdrawn: every element delivered, once, at the end.
            _ if !delivered.is_empty() => {
                prop_assert!(withdrawn, "refused with {:?} delivered: {:?}", delivered, seen);
                prop_assert_eq!(seen.last(), Some(&format!("withdrawn {}", seen.len() - 1)));
            }
            _ => prop_assert!(!withdrawn, "{:?}", seen),
        }
    }
}

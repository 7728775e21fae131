//! `AiCall::stream_elements`: each element as it closes and verifies, in order, once per attempt.

use futures::StreamExt;
use intent_core::prelude::*;
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
struct Line {
    sku: String,
    #[intent(minimum = 1)]
    quantity: u32,
}

#[tokio::test]
async fn elements_arrive_in_order_each_once_and_done_equals_await() {
    let reply = r#"{"value": [{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": 2}, {"sku": "C", "quantity": 3}]}"#;
    let model = ScriptedProvider::new([reply, reply]).with_stream_chunk_chars(4);
    let client = IntentClient::new(model);
    let awaited = <Vec<Line>>::ai(&client, "1 A, 2 B, 3 C", "List the lines.").await;
    let events = <Vec<Line>>::ai(&client, "1 A, 2 B, 3 C", "List the lines.")
        .stream_elements()
        .collect::<Vec<_>>()
        .await;
    let elements: Vec<(usize, String)> = events
        .iter()
        .filter_map(|e| match e {
            ElementEvent::Element(i, line) => Some((*i, line.sku.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        elements,
        [(0, "A".into()), (1, "B".into()), (2, "C".into())]
    );
    let Some(ElementEvent::Done(result)) = events.last() else {
        panic!("Done last")
    };
    assert_eq!(result.value(), awaited.value());
}

#[tokio::test]
async fn a_failed_element_is_reported_and_the_stream_goes_on_to_the_retry() {
    let bad = r#"{"value": [{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": 0}, {"sku": "C", "quantity": 3}]}"#;
    let good = r#"{"value": [{"sku": "A", "quantity": 1}]}"#;
    let model = ScriptedProvider::new([bad, good]).with_stream_chunk_chars(9);
    let client = IntentClient::new(model);
    let events = <Vec<Line>>::ai(&client, "1 A, no B, 3 C", "List the lines.")
        .stream_elements()
        .collect::<Vec<_>>()
        .await;
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match e {
            ElementEvent::Element(i, _) => format!("element {i}"),
            ElementEvent::Invalid(i, issues) => {
                format!("invalid {i} {}", issues[0].path.as_deref().unwrap_or(""))
            }
            ElementEvent::Withdrawn(n) => format!("withdrawn {n}"),
            ElementEvent::Retry(r) => format!("retry {}", r.number),
            ElementEvent::Done(r) => format!("done {}", r.is_success()),
            _ => "other".into(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "element 0",
            "invalid 1 /value/1/quantity",
            "element 2",
            "withdrawn 3",
            "retry 1",
            "element 0",
            "done true"
        ]
    );
}

/// A line whose code must be the input's own.
#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
struct GroundedLine {
    #[intent(from_input)]
    sku: String,
    quantity: u32,
}

#[tokio::test]
async fn an_element_whose_grounded_member_the_input_lacks_is_never_delivered() {
    let made_up = r#"{"value": [{"sku": "A-1", "quantity": 1}, {"sku": "Z-9", "quantity": 2}]}"#;
    let right = r#"{"value": [{"sku": "A-1", "quantity": 1}, {"sku": "b 2", "quantity": 2}]}"#;
    let model = ScriptedProvider::new([made_up, right]).with_stream_chunk_chars(7);
    let client = IntentClient::new(model);
    let events = <Vec<GroundedLine>>::ai(&client, "1 of A-1 and 2 of B-2", "List the lines.")
        .stream_elements()
        .collect::<Vec<_>>()
        .await;
    let seen: Vec<String> = events
        .iter()
        .map(|e| match e {
            ElementEvent::Element(i, line) => format!("element {i} {}", line.sku),
            ElementEvent::Invalid(i, issues) => format!(
                "invalid {i} {:?} {}",
                issues[0].kind,
                issues[0].path.as_deref().unwrap_or("")
            ),
            ElementEvent::Withdrawn(n) => format!("withdrawn {n}"),
            ElementEvent::Retry(r) => format!("retry {}", r.number),
            ElementEvent::Done(r) => format!("done {}", r.is_success()),
            _ => "other".into(),
        })
        .collect();
    assert_eq!(
        seen,
        [
            "element 0 A-1",
            "invalid 1 NotInInput /value/1/sku",
            "withdrawn 2",
            "retry 1",
            "element 0 A-1",
            "element 1 b 2",
            "done true"
        ]
    );
}

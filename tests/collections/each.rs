//! `map_each` on a scripted model: counts, indexes and order checked, chunks retried alone.

use std::sync::{Arc, Mutex};

use intent_core::collections::Progress;
use intent_core::prelude::*;
use intent_core::IssueKind;
use intent_core::{AiRequest, ResponseFormat};
use serde_json::{json, Value};

fn client(model: &ScriptedProvider, max_attempts: u32) -> IntentClient {
    IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_attempts,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap()
}

/// A reply answering `pairs` of (index, value).
fn reply(pairs: &[(usize, Value)]) -> String {
    let items: Vec<Value> = pairs
        .iter()
        .map(|(i, v)| json!({"index": i, "value": v}))
        .collect();
    json!({ "value": items }).to_string()
}

/// The `## Input` section of a request.
fn input_section(request: &AiRequest) -> &str {
    let end = request.user.find("\n\n## Output requirements").unwrap();
    let section = &request.user[..end];
    &section[section.rfind('\n').unwrap() + 1..]
}

#[tokio::test]
async fn values_come_back_in_input_order_with_their_indexes_sent() {
    let model = ScriptedProvider::new([reply(&[(0, json!("rouge")), (1, json!("vert"))])]);
    let result = client(&model, 3)
        .map_each::<String>(&["red", "green"], "Translate into French.")
        .await;
    assert_eq!(result.keys(), &[0, 1]);
    assert_eq!(
        result.values(),
        &[Some("rouge".to_owned()), Some("vert".to_owned())]
    );
    assert!(result.issues().is_empty());
    let requests = model.requests();
    assert_eq!(
        input_section(&requests[0]),
        r#"[{"index":0,"input":"red"},{"index":1,"input":"green"}]"#
    );
    assert!(requests[0]
        .user
        .contains("Exactly 2 elements, one per input element, in the input's order"));
    assert!(requests[0]
        .user
        .contains("## Input (List<Element>\n where Element {"));
}

#[tokio::test]
async fn schema_is_strict_with_index_and_value_required() {
    let model = ScriptedProvider::new([reply(&[(0, json!(1))])]);
    let _ = client(&model, 1).map_each::<u32>(&["a"], "Count.").await;
    let request = &model.requests()[0];
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    let items = &request.schema.as_ref().unwrap()["properties"]["value"]["items"];
    assert_eq!(items["required"], json!(["index", "value"]));
    assert_eq!(items["additionalProperties"], json!(false));
    assert_eq!(items["properties"]["value"]["type"], json!("integer"));
}

#[tokio::test]
async fn count_mismatch_is_corrected_on_retry() {
    let model = ScriptedProvider::new([
        reply(&[(0, json!(3)), (1, json!(5))]),
        reply(&[(0, json!(3)), (1, json!(5)), (2, json!(4))]),
    ]);
    let result = client(&model, 3)
        .map_each::<u32>(&["red", "green", "blue"], "Count the letters.")
        .await;
    assert_eq!(result.into_result().unwrap(), vec![3, 5, 4]);
    let retry = &model.requests()[1].user;
    assert!(retry.contains("## Problems with the previous attempt"));
    assert!(retry
        .contains("/value: Return exactly 3 elements, one per input element, in the same order."));
    assert!(retry.contains("No element answers the index 2."));
}

#[tokio::test]
async fn reordered_answer_is_caught_not_accepted() {
    let model = ScriptedProvider::new([
        reply(&[(1, json!("vert")), (0, json!("rouge"))]),
        reply(&[(0, json!("rouge")), (1, json!("vert"))]),
    ]);
    let result = client(&model, 2)
        .map_each::<String>(&["red", "green"], "Translate into French.")
        .await;
    let first = &result.chunks()[0].attempts[0];
    assert_eq!(first.issues.len(), 2);
    assert_eq!(first.issues[0].path.as_deref(), Some("/value/0/index"));
    assert!(first.issues[0]
        .message
        .contains("Index 1 is out of order: this position answers index 0"));
    assert_eq!(
        result.values(),
        &[Some("rouge".to_owned()), Some("vert".to_owned())]
    );
}

#[tokio::test]
async fn reordered_answer_on_the_last_attempt_leaves_those_elements_without_value() {
    let model = ScriptedProvider::new([reply(&[
        (1, json!("vert")),
        (0, json!("rouge")),
        (2, json!("bleu")),
    ])]);
    let result = client(&model, 1)
        .map_each::<String>(&["red", "green", "blue"], "Translate into French.")
        .await;
    assert_eq!(result.missing(), vec![&0, &1]);
    assert_eq!(result.get(2).map(String::as_str), Some("bleu"));
    let issue = result.issues_for(0).next().unwrap();
    assert_eq!(issue.path.as_deref(), Some("/0"));
    assert_eq!(issue.message, "The reply answered this index out of order.");
}

#[tokio::test]
async fn one_failing_chunk_is_retried_alone() {
    let model = ScriptedProvider::new([
        reply(&[(0, json!(1)), (1, json!(2))]),
        "this is not JSON".to_owned(),
        reply(&[(2, json!(3)), (3, json!(4))]),
        reply(&[(4, json!(5)), (5, json!(6))]),
    ]);
    let result = client(&model, 3)
        .map_each::<u32>(&["a", "b", "c", "d", "e", "f"], "Number them.")
        .chunk_size(2)
        .concurrency(1)
        .await;
    let result_chunks = result.chunks().to_vec();
    assert_eq!(result.into_result().unwrap(), vec![1, 2, 3, 4, 5, 6]);
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(
        result_chunks
            .iter()
            .map(|c| c.attempts.len())
            .collect::<Vec<_>>(),
        vec![1, 2, 1]
    );
    // The retry is the second chunk's, with its own input and its findings, and nothing else.
    assert_eq!(input_section(&requests[1]), input_section(&requests[2]));
    assert!(input_section(&requests[2]).contains(r#"{"index":2,"input":"c"}"#));
    assert!(!input_section(&requests[2]).contains(r#""index":0"#));
    assert!(requests[2]
        .user
        .contains("## Problems with the previous attempt"));
    let retried = &result_chunks[1];
    assert_eq!(retried.attempts.len(), 2);
    assert_eq!(retried.attempts[0].issues[0].kind, IssueKind::Parse);
    assert!(!requests[3].user.contains("## Previous attempt"));
}

#[tokio::test]
async fn chunk_failing_after_its_attempts_keeps_the_other_chunks() {
    let model = ScriptedProvider::new([
        reply(&[(0, json!(1)), (1, json!(2))]),
        "nope".to_owned(),
        "still nope".to_owned(),
        reply(&[(4, json!(5))]),
    ]);
    let result = client(&model, 2)
        .map_each::<u32>(&["a", "b", "c", "d", "e"], "Number them.")
        .chunk_size(2)
        .concurrency(1)
        .await;
    assert_eq!(result.values(), &[Some(1), Some(2), None, None, Some(5)]);
    assert_eq!(result.missing(), vec![&2, &3]);
    assert_eq!(result.usage().calls, 4);
    assert_eq!(result.chunks().len(), 3);
    assert!(!result.chunks()[1].passed());
    assert_eq!(result.chunks()[1].attempts.len(), 2);
    // Each missing index carries the chunk's final findings, at its own path.
    let issues: Vec<_> = result.issues_for(3).collect();
    assert!(issues.iter().all(|i| i.path.as_deref() == Some("/3")));
    assert!(issues.iter().any(|i| i.kind == IssueKind::Parse));
    assert!(issues.iter().any(|i| i.kind == IssueKind::Limit));
    assert!(result.into_result().is_err());
}

#[tokio::test]
async fn elements_right_in_the_last_answer_are_kept_when_the_chunk_fails() {
    let model = ScriptedProvider::new([reply(&[(0, json!(1)), (1, json!("two")), (2, json!(3))])]);
    let result = client(&model, 1)
        .map_each::<u32>(&["a", "b", "c"], "Number them.")
        .await;
    assert_eq!(result.values(), &[Some(1), None, Some(3)]);
    let issue = result.issues_for(1).next().unwrap();
    assert_eq!(issue.kind, IssueKind::Shape);
    assert_eq!(issue.path.as_deref(), Some("/1"));
    let model_issue = &result.chunks()[0].attempts[0].issues[0];
    assert_eq!(model_issue.path.as_deref(), Some("/value/1/value"));
}

#[tokio::test]
async fn element_rules_are_checked_per_element_and_sent_back() {
    let model = ScriptedProvider::new([
        reply(&[(0, json!("Rot")), (1, json!(""))]),
        reply(&[(0, json!("Rot")), (1, json!("Grün"))]),
    ]);
    let result = client(&model, 2)
        .map_each::<String>(&["red", "green"], "Translate into German.")
        .require(
            |s| s.chars().next().is_some_and(char::is_uppercase),
            "Start with a capital letter.",
        )
        .await;
    assert!(result.is_complete());
    let retry = &model.requests()[1].user;
    assert!(retry.contains("/value/1/value: Must be a non-empty string."));
}

#[tokio::test]
async fn element_check_failure_goes_to_the_model_with_its_path() {
    let model = ScriptedProvider::new([
        reply(&[(0, json!("rot")), (1, json!("Grün"))]),
        reply(&[(0, json!("Rot")), (1, json!("Grün"))]),
    ]);
    let result = client(&model, 2)
        .map_each::<String>(&["red", "green"], "Translate into German.")
        .require(
            |s| s.chars().next().is_some_and(char::is_uppercase),
            "Start with a capital letter.",
        )
        .await;
    assert_eq!(result.get(0).map(String::as_str), Some("Rot"));
    assert!(model.requests()[1]
        .user
        .contains("/value/0/value: Start with a capital letter."));
}

#[tokio::test]
async fn duplicate_and_unknown_indexes_are_findings() {
    let model = ScriptedProvider::new([reply(&[(0, json!(1)), (0, json!(1)), (7, json!(2))])]);
    let result = client(&model, 1)
        .map_each::<u32>(&["a", "b"], "Number them.")
        .await;
    let issues: Vec<String> = result.chunks()[0].attempts[0]
        .issues
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(issues
        .iter()
        .any(|i| i.contains("Index 0 appears more than once")));
    assert!(issues
        .iter()
        .any(|i| i.contains("Index 7 is not an index of this input")));
    assert!(issues
        .iter()
        .any(|i| i.contains("Return exactly 2 elements")));
    assert_eq!(result.missing(), vec![&0, &1]);
}

#[tokio::test]
async fn progress_reports_done_total_and_failures() {
    let model =
        ScriptedProvider::new([reply(&[(0, json!(1)), (1, json!(2))]), "broken".to_owned()]);
    let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
    let record = Arc::clone(&seen);
    let result = client(&model, 1)
        .map_each::<u32>(&["a", "b", "c"], "Number them.")
        .chunk_size(2)
        .concurrency(1)
        .on_progress(move |p| record.lock().unwrap().push(p))
        .await;
    assert_eq!(result.missing(), vec![&2]);
    let seen = seen.lock().unwrap();
    let summary: Vec<(usize, usize, usize, usize)> = seen
        .iter()
        .map(|p| (p.done, p.total, p.failed, p.chunks_done))
        .collect();
    assert_eq!(summary, vec![(0, 3, 0, 0), (2, 3, 0, 1), (3, 3, 1, 2)]);
    assert!(seen.last().unwrap().is_finished());
}

#[tokio::test]
async fn an_element_too_large_for_any_chunk_is_refused_and_the_rest_go_ahead() {
    let model = ScriptedProvider::new([reply(&[(0, json!(1)), (2, json!(3))])]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_input_chars: 100,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap();
    let long = "x".repeat(200);
    let result = client
        .map_each::<u32>(&["a", long.as_str(), "c"], "Number them.")
        .await;
    assert_eq!(result.values(), &[Some(1), None, Some(3)]);
    let issue = result.issues_for(1).next().unwrap();
    assert_eq!(issue.kind, IssueKind::Input);
    assert!(issue.message.contains("max_input_chars (100)"));
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn empty_input_makes_no_call() {
    let model = ScriptedProvider::new(Vec::<String>::new());
    let result = client(&model, 1)
        .map_each::<u32>(&Vec::<String>::new(), "Number them.")
        .await;
    assert!(result.is_empty() && result.is_complete());
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn provider_failure_fails_only_its_chunk() {
    let model = ScriptedProvider::new([reply(&[(0, json!(1))])]);
    let result = client(&model, 3)
        .map_each::<u32>(&["a", "b"], "Number them.")
        .chunk_size(1)
        .concurrency(1)
        .await;
    assert_eq!(result.values(), &[Some(1), None]);
    let issue = result.issues_for(1).next().unwrap();
    assert_eq!(issue.kind, IssueKind::Provider);
    assert!(issue.message.contains("no reply left"));
}

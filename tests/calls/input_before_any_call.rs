//! An input that cannot be sent fails the call before any model call, as an issue of kind `Input`.

use std::collections::HashMap;

use intent_core::prelude::*;
use intent_core::{IntentClientOptions, IssueKind};

fn client(model: &ScriptedProvider, max_input_chars: usize) -> IntentClient {
    IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_input_chars,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_too_long_input_fails_with_an_input_issue_and_sends_nothing() {
    let model = ScriptedProvider::new([r#"{"value": 1}"#]);
    let client = client(&model, 10);
    let result = u32::ai(&client, "eleven char", "Count the letters.").await;
    assert!(!result.is_success());
    assert_eq!(result.issues().len(), 1);
    let issue = &result.issues()[0];
    assert_eq!(issue.kind, IssueKind::Input);
    assert_eq!(
        issue.message,
        "the serialized input has 11 characters, more than max_input_chars (10); nothing was sent"
    );
    assert!(result.attempts().is_empty());
    assert!(model.requests().is_empty());
    assert_eq!(model.remaining(), 1);
}

#[tokio::test]
async fn an_input_at_the_limit_is_sent_whole() {
    let model = ScriptedProvider::new([r#"{"value": 10}"#]);
    let client = client(&model, 10);
    let result = u32::ai(&client, "ten chars!", "Count the letters.").await;
    assert_eq!(result.value(), Some(&10));
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert!(requests[0]
        .user
        .contains("## Input (string)\nten chars!\n\n"));
}

#[tokio::test]
async fn the_limit_ignores_the_label_intent_and_examples() {
    let model = ScriptedProvider::new([r#"{"value": 2}"#]);
    let client = client(&model, 5);
    let options = AiRequestOptions {
        examples: vec![IntentExample::new(
            "a much longer example input",
            r#"{"value": 1}"#,
        )],
        expected_output_description: Some("A count, as a whole number.".into()),
        ..AiRequestOptions::default()
    };
    let input = vec![1u8, 2];
    let result = u32::ai(&client, &input, "Count the elements of this list, please.")
        .options(options)
        .await;
    assert_eq!(result.value(), Some(&2));
    assert!(model.requests()[0]
        .user
        .contains("## Input (List<byte>)\n[1,2]\n"));
}

#[tokio::test]
async fn an_input_with_no_json_form_fails_with_an_input_issue_and_sends_nothing() {
    let model = ScriptedProvider::new([r#"{"value": 1}"#]);
    let client = IntentClient::new(model.clone());
    let mut input = HashMap::new();
    input.insert((1u8, 2u8), 3u8);
    let result = u32::ai(&client, &input, "Sum the values.").await;
    assert_eq!(result.issues()[0].kind, IssueKind::Input);
    assert!(result.issues()[0].message.contains("key must be a string"));
    assert!(model.requests().is_empty());
}

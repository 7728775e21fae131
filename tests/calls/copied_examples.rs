//! Copied examples: a reply that is an example's output, for an input that is not that
//! example's, is a finding naming the example, sent back like any other; never a success.

use intent_core::prelude::*;
use intent_core::IssueKind;
use intent_tests::derive_types::PurchaseRequest;

const DANA: &str = "Hi, Dana from Northwind here. Please send 40 units of A-1192 by 2026-11-15.";
const SAM: &str = "Hello, Sam at Contoso here. Please send 12 units of B-220 by 2026-12-01.";
const SAM_OUTPUT: &str =
    r#"{"value": {"contact": "Sam", "sku": "B-220", "quantity": 12, "deliverBy": "2026-12-01"}}"#;

#[tokio::test]
async fn a_copied_example_is_sent_back_naming_it_and_the_real_answer_passes() {
    let model = ScriptedProvider::new([
        // The example's output, reformatted: still a copy.
        r#"{"value":{"contact":"Sam","sku":"B-220","quantity":12,"deliverBy":"2026-12-01"}}"#,
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "deliverBy": "2026-11-15"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(&client, DANA, "Extract the purchase request.")
        .example(IntentExample::new(SAM, SAM_OUTPUT))
        .await;
    assert_eq!(order.value().map(|o| o.contact.as_str()), Some("Dana"));
    let first = &order.attempts()[0];
    assert_eq!(first.issues.len(), 1);
    assert_eq!(first.issues[0].kind, IssueKind::CopiedExample);
    assert!(
        first.issues[0]
            .message
            .starts_with("The answer is Example 1's output, copied"),
        "{}",
        first.issues[0].message
    );
    let retry = &model.requests()[1].user;
    assert!(
        retry.contains("## Problems with the previous attempt\n- The answer is Example 1's output"),
        "{retry}"
    );
}

#[tokio::test]
async fn a_model_that_only_copies_fails_the_call_and_never_returns_the_examples_values() {
    let model = ScriptedProvider::new([SAM_OUTPUT, SAM_OUTPUT, SAM_OUTPUT]);
    let client = IntentClient::new(model);
    let order = PurchaseRequest::ai(&client, DANA, "Extract the purchase request.")
        .example(IntentExample::new(SAM, SAM_OUTPUT))
        .await;
    assert!(!order.is_success());
    assert!(order.value().is_none());
    assert!(order
        .issues()
        .iter()
        .any(|i| i.kind == IssueKind::CopiedExample));
}

#[tokio::test]
async fn the_examples_own_input_may_get_the_examples_output() {
    let model = ScriptedProvider::new([SAM_OUTPUT]);
    let client = IntentClient::new(model);
    let order = PurchaseRequest::ai(&client, SAM, "Extract the purchase request.")
        .example(IntentExample::new(SAM, SAM_OUTPUT))
        .await;
    assert_eq!(order.value().map(|o| o.quantity), Some(12));
}

#[tokio::test]
async fn a_label_shared_with_an_example_is_not_a_copy() {
    let model = ScriptedProvider::new([r#"{"value": "positive"}"#]);
    let client = IntentClient::new(model);
    let label = <Option<String>>::ai(
        &client,
        "Great product, fast delivery.",
        "Classify the sentiment.",
    )
    .example(IntentExample::new("I love it.", r#"{"value": "positive"}"#))
    .await;
    assert_eq!(label.value(), Some(&Some("positive".to_owned())));
}

//! Copied examples: a reply that is an example's output, for an input that is not that
//! example's, is a finding naming the example, sent back like any other. The policy questions
//! once per call and takes the same answer again as honest; members that must come from the
//! input never let a copy through; `AnswerChecks::copied_examples` turns the policy off.

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
async fn a_copy_given_again_is_taken_as_honest() {
    let model = ScriptedProvider::new([SAM_OUTPUT, SAM_OUTPUT, SAM_OUTPUT]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(&client, DANA, "Extract the purchase request.")
        .example(IntentExample::new(SAM, SAM_OUTPUT))
        .await;
    // Questioned once, then the same answer again is the model's word.
    assert_eq!(order.attempts().len(), 2);
    assert_eq!(order.attempts()[0].issues[0].kind, IssueKind::CopiedExample);
    assert_eq!(order.value().map(|o| o.quantity), Some(12));
    assert_eq!(model.requests().len(), 2);
}

/// A purchase request whose contact and code must be the input's own.
#[derive(Debug, serde::Deserialize, Intent)]
#[serde(rename_all = "camelCase")]
struct GroundedRequest {
    #[intent(from_input)]
    contact: String,
    #[intent(from_input, pattern = "^[A-Z]-\\d+$")]
    sku: String,
    quantity: u32,
}

#[tokio::test]
async fn a_copy_whose_members_must_come_from_the_input_is_never_taken() {
    let copy = r#"{"value": {"contact": "Sam", "sku": "B-220", "quantity": 12}}"#;
    let model = ScriptedProvider::new([copy, copy, copy]);
    let client = IntentClient::new(model.clone());
    let order = GroundedRequest::ai(&client, DANA, "Extract the purchase request.")
        .example(IntentExample::new(SAM, copy))
        .await;
    assert!(!order.is_success());
    assert_eq!(order.attempts().len(), 3);
    assert!(order
        .issues()
        .iter()
        .any(|i| i.kind == IssueKind::NotInInput && i.path.as_deref() == Some("/value/sku")));
    // The copy is still there to show, read as the type, with the reason it is not a success.
    let last = order.best_effort().map(|o| (o.contact, o.sku, o.quantity));
    assert_eq!(last, Some(("Sam".to_owned(), "B-220".to_owned(), 12)));
}

#[derive(Debug, serde::Deserialize, Intent, PartialEq)]
struct Request {
    intent: String,
}

const REFUND_EXAMPLE: &str = "Please refund order 5521, it arrived broken.";

#[tokio::test]
async fn a_right_answer_equal_to_an_example_succeeds_the_second_time_it_is_given() {
    let refund = r#"{"value": {"intent": "refund"}}"#;
    let model = ScriptedProvider::new([refund, refund]);
    let client = IntentClient::new(model.clone());
    let request = Request::ai(&client, "I want my money back.", "Classify the request.")
        .example(IntentExample::new(REFUND_EXAMPLE, refund))
        .await;
    assert_eq!(
        request.attempts()[0].issues[0].kind,
        IssueKind::CopiedExample
    );
    assert!(request.attempts()[0].issues[0]
        .message
        .contains("\"refund\""));
    assert_eq!(
        request.value(),
        Some(&Request {
            intent: "refund".into()
        })
    );
    assert_eq!(request.attempts().len(), 2);
    // The success says the answer was taken after being questioned.
    let notices = &request.attempts()[1].notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].kind, IssueKind::CopiedExample);
    assert!(notices[0]
        .message
        .starts_with("Taken as the model's answer, given again after attempt 1 questioned it: The answer is Example 1's output"));
}

#[tokio::test]
async fn the_switch_turns_the_copied_example_check_off() {
    let refund = r#"{"value": {"intent": "refund"}}"#;
    let model = ScriptedProvider::new([refund]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .default_options(AiRequestOptions {
            answer_checks: Some(AnswerChecks {
                copied_examples: false,
                ..AnswerChecks::default()
            }),
            ..AiRequestOptions::default()
        })
        .build()
        .unwrap();
    let request = Request::ai(&client, "I want my money back.", "Classify the request.")
        .example(IntentExample::new(REFUND_EXAMPLE, refund))
        .await;
    assert!(request.is_success());
    assert_eq!(request.attempts().len(), 1);
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

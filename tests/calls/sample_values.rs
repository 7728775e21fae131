//! Sample values: a member answered with a sample its own description names (`such as A-1192`),
//! which the input does not contain, is questioned once per call as a copied example is; the
//! same answer again is taken as honest; a sample the input holds is a plain answer.

use intent_core::prelude::*;
use intent_core::IssueKind;
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Purchase {
    /// The sender's first name, e.g. "Sam".
    contact: String,
    /// The product code, such as A-1192.
    sku: String,
    /// How many, for example 12.
    quantity: u32,
    /// The priority, `low` or `high`.
    priority: Priority,
}

#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

const EMAIL: &str = "Dana here: 40 units of C-77, please, no rush.";

#[tokio::test]
async fn a_sample_the_input_lacks_is_questioned_once_at_its_path() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "priority": "low"}}"#,
        r#"{"value": {"contact": "Dana", "sku": "C-77", "quantity": 40, "priority": "low"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let order = Purchase::ai(&client, EMAIL, "Extract the purchase request.").await;
    assert_eq!(order.value().map(|o| o.sku.as_str()), Some("C-77"));
    let issues = &order.attempts()[0].issues;
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].kind, IssueKind::CopiedExample);
    assert_eq!(issues[0].path.as_deref(), Some("/value/sku"));
    assert!(
        issues[0].message.starts_with(
            "`sku` is `A-1192`, the sample its description gives (\"A-1192\"), and the input does not contain it."
        ),
        "{}",
        issues[0].message
    );
    assert!(model.requests()[1]
        .user
        .contains("the sample its description gives"));
    // A corrected answer was not taken after questioning: nothing to note.
    assert!(order.attempts()[1].notices.is_empty());
}

#[tokio::test]
async fn the_same_sample_again_is_taken_as_honest() {
    let sample =
        r#"{"value": {"contact": "Sam", "sku": "A-1192", "quantity": 12, "priority": "low"}}"#;
    let model = ScriptedProvider::new([sample, sample]);
    let client = IntentClient::new(model);
    let order = Purchase::ai(&client, EMAIL, "Extract the purchase request.").await;
    // Three samples in one answer are one question.
    assert_eq!(order.attempts()[0].issues.len(), 3);
    assert_eq!(order.attempts().len(), 2);
    assert_eq!(order.value().map(|o| o.quantity), Some(12));
    // Each sample taken is noted on the success, at its path.
    let noted: Vec<(IssueKind, Option<&str>)> = order.attempts()[1]
        .notices
        .iter()
        .map(|n| (n.kind, n.path.as_deref()))
        .collect();
    assert_eq!(
        noted,
        [
            (IssueKind::CopiedExample, Some("/value/contact")),
            (IssueKind::CopiedExample, Some("/value/sku")),
            (IssueKind::CopiedExample, Some("/value/quantity"))
        ]
    );
}

#[tokio::test]
async fn a_sample_the_input_holds_and_an_enum_named_in_a_description_pass() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 12, "priority": "high"}}"#,
    ]);
    let client = IntentClient::new(model);
    let order = Purchase::ai(
        &client,
        "Dana: 12 of A-1192, urgent.",
        "Extract the purchase request.",
    )
    .await;
    assert_eq!(order.attempts().len(), 1);
    assert!(order.is_success());
}

#[tokio::test]
async fn the_switch_and_a_single_attempt_take_a_sample_at_once() {
    let sample =
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "priority": "low"}}"#;
    let off = AiRequestOptions {
        answer_checks: Some(AnswerChecks {
            sample_values: false,
            ..AnswerChecks::default()
        }),
        ..AiRequestOptions::default()
    };
    let client = IntentClient::new(ScriptedProvider::new([sample]));
    let order = Purchase::ai(&client, EMAIL, "Extract.").options(off).await;
    assert_eq!(order.attempts().len(), 1);
    assert!(order.is_success());
    let client = IntentClient::new(ScriptedProvider::new([sample]));
    let order = Purchase::ai(&client, EMAIL, "Extract.")
        .max_attempts(1)
        .await;
    assert!(order.is_success());
}

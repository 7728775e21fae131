//! Empty list answers: an empty list for an input that holds something is questioned once per
//! call, then taken as honest; an empty input, a list inside a struct, and `max_attempts = 1` are
//! left alone.

use intent_core::prelude::*;
use intent_core::IssueKind;
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent, PartialEq)]
struct Expense {
    item: String,
    amount: f64,
}

#[tokio::test]
async fn an_empty_list_for_a_full_input_is_retried_with_a_finding() {
    let model = ScriptedProvider::new([
        "{\"value\": []}",
        "{\"value\": [{\"item\": \"taxi\", \"amount\": 30}]}",
    ]);
    let client = IntentClient::new(model.clone());
    let result = <Vec<Expense>>::ai(&client, "taxi 30 EUR", "List the expenses.").await;
    let attempts = result.attempts().to_vec();
    assert_eq!(attempts.len(), 2);
    let issue = &attempts[0].issues[0];
    assert_eq!(issue.kind, IssueKind::Empty);
    assert_eq!(issue.path.as_deref(), Some("/value"));
    // The finding is what the second request sends back.
    let second = &model.requests()[1];
    assert!(second
        .user
        .contains("The answer is an empty list, but the input is not empty"));
    let value = result.into_result().unwrap();
    assert_eq!(
        value,
        [Expense {
            item: "taxi".into(),
            amount: 30.0
        }]
    );
}

#[tokio::test]
async fn a_second_empty_list_is_taken_as_honest() {
    let model = ScriptedProvider::new(["[]", "[ ]"]);
    let client = IntentClient::new(model);
    let result = <Vec<Expense>>::ai(&client, "no costs today", "List the expenses.").await;
    assert_eq!(result.attempts().len(), 2);
    assert!(result.into_result().unwrap().is_empty());
}

#[tokio::test]
async fn an_empty_input_a_single_attempt_or_a_member_list_is_not_questioned() {
    let client = IntentClient::new(ScriptedProvider::new(["[]"]));
    let result = <Vec<Expense>>::ai(&client, "", "List the expenses.").await;
    assert_eq!(result.attempts().len(), 1);
    assert!(result.is_success());

    let client = IntentClient::new(ScriptedProvider::new(["[]"]));
    let result = <Vec<Expense>>::ai(&client, "taxi 30", "List the expenses.")
        .options(AiRequestOptions {
            max_attempts: Some(1),
            ..Default::default()
        })
        .await;
    assert_eq!(result.attempts().len(), 1);
    assert!(result.is_success());

    #[derive(Debug, Deserialize, Intent)]
    struct Report {
        tags: Vec<String>,
    }
    let client = IntentClient::new(ScriptedProvider::new(["{\"tags\": []}"]));
    let result = Report::ai(&client, "a report", "Read the report.").await;
    assert_eq!(result.attempts().len(), 1);
    assert!(result.into_result().unwrap().tags.is_empty());
}

//! Rule bounds given as answers: a member answered with its own rule's bound, a number the input
//! does not contain, is questioned once per call, then taken as honest; a bound the input holds,
//! an exclusive bound and `max_attempts = 1` are left alone.

use intent_core::prelude::*;
use intent_core::IssueKind;
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Job {
    title: String,
    #[intent(minimum = 1)]
    salary_min: Option<u32>,
    #[intent(maximum = 40)]
    hours: u32,
}

#[derive(Debug, Deserialize, Intent, PartialEq)]
struct Order {
    lines: Vec<Line>,
}

#[derive(Debug, Deserialize, Intent, PartialEq)]
struct Line {
    sku: String,
    #[intent(minimum = 1)]
    quantity: u32,
    #[intent(exclusive_minimum = 0)]
    price: f64,
}

const POSTING: &str = "Warehouse associate, 38 hours a week, pay on request.";

#[tokio::test]
async fn a_bound_the_input_does_not_hold_is_questioned_once_with_its_path() {
    let model = ScriptedProvider::new([
        r#"{"value": {"title": "Warehouse associate", "salaryMin": 1, "hours": 38}}"#,
        r#"{"value": {"title": "Warehouse associate", "salaryMin": null, "hours": 38}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let result = Job::ai(&client, POSTING, "Read the job posting.").await;
    let attempts = result.attempts().to_vec();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].issues.len(), 1);
    let issue = &attempts[0].issues[0];
    assert_eq!(issue.kind, IssueKind::CopiedRule);
    assert_eq!(issue.path.as_deref(), Some("/value/salaryMin"));
    assert!(
        issue.message.starts_with(
            "`salaryMin` is 1, the bound its rule states, and the input does not contain 1."
        ),
        "{}",
        issue.message
    );
    assert!(issue.message.contains("or null if it states none"));
    // The finding is what the second request sends back.
    assert!(model.requests()[1]
        .user
        .contains("`salaryMin` is 1, the bound"));
    let job = result.into_result().unwrap();
    assert_eq!(job.salary_min, None);
}

#[tokio::test]
async fn the_same_bound_again_is_taken_as_honest() {
    let reply = r#"{"value": {"title": "Packer", "salaryMin": null, "hours": 40}}"#;
    let client = IntentClient::new(ScriptedProvider::new([reply, reply]));
    let result = Job::ai(&client, "Packer, full time.", "Read the job posting.").await;
    assert_eq!(result.attempts().len(), 2);
    assert_eq!(
        result.attempts()[0].issues[0].path.as_deref(),
        Some("/value/hours")
    );
    assert_eq!(result.into_result().unwrap().hours, 40);
}

#[tokio::test]
async fn a_bound_the_input_holds_a_single_attempt_or_an_exclusive_bound_is_not_questioned() {
    let reply = r#"{"value": {"title": "Packer", "salaryMin": null, "hours": 40}}"#;
    let client = IntentClient::new(ScriptedProvider::new([reply]));
    let result = Job::ai(&client, "Packer, 40 hours.", "Read the job posting.").await;
    assert_eq!(result.attempts().len(), 1);
    assert!(result.is_success());

    // 40 inside 1400 is not 40.
    let client = IntentClient::new(ScriptedProvider::new([reply, reply]));
    let result = Job::ai(&client, "Packer, 1400 a month.", "Read the job posting.").await;
    assert_eq!(result.attempts().len(), 2);

    let client = IntentClient::new(ScriptedProvider::new([reply]));
    let result = Job::ai(&client, "Packer, full time.", "Read the job posting.")
        .max_attempts(1)
        .await;
    assert_eq!(result.attempts().len(), 1);
    assert!(result.is_success());

    let order = r#"{"value": {"lines": [{"sku": "A-1", "quantity": 2, "price": 0.5}]}}"#;
    let client = IntentClient::new(ScriptedProvider::new([order]));
    let result = Order::ai(&client, "two of A-1 at 50 cents", "Read the order.").await;
    assert_eq!(result.attempts().len(), 1);
    assert!(result.is_success());
}

#[tokio::test]
async fn each_element_of_a_list_is_watched_at_its_own_path() {
    let model = ScriptedProvider::new([
        r#"{"value": {"lines": [{"sku": "A-1", "quantity": 3, "price": 2}, {"sku": "B-2", "quantity": 1, "price": 4}]}}"#,
        r#"{"value": {"lines": [{"sku": "A-1", "quantity": 3, "price": 2}, {"sku": "B-2", "quantity": 6, "price": 4}]}}"#,
    ]);
    let client = IntentClient::new(model);
    let result = Order::ai(
        &client,
        "3 of A-1 at 2 EUR, six of B-2 at 4 EUR",
        "Read the order.",
    )
    .await;
    let attempts = result.attempts().to_vec();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].issues.len(), 1);
    assert_eq!(
        attempts[0].issues[0].path.as_deref(),
        Some("/value/lines/1/quantity")
    );
    assert!(attempts[0].issues[0]
        .message
        .starts_with("`quantity` of each element of `lines` is 1"));
    assert_eq!(result.into_result().unwrap().lines[1].quantity, 6);
}

//! The last try, typed: `AiResult::best_effort` reads the last reply into the caller's type
//! whatever checks it failed (rules, `require`, the judge, grounded members, a questioned copy),
//! while `issues()` still says why it is not a success; `None` when the reply does not read as
//! the type, was cut off or refused, or never came.

use intent_core::prelude::*;
use intent_core::provider::{ProviderError, ProviderErrorKind, ScriptedReply};
use intent_core::{IssueKind, JudgeOptions};
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent, PartialEq, Clone)]
struct Line {
    #[intent(pattern = "^[A-Z]-\\d+$", from_input)]
    sku: String,
    #[intent(minimum = 1, maximum = 100)]
    quantity: u32,
}

const INPUT: &str = "Send 500 of a-7 and fast.";

fn line(sku: &str, quantity: u32) -> String {
    format!(r#"{{"value": {{"sku": "{sku}", "quantity": {quantity}}}}}"#)
}

fn kinds<T>(result: &AiResult<T>) -> Vec<IssueKind> {
    result.issues().iter().map(|i| i.kind).collect()
}

#[tokio::test]
async fn a_reply_that_breaks_its_rules_reads_without_them() {
    let client = IntentClient::new(ScriptedProvider::new([line("a-7", 500)]));
    let result = Line::ai(&client, INPUT, "Read the line.")
        .max_attempts(1)
        .await;
    assert_eq!(
        kinds(&result),
        [IssueKind::Rule, IssueKind::Rule, IssueKind::Limit]
    );
    assert_eq!(
        result.best_effort(),
        Some(Line {
            sku: "a-7".into(),
            quantity: 500
        })
    );
}

#[tokio::test]
async fn a_reply_that_fails_a_require_a_grounded_member_or_the_judge_reads_as_it_is() {
    let client = IntentClient::new(ScriptedProvider::new([line("A-7", 50)]));
    let result = Line::ai(&client, INPUT, "Read the line.")
        .require(|l| l.quantity > 60, "Quantity must be above 60.")
        .max_attempts(1)
        .await;
    assert_eq!(kinds(&result)[0], IssueKind::Check);
    assert_eq!(result.best_effort().map(|l| l.quantity), Some(50));

    let client = IntentClient::new(ScriptedProvider::new([line("B-9", 50)]));
    let result = Line::ai(&client, INPUT, "Read the line.")
        .max_attempts(1)
        .await;
    assert_eq!(kinds(&result)[0], IssueKind::NotInInput);
    assert_eq!(result.best_effort().map(|l| l.sku), Some("B-9".into()));

    let client = IntentClient::new(ScriptedProvider::new([
        line("A-7", 50),
        r#"{"verdict": "fail", "problems": ["The quantity is 500, not 50."]}"#.to_owned(),
    ]));
    let result = Line::ai(&client, INPUT, "Read the line.")
        .options(AiRequestOptions {
            judge: Some(JudgeOptions::default()),
            ..AiRequestOptions::default()
        })
        .max_attempts(1)
        .await;
    assert_eq!(kinds(&result)[0], IssueKind::Judge);
    assert_eq!(result.best_effort().map(|l| l.quantity), Some(50));
}

#[tokio::test]
async fn a_questioned_copy_on_the_last_attempt_reads_as_it_is() {
    let copy = line("A-7", 90);
    let client = IntentClient::new(ScriptedProvider::new([line("a-7", 500), copy.clone()]));
    let result = Line::ai(&client, INPUT, "Read the line.")
        .example(IntentExample::new("Send 90 of A-7 today.", copy))
        .max_attempts(2)
        .await;
    assert_eq!(kinds(&result)[0], IssueKind::CopiedExample);
    assert_eq!(result.best_effort().map(|l| l.quantity), Some(90));
}

#[tokio::test]
async fn a_reply_that_does_not_read_as_the_type_or_did_not_end_gives_none() {
    let cases: Vec<(ScriptedReply, IssueKind)> = vec![
        ("Sorry, no JSON here.".into(), IssueKind::Parse),
        (r#"{"value": {"sku": "A-7"}}"#.into(), IssueKind::Shape),
        (
            ScriptedReply::truncated(r#"{"value": {"sku": "A-7", "quan"#),
            IssueKind::Truncated,
        ),
        (
            ScriptedReply::refusal("I cannot help with that."),
            IssueKind::Refused,
        ),
        (
            ProviderError::new(ProviderErrorKind::InvalidRequest, "bad request").into(),
            IssueKind::Provider,
        ),
    ];
    for (reply, kind) in cases {
        let client = IntentClient::new(ScriptedProvider::new([reply]));
        let result = Line::ai(&client, INPUT, "Read the line.")
            .max_attempts(1)
            .await;
        assert_eq!(kinds(&result)[0], kind);
        assert_eq!(result.best_effort(), None, "{kind:?}");
    }
}

#[tokio::test]
async fn after_a_provider_failure_the_last_reply_that_came_is_read() {
    let client = IntentClient::new(ScriptedProvider::new([
        ScriptedReply::from(line("a-7", 500)),
        ProviderError::new(ProviderErrorKind::InvalidRequest, "bad request").into(),
    ]));
    let result = Line::ai(&client, INPUT, "Read the line.")
        .max_attempts(2)
        .await;
    assert_eq!(kinds(&result), [IssueKind::Provider]);
    assert_eq!(result.best_effort().map(|l| l.quantity), Some(500));
}

#[tokio::test]
async fn a_success_reads_its_value_again() {
    let client = IntentClient::new(ScriptedProvider::new([line("A-7", 50)]));
    let result = Line::ai(&client, INPUT, "Read the line.").await;
    assert!(result.is_success());
    assert_eq!(result.best_effort().as_ref(), result.value());
}

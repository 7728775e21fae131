//! The switch of every policy that questions a plausible answer: `AnswerChecks` on a call, on the
//! client's defaults and in an intent file, each check off on its own; grounded members stay
//! checked whatever it says.

use intent_core::catalog::Catalog;
use intent_core::prelude::*;
use intent_core::IssueKind;
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Job {
    title: String,
    #[intent(minimum = 1)]
    salary_min: Option<u32>,
}

const POSTING: &str = "Warehouse associate, pay on request.";
const BOUND: &str = r#"{"value": {"title": "Warehouse associate", "salaryMin": 1}}"#;

fn only(checks: impl FnOnce(&mut AnswerChecks)) -> AiRequestOptions {
    let mut all = AnswerChecks::default();
    checks(&mut all);
    AiRequestOptions {
        answer_checks: Some(all),
        ..AiRequestOptions::default()
    }
}

#[tokio::test]
async fn the_rule_bound_switch_takes_a_bound_at_once() {
    let client = IntentClient::new(ScriptedProvider::new([BOUND]));
    let job = Job::ai(&client, POSTING, "Read the posting.")
        .options(only(|c| c.rule_bounds = false))
        .await;
    assert_eq!(job.attempts().len(), 1);
    assert_eq!(job.value().and_then(|j| j.salary_min), Some(1));
    // Another check off leaves this one on.
    let client = IntentClient::new(ScriptedProvider::new([BOUND, BOUND]));
    let job = Job::ai(&client, POSTING, "Read the posting.")
        .options(only(|c| c.empty_lists = false))
        .await;
    assert_eq!(job.attempts()[0].issues[0].kind, IssueKind::CopiedRule);
}

#[tokio::test]
async fn the_empty_list_switch_takes_an_empty_list_at_once() {
    let client = IntentClient::new(ScriptedProvider::new(["[]"]));
    let tags = <Vec<String>>::ai(&client, "red, blue", "List the colours.")
        .options(only(|c| c.empty_lists = false))
        .await;
    assert_eq!(tags.attempts().len(), 1);
    assert_eq!(tags.value(), Some(&Vec::new()));
}

#[tokio::test]
async fn none_on_the_client_turns_every_policy_off_and_a_call_turns_one_back_on() {
    let client = IntentClient::builder()
        .provider(ScriptedProvider::new([BOUND, BOUND, BOUND, "[]"]))
        .default_options(AiRequestOptions {
            answer_checks: Some(AnswerChecks::none()),
            ..AiRequestOptions::default()
        })
        .build()
        .unwrap();
    let job = Job::ai(&client, POSTING, "Read the posting.").await;
    assert_eq!(job.attempts().len(), 1);
    let job = Job::ai(&client, POSTING, "Read the posting.")
        .options(only(|_| {}))
        .await;
    assert_eq!(job.attempts()[0].issues[0].kind, IssueKind::CopiedRule);
    let empty = <Vec<String>>::ai(&client, "red", "List the colours.").await;
    assert_eq!(empty.attempts().len(), 1);
}

#[derive(Debug, Deserialize, Intent)]
struct Code {
    #[intent(from_input)]
    sku: String,
}

#[tokio::test]
async fn grounded_members_are_checked_with_every_policy_off() {
    let client = IntentClient::new(ScriptedProvider::new([r#"{"value": {"sku": "B-7"}}"#]));
    let code = Code::ai(&client, "40 of A-1192", "Read the code.")
        .options(AiRequestOptions {
            answer_checks: Some(AnswerChecks::none()),
            max_attempts: Some(1),
            ..AiRequestOptions::default()
        })
        .await;
    assert_eq!(code.issues()[0].kind, IssueKind::NotInInput);
    assert!(!code.is_success());
    assert_eq!(code.best_effort().map(|c| c.sku), Some("B-7".to_owned()));
}

const CATALOG: &str = r#"
intents:
  - name: posting
    intent: Read the posting.
    shape: Job
    answerChecks: { ruleBounds: false }
  - name: code
    intent: Read the product code.
    shape: { type: object, properties: { sku: { type: string } }, required: [sku] }
    rules:
      sku: { fromInput: true }
  - name: strict-code
    intent: Read the product code.
    shape: { type: object, properties: { sku: { type: string }, n: { type: integer } }, required: [sku, n] }
    rules:
      n: { from_input: true }
"#;

#[tokio::test]
async fn an_intent_file_sets_the_switches_and_grounded_members() {
    let err = Catalog::parse("checks.yaml", CATALOG)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`from_input` applies to text members"),
        "{err}"
    );
    let catalog = Catalog::parse(
        "checks.yaml",
        &CATALOG.replace("    rules:\n      n: { from_input: true }\n", ""),
    )
    .unwrap();
    let client = IntentClient::new(ScriptedProvider::new([BOUND]));
    let job = catalog.run::<Job>(&client, "posting", POSTING).await;
    assert_eq!(job.attempts().len(), 1, "{:?}", job.issues());
    assert!(job.is_success());

    let model = ScriptedProvider::new([
        r#"{"value": {"sku": "B-7"}}"#,
        r#"{"value": {"sku": "a 1192"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let code = catalog
        .run_json(&client, "code", "40 of A-1192, please")
        .await;
    assert_eq!(
        code.value().map(|v| v["sku"].clone()),
        Some("a 1192".into())
    );
    let first = &code.attempts()[0].issues[0];
    assert_eq!(first.kind, IssueKind::NotInInput);
    assert_eq!(first.path.as_deref(), Some("/value/sku"));
    assert!(model.requests()[0]
        .user
        .contains("- `sku`: copied from the input, as the input writes it"));
}

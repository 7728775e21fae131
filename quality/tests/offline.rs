//! The runner end to end on a scripted model: rows, JSON lines and scores.

use intent_core::prelude::*;
use intent_quality::{run_set, score_rows, side_by_side, to_json_lines, CaseSet, Row, Variant};

fn smoke_set() -> CaseSet {
    CaseSet::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/cases/smoke.json"
    )))
    .expect("the smoke set loads")
}

/// Right answers for every case but the job, whose salary is wrong.
const REPLIES: [&str; 5] = [
    r#"{"value": {"recipient": "Maria Rossi", "street": "Via Roma 5", "city": "Rome", "postcode": "00184", "country": "Italy"}}"#,
    r#"{"value": {"topic": "Design review", "date": "2027-04-02", "startTime": "09:15", "attendees": ["Ben", "Ana"]}}"#,
    r#"{"value": "Critical"}"#,
    r#"{"value": [{"item": "Lunch", "amount": 12.5, "currency": "EUR"}, {"item": "Parking", "amount": 4, "currency": "EUR"}]}"#,
    r#"{"value": {"title": "Remote Python developer", "remote": true, "salaryMin": 90, "salaryMax": 110000}}"#,
];

#[tokio::test]
async fn a_plain_run_writes_rows_that_score_as_the_answers_deserve() {
    let set = smoke_set();
    let model = ScriptedProvider::new(REPLIES);
    let client = IntentClient::new(model.clone());
    let rows = run_set(&client, &set, Variant::Plain).await;

    assert_eq!(rows.len(), 5);
    assert!(rows.iter().all(|r| r.output.is_some() && r.calls == 1));
    let summary = score_rows(&set, &rows);
    assert_eq!((summary.cases, summary.answered, summary.exact), (5, 5, 4));
    assert!((summary.field - (4.0 + 0.75) / 5.0).abs() < 1e-9);
    assert_eq!(summary.misses[0].0, "j1");

    // The JSON lines read back as the same rows (the form score.py reads).
    let text = to_json_lines(&rows);
    let back: Vec<Row> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(back, rows);
    // Each case went out with its own intent and input.
    let sent = model.requests();
    assert!(sent[2].user.contains("deletes every saved file"));
}

#[tokio::test]
async fn a_ruled_run_checks_the_rules_and_a_failed_case_is_a_row_with_its_error() {
    let set = smoke_set();
    let mut replies: Vec<&str> = REPLIES.to_vec();
    // The ruled type's currency pattern refuses "eur", on every attempt.
    replies[3] = r#"{"value": [{"item": "Lunch", "amount": 12.5, "currency": "eur"}, {"item": "parking", "amount": 4, "currency": "EUR"}]}"#;
    replies.splice(4..4, [replies[3], replies[3]]);
    let client = IntentClient::new(ScriptedProvider::new(replies));
    let rows = run_set(&client, &set, Variant::Ruled).await;

    let expense = &rows[3];
    assert_eq!(expense.output, None);
    assert_eq!(expense.calls, 3);
    let error = expense.error.as_deref().unwrap();
    assert!(error.contains("/value/0/currency"), "{error}");
    let summary = score_rows(&set, &rows);
    assert_eq!(summary.answered, 4);
    let table = side_by_side(&[(Variant::Plain, summary.clone()), (Variant::Ruled, summary)]);
    assert!(table.contains("e1: 0.00"), "{table}");
}

#[test]
fn an_unknown_kind_is_refused_with_the_known_ones() {
    let set: CaseSet = serde_json::from_str(
        r#"{"cases": [{"id": "x", "kind": "invoice", "intent": "", "input": "", "expect": null}]}"#,
    )
    .unwrap();
    let error = set.check().unwrap_err();
    assert!(
        error.contains("`invoice`") && error.contains("shipment, meeting"),
        "{error}"
    );
}

#[tokio::test]
async fn the_trust_set_asks_samples_ruled_and_refuses_them_grounded() {
    let set = CaseSet::load(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/cases/trust.json"
    )))
    .expect("the trust set loads");
    let case = &set.cases[0];
    let sample = r#"{"value": {"contact": "Sam", "sku": "A-1192", "quantity": 12}}"#;
    // Ruled: the docs' samples are questioned once, then the same answer is taken.
    let model = ScriptedProvider::new([sample; 2]);
    let ruled =
        intent_quality::run_case(&IntentClient::new(model.clone()), case, Variant::Ruled).await;
    assert_eq!(ruled.calls, 2);
    assert!(model.requests()[0].user.contains("such as A-1192"));
    assert_eq!(ruled.retried_on, ["CopiedExample"; 3]);
    // Grounded: the code the input lacks is never taken.
    let client = IntentClient::new(ScriptedProvider::new([sample; 3]));
    let grounded = intent_quality::run_case(&client, case, Variant::Grounded).await;
    assert_eq!((grounded.output.as_ref(), grounded.calls), (None, 3));
    assert!(grounded.error.as_deref().unwrap().contains("/value/sku"));
    let summary = score_rows(&set, &[ruled, grounded]);
    assert_eq!((summary.answered, summary.exact), (1, 0));
}

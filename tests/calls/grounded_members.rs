//! Grounded members: a member declared to come from the input (`#[intent(from_input)]`, on a
//! member or on a struct) holding a value the input lacks is a finding at its path, every time:
//! such an answer never comes back as a success. A value the input holds in another case,
//! spacing or punctuation passes, a number as a number, and `null` where the type allows it.

use intent_core::prelude::*;
use intent_core::IssueKind;
use serde::Deserialize;

/// A purchase request whose sender and code are copied from the email.
#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Purchase {
    #[intent(from_input)]
    contact: String,
    /// The product code, as the email writes it.
    #[intent(from_input)]
    sku: String,
    quantity: u32,
    #[intent(from_input)]
    reference: Option<String>,
}

const EMAIL: &str = "Hi team, Dana from Northwind here. Could you send 40 units of a 1192? \
Our reference is PO 1,200. Thanks, Dana";

#[tokio::test]
async fn a_value_the_input_lacks_is_never_a_success() {
    let wrong =
        r#"{"value": {"contact": "Dana", "sku": "B-220", "quantity": 40, "reference": null}}"#;
    let model = ScriptedProvider::new([wrong, wrong, wrong]);
    let client = IntentClient::new(model.clone());
    let order = Purchase::ai(&client, EMAIL, "Extract the purchase request.").await;
    assert!(!order.is_success());
    assert_eq!(order.attempts().len(), 3);
    for attempt in order.attempts() {
        assert_eq!(attempt.issues.len(), 1, "{:?}", attempt.issues);
        let issue = &attempt.issues[0];
        assert_eq!(issue.kind, IssueKind::NotInInput);
        assert_eq!(issue.path.as_deref(), Some("/value/sku"));
        assert_eq!(
            issue.message,
            "`sku` is `B-220`, which the input does not contain; give the value as the input writes it."
        );
    }
    // The finding goes back to the model, and the rule was stated up front.
    assert!(model.requests()[0]
        .user
        .contains("- `sku`: copied from the input, as the input writes it"));
    assert!(model.requests()[1]
        .user
        .contains("`sku` is `B-220`, which the input does not contain"));
    // The last try is still there to show, with the reason it is not a success.
    assert_eq!(order.best_effort().map(|o| o.sku), Some("B-220".to_owned()));
}

#[tokio::test]
async fn a_value_the_input_holds_in_another_form_passes() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "DANA", "sku": "A-1192", "quantity": 40, "reference": "PO 1200"}}"#,
    ]);
    let client = IntentClient::new(model);
    let order = Purchase::ai(&client, EMAIL, "Extract the purchase request.").await;
    assert_eq!(order.attempts()[0].issues, Vec::new());
    assert_eq!(order.value().map(|o| o.sku.as_str()), Some("A-1192"));
}

#[tokio::test]
async fn a_part_of_a_word_or_of_a_number_is_not_in_the_input() {
    for (contact, sku, reference, expected) in [
        ("Dan", "A-119", "null", vec!["/value/contact", "/value/sku"]),
        ("Dana", "A-1192", "\"PO 120\"", vec!["/value/reference"]),
    ] {
        let reply = format!(
            r#"{{"value": {{"contact": "{contact}", "sku": "{sku}", "quantity": 40, "reference": {reference}}}}}"#
        );
        let client = IntentClient::new(ScriptedProvider::new([reply]));
        let order = Purchase::ai(&client, EMAIL, "Extract.")
            .max_attempts(1)
            .await;
        let paths: Vec<&str> = order
            .issues()
            .iter()
            .filter(|i| i.kind == IssueKind::NotInInput)
            .filter_map(|i| i.path.as_deref())
            .collect();
        assert_eq!(paths, expected);
    }
}

/// Every text member of the struct comes from the input; its numbers are read, not copied.
#[derive(Debug, Deserialize, Intent, PartialEq)]
#[intent(from_input)]
struct Contact {
    name: String,
    company: Option<String>,
    tags: Vec<String>,
    employees: u32,
}

#[tokio::test]
async fn on_a_struct_every_text_member_and_each_list_element_is_checked() {
    let model = ScriptedProvider::new([
        r#"{"value": {"name": "Ada Lovelace", "company": "Acme", "tags": ["maths", "poetry"], "employees": 12}}"#,
        r#"{"value": {"name": "Ada Lovelace", "company": null, "tags": ["maths"], "employees": 12}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let contact = Contact::ai(
        &client,
        "Ada Lovelace (maths) runs a team of twelve.",
        "Read the contact.",
    )
    .await;
    let first = intent_tests::paths_and_kinds(&contact.attempts()[0].issues);
    assert_eq!(
        first,
        vec![
            (Some("/value/company"), IssueKind::NotInInput),
            (Some("/value/tags/1"), IssueKind::NotInInput)
        ]
    );
    assert!(contact.attempts()[0].issues[1]
        .message
        .starts_with("`tags` holds `poetry`"));
    assert_eq!(contact.value().map(|c| c.employees), Some(12));
}

#[tokio::test]
async fn each_element_of_a_list_result_is_checked_against_the_input() {
    let model = ScriptedProvider::new([
        r#"{"value": [{"name": "Ada", "company": null, "tags": [], "employees": 1}, {"name": "Alan", "company": null, "tags": [], "employees": 1}]}"#,
    ]);
    let client = IntentClient::new(model);
    let people = <Vec<Contact>>::ai(&client, "Ada and Grace, 1 each.", "List the people.")
        .max_attempts(1)
        .await;
    assert!(!people.is_success());
    assert_eq!(people.issues()[0].path.as_deref(), Some("/value/1/name"));
}

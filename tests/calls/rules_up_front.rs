//! `require` rules stated up front: each message is in the first prompt's output requirements,
//! in the list of the member rules and worded as they are, so a model can meet it on the first
//! attempt.

use intent_core::prelude::*;
use intent_tests::derive_types::PurchaseRequest;

const EMAIL: &str = "Dana here: please send 40 units of A-1192.";

#[tokio::test]
async fn a_require_message_is_in_the_first_prompt_after_the_member_rules() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "deliverBy": null}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract the purchase request.")
        .require(|o| o.quantity <= 100, "Quantity must be at most 100.")
        .require(|o| !o.contact.is_empty(), "  Name the contact,\n always. ")
        .await;
    assert!(order.is_success(), "{:?}", order.issues());
    assert_eq!(order.attempts().len(), 1);
    let user = &model.requests()[0].user;
    let rules = user
        .split("Rules for members of <result>:\n")
        .nth(1)
        .expect("the rules are listed");
    let lines: Vec<&str> = rules.lines().take_while(|l| l.starts_with("- ")).collect();
    assert_eq!(
        lines,
        [
            "- `sku`: matching the regular expression ^[A-Z]-\\d+$",
            "- `quantity`: must not be below 1; must not be above 1000",
            "- the result: Quantity must be at most 100.",
            "- the result: Name the contact, always.",
        ]
    );
}

#[tokio::test]
async fn a_text_result_states_its_require_rules_too() {
    let model = ScriptedProvider::new(["Dana wants 40 of A-1192."]);
    let client = IntentClient::new(model.clone());
    let _ = String::ai(&client, EMAIL, "Summarize.")
        .require(|s| s.len() <= 80, "Keep it under 80 characters.")
        .await;
    assert!(model.requests()[0]
        .user
        .contains("Rules for the text:\n- the result: Keep it under 80 characters."));
}

#[tokio::test]
async fn a_collection_states_its_require_rules_for_each_element() {
    let model = ScriptedProvider::new([r#"{"value": [{"index": 0, "value": "rouge"}]}"#]);
    let client = IntentClient::new(model.clone());
    let _ = client
        .map_each::<String>(&["red"], "Translate into French.")
        .require(|s| s == &s.to_lowercase(), "Write the word in lower case.")
        .await;
    assert!(
        model.requests()[0]
            .user
            .contains("- `value` of each element: Write the word in lower case."),
        "{}",
        model.requests()[0].user
    );
}

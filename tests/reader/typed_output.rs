//! End to end on a scripted model, one test per part of the behaviour reference's "Typed output"
//! page: strict schemas, described types, text results, required members, nulls, enums, dates,
//! rules, runtime shapes, options, retries.

use std::collections::HashMap;

use chrono::NaiveDate;
use intent_core::prelude::*;
use intent_core::IssueKind;
use intent_core::ResponseFormat;
use serde::Deserialize;
use serde_json::json;

/// A purchase request read from an email.
#[derive(Debug, PartialEq, Deserialize, Intent)]
#[serde(rename_all = "camelCase")]
struct PurchaseRequest {
    contact: String,
    sku: String,
    quantity: u32,
    deliver_by: Option<NaiveDate>,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
enum Priority {
    Low,
    Normal,
    Urgent,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Ticket {
    title: String,
    priority: Priority,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Tagged {
    name: String,
    attributes: HashMap<String, String>,
}

const EMAIL: &str = "Dana from Northwind: 40 units of A-1192 by 2026-11-15 please.";
const ORDER: &str = r#"{"value": {"contact": "Dana (Northwind)", "sku": "A-1192", "quantity": 40, "deliverBy": "2026-11-15"}}"#;

fn dana() -> PurchaseRequest {
    PurchaseRequest {
        contact: "Dana (Northwind)".into(),
        sku: "A-1192".into(),
        quantity: 40,
        deliver_by: NaiveDate::from_ymd_opt(2026, 11, 15),
    }
}

#[tokio::test]
async fn a_strict_type_is_sent_as_a_strict_envelope_schema_and_read_back() {
    let model = ScriptedProvider::new([ORDER]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract the purchase request.").await;
    assert_eq!(order.into_result().unwrap(), dana());
    let sent = &model.requests()[0];
    assert_eq!(sent.format, ResponseFormat::JsonSchema);
    assert_eq!(sent.schema_name, "intent_output");
    let schema = sent.schema.as_ref().unwrap();
    assert_eq!(schema["required"], json!(["value"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    let inner = &schema["properties"]["value"];
    assert_eq!(
        inner["required"],
        json!(["contact", "sku", "quantity", "deliverBy"])
    );
    assert_eq!(
        inner["properties"]["deliverBy"]["type"],
        json!(["string", "null"])
    );
}

#[tokio::test]
async fn a_type_with_a_map_is_described_and_asked_for_as_a_json_object() {
    let model =
        ScriptedProvider::new([r#"{"value": {"name": "Lamp", "attributes": {"colour": "red"}}}"#]);
    let client = IntentClient::new(model.clone());
    let tagged = Tagged::ai(&client, "a red lamp", "Describe the product.").await;
    assert_eq!(tagged.value().unwrap().attributes["colour"], "red");
    let sent = &model.requests()[0];
    assert_eq!(sent.format, ResponseFormat::JsonObject);
    assert!(sent.schema.is_none());
    assert!(sent.user.contains("Use JSON types faithfully"));
    assert!(sent.user.contains("Dictionary<string, string> attributes"));
}

#[tokio::test]
async fn a_text_result_is_the_reply_itself() {
    let model = ScriptedProvider::new(["Dana asks for 40 units of A-1192."]);
    let client = IntentClient::new(model.clone());
    let summary = String::ai(&client, EMAIL, "Summarize in one sentence.").await;
    assert_eq!(
        summary.value().map(String::as_str),
        Some("Dana asks for 40 units of A-1192.")
    );
    let sent = &model.requests()[0];
    assert_eq!(sent.format, ResponseFormat::Text);
    assert!(sent.schema.is_none());
}

#[tokio::test]
async fn a_missing_required_member_is_an_issue_not_a_default() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "deliverBy": null}}"#,
        ORDER,
    ]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract the purchase request.").await;
    assert_eq!(order.value(), Some(&dana()));
    let first = &order.attempts()[0];
    let paths: Vec<&str> = first
        .issues
        .iter()
        .filter_map(|i| i.path.as_deref())
        .collect();
    assert!(paths.contains(&"/value/sku"), "{:?}", first.issues);
    assert!(paths.contains(&"/value/quantity"), "{:?}", first.issues);
    // The retry showed the model both findings.
    let retry = &model.requests()[1].user;
    assert!(retry.contains("/value/sku"));
    assert!(retry.contains("/value/quantity"));
}

#[tokio::test]
async fn null_passes_only_where_the_member_is_optional() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": null, "sku": "A-1192", "quantity": 40, "deliverBy": null}}"#,
    ]);
    let client = IntentClient::new(model);
    let options = AiRequestOptions {
        max_attempts: Some(1),
        ..Default::default()
    };
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract.")
        .options(options)
        .await;
    assert!(!order.is_success());
    let issue = &order.attempts()[0].issues[0];
    assert_eq!(issue.path.as_deref(), Some("/value/contact"));
    assert_eq!(issue.kind, IssueKind::Shape);

    let model = ScriptedProvider::new([r#"{"value": null}"#, r#"{"value": null}"#]);
    let client = IntentClient::new(model);
    assert_eq!(
        Option::<u32>::ai(&client, "none", "Find the number.")
            .await
            .into_result()
            .unwrap(),
        None
    );
    assert!(!u32::ai(&client, "none", "Find the number.")
        .options(AiRequestOptions {
            max_attempts: Some(1),
            ..Default::default()
        })
        .await
        .is_success());
}

#[tokio::test]
async fn enums_are_read_by_name_in_any_case_and_numbers_are_refused() {
    let model = ScriptedProvider::new([
        r#"{"value": {"title": "Printer on fire", "priority": 2}}"#,
        r#"{"value": {"title": "Printer on fire", "priority": "urgent"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let ticket = Ticket::ai(&client, "The printer is on fire!", "File a ticket.").await;
    assert_eq!(ticket.value().unwrap().priority, Priority::Urgent);
    let refused = &ticket.attempts()[0].issues[0];
    assert_eq!(refused.path.as_deref(), Some("/value/priority"));
    assert!(model.requests()[0]
        .user
        .contains("Priority is one of: Low, Normal, Urgent"));
}

#[tokio::test]
async fn dates_travel_as_iso_8601_strings() {
    let model = ScriptedProvider::new([r#"{"value": "2026-11-15"}"#]);
    let client = IntentClient::new(model.clone());
    let date = NaiveDate::ai(&client, EMAIL, "When is delivery due?").await;
    assert_eq!(
        date.into_result().unwrap(),
        NaiveDate::from_ymd_opt(2026, 11, 15).unwrap()
    );
    let sent = &model.requests()[0];
    assert!(sent.user.contains("DateOnly (yyyy-MM-dd)"));
    assert_eq!(
        sent.schema.as_ref().unwrap()["properties"]["value"]["format"],
        "date"
    );
}

#[tokio::test]
async fn a_runtime_shape_is_sent_strict_and_checked_to_be_json_and_not_null() {
    let schema = json!({"type": "object", "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}}});
    let model = ScriptedProvider::new([
        r#"{"value": null}"#,
        r#"{"value": {"sku": "A-1192", "quantity": 40}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let line = client
        .transform(EMAIL, "Extract the SKU and the quantity.", schema.clone())
        .await;
    assert_eq!(
        line.into_result().unwrap(),
        json!({"sku": "A-1192", "quantity": 40})
    );
    let sent = &model.requests()[0];
    assert_eq!(sent.format, ResponseFormat::JsonSchema);
    let inner = &sent.schema.as_ref().unwrap()["properties"]["value"];
    assert_eq!(inner["required"], json!(["sku", "quantity"]));
    assert!(
        inner["properties"]["quantity"].get("minimum").is_none(),
        "constraints never reach the provider"
    );
    assert!(sent
        .user
        .contains("a JSON value that conforms to the provided JSON schema"));
    // The caller's schema is untouched.
    assert!(schema.get("required").is_none());
}

#[tokio::test]
async fn every_option_lands_where_it_belongs_in_the_request() {
    let options = AiRequestOptions {
        expected_output_description: Some(
            "Contact is the sender's first name, then the company in brackets.".into(),
        ),
        system_instructions: Some(
            "You read purchase emails for the Northwind account team.".into(),
        ),
        max_output_tokens: Some(512),
        temperature: Some(0.0),
        model: Some("gpt-test".into()),
        examples: vec![IntentExample::new(
            "Hello, Sam at Contoso here. Please send 12 units of B-220 by 2026-12-01.",
            r#"{"value": {"contact": "Sam (Contoso)", "sku": "B-220", "quantity": 12, "deliverBy": "2026-12-01"}}"#,
        )],
        ..AiRequestOptions::default()
    };
    let model = ScriptedProvider::new([ORDER]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(
        &client,
        EMAIL,
        "Extract the purchase request from this email.",
    )
    .options(options)
    .await;
    assert_eq!(order.value(), Some(&dana()));
    let sent = &model.requests()[0];
    assert!(sent
        .system
        .ends_with("\n\nYou read purchase emails for the Northwind account team."));
    assert!(sent.user.contains("\nAdditional output requirements: Contact is the sender's first name, then the company in brackets."));
    assert!(sent
        .user
        .contains("## Examples\nExample 1 input:\nHello, Sam at Contoso here."));
    assert!(sent
        .user
        .contains("Example 1 output:\n{\"value\": {\"contact\": \"Sam (Contoso)\""));
    assert_eq!(sent.max_output_tokens, Some(512));
    assert_eq!(sent.temperature, Some(0.0));
    assert_eq!(sent.model.as_deref(), Some("gpt-test"));
    assert_eq!(order.attempts()[0].model, "gpt-test");
}

#[tokio::test]
async fn a_failed_require_is_corrected_on_attempt_two() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana (Northwind)", "sku": "A-1192", "quantity": 4000, "deliverBy": "2026-11-15"}}"#,
        ORDER,
    ]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract the purchase request.")
        .require(|o| o.quantity <= 1000, "Quantity must be at most 1000.")
        .await;
    assert_eq!(order.value(), Some(&dana()));
    assert_eq!(order.attempts().len(), 2);
    assert_eq!(
        order.attempts()[0].issues[0].message,
        "Quantity must be at most 1000."
    );
    assert_eq!(order.attempts()[0].issues[0].kind, IssueKind::Check);
    let retry = &model.requests()[1].user;
    assert!(retry.contains("## Previous attempt\n{\"value\": {\"contact\": \"Dana (Northwind)\", \"sku\": \"A-1192\", \"quantity\": 4000"));
    assert!(retry.contains("## Problems with the previous attempt\n- Quantity must be at most 1000.\nProduce a corrected response"));
}

#[tokio::test]
async fn validate_reports_every_message_and_attempts_exhausted_keep_every_raw_output() {
    let replies = [
        r#"{"value": {"contact": "", "sku": "A-1192", "quantity": 40, "deliverBy": null}}"#,
        r#"not json at all"#,
        r#"{"value": {"contact": "", "sku": "", "quantity": 40, "deliverBy": null}}"#,
    ];
    let model = ScriptedProvider::new(replies);
    let client = IntentClient::new(model);
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract the purchase request.")
        .validate(|o| {
            let mut problems = Vec::new();
            if o.contact.is_empty() {
                problems.push("Contact must not be empty.".to_owned());
            }
            if o.sku.is_empty() {
                problems.push("SKU must not be empty.".to_owned());
            }
            problems
        })
        .await;
    assert!(!order.is_success());
    let raws: Vec<&str> = order
        .attempts()
        .iter()
        .map(|a| a.raw_output.as_str())
        .collect();
    assert_eq!(raws, replies);
    let messages: Vec<&str> = order.issues().iter().map(|i| i.message.as_str()).collect();
    assert_eq!(
        messages[..2],
        ["Contact must not be empty.", "SKU must not be empty."]
    );
    assert!(messages[2].contains("max_attempts (3)"));
}

#[tokio::test]
async fn an_input_over_max_input_chars_fails_before_any_model_call() {
    let model = ScriptedProvider::new([ORDER]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_input_chars: 10,
            ..Default::default()
        })
        .build()
        .unwrap();
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract.").await;
    assert!(!order.is_success());
    assert_eq!(order.issues()[0].kind, IssueKind::Input);
    assert!(order.issues()[0].message.contains("max_input_chars (10)"));
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn a_truncated_or_refused_reply_fails_its_attempt_with_its_own_issue() {
    use intent_core::provider::ScriptedReply;
    let model = ScriptedProvider::new([
        ScriptedReply::truncated(r#"{"value": {"contact": "Da"#),
        ScriptedReply::refusal("I can't help with that"),
        ScriptedReply::from(ORDER),
    ]);
    let client = IntentClient::new(model);
    let options = AiRequestOptions {
        max_output_tokens: Some(16),
        ..Default::default()
    };
    let order = PurchaseRequest::ai(&client, EMAIL, "Extract.")
        .options(options)
        .await;
    assert_eq!(order.value(), Some(&dana()));
    assert_eq!(order.attempts()[0].issues[0].kind, IssueKind::Truncated);
    assert!(order.attempts()[0].issues[0]
        .message
        .contains("max_output_tokens = 16"));
    assert_eq!(order.attempts()[1].issues[0].kind, IssueKind::Refused);
    assert!(order.attempts()[1].issues[0]
        .message
        .contains("I can't help with that"));
}

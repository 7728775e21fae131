//! The full requests a provider receives, end to end through `T::ai` on a `ScriptedProvider`,
//! compared with reviewed golden files under `tests/fixtures/golden/prompts/` (regenerate with
//! `INTENT_BLESS=1`).

use std::any::type_name;
use std::collections::HashMap;

use chrono::NaiveDate;
use intent_core::__internals::prompt;
use intent_core::__internals::shape::{
    Field, Node, NodeId, Rules, ShapeGraph, StructKind, StructShape, TypeInfo,
};
use intent_core::prelude::*;
use intent_core::{AiRequest, ResponseFormat};
use intent_core::{IssueKind, ResultIssue};
use serde::Deserialize;
use serde_json::{json, Value};

/// A purchase request read from an email (the shape a derive would register, written by hand).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct PurchaseRequest {
    contact: String,
    sku: String,
    quantity: u32,
    deliver_by: Option<NaiveDate>,
}

impl Intent for PurchaseRequest {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let text = String::shape(graph);
            let count = u32::shape(graph);
            let day = <Option<NaiveDate>>::shape(graph);
            let mut quantity = Field::new("quantity", count);
            quantity.rules = Rules {
                minimum: Some(1.0),
                ..Rules::default()
            };
            let mut deliver_by = Field::new("deliverBy", day);
            deliver_by.required = false;
            deliver_by.doc =
                Some("The day the goods must arrive, when the email gives one.".into());
            let mut shape = StructShape::new(
                "PurchaseRequest",
                StructKind::Named(vec![
                    Field::new("contact", text),
                    Field::new("sku", text),
                    quantity,
                    deliver_by,
                ]),
            );
            shape.doc = Some("A purchase request read from an email.".into());
            Node::Struct(shape)
        })
    }
}

const EMAIL: &str =
    "Hi, Dana from Northwind here.\nPlease send 40 units of A-1192 by 2026-11-15.\nThanks!";

/// Renders everything a request carries, for a golden file.
fn render(request: &AiRequest) -> String {
    let schema = match &request.schema {
        Some(schema) => serde_json::to_string_pretty(schema.value()).unwrap(),
        None => "(none)".to_owned(),
    };
    format!(
        "model: {:?}\nformat: {:?}\nschema_name: {}\nmax_output_tokens: {:?}\ntemperature: {:?}\n\
         \n===== system =====\n{}\n===== user =====\n{}\n===== schema =====\n{}\n",
        request.model,
        request.format,
        request.schema_name,
        request.max_output_tokens,
        request.temperature,
        request.system,
        request.user,
        schema
    )
}

/// Compares `actual` with `tests/fixtures/golden/prompts/<name>.txt` (see `intent_tests::golden`).
fn golden(name: &str, actual: &str) {
    intent_tests::golden::check(&format!("prompts/{name}.txt"), actual);
}

/// The one request a scripted call sent.
fn only_request(model: &ScriptedProvider) -> AiRequest {
    let requests = model.requests();
    assert_eq!(requests.len(), 1, "expected one request");
    requests.into_iter().next().unwrap()
}

#[tokio::test]
async fn text_target() {
    let model = ScriptedProvider::new(["Dana asks for 40 units of A-1192 by 15 November."]);
    let client = IntentClient::new(model.clone());
    let summary = String::ai(&client, EMAIL, "  Summarize this email in one sentence.\n").await;
    assert!(summary.is_success(), "{:?}", summary.issues());
    golden("text_target", &render(&only_request(&model)));
}

#[tokio::test]
async fn strict_target() {
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "deliverBy": "2026-11-15"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(
        &client,
        EMAIL,
        "Extract the purchase request from this email.",
    )
    .await;
    assert!(order.is_success(), "{:?}", order.issues());
    let request = only_request(&model);
    assert_eq!(
        request.schema.as_deref(),
        PurchaseRequest::strict_envelope_schema().as_ref()
    );
    golden("strict_target", &render(&request));
}

#[tokio::test]
async fn fallback_type_in_json_object_mode() {
    let model = ScriptedProvider::new([r#"{"value": {"A-1192": 40}}"#]);
    let client = IntentClient::new(model.clone());
    let counts = HashMap::<String, u32>::ai(&client, EMAIL, "Count the units per SKU.").await;
    assert!(counts.is_success(), "{:?}", counts.issues());
    let request = only_request(&model);
    assert_eq!(request.format, ResponseFormat::JsonObject);
    golden("fallback_json_object", &render(&request));
}

#[tokio::test]
async fn runtime_schema() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/line.json",
        "type": "object",
        "properties": {
            "sku": {"type": "string", "pattern": "^[A-Z]-\\d+$"},
            "quantity": {"type": "integer", "minimum": 1},
            "due": {"$ref": "#/$defs/day"},
            "again": {"$ref": "#/properties/sku"}
        },
        "required": ["sku"],
        "$defs": {"day": {"type": ["string", "null"], "format": "date"}}
    });
    let model = ScriptedProvider::new([
        r#"{"value": {"sku": "A-1192", "quantity": 40, "due": "2026-11-15", "again": "A-1192"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let line = client
        .transform(EMAIL, "Extract the SKU and the quantity.", schema.clone())
        .await;
    assert!(line.is_success(), "{:?}", line.issues());
    let request = only_request(&model);
    assert_eq!(
        request.schema.as_deref(),
        Some(&intent_core::schema::build_envelope_from_schema(&schema).unwrap())
    );
    golden("runtime_schema", &render(&request));
}

#[tokio::test]
async fn json_value_without_a_schema() {
    let model = ScriptedProvider::new([r#"{"value": {"sku": "A-1192"}}"#]);
    let client = IntentClient::new(model.clone());
    let input = json!({"subject": "Order", "body": EMAIL});
    let any = Value::ai(&client, &input, "Extract whatever order details you find.").await;
    assert!(any.is_success(), "{:?}", any.issues());
    golden("json_value_without_schema", &render(&only_request(&model)));
}

#[tokio::test]
async fn with_examples() {
    let model = ScriptedProvider::new([r#"{"value": ["A-1192"]}"#]);
    let client = IntentClient::new(model.clone());
    let options = AiRequestOptions {
        examples: vec![
            IntentExample::new(
                "  Send 3 of B-220 and 1 of C-7.\n",
                "\n{\"value\": [\"B-220\", \"C-7\"]}  ",
            ),
            IntentExample::new("No order in this one.", r#"{"value": []}"#),
        ],
        ..AiRequestOptions::default()
    };
    let skus = <Vec<String>>::ai(&client, EMAIL, "List the SKUs ordered.")
        .options(options)
        .await;
    assert!(skus.is_success(), "{:?}", skus.issues());
    golden("examples", &render(&only_request(&model)));
}

#[tokio::test]
async fn with_system_instructions_and_request_settings() {
    let model = ScriptedProvider::new([r#"{"value": 40}"#]);
    let client = IntentClient::new(model.clone());
    let options = AiRequestOptions {
        system_instructions: Some(
            "  You read purchase emails for the Northwind account team.\n".into(),
        ),
        expected_output_description: Some("The total number of units, all SKUs together.".into()),
        max_output_tokens: Some(64),
        temperature: Some(0.2),
        model: Some("gpt-4o-mini".into()),
        ..AiRequestOptions::default()
    };
    let total = u32::ai(&client, EMAIL, "Count the units ordered.")
        .options(options)
        .await;
    assert!(total.is_success(), "{:?}", total.issues());
    golden("system_instructions", &render(&only_request(&model)));
}

fn long_reply() -> String {
    let sentence = "Lorem ipsum dolor sit amet, the order is for forty units. ";
    let mut reply = String::new();
    while reply.chars().count() < 7000 {
        reply.push_str(sentence);
    }
    reply
}

#[tokio::test]
async fn retry_carries_the_previous_output_and_every_problem() {
    let model = ScriptedProvider::new([long_reply(), "Dana orders 40 units of A-1192.".to_owned()]);
    let client = IntentClient::new(model.clone());
    let summary = String::ai(&client, EMAIL, "Summarize this email in one sentence.")
        .require(
            |s| s.chars().count() <= 200,
            "Keep the summary to 200 characters or fewer.",
        )
        .validate(|s| {
            if s.contains("Lorem") {
                vec!["Do not include filler text such as \"Lorem ipsum\".".to_owned()]
            } else {
                Vec::new()
            }
        })
        .await;
    assert!(summary.is_success(), "{:?}", summary.issues());
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert!(!requests[0].user.contains("## Previous attempt"));
    golden("retry", &render(&requests[1]));
}

#[test]
fn retry_lists_issue_paths_and_cuts_by_characters() {
    let info = TypeInfo::of::<PurchaseRequest>();
    let input = intent_core::__internals::input::serialize(EMAIL, 10_000).unwrap();
    let plan = prompt::plan(
        &info,
        &AiRequestOptions::default(),
        "Extract the purchase request from this email.",
        &input,
    )
    .unwrap();
    let mut previous = AttemptRecord::new(1);
    // 6,500 characters, 13,000 bytes: the cut counts characters.
    previous.raw_output = "é".repeat(6500);
    previous.issues = vec![
        ResultIssue::at(
            "/value/sku",
            IssueKind::Shape,
            "Must be a string; got the number 1192.",
        ),
        ResultIssue::at(
            "/value/quantity",
            IssueKind::Rule,
            "Must be at least 1; got 0.",
        ),
        ResultIssue::at(
            "/value/deliverBy",
            IssueKind::Shape,
            "Must be a date in the form yyyy-MM-dd;\ngot \"15 Nov\".",
        ),
        ResultIssue::new(IssueKind::Check, "Quantity must be at most 1000."),
    ];
    let request = plan.request(Some(&previous));
    let shown = request
        .user
        .split("## Previous attempt\n")
        .nth(1)
        .unwrap()
        .split('\n')
        .next()
        .unwrap();
    assert_eq!(shown.chars().count(), 6000);
    assert!(shown.chars().all(|c| c == 'é'));
    golden("retry_issue_paths", &render(&request));
}

#[test]
fn an_attempt_without_issues_adds_no_retry_sections() {
    let info = TypeInfo::of::<u32>();
    let input = intent_core::__internals::input::serialize("x", 10).unwrap();
    let plan = prompt::plan(&info, &AiRequestOptions::default(), "Count.", &input).unwrap();
    let mut previous = AttemptRecord::new(1);
    previous.raw_output = "{\"value\": 1}".into();
    assert_eq!(plan.request(Some(&previous)), plan.request(None));
}

#[tokio::test]
async fn purchase_request_with_every_option() {
    let options = AiRequestOptions {
        expected_output_description: Some(
            "Contact is the sender's first name, then the company in brackets.".into(),
        ),
        system_instructions: Some(
            "You read purchase emails for the Northwind account team.".into(),
        ),
        max_output_tokens: Some(512),
        temperature: Some(0.0),
        examples: vec![IntentExample::new(
            "Hello, Sam at Contoso here. Please send 12 units of B-220 by 2026-12-01.",
            r#"{"value": {"contact": "Sam (Contoso)", "sku": "B-220", "quantity": 12, "deliverBy": "2026-12-01"}}"#,
        )],
        ..AiRequestOptions::default()
    };
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana (Northwind)", "sku": "A-1192", "quantity": 40, "deliverBy": "2026-11-15"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let order = PurchaseRequest::ai(
        &client,
        EMAIL,
        "Extract the purchase request from this email.",
    )
    .options(options)
    .require(|o| o.quantity <= 1000, "Quantity must be at most 1000.")
    .await;
    assert!(order.is_success(), "{:?}", order.issues());
    assert_eq!(
        order.value(),
        Some(&PurchaseRequest {
            contact: "Dana (Northwind)".into(),
            sku: "A-1192".into(),
            quantity: 40,
            deliver_by: NaiveDate::from_ymd_opt(2026, 11, 15),
        })
    );

    let request = only_request(&model);
    let section = |name: &str| -> String {
        let start = request
            .user
            .find(&format!("## {name}"))
            .unwrap_or_else(|| panic!("no {name}"));
        let rest = &request.user[start..];
        let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
        rest[..end].trim_end().to_owned()
    };
    // The system instructions: in the system message, after the preamble and a blank line.
    assert_eq!(
        *request.system,
        format!(
            "{}\n\nYou read purchase emails for the Northwind account team.",
            intent_core::prompt::SYSTEM_PREAMBLE
        )
    );
    assert!(!request.user.contains("Northwind account team"));
    // The description: the last line of the output requirements.
    let requirements = section("Output requirements");
    assert!(requirements.ends_with(
        "\nAdditional output requirements: Contact is the sender's first name, then the company in brackets."
    ));
    assert!(requirements.contains("PurchaseRequest"));
    // The example: its input and its output, in the examples, after the requirements.
    let examples = section("Examples");
    assert_eq!(
        examples,
        "## Examples\nExample 1 input:\nHello, Sam at Contoso here. Please send 12 units of B-220 by 2026-12-01.\n\
         Example 1 output:\n{\"value\": {\"contact\": \"Sam (Contoso)\", \"sku\": \"B-220\", \"quantity\": 12, \"deliverBy\": \"2026-12-01\"}}\n\
         Apply the same judgement and format to the input above."
    );
    assert!(request.user.find("## Output requirements") < request.user.find("## Examples"));
    // The strict schema, the token limit and the temperature: fields of the request.
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    assert_eq!(
        request.schema.as_deref(),
        PurchaseRequest::strict_envelope_schema().as_ref()
    );
    assert_eq!(request.schema_name, "intent_output");
    assert_eq!(request.max_output_tokens, Some(512));
    assert_eq!(request.temperature, Some(0.0));
    assert_eq!(request.model, None);
    // The example's output and the answer both fit the schema sent.
    let validator = jsonschema::validator_for(request.schema.as_ref().unwrap()).unwrap();
    for answer in [
        r#"{"value": {"contact": "Sam (Contoso)", "sku": "B-220", "quantity": 12, "deliverBy": "2026-12-01"}}"#,
        r#"{"value": {"contact": "Dana (Northwind)", "sku": "A-1192", "quantity": 40, "deliverBy": null}}"#,
    ] {
        assert!(
            validator.is_valid(&serde_json::from_str::<Value>(answer).unwrap()),
            "{answer}"
        );
    }
    assert!(
        !validator.is_valid(&json!({"value": {"contact": "Sam", "sku": "B-220", "quantity": 12}}))
    );
    golden("purchase_request_every_option", &render(&request));
}

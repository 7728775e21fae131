//! Running a sample catalog (YAML and JSON files, Rust-type and JSON Schema shapes) on a scripted model.

use std::path::PathBuf;

use intent_core::__internals::shape::{Field, Node, NodeId, ShapeGraph, StructKind, StructShape};
use intent_core::catalog::{Catalog, IntentShape};
use intent_core::prelude::*;
use intent_core::ResponseFormat;
use intent_core::{IntentError, IssueKind};
use serde::Deserialize;
use serde_json::json;

fn sample_dir() -> PathBuf {
    intent_tests::fixture("catalogs/sample")
}

fn sample() -> Catalog {
    Catalog::load(sample_dir()).expect("the sample catalog loads")
}

/// A member: its wire name and how its type registers its shape.
type Member = (&'static str, fn(&mut ShapeGraph) -> NodeId);

/// Registers a struct the way `#[derive(Intent)]` does: named once, members by wire name.
fn struct_shape(
    graph: &mut ShapeGraph,
    key: &'static str,
    name: &'static str,
    members: &[Member],
) -> NodeId {
    graph.named(key, |graph, _| {
        let fields = members
            .iter()
            .map(|(member, shape)| Field::new(*member, shape(graph)))
            .collect();
        Node::Struct(StructShape::new(name, StructKind::Named(fields)))
    })
}

#[derive(Debug, Deserialize, PartialEq)]
struct PurchaseRequest {
    contact: String,
    sku: String,
    quantity: u32,
}

impl Intent for PurchaseRequest {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        struct_shape(
            graph,
            std::any::type_name::<Self>(),
            "PurchaseRequest",
            &[
                ("contact", String::shape),
                ("sku", String::shape),
                ("quantity", u32::shape),
            ],
        )
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct OrderLine {
    sku: String,
    quantity: u32,
}

impl Intent for OrderLine {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        struct_shape(
            graph,
            std::any::type_name::<Self>(),
            "OrderLine",
            &[("sku", String::shape), ("quantity", u32::shape)],
        )
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct InvoiceLine {
    description: String,
    amount: f64,
}

impl Intent for InvoiceLine {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        struct_shape(
            graph,
            std::any::type_name::<Self>(),
            "InvoiceLine",
            &[("description", String::shape), ("amount", f64::shape)],
        )
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct Invoice {
    currency: String,
    lines: Vec<InvoiceLine>,
}

impl Intent for Invoice {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        struct_shape(
            graph,
            std::any::type_name::<Self>(),
            "Invoice",
            &[
                ("currency", String::shape),
                ("lines", <Vec<InvoiceLine>>::shape),
            ],
        )
    }
}

#[test]
fn loads_a_folder_of_yaml_and_json_files_with_both_kinds_of_shape() {
    let catalog = sample();
    assert_eq!(
        catalog.names().collect::<Vec<_>>(),
        vec![
            "purchase-request",
            "order-lines",
            "reply-summary",
            "priority",
            "ticket-triage",
            "sentiment-score",
            "invoice"
        ]
    );
    let purchase = catalog.get("purchase-request").unwrap();
    assert_eq!(purchase.shape(), IntentShape::TypeName("PurchaseRequest"));
    assert_eq!(purchase.line(), Some(3));
    assert!(purchase.file().ends_with("orders.yaml"));
    let triage = catalog.get("ticket-triage").unwrap();
    assert!(matches!(triage.shape(), IntentShape::Schema(s) if s["type"] == "object"));
    assert_eq!(triage.line(), Some(4));
    // A structured example output is written as compact JSON.
    assert_eq!(
        catalog.get("order-lines").unwrap().options().examples[0].output,
        r#"{"value":[{"sku":"A-1","quantity":2},{"sku":"C-9","quantity":3}]}"#
    );
    for name in ["purchase-request", "invoice"] {
        assert!(catalog.get(name).is_some());
    }
    catalog
        .check::<PurchaseRequest>("purchase-request")
        .unwrap();
    catalog.check::<Vec<OrderLine>>("order-lines").unwrap();
    catalog.check::<String>("reply-summary").unwrap();
    catalog.check::<f64>("sentiment-score").unwrap();
    catalog.check::<Invoice>("invoice").unwrap();
}

#[tokio::test]
async fn runs_a_typed_intent_with_the_files_options_and_states_its_rules() {
    let catalog = sample();
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let email = "Dana here: 40 of A-1192 please.";
    let order = catalog
        .run::<PurchaseRequest>(&client, "purchase-request", email)
        .await;
    assert_eq!(
        order.into_result().unwrap(),
        PurchaseRequest {
            contact: "Dana".into(),
            sku: "A-1192".into(),
            quantity: 40
        }
    );
    let request = &model.requests()[0];
    assert_eq!(request.max_output_tokens, Some(300));
    assert_eq!(request.model.as_deref(), Some("order-model-1"));
    assert!(request
        .system
        .ends_with("\n\nYou work for the order desk of a hardware wholesaler."));
    assert!(request.user.starts_with(
        "## Intent\nExtract the purchase request from this email.\n\n## Input (string)\nDana here: 40 of A-1192 please.\n\n## Output requirements\n"
    ));
    assert!(request.user.contains(
        "Rules for members of <result>:\n- `quantity`: must not be below 1; must not be above 1000\n- `sku`: matching the regular expression ^[A-Z]-\\d+$\n- `contact`: at least 2 characters; at most 80 characters\nAdditional output requirements: The contact is the person who signs the email."
    ));
    assert!(request.user.contains(
        "Example 1 input:\nHi, Sam from Bolt Ltd. Please send 12 of B-220.\nExample 1 output:\n{\"value\": {\"contact\": \"Sam\", \"sku\": \"B-220\", \"quantity\": 12}}"
    ));
}

#[tokio::test]
async fn a_broken_file_rule_goes_back_to_the_model_and_the_retry_corrects_it() {
    let catalog = sample();
    let model = ScriptedProvider::new([
        r#"{"value": {"contact": "Dana", "sku": "a1192", "quantity": 5000}}"#,
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 500}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let order = catalog
        .run::<PurchaseRequest>(&client, "purchase-request", "Dana: 500 of A-1192")
        .await;
    assert_eq!(order.value().unwrap().quantity, 500);
    let first = &order.attempts()[0];
    let shown: Vec<String> = first.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        vec![
            "/value/quantity: Must be at most 1000; got 5000.",
            "/value/sku: Must match the regular expression ^[A-Z]-\\d+$; got \"a1192\"."
        ]
    );
    assert!(first.issues.iter().all(|i| i.kind == IssueKind::Rule));
    assert!(order.attempts()[1].issues.is_empty());
    let retry = &model.requests()[1].user;
    assert!(retry.contains(
        "## Problems with the previous attempt\n- /value/quantity: Must be at most 1000; got 5000.\n- /value/sku: Must match the regular expression ^[A-Z]-\\d+$; got \"a1192\"."
    ));
}

#[tokio::test]
async fn file_rules_are_checked_on_a_loosely_written_reply_the_reader_accepts() {
    let catalog = sample();
    let model = ScriptedProvider::new([
        // Comments, a trailing comma, a member name in another case and a number as a string.
        "Here it is:\n```json\n{\"value\": {\"Contact\": \"Dana\", /* code */ \"sku\": \"A-1192\", \"quantity\": \"5000\",}}\n```",
        r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 500}}"#,
    ]);
    let client = IntentClient::new(model);
    let order = catalog
        .run::<PurchaseRequest>(&client, "purchase-request", "Dana: 500 of A-1192")
        .await;
    assert_eq!(order.value().unwrap().quantity, 500);
    let shown: Vec<String> = order.attempts()[0]
        .issues
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        shown,
        vec!["/value/quantity: Must be at most 1000; got 5000."]
    );
}

#[tokio::test]
async fn the_callers_require_runs_with_the_files_rules() {
    let catalog = sample();
    let model = ScriptedProvider::new([
        r#"{"value": [{"sku": "A-1", "quantity": 0}]}"#,
        r#"{"value": [{"sku": "A-1", "quantity": 3}]}"#,
        r#"{"value": [{"sku": "A-1", "quantity": 2}, {"sku": "B-2", "quantity": 1}]}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let lines = catalog
        .run::<Vec<OrderLine>>(&client, "order-lines", "2 of A-1 and 1 of B-2")
        .require(|lines| lines.len() == 2, "List both lines of the message.")
        .await;
    assert_eq!(lines.value().unwrap().len(), 2);
    let issues: Vec<String> = lines
        .attempts()
        .iter()
        .map(|a| {
            a.issues
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
    assert_eq!(
        issues,
        vec![
            "List both lines of the message. | /value/0/quantity: Must be at least 1; got 0.",
            "List both lines of the message.",
            ""
        ]
    );
    assert!(model.requests()[0].user.contains(
        "- the result: at least 1 element; at most 20 elements\n- `sku` of each element: matching the regular expression ^[A-Z]-\\d+$\n- `quantity` of each element: must not be below 1"
    ));
}

#[tokio::test]
async fn a_text_intent_checks_its_length_rule_on_the_plain_reply() {
    let catalog = sample();
    let long = "The customer writes that order 5521 arrived broken and would like a replacement sent as soon as possible, preferably by express delivery.";
    let model = ScriptedProvider::new([long, "Order 5521 arrived broken; replacement asked."]);
    let client = IntentClient::new(model.clone());
    let summary = catalog
        .run::<String>(&client, "reply-summary", "my order 5521 arrived broken")
        .await;
    assert_eq!(
        summary.value().map(String::as_str),
        Some("Order 5521 arrived broken; replacement asked.")
    );
    assert_eq!(
        summary.attempts()[0].issues[0].to_string(),
        format!(
            "/value: Must be at most 120 characters; got {}.",
            long.chars().count()
        )
    );
    assert!(model.requests()[0]
        .user
        .contains("Plain text only: no JSON, no markdown, no preamble.\nRules for the text:\n- the result: at most 120 characters"));
}

#[tokio::test]
async fn a_schema_intent_is_sent_strict_and_checked_against_the_full_schema() {
    let catalog = sample();
    let model = ScriptedProvider::new([
        r#"{"value": {"category": "billing", "urgency": 9, "tags": ["refund", "refund", "Double Charge"]}}"#,
        r#"{"value": {"category": "billing", "urgency": 4, "tags": ["refund", "double-charge"]}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let triage = catalog
        .run_json(&client, "ticket-triage", "Charged twice, please refund!")
        .await;
    assert_eq!(
        triage.value().unwrap(),
        &json!({"category": "billing", "urgency": 4, "tags": ["refund", "double-charge"]})
    );
    let first: Vec<(Option<&str>, IssueKind)> = triage.attempts()[0]
        .issues
        .iter()
        .map(|i| (i.path.as_deref(), i.kind))
        .collect();
    assert_eq!(
        first,
        vec![
            (Some("/value/urgency"), IssueKind::Rule),
            (Some("/value/tags"), IssueKind::Rule),
            (Some("/value/tags/2"), IssueKind::Rule),
        ]
    );
    let request = &model.requests()[0];
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    let schema = request.schema.as_ref().unwrap();
    // The strict copy drops the constraints; the prompt states them.
    assert_eq!(
        schema["properties"]["value"]["properties"]["urgency"],
        json!({"type": "integer"})
    );
    assert_eq!(schema["properties"]["value"]["additionalProperties"], false);
    assert!(request.user.contains(
        "- `urgency`: at least 1; at most 5\n- `tags`: at most 3 elements; no two elements equal\n- each element of `tags`: at most 20 characters; matching the regular expression ^[a-z-]+$"
    ));
    assert_eq!(request.max_output_tokens, Some(200));
}

#[tokio::test]
async fn a_bare_schema_intent_uses_its_named_provider() {
    let catalog = sample();
    let other = ScriptedProvider::new(Vec::<&str>::new()).with_name("primary");
    let scripted = ScriptedProvider::new([r#"{"value": "urgent"}"#, r#"{"value": "high"}"#]);
    let client = IntentClient::builder()
        .provider(other.clone())
        .fallback(scripted.clone())
        .build()
        .unwrap();
    let priority = catalog
        .run_json(&client, "priority", "The line is down!")
        .await;
    assert_eq!(priority.value(), Some(&json!("high")));
    assert_eq!(other.requests().len(), 0);
    assert_eq!(scripted.requests().len(), 2);
    let issue = &priority.attempts()[0].issues[0];
    assert_eq!(issue.path.as_deref(), Some("/value"));
    assert_eq!(issue.kind, IssueKind::Rule);
}

#[tokio::test]
async fn a_number_and_a_nested_type_check_their_rules() {
    let catalog = sample();
    let model = ScriptedProvider::new([r#"{"value": 1.5}"#, r#"{"value": 0.8}"#]);
    let client = IntentClient::new(model);
    let score = catalog
        .run::<f64>(&client, "sentiment-score", "Love it")
        .await;
    assert_eq!(score.value(), Some(&0.8));
    assert_eq!(
        score.attempts()[0].issues[0].to_string(),
        "/value: Must be at most 1; got 1.5."
    );

    let model = ScriptedProvider::new([
        r#"{"value": {"currency": "JPY", "lines": [{"description": "Bolts", "amount": 12.5}, {"description": "", "amount": -3}]}}"#,
        r#"{"value": {"currency": "EUR", "lines": [{"description": "Bolts", "amount": 12.5}]}}"#,
    ]);
    let client = IntentClient::new(model);
    let invoice = catalog
        .run::<Invoice>(&client, "invoice", "Bolts 12.50 EUR")
        .await;
    assert_eq!(invoice.value().unwrap().currency, "EUR");
    let shown: Vec<String> = invoice.attempts()[0]
        .issues
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        shown,
        vec![
            r#"/value/currency: Must be one of "EUR", "USD", "GBP"; got "JPY"."#,
            "/value/lines/1/amount: Must be greater than 0; got -3.",
            "/value/lines/1/description: Must be at least 1 character; got 0."
        ]
    );
}

#[tokio::test]
async fn refuses_a_type_whose_name_is_not_the_files_shape_and_sends_nothing() {
    let catalog = sample();
    let model = ScriptedProvider::new([r#"{"value": {"sku": "A-1", "quantity": 1}}"#]);
    let client = IntentClient::new(model.clone());
    let wrong = catalog
        .run::<OrderLine>(&client, "purchase-request", "1 of A-1")
        .await;
    assert!(!wrong.is_success());
    assert_eq!(model.requests().len(), 0);
    let issue = &wrong.issues()[0];
    assert_eq!(issue.kind, IssueKind::Request);
    assert!(issue.message.ends_with(&format!(
        "orders.yaml:3: intent `purchase-request`: the file names the shape `PurchaseRequest`, but it was run with `OrderLine` ({}); run it with the type the file names, or change the file's `shape`",
        std::any::type_name::<OrderLine>()
    )));
    match catalog.check::<OrderLine>("purchase-request") {
        Err(error) if error.catalog_error().is_some() => {
            let error = error.catalog_error().expect("a catalog error");
            assert_eq!(error.intent.as_deref(), Some("purchase-request"));
            assert_eq!(error.line, Some(3));
        }
        other => panic!("expected a catalog error, got {other:?}"),
    }

    let json = catalog.run_json(&client, "purchase-request", "x").await;
    assert!(json.issues()[0].message.ends_with(
        "intent `purchase-request`: its shape is the Rust type `PurchaseRequest`: run it with `run::<T>`, not `run_json`"
    ));
    let typed = catalog.run::<String>(&client, "ticket-triage", "x").await;
    assert!(typed.issues()[0].message.ends_with(
        "intent `ticket-triage`: its shape is a JSON Schema, so it answers with JSON: run it with `run_json`, not `run::<T>`"
    ));
    let unknown = catalog.run::<String>(&client, "no-such", "x").await;
    assert!(unknown.issues()[0].message.ends_with(
        "sample: no intent is named `no-such`; the catalog has: purchase-request, order-lines, reply-summary, priority, ticket-triage, sentiment-score, invoice"
    ));
    assert_eq!(model.requests().len(), 0);
}

#[derive(Debug, Deserialize)]
struct Slim {
    #[allow(dead_code)]
    sku: String,
}

impl Intent for Slim {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        struct_shape(
            graph,
            std::any::type_name::<Self>(),
            "PurchaseRequest",
            &[("sku", String::shape)],
        )
    }
}

#[derive(Debug, Deserialize)]
struct Counted {
    #[allow(dead_code)]
    sku: u32,
}

impl Intent for Counted {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        struct_shape(
            graph,
            std::any::type_name::<Self>(),
            "PurchaseRequest",
            &[
                ("sku", u32::shape),
                ("quantity", u32::shape),
                ("contact", String::shape),
            ],
        )
    }
}

#[test]
fn the_first_run_with_a_type_checks_rule_members_kinds_and_examples() {
    let catalog = sample();
    let message = |result: Result<(), IntentError>| match result {
        Err(error) if error.catalog_error().is_some() => {
            let error = error.catalog_error().expect("a catalog error");
            (error.line, error.message.clone())
        }
        other => panic!("expected a catalog error, got {other:?}"),
    };
    // `Slim` has the file's type name but lacks the members the rules name.
    assert_eq!(
        message(catalog.check::<Slim>("purchase-request")),
        (
            Some(3),
            "rule `quantity`: `PurchaseRequest` has no member `quantity`; its members are: sku"
                .to_owned()
        )
    );
    // `Counted` has them, but `sku` is a number, so its `pattern` rule cannot apply.
    assert_eq!(
        message(catalog.check::<Counted>("purchase-request")),
        (
            Some(3),
            "rule `sku`: text rules (`minLength`, `maxLength`, `pattern`) apply only to text: \
             strings, characters, dates and times, UUIDs, URLs and enums of unit variants; `sku` \
             is a `uint`"
                .to_owned()
        )
    );
    // The verdict is kept: asking again gives the same answer without walking the type again.
    assert!(catalog.check::<Counted>("purchase-request").is_err());
}

#[test]
fn reload_reads_the_files_again_and_keeps_the_old_catalog_on_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("intents.yaml");
    std::fs::write(
        &file,
        "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n",
    )
    .unwrap();
    let mut catalog = Catalog::load(dir.path()).unwrap();
    assert_eq!(catalog.get("count").unwrap().intent(), "Count the letters.");

    std::fs::write(
        &file,
        "intents:\n  - name: count\n    intent: Count the vowels.\n    shape: uint\n",
    )
    .unwrap();
    catalog.reload().unwrap();
    assert_eq!(catalog.get("count").unwrap().intent(), "Count the vowels.");

    std::fs::write(&file, "intents:\n  - name: count\n    shape: uint\n").unwrap();
    let error = catalog.reload().unwrap_err().to_string();
    assert!(
        error.ends_with("intents.yaml:2: intent `count`: missing field `intent`"),
        "{error}"
    );
    assert_eq!(catalog.get("count").unwrap().intent(), "Count the vowels.");
}

#[test]
fn an_example_that_does_not_read_as_the_type_is_refused_on_the_first_check() {
    let catalog = Catalog::parse(
        "lines.yaml",
        "intents:\n  - name: line\n    intent: Extract the order line.\n    shape: OrderLine\n    examples:\n      - input: minus three of A-1\n        output: '{\"value\": {\"sku\": \"A-1\", \"quantity\": -3}}'\n",
    )
    .unwrap();
    let error = catalog.check::<OrderLine>("line").unwrap_err();
    assert_eq!(
        error.to_string(),
        "lines.yaml:2: intent `line`: example 1: the output does not read as `OrderLine` at `quantity`: invalid value: integer `-3`, expected u32"
    );
}

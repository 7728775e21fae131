//! Runtime schemas verified in full: `client.transform`, `map_each` and `map_values` with an
//! `output_schema`, and intent files whose shape is a schema, all through one verifier.

use intent_core::catalog::Catalog;
use intent_core::prelude::*;
use intent_core::IssueKind;
use intent_tests::strict_schema::assert_openai_strict;
use serde_json::{json, Value};

fn contact_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "sku": {"type": "string", "pattern": "^[A-Z]-\\d+$"},
            "quantity": {"type": "integer", "minimum": 1, "maximum": 1000}
        },
        "required": ["email", "sku", "quantity"]
    })
}

#[tokio::test]
async fn transform_refuses_what_the_strict_copy_drops_and_retries_with_the_findings() {
    let model = ScriptedProvider::new([
        r#"{"value": {"email": "dana at example", "sku": "a1", "quantity": 5000}}"#,
        r#"{"value": {"email": "dana@example.com", "sku": "A-1", "quantity": 40}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let result = client
        .transform("Dana, 40 of A-1", "Extract the order.", contact_schema())
        .await;
    assert_eq!(
        result.value(),
        Some(&json!({"email": "dana@example.com", "sku": "A-1", "quantity": 40}))
    );
    let first = &result.attempts()[0].issues;
    let places: Vec<_> = first
        .iter()
        .map(|i| (i.path.as_deref().unwrap_or(""), i.kind))
        .collect();
    assert_eq!(
        places,
        [
            ("/value/email", IssueKind::Rule),
            ("/value/sku", IssueKind::Rule),
            ("/value/quantity", IssueKind::Rule),
        ],
        "{first:?}"
    );
    let requests = model.requests();
    // Stated up front, since the strict copy sent drops them.
    for line in [
        "- `email`: an email address",
        "- `sku`: matching the regular expression ^[A-Z]-\\d+$",
        "- `quantity`: at least 1; at most 1000",
    ] {
        assert!(
            requests[0].user.contains(line),
            "{line} in {}",
            requests[0].user
        );
    }
    assert!(requests[1].user.contains("/value/quantity: "));
    assert_openai_strict(requests[0].schema.as_deref().unwrap());
}

#[tokio::test]
async fn null_answers_only_where_the_schema_allows_it() {
    let client = IntentClient::new(ScriptedProvider::new([r#"{"value": null}"#]));
    let maybe = client
        .transform("none", "Extract.", json!({"type": ["object", "null"]}))
        .await;
    assert_eq!(
        maybe.value(),
        Some(&Value::Null),
        "{:?}",
        maybe.attempts()[0].issues
    );
    let client = IntentClient::new(ScriptedProvider::new([r#"{"value": null}"#]));
    let object = client
        .transform("none", "Extract.", json!({"type": "object"}))
        .max_attempts(1)
        .await;
    assert!(!object.is_success());
    assert_eq!(object.issues()[0].path.as_deref(), Some("/value"));
}

#[tokio::test]
async fn a_schema_that_cannot_be_checked_fails_before_anything_is_sent() {
    for (schema, says) in [
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(unclosed"}}}),
            "/properties/a/pattern",
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "integr"}}}),
            "/properties/a/type",
        ),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
            "is not fetched",
        ),
    ] {
        let model = ScriptedProvider::new([r#"{"value": {}}"#]);
        let client = IntentClient::new(model.clone());
        let result = client.transform("x", "Extract.", schema).await;
        assert_eq!(result.issues()[0].kind, IssueKind::Request);
        let message = &result.issues()[0].message;
        assert!(message.contains(says), "{message}");
        assert!(message.contains("nothing was sent"), "{message}");
        assert!(model.requests().is_empty());
    }
}

#[tokio::test]
async fn formats_are_asserted_and_unknown_ones_stated_only() {
    let schema = json!({
        "type": "object",
        "properties": {
            "when": {"type": "string", "format": "date-time"},
            "id": {"type": "string", "format": "uuid"},
            "code": {"type": "string", "format": "sku-code"}
        },
        "required": ["when", "id", "code"]
    });
    let model = ScriptedProvider::new([
        r#"{"value": {"when": "yesterday", "id": "42", "code": "anything"}}"#,
        r#"{"value": {"when": "2026-11-15T09:30:00Z", "id": "512e7f30-0c1a-4d2b-9f00-5a5a5a5a5a5a", "code": "anything"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let result = client.transform("x", "Extract.", schema).await;
    assert!(result.is_success(), "{:?}", result.issues());
    let paths: Vec<_> = result.attempts()[0]
        .issues
        .iter()
        .filter_map(|i| i.path.as_deref())
        .collect();
    assert_eq!(paths, ["/value/when", "/value/id"]);
    assert!(model.requests()[0]
        .user
        .contains("- `code`: in the format `sku-code`"));
}

#[tokio::test]
async fn an_intent_file_asserts_its_schema_formats() {
    let catalog = Catalog::parse(
        "contacts.yaml",
        r#"
intents:
  - name: contact
    intent: Extract the contact.
    shape:
      type: object
      properties:
        email: { type: string, format: email }
        site: { type: string, format: uri }
      required: [email, site]
"#,
    )
    .unwrap();
    let model = ScriptedProvider::new([
        r#"{"value": {"email": "dana", "site": "not a uri"}}"#,
        r#"{"value": {"email": "dana@example.com", "site": "https://example.com/"}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let contact = catalog.run_json(&client, "contact", "Dana").await;
    assert!(contact.is_success(), "{:?}", contact.issues());
    assert_eq!(contact.attempts()[0].issues.len(), 2);
    assert!(model.requests()[0]
        .user
        .contains("- `email`: an email address"));
}

#[tokio::test]
async fn map_each_verifies_every_element_against_the_runtime_schema() {
    let schema = json!({
        "type": "object",
        "properties": {"sku": {"type": "string", "pattern": "^[A-Z]-\\d+$"}, "next": {"$ref": "#"}},
        "required": ["sku"]
    });
    let model = ScriptedProvider::new([
        r#"{"value": [{"index": 0, "value": {"sku": "A-1"}}, {"index": 1, "value": {"sku": "b2"}}]}"#,
        r#"{"value": [{"index": 0, "value": {"sku": "A-1"}}, {"index": 1, "value": {"sku": "B-2"}}]}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let skus = client
        .map_each::<Value>(&["one A-1", "two B-2"], "Extract the SKU.")
        .options(AiRequestOptions {
            output_schema: Some(schema),
            ..AiRequestOptions::default()
        })
        .await;
    assert_eq!(
        skus.values(),
        &[Some(json!({"sku": "A-1"})), Some(json!({"sku": "B-2"}))]
    );
    let first = &skus.chunks()[0].attempts[0].issues;
    assert_eq!(
        first[0].path.as_deref(),
        Some("/value/1/value/sku"),
        "{first:?}"
    );
    let request = &model.requests()[0];
    let sent = request.schema.as_deref().unwrap();
    assert_openai_strict(sent);
    assert_eq!(
        sent["properties"]["value"]["items"]["properties"]["value"]["$ref"],
        "#/$defs/intent_element"
    );
    // The element's own root reference reaches it where it was placed.
    assert_eq!(
        sent["$defs"]["intent_element"]["properties"]["next"]["$ref"],
        "#/$defs/intent_element"
    );
    assert!(request
        .user
        .contains("- `value.sku` of each element: matching the regular expression"));
}

#[tokio::test]
async fn map_values_verifies_every_member_against_the_runtime_schema() {
    let schema = json!({"type": "integer", "minimum": 1, "maximum": 5});
    let model = ScriptedProvider::new([
        r#"{"value": {"T-1": 4, "T-2": 9}}"#,
        r#"{"value": {"T-1": 4, "T-2": 2}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let tickets = indexmap::IndexMap::from([("T-1", "Slow."), ("T-2", "Broken.")]);
    let scores = client
        .map_values::<Value, _, _>(&tickets, "Score the urgency from 1 to 5.")
        .options(AiRequestOptions {
            output_schema: Some(schema),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(scores.is_complete(), "{:?}", scores.issues());
    assert_eq!(scores.values(), &[Some(json!(4)), Some(json!(2))]);
    let first = &scores.chunks()[0].attempts[0].issues;
    assert_eq!(first[0].path.as_deref(), Some("/value/T-2"), "{first:?}");
    let sent = model.requests()[0].schema.clone().unwrap();
    assert_eq!(
        sent["properties"]["value"]["required"],
        json!(["T-1", "T-2"])
    );
    assert!(model.requests()[0]
        .user
        .contains("- each value: at least 1; at most 5"));
}

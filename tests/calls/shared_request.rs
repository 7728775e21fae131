//! What a call's requests share instead of copying: the strict schema (one serialized copy per
//! type), the system prompt, and the first attempt's user message; a retry writes its own.

use std::sync::Arc;

use intent_core::prelude::*;
use intent_core::provider::SharedSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent)]
struct Line {
    sku: String,
    quantity: u32,
}

fn schema_of(request: &intent_core::AiRequest) -> &SharedSchema {
    request.schema.as_ref().expect("a strict schema is sent")
}

#[tokio::test]
async fn every_attempt_and_every_call_for_a_type_shares_one_schema() {
    let model = ScriptedProvider::new([
        r#"{"value": {"sku": "A-1"}}"#,
        r#"{"value": {"sku": "A-1", "quantity": 4}}"#,
        r#"{"value": {"sku": "B-2", "quantity": 1}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let first = Line::ai(&client, "4 of A-1", "Read the order line.").await;
    assert!(first.is_success(), "{:?}", first.issues());
    assert_eq!(first.attempts().len(), 2);
    let second = Line::ai(&client, "1 of B-2", "Read the order line.")
        .await
        .into_result()
        .unwrap();
    assert_eq!((second.sku.as_str(), second.quantity), ("B-2", 1));

    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let schema = schema_of(&requests[0]);
    for request in &requests[1..] {
        // The same value in memory, not an equal copy.
        assert!(std::ptr::eq(schema_of(request).value(), schema.value()));
    }
    assert_eq!(
        Some(schema.value()),
        Line::strict_envelope_schema().as_ref()
    );
    // Serialized once, and as the value's own compact text.
    assert_eq!(schema.json(), schema.value().to_string());
    assert_eq!(
        serde_json::to_value(&requests[2].schema).unwrap(),
        serde_json::to_value(Line::strict_envelope_schema()).unwrap()
    );
}

#[tokio::test]
async fn a_retry_shares_the_system_prompt_and_writes_its_own_user_message() {
    let model = ScriptedProvider::new([
        r#"{"value": {"sku": "A-1"}}"#,
        r#"{"value": {"sku": "A-1", "quantity": 4}}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let line = Line::ai(&client, "4 of A-1", "Read the order line.").await;
    assert!(line.is_success(), "{:?}", line.issues());
    let requests = model.requests();
    let (first, retry) = (&requests[0], &requests[1]);
    assert!(Arc::ptr_eq(&first.system, &retry.system));
    assert!(!Arc::ptr_eq(&first.user, &retry.user));
    assert!(retry.user.starts_with(first.user.as_str()));
    assert!(retry.user[first.user.len()..].starts_with("\n\n## Previous attempt\n"));
    // A copy of a request shares its parts with the original.
    let copy = first.clone();
    assert!(Arc::ptr_eq(&copy.user, &first.user));
}

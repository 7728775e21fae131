//! Options: the client's defaults, an intent file's options and the call's own, field by field
//! (call, then file, then client); `.options(..)` merging rather than replacing; a setter per
//! option on `AiCall` and `CollectionCall`.

use std::time::Duration;

use intent_core::catalog::Catalog;
use intent_core::prelude::*;
use intent_core::IssueKind;

fn client_with_defaults(model: &ScriptedProvider, defaults: AiRequestOptions) -> IntentClient {
    IntentClient::builder()
        .provider(model.clone())
        .default_options(defaults)
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_call_wins_over_the_intent_file_which_wins_over_the_client_field_by_field() {
    let catalog = Catalog::parse(
        "c.yaml",
        "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n    temperature: 0.4\n    maxOutputTokens: 60\n    systemInstructions: From the file.\n",
    )
    .unwrap();
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client = client_with_defaults(
        &model,
        AiRequestOptions {
            temperature: Some(1.0),
            max_output_tokens: Some(500),
            model: Some("client-model".into()),
            seed: Some(9),
            system_instructions: Some("From the client.".into()),
            ..Default::default()
        },
    );
    let count = catalog
        .run::<u32>(&client, "count", "a, b, c")
        .max_output_tokens(20)
        .await;
    assert_eq!(count.value(), Some(&3), "{:?}", count.issues());
    let sent = &model.requests()[0];
    // The call's own setter.
    assert_eq!(sent.max_output_tokens, Some(20));
    // The file's, over the client's.
    assert_eq!(sent.temperature, Some(0.4));
    assert!(
        sent.system.ends_with("\n\nFrom the file."),
        "{}",
        sent.system
    );
    // The client's, where neither the call nor the file sets one.
    assert_eq!(sent.model.as_deref(), Some("client-model"));
    assert_eq!(sent.seed, Some(9));
}

#[tokio::test]
async fn options_merge_over_setters_and_keep_what_they_leave_unset() {
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client = IntentClient::new(model.clone());
    let _ = u32::ai(&client, "a, b, c", "Count the letters.")
        .temperature(0.0)
        .model("small")
        .options(AiRequestOptions {
            model: Some("large".into()),
            max_output_tokens: Some(30),
            ..Default::default()
        })
        .top_p(0.9)
        .await;
    let sent = &model.requests()[0];
    assert_eq!(sent.temperature, Some(0.0));
    assert_eq!(sent.model.as_deref(), Some("large"));
    assert_eq!(sent.max_output_tokens, Some(30));
    assert_eq!(sent.top_p, Some(0.9));
}

#[tokio::test]
async fn options_no_longer_wipe_an_intent_files_options() {
    let catalog = Catalog::parse(
        "c.yaml",
        "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n    maxOutputTokens: 60\n    examples:\n      - input: x, y\n        output: '{\"value\": 2}'\n",
    )
    .unwrap();
    let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    let client = IntentClient::new(model.clone());
    let _ = catalog
        .run::<u32>(&client, "count", "a, b, c")
        .options(AiRequestOptions {
            temperature: Some(0.0),
            ..Default::default()
        })
        .await;
    let sent = &model.requests()[0];
    assert_eq!(sent.temperature, Some(0.0));
    assert_eq!(sent.max_output_tokens, Some(60));
    assert!(
        sent.user.contains("Example 1 input:\nx, y"),
        "{}",
        sent.user
    );
}

#[test]
fn an_intent_file_temperature_out_of_range_is_refused_with_its_line() {
    let error = Catalog::parse(
        "c.yaml",
        "intents:\n  - name: count\n    intent: Count.\n    shape: uint\n    temperature: 3\n",
    )
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.contains("`temperature` must be between 0 and 2; the file sets 3"),
        "{text}"
    );
    assert!(text.contains(":5"), "the line of `temperature`: {text}");
}

#[tokio::test]
async fn every_setter_reaches_the_request_or_the_limits() {
    let model = ScriptedProvider::new(["not a number", r#"{"value": 2}"#]).with_name("main");
    let client = IntentClient::builder()
        .provider(model.clone())
        .fallback(ScriptedProvider::new([r#"{"value": 9}"#]).with_name("other"))
        .build()
        .unwrap();
    let result = u32::ai(&client, "two", "Read the number.")
        .temperature(0.2)
        .max_output_tokens(40)
        .model("m-1")
        .provider("main")
        .system_instructions("Be exact.")
        .expected_output_description("A whole number.")
        .example(IntentExample::new("five", r#"{"value": 5}"#))
        .max_attempts(1)
        .deadline(Duration::from_secs(30))
        .seed(3)
        .top_p(0.8)
        .stop(["END"])
        .await;
    // max_attempts(1): the unreadable first reply ends the call.
    assert!(!result.is_success());
    assert_eq!(result.attempts().len(), 1);
    assert_eq!(result.issues().last().unwrap().kind, IssueKind::Limit);
    let sent = &model.requests()[0];
    assert_eq!(sent.temperature, Some(0.2));
    assert_eq!(sent.max_output_tokens, Some(40));
    assert_eq!(sent.model.as_deref(), Some("m-1"));
    assert!(sent.system.ends_with("Be exact."));
    assert!(sent
        .user
        .contains("Additional output requirements: A whole number."));
    assert!(sent.user.contains("Example 1 input:\nfive"));
    assert_eq!((sent.seed, sent.top_p), (Some(3), Some(0.8)));
    assert_eq!(sent.stop, ["END"]);
}

#[tokio::test]
async fn a_collection_call_takes_the_client_defaults_and_its_own_setters() {
    let model = ScriptedProvider::new([r#"{"value": [{"index": 0, "value": "rouge"}]}"#]);
    let client = client_with_defaults(
        &model,
        AiRequestOptions {
            temperature: Some(0.7),
            model: Some("client-model".into()),
            ..Default::default()
        },
    );
    let french = client
        .map_each::<String>(&["red"], "Translate into French.")
        .temperature(0.0)
        .max_output_tokens(100)
        .seed(5)
        .await;
    assert_eq!(french.into_result().unwrap(), ["rouge"]);
    let sent = &model.requests()[0];
    assert_eq!(sent.temperature, Some(0.0));
    assert_eq!(sent.max_output_tokens, Some(100));
    assert_eq!(sent.model.as_deref(), Some("client-model"));
    assert_eq!(sent.seed, Some(5));
}

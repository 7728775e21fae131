//! `map_values` on a scripted model: keys kept, and missing, extra or respelled keys named.

use std::collections::{BTreeMap, HashMap};

use indexmap::IndexMap;
use intent_core::__internals::shape::{
    Field, Node, NodeId, Scalar, ShapeGraph, StructKind, StructShape,
};
use intent_core::prelude::*;
use intent_core::IssueKind;
use intent_core::ResponseFormat;
use serde::Deserialize;
use serde_json::json;

fn client(model: &ScriptedProvider, max_attempts: u32) -> IntentClient {
    IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_attempts,
            ..IntentClientOptions::default()
        })
        .build()
        .unwrap()
}

/// A ticket's triage.
#[derive(Debug, Deserialize, PartialEq)]
struct Triage {
    topic: String,
    urgent: bool,
}

// Written out by hand so these tests depend on the collections alone, not on the derive.
impl Intent for Triage {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(std::any::type_name::<Self>(), |graph, _| {
            let topic = graph.scalar(Scalar::String);
            let urgent = graph.scalar(Scalar::Bool);
            Node::Struct(StructShape::new(
                "Triage",
                StructKind::Named(vec![
                    Field::new("topic", topic),
                    Field::new("urgent", urgent),
                ]),
            ))
        })
    }
}

#[tokio::test]
async fn keys_are_kept_for_every_map_type() {
    let answer = r#"{"value": {"b": 2, "a": 1}}"#;
    let model = ScriptedProvider::new([answer, answer, answer]);
    let client = client(&model, 1);

    let hash = HashMap::from([("a".to_owned(), "one"), ("b".to_owned(), "two")]);
    let out: HashMap<String, u8> = client
        .map_values::<u8, _, _>(&hash, "Give the number.")
        .await
        .into_map_result()
        .unwrap();
    assert_eq!(
        out,
        HashMap::from([("a".to_owned(), 1), ("b".to_owned(), 2)])
    );

    let tree = BTreeMap::from([("a", "one"), ("b", "two")]);
    let out = client
        .map_values::<u8, _, _>(&tree, "Give the number.")
        .await;
    assert_eq!(out.keys(), &["a", "b"]);
    assert_eq!(out.values(), &[Some(1), Some(2)]);

    let ordered = IndexMap::from([("b", "two"), ("a", "one")]);
    let out = client
        .map_values::<u8, _, _>(&ordered, "Give the number.")
        .await;
    let out: IndexMap<&str, u8> = out.into_map();
    assert_eq!(
        out.into_iter().collect::<Vec<_>>(),
        vec![("b", 2), ("a", 1)]
    );
}

#[tokio::test]
async fn schema_lists_the_chunks_keys_as_required_and_stays_strict() {
    let model = ScriptedProvider::new([
        r#"{"value": {"T-1": {"topic": "billing", "urgent": false}, "T-2": {"topic": "outage", "urgent": true}}}"#,
    ]);
    let tickets = BTreeMap::from([("T-1", "Charged twice."), ("T-2", "Site down.")]);
    let result = client(&model, 1)
        .map_values::<Triage, _, _>(&tickets, "Triage the ticket.")
        .await;
    assert_eq!(
        result.get(1),
        Some(&Triage {
            topic: "outage".into(),
            urgent: true
        })
    );
    let request = &model.requests()[0];
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    let inner = &request.schema.as_ref().unwrap()["properties"]["value"];
    assert_eq!(inner["required"], json!(["T-1", "T-2"]));
    assert_eq!(inner["additionalProperties"], json!(false));
    assert_eq!(
        inner["properties"]["T-2"]["required"],
        json!(["topic", "urgent"])
    );
    assert!(request
        .user
        .contains(r#"{"T-1":"Charged twice.","T-2":"Site down."}"#));
}

#[tokio::test]
async fn missing_and_extra_keys_are_named_and_corrected_on_retry() {
    let model = ScriptedProvider::new([
        r#"{"value": {"a": 1, "z": 9}}"#,
        r#"{"value": {"a": 1, "b": 2, "c": 3}}"#,
    ]);
    let words = IndexMap::from([("a", "one"), ("b", "two"), ("c", "three")]);
    let result = client(&model, 2)
        .map_values::<u8, _, _>(&words, "Give the number.")
        .await;
    assert_eq!(result.values(), &[Some(1), Some(2), Some(3)]);
    let retry = &model.requests()[1].user;
    assert!(retry.contains(
        "/value/z: Unexpected key \"z\": answer only the input's keys, each exactly once."
    ));
    assert!(retry.contains("/value: Missing keys: \"b\", \"c\". Return one member for every input key, named exactly as in the input."));
}

#[tokio::test]
async fn a_key_changed_in_case_or_spacing_is_named_with_its_spelling() {
    let model = ScriptedProvider::new([
        r#"{"value": {"Red Shoe": "rote Schuhe", "blue hat": "blauer Hut"}}"#,
    ]);
    let names = IndexMap::from([("red shoe", "red shoe"), ("blue hat", "blue hat")]);
    let result = client(&model, 1)
        .map_values::<String, _, _>(&names, "Translate into German.")
        .await;
    assert_eq!(result.missing(), vec![&"red shoe"]);
    assert_eq!(result.get(1).map(String::as_str), Some("blauer Hut"));
    let issue = result.issues_for(0).next().unwrap();
    assert_eq!(issue.path.as_deref(), Some("/red shoe"));
    assert_eq!(issue.message, "The reply spelled this key \"Red Shoe\".");
    let model_issue = &result.chunks()[0].issues[0];
    assert_eq!(
        model_issue.to_string(),
        "/value/Red Shoe: The key \"Red Shoe\" must be spelled exactly \"red shoe\", as in the input."
    );

    let model = ScriptedProvider::new([r#"{"value": {"redshoe": "rote Schuhe"}}"#]);
    let names = IndexMap::from([("red shoe", "red shoe")]);
    let result = client(&model, 1)
        .map_values::<String, _, _>(&names, "Translate into German.")
        .await;
    assert!(result.chunks()[0].issues[0]
        .message
        .contains("must be spelled exactly \"red shoe\""));
}

#[tokio::test]
async fn numeric_keys_are_sent_as_text_and_given_back_typed() {
    let model = ScriptedProvider::new([r#"{"value": {"7": "seven", "12": "twelve"}}"#]);
    let numbers = BTreeMap::from([(7u32, ()), (12u32, ())]);
    let result = client(&model, 1)
        .map_values::<String, _, _>(&numbers, "Spell the key in English.")
        .await;
    let spelled: BTreeMap<u32, String> = result.into_map_result().unwrap();
    assert_eq!(spelled[&12], "twelve");
}

#[tokio::test]
async fn element_failures_carry_the_key_in_their_path() {
    let model = ScriptedProvider::new([
        r#"{"value": {"T/1": {"topic": "billing"}, "T-2": {"topic": "outage", "urgent": true}}}"#,
    ]);
    let tickets = IndexMap::from([("T/1", "Charged twice."), ("T-2", "Site down.")]);
    let result = client(&model, 1)
        .map_values::<Triage, _, _>(&tickets, "Triage the ticket.")
        .await;
    assert_eq!(result.missing(), vec![&"T/1"]);
    let issue = &result.issues()[0];
    assert_eq!((issue.position, issue.key.as_str()), (0, "T/1"));
    assert!(issue.issue.path.as_deref().unwrap().starts_with("/T~11"));
    assert_eq!(issue.issue.kind, IssueKind::Shape);
    assert!(issue.issue.message.contains("urgent"));
}

#[tokio::test]
async fn large_maps_are_split_and_each_chunk_names_only_its_keys() {
    let model = ScriptedProvider::new([
        r#"{"value": {"k0": 0, "k1": 1}}"#,
        r#"{"value": {"k2": 2, "k3": 3}}"#,
        r#"{"value": {"k4": 4}}"#,
    ]);
    let map: IndexMap<String, usize> = (0..5).map(|i| (format!("k{i}"), i)).collect();
    let result = client(&model, 1)
        .map_values::<usize, _, _>(&map, "Repeat the number.")
        .chunk_size(2)
        .concurrency(1)
        .await;
    assert_eq!(result.into_result().unwrap(), vec![0, 1, 2, 3, 4]);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let required = &requests[1].schema.as_ref().unwrap()["properties"]["value"]["required"];
    assert_eq!(required, &json!(["k2", "k3"]));
}

#[tokio::test]
async fn keys_equal_as_text_are_refused_before_any_call() {
    #[derive(serde::Serialize, Clone)]
    #[serde(untagged)]
    enum Key {
        Text(&'static str),
        Number(u32),
    }
    let model = ScriptedProvider::new([r#"{"value": {"1": "one"}}"#]);
    let pairs = [(Key::Number(1), "one"), (Key::Text("1"), "uno")];
    let result = client(&model, 1)
        .map_values::<String, _, _>(pairs.iter().map(|(k, v)| (k, v)), "Spell it.")
        .await;
    assert_eq!(result.get(0).map(String::as_str), Some("one"));
    let issue = result.issues_for(1).next().unwrap();
    assert_eq!(issue.kind, IssueKind::Input);
    assert!(issue.message.contains("Two keys are both written \"1\""));
}

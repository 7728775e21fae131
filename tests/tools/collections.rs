//! `map_each` and `map_values` with tools: each chunk runs its own tool rounds before its
//! elements are read.

use std::collections::BTreeMap;

use intent_core::prelude::*;
use intent_core::provider::ScriptedReply;
use serde_json::json;

use super::weather_tool;

#[tokio::test]
async fn map_each_runs_a_chunk_s_tool_rounds_then_reads_its_elements() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([
            ("weather", json!({"location": "Oslo"})),
            ("weather", json!({"location": "Rome"})),
        ]),
        ScriptedReply::from(
            json!({"value": [{"index": 0, "value": true}, {"index": 1, "value": true}]})
                .to_string(),
        ),
    ]);
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<bool>(&["Oslo", "Rome"], "Say whether it is sunny there.")
        .tool(weather_tool())
        .await;
    assert_eq!(result.into_values(), [Some(true), Some(true)]);
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let round = &requests[1].tools.as_ref().unwrap().rounds[0];
    assert_eq!(round.results.len(), 2);
    assert!(round.results[1].content.contains("Rome"));
}

#[tokio::test]
async fn map_values_offers_the_tools_to_every_chunk() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("weather", json!({"location": "Oslo"}))]),
        ScriptedReply::from(r#"{"value": {"a": true}}"#),
    ]);
    let client = IntentClient::new(model.clone());
    let cities = BTreeMap::from([("a", "Oslo")]);
    let result = client
        .map_values::<bool, _, _>(&cities, "Say whether it is sunny there.")
        .tool(weather_tool())
        .max_tool_calls(1)
        .await;
    let sunny: BTreeMap<&str, bool> = result.into_map();
    assert_eq!(sunny.get("a"), Some(&true));
    assert_eq!(
        model.requests()[0].tools.as_ref().unwrap().definitions[0].name,
        "weather"
    );
}

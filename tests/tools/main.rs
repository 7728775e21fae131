//! Integration tests: tools (one binary, one module per subject): the tool rounds of a call
//! (`rounds`), each vendor's tool wire against a local server answering with recorded real
//! traffic (`wire_*`), and the tool call as the answer's channel (`output_mode`).

mod collections;
mod output_mode;
mod rounds;
mod wire_messages;
mod wire_openai;

use std::path::PathBuf;

use intent_core::prelude::*;
use intent_core::tool::ToolError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The recorded vendor traffic: `INTENT_VENDOR_FIXTURES`, else `../shared/corpora/vendor-fixtures`
/// beside the repository (read there, never copied).
/// A server that answers the first POST with `first` and every later one with `then`.
async fn two_rounds(first: Value, then: Value) -> wiremock::MockServer {
    let first = wiremock::ResponseTemplate::new(200).set_body_json(first);
    intent_tests::wire::failing_then(vec![first], then).await
}

fn corpus() -> PathBuf {
    match std::env::var_os("INTENT_VENDOR_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/vendor-fixtures")
        }
    }
}

fn read(file: &str) -> String {
    let path = corpus().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A recorded whole reply.
fn recorded(file: &str) -> Value {
    serde_json::from_str(&read(file)).unwrap_or_else(|e| panic!("{file} is not JSON: {e}"))
}

/// A recorded Chat Completions stream (one chunk a line), framed as the server sends it.
fn recorded_stream(file: &str) -> String {
    let mut body = String::new();
    for line in read(file).lines().map(str::trim).filter(|l| !l.is_empty()) {
        body.push_str("data: ");
        body.push_str(line);
        body.push_str("\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    body
}

// The recordings' tool: `weather({location})` (a plain comment: a doc comment would be
// the schema's description).
#[derive(Debug, Deserialize, Intent)]
struct Location {
    location: String,
}

#[derive(Serialize)]
struct Weather {
    location: String,
    sky: &'static str,
}

/// `client` asked for the forecast with the weather tool; the call must succeed.
async fn forecast_with_tool(client: &IntentClient) -> AiResult<Forecast> {
    let result = Forecast::ai(client, "San Francisco", "Say whether it is sunny.")
        .tool(weather_tool())
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    result
}

fn weather_tool() -> Tool {
    Tool::new(
        "weather",
        "Today's weather in a city.",
        |at: Location| async move {
            Ok::<_, ToolError>(Weather {
                location: at.location,
                sky: "sunny",
            })
        },
    )
}

/// The typed answer after the tool.
#[derive(Debug, Deserialize, Intent, PartialEq)]
struct Forecast {
    city: String,
    sunny: bool,
}

//! OpenAI's tool wire over HTTP: the first round answered with a recorded real tool-call reply
//! (`vendor-fixtures/openai-chat/deepseek-tool-call.json`, `openai-responses/azure-tool-call.1.json`,
//! read where they lie, never copied), and the exact body of the second round checked: the
//! model's call sent back as recorded, the tool's result after it, the tools offered again.

use intent_core::prelude::*;
use intent_core::provider::OpenAiApi;
use intent_tests::wire::{body_of, openai, sent};
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::{forecast_with_tool, recorded, two_rounds, weather_tool, Forecast};

const FORECAST: &str = r#"{"value": {"city": "San Francisco", "sunny": true}}"#;

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn chat_completions_sends_the_recorded_call_back_with_its_result() {
    let first = recorded("openai-chat/deepseek-tool-call.json");
    let then = json!({
        "model": "deepseek-reasoner",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": FORECAST}}],
        "usage": {"prompt_tokens": 400, "completion_tokens": 12}
    });
    let server = two_rounds(first.clone(), then).await;
    // As OpenAI's own server is sent: the format beside the tools.
    let provider = openai(&server)
        .with_model("deepseek-reasoner")
        .with_tools_beside_format(true);
    let client = IntentClient::new(provider);
    let result = forecast_with_tool(&client).await;
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 2);
    let (one, two) = (body_of(&requests[0]), body_of(&requests[1]));
    let tools = json!([{
        "type": "function",
        "function": {
            "name": "weather",
            "description": "Today's weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
                "additionalProperties": false
            },
            "strict": true
        }
    }]);
    assert_eq!(one["tools"], tools);
    assert_eq!(one["response_format"]["type"], "json_schema");
    assert_eq!(one["messages"].as_array().unwrap().len(), 2);
    let call = &first["choices"][0]["message"]["tool_calls"][0];
    let (id, arguments) = (call["id"].as_str().unwrap(), &call["function"]["arguments"]);
    // The second body is the first with the round added, nothing else changed.
    let mut want = one.clone();
    let messages = want["messages"].as_array_mut().unwrap();
    messages.push(json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{"id": id, "type": "function",
                        "function": {"name": "weather", "arguments": arguments}}]
    }));
    messages.push(json!({
        "role": "tool",
        "tool_call_id": id,
        "content": "{\"location\":\"San Francisco\",\"sky\":\"sunny\"}"
    }));
    assert_eq!(two, want);
    // Usage of both rounds: the recorded 339 + 92, then 400 + 12.
    assert_eq!(result.usage().input_tokens, 739);
    assert_eq!(result.usage().output_tokens, 104);
    let record = &result.attempts()[0].tool_calls[0];
    assert_eq!(record.arguments, json!({"location": "San Francisco"}));
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn responses_sends_the_recorded_call_back_with_its_output() {
    let first = recorded("openai-responses/azure-tool-call.1.json");
    let then = json!({
        "model": "gpt-5.1", "status": "completed",
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": FORECAST}]}],
        "usage": {"input_tokens": 90, "output_tokens": 10}
    });
    let server = two_rounds(first.clone(), then).await;
    let provider = openai(&server)
        .with_api(OpenAiApi::Responses)
        .with_tools_beside_format(true);
    let client = IntentClient::new(provider);
    forecast_with_tool(&client).await;
    let requests = sent(&server).await;
    let (one, two) = (body_of(&requests[0]), body_of(&requests[1]));
    assert_eq!(
        one["tools"],
        json!([{
            "type": "function",
            "name": "weather",
            "description": "Today's weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string"}},
                "required": ["location"],
                "additionalProperties": false
            },
            "strict": true
        }])
    );
    let call = &first["output"][0];
    let mut want = one.clone();
    let input = want["input"].as_array_mut().unwrap();
    input.push(json!({
        "type": "function_call",
        "call_id": call["call_id"],
        "name": "weather",
        "arguments": call["arguments"]
    }));
    input.push(json!({
        "type": "function_call_output",
        "call_id": call["call_id"],
        "output": "{\"location\":\"San Francisco\",\"sky\":\"sunny\"}"
    }));
    assert_eq!(two, want);
}

#[tokio::test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
async fn a_streamed_chat_call_assembles_the_recorded_call_pieces() {
    let chunks = super::recorded_stream("openai-chat/deepseek-tool-call.chunks.txt");
    let answer = format!(
        "data: {}\n\ndata: [DONE]\n\n",
        json!({"model": "deepseek-reasoner", "choices": [{"index": 0, "delta": {"content": FORECAST}, "finish_reason": "stop"}]})
    );
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(chunks),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(answer),
        )
        .with_priority(2)
        .mount(&server)
        .await;
    let client = IntentClient::new(openai(&server).with_model("deepseek-reasoner"));
    let result = Forecast::ai(&client, "San Francisco", "Say whether it is sunny.")
        .tool(weather_tool())
        .stream()
        .finish()
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    let requests = sent(&server).await;
    let two = body_of(&requests[1]);
    let sent_back = &two["messages"][2]["tool_calls"][0];
    assert_eq!(sent_back["id"], "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF");
    let arguments: Value =
        serde_json::from_str(sent_back["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"location": "San Francisco"}));
    assert_eq!(two["messages"][3]["role"], "tool");
}

/// A chat reply whose message says `content`.
fn said(content: &str) -> Value {
    json!({"model": "qwen2.5-coder-0.5b-instruct",
           "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content}}],
           "usage": {"prompt_tokens": 200, "completion_tokens": 20}})
}

#[tokio::test]
async fn a_grammar_server_gets_the_tool_rounds_without_the_format_and_the_answer_round_with_it() {
    // As llama.cpp serving Qwen2.5-Coder-0.5B answers: the call written as text, then prose.
    let replies = [
        said(r#"{"name": "weather", "arguments": {"location": "San Francisco"}}"#),
        said("It is sunny in San Francisco."),
    ]
    .map(|reply| ResponseTemplate::new(200).set_body_json(reply));
    let server = intent_tests::wire::failing_then(replies.into(), said(FORECAST)).await;
    let client = IntentClient::new(openai(&server));
    forecast_with_tool(&client).await;
    let requests = sent(&server).await;
    assert_eq!(requests.len(), 3);
    let bodies: Vec<Value> = requests.iter().map(body_of).collect();
    for round in &bodies[..2] {
        assert!(round.get("response_format").is_none(), "{round}");
        assert!(round.get("tool_choice").is_none(), "{round}");
        assert_eq!(round["tools"][0]["function"]["name"], "weather");
    }
    // The answer round: the same conversation, the format, and no tool call allowed.
    let answer = &bodies[2];
    assert_eq!(answer["tool_choice"], "none");
    assert_eq!(answer["response_format"]["type"], "json_schema");
    assert_eq!(answer["messages"], bodies[1]["messages"]);
    assert_eq!(
        answer["messages"][2]["tool_calls"][0]["function"]["name"],
        "weather"
    );
    assert_eq!(answer["messages"][3]["role"], "tool");
}

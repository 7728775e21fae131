//! The tool rounds of a call, scripted: the model calls tools, their results go back, and the
//! typed answer after them is read and verified as always; every way a call goes wrong comes
//! back to the model as an error result, or ends the call with a named limit.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use intent_core::prelude::*;
use intent_core::provider::{AiRequest, ScriptedReply};
use intent_core::tool::ToolError;
use intent_core::IssueKind;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Deserialize, Intent)]
struct Lookup {
    order_id: String,
    #[intent(minimum = 1)]
    copies: u32,
}

#[derive(Serialize)]
struct Order {
    status: &'static str,
    total_cents: u32,
}

#[derive(Debug, Deserialize, Intent, PartialEq)]
struct Decision {
    refund: bool,
    reason: String,
}

const DECISION: &str = r#"{"value": {"refund": true, "reason": "The parcel was lost."}}"#;

fn lookup_tool(runs: Arc<AtomicU32>) -> Tool {
    Tool::new(
        "lookup_order",
        "Finds an order by its id.",
        move |a: Lookup| {
            let runs = Arc::clone(&runs);
            async move {
                runs.fetch_add(a.copies, Ordering::SeqCst);
                match a.order_id.as_str() {
                    "A17" => Ok(Order {
                        status: "lost in transit",
                        total_cents: 4200,
                    }),
                    other => Err(ToolError::new(format!("no order {other}"))),
                }
            }
        },
    )
}

/// `model` asked for the decision on order A17 with the lookup tool counting its runs in `runs`.
async fn decide(model: &ScriptedProvider, runs: &Arc<AtomicU32>) -> AiResult<Decision> {
    decide_on(&IntentClient::new(model.clone()), runs, 3).await
}

/// The same through `client`, within `max_attempts`.
async fn decide_on(
    client: &IntentClient,
    runs: &Arc<AtomicU32>,
    max_attempts: u32,
) -> AiResult<Decision> {
    Decision::ai(client, "Order A17.", "Decide.")
        .tool(lookup_tool(Arc::clone(runs)))
        .max_attempts(max_attempts)
        .await
}

/// The results the request sent back, as `(name, content, is_error)`, of its last round.
fn last_results(request: &AiRequest) -> Vec<(String, String, bool)> {
    let tools = request.tools.as_ref().expect("the request offers tools");
    let round = tools.rounds.last().expect("a round of results");
    round
        .results
        .iter()
        .map(|r| (r.name.clone(), r.content.clone(), r.is_error))
        .collect()
}

#[tokio::test]
async fn a_tool_result_goes_back_and_the_typed_answer_after_it_is_verified() {
    let runs = Arc::new(AtomicU32::new(0));
    let mut first = intent_core::provider::AiResponse::new("", "scripted");
    first.usage.input_tokens = 100;
    first.usage.output_tokens = 10;
    first.tool_calls = vec![intent_core::provider::ToolCall::new(
        "call_9",
        "lookup_order",
        r#"{"order_id": "A17", "copies": 1}"#,
    )];
    let mut second = intent_core::provider::AiResponse::new(DECISION, "scripted");
    second.usage.input_tokens = 150;
    second.usage.output_tokens = 20;
    let model = ScriptedProvider::new([first, second]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "Order A17 never came.", "Decide on a refund.")
        .tool(lookup_tool(Arc::clone(&runs)))
        .await;
    assert_eq!(
        result.value(),
        Some(&Decision {
            refund: true,
            reason: "The parcel was lost.".into()
        })
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    // The first request offers the tool with its strict parameters and no rounds.
    let offered = requests[0].tools.as_ref().unwrap();
    assert_eq!(offered.definitions[0].name, "lookup_order");
    assert_eq!(
        offered.definitions[0].parameters["required"],
        json!(["order_id", "copies"])
    );
    assert!(offered.rounds.is_empty());
    // The second carries the call and its result, with the call's id.
    let round = &requests[1].tools.as_ref().unwrap().rounds[0];
    assert_eq!(round.calls[0].id, "call_9");
    assert_eq!(round.results[0].call_id, "call_9");
    assert_eq!(
        round.results[0].content,
        r#"{"status":"lost in transit","total_cents":4200}"#
    );
    assert!(!round.results[0].is_error);
    // The attempt records the call, and the usage of both rounds.
    let attempt = &result.attempts()[0];
    assert_eq!(attempt.tool_calls.len(), 1);
    assert_eq!(attempt.tool_calls[0].arguments["order_id"], "A17");
    assert_eq!(attempt.usage.input_tokens, 250);
    assert_eq!(attempt.usage.output_tokens, 30);
    assert_eq!(attempt.usage.calls, 2);
    assert_eq!(result.usage().input_tokens, 250);
}

#[tokio::test]
async fn bad_arguments_get_their_findings_and_the_corrected_call_runs() {
    let runs = Arc::new(AtomicU32::new(0));
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 0}))]),
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        ScriptedReply::from(DECISION),
    ]);
    let result = decide(&model, &runs).await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the bad call was not run");
    let requests = model.requests();
    let (name, content, is_error) = &last_results(&requests[1])[0];
    assert_eq!(name, "lookup_order");
    assert!(is_error);
    assert!(content.contains("not run"), "{content}");
    assert!(content.contains("- /copies: "), "{content}");
    let calls = &result.attempts()[0].tool_calls;
    assert_eq!(calls.len(), 2);
    assert!(calls[0].is_error && !calls[1].is_error);
}

#[tokio::test]
async fn arguments_not_json_cut_off_or_enormous_go_back_as_errors() {
    let huge = format!(r#"{{"order_id": "{}", "copies": 1}}"#, "x".repeat(70_000));
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([
            ("lookup_order", json!("order A17 please")),
            ("lookup_order", json!(r#"{"order_id": "A1"#)),
            ("lookup_order", json!(huge)),
        ]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let runs = Arc::new(AtomicU32::new(0));
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Arc::clone(&runs)))
        .await;
    assert!(result.is_success());
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let results = last_results(&model.requests()[1]);
    assert!(results.iter().all(|(_, _, error)| *error));
    assert!(results[0].1.contains("not JSON"), "{}", results[0].1);
    assert!(results[1].1.contains("cut off"), "{}", results[1].1);
    assert!(results[2].1.contains("65536"), "{}", results[2].1);
    // The record keeps text that is not JSON as a string.
    assert_eq!(
        result.attempts()[0].tool_calls[0].arguments,
        json!("order A17 please")
    );
}

#[tokio::test]
async fn an_unknown_tool_is_told_the_known_ones() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("find_order", json!({"id": "A17"}))]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .await;
    assert!(result.is_success());
    let (_, content, is_error) = &last_results(&model.requests()[1])[0];
    assert!(is_error);
    assert_eq!(
        content,
        "There is no tool named `find_order`. The tools are: lookup_order."
    );
}

#[tokio::test]
async fn a_handler_error_and_a_panic_go_back_marked_as_errors() {
    let panicking = Tool::new("explode", "Always panics.", |_: Lookup| async move {
        if true {
            panic!("boom at the depot");
        }
        Ok::<_, ToolError>(0)
    });
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([
            ("lookup_order", json!({"order_id": "B2", "copies": 1})),
            ("explode", json!({"order_id": "B2", "copies": 1})),
        ]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "Order B2.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .tool(panicking)
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    let results = last_results(&model.requests()[1]);
    assert_eq!(
        results[0],
        ("lookup_order".into(), "no order B2".into(), true)
    );
    assert_eq!(
        results[1],
        (
            "explode".into(),
            "the tool failed: it panicked (boom at the depot)".into(),
            true
        )
    );
}

#[tokio::test]
async fn a_model_calling_tools_forever_ends_at_max_tool_calls() {
    // Each call asks something new (a repeated call is answered otherwise: see below).
    let call = |n: u32| {
        ScriptedReply::tool_calls([(
            "lookup_order",
            json!({"order_id": format!("A{n}"), "copies": 1}),
        )])
    };
    let model = ScriptedProvider::new((0..10).map(call));
    let client = IntentClient::new(model.clone());
    let runs = Arc::new(AtomicU32::new(0));
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Arc::clone(&runs)))
        .max_tool_calls(3)
        .await;
    assert!(!result.is_success());
    let limit = result.issues().last().unwrap();
    assert_eq!(limit.kind, IssueKind::Limit);
    assert!(
        limit.message.contains("max_tool_calls (3)"),
        "{}",
        limit.message
    );
    assert_eq!(runs.load(Ordering::SeqCst), 3);
    assert_eq!(model.requests().len(), 4);
    assert_eq!(result.attempts().len(), 1, "a limit is not retried");
}

#[tokio::test]
async fn the_default_limit_is_eight_calls() {
    let call = |n: u32| {
        ScriptedReply::tool_calls([(
            "lookup_order",
            json!({"order_id": format!("A{n}"), "copies": 1}),
        )])
    };
    let model = ScriptedProvider::new((0..12).map(call));
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .await;
    assert!(result
        .issues()
        .last()
        .unwrap()
        .message
        .contains("max_tool_calls (8)"));
    assert_eq!(result.attempts()[0].tool_calls.len(), 8);
}

#[tokio::test]
async fn parallel_calls_run_at_once() {
    // Each handler waits for the other: run one after the other, they would never finish.
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let both = {
        let barrier = Arc::clone(&barrier);
        Tool::new("wait_for_other", "Waits.", move |a: Lookup| {
            let barrier = Arc::clone(&barrier);
            async move {
                barrier.wait().await;
                Ok::<_, ToolError>(a.order_id)
            }
        })
    };
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([
            ("wait_for_other", json!({"order_id": "A", "copies": 1})),
            ("wait_for_other", json!({"order_id": "B", "copies": 1})),
        ]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        Decision::ai(&client, "Orders A and B.", "Decide.").tool(both),
    )
    .await
    .expect("the two calls ran at once");
    assert!(result.is_success());
    let results = last_results(&model.requests()[1]);
    assert_eq!(results[0].1, "A");
    assert_eq!(results[1].1, "B");
}

#[tokio::test]
async fn the_deadline_stops_a_hanging_handler() {
    let hanging = Tool::new("hang", "Never returns.", |_: Lookup| async move {
        std::future::pending::<()>().await;
        Ok::<_, ToolError>(0)
    });
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("hang", json!({"order_id": "A", "copies": 1}))]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let started = std::time::Instant::now();
    let result = Decision::ai(&client, "Order A.", "Decide.")
        .tool(hanging)
        .deadline(Duration::from_millis(200))
        .await;
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(!result.is_success());
    assert_eq!(result.issues().last().unwrap().kind, IssueKind::Limit);
    assert!(result.issues().last().unwrap().message.contains("deadline"));
    let record = &result.attempts()[0].tool_calls[0];
    assert!(record.is_error);
    assert!(record.output.contains("deadline"), "{}", record.output);
    assert_eq!(model.requests().len(), 1, "nothing more was sent");
}

#[tokio::test]
async fn a_streamed_call_runs_its_tool_rounds_and_streams_the_final_answer() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        ScriptedReply::from(DECISION),
    ])
    .with_stream_chunk_chars(8);
    let client = IntentClient::new(model.clone());
    let mut stream = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .stream();
    let mut partials = 0;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(_) => partials += 1,
            StreamEvent::Done(result) => done = Some(result),
            _ => {}
        }
    }
    let result = done.expect("the stream ends with the result");
    assert!(result.is_success(), "{:?}", result.issues());
    assert!(partials > 1);
    assert_eq!(result.attempts()[0].tool_calls.len(), 1);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_streamed_call_on_a_server_without_tools_under_a_format_streams_the_answer_round() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        ScriptedReply::from("Refund it: the parcel was lost."),
        ScriptedReply::from(DECISION),
    ])
    .with_stream_chunk_chars(8)
    .with_tools_beside_format(false);
    let client = IntentClient::new(model.clone());
    let mut stream = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .stream();
    let mut last_partial = None;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(partial) => last_partial = Some(partial.json().clone()),
            StreamEvent::Done(result) => done = Some(result),
            _ => {}
        }
    }
    let result = done.expect("the stream ends with the result");
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(model.requests().len(), 3);
    // The prose that did not read is not what the last partial shows: the answer round is.
    assert_eq!(
        last_partial.expect("partials of the answer"),
        json!({"refund": true, "reason": "The parcel was lost."})
    );
}

#[tokio::test]
async fn a_wrong_answer_after_tools_is_retried_with_its_findings() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        ScriptedReply::from(r#"{"value": {"refund": "maybe", "reason": "?"}}"#),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .await;
    assert!(result.is_success());
    assert_eq!(result.attempts().len(), 2);
    assert_eq!(result.attempts()[0].tool_calls.len(), 1);
    assert!(model.requests()[2].user.contains("/value/refund"));
}

#[tokio::test]
async fn two_tools_of_one_name_are_refused_before_sending() {
    let model = ScriptedProvider::new([DECISION]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "x", "Decide.")
        .tool(lookup_tool(Default::default()))
        .tool(lookup_tool(Default::default()))
        .await;
    assert_eq!(result.issues()[0].kind, IssueKind::Request);
    assert!(result.issues()[0]
        .message
        .contains("two tools are named `lookup_order`"));
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn output_that_is_not_json_goes_back_as_an_error() {
    struct Unwritable;
    impl Serialize for Unwritable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("a handle cannot be written"))
        }
    }
    let tool = Tool::new("handle", "Gives a handle.", |_: Lookup| async move {
        Ok::<_, ToolError>(Unwritable)
    });
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("handle", json!({"order_id": "A", "copies": 1}))]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "x", "Decide.").tool(tool).await;
    assert!(result.is_success());
    let (_, content, is_error) = &last_results(&model.requests()[1])[0];
    assert!(is_error);
    assert!(content.contains("a handle cannot be written"), "{content}");
}

#[tokio::test]
async fn a_plain_call_offers_no_tools() {
    let model = ScriptedProvider::new([DECISION]);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "x", "Decide.").await;
    assert!(result.is_success());
    assert!(model.requests()[0].tools.is_none());
    assert!(result.attempts()[0].tool_calls.is_empty());
}

#[tokio::test]
async fn a_cassette_records_the_rounds_and_replays_them() {
    use intent_core::testing::{RecordingProvider, ReplayProvider};
    // Recorded from a server that calls tools under a format, and from one that cannot (whose
    // rounds went without it, and an answer round after text that did not read).
    for beside in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tools.jsonl");
        let script = ScriptedProvider::new([
            ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
            ScriptedReply::from("Refund it."),
            ScriptedReply::from(DECISION),
        ])
        .with_tools_beside_format(beside);
        let runs = Arc::new(AtomicU32::new(0));
        let recording = RecordingProvider::new(script, &path).unwrap();
        let recorded = decide_on(&IntentClient::new(recording), &runs, 2).await;
        assert!(recorded.is_success(), "{:?}", recorded.issues());
        let replay = ReplayProvider::open(&path).unwrap();
        let replayed = decide_on(&IntentClient::new(replay), &runs, 2).await;
        assert!(replayed.is_success(), "{beside}: {:?}", replayed.issues());
        assert_eq!(replayed.value(), recorded.value());
        assert_eq!(replayed.attempts().len(), recorded.attempts().len());
        assert_eq!(replayed.usage().calls, recorded.usage().calls);
        assert!(
            runs.load(Ordering::SeqCst) >= 2,
            "the handler runs on replay too"
        );
        assert_eq!(replayed.attempts()[0].tool_calls.len(), 1);
    }
}

#[tokio::test]
async fn a_call_written_as_the_reply_s_text_is_run_as_a_call() {
    // As llama.cpp serving Qwen2.5-Coder-0.5B answers: the call's JSON as content, untagged.
    let runs = Arc::new(AtomicU32::new(0));
    let model = ScriptedProvider::new([
        r#"{"name": "lookup_order", "arguments": {"order_id": "A17", "copies": 1}}"#,
        DECISION,
    ]);
    let result = decide(&model, &runs).await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let requests = model.requests();
    let round = &requests[1].tools.as_ref().unwrap().rounds[0];
    assert_eq!(round.calls[0].id, "text_call_1");
    assert!(round.text.is_empty());
}

#[tokio::test]
async fn observers_hear_of_each_tool_call() {
    use intent_core::observe::{Observer, ToolCalled};
    #[derive(Default)]
    struct Calls(std::sync::Mutex<Vec<(String, bool)>>);
    impl Observer for Calls {
        fn tool_called(&self, event: &ToolCalled<'_>) {
            let mut seen = self.0.lock().unwrap();
            seen.push((event.record.name.clone(), event.record.is_error));
        }
    }
    let calls = Arc::new(Calls::default());
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([
            ("lookup_order", json!({"order_id": "A17", "copies": 1})),
            ("nope", json!({})),
        ]),
        ScriptedReply::from(DECISION),
    ]);
    let client = IntentClient::builder()
        .provider(model)
        .observer(Arc::clone(&calls))
        .build()
        .unwrap();
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .await;
    assert!(result.is_success());
    assert_eq!(
        *calls.0.lock().unwrap(),
        [
            ("lookup_order".to_owned(), false),
            ("nope".to_owned(), true)
        ]
    );
}

#[tokio::test]
async fn a_repeated_call_is_not_run_again_and_the_model_is_asked_to_answer() {
    let runs = Arc::new(AtomicU32::new(0));
    let call =
        || ScriptedReply::tool_calls([("lookup_order", json!({"copies": 1, "order_id": "A17"}))]);
    let model = ScriptedProvider::new([
        call(),
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        DECISION.into(),
    ]);
    let result = decide(&model, &runs).await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the repeat was not run");
    let attempt = &result.attempts()[0];
    assert_eq!(attempt.tool_calls.len(), 1);
    assert_eq!(attempt.usage.calls, 3);
    assert!(attempt.notices[0]
        .message
        .contains("repeated 1 tool call(s) it already had the results of"));
    // The answer round: the first round's results, no tool call allowed, the format kept.
    let requests = model.requests();
    let last = &requests[2];
    let tools = last.tools.as_ref().unwrap();
    assert_eq!(tools.choice, intent_core::provider::ToolChoice::None);
    assert_eq!(tools.rounds.len(), 1);
    assert_eq!(last.format, intent_core::ResponseFormat::JsonSchema);
}

#[tokio::test]
async fn a_server_without_tools_under_a_format_is_asked_for_the_answer_with_the_format() {
    let runs = Arc::new(AtomicU32::new(0));
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        "The order was lost, so refund it.".into(),
        DECISION.into(),
    ])
    .with_tools_beside_format(false);
    let result = decide(&model, &runs).await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    // The rounds that may call tools go without the format or the schema...
    for round in &requests[..2] {
        assert_eq!(round.format, intent_core::ResponseFormat::Text);
        assert!(round.schema.is_none());
        assert!(round
            .user
            .contains("## Tools\nYou can call these tools: lookup_order."));
        assert_eq!(
            round.tools.as_ref().unwrap().choice,
            intent_core::provider::ToolChoice::Auto
        );
    }
    // ...and the text that did not read is followed by the answer round, with them.
    assert_eq!(requests[2].format, intent_core::ResponseFormat::JsonSchema);
    assert!(requests[2].schema.is_some());
    assert_eq!(
        requests[2].tools.as_ref().unwrap().choice,
        intent_core::provider::ToolChoice::None
    );
    let attempt = &result.attempts()[0];
    assert_eq!(attempt.usage.calls, 3);
    assert_eq!(attempt.raw_output, DECISION);
    let notices: Vec<&str> = attempt.notices.iter().map(|n| n.message.as_str()).collect();
    assert_eq!(notices.len(), 1, "said once: {notices:?}");
    assert!(notices[0].contains("cannot call tools in a reply constrained to a format"));
}

#[tokio::test]
async fn on_such_a_server_an_answer_that_reads_needs_no_answer_round() {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17", "copies": 1}))]),
        DECISION.into(),
    ])
    .with_tools_beside_format(false);
    let client = IntentClient::new(model.clone());
    let result = Decision::ai(&client, "Order A17.", "Decide.")
        .tool(lookup_tool(Default::default()))
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(model.requests().len(), 2);
    // A call without tools is sent its format as ever.
    let plain = ScriptedProvider::new([DECISION]).with_tools_beside_format(false);
    let client = IntentClient::new(plain.clone());
    assert!(Decision::ai(&client, "Order A17.", "Decide.")
        .await
        .is_success());
    assert_eq!(
        plain.requests()[0].format,
        intent_core::ResponseFormat::JsonSchema
    );
}

//! A tool called by the real model: llama.cpp serving Qwen2.5-Coder-0.5B-Instruct with its own
//! chat template. The model writes its call as JSON in the reply's text (the server leaves such
//! calls unparsed), and the server constrains a reply to a format with a grammar that leaves no
//! room for a call: the provider, at a server other than OpenAI's, sends the rounds that offer
//! tools without the format and asks for the answer with it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use intent_core::prelude::*;
use intent_core::tool::ToolError;
use serde::Deserialize;
use serde_json::json;

use super::{client, options, print_attempts};

/// What the order tool is asked.
#[derive(Debug, Deserialize, Intent)]
struct OrderQuery {
    /// The order's id, as written in the question (such as A-1192).
    order_id: String,
}

/// Where an order is.
#[derive(Debug, Deserialize, Intent, PartialEq)]
enum OrderState {
    Pending,
    Shipped,
    HeldAtCustoms,
    Delivered,
}

/// An order's state, as the order system has it.
#[derive(Debug, Deserialize, Intent)]
struct OrderStatus {
    /// The order's state, exactly as the order lookup gave it.
    state: OrderState,
}

#[tokio::test]
#[ignore = "needs a local model: INTENT_LLM_BASE_URL from scripts/local-llm/start.sh"]
async fn the_model_looks_an_order_up_with_a_tool_then_answers_in_the_type() {
    let calls = Arc::new(AtomicU32::new(0));
    let counted = Arc::clone(&calls);
    // The state only the tool knows: the model cannot guess it.
    let lookup = Tool::new(
        "lookup_order",
        "Looks an order up by its id and gives its current state.",
        move |query: OrderQuery| {
            let counted = Arc::clone(&counted);
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                if query.order_id.trim() == "A-1192" {
                    Ok(json!({"order_id": "A-1192", "state": "HeldAtCustoms"}))
                } else {
                    Err(ToolError::new(format!(
                        "There is no order {}; the order in the question is A-1192.",
                        query.order_id
                    )))
                }
            }
        },
    );
    let result = OrderStatus::ai(
        &client(3),
        "Customer message: where is my order A-1192?",
        "Look the order up with the lookup_order tool, then give the order's state as the tool gave it.",
    )
    .options(options(96))
    .tool(lookup)
    .await;
    print_attempts(&result);
    for attempt in result.attempts() {
        eprintln!(
            "tool calls: {:?}; notices: {:?}; usage: {:?}",
            attempt.tool_calls, attempt.notices, attempt.usage
        );
    }
    let status = result
        .value()
        .unwrap_or_else(|| panic!("{:?}", result.issues()));
    assert_eq!(status.state, OrderState::HeldAtCustoms);
    let attempt = result.attempts().last().unwrap();
    assert!(calls.load(Ordering::SeqCst) >= 1, "the tool was not run");
    let call = attempt
        .tool_calls
        .iter()
        .find(|call| !call.is_error)
        .expect("a successful tool call on the answering attempt");
    assert_eq!(call.name, "lookup_order");
    assert_eq!(call.arguments["order_id"], "A-1192");
    // The rounds went without the format, said on the record; the usage covers every round.
    assert!(
        attempt.notices.iter().any(|n| n
            .message
            .contains("left out of the requests that offered tools")),
        "{:?}",
        attempt.notices
    );
    assert!(attempt.usage.calls >= 2, "{:?}", attempt.usage);
}

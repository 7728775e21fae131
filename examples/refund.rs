//! Tools: the model looks an order up, then gives a typed refund decision, verified as any
//! answer is.
//!
//! Runs offline on a scripted model (whose first lookup names an order id with the wrong case
//! and no copies, so the tool's findings go back to it before the corrected call runs):
//!
//! ```text
//! cargo run -p intent-examples --example refund
//! ```

use intent_core::prelude::*;
use intent_core::provider::ScriptedReply;
use intent_core::tool::ToolError;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The order to look up.
#[derive(Debug, Deserialize, Intent)]
struct OrderLookup {
    /// The order id, such as `A17`.
    #[intent(pattern = "^[A-Z]\\d+$")]
    order_id: String,
}

/// What the shop knows of an order.
#[derive(Serialize)]
struct Order {
    status: &'static str,
    total_cents: u32,
    days_since_delivery: Option<u32>,
}

/// What to do about the customer's request.
#[derive(Debug, Deserialize, Intent)]
struct RefundDecision {
    /// Whether to refund.
    refund: bool,
    /// How much, in cents: at most the order's total.
    #[intent(minimum = 0)]
    amount_cents: u32,
    /// One sentence the customer will read.
    reason: String,
}

async fn lookup(order: OrderLookup) -> Result<Order, ToolError> {
    match order.order_id.as_str() {
        "A17" => Ok(Order {
            status: "lost in transit",
            total_cents: 4200,
            days_since_delivery: None,
        }),
        other => Err(ToolError::new(format!("There is no order {other}."))),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = ScriptedProvider::new([
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "a-17"}))]),
        ScriptedReply::tool_calls([("lookup_order", json!({"order_id": "A17"}))]),
        ScriptedReply::from(
            r#"{"value": {"refund": true, "amount_cents": 4200, "reason": "Your parcel was lost in transit, so we refund it in full."}}"#,
        ),
    ]);
    let client = IntentClient::new(model);
    let decision = RefundDecision::ai(
        &client,
        "Order A17 never arrived. I want my money back.",
        "Decide on the customer's refund request. Look the order up first.",
    )
    .tool(Tool::new(
        "lookup_order",
        "Finds an order by its id: its status, total and delivery.",
        lookup,
    ))
    .max_tool_calls(4)
    .await;
    for call in &decision.attempts()[0].tool_calls {
        let mark = if call.is_error { "refused" } else { "ran" };
        println!(
            "{mark} {}({}) -> {}",
            call.name, call.arguments, call.output
        );
    }
    let decision = decision.into_result()?;
    println!(
        "\nrefund: {} ({} cents): {}",
        decision.refund, decision.amount_cents, decision.reason
    );
    assert!(decision.refund && decision.amount_cents == 4200);
    Ok(())
}

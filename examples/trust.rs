//! Answers a user can trust, on a scripted model: a copied example, a member that must come from
//! the input, the last try read as the type, the switches, and each classification's confidence.
//!
//! ```text
//! cargo run -p intent-examples --example trust
//! ```

use intent_core::prelude::*;
use intent_core::provider::{AiResponse, ScriptedReply, TokenLogprob};
use intent_core::AnswerChecks;
use serde::Deserialize;

/// A purchase request read from an email.
#[derive(Debug, Deserialize, Intent)]
struct Purchase {
    /// The sender's first name.
    contact: String,
    /// The product code, as the email writes it.
    #[intent(from_input)]
    sku: String,
    quantity: u32,
}

/// What a support message asks for.
#[derive(Debug, Deserialize, Intent, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Refund,
    Question,
}

/// How a support message is routed.
#[derive(Debug, Deserialize, Intent)]
struct Ticket {
    kind: Kind,
}

const EMAIL: &str = "Dana here: please send 40 units of A-1192.";
const EXAMPLE_EMAIL: &str = "Sam here: please send 12 units of B-220.";
const EXAMPLE_OUTPUT: &str = r#"{"value": {"contact": "Sam", "sku": "B-220", "quantity": 12}}"#;

fn show<T: std::fmt::Debug>(title: &str, result: &AiResult<T>) {
    println!("{title}\n  success: {}", result.is_success());
    for attempt in result.attempts() {
        println!("  attempt {}: {}", attempt.number, attempt.raw_output);
        for issue in &attempt.issues {
            println!("    - {issue}");
        }
    }
    println!();
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. A model that copies the example every time. The code is declared to come from the input,
    //    so the copy is sent back each time and never taken; the last try is still there to show.
    let copier = ScriptedProvider::new([EXAMPLE_OUTPUT; 3]);
    let client = IntentClient::new(copier);
    let order = Purchase::ai(&client, EMAIL, "Extract the purchase request.")
        .example(IntentExample::new(EXAMPLE_EMAIL, EXAMPLE_OUTPUT))
        .await;
    show("A model that only copies the example:", &order);
    if let Some(last) = order.best_effort() {
        let (n, sku, contact) = (last.quantity, last.sku, last.contact);
        println!("  best effort, not a success: {n} x {sku} for {contact}\n");
    }

    // 2. A right answer that happens to equal the example: questioned once, taken when given again.
    let refund = r#"{"value": {"kind": "refund"}}"#;
    let client = IntentClient::new(ScriptedProvider::new([refund, refund]));
    let ticket = Ticket::ai(&client, "I want my money back.", "Route the message.")
        .example(IntentExample::new("Please refund order 5521.", refund))
        .await;
    show("A right answer equal to the example:", &ticket);
    assert_eq!(ticket.value().map(|t| &t.kind), Some(&Kind::Refund));

    // 3. The same call with the copied-example check switched off: taken at once.
    let client = IntentClient::new(ScriptedProvider::new([refund]));
    let ticket = Ticket::ai(&client, "I want my money back.", "Route the message.")
        .example(IntentExample::new("Please refund order 5521.", refund))
        .options(AiRequestOptions {
            answer_checks: Some(AnswerChecks {
                copied_examples: false,
                ..AnswerChecks::default()
            }),
            ..AiRequestOptions::default()
        })
        .await;
    show("The same, with `copied_examples: false`:", &ticket);

    // 4. Confidence: with `logprobs`, each enum and bool member's probability (here a scripted
    //    reply's tokens; OpenAI, Gemini, llama.cpp and vLLM give them), to route the unsure ones.
    let pieces = [
        (r#"{"value": {"kind": ""#, -0.01),
        ("question", -1.2),
        (r#""}}"#, 0.0),
    ];
    let text: String = pieces.iter().map(|(t, _)| *t).collect();
    let mut reply = AiResponse::new(text, "scripted");
    reply.logprobs = Some(
        pieces
            .iter()
            .map(|(t, p)| TokenLogprob::new(*t, *p))
            .collect(),
    );
    let client = IntentClient::new(ScriptedProvider::new([ScriptedReply::from(reply)]));
    let ticket = Ticket::ai(
        &client,
        "Is the kettle dishwasher safe?",
        "Route the message.",
    )
    .options(AiRequestOptions {
        logprobs: true,
        ..AiRequestOptions::default()
    })
    .await;
    for member in &ticket.attempts()[0].confidence {
        let route = if member.probability > 0.5 {
            "automatic"
        } else {
            "a person"
        };
        println!(
            "{} is {} with probability {:.2}: routed to {route}",
            member.path, member.value, member.probability
        );
    }
    Ok(())
}

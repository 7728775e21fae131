//! The quickstart: extract a typed purchase request from an email.
//!
//! Runs offline on a scripted model by default. With `OPENAI_API_KEY` or `OPENAI_BASE_URL` set (for
//! example a local llama.cpp or Ollama server), it asks that server instead, and exits with an
//! error when the call does not succeed. The small model the project installs gets it right on
//! its first answer:
//!
//! ```text
//! cargo run -p intent-examples --example quickstart
//! OPENAI_BASE_URL="$(scripts/local-llm/start.sh)" cargo run -p intent-examples --example quickstart
//! scripts/local-llm/stop.sh
//! ```
//!
//! The contact, the company and the product code are marked `from_input`: an answer that gives
//! one the email does not contain (the example's, say) is never a success. What happens when a
//! model copies the example is shown on its own in `examples/trust.rs`.

use chrono::NaiveDate;
use intent_core::prelude::*;
use serde::Deserialize;

/// A purchase request read from an email.
#[derive(Debug, Deserialize, Intent)]
#[serde(rename_all = "camelCase")]
struct PurchaseRequest {
    /// The sender's first name.
    #[intent(from_input)]
    contact: String,
    /// The sender's company.
    #[intent(from_input)]
    company: String,
    /// The product code, as the email writes it.
    #[intent(from_input, pattern = "^[A-Z]-\\d+$")]
    sku: String,
    #[intent(minimum = 1)]
    quantity: u32,
    /// The delivery date, when the email gives one.
    deliver_by: Option<NaiveDate>,
}

const EMAIL: &str = "Hi team, Dana from Northwind here. Could you send 40 units of A-1192? \
We need them by 2026-11-15. Thanks, Dana";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scripted = ScriptedProvider::new([
        // The first answer breaks the caller's rule (stated in the prompt all the same); the retry
        // carries the finding and fixes it.
        r#"{"value": {"contact": "Dana", "company": "Northwind", "sku": "A-1192", "quantity": 4000, "deliverBy": "2026-11-15"}}"#,
        r#"{"value": {"contact": "Dana", "company": "Northwind", "sku": "A-1192", "quantity": 40, "deliverBy": "2026-11-15"}}"#,
    ]);
    let live = std::env::var_os("OPENAI_API_KEY").is_some()
        || std::env::var_os("OPENAI_BASE_URL").is_some();
    let client = if live {
        println!("Asking the OpenAI-compatible server configured in the environment.\n");
        IntentClient::new(OpenAiProvider::from_env()?)
    } else {
        println!("Running offline on a scripted model (set OPENAI_API_KEY or OPENAI_BASE_URL to ask a real one).\n");
        IntentClient::new(scripted.clone())
    };

    let options = AiRequestOptions {
        system_instructions: Some(
            "You read purchase emails for the Northwind account team.".into(),
        ),
        examples: vec![IntentExample::new(
            "Hello, Sam at Contoso here. Please send 12 units of B-220 by 2026-12-01.",
            r#"{"value": {"contact": "Sam", "company": "Contoso", "sku": "B-220", "quantity": 12, "deliverBy": "2026-12-01"}}"#,
        )],
        max_output_tokens: Some(512),
        temperature: Some(0.0),
        ..AiRequestOptions::default()
    };

    let order = PurchaseRequest::ai(
        &client,
        EMAIL,
        "Extract the purchase request from this email.",
    )
    .options(options)
    .require(|o| o.quantity <= 1000, "Quantity must be at most 1000.")
    .await;

    println!("Success: {}", order.is_success());
    match order.value() {
        Some(order) => {
            println!("Value: {order:?}");
            let by = order
                .deliver_by
                .map_or("no date given".to_owned(), |d| d.to_string());
            println!(
                "That is {} x {} for {} ({}), deliver by {by}.",
                order.quantity, order.sku, order.contact, order.company
            );
        }
        None => println!("Value: none"),
    }
    if order.issues().is_empty() {
        println!("Issues: none");
    } else {
        println!("Issues:");
        for issue in order.issues() {
            println!("  - {issue}");
        }
    }
    println!("\nAttempts:");
    for attempt in order.attempts() {
        println!(
            "  #{} from {} ({}): {} issue(s), {} ms, raw output: {}",
            attempt.number,
            attempt.provider,
            attempt.model,
            attempt.issues.len(),
            attempt.latency.as_millis(),
            attempt.raw_output
        );
        for issue in &attempt.issues {
            println!("      - {issue}");
        }
    }
    let usage = order.usage();
    println!(
        "Usage: {} model call(s), {} input and {} output tokens",
        usage.calls, usage.input_tokens, usage.output_tokens
    );
    if live && !order.is_success() {
        return Err("the purchase request was not read: see the issues above".into());
    }

    if !live {
        let requests = scripted.requests();
        if let Some(first) = requests.first() {
            println!("\nWhat was sent on the first attempt:");
            println!("--- system ---\n{}", first.system);
            println!("--- user ---\n{}", first.user);
            println!(
                "--- format: {:?}, schema name: {} ---",
                first.format, first.schema_name
            );
            if let Some(schema) = &first.schema {
                println!("{}", serde_json::to_string_pretty(schema)?);
            }
        }
        if let Some(retry) = requests.get(1) {
            let tail = retry
                .user
                .find("## Previous attempt")
                .map_or("", |at| &retry.user[at..]);
            println!("\nWhat the retry added:\n{tail}");
        }
    }
    Ok(())
}

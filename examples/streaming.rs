//! Streaming: a growing, already verified partial of a struct (as JSON and as `TicketPartial`),
//! then the elements of a list as each one closes, then a collection whose values arrive as each
//! is certain.
//!
//! Runs offline on a scripted model by default (which streams each reply in pieces). With
//! `OPENAI_API_KEY` or `OPENAI_BASE_URL` set (for example a local llama.cpp or Ollama server), it
//! asks that server instead.
//!
//! ```text
//! cargo run -p intent-examples --example streaming
//! ```

use futures::StreamExt;
use intent_core::prelude::*;
use serde::Deserialize;

/// A support ticket read from a customer's message. `#[intent(partial)]` also generates
/// `TicketPartial`, the answer so far as a value of its own (every member an `Option`).
#[derive(Deserialize, Intent)]
#[intent(partial)]
struct Ticket {
    /// The customer's name.
    customer: String,
    /// One sentence on what went wrong.
    summary: String,
    /// How urgent it is, from 1 (can wait) to 5 (stopped work).
    #[intent(minimum = 1, maximum = 5)]
    urgency: u8,
}

/// One task the message asks for.
#[derive(Debug, Deserialize, Intent)]
struct Task {
    /// What to do, in a few words.
    action: String,
}

const MESSAGE: &str = "Hi, this is Priya from Acme. Since this morning none of our invoices \
export to PDF and month-end closes tomorrow. Please fix the export, refund the failed batch \
and tell our accountant when it works.";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let live = std::env::var_os("OPENAI_API_KEY").is_some()
        || std::env::var_os("OPENAI_BASE_URL").is_some();
    let client = if live {
        println!("Asking the OpenAI-compatible server configured in the environment.\n");
        IntentClient::new(OpenAiProvider::from_env()?)
    } else {
        println!("Running offline on a scripted model (set OPENAI_API_KEY or OPENAI_BASE_URL to ask a real one).\n");
        IntentClient::new(
            ScriptedProvider::new([
                r#"{"value": {"customer": "Priya (Acme)", "summary": "Invoices no longer export to PDF, a day before month-end close.", "urgency": 5}}"#,
                r#"{"value": [{"action": "Fix the PDF export"}, {"action": "Refund the failed batch"}, {"action": "Tell the accountant it works"}]}"#,
                r#"{"value": [{"index": 0, "value": 5}, {"index": 1, "value": 2}, {"index": 2, "value": 1}]}"#,
            ])
            .with_stream_chunk_chars(8),
        )
    };

    println!("A ticket, as it arrives (each member shown once it closes and verifies):");
    let mut stream = Ticket::ai(&client, MESSAGE, "Read the support ticket.").stream();
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(partial) => {
                // The same answer so far, typed: text so far, the urgency only once complete.
                let ticket: TicketPartial = partial.value().unwrap_or_default();
                println!(
                    "  {}  (customer so far: {:?}, urgency: {:?})",
                    partial.json(),
                    ticket.customer.unwrap_or_default(),
                    ticket.urgency
                );
            }
            StreamEvent::Retry(record) => {
                println!("  attempt {} failed; starting over:", record.number);
                for issue in &record.issues {
                    println!("    - {}", issue.message);
                }
            }
            StreamEvent::Done(result) => match result.into_result() {
                Ok(ticket) => println!(
                    "Done: {} — {} (urgency {})\n",
                    ticket.customer, ticket.summary, ticket.urgency
                ),
                Err(error) => println!("Failed: {error}\n"),
            },
            _ => {}
        }
    }

    println!("The tasks, each as soon as it closes:");
    let mut tasks =
        <Vec<Task>>::ai(&client, MESSAGE, "List the tasks the message asks for.").stream_elements();
    while let Some(event) = tasks.next().await {
        match event {
            ElementEvent::Element(index, task) => println!("  {index}: {}", task.action),
            ElementEvent::Invalid(index, issues) => {
                println!("  {index}: refused ({})", issues[0].message)
            }
            ElementEvent::Withdrawn(count) => {
                println!("  the {count} tasks above came from a reply that was refused")
            }
            ElementEvent::Retry(record) => {
                println!("  attempt {} failed; starting over", record.number)
            }
            ElementEvent::Done(result) => {
                println!(
                    "Done: {} tasks, {} tokens",
                    result.value().map_or(0, Vec::len),
                    result.usage().total_tokens()
                );
            }
            _ => {}
        }
    }

    println!("\nThe urgency of each ticket in a queue, each value once it is certain:");
    let queue = [
        "The site is down for every customer.",
        "Could you resend last month's invoice?",
        "Typo on the pricing page.",
    ];
    let mut urgencies = client
        .map_each::<u8>(
            &queue,
            "Rate how urgent the ticket is, from 1 (can wait) to 5 (stopped work).",
        )
        .require(|u| (1..=5).contains(u), "The urgency must be from 1 to 5.")
        .stream_elements();
    while let Some(event) = urgencies.next().await {
        match event {
            CollectionEvent::Element(index, urgency) => println!("  {}: {urgency}", queue[index]),
            // The reply it came from was not answered by it after all: drop it; the value that
            // stands, if any, is delivered again.
            CollectionEvent::Withdrawn(index) => println!("  {}: withdrawn", queue[index]),
            CollectionEvent::Retry(chunk, record) => {
                println!(
                    "  chunk {chunk}, attempt {} failed; asking again",
                    record.number
                )
            }
            CollectionEvent::Done(result) => println!(
                "Done: {} of {} rated",
                result.len() - result.missing().len(),
                result.len()
            ),
            _ => {}
        }
    }
    Ok(())
}

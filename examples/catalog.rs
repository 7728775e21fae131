//! An intent catalog: the prompts live in `examples/catalog/` (YAML and JSON), the code names them.
//!
//! Runs offline on a scripted model: `cargo run -p intent-examples --example catalog`.

use intent_core::catalog::Catalog;
use intent_core::prelude::*;

#[tokio::main]
async fn main() -> Result<(), intent_core::IntentError> {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/catalog");
    let catalog = Catalog::load(folder)?;
    // Fail at start-up, not on the first email, if a file names another type.
    catalog.check::<String>("ticket-title")?;
    catalog.check::<Vec<String>>("ticket-tags")?;
    println!(
        "Loaded {} intents: {}",
        catalog.len(),
        catalog.names().collect::<Vec<_>>().join(", ")
    );

    let email = "Hi, since this morning none of our 40 terminals can print invoices. We are losing sales. Please help! - Dana, Bolt Ltd.";

    // The scripted model answers the way a real one might: the first title is too long for the
    // file's rule, so the rule goes back to the model and the second attempt fits.
    let model = ScriptedProvider::new([
        "Customer Bolt Ltd reports that none of their 40 terminals can print invoices since this morning",
        "No terminal can print invoices since this morning",
        r#"{"value": ["printing", "invoices", "printing"]}"#,
        r#"{"value": ["printing", "invoices"]}"#,
        r#"{"value": {"category": "product", "urgency": 7}}"#,
        r#"{"value": {"category": "product", "urgency": 5}}"#,
    ]);
    let client = IntentClient::new(model.clone());

    let title = catalog.run::<String>(&client, "ticket-title", email).await;
    report("ticket-title", &title);
    let tags = catalog
        .run::<Vec<String>>(&client, "ticket-tags", email)
        .require(
            |tags| !tags.iter().any(|t| t == "help"),
            "Do not use the tag `help`: every ticket asks for help.",
        )
        .await;
    report("ticket-tags", &tags);
    let triage = catalog.run_json(&client, "ticket-triage", email).await;
    report("ticket-triage", &triage);

    println!("\nThe first prompt sent:\n{}", model.requests()[0].user);
    Ok(())
}

fn report<T: std::fmt::Debug>(name: &str, result: &AiResult<T>) {
    println!("\n{name}: {:?}", result.value());
    for attempt in result.attempts() {
        for issue in &attempt.issues {
            println!("  attempt {} was sent back: {issue}", attempt.number);
        }
    }
}

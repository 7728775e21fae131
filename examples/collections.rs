//! One intent over many values, offline: translate product names with `map_each` (order kept,
//! counts checked, chunks run concurrently, a bad chunk asked again alone) and triage tickets with
//! `map_values` (keys kept and checked).
//!
//! Run it with `cargo run -p intent-examples --example collections`.

use std::collections::BTreeMap;

use intent_core::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The scripted model answers in order. The first chunk's first answer drops an element, so
    // that chunk is asked again with the finding "Return exactly 2 elements ...".
    let model = ScriptedProvider::new([
        r#"{"value": [{"index": 0, "value": "Lampe de bureau"}]}"#,
        r#"{"value": [{"index": 0, "value": "Lampe de bureau"}, {"index": 1, "value": "Chaise pliante"}]}"#,
        r#"{"value": [{"index": 2, "value": "Tapis de laine"}, {"index": 3, "value": "Étagère murale"}]}"#,
        r#"{"value": [{"index": 4, "value": "Bouilloire électrique"}]}"#,
        // The ticket triage: one object keyed by the tickets' own keys.
        r#"{"value": {"T-1041": "billing", "T-1042": "outage", "T-1043": "feature request"}}"#,
    ]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .options(IntentClientOptions {
            max_attempts: 2,
            ..IntentClientOptions::default()
        })
        .build()?;

    let products = [
        "Desk lamp",
        "Folding chair",
        "Wool rug",
        "Wall shelf",
        "Electric kettle",
    ];
    let french = client
        .map_each::<String>(&products, "Translate the product name into French.")
        .chunk_size(2)
        .concurrency(1) // one at a time, so the scripted answers meet their chunks in order
        .require(|name| !name.contains('\n'), "Answer on one line.")
        .on_progress(|p| println!("progress: {p}"))
        .await;
    for (name, translated) in products.iter().zip(french.values()) {
        println!(
            "{name:>16} -> {}",
            translated.as_deref().unwrap_or("(no value)")
        );
    }
    println!(
        "{} chunks, {} model calls, retried: {:?}",
        french.chunks().len(),
        french.usage().calls,
        french
            .chunks()
            .iter()
            .filter(|c| c.attempts.len() > 1)
            .map(|c| (c.number, c.attempts[0].issues[0].to_string()))
            .collect::<Vec<_>>()
    );

    let tickets = BTreeMap::from([
        ("T-1041", "I was charged twice for my March invoice."),
        ("T-1042", "Nothing loads since 9am, the site shows a 502."),
        ("T-1043", "Could you add a dark mode?"),
    ]);
    let topics = client
        .map_values::<String, _, _>(&tickets, "Name the ticket's topic in two words at most.")
        .await;
    let topics: BTreeMap<&str, String> = topics.into_map_result()?;
    for (ticket, topic) in &topics {
        println!("{ticket}: {topic}");
    }
    Ok(())
}

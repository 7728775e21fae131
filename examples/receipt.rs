//! Read a receipt image into a typed struct.
//!
//! Runs offline on a scripted model by default, with a one-pixel stand-in for the photo. Give a
//! photo of a receipt (PNG, JPEG, GIF, WebP or a PDF) as the argument and set `OPENAI_API_KEY`,
//! `ANTHROPIC_API_KEY` or `GEMINI_API_KEY` to have a vision model read it.
//!
//! ```text
//! cargo run -p intent-examples --example receipt
//! OPENAI_API_KEY=sk-... cargo run -p intent-examples --example receipt -- receipt.jpg
//! ```

use chrono::NaiveDate;
use intent_core::prelude::*;
use serde::Deserialize;

/// What a receipt says.
#[derive(Deserialize, Intent)]
#[serde(rename_all = "camelCase")]
struct Receipt {
    /// The shop's name as printed at the top.
    merchant: String,
    /// The date of purchase.
    date: Option<NaiveDate>,
    /// Each line bought.
    lines: Vec<Line>,
    /// The total paid, in the receipt's currency.
    #[intent(minimum = 0)]
    total: f64,
    /// The ISO 4217 code of the currency, such as EUR.
    #[intent(pattern = "^[A-Z]{3}$")]
    currency: String,
}

/// One line of a receipt.
#[derive(Deserialize, Intent)]
struct Line {
    /// The item as printed.
    item: String,
    /// What the line cost.
    amount: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let photo = match std::env::args_os().nth(1) {
        Some(path) => Attachment::from_path(path)?,
        None => Attachment::from_bytes(intent_core::attachment::tests_png())?,
    };
    let live = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some());
    let client = if live {
        // The configured providers, the first as primary, the others as fallbacks: each gets the
        // same photo, from the same shared bytes.
        IntentClient::from_env()?
    } else {
        println!("Running offline on a scripted model (set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY to ask a real one).\n");
        IntentClient::new(ScriptedProvider::new([
            r#"{"value": {"merchant": "Corner Bakery", "date": "2026-11-28", "lines": [{"item": "Sourdough loaf", "amount": 4.2}, {"item": "2 croissants", "amount": 3.6}], "total": 7.8, "currency": "EUR"}}"#,
        ]))
    };

    println!("Reading {photo:?}\n");
    let receipt = Receipt::ai(&client, &photo, "Read the receipt.")
        .require(
            |r| (r.lines.iter().map(|l| l.amount).sum::<f64>() - r.total).abs() < 0.01,
            "The line amounts must add up to the total.",
        )
        .await;
    for attempt in receipt.attempts() {
        println!(
            "attempt: {} {} · {} tokens",
            attempt.provider,
            attempt.model,
            attempt.usage.total_tokens()
        );
    }
    let receipt = receipt.into_result()?;
    let date = receipt.date.map_or("no date".to_owned(), |d| d.to_string());
    println!("\n{} ({date})", receipt.merchant);
    for line in &receipt.lines {
        println!("  {:<24} {:>8.2}", line.item, line.amount);
    }
    println!(
        "  {:<24} {:>8.2} {}",
        "total", receipt.total, receipt.currency
    );
    Ok(())
}

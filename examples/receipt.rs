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

/// A whole 1x1 PNG, sent when no photo is named.
const SAMPLE_PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let photo = match std::env::args_os().nth(1) {
        Some(path) => Attachment::from_path(path)?,
        None => Attachment::from_bytes(SAMPLE_PNG.to_vec())?,
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

use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Order {
    #[intent(max_length = 80)]
    quantity: u32,
    #[intent(minimum = 1)]
    sku: String,
    #[intent(min_items = 1)]
    note: Option<String>,
}

fn main() {}

use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Order {
    #[intent(pattern = "^[A-Z-\\d+$")]
    sku: String,
}

fn main() {}

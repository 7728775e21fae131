use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
#[intent(strict)]
struct Order {
    id: String,
    extra: Option<serde_json::Value>,
}

fn main() {}

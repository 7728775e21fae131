use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
#[intent(strict)]
struct Order {
    id: String,
    range: Vec<(u32, u32)>,
}

fn main() {}

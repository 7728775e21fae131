use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize)]
struct Money {
    cents: u64,
}

#[derive(Deserialize, Intent)]
struct Order {
    total: Money,
}

fn main() {}

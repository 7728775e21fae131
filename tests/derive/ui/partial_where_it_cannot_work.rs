use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
#[intent(partial)]
enum Status {
    Open,
    Closed,
}

#[derive(Deserialize, Intent)]
#[intent(partial)]
struct Pair(String, u32);

#[derive(Deserialize, Intent)]
#[serde(transparent)]
#[intent(partial)]
struct Sku {
    code: String,
}

#[derive(Deserialize, Intent)]
#[intent(partial)]
struct Page<T> {
    items: Vec<T>,
}

#[derive(Deserialize, Intent)]
#[intent(partial = "yes")]
struct Order {
    sku: String,
}

fn main() {}

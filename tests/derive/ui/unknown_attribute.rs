use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
#[intent(stricter)]
struct Order {
    #[intent(maximun = 3)]
    quantity: u32,
    #[intent(description = 5)]
    note: String,
}

fn main() {}

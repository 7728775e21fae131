use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Order {
    #[intent(minimum = 10, maximum = 1)]
    quantity: u32,
    #[intent(minimum = 0, exclusive_minimum = 0)]
    price: f64,
    #[intent(min_length = 5, max_length = 2)]
    sku: String,
    #[intent(max_length = 10, minimum = 1)]
    code: String,
    #[intent(multiple_of = 0)]
    step: u32,
}

fn main() {}

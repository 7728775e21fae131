use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Order {
    #[intent(from_input)]
    quantity: u32,
    #[intent(from_input)]
    rush: Option<bool>,
    // Text, an `Option` and a list of text may come from the input.
    #[intent(from_input)]
    sku: String,
    #[intent(from_input)]
    tags: Vec<Option<String>>,
}

#[derive(Deserialize, Intent)]
#[intent(from_input)]
enum Kind {
    Refund,
    Question,
}

#[derive(Deserialize, Intent)]
struct Pair(#[intent(from_input)] String, u8);

fn main() {}

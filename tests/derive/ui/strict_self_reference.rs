use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
#[intent(strict)]
struct Category {
    name: String,
    children: Vec<Category>,
}

fn main() {}

use std::collections::HashMap;

use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
#[intent(strict)]
struct Order {
    id: String,
    quantities: HashMap<String, u32>,
}

fn main() {}

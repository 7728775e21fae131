use std::collections::BTreeMap;

use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Labels {
    values: BTreeMap<String, String>,
}

#[derive(Deserialize, Intent)]
#[intent(strict)]
struct Order {
    id: String,
    labels: Labels,
}

fn main() {}

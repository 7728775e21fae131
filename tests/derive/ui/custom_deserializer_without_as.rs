use intent_core::Intent;
use serde::{Deserialize, Deserializer};

fn upper<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    String::deserialize(d).map(|s| s.to_uppercase())
}

#[derive(Deserialize, Intent)]
struct Order {
    #[serde(deserialize_with = "upper")]
    sku: String,
}

fn main() {}

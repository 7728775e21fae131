// The rule table refuses two bounds on one side of a number, for the derive as for intent files
// (`catalog::rules` tests the same pairs).
use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Price {
    #[intent(minimum = 0, exclusive_minimum = 0)]
    net: f64,
    #[intent(exclusive_maximum = 100, maximum = 99)]
    gross: f64,
    #[intent(exclusive_minimum = 0, maximum = 10)] // one bound per side: fine
    tax: f64,
}

fn main() {}

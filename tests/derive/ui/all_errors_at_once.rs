// An error found from the syntax (an invalid pattern) and one found by the rule table (a range
// no number fits) are reported in the same build.
use intent_core::Intent;
use serde::Deserialize;

#[derive(Deserialize, Intent)]
struct Order {
    #[intent(pattern = "(")]
    sku: String,
    #[intent(minimum = 10, maximum = 1)]
    quantity: u32,
}

fn main() {}

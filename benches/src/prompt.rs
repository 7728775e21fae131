//! The prompt-building fixture: the request for [`Wide`] (50 members) with a 100 KB input.

use intent_core::{AiRequest, AiRequestOptions};

use crate::replies::item;
use crate::types::{Item, Wide};

/// What the model is asked.
pub const INTENT: &str = "Fill in the customer record from these notes.";

/// A text input of `bytes` bytes: prose lines.
pub fn text_input(bytes: usize) -> String {
    let line =
        "Dana called about the lamps again; she wants the linen shades, not the paper ones.\n";
    line.repeat(bytes / line.len() + 1)[..bytes].to_owned()
}

/// A structured input of about `bytes` bytes of JSON: a list of items.
pub fn items_input(bytes: usize) -> Vec<Item> {
    let mut items = Vec::new();
    let mut length = 2;
    while length < bytes {
        let next = item(items.len() as u64);
        length += serde_json::to_string(&next).map_or(0, |text| text.len()) + 1;
        items.push(next);
    }
    items
}

/// What one call does before it sends: look up the type's views, serialize the input, plan the
/// prompt and build the first attempt's request.
///
/// # Panics
///
/// When the input cannot be serialized or the plan fails: the fixture is broken then.
pub fn build_request<I: serde::Serialize + ?Sized>(
    input: &I,
    options: &AiRequestOptions,
) -> AiRequest {
    intent_core::__internals::first_request::<Wide, I>(input, INTENT, options)
        .expect("the request builds")
}

//! The derive goes by what a name resolves to, never by how it is spelled: a user type called
//! `Value`, `Map` or `HashMap` is strict when its own shape is, and `#[intent(crate = "...")]`
//! sends every generated path through a crate that re-exports `intent_core`.
#![allow(dead_code)]

use intent_core::read::read_reply;
use intent_core::Intent;
use serde::Deserialize;

/// Types named like the ones strict schemas cannot express.
mod lookalikes {
    use intent_core::Intent;
    use serde::Deserialize;

    /// An amount of money, not `serde_json::Value`.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Value {
        pub cents: u64,
    }

    /// A site map: a list of pages, not `serde_json::Map`.
    #[derive(Debug, Deserialize, Intent)]
    pub struct Map {
        pub pages: Vec<String>,
    }

    /// A hash of a map tile, not `std::collections::HashMap`.
    #[derive(Debug, Deserialize, Intent)]
    pub struct HashMap(pub String);
}

use lookalikes::{HashMap, Map, Value};

#[derive(Debug, Deserialize, Intent)]
#[intent(strict)]
struct Listing {
    price: Value,
    site: Option<Map>,
    tiles: Vec<HashMap>,
    qualified: lookalikes::Value,
}

#[test]
fn user_types_named_value_map_and_hashmap_are_strict_under_intent_strict() {
    assert!(Listing::is_strict_compatible());
    let schema = Listing::strict_envelope_schema().expect("a strict schema");
    let value = &schema["properties"]["value"];
    assert_eq!(
        value["properties"]["price"]["required"],
        serde_json::json!(["cents"])
    );
    assert_eq!(value["properties"]["tiles"]["items"]["type"], "string");
    let reply = r#"{"value": {"price": {"cents": 1250}, "site": null, "tiles": ["a1"], "qualified": {"cents": 1}}}"#;
    let listing = read_reply::<Listing>(&Listing::type_info(), reply).unwrap();
    assert_eq!(listing.price.cents, 1250);
    assert_eq!(listing.tiles[0].0, "a1");
}

/// A crate that re-exports `intent_core`, as a framework built on it would.
mod my_reexport {
    pub use intent_core;
}

/// A line of an order.
#[derive(Debug, Deserialize, my_reexport::intent_core::Intent)]
#[intent(crate = "my_reexport::intent_core", strict)]
#[serde(rename_all = "camelCase")]
struct Line {
    #[intent(pattern = "^[A-Z]-\\d+$")]
    sku: String,
    #[intent(minimum = 1, maximum = 100)]
    quantity: u32,
    unit: Unit,
}

#[derive(Debug, Deserialize, my_reexport::intent_core::Intent)]
#[intent(crate = "my_reexport::intent_core")]
enum Unit {
    Piece,
    Box,
}

#[derive(Debug, Deserialize, my_reexport::intent_core::Intent)]
#[intent(crate = "my_reexport::intent_core")]
struct Page<T> {
    items: Vec<T>,
    #[intent(max_length = 40)]
    next: Option<String>,
}

#[test]
fn the_crate_attribute_derives_through_a_re_export() {
    assert!(Line::is_strict_compatible());
    assert_eq!(
        Line::describe(),
        "Line\n where Line /* A line of an order. */ { string sku; uint quantity; Unit unit }\n \
         where Unit is one of: Piece, Box"
    );
    let reply = r#"{"value": {"sku": "a-1", "quantity": 0, "unit": "Piece"}}"#;
    let issues = read_reply::<Line>(&Line::type_info(), reply).unwrap_err();
    let paths: Vec<_> = issues
        .iter()
        .map(|i| i.path.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(paths, ["/value/sku", "/value/quantity"], "{issues:?}");
    let page = read_reply::<Page<Line>>(
        &Page::<Line>::type_info(),
        r#"{"value": {"items": [{"sku": "A-1", "quantity": 2, "unit": "Box"}], "next": null}}"#,
    )
    .unwrap();
    assert_eq!(page.items[0].quantity, 2);
    assert_eq!(
        Page::<Line>::type_info()
            .graph()
            .label(Page::<Line>::type_info().root()),
        "Page<Line>"
    );
}

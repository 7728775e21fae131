//! What a derived type's strict envelope schema accepts and what serde accepts agree: for each
//! sample `s`, `{"value": s}` is validated against the schema (formats checked) and `s` is
//! deserialized with serde; both accept or both refuse.
//!
//! Where the two legitimately differ, the sample states the direction and why:
//! - serde accepts, strict refuses: a missing `Option` or `#[serde(default)]` member (strict mode
//!   lists every member as required, with `null` allowed for options), an unknown member (serde
//!   ignores it; strict schemas forbid extra members), a serde `alias` (only the wire name is in the
//!   schema), `{"Variant": null}` for a unit variant.
//! - strict accepts, serde refuses: an integer outside the Rust type's range or written as `1.0`
//!   (JSON Schema's `integer` has no range and counts `1.0` as an integer), a naive date-time in
//!   another form (its schema is a plain string, since `date-time` requires an offset).

use intent_core::Intent;
use intent_tests::derive_types::*;
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy)]
enum Expect {
    Both,
    Neither,
    SerdeOnly(&'static str),
    StrictOnly(&'static str),
}

use Expect::*;

fn verdicts<T: Intent>(sample: &Value) -> (bool, bool) {
    let schema = T::strict_envelope_schema().expect("the type has a strict schema");
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the envelope schema compiles");
    let strict = validator.is_valid(&json!({ "value": sample }));
    let serde = serde_json::from_value::<T>(sample.clone()).is_ok();
    (strict, serde)
}

fn agree<T: Intent>(samples: &[(Value, Expect)]) {
    let mut failures = Vec::new();
    for (sample, expect) in samples {
        let (strict, serde) = verdicts::<T>(sample);
        let (expected, why) = match expect {
            Both => ((true, true), "both accept"),
            Neither => ((false, false), "both refuse"),
            SerdeOnly(why) => ((false, true), *why),
            StrictOnly(why) => ((true, false), *why),
        };
        if (strict, serde) != expected {
            failures.push(format!(
                "{sample}: expected strict={} serde={} ({why}), got strict={strict} serde={serde}",
                expected.0, expected.1
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}: schema and serde disagree:\n{}",
        std::any::type_name::<T>(),
        failures.join("\n")
    );
}

const MISSING_OPTION: &str = "serde reads a missing Option as None; strict requires the member";
const MISSING_DEFAULT: &str = "serde fills a missing default member; strict requires it";
const UNKNOWN_MEMBER: &str = "serde ignores unknown members; strict forbids them";
const INTEGER_RANGE: &str = "JSON Schema integers have no range";

#[test]
fn option_members_agree_except_when_missing() {
    agree::<PurchaseRequest>(&[
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 40, "deliverBy": "2026-11-15"}),
            Both,
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 40, "deliverBy": null}),
            Both,
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 40}),
            SerdeOnly(MISSING_OPTION),
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 40, "deliverBy": "15/11/2026"}),
            Neither,
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 40, "deliver_by": null}),
            SerdeOnly(MISSING_OPTION),
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": "40", "deliverBy": null}),
            Neither,
        ),
        (
            json!({"contact": null, "sku": "A-1", "quantity": 40, "deliverBy": null}),
            Neither,
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": -1, "deliverBy": null}),
            StrictOnly(INTEGER_RANGE),
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 1.0, "deliverBy": null}),
            StrictOnly("JSON Schema counts 1.0 as an integer; serde refuses a float for u32"),
        ),
        (
            json!({"contact": "Dana", "sku": "A-1", "quantity": 1.5, "deliverBy": null}),
            Neither,
        ),
        (json!("Dana, A-1, 40"), Neither),
    ]);
}

#[test]
fn nested_and_generic_structs_agree() {
    let order = json!({"id": "o-1", "lines": [{"sku": "A-1", "quantity": 2}]});
    agree::<Order>(&[
        (order.clone(), Both),
        (json!({"id": "o-1", "lines": []}), Both),
        (json!({"id": "o-1", "lines": [{"sku": "A-1"}]}), Neither),
        (
            json!({"id": "o-1", "lines": [{"sku": "A-1", "quantity": 2, "note": "x"}]}),
            SerdeOnly(UNKNOWN_MEMBER),
        ),
        (
            json!({"id": "o-1", "lines": {"sku": "A-1", "quantity": 2}}),
            Neither,
        ),
        (
            json!({"id": "o-1", "lines": [{"sku": "A-1", "quantity": 5_000_000_000u64}]}),
            StrictOnly(INTEGER_RANGE),
        ),
    ]);
    agree::<Page<Order>>(&[
        (json!({"items": [order.clone()], "nextCursor": "c2"}), Both),
        (json!({"items": [], "nextCursor": null}), Both),
        (json!({"items": [order.clone()]}), SerdeOnly(MISSING_OPTION)),
        (
            json!({"items": [{"id": 3, "lines": []}], "nextCursor": null}),
            Neither,
        ),
    ]);
    agree::<Pair<String, Order>>(&[
        (json!({"first": "a", "second": order}), Both),
        (json!({"first": 1, "second": order}), Neither),
    ]);
}

#[test]
fn field_attributes_agree() {
    agree::<Renamed>(&[
        (
            json!({"ID": 1, "retries": 2, "in": true, "type": "x"}),
            Both,
        ),
        (
            json!({"ID": 1, "in": true, "type": "x"}),
            SerdeOnly(MISSING_DEFAULT),
        ),
        (
            json!({"identifier": 1, "retries": 2, "in": true, "type": "x"}),
            SerdeOnly("serde accepts an alias; strict lists the wire name only"),
        ),
        (
            json!({"id": 1, "retries": 2, "in": true, "type": "x"}),
            Neither,
        ),
        (
            json!({"ID": 1, "retries": 2, "in": true, "type": "x", "cache": [1]}),
            SerdeOnly("a skipped member is unknown to the schema; serde ignores it"),
        ),
    ]);
    agree::<Settings>(&[
        (json!({"verbose": true, "level": 3}), Both),
        (json!({}), SerdeOnly(MISSING_DEFAULT)),
        (json!({"verbose": "yes", "level": 3}), Neither),
    ]);
    agree::<Custom>(&[
        (json!({"code": "abc"}), Both),
        (json!({"code": 1}), Neither),
    ]);
}

#[test]
fn rename_all_cases_agree() {
    agree::<KebabCase>(&[
        (json!({"first-name": "Ada", "last-name": "Lovelace"}), Both),
        (
            json!({"first_name": "Ada", "last_name": "Lovelace"}),
            Neither,
        ),
    ]);
    agree::<ScreamingCase>(&[
        (json!({"API_KEY": "k", "MAX_RETRIES": 3}), Both),
        (json!({"apiKey": "k", "maxRetries": 3}), Neither),
    ]);
    agree::<PascalCase>(&[
        (json!({"UserName": "ada"}), Both),
        (json!({"userName": "ada"}), Neither),
    ]);
}

#[test]
fn flattened_members_agree() {
    agree::<Record>(&[
        (json!({"id": "r", "created_by": "ada", "version": 2}), Both),
        (json!({"id": "r", "created_by": "ada"}), Neither),
        (
            json!({"id": "r", "audit": {"created_by": "ada", "version": 2}}),
            Neither,
        ),
    ]);
}

#[test]
fn newtype_transparent_and_unit_structs_agree() {
    agree::<OrderId>(&[
        (json!(42), Both),
        (json!([42]), Neither),
        (json!("42"), Neither),
    ]);
    agree::<Nothing>(&[(json!(null), Both), (json!({}), Neither)]);
    agree::<Option<Order>>(&[
        (json!(null), Both),
        (json!({"id": "o", "lines": []}), Both),
        (json!([]), Neither),
    ]);
}

#[test]
fn unit_enums_agree() {
    agree::<Status>(&[
        (json!("open"), Both),
        (json!("in_progress"), Both),
        (json!("done"), Both),
        (
            json!("finished"),
            SerdeOnly("serde accepts an alias; strict lists the wire name only"),
        ),
        (json!("Open"), Neither),
        (json!("Closed"), Neither),
        (json!("internal"), Neither),
        (json!(1), Neither),
    ]);
}

#[test]
fn externally_tagged_enums_agree() {
    agree::<Shape>(&[
        (json!({"Circle": {"radius": 1.5}}), Both),
        (json!({"Square": 2.0}), Both),
        (json!("Empty"), Both),
        (
            json!({"Empty": null}),
            SerdeOnly("serde also reads a unit variant as {\"Variant\": null}"),
        ),
        (json!({"Circle": {"radius": 1.5}, "Square": 2.0}), Neither),
        (json!({"Circle": {}}), Neither),
        (json!("Circle"), Neither),
        (json!({"Triangle": 1}), Neither),
    ]);
    agree::<Command>(&[
        (json!({"Send": {"toAddress": "a", "retryCount": 1}}), Both),
        (json!({"Stop": {"AFTER_SECONDS": 5}}), Both),
        (
            json!({"Send": {"to_address": "a", "retry_count": 1}}),
            Neither,
        ),
        (json!({"Stop": {"afterSeconds": 5}}), Neither),
    ]);
}

#[test]
fn internally_tagged_enums_agree() {
    agree::<Event>(&[
        (json!({"kind": "created", "id": 1, "by": "ada"}), Both),
        (json!({"kind": "deleted", "id": 1, "reason": null}), Both),
        (
            json!({"kind": "deleted", "id": 1}),
            SerdeOnly(MISSING_OPTION),
        ),
        (json!({"kind": "ping"}), Both),
        (json!({"kind": "Created", "id": 1, "by": "ada"}), Neither),
        (json!({"id": 1, "by": "ada"}), Neither),
        (json!({"kind": "created", "id": 1}), Neither),
        (json!("ping"), Neither),
    ]);
}

#[test]
fn adjacently_tagged_enums_agree() {
    agree::<Message>(&[
        (json!({"t": "Text", "c": "hi"}), Both),
        (json!({"t": "Move", "c": {"x": 1, "y": -2}}), Both),
        (json!({"t": "Quit"}), Both),
        (json!({"t": "Text"}), Neither),
        (json!({"t": "Text", "c": 5}), Neither),
        (json!({"Text": "hi"}), Neither),
    ]);
}

#[test]
fn untagged_enums_agree() {
    agree::<AnyId>(&[
        (json!(7), Both),
        (json!("A-7"), Both),
        (json!(true), Neither),
        (json!(null), Neither),
        (json!({"Number": 7}), Neither),
        (json!(-7), StrictOnly(INTEGER_RANGE)),
    ]);
}

#[test]
fn well_known_types_agree() {
    agree::<chrono::DateTime<chrono::Utc>>(&[
        (json!("2026-11-15T09:30:00Z"), Both),
        (json!("2026-11-15T09:30:00+02:00"), Both),
        (json!("2026-11-15"), Neither),
    ]);
    agree::<chrono::NaiveDate>(&[(json!("2026-11-15"), Both), (json!("2026-02-30"), Neither)]);
    agree::<chrono::NaiveDateTime>(&[
        (json!("2026-11-15T09:30:00"), Both),
        (
            json!("next Tuesday"),
            StrictOnly("a naive date-time is a plain string in strict mode"),
        ),
    ]);
    agree::<uuid::Uuid>(&[
        (json!("67e55044-10b1-426f-9247-bb680e5fe0c8"), Both),
        (json!("not-a-uuid"), Neither),
    ]);
    agree::<Vec<Status>>(&[
        (json!(["open", "done"]), Both),
        (json!(["open", 1]), Neither),
    ]);
}

#[test]
fn skipping_a_map_member_restores_strictness() {
    assert!(!Tagged::is_strict_compatible());
    assert!(Tagged::strict_envelope_schema().is_none());
    assert!(!WithPayload::is_strict_compatible());
    agree::<SkipsMap>(&[
        (json!({"name": "a"}), Both),
        (
            json!({"name": "a", "tags": {"k": "v"}}),
            SerdeOnly(UNKNOWN_MEMBER),
        ),
    ]);
}

#[test]
fn recursive_types_are_not_strict_and_describe_finitely() {
    for (strict, description) in [
        (Tree::is_strict_compatible(), Tree::describe()),
        (Department::is_strict_compatible(), Department::describe()),
        (Person::is_strict_compatible(), Person::describe()),
        (Chain::<u8>::is_strict_compatible(), Chain::<u8>::describe()),
    ] {
        assert!(!strict, "{description}");
        assert!(description.len() < 1000, "{description}");
    }
    let tree: Tree =
        serde_json::from_value(json!({"label": "a", "children": [{"label": "b", "children": []}]}))
            .expect("serde reads a tree");
    assert_eq!(tree.children[0].label, "b");
}

//! `make_strict`: the keywords it removes, the objects it closes, where it recurses, what it never
//! touches, and that it is idempotent at any depth.

use intent_core::schema::make_strict;
use intent_tests::strict_schema::{deep_items_schema, drop_deep, SPEC_REMOVED_KEYWORDS};
use proptest::prelude::*;
use serde_json::{json, Value};

fn strict(mut schema: Value) -> Value {
    make_strict(&mut schema);
    schema
}

/// Every keyword of JSON Schema 2020-12 (core, applicator, validation, format, content and
/// meta-data vocabularies, and the unevaluated ones), with `definitions` of older drafts.
const ALL_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
];

#[test]
fn removed_keywords_are_exactly_the_listed_ones() {
    // On a schema with no `properties` (so nothing is added), every keyword but the listed ones
    // survives, and each listed one goes.
    let mut schema = serde_json::Map::new();
    for keyword in ALL_KEYWORDS {
        schema.insert((*keyword).to_owned(), json!(1));
    }
    schema.insert("type".into(), json!("string"));
    let strict = strict(Value::Object(schema));
    let kept: Vec<&str> = ALL_KEYWORDS
        .iter()
        .copied()
        .filter(|k| strict.get(*k).is_some())
        .collect();
    let removed: Vec<&str> = ALL_KEYWORDS
        .iter()
        .copied()
        .filter(|k| strict.get(*k).is_none())
        .collect();
    let mut expected = SPEC_REMOVED_KEYWORDS.to_vec();
    expected.sort_unstable();
    let mut removed_sorted = removed.clone();
    removed_sorted.sort_unstable();
    assert_eq!(removed_sorted, expected, "kept: {kept:?}");
}

#[test]
fn removes_each_rejected_keyword() {
    let samples = [
        ("minimum", json!(1)),
        ("maximum", json!(10)),
        ("exclusiveMinimum", json!(0)),
        ("exclusiveMaximum", json!(100)),
        ("multipleOf", json!(5)),
        ("minLength", json!(2)),
        ("maxLength", json!(80)),
        ("pattern", json!("^[A-Z]-\\d+$")),
        ("minItems", json!(1)),
        ("maxItems", json!(3)),
        ("uniqueItems", json!(true)),
        ("default", json!("x")),
        (
            "$schema",
            json!("https://json-schema.org/draft/2020-12/schema"),
        ),
    ];
    assert_eq!(samples.len(), SPEC_REMOVED_KEYWORDS.len());
    for (keyword, value) in samples {
        let mut schema = json!({"type": "string", "description": "kept"});
        schema[keyword] = value;
        assert_eq!(
            strict(schema),
            json!({"type": "string", "description": "kept"}),
            "{keyword} must be removed"
        );
    }
}

#[test]
fn keeps_keywords_strict_mode_accepts() {
    let schema = json!({
        "type": "string",
        "format": "date",
        "description": "A day.",
        "title": "Day",
        "enum": ["2026-01-01", "2026-01-02"],
        "const": "2026-01-01",
        "$ref": "#/$defs/day",
        "$comment": "kept"
    });
    assert_eq!(strict(schema.clone()), schema);
}

#[test]
fn closes_an_object_and_requires_every_property() {
    let schema = json!({
        "type": "object",
        "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
        "required": ["sku"],
        "additionalProperties": true
    });
    assert_eq!(
        strict(schema),
        json!({
            "type": "object",
            "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
            "required": ["sku", "quantity"],
            "additionalProperties": false
        })
    );
}

#[test]
fn does_not_widen_a_property_it_makes_required() {
    let schema = json!({
        "type": "object",
        "properties": {"note": {"type": "string"}, "due": {"type": ["string", "null"]}},
        "required": []
    });
    let out = strict(schema);
    assert_eq!(out["properties"]["note"], json!({"type": "string"}));
    assert_eq!(
        out["properties"]["due"],
        json!({"type": ["string", "null"]})
    );
    assert_eq!(out["required"], json!(["note", "due"]));
}

#[test]
fn closes_an_object_whose_type_list_includes_object() {
    let out = strict(json!({"type": ["object", "null"], "properties": {"a": {"type": "integer"}}}));
    assert_eq!(out["additionalProperties"], json!(false));
    assert_eq!(out["required"], json!(["a"]));
}

#[test]
fn closes_an_untyped_schema_with_properties() {
    let out = strict(json!({"properties": {"a": {"type": "integer"}}}));
    assert_eq!(
        out,
        json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": false, "required": ["a"]})
    );
}

#[test]
fn closes_an_object_with_no_properties_listed_as_empty() {
    let out = strict(json!({"type": "object", "properties": {}}));
    assert_eq!(
        out,
        json!({"type": "object", "properties": {}, "additionalProperties": false, "required": []})
    );
}

#[test]
fn leaves_properties_of_a_non_object_type_unclosed_but_cleans_them() {
    let out =
        strict(json!({"type": "string", "properties": {"a": {"type": "integer", "minimum": 0}}}));
    assert_eq!(
        out,
        json!({"type": "string", "properties": {"a": {"type": "integer"}}})
    );
}

#[test]
fn map_keeps_its_own_additional_properties_schema() {
    let map = json!({
        "type": "object",
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9},
        "minProperties": 1
    });
    assert_eq!(strict(map.clone()), map);
    let nested = json!({
        "type": "object",
        "properties": {"counts": map.clone()}
    });
    let out = strict(nested);
    assert_eq!(out["properties"]["counts"], map);
    assert_eq!(out["additionalProperties"], json!(false));
}

#[test]
fn properties_named_like_keywords_are_kept() {
    let schema = json!({
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "pattern": "^a"},
            "format": {"type": "string", "format": "email", "maxLength": 40},
            "minimum": {"type": "number", "minimum": 0},
            "default": {"type": "boolean", "default": false},
            "$schema": {"type": "string"},
            "properties": {"type": "object", "properties": {"items": {"type": "string"}}}
        }
    });
    let out = strict(schema);
    assert_eq!(
        out,
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "format": {"type": "string", "format": "email"},
                "minimum": {"type": "number"},
                "default": {"type": "boolean"},
                "$schema": {"type": "string"},
                "properties": {
                    "type": "object",
                    "properties": {"items": {"type": "string"}},
                    "additionalProperties": false,
                    "required": ["items"]
                }
            },
            "additionalProperties": false,
            "required": ["pattern", "format", "minimum", "default", "$schema", "properties"]
        })
    );
}

/// The schema every recursion test expects to find made strict at the end of its path.
fn inner() -> Value {
    json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "default": {}})
}

fn inner_strict() -> Value {
    json!({
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "additionalProperties": false,
        "required": ["n"]
    })
}

#[test]
fn recurses_into_properties() {
    let out = strict(json!({"type": "object", "properties": {"a": inner()}}));
    assert_eq!(out["properties"]["a"], inner_strict());
}

#[test]
fn recurses_into_items_of_one_schema() {
    let out = strict(json!({"type": "array", "items": inner(), "minItems": 1}));
    assert_eq!(out, json!({"type": "array", "items": inner_strict()}));
}

#[test]
fn recurses_into_items_as_an_array_of_schemas() {
    let out =
        strict(json!({"type": "array", "items": [inner(), {"type": "string", "maxLength": 3}]}));
    assert_eq!(
        out,
        json!({"type": "array", "items": [inner_strict(), {"type": "string"}]})
    );
}

#[test]
fn recurses_into_any_of_all_of_and_one_of() {
    for keyword in ["anyOf", "allOf", "oneOf"] {
        let mut schema = json!({});
        schema[keyword] = json!([inner(), {"type": "null"}]);
        let mut expected = json!({});
        expected[keyword] = json!([inner_strict(), {"type": "null"}]);
        assert_eq!(strict(schema), expected, "{keyword}");
    }
}

#[test]
fn recurses_into_each_named_schema_of_defs_and_definitions() {
    for keyword in ["$defs", "definitions"] {
        let mut schema = json!({"$ref": "#/x/line"});
        schema[keyword] = json!({"line": inner(), "code": {"type": "string", "pattern": "^x"}});
        let out = strict(schema);
        assert_eq!(out[keyword]["line"], inner_strict(), "{keyword}");
        assert_eq!(out[keyword]["code"], json!({"type": "string"}), "{keyword}");
    }
}

#[test]
fn recurses_through_mixed_paths() {
    let schema = json!({
        "type": "object",
        "properties": {
            "lines": {"type": "array", "items": {"anyOf": [{"oneOf": [{"allOf": [inner()]}]}]}}
        }
    });
    let out = strict(schema);
    assert_eq!(
        out["properties"]["lines"]["items"]["anyOf"][0]["oneOf"][0]["allOf"][0],
        inner_strict()
    );
}

#[test]
fn does_not_enter_keywords_outside_its_list() {
    // `not`, `if`, `additionalProperties` and data keywords are left as they are.
    let schema = json!({
        "not": {"type": "string", "minLength": 1},
        "if": {"properties": {"a": {"minimum": 1}}},
        "enum": [{"minimum": 1}],
        "const": {"pattern": "x"},
        "examples": [{"properties": {}}]
    });
    assert_eq!(strict(schema.clone()), schema);
}

#[test]
fn is_idempotent() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "lines": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/line"}},
            "tags": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 9}},
            "choice": {"anyOf": [{"type": "string", "pattern": "^a"}, {"type": "null"}]}
        },
        "required": ["lines"],
        "$defs": {"line": inner()},
        "definitions": {"other": {"properties": {"x": {"default": 1}}}}
    });
    let once = strict(schema);
    let twice = strict(once.clone());
    assert_eq!(once, twice);
}

#[test]
fn leaves_values_that_are_not_schemas_alone() {
    for value in [
        json!(42),
        json!("text"),
        json!(null),
        json!(true),
        json!([{"minimum": 1}]),
    ] {
        assert_eq!(strict(value.clone()), value);
    }
}

#[test]
fn tolerates_malformed_keywords_without_panicking() {
    let schema = json!({
        "type": 7,
        "properties": 5,
        "items": "x",
        "anyOf": {"a": 1},
        "allOf": [1, "two", null],
        "$defs": [],
        "minimum": 1
    });
    let out = strict(schema);
    assert_eq!(
        out,
        json!({"type": 7, "properties": 5, "items": "x", "anyOf": {"a": 1}, "allOf": [1, "two", null], "$defs": []})
    );
}

#[test]
fn handles_very_deep_schemas_without_overflowing_the_stack() {
    let depth = 100_000;
    let mut schema = deep_items_schema(depth);
    make_strict(&mut schema);
    // Walk down without recursion: every level lost its `maxItems`, the innermost its `minimum`.
    let mut node = &schema;
    for _ in 0..depth {
        assert!(node.get("maxItems").is_none());
        node = &node["items"];
    }
    assert_eq!(node, &json!({"type": "integer"}));
    drop_deep(schema);
}

/// Arbitrary JSON whose keys are mostly schema keywords, to reach every branch.
fn schemaish() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("type".to_owned()),
        Just("properties".to_owned()),
        Just("items".to_owned()),
        Just("anyOf".to_owned()),
        Just("allOf".to_owned()),
        Just("oneOf".to_owned()),
        Just("$defs".to_owned()),
        Just("definitions".to_owned()),
        Just("required".to_owned()),
        Just("additionalProperties".to_owned()),
        Just("minimum".to_owned()),
        Just("pattern".to_owned()),
        Just("default".to_owned()),
        "[a-z]{1,3}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        prop_oneof![Just("object"), Just("string"), Just("array")].prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn is_idempotent_on_any_json(value in schemaish()) {
        let once = strict(value);
        let twice = strict(once.clone());
        prop_assert_eq!(once, twice);
    }
}

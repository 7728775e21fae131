//! `build_envelope_from_schema`: a runtime schema as the strict envelope a provider receives.

use intent_core::schema::{build_envelope_from_schema, make_strict};
use intent_tests::strict_schema::{assert_openai_strict, deep_items_schema, drop_deep, resolve};

/// The deepest nesting `build_envelope_from_schema` accepts, as its documentation states.
const MAX_SCHEMA_DEPTH: usize = 128;
use intent_core::IntentError;
use serde_json::{json, Value};

fn build(schema: &Value) -> Value {
    build_envelope_from_schema(schema).expect("a valid schema")
}

fn error(schema: &Value) -> String {
    match build_envelope_from_schema(schema) {
        Err(IntentError::InvalidSchema(message)) => message,
        other => panic!("expected InvalidSchema, got {other:?}"),
    }
}

/// The `$ref` that `schema` gets from the envelope, at `pointer` inside the caller's schema.
fn rewritten(reference: &str) -> Value {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": reference}, "total": {"type": "number"}},
        "$defs": {"x": {"type": "string"}},
        "definitions": {"y": {"type": "integer"}}
    });
    build(&schema)["properties"]["value"]["properties"]["a"]["$ref"].clone()
}

#[test]
fn wraps_the_schema_in_a_strict_envelope() {
    let schema = json!({
        "type": "object",
        "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}}
    });
    assert_eq!(
        build(&schema),
        json!({
            "type": "object",
            "properties": {
                "value": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}},
                    "additionalProperties": false,
                    "required": ["sku", "quantity"]
                }
            },
            "required": ["value"],
            "additionalProperties": false
        })
    );
}

#[test]
fn wraps_a_non_object_root_type() {
    let out = build(
        &json!({"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 3}),
    );
    assert_eq!(
        out["properties"]["value"],
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_openai_strict(&out);
}

#[test]
fn drops_schema_id_and_anchor_from_the_root_only() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/order.json",
        "$anchor": "order",
        "type": "object",
        "properties": {"line": {"$anchor": "line", "type": "string"}}
    });
    let value = &build(&schema)["properties"]["value"];
    for keyword in ["$schema", "$id", "$anchor"] {
        assert!(value.get(keyword).is_none(), "{keyword} stays at the root");
    }
    assert_eq!(
        value["properties"]["line"],
        json!({"$anchor": "line", "type": "string"})
    );
}

#[test]
fn hoists_defs_and_definitions_beside_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a"}, "b": {"$ref": "#/definitions/b"}},
        "$defs": {"a": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}}},
        "definitions": {"b": {"type": "string", "pattern": "^b"}}
    });
    let out = build(&schema);
    let keys: Vec<&str> = out
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "type",
            "properties",
            "required",
            "additionalProperties",
            "$defs",
            "definitions"
        ]
    );
    assert!(out["properties"]["value"].get("$defs").is_none());
    assert!(out["properties"]["value"].get("definitions").is_none());
    // Hoisted definitions are made strict with the rest.
    assert_eq!(
        out["$defs"]["a"],
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false, "required": ["n"]})
    );
    assert_eq!(out["definitions"]["b"], json!({"type": "string"}));
    assert_openai_strict(&out);
}

#[test]
fn rewrites_a_reference_to_the_root() {
    assert_eq!(rewritten("#"), json!("#/properties/value"));
}

#[test]
fn keeps_references_to_defs_and_definitions() {
    assert_eq!(rewritten("#/$defs/x"), json!("#/$defs/x"));
    assert_eq!(rewritten("#/definitions/y"), json!("#/definitions/y"));
    assert_eq!(rewritten("#/%24defs/x"), json!("#/%24defs/x"));
}

#[test]
fn prefixes_every_other_root_relative_reference() {
    assert_eq!(
        rewritten("#/properties/total"),
        json!("#/properties/value/properties/total")
    );
    assert_eq!(
        rewritten("#/$defsx/y"),
        json!("#/properties/value/$defsx/y")
    );
    assert_eq!(rewritten("#/items/0"), json!("#/properties/value/items/0"));
    assert_eq!(rewritten("#/"), json!("#/properties/value/"));
}

#[test]
fn keeps_external_and_anchor_references() {
    for reference in [
        "https://example.com/schemas/line.json",
        "https://example.com/schemas/line.json#/properties/sku",
        "line.json",
        "#line",
    ] {
        assert_eq!(rewritten(reference), json!(reference));
    }
}

/// The schema with its references as the caller wrote them (the inverse of the rewriting).
fn unrewrite(mut schema: Value) -> Value {
    let mut stack = vec![&mut schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    if let (true, Value::String(r)) = (key == "$ref", &mut *child) {
                        if let Some(rest) = r.strip_prefix("#/properties/value") {
                            *r = format!("#{rest}");
                        }
                    } else {
                        stack.push(child);
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    schema
}

#[test]
fn rewritten_references_reach_the_same_schema() {
    let schema = json!({
        "type": "object",
        "properties": {
            "total": {"type": "number", "description": "The total."},
            "copy": {"$ref": "#/properties/total"},
            "line": {"$ref": "#/$defs/line"},
            "other": {"$ref": "#/definitions/other"},
            "lines": {"type": "array", "items": {"$ref": "#/properties/total"}}
        },
        "$defs": {"line": {"type": "object", "properties": {"up": {"$ref": "#/properties/total"}}}},
        "definitions": {"other": {"type": "boolean"}}
    });
    let out = build(&schema);
    let mut strict_original = schema.clone();
    make_strict(&mut strict_original);
    let pairs = [
        ("/properties/copy", "/properties/value/properties/copy"),
        ("/properties/line", "/properties/value/properties/line"),
        ("/properties/other", "/properties/value/properties/other"),
        (
            "/properties/lines/items",
            "/properties/value/properties/lines/items",
        ),
        ("/$defs/line/properties/up", "/$defs/line/properties/up"),
    ];
    for (before, after) in pairs {
        let old_ref = strict_original.pointer(before).unwrap()["$ref"]
            .as_str()
            .unwrap();
        let new_ref = out.pointer(after).unwrap()["$ref"].as_str().unwrap();
        assert_eq!(
            resolve(&strict_original, old_ref).cloned(),
            resolve(&out, new_ref).cloned().map(unrewrite),
            "{before}: {old_ref} and {new_ref} reach different schemas"
        );
    }
    assert_openai_strict(&out);
}

#[test]
fn rewrites_references_inside_hoisted_definitions() {
    let schema = json!({
        "type": "object",
        "properties": {"head": {"$ref": "#/$defs/node"}},
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]},
                    "root": {"$ref": "#"},
                    "sibling": {"$ref": "#/properties/head"}
                }
            }
        }
    });
    let node = &build(&schema)["$defs"]["node"]["properties"];
    assert_eq!(node["next"]["anyOf"][0]["$ref"], "#/$defs/node");
    assert_eq!(node["root"]["$ref"], "#/properties/value");
    assert_eq!(
        node["sibling"]["$ref"],
        "#/properties/value/properties/head"
    );
}

#[test]
fn rewrites_references_in_every_schema_position() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": {"$ref": "#/properties/a"},
        "patternProperties": {"^x": {"$ref": "#/properties/a"}},
        "prefixItems": [{"$ref": "#/properties/a"}],
        "items": [{"$ref": "#/properties/a"}],
        "not": {"$ref": "#/properties/a"},
        "if": {"$ref": "#"},
        "then": {"allOf": [{"$ref": "#/properties/a"}]},
        "else": {"oneOf": [{"$ref": "#/properties/a"}]}
    });
    let value = build(&schema)["properties"]["value"].clone();
    let target = "#/properties/value/properties/a";
    for pointer in [
        "/patternProperties/^x",
        "/prefixItems/0",
        "/items/0",
        "/not",
        "/then/allOf/0",
        "/else/oneOf/0",
    ] {
        assert_eq!(value.pointer(pointer).unwrap()["$ref"], target, "{pointer}");
    }
    assert_eq!(value["if"]["$ref"], "#/properties/value");
    // The root has properties, so make_strict closes it: its additionalProperties becomes false.
    assert_eq!(value["additionalProperties"], json!(false));
}

#[test]
fn keeps_a_map_additional_properties_schema_and_rewrites_its_references() {
    let schema = json!({
        "type": "object",
        "properties": {"counts": {"type": "object", "additionalProperties": {"$ref": "#/$defs/count"}}},
        "$defs": {"count": {"type": "integer", "minimum": 0}}
    });
    let out = build(&schema);
    assert_eq!(
        out["properties"]["value"]["properties"]["counts"],
        json!({"type": "object", "additionalProperties": {"$ref": "#/$defs/count"}})
    );
    assert_eq!(out["$defs"]["count"], json!({"type": "integer"}));
}

#[test]
fn properties_named_ref_and_data_keywords_are_not_references() {
    let schema = json!({
        "type": "object",
        "properties": {
            "$ref": {"type": "string"},
            "enum": {"type": "string", "enum": [{"$ref": "#"}]},
            "const": {"const": {"$ref": "#/properties/x"}},
            "examples": {"type": "string", "examples": [{"$ref": "#"}]}
        }
    });
    let value = &build(&schema)["properties"]["value"];
    assert_eq!(value["properties"]["$ref"], json!({"type": "string"}));
    assert_eq!(value["properties"]["enum"]["enum"], json!([{"$ref": "#"}]));
    assert_eq!(
        value["properties"]["const"]["const"],
        json!({"$ref": "#/properties/x"})
    );
    assert_eq!(
        value["properties"]["examples"]["examples"],
        json!([{"$ref": "#"}])
    );
    assert_eq!(
        value["required"],
        json!(["$ref", "enum", "const", "examples"])
    );
}

#[test]
fn keeps_references_inside_a_nested_schema_with_its_own_id() {
    let schema = json!({
        "type": "object",
        "properties": {
            "money": {
                "$id": "https://example.com/money.json",
                "type": "object",
                "properties": {"amount": {"type": "number"}, "again": {"$ref": "#/properties/amount"}}
            },
            "outer": {"$ref": "#/properties/money"}
        }
    });
    let value = &build(&schema)["properties"]["value"];
    assert_eq!(
        value["properties"]["money"]["properties"]["again"]["$ref"],
        "#/properties/amount"
    );
    assert_eq!(
        value["properties"]["outer"]["$ref"],
        "#/properties/value/properties/money"
    );
}

#[test]
fn leaves_the_callers_schema_untouched() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:order",
        "type": "object",
        "properties": {"a": {"$ref": "#"}, "b": {"$ref": "#/properties/a"}, "c": {"type": "string", "pattern": "x"}},
        "$defs": {"d": {"properties": {"e": {"$ref": "#"}}}},
        "definitions": {"f": {"minimum": 1}}
    });
    let before = schema.clone();
    let _ = build(&schema);
    assert_eq!(schema, before);
}

#[test]
fn is_stable_when_the_envelope_is_made_strict_again() {
    let out = build(&json!({
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/x"}}},
        "$defs": {"x": {"type": "object", "properties": {"b": {"type": ["string", "null"]}}}}
    }));
    let mut again = out.clone();
    make_strict(&mut again);
    assert_eq!(again, out);
    assert_openai_strict(&out);
}

#[test]
fn recursive_schema_validates_through_the_rewritten_root_reference() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#"}}
        }
    });
    let out = build(&schema);
    let validator = jsonschema::validator_for(&out).expect("the envelope compiles");
    let good = json!({"value": {"name": "a", "children": [{"name": "b", "children": []}]}});
    let bad_child = json!({"value": {"name": "a", "children": [{"name": 1, "children": []}]}});
    let missing = json!({"value": {"name": "a", "children": [{"name": "b"}]}});
    let extra = json!({"value": {"name": "a", "children": [], "age": 3}});
    assert!(validator.is_valid(&good));
    assert!(!validator.is_valid(&bad_child));
    assert!(!validator.is_valid(&missing));
    assert!(!validator.is_valid(&extra));
    assert!(!validator.is_valid(&json!({"value": {"name": "a", "children": []}, "more": 1})));
}

#[test]
fn definitions_validate_through_hoisted_references() {
    let schema = json!({
        "type": "object",
        "properties": {"lines": {"type": "array", "items": {"$ref": "#/definitions/line"}}},
        "definitions": {"line": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}}
    });
    let validator = jsonschema::validator_for(&build(&schema)).expect("compiles");
    assert!(validator.is_valid(&json!({"value": {"lines": [{"sku": "A", "qty": 2}]}})));
    assert!(!validator.is_valid(&json!({"value": {"lines": [{"sku": "A"}]}})));
}

#[test]
fn realistic_schemas_fit_the_openai_strict_subset() {
    let schemas = [
        json!({"type": "object", "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}}}),
        json!({"type": "string", "enum": ["low", "high"]}),
        json!({"type": ["number", "null"], "minimum": 0}),
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "customer": {"$ref": "#/definitions/party"},
                "lines": {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/line"}},
                "status": {"anyOf": [{"type": "string", "enum": ["open", "closed"]}, {"type": "null"}]}
            },
            "required": ["customer"],
            "definitions": {
                "party": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 80}}},
                "line": {"type": "object", "properties": {"sku": {"type": "string", "pattern": "^[A-Z]"}, "qty": {"type": "integer", "minimum": 1, "default": 1}}}
            }
        }),
    ];
    for schema in &schemas {
        assert_openai_strict(&build(schema));
    }
}

#[test]
fn refuses_a_schema_that_is_not_an_object() {
    assert!(error(&json!(42)).contains("must be a JSON object, not a number"));
    assert!(error(&json!("object")).contains("not a string"));
    assert!(error(&json!([{"type": "string"}])).contains("not an array"));
    assert!(error(&json!(null)).contains("not null"));
    assert!(error(&json!(true)).contains("boolean schema"));
}

#[test]
fn refuses_malformed_keywords_with_their_place() {
    let cases = [
        (
            json!({"$ref": 5}),
            "`$ref` at the schema's root must be a string, not a number",
        ),
        (
            json!({"$defs": []}),
            "`$defs` at the schema's root must be an object of named schemas, not an array",
        ),
        (
            json!({"definitions": "x"}),
            "`definitions` at the schema's root must be an object of named schemas, not a string",
        ),
        (
            json!({"properties": [1]}),
            "`properties` at the schema's root must be an object of named schemas, not an array",
        ),
        (
            json!({"properties": {"a": {"properties": {"b": {"$ref": {"x": 1}}}}}}),
            "`$ref` at `/properties/a/properties/b` must be a string, not an object",
        ),
        (
            json!({"properties": {"a/b": "string"}}),
            "`/properties/a~1b` must be a schema (a JSON object or a boolean), not a string",
        ),
        (
            json!({"items": "string"}),
            "`items` at the schema's root must be a schema or an array of schemas, not a string",
        ),
        (
            json!({"items": [{"type": "string"}, 3]}),
            "`/items/1` must be a schema (a JSON object or a boolean), not a number",
        ),
        (
            json!({"anyOf": {"type": "string"}}),
            "`anyOf` at the schema's root must be an array of schemas, not an object",
        ),
        (
            json!({"allOf": [null]}),
            "`/allOf/0` must be a schema (a JSON object or a boolean), not null",
        ),
        (
            json!({"type": 3}),
            "`type` at the schema's root must be a string or an array of strings, not a number",
        ),
        (
            json!({"type": ["string", 1]}),
            "`type` at the schema's root must be a string or an array of strings, not an array",
        ),
        (
            json!({"required": "a"}),
            "`required` at the schema's root must be an array of property names, not a string",
        ),
        (
            json!({"enum": {"a": 1}}),
            "`enum` at the schema's root must be an array of values, not an object",
        ),
        (
            json!({"$defs": {"x": {"$defs": 1}}}),
            "`$defs` at `/$defs/x` must be an object of named schemas, not a number",
        ),
        (
            json!({"additionalProperties": 1}),
            "`/additionalProperties` must be a schema (a JSON object or a boolean), not a number",
        ),
    ];
    for (schema, expected) in cases {
        let message = error(&schema);
        assert_eq!(message, expected, "for {schema}");
    }
}

#[test]
fn error_messages_read_as_invalid_output_schema() {
    let error = build_envelope_from_schema(&json!({"$ref": 1})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid output schema: `$ref` at the schema's root must be a string, not a number"
    );
}

#[test]
fn accepts_boolean_subschemas() {
    let out = build(&json!({"type": "object", "properties": {"any": true, "none": false}}));
    assert_eq!(
        out["properties"]["value"]["properties"],
        json!({"any": true, "none": false})
    );
}

#[test]
fn accepts_the_deepest_schema_serde_json_parses() {
    // serde_json refuses text nested deeper than its recursion limit; anything it parses fits.
    let mut text = String::new();
    let mut depth = 0;
    loop {
        let candidate = format!(
            "{}{{}}{}",
            "{\"items\":".repeat(depth + 1),
            "}".repeat(depth + 1)
        );
        if serde_json::from_str::<Value>(&candidate).is_err() {
            break;
        }
        text = candidate;
        depth += 1;
    }
    assert!(depth >= 100, "serde_json parsed only {depth} levels");
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert!(build_envelope_from_schema(&schema).is_ok());
}

#[test]
fn refuses_a_schema_deeper_than_the_limit_naming_it() {
    let schema = deep_items_schema(MAX_SCHEMA_DEPTH);
    let message = error(&schema);
    assert!(
        message.contains(&format!("more than {MAX_SCHEMA_DEPTH} levels")),
        "{message}"
    );
    assert!(build_envelope_from_schema(&deep_items_schema(MAX_SCHEMA_DEPTH - 2)).is_ok());
}

#[test]
fn refuses_a_very_deep_schema_without_overflowing_the_stack() {
    let schema = deep_items_schema(200_000);
    assert!(error(&schema).contains(&format!("more than {MAX_SCHEMA_DEPTH} levels")));
    drop_deep(schema);
}

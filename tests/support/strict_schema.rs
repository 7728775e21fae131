//! Checks that a schema sent to a provider fits OpenAI's strict-mode subset (the strictest of the
//! providers): an object at the root, `additionalProperties: false` and every property required on
//! every object with properties, none of the keywords strict mode refuses, at most 10 levels of
//! nesting, at most 5,000 properties and 1,000 enum values, and every local `$ref` resolving.

#![allow(dead_code)]

use serde_json::Value;

/// The keywords `make_strict` removes, as the behaviour reference lists them.
pub const SPEC_REMOVED_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "default",
    "$schema",
];

const REFUSED: &[&str] = &["allOf", "not", "if", "then", "else"];

/// Every way `schema` breaks OpenAI's strict subset, each with its JSON pointer.
pub fn openai_strict_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema.get("type") != Some(&Value::from("object")) {
        out.push("/: the root must be {\"type\": \"object\"}".to_owned());
    }
    if schema.get("anyOf").is_some() {
        out.push("/: anyOf is not allowed at the root".to_owned());
    }
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    // (schema, pointer, object nesting level)
    let mut stack = vec![(schema, String::new(), 0usize)];
    while let Some((node, path, level)) = stack.pop() {
        let Value::Object(map) = node else {
            out.push(format!("{path}: a schema must be an object"));
            continue;
        };
        for keyword in SPEC_REMOVED_KEYWORDS.iter().chain(REFUSED) {
            if map.contains_key(*keyword) {
                out.push(format!("{path}: `{keyword}` is refused in strict mode"));
            }
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            if reference.starts_with('#') && resolve(schema, reference).is_none() {
                out.push(format!("{path}: `$ref` {reference} does not resolve"));
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            enum_values += values.len();
        }
        let mut level = level;
        if let Some(Value::Object(props)) = map.get("properties") {
            level += 1;
            if level > 10 {
                out.push(format!("{path}: more than 10 levels of nesting"));
            }
            properties += props.len();
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                out.push(format!("{path}: additionalProperties must be false"));
            }
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let keys: Vec<&str> = props.keys().map(String::as_str).collect();
            if required != keys {
                out.push(format!(
                    "{path}: required {required:?} must list every property {keys:?}"
                ));
            }
            for (name, child) in props {
                stack.push((child, format!("{path}/properties/{name}"), level));
            }
        } else if map.get("type") == Some(&Value::from("object"))
            && map.get("additionalProperties") != Some(&Value::Bool(false))
        {
            out.push(format!(
                "{path}: an object must have additionalProperties false"
            ));
        }
        for keyword in ["$defs", "definitions"] {
            if let Some(Value::Object(named)) = map.get(keyword) {
                for (name, child) in named {
                    stack.push((child, format!("{path}/{keyword}/{name}"), level));
                }
            }
        }
        match map.get("items") {
            Some(Value::Array(items)) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((child, format!("{path}/items/{i}"), level));
                }
            }
            Some(child) => stack.push((child, format!("{path}/items"), level)),
            None => {}
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = map.get(keyword) {
                for (i, child) in options.iter().enumerate() {
                    stack.push((child, format!("{path}/{keyword}/{i}"), level));
                }
            }
        }
    }
    if properties > 5000 {
        out.push(format!("{properties} properties, more than 5,000"));
    }
    if enum_values > 1000 {
        out.push(format!("{enum_values} enum values, more than 1,000"));
    }
    out
}

/// The schema a local `$ref` (`#`, `#/a/b`) points to.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// Asserts that `schema` fits OpenAI's strict subset.
pub fn assert_openai_strict(schema: &Value) {
    let violations = openai_strict_violations(schema);
    assert!(
        violations.is_empty(),
        "not in OpenAI's strict subset:\n{}\nschema: {}",
        violations.join("\n"),
        serde_json::to_string_pretty(schema).unwrap()
    );
}

/// Drops a deeply nested value without recursion (serde_json's own drop recurses).
pub fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// A schema nested `depth` levels through `key` (`{"type":"array","items":{...}}` for `items`), the
/// innermost carrying `minimum`; built without recursion.
pub fn deep_items_schema(depth: usize) -> Value {
    let mut schema = serde_json::json!({"type": "integer", "minimum": 1});
    for _ in 0..depth {
        let mut outer = serde_json::Map::new();
        outer.insert("type".into(), Value::from("array"));
        outer.insert("maxItems".into(), Value::from(3));
        outer.insert("items".into(), schema);
        schema = Value::Object(outer);
    }
    schema
}

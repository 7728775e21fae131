//! JSON schemas for providers' strict modes: the `{"value": ...}` envelope, [`make_strict`] and
//! [`build_envelope_from_schema`] for shapes chosen at run time.

use serde_json::{json, Map, Value};

use crate::error::IntentError;

/// The envelope's one property: every JSON reply is `{"value": <result>}`.
pub const ENVELOPE_PROPERTY: &str = "value";

/// The keywords that providers' strict modes reject, removed by [`make_strict`].
pub const REMOVED_KEYWORDS: &[&str] = &[
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

/// Deeper schemas are left as they are below this depth (no provider accepts them anyway).
const MAX_DEPTH: usize = 256;

/// Wraps a schema in the envelope: `{"type":"object","properties":{"value":inner},
/// "required":["value"],"additionalProperties":false}`.
///
/// ```
/// use serde_json::json;
///
/// let schema = intent_core::schema::envelope(json!({"type": "integer"}));
/// assert_eq!(schema["properties"]["value"], json!({"type": "integer"}));
/// assert_eq!(schema["required"], json!(["value"]));
/// ```
pub fn envelope(inner: Value) -> Value {
    json!({
        "type": "object",
        "properties": { ENVELOPE_PROPERTY: inner },
        "required": [ENVELOPE_PROPERTY],
        "additionalProperties": false,
    })
}

/// Makes a schema acceptable to providers' strict modes, in place.
///
/// Removes the keywords in [`REMOVED_KEYWORDS`]; for every object with `properties` (a schema whose
/// `type` is or includes `"object"`, or that has `properties` and no `type`) sets
/// `additionalProperties: false` and lists every property in `required`; recurses into
/// `properties`, `items`, `anyOf`, `allOf`, `oneOf`, and each named schema of `$defs` and
/// `definitions`. Only schema positions are edited: a *property named* `pattern` keeps its name, and
/// an object without `properties` (a map) keeps its own `additionalProperties`. Idempotent.
///
/// ```
/// use serde_json::json;
///
/// let mut schema = json!({
///     "type": "object",
///     "properties": {"pattern": {"type": "string", "pattern": "^a"}, "n": {"type": "integer", "minimum": 1}}
/// });
/// intent_core::schema::make_strict(&mut schema);
/// assert_eq!(schema, json!({
///     "type": "object",
///     "properties": {"pattern": {"type": "string"}, "n": {"type": "integer"}},
///     "additionalProperties": false,
///     "required": ["pattern", "n"]
/// }));
/// ```
pub fn make_strict(schema: &mut Value) {
    strict_at(schema, 0);
}

fn strict_at(schema: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(map) = schema else {
        return;
    };
    for keyword in REMOVED_KEYWORDS {
        map.shift_remove(*keyword);
    }
    let typed_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        None => true,
        Some(_) => false,
    };
    if typed_object {
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required: Vec<Value> = properties.keys().map(|k| Value::from(k.as_str())).collect();
            map.insert("additionalProperties".into(), Value::Bool(false));
            map.insert("required".into(), Value::Array(required));
        }
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for property in properties.values_mut() {
            strict_at(property, depth + 1);
        }
    }
    match map.get_mut("items") {
        Some(Value::Array(items)) => items.iter_mut().for_each(|s| strict_at(s, depth + 1)),
        Some(items) => strict_at(items, depth + 1),
        None => {}
    }
    for keyword in ["anyOf", "allOf", "oneOf"] {
        if let Some(Value::Array(options)) = map.get_mut(keyword) {
            options.iter_mut().for_each(|s| strict_at(s, depth + 1));
        }
    }
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(named)) = map.get_mut(keyword) {
            named.values_mut().for_each(|s| strict_at(s, depth + 1));
        }
    }
}

/// Builds the strict envelope for a JSON schema chosen at run time.
///
/// Works on a copy (the caller's schema is untouched): drops `$schema`, `$id` and `$anchor` from the
/// root, moves the root's `$defs` and `definitions` to the envelope's root, rewrites root-relative
/// `$ref`s so they reach the same schema from the envelope (`#` becomes `#/properties/value`,
/// `#/$defs/..` and `#/definitions/..` stay, any other `#/..` is prefixed with
/// `#/properties/value`, external references stay), then runs [`make_strict`] over the whole
/// envelope.
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"sku": {"type": "string"}}});
/// let envelope = intent_core::schema::build_envelope_from_schema(&schema).unwrap();
/// assert_eq!(envelope["properties"]["value"]["required"], json!(["sku"]));
/// assert!(intent_core::schema::build_envelope_from_schema(&json!(42)).is_err());
/// ```
pub fn build_envelope_from_schema(schema: &Value) -> Result<Value, IntentError> {
    let mut copy = match schema {
        Value::Object(map) => map.clone(),
        Value::Bool(_) => {
            return Err(IntentError::InvalidSchema(
                "the output schema is a boolean schema; give an object schema such as {\"type\": \"object\", \"properties\": {...}}".into(),
            ))
        }
        other => {
            return Err(IntentError::InvalidSchema(format!(
                "the output schema must be a JSON object, not {}",
                kind_of(other)
            )))
        }
    };
    for keyword in ["$schema", "$id", "$anchor"] {
        copy.shift_remove(keyword);
    }
    let mut hoisted = Map::new();
    for keyword in ["$defs", "definitions"] {
        if let Some(defs) = copy.shift_remove(keyword) {
            if !defs.is_object() {
                return Err(IntentError::InvalidSchema(format!(
                    "`{keyword}` at the schema's root must be an object of named schemas, not {}",
                    kind_of(&defs)
                )));
            }
            hoisted.insert(keyword.to_owned(), defs);
        }
    }
    let mut value = Value::Object(copy);
    rewrite_refs(&mut value, 0)?;
    for defs in hoisted.values_mut() {
        rewrite_refs(defs, 0)?;
    }
    let mut envelope = envelope(value);
    if let Value::Object(map) = &mut envelope {
        map.extend(hoisted);
    }
    make_strict(&mut envelope);
    Ok(envelope)
}

/// Rewrites every root-relative `$ref` (anywhere in the tree) for the schema's new place.
fn rewrite_refs(node: &mut Value, depth: usize) -> Result<(), IntentError> {
    if depth > MAX_DEPTH {
        return Err(IntentError::InvalidSchema(format!(
            "the output schema is nested deeper than {MAX_DEPTH} levels"
        )));
    }
    match node {
        Value::Object(map) => {
            if let Some(reference) = map.get_mut("$ref") {
                match reference {
                    Value::String(r) => {
                        if let Some(rewritten) = rewrite_ref(r) {
                            *r = rewritten;
                        }
                    }
                    other => {
                        return Err(IntentError::InvalidSchema(format!(
                            "a `$ref` must be a string, not {}",
                            kind_of(other)
                        )))
                    }
                }
            }
            for (key, child) in map.iter_mut() {
                // `enum` and `const` hold data, not schemas: a `$ref` key inside them is data.
                if key == "enum" || key == "const" || key == "examples" {
                    continue;
                }
                rewrite_refs(child, depth + 1)?;
            }
        }
        Value::Array(items) => {
            for item in items {
                rewrite_refs(item, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The envelope-relative form of a root-relative reference, or `None` when it stays unchanged.
fn rewrite_ref(reference: &str) -> Option<String> {
    if reference == "#" || reference == "#/" {
        return Some(format!("#/properties/{ENVELOPE_PROPERTY}"));
    }
    let rest = reference.strip_prefix("#/")?;
    if rest == "$defs"
        || rest == "definitions"
        || rest.starts_with("$defs/")
        || rest.starts_with("definitions/")
    {
        return None;
    }
    Some(format!("#/properties/{ENVELOPE_PROPERTY}/{rest}"))
}

pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

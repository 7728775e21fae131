//! The `{"value": ...}` envelope every JSON reply is asked for, and [`make_strict`], which makes a
//! schema acceptable to providers' strict modes. Both are facts about the shape of a reply, so they
//! live with the shape; their public path is [`crate::schema`].

use serde_json::{json, Map, Value};

/// The envelope's one property: every JSON reply is `{"value": <result>}`.
pub const ENVELOPE_PROPERTY: &str = "value";

/// The keywords that providers' strict modes reject, removed by [`make_strict`].
pub(crate) const REMOVED_KEYWORDS: &[&str] = &[
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

/// Wraps a schema in the envelope: `{"type":"object","properties":{"value":inner},
/// "required":["value"],"additionalProperties":false}`.
pub(crate) fn envelope(inner: Value) -> Value {
    json!({
        "type": "object",
        "properties": { ENVELOPE_PROPERTY: inner },
        "required": [ENVELOPE_PROPERTY],
        "additionalProperties": false,
    })
}

/// Makes a schema acceptable to providers' strict modes, in place.
///
/// Removes the keywords strict modes refuse (`minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`,
/// `uniqueItems`, `default` and `$schema`); for every object with `properties` (a schema whose
/// `type` is or includes `"object"`, or that has `properties` and no `type`) sets
/// `additionalProperties: false` and lists every property in `required`; recurses into
/// `properties`, `items` (one schema or an array of them), `anyOf`, `allOf`, `oneOf`, and each named
/// schema of `$defs` and `definitions`.
///
/// Only schema positions are edited: a *property named* `pattern`, `format` or `minimum` keeps its
/// name, and an object without `properties` (a map) keeps its own `additionalProperties` schema,
/// which is not entered. A property's type is never widened: a property the schema did not require
/// becomes required with its own type, so declare it nullable (`"type": ["string", "null"]`) when
/// the model may answer that there is none. Idempotent; values that are not schemas (a number, a
/// malformed keyword) are left as they are. The walk uses no recursion, so any depth is safe.
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
    let mut stack: Vec<&mut Value> = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else {
            continue;
        };
        for keyword in REMOVED_KEYWORDS {
            map.shift_remove(*keyword);
        }
        if describes_object(map) {
            if let Some(Value::Object(properties)) = map.get("properties") {
                let required: Vec<Value> =
                    properties.keys().map(|k| Value::from(k.as_str())).collect();
                map.insert("additionalProperties".into(), Value::Bool(false));
                map.insert("required".into(), Value::Array(required));
            }
        }
        for (key, child) in map.iter_mut() {
            match (key.as_str(), child) {
                ("properties" | "$defs" | "definitions", Value::Object(named)) => {
                    stack.extend(named.values_mut());
                }
                ("items" | "anyOf" | "allOf" | "oneOf", Value::Array(list)) => {
                    stack.extend(list.iter_mut());
                }
                ("items", item @ Value::Object(_)) => stack.push(item),
                _ => {}
            }
        }
    }
}

/// True for a schema whose `type` is or includes `"object"`, or that has no `type`.
fn describes_object(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        None => true,
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_requires_its_one_property_and_nothing_else() {
        let schema = envelope(json!({"type": "integer"}));
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"value": {"type": "integer"}},
                "required": ["value"],
                "additionalProperties": false,
            })
        );
    }
}

//! JSON schemas for providers' strict modes: the `{"value": ...}` envelope ([`ENVELOPE_PROPERTY`]),
//! [`make_strict`], and [`build_envelope_from_schema`] for shapes chosen at run time.
//!
//! The envelope and `make_strict` are facts about a reply's shape and are defined with the shape;
//! this module is their public path. Building an envelope from a runtime schema reports an
//! error of its own, which becomes [`IntentError::InvalidSchema`] at the public boundary.

use std::fmt;

use serde_json::{Map, Value};

use crate::error::IntentError;
use crate::shape::envelope::envelope;
pub use crate::shape::envelope::{make_strict, ENVELOPE_PROPERTY};

/// The deepest JSON nesting a runtime schema may have, counting every object and array (the same
/// limit `serde_json` applies when it parses text, so a schema read from JSON text always fits).
const MAX_SCHEMA_DEPTH: usize = 128;

/// Why a runtime schema cannot be sent strict: the message names the fault and its JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaError(String);

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SchemaError {}

impl From<SchemaError> for IntentError {
    fn from(error: SchemaError) -> Self {
        IntentError::InvalidSchema(error.0)
    }
}

/// Builds the strict envelope for a JSON schema chosen at run time.
///
/// Works on a deep copy, so the caller's schema is untouched:
/// - `$schema`, `$id` and `$anchor` are dropped from the root (the copy is no longer a document root);
/// - the root's `$defs` and `definitions` move to the envelope's root, beside `properties`;
/// - every root-relative `$ref` is rewritten to reach the same schema from the envelope:
///
///   | `$ref` in the schema | in the envelope |
///   |---|---|
///   | `#` | `#/properties/value` |
///   | `#/$defs/..`, `#/definitions/..` | unchanged (the definitions are at the envelope's root) |
///   | any other `#/..` | prefixed: `#/properties/total` becomes `#/properties/value/properties/total` |
///   | external (not starting with `#`), or `#name` (an anchor) | unchanged |
///
///   References inside a nested schema that declares its own `$id` are relative to that schema,
///   which moves as a whole, so they stay unchanged;
/// - the copy becomes the envelope's `value` property and [`make_strict`] runs over the whole
///   envelope, hoisted definitions included.
///
/// # Errors
///
/// [`IntentError::InvalidSchema`], with the JSON pointer of the fault, when the schema is not a JSON
/// object; when a schema position holds something other than an object or a boolean; when `$ref`
/// is not a string, `type` is not a string or an array of strings, `required` is not an array of
/// strings, `enum` is not an array, `properties`, `$defs`, `definitions` (and the other maps of
/// named schemas) are not objects, or `anyOf`, `allOf`, `oneOf`, `prefixItems` are not arrays; and
/// when the schema is nested deeper than 128 levels, counting every object and array (the limit
/// `serde_json` applies when it parses text, so a schema read from JSON text always fits).
///
/// ```
/// use serde_json::json;
///
/// let schema = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "type": "object",
///     "properties": {"sku": {"type": "string", "pattern": "^[A-Z]"}, "line": {"$ref": "#/$defs/line"}},
///     "$defs": {"line": {"type": "object", "properties": {"next": {"$ref": "#/properties/sku"}}}}
/// });
/// let envelope = intent_core::schema::build_envelope_from_schema(&schema).unwrap();
/// assert_eq!(envelope["properties"]["value"]["properties"]["sku"], json!({"type": "string"}));
/// assert_eq!(envelope["properties"]["value"]["required"], json!(["sku", "line"]));
/// assert_eq!(envelope["$defs"]["line"]["properties"]["next"]["$ref"], "#/properties/value/properties/sku");
/// assert!(envelope["properties"]["value"].get("$defs").is_none());
/// assert!(intent_core::schema::build_envelope_from_schema(&json!(42)).is_err());
/// ```
pub fn build_envelope_from_schema(schema: &Value) -> Result<Value, IntentError> {
    Ok(build(schema)?)
}

/// [`build_envelope_from_schema`] with the schema layer's own error.
fn build(schema: &Value) -> Result<Value, SchemaError> {
    let (value, hoisted) = relocate(schema, &format!("#/properties/{ENVELOPE_PROPERTY}"))?;
    let mut envelope = envelope(value);
    if let Value::Object(map) = &mut envelope {
        map.extend(hoisted);
    }
    make_strict(&mut envelope);
    Ok(envelope)
}

/// A runtime schema made ready to sit at `base` (a JSON pointer in URI form, `#/properties/value`)
/// of a larger schema: checked, its root's `$schema`, `$id` and `$anchor` dropped, its root's
/// `$defs` and `definitions` taken out (returned beside it, for the larger schema's root), and
/// every root-relative `$ref` rewritten to reach the same schema from there (see
/// [`build_envelope_from_schema`]). A collection's chunk schema places one so.
pub(crate) fn relocate(
    schema: &Value,
    base: &str,
) -> Result<(Value, Map<String, Value>), SchemaError> {
    let root = match schema {
        Value::Object(map) => map,
        Value::Bool(_) => {
            return Err(SchemaError(
                "the output schema is a boolean schema; give an object schema such as {\"type\": \"object\", \"properties\": {...}}".into(),
            ))
        }
        other => {
            return Err(SchemaError(format!(
                "the output schema must be a JSON object, not {}",
                kind_of(other)
            )))
        }
    };
    // Checked before the copy, whose clone (like every `Value` clone and drop) recurses.
    check_depth(schema)?;
    let mut copy = root.clone();
    for keyword in ["$schema", "$id", "$anchor"] {
        copy.shift_remove(keyword);
    }
    let mut hoisted = Map::new();
    for keyword in ["$defs", "definitions"] {
        if let Some(defs) = copy.shift_remove(keyword) {
            hoisted.insert(keyword.to_owned(), defs);
        }
    }
    let mut value = Value::Object(copy);
    let mut walk = vec![Visit {
        node: &mut value,
        path: String::new(),
        rewrite: true,
    }];
    for (keyword, defs) in hoisted.iter_mut() {
        let path = format!("/{keyword}");
        let Value::Object(named) = defs else {
            return Err(SchemaError(format!(
                "`{keyword}` at the schema's root must be an object of named schemas, not {}",
                kind_of(defs)
            )));
        };
        for (name, child) in named.iter_mut() {
            walk.push(Visit {
                path: child_path(&path, name),
                node: child,
                rewrite: true,
            });
        }
    }
    check_and_rewrite(walk, base)?;
    Ok((value, hoisted))
}

/// Refuses a value nested deeper than `MAX_SCHEMA_DEPTH`, without recursion.
fn check_depth(schema: &Value) -> Result<(), SchemaError> {
    let mut stack = vec![(schema, 1usize)];
    while let Some((node, depth)) = stack.pop() {
        let is_container = matches!(node, Value::Object(_) | Value::Array(_));
        if is_container && depth > MAX_SCHEMA_DEPTH {
            return Err(SchemaError(format!(
                "the output schema is nested more than {MAX_SCHEMA_DEPTH} levels deep; no provider accepts such a schema"
            )));
        }
        match node {
            Value::Object(map) => stack.extend(map.values().map(|child| (child, depth + 1))),
            Value::Array(items) => stack.extend(items.iter().map(|child| (child, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// A schema position still to check: the node, its JSON pointer in the caller's schema, and whether
/// its root-relative `$ref`s are rewritten (not inside a nested schema with its own `$id`).
struct Visit<'a> {
    node: &'a mut Value,
    path: String,
    rewrite: bool,
}

impl<'a> Visit<'a> {
    /// The visit of `node`, the member `key` of the schema at `path`.
    fn member(path: &str, key: &str, node: &'a mut Value, rewrite: bool) -> Self {
        Visit {
            path: child_path(path, key),
            node,
            rewrite,
        }
    }
}

/// Keywords whose value is one schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value is an object of named schemas.
const NAMED_SCHEMA_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Keywords whose value is an array of schemas.
const SCHEMA_LIST_KEYWORDS: &[&str] = &["anyOf", "allOf", "oneOf", "prefixItems"];

/// Checks every schema position and rewrites root-relative `$ref`s for the envelope.
fn check_and_rewrite(mut stack: Vec<Visit<'_>>, base: &str) -> Result<(), SchemaError> {
    while let Some(Visit {
        node,
        path,
        rewrite,
    }) = stack.pop()
    {
        let map = match node {
            Value::Object(map) => map,
            Value::Bool(_) => continue,
            other => {
                return Err(SchemaError(format!(
                    "{} must be a schema (a JSON object or a boolean), not {}",
                    place(&path),
                    kind_of(other)
                )))
            }
        };
        // A nested schema with its own `$id` is a resource of its own: its `#` pointers are
        // relative to it, and it moves as a whole.
        let rewrite = rewrite && (path.is_empty() || !map.contains_key("$id"));
        check_keywords(map, &path)?;
        for (key, child) in map.iter_mut() {
            let key = key.as_str();
            if key == "$ref" {
                if let (true, Value::String(reference)) = (rewrite, &mut *child) {
                    if let Some(rewritten) = rewrite_ref(reference, base) {
                        *reference = rewritten;
                    }
                }
            } else if key == "items" {
                match child {
                    Value::Array(list) => push_list(&mut stack, list, &path, key, rewrite),
                    item => stack.push(Visit::member(&path, key, item, rewrite)),
                }
            } else if SCHEMA_KEYWORDS.contains(&key) {
                stack.push(Visit::member(&path, key, child, rewrite));
            } else if NAMED_SCHEMA_KEYWORDS.contains(&key) {
                if let Value::Object(named) = child {
                    let base = child_path(&path, key);
                    for (name, schema) in named.iter_mut() {
                        stack.push(Visit::member(&base, name, schema, rewrite));
                    }
                }
            } else if SCHEMA_LIST_KEYWORDS.contains(&key) {
                if let Value::Array(list) = child {
                    push_list(&mut stack, list, &path, key, rewrite);
                }
            }
        }
    }
    Ok(())
}

fn push_list<'a>(
    stack: &mut Vec<Visit<'a>>,
    list: &'a mut [Value],
    path: &str,
    key: &str,
    rewrite: bool,
) {
    let base = child_path(path, key);
    for (index, schema) in list.iter_mut().enumerate() {
        stack.push(Visit {
            path: format!("{base}/{index}"),
            node: schema,
            rewrite,
        });
    }
}

/// Refuses malformed keywords of one schema object.
fn check_keywords(map: &Map<String, Value>, path: &str) -> Result<(), SchemaError> {
    let fault = |keyword: &str, expected: &str, found: &Value| {
        Err(SchemaError(format!(
            "`{keyword}` at {} must be {expected}, not {}",
            place(path),
            kind_of(found)
        )))
    };
    for (key, value) in map {
        let key = key.as_str();
        match (key, value) {
            ("$ref", Value::String(_)) => {}
            ("$ref", other) => return fault(key, "a string", other),
            ("type", Value::String(_)) => {}
            ("type", Value::Array(types)) if types.iter().all(Value::is_string) => {}
            ("type", other) => return fault(key, "a string or an array of strings", other),
            ("required", Value::Array(names)) if names.iter().all(Value::is_string) => {}
            ("required", other) => return fault(key, "an array of property names", other),
            ("enum", Value::Array(_)) => {}
            ("enum", other) => return fault(key, "an array of values", other),
            ("items", Value::Object(_) | Value::Bool(_) | Value::Array(_)) => {}
            ("items", other) => return fault(key, "a schema or an array of schemas", other),
            (_, Value::Object(_)) if NAMED_SCHEMA_KEYWORDS.contains(&key) => {}
            (_, other) if NAMED_SCHEMA_KEYWORDS.contains(&key) => {
                return fault(key, "an object of named schemas", other)
            }
            (_, Value::Array(_)) if SCHEMA_LIST_KEYWORDS.contains(&key) => {}
            (_, other) if SCHEMA_LIST_KEYWORDS.contains(&key) => {
                return fault(key, "an array of schemas", other)
            }
            _ => {}
        }
    }
    Ok(())
}

/// The form of a root-relative reference that reaches the same schema once the schema sits at
/// `base`, or `None` when it stays unchanged.
fn rewrite_ref(reference: &str, base: &str) -> Option<String> {
    if reference == "#" {
        return Some(base.to_owned());
    }
    let rest = reference.strip_prefix("#/")?;
    let hoisted = ["$defs", "definitions", "%24defs"]
        .iter()
        .any(|defs| rest == *defs || rest.strip_prefix(defs).is_some_and(|r| r.starts_with('/')));
    if hoisted {
        return None;
    }
    Some(format!("{base}/{rest}"))
}

/// The JSON pointer of a member of the schema at `path`.
fn child_path(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 1);
    out.push_str(path);
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

/// Where a schema position is, for messages.
fn place(path: &str) -> String {
    if path.is_empty() {
        "the schema's root".to_owned()
    } else {
        format!("`{path}`")
    }
}

/// A JSON value's kind in words, for messages: `a number`, `an object`.
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

//! The JSON Schema dialect of Gemini's `generationConfig.responseJsonSchema`: what converts, what
//! is refused before sending.
//!
//! Gemini's structured output takes a subset of JSON Schema (ai.google.dev/gemini-api/docs/
//! structured-output, "JSON schema support"; googleapis/python-genai `types.py`,
//! `GenerateContentConfig.response_json_schema`, August 2026): `type` (with `"null"` in a type
//! array), `title`, `description`, `properties`, `required`, `additionalProperties`, `enum` (for
//! strings and numbers), `format`, `minimum`, `maximum`, `items`, `prefixItems`, `minItems`,
//! `maxItems`, `anyOf`, `oneOf` (read as `anyOf`), `$id`, `$defs`, `$ref`, `$anchor` and
//! `propertyOrdering`. "The model ignores unsupported properties" (`pattern`, `minLength`, `not`,
//! `allOf`, ...): they are sent as they are, and every reply is verified here anyway. Two rules are
//! enforced by the API: "If `$ref` is set on a sub-schema, no other properties, except for those
//! starting as a `$`, may be set" (its 400 reads "only description and default can be set alongside
//! it"), and "Cyclic references are unrolled to a limited degree and, as such, may only be used
//! within non-required properties. (Nullable properties are not sufficient.)"
//!
//! So, before sending:
//! - `const` of a string or number becomes a one-value `enum`, and `const: null` becomes
//!   `type: "null"` (a `const` Gemini would drop keeps its meaning);
//! - an `enum` listing `null` becomes `anyOf` of the other values and `{"type": "null"}`;
//! - a `type` array of two or more non-null types becomes `anyOf` of one branch per type;
//! - a `$ref` with other keywords beside it moves into `anyOf: [{"$ref": ..}]`, the keywords
//!   staying on the node (the same meaning, in a form Gemini takes);
//!
//! and these are refused, with the JSON pointer of the node:
//! - an `enum` value that is not a string, a number or null;
//! - a node that would need an `anyOf` of its own (a `$ref` with keywords, an `enum` with null, a
//!   type array) but already has `anyOf` or `oneOf`, or a `$ref` beside an `enum` or type array;
//! - a reference cycle through required members only (properties in `required`, items, branches);
//! - a schema nested deeper than [`MAX_DEPTH`] levels.
//!
//! The strict schemas of derived types are sent unchanged, without a copy, but for a nullable unit
//! enum, whose `enum` lists `null` (the form OpenAI's strict mode needs): it becomes `anyOf`. The
//! walk is written here because it is Gemini's dialect alone.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::schema::kind_of;

/// The deepest nesting of schemas walked (the same limit `serde_json` puts on text it parses).
pub(crate) const MAX_DEPTH: usize = 128;

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];
/// Keywords whose value is an array of subschemas.
const MANY: &[&str] = &["prefixItems", "anyOf", "oneOf", "allOf"];
/// Keywords whose value maps names to subschemas.
const NAMED: &[&str] = &["properties", "patternProperties", "$defs", "definitions"];
/// Keywords that describe a node and stay on it when it is split into `anyOf` branches.
const ANNOTATIONS: &[&str] = &["title", "description"];

/// Why a schema cannot be sent to Gemini: the node's JSON pointer and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The JSON pointer of the node (empty for the root).
    pub(crate) pointer: String,
    /// What is wrong, in words.
    pub(crate) reason: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "the root"
        } else {
            &self.pointer
        };
        write!(f, "{} (at {at})", self.reason)
    }
}

/// The schema to send as `responseJsonSchema`: the schema itself when Gemini takes it as it is,
/// else a converted copy.
///
/// # Errors
///
/// A [`Refusal`] for what Gemini rejects and no conversion keeps (see the module docs).
pub(crate) fn prepare(schema: &Value) -> Result<Cow<'_, Value>, Refusal> {
    let mut found = Found::default();
    check(schema, 0, &mut found)?;
    if found.has_refs {
        check_ref_cycles(schema)?;
    }
    if !found.needs_conversion {
        return Ok(Cow::Borrowed(schema));
    }
    let mut converted = schema.clone();
    convert(&mut converted);
    Ok(Cow::Owned(converted))
}

/// What the read-only walk found.
#[derive(Default)]
struct Found {
    needs_conversion: bool,
    has_refs: bool,
}

/// The read-only walk: refusals, and whether any node needs converting. The pointer of a refusal
/// is built on the way out, so a schema that passes costs no allocation.
fn check(node: &Value, depth: usize, found: &mut Found) -> Result<(), Refusal> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    let refuse = |reason: String| Refusal {
        pointer: String::new(),
        reason,
    };
    if depth > MAX_DEPTH {
        return Err(refuse(format!(
            "the schema is nested deeper than {MAX_DEPTH} levels"
        )));
    }
    found.needs_conversion |= node_needs_conversion(map).map_err(refuse)?;
    found.has_refs |= map.contains_key("$ref");
    for (key, value) in map {
        let key = key.as_str();
        let items: &[Value] = if MANY.contains(&key) {
            value.as_array().map(Vec::as_slice).unwrap_or_default()
        } else if ONE.contains(&key) {
            match value {
                // `items` as an array is the older tuple form.
                Value::Array(items) => items,
                one => {
                    check(one, depth + 1, found).map_err(|r| r.under(key, None))?;
                    continue;
                }
            }
        } else if NAMED.contains(&key) {
            for (name, child) in value.as_object().into_iter().flatten() {
                check(child, depth + 1, found).map_err(|r| r.under(key, Some(name)))?;
            }
            continue;
        } else {
            continue;
        };
        for (i, child) in items.iter().enumerate() {
            check(child, depth + 1, found).map_err(|r| r.under(key, Some(&i.to_string())))?;
        }
    }
    Ok(())
}

impl Refusal {
    /// The same refusal, for the node at `key` (and `name` or index under it) below its parent.
    fn under(mut self, key: &str, name: Option<&str>) -> Refusal {
        let mut pointer = String::new();
        push_segment(&mut pointer, key);
        if let Some(name) = name {
            push_segment(&mut pointer, name);
        }
        pointer.push_str(&self.pointer);
        self.pointer = pointer;
        self
    }
}

/// Whether a node needs converting (from its own keywords, not its children's), or why it cannot
/// be sent.
fn node_needs_conversion(map: &Map<String, Value>) -> Result<bool, String> {
    let mut convert = matches!(
        map.get("const"),
        Some(Value::String(_) | Value::Number(_) | Value::Null)
    );
    let mut enum_has_null = false;
    if let Some(Value::Array(values)) = map.get("enum") {
        for (i, value) in values.iter().enumerate() {
            match value {
                Value::String(_) | Value::Number(_) => {}
                Value::Null => enum_has_null = true,
                other => {
                    return Err(format!(
                        "Gemini takes enum values that are strings or numbers; enum[{i}] is {}",
                        kind_of(other)
                    ))
                }
            }
        }
    }
    let has_union = map.contains_key("anyOf") || map.contains_key("oneOf");
    if map.contains_key("$ref") && map.keys().any(|k| !k.starts_with('$')) {
        if has_union
            || map.contains_key("enum")
            || map.contains_key("const")
            || map.get("type").is_some_and(Value::is_array)
        {
            return Err("Gemini takes a $ref with no other keywords beside it, and this one has keywords that cannot move aside with it (anyOf, oneOf, enum, const or a type array)".to_owned());
        }
        convert = true;
    }
    if enum_has_null || non_null_types(map) >= 2 {
        if has_union {
            return Err("this node needs an anyOf of its own for Gemini (an enum with null, or several types) but already has anyOf or oneOf".to_owned());
        }
        convert = true;
    }
    Ok(convert)
}

/// How many types other than `"null"` a `type` array names (0 for a single type).
fn non_null_types(map: &Map<String, Value>) -> usize {
    match map.get("type") {
        Some(Value::Array(types)) => types.iter().filter(|t| t.as_str() != Some("null")).count(),
        _ => 0,
    }
}

/// Appends one JSON-pointer segment, escaped (RFC 6901).
fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Converts every node that needs it, in place (after [`check`] found no refusal).
fn convert(node: &mut Value) {
    let Value::Object(map) = node else {
        return;
    };
    convert_const(map);
    if let Some(reference) = map
        .contains_key("$ref")
        .then(|| map.keys().any(|k| !k.starts_with('$')))
        .filter(|&siblings| siblings)
        .and_then(|_| map.remove("$ref"))
    {
        map.insert(
            "anyOf".to_owned(),
            Value::Array(vec![Value::Object(Map::from_iter([(
                "$ref".to_owned(),
                reference,
            )]))]),
        );
    }
    split_null_enum(map);
    split_types(map);
    for_each_child_mut(map, convert);
}

fn convert_const(map: &mut Map<String, Value>) {
    match map.get("const") {
        Some(Value::String(_) | Value::Number(_)) => {
            if let Some(value) = map.remove("const") {
                map.insert("enum".to_owned(), Value::Array(vec![value]));
            }
        }
        Some(Value::Null) => {
            map.remove("const");
            map.insert("type".to_owned(), Value::String("null".to_owned()));
        }
        _ => {}
    }
}

/// `{"type": ["string", "null"], "enum": ["a", null]}` becomes `{"anyOf": [{"type": "string",
/// "enum": ["a"]}, {"type": "null"}]}`.
fn split_null_enum(map: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = map.get_mut("enum") else {
        return;
    };
    if !values.iter().any(Value::is_null) {
        return;
    }
    values.retain(|v| !v.is_null());
    if values.is_empty() {
        map.remove("enum");
        map.insert("type".to_owned(), Value::String("null".to_owned()));
        return;
    }
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t.as_str() != Some("null"));
        if types.len() == 1 {
            let single = types.remove(0);
            map.insert("type".to_owned(), single);
        }
    }
    let branch = take_branch(map);
    map.insert(
        "anyOf".to_owned(),
        Value::Array(vec![Value::Object(branch), null_schema()]),
    );
}

/// `{"type": ["string", "integer", "null"], ...}` becomes `{"anyOf": [{"type": "string", ...},
/// {"type": "integer", ...}, {"type": "null"}]}`: each branch keeps every keyword (those of other
/// types do not apply to it).
fn split_types(map: &mut Map<String, Value>) {
    if non_null_types(map) < 2 {
        return;
    }
    let Some(Value::Array(types)) = map.remove("type") else {
        return;
    };
    let rest = take_branch(map);
    let mut branches = Vec::with_capacity(types.len());
    let mut nullable = false;
    for kind in types {
        if kind.as_str() == Some("null") {
            nullable = true;
            continue;
        }
        let mut branch = rest.clone();
        branch.insert("type".to_owned(), kind);
        branches.push(Value::Object(branch));
    }
    if nullable {
        branches.push(null_schema());
    }
    map.insert("anyOf".to_owned(), Value::Array(branches));
}

/// Moves every keyword but the annotations and the `$` keywords out of `map`, into a branch.
fn take_branch(map: &mut Map<String, Value>) -> Map<String, Value> {
    let keys: Vec<String> = map
        .keys()
        .filter(|k| !k.starts_with('$') && !ANNOTATIONS.contains(&k.as_str()))
        .cloned()
        .collect();
    keys.into_iter()
        .filter_map(|k| map.remove(&k).map(|v| (k, v)))
        .collect()
}

fn null_schema() -> Value {
    Value::Object(Map::from_iter([(
        "type".to_owned(),
        Value::String("null".to_owned()),
    )]))
}

fn for_each_child_mut(map: &mut Map<String, Value>, mut visit: impl FnMut(&mut Value)) {
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if ONE.contains(&key) {
            match value {
                Value::Array(items) => items.iter_mut().for_each(&mut visit),
                other => visit(other),
            }
        } else if MANY.contains(&key) {
            if let Value::Array(items) = value {
                items.iter_mut().for_each(&mut visit);
            }
        } else if NAMED.contains(&key) {
            if let Value::Object(named) = value {
                named.values_mut().for_each(&mut visit);
            }
        }
    }
}

/// Refuses a reference cycle that passes through required members only: Gemini unrolls a
/// recursive reference only where an optional property can end it.
fn check_ref_cycles(root: &Value) -> Result<(), Refusal> {
    // The references each target reaches through required members, computed once per target.
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut start = Vec::new();
    required_refs(root, 0, &mut start);
    // Depth-first search with an explicit stack: 1 = on the current path, 2 = done.
    let mut state: HashMap<&str, u8> = HashMap::new();
    let mut stack: Vec<(&str, usize)> = Vec::new();
    for &first in &start {
        if state.contains_key(first) {
            continue;
        }
        state.insert(first, 1);
        stack.push((first, 0));
        while let Some(top) = stack.last_mut() {
            let (reference, next) = *top;
            top.1 += 1;
            let targets = edges.entry(reference).or_insert_with(|| {
                let mut found = Vec::new();
                if let Some(target) = resolve(root, reference) {
                    required_refs(target, 0, &mut found);
                }
                found
            });
            match targets.get(next).copied() {
                Some(target) => match state.get(target) {
                    Some(1) => {
                        return Err(Refusal {
                            pointer: target.strip_prefix('#').unwrap_or(target).to_owned(),
                            reason: format!(
                                "the reference {target:?} refers back to itself through required members only; Gemini unrolls a recursive reference only through an optional property (a nullable one is not enough), so a strict schema that recurses this way cannot be sent to it"
                            ),
                        })
                    }
                    Some(_) => {}
                    None => {
                        state.insert(target, 1);
                        stack.push((target, 0));
                    }
                },
                None => {
                    state.insert(reference, 2);
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}

/// The `$ref`s a node reaches through required members (properties listed in `required`, items,
/// prefix items and every branch), not following references.
fn required_refs<'v>(node: &'v Value, depth: usize, out: &mut Vec<&'v str>) {
    let Value::Object(map) = node else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        out.push(reference);
    }
    if let (Some(Value::Object(properties)), Some(Value::Array(required))) =
        (map.get("properties"), map.get("required"))
    {
        for name in required.iter().filter_map(Value::as_str) {
            if let Some(property) = properties.get(name) {
                required_refs(property, depth + 1, out);
            }
        }
    }
    match map.get("items") {
        Some(Value::Array(items)) => items.iter().for_each(|i| required_refs(i, depth + 1, out)),
        Some(item) => required_refs(item, depth + 1, out),
        None => {}
    }
    for key in MANY {
        for branch in map
            .get(*key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            required_refs(branch, depth + 1, out);
        }
    }
}

/// The node a local reference (`#` or `#/json/pointer`) names; `None` for anchors and external
/// references, which are not followed.
fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    match reference.strip_prefix('#')? {
        "" => Some(root),
        pointer if pointer.starts_with('/') => root.pointer(pointer),
        _ => None,
    }
}

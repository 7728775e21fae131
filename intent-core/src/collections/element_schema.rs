//! `map_each` and `map_values` of `serde_json::Value` with an `output_schema`: the schema is each
//! element's, compiled once per call (or taken from the cache of compiled schemas) and verified
//! in full on every element (the verifier of `client.transform`, [`RuntimeSchema`]), and each
//! chunk is sent a strict schema of its own
//! answer (the list of `{"index", "value"}` or the object of one member per key) whose element is
//! the element's schema, placed once under `$defs` and referred to.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::call::Mode;
use crate::options::AiRequestOptions;
use crate::read::RuntimeSchema;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::{relocate, ENVELOPE_PROPERTY};
use crate::shape::Seg;

/// The name under `$defs` of the element's schema in a chunk's schema.
const ELEMENT: &str = "intent_element";

/// An element's runtime schema, ready for every chunk of a call.
#[derive(Debug)]
pub(super) struct ElementSchema {
    compiled: Arc<RuntimeSchema>,
    /// The chunk schema's `$defs` (and `definitions`): the element's schema under [`ELEMENT`]
    /// (its references rewritten to reach it there) and the definitions it refers to.
    definitions: Map<String, Value>,
    /// The name of the element's schema under `$defs`.
    name: String,
    /// The constraints its strict copy drops, worded for the element's place in the answer.
    lines: Vec<String>,
}

impl ElementSchema {
    /// The element schema of a call whose options carry an `output_schema` for elements that are
    /// JSON (`json_elements`), or why it cannot be used (then no chunk is sent); `None` without
    /// an `output_schema`, or for typed elements, whose chunks the plan refuses with its own
    /// message.
    pub(super) fn of(
        options: &AiRequestOptions,
        mode: Mode,
        json_elements: bool,
    ) -> Option<Result<ElementSchema, ResultIssue>> {
        let source = options.output_schema.as_ref().filter(|_| json_elements)?;
        let refused = |message: String| {
            ResultIssue::new(IssueKind::Request, format!("{message}; nothing was sent"))
        };
        Some((|| {
            let compiled = RuntimeSchema::shared(source).map_err(|f| refused(f.to_string()))?;
            let mut definitions = Map::new();
            let mut name = ELEMENT.to_owned();
            // Placed under `$defs` at a name its own definitions do not take.
            let (element, hoisted) = loop {
                let base = format!("#/$defs/{name}");
                let (element, hoisted) =
                    relocate(source, &base).map_err(|e| refused(e.to_string()))?;
                let taken = hoisted
                    .get("$defs")
                    .and_then(Value::as_object)
                    .is_some_and(|defs| defs.contains_key(&name));
                if !taken {
                    break (element, hoisted);
                }
                name.insert(0, '_');
            };
            for (keyword, defs) in hoisted {
                definitions.insert(keyword, defs);
            }
            let defs = definitions
                .entry("$defs")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(defs) = defs {
                defs.insert(name.clone(), element);
            }
            let at = match mode {
                Mode::Each => vec![Seg::Each, Seg::Member(ENVELOPE_PROPERTY.to_owned())],
                Mode::Keyed => vec![Seg::EachValue],
            };
            let lines = compiled.constraint_lines_at(at);
            Ok(ElementSchema {
                compiled,
                definitions,
                name,
                lines,
            })
        })())
    }

    /// The compiled schema every element is verified against.
    pub(super) fn compiled(&self) -> &Arc<RuntimeSchema> {
        &self.compiled
    }

    /// Sets a chunk's options: its answer's schema (one element per input of `keys` for
    /// `map_values`, a list for `map_each`) as the `output_schema`, and the element's
    /// constraints among the rule lines.
    pub(super) fn prepare(&self, options: &mut AiRequestOptions, mode: Mode, keys: &[String]) {
        let element = json!({ "$ref": format!("#/$defs/{}", self.name) });
        let mut answer = match mode {
            Mode::Each => json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"index": {"type": "integer"}, ENVELOPE_PROPERTY: element},
                    "required": ["index", ENVELOPE_PROPERTY],
                    "additionalProperties": false,
                },
            }),
            Mode::Keyed => {
                let properties: Map<String, Value> = keys
                    .iter()
                    .map(|key| (key.clone(), element.clone()))
                    .collect();
                json!({
                    "type": "object",
                    "properties": properties,
                    "required": keys,
                    "additionalProperties": false,
                })
            }
        };
        if let Value::Object(map) = &mut answer {
            map.extend(self.definitions.clone());
        }
        options.output_schema = Some(answer);
        for line in &self.lines {
            if !options.rule_lines.contains(line) {
                options.rule_lines.push(line.clone());
            }
        }
    }
}

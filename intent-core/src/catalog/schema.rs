//! Intents whose shape is a JSON Schema: the schema checked when the file is loaded, compiled
//! once into the verifier every runtime schema goes through ([`RuntimeSchema`], whose docs say
//! what it checks and states), and its findings as issues.

use std::sync::Arc;

use serde_json::Value;

use crate::read::RuntimeSchema;
use crate::result::ResultIssue;
use crate::schema::build_envelope_from_schema;

/// A JSON Schema shape, checked and compiled.
#[derive(Debug)]
pub(crate) struct SchemaShape {
    pub(crate) compiled: Arc<RuntimeSchema>,
}

impl SchemaShape {
    /// Checks the schema (against its meta-schema, and that it can be sent strict) and compiles it.
    pub(crate) fn compile(schema: Value) -> Result<SchemaShape, String> {
        if !schema.is_object() {
            return Err("`shape` must be a type name or a JSON Schema object".to_owned());
        }
        let compiled = RuntimeSchema::shared(&schema).map_err(|fault| {
            if fault.place.is_empty() {
                format!("`shape` is not a valid JSON Schema: {}", fault.message)
            } else {
                format!(
                    "`shape` is not a valid JSON Schema: at {}: {}",
                    fault.place, fault.message
                )
            }
        })?;
        build_envelope_from_schema(&schema)
            .map_err(|e| format!("`shape` cannot be sent as a strict schema: {e}"))?;
        Ok(SchemaShape { compiled })
    }

    /// The schema as the file writes it.
    pub(crate) fn schema(&self) -> &Value {
        self.compiled.source()
    }

    /// Every way `value` (the reply's value) breaks the full schema, each at its pointer under
    /// `/value`: at most [`MAX_FINDINGS`](crate::read::MAX_FINDINGS) issues, the last counting the
    /// rest, as the reader bounds its own.
    pub(crate) fn check(&self, value: &Value, out: &mut Vec<ResultIssue>) {
        out.extend(self.compiled.check(value));
    }

    /// The schema's constraints that the strict copy drops, as rule lines for the prompt.
    pub(crate) fn constraint_lines(&self) -> Vec<String> {
        self.compiled.constraint_lines()
    }
}

//! Intents whose shape is a JSON Schema: the validator of the full schema, its findings as issues,
//! and the constraints the strict copy drops, stated to the model.

use jsonschema::error::ValidationErrorKind;
use jsonschema::Validator;
use serde_json::Value;

use super::path::Step;
use super::rules::number;
use crate::read;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::build_envelope_from_schema;
use crate::shape::{plural, rule_line};

/// How deep the schema is walked for constraints to state.
const MAX_STATED_DEPTH: usize = 32;

/// A JSON Schema shape, checked and compiled.
pub(crate) struct SchemaShape {
    pub(crate) schema: Value,
    pub(crate) validator: Validator,
}

impl std::fmt::Debug for SchemaShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaShape")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl SchemaShape {
    /// Checks the schema (against its meta-schema, and that it can be sent strict) and compiles it.
    pub(crate) fn compile(schema: Value) -> Result<SchemaShape, String> {
        if !schema.is_object() {
            return Err("`shape` must be a type name or a JSON Schema object".to_owned());
        }
        let validator = jsonschema::validator_for(&schema).map_err(|e| {
            let at = e.instance_path().as_str().to_owned();
            if at.is_empty() {
                format!("`shape` is not a valid JSON Schema: {e}")
            } else {
                format!("`shape` is not a valid JSON Schema: at {at}: {e}")
            }
        })?;
        build_envelope_from_schema(&schema)
            .map_err(|e| format!("`shape` cannot be sent as a strict schema: {e}"))?;
        Ok(SchemaShape { schema, validator })
    }

    /// Every way `value` (the reply's value) breaks the full schema, each at its pointer under
    /// `/value`: at most [`MAX_FINDINGS`](crate::read::MAX_FINDINGS) issues, the last counting the
    /// rest, as the reader bounds its own.
    pub(crate) fn check(&self, value: &Value, out: &mut Vec<ResultIssue>) {
        let mut findings = read::Findings::new();
        for error in self.validator.iter_errors(value) {
            if findings.total() >= read::MAX_FINDINGS {
                // Counted, not formatted: a reply may break the schema a million times.
                findings.count_more(1);
                continue;
            }
            let kind = match error.kind() {
                ValidationErrorKind::Minimum { .. }
                | ValidationErrorKind::Maximum { .. }
                | ValidationErrorKind::ExclusiveMinimum { .. }
                | ValidationErrorKind::ExclusiveMaximum { .. }
                | ValidationErrorKind::MultipleOf { .. }
                | ValidationErrorKind::MinLength { .. }
                | ValidationErrorKind::MaxLength { .. }
                | ValidationErrorKind::Pattern { .. }
                | ValidationErrorKind::MinItems { .. }
                | ValidationErrorKind::MaxItems { .. }
                | ValidationErrorKind::UniqueItems
                | ValidationErrorKind::Enum { .. }
                | ValidationErrorKind::Constant { .. }
                | ValidationErrorKind::Format { .. } => IssueKind::Rule,
                _ => IssueKind::Shape,
            };
            let pointer = format!("/value{}", error.instance_path().as_str());
            findings.push(ResultIssue::at(pointer, kind, sentence(&error.to_string())));
        }
        out.extend(findings.into_issues());
    }

    /// The schema's constraints that the strict copy drops, as rule lines for the prompt.
    pub(crate) fn constraint_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        stated(&self.schema, &mut Vec::new(), 0, &mut out);
        out
    }
}

fn sentence(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 1);
    let mut chars = message.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

fn stated(node: &Value, path: &mut Vec<Step>, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_STATED_DEPTH {
        return;
    }
    let Value::Object(map) = node else {
        return;
    };
    let mut words = Vec::new();
    let num = |key: &str| map.get(key).and_then(Value::as_f64);
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    if let Some(v) = num("minimum") {
        words.push(format!("at least {}", number(v)));
    }
    if let Some(v) = num("exclusiveMinimum") {
        words.push(format!("greater than {}", number(v)));
    }
    if let Some(v) = num("maximum") {
        words.push(format!("at most {}", number(v)));
    }
    if let Some(v) = num("exclusiveMaximum") {
        words.push(format!("less than {}", number(v)));
    }
    if let Some(v) = num("multipleOf") {
        words.push(format!("a multiple of {}", number(v)));
    }
    if let Some(v) = count("minLength") {
        words.push(format!("at least {v} {}", plural(v, "character")));
    }
    if let Some(v) = count("maxLength") {
        words.push(format!("at most {v} {}", plural(v, "character")));
    }
    if let Some(p) = map.get("pattern").and_then(Value::as_str) {
        words.push(format!("matching the regular expression {p}"));
    }
    if let Some(v) = count("minItems") {
        words.push(format!("at least {v} {}", plural(v, "element")));
    }
    if let Some(v) = count("maxItems") {
        words.push(format!("at most {v} {}", plural(v, "element")));
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        words.push("no two elements equal".to_owned());
    }
    if !words.is_empty() {
        let nullable = match map.get("type") {
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => false,
        };
        let steps = Step::member_steps(path);
        out.push(rule_line(&steps, nullable, &words));
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (key, child) in properties {
            path.push(Step::Member(key.clone()));
            stated(child, path, depth + 1, out);
            path.pop();
        }
    }
    if let Some(items) = map.get("items") {
        path.push(Step::Items);
        stated(items, path, depth + 1, out);
        path.pop();
    }
}

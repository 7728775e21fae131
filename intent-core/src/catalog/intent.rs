//! One intent of a catalog: compiled and checked from its file, and checked against a Rust type.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::error::CatalogError;
use super::file::{self, RawExample, RawIntent};
use super::resolve;
use super::rules::MemberRule;
use super::schema::SchemaShape;
use super::shape::{Shape, TEXT_SHAPE};
use super::test_case::{self, IntentTest};
use crate::intent::Intent;
use crate::options::{AiRequestOptions, IntentExample};
use crate::result::ResultIssue;
use crate::schema::ENVELOPE_PROPERTY;
use crate::trust::{Grounded, Grounds};

/// What an intent's answer is: a Rust type, by its name, or a JSON Schema.
///
/// ```
/// use intent_core::catalog::{Catalog, IntentShape};
///
/// let catalog = Catalog::parse(
///     "inline.yaml",
///     "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n",
/// )
/// .unwrap();
/// assert_eq!(catalog.get("count").unwrap().shape(), IntentShape::TypeName("uint"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IntentShape<'a> {
    /// The name of the Rust type the caller asks for: its label (`PurchaseRequest`, `List<Line>`,
    /// `string`, `uint`), as [`Intent::describe`] writes it on its first line.
    TypeName(&'a str),
    /// An inline JSON Schema.
    Schema(&'a Value),
}

/// One intent of a [`Catalog`](super::Catalog): the instruction, the shape, the rules and the
/// request options read from its file.
///
/// ```
/// use intent_core::catalog::Catalog;
///
/// let catalog = Catalog::parse(
///     "inline.yaml",
///     "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n    maxOutputTokens: 20\n",
/// )
/// .unwrap();
/// let count = catalog.get("count").unwrap();
/// assert_eq!(count.intent(), "Count the letters.");
/// assert_eq!(count.options().max_output_tokens, Some(20));
/// ```
#[derive(Debug)]
pub struct CatalogIntent {
    pub(crate) name: String,
    pub(crate) intent: String,
    pub(crate) shape: Shape,
    pub(crate) rules: Vec<MemberRule>,
    /// The members the file's rules say must come from the input (`from_input: true`).
    pub(crate) grounded: Grounded<'static>,
    pub(crate) options: AiRequestOptions,
    /// The examples' outputs as reply values (inside the envelope), for checking against a type.
    example_values: Vec<Value>,
    /// The file's tests of this intent, run by `intent test`.
    tests: Vec<IntentTest>,
    pub(crate) file: PathBuf,
    pub(crate) line: Option<usize>,
    /// The verdict of each Rust type this intent was run or checked with, by type name.
    verified: Mutex<HashMap<&'static str, Result<(), CatalogError>>>,
}

impl CatalogIntent {
    /// The intent's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The instruction for the model.
    pub fn intent(&self) -> &str {
        &self.intent
    }

    /// What the answer is.
    pub fn shape(&self) -> IntentShape<'_> {
        match &self.shape {
            Shape::Named(name) => IntentShape::TypeName(name),
            Shape::Schema(schema) => IntentShape::Schema(schema.schema()),
        }
    }

    /// The request options the file sets: examples, descriptions, token limit, model, provider,
    /// the rules as the prompt states them (`rule_lines`) and, for a schema shape, `output_schema`.
    pub fn options(&self) -> &AiRequestOptions {
        &self.options
    }

    /// The file the intent is defined in.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The line of the intent's `name`, when it could be found.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The intent's tests, as its file writes them under `tests` (see
    /// [`IntentTest`](super::IntentTest)).
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    ///
    /// let catalog = Catalog::parse("c.yaml", "intents:\n  - name: count\n    intent: Count.\n    shape: uint\n    tests:\n      - input: a, b\n        expected: 2\n")?;
    /// assert_eq!(catalog.get("count").unwrap().tests()[0].line(), Some(6));
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn tests(&self) -> &[IntentTest] {
        &self.tests
    }

    /// Every way `value` (one answer's value) breaks the intent: its JSON Schema in full, for a
    /// schema shape, and the file's rules; each issue at its path under `/value`. This is what
    /// [`Catalog::run_json`](super::Catalog::run_json) checks on a reply, for values got another
    /// way (each element of a collection, say).
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    ///
    /// let catalog = Catalog::parse("c.yaml", "intents:\n  - name: stars\n    intent: Rate it.\n    shape: { type: integer, minimum: 1, maximum: 5 }\n")?;
    /// let stars = catalog.get("stars").unwrap();
    /// assert!(stars.check_value(&serde_json::json!(4)).is_empty());
    /// assert_eq!(stars.check_value(&serde_json::json!(9))[0].path.as_deref(), Some("/value"));
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn check_value(&self, value: &Value) -> Vec<ResultIssue> {
        let mut issues = Vec::new();
        if let Shape::Schema(schema) = &self.shape {
            schema.check(value, &mut issues);
        }
        self.check_rules(value, &mut issues);
        issues
    }

    /// The issues of every file rule that `value` (a reply's value) breaks.
    pub(crate) fn check_rules(&self, value: &Value, out: &mut Vec<ResultIssue>) {
        for rule in &self.rules {
            rule.check(value, out);
        }
    }

    /// The input of `call`, looked up by the members that must come from it: `None` when the
    /// file's rules name none (or the input was refused: the call then fails before sending).
    pub(crate) fn grounds_of<T>(&self, call: &crate::call::AiCall<'_, T>) -> Option<Grounds> {
        if self.grounded.is_empty() {
            return None;
        }
        call.input.as_ref().ok().map(Grounds::of)
    }

    /// The issues of every member that must come from the input and that `value` (a reply's
    /// value) gives with a value `grounds` does not hold.
    pub(crate) fn check_grounded(
        &self,
        value: &Value,
        grounds: Option<&Grounds>,
        out: &mut Vec<ResultIssue>,
    ) {
        if let Some(grounds) = grounds {
            out.extend(self.grounded.check(value, grounds));
        }
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> CatalogError {
        CatalogError::new(&self.file, message)
            .with_intent(&self.name)
            .with_line(self.line)
    }

    /// Checks, once per type, that `T` is the type the file names, that every rule's path is a
    /// member of `T` of the right kind, and that every example's output reads as a `T`.
    pub(crate) fn verify<T: Intent>(&self) -> Result<(), CatalogError> {
        let key = std::any::type_name::<T>();
        let mut verified = self
            .verified
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(verdict) = verified.get(key) {
            return verdict.clone();
        }
        let verdict = self.verify_uncached::<T>(key);
        verified.insert(key, verdict.clone());
        verdict
    }

    fn verify_uncached<T: Intent>(&self, type_name: &str) -> Result<(), CatalogError> {
        let named = match &self.shape {
            Shape::Named(name) => name,
            Shape::Schema(_) => {
                return Err(self.error(
                    "its shape is a JSON Schema, so it answers with JSON: run it with `run_json`, not `run::<T>`",
                ))
            }
        };
        let info = T::type_info();
        let graph = info.graph();
        let label = graph.label(info.root());
        if &label != named {
            return Err(self.error(format!(
                "the file names the shape `{named}`, but it was run with `{label}` ({type_name}); run it with the type the file names, or change the file's `shape`"
            )));
        }
        for rule in &self.rules {
            resolve::check_on_type(graph, info.root(), rule).map_err(|m| self.error(m))?;
        }
        for (i, value) in self.example_values.iter().enumerate() {
            if let Err(e) = serde_path_to_error::deserialize::<_, T>(value.clone()) {
                let at = e.path().to_string();
                let at = if at == "." {
                    String::new()
                } else {
                    format!(" at `{at}`")
                };
                return Err(self.error(format!(
                    "example {}: the output does not read as `{label}`{at}: {}",
                    i + 1,
                    e.inner()
                )));
            }
        }
        test_case::check_on_type::<T>(&self.tests, graph, info.root(), &label)
            .map_err(|(line, m)| self.error(m).with_line(line.or(self.line)))?;
        Ok(())
    }
}

/// Compiles and checks one intent as written in `path`, whose text is `text`.
pub(crate) fn compile(
    path: &Path,
    text: &str,
    raw: RawIntent,
) -> Result<CatalogIntent, CatalogError> {
    let name = raw.name.trim().to_owned();
    if name.is_empty() {
        let line = file::line_of_intent(text, &raw.name);
        return Err(CatalogError::new(
            path,
            "an intent has an empty `name`; give every intent a name",
        )
        .with_line(line));
    }
    let line = file::line_of_intent(text, &name);
    let fail = |needle: Option<&str>, nth: usize, message: String| {
        let line = match needle {
            Some(needle) => file::nth_line_in_intent(text, &name, needle, nth),
            None => line,
        };
        CatalogError::new(path, message)
            .with_intent(&name)
            .with_line(line)
    };
    let intent = raw.intent.trim().to_owned();
    if intent.is_empty() {
        return Err(fail(
            Some("intent"),
            0,
            "`intent` is empty; write the instruction for the model".to_owned(),
        ));
    }
    let shape = match raw.shape {
        Value::String(type_name) if !type_name.trim().is_empty() => {
            Shape::Named(type_name.trim().to_owned())
        }
        Value::String(_) => {
            return Err(fail(
                Some("shape"),
                0,
                "`shape` is empty; name the Rust type (its label, e.g. `PurchaseRequest`) or write a JSON Schema".to_owned(),
            ))
        }
        Value::Object(_) => Shape::Schema(Box::new(
            SchemaShape::compile(raw.shape).map_err(|m| fail(Some("shape"), 0, m))?,
        )),
        other => {
            return Err(fail(
                Some("shape"),
                0,
                format!(
                    "`shape` must be a type name or a JSON Schema object, not {}",
                    crate::schema::kind_of(&other)
                ),
            ))
        }
    };
    let mut rules = Vec::with_capacity(raw.rules.len());
    for (at, raw_rules) in raw.rules {
        let rule = MemberRule::compile(&at, raw_rules).map_err(|m| fail(Some(&at), 0, m))?;
        if let Shape::Schema(schema) = &shape {
            resolve::check_on_schema(schema.schema(), &rule).map_err(|m| fail(Some(&at), 0, m))?;
        }
        rules.push(rule);
    }
    if raw.max_output_tokens == Some(0) {
        return Err(fail(
            Some("maxOutputTokens"),
            0,
            "`maxOutputTokens` must be at least 1".to_owned(),
        ));
    }
    if let Some(t) = raw.temperature.filter(|t| !(0.0..=2.0).contains(t)) {
        return Err(fail(
            Some("temperature"),
            0,
            format!("`temperature` must be between 0 and 2; the file sets {t}"),
        ));
    }

    let mut examples = Vec::with_capacity(raw.examples.len());
    let mut example_values = Vec::with_capacity(raw.examples.len());
    for (i, RawExample { input, output }) in raw.examples.into_iter().enumerate() {
        let fail_example =
            |message: String| fail(Some("output"), i, format!("example {}: {message}", i + 1));
        let input = as_text(input);
        let output = as_text(output);
        let value = example_value(&shape, &output).map_err(fail_example)?;
        let mut issues = Vec::new();
        if let Shape::Schema(schema) = &shape {
            schema.check(&value, &mut issues);
            if !issues.is_empty() {
                return Err(fail_example(format!(
                    "the output does not fit the shape: {}",
                    joined(&issues)
                )));
            }
        }
        for rule in &rules {
            rule.check(&value, &mut issues);
        }
        if !issues.is_empty() {
            return Err(fail_example(format!(
                "the output breaks a rule: {}",
                joined(&issues)
            )));
        }
        examples.push(IntentExample::new(input, output));
        example_values.push(value);
    }

    let mut tests = test_case::compile(raw.tests, &shape, &rules).map_err(|(i, m)| {
        CatalogError::new(path, m)
            .with_intent(&name)
            .with_line(file::line_of_test(text, &name, i))
    })?;
    for (i, test) in tests.iter_mut().enumerate() {
        test.line = file::line_of_test(text, &name, i);
    }

    let mut rule_lines = Vec::new();
    let mut output_schema = None;
    if let Shape::Schema(schema) = &shape {
        rule_lines.extend(schema.constraint_lines());
        output_schema = Some(schema.schema().clone());
    }
    rule_lines.extend(rules.iter().map(MemberRule::line));
    let options = AiRequestOptions {
        expected_output_description: raw.expected_output_description,
        system_instructions: raw.system_instructions,
        examples,
        max_output_tokens: raw.max_output_tokens,
        temperature: raw.temperature,
        model: raw.model,
        provider: raw.provider,
        output_schema,
        rule_lines,
        answer_checks: raw
            .answer_checks
            .as_ref()
            .map(file::RawAnswerChecks::checks),
        ..AiRequestOptions::default()
    };
    let mut grounded = Grounded::default();
    for rule in rules.iter().filter(|r| r.rules.from_input) {
        grounded.add(rule.path.segs(), false);
    }
    Ok(CatalogIntent {
        name,
        intent,
        shape,
        rules,
        grounded,
        options,
        example_values,
        tests,
        file: path.to_path_buf(),
        line,
        verified: Mutex::new(HashMap::new()),
    })
}

/// An example's text: a string as it is, any other value as compact JSON.
fn as_text(value: Value) -> String {
    match value {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// The reply value an example's output stands for: the text itself for a text shape, else the
/// value inside the `{"value": ...}` envelope the output must be written in.
fn example_value(shape: &Shape, output: &str) -> Result<Value, String> {
    if matches!(shape, Shape::Named(name) if name == TEXT_SHAPE) {
        let text = output.trim();
        if text.is_empty() {
            return Err("the output is empty; write the text the model should answer".to_owned());
        }
        return Ok(Value::String(text.to_owned()));
    }
    let envelope = "write it exactly as the model should answer: {\"value\": ...}";
    let parsed: Value = serde_json::from_str(output.trim())
        .map_err(|e| format!("the output is not valid JSON ({e}); {envelope}"))?;
    match parsed {
        Value::Object(mut map) if map.len() == 1 && map.contains_key(ENVELOPE_PROPERTY) => {
            Ok(map.shift_remove(ENVELOPE_PROPERTY).unwrap_or(Value::Null))
        }
        _ => Err(format!("the output is not in the envelope; {envelope}")),
    }
}

fn joined(issues: &[ResultIssue]) -> String {
    let lines: Vec<String> = issues.iter().map(ToString::to_string).collect();
    lines.join("; ")
}

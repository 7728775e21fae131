//! Tests in intent files: an input and what the answer must be, run by `intent test`.
//!
//! Each intent may have a `tests` list. A test has an `input` (text as it is, any other value as
//! JSON), an optional `name` (`test 1`, `test 2`, … by default) and exactly one expectation:
//!
//! | key | the test passes when |
//! |---|---|
//! | `expected` | the answer equals this value (numbers by value: `5` equals `5.0`) |
//! | `checks` | per member path (the rules' syntax: `category`, `lines[].sku`, `$`), each of `equals` (a value), `contains` (a substring of a text, or an element of a list) and `matches` (a regular expression, found anywhere; anchor it with `^…$`) holds for every value the path reaches; a member that is absent fails its check (unless it `equals: null`), and a check on every element (`[]`) holds for an empty list |
//! | `fails: true` | the call ends without a value because the answers were refused (not because a provider failed) |
//!
//! ```yaml
//! tests:
//!   - name: double charge
//!     input: I was charged twice for order 881.
//!     checks:
//!       category: { equals: billing }
//!       urgency: { equals: 3 }
//!   - input: "Hello, my order 5521 arrived broken."
//!     expected: { category: delivery, urgency: 3 }
//! ```
//!
//! Loading checks every test against the intent: its expected value and the values its checks
//! compare with must fit the shape (a JSON Schema's types and enums, a text shape's text) and the
//! file's rules, and every check's path must be a member of the shape of the kind its checks need.
//! An intent whose shape names a Rust type has its tests checked against that type by
//! [`Catalog::check`](super::Catalog::check) and on the first run.

use std::fmt;

use indexmap::IndexMap;
use serde_json::Value;

use super::file::{RawCheck, RawTest};
use super::path::{RulePath, Step};
use super::resolve;
use super::rules::{regex_reason, MemberRule};
use super::shape::{Shape, TEXT_SHAPE};
use crate::result::{IssueKind, ResultIssue};
use crate::shape::{NodeId, Pattern, RuleTarget, ShapeGraph};

/// The longest value shown in a message, in characters.
const MAX_SHOWN_CHARS: usize = 200;

/// The most differences listed for one test.
const MAX_DIFFERENCES: usize = 20;

/// One test of an intent: an input and what the answer must be.
///
/// ```
/// use intent_core::catalog::{Catalog, Expectation};
/// use serde_json::json;
///
/// let catalog = Catalog::parse("c.yaml", r#"
/// intents:
///   - name: count
///     intent: Count the letters.
///     shape: { type: integer }
///     tests:
///       - input: "a, b, c"
///         expected: 3
/// "#)?;
/// let test = &catalog.get("count").unwrap().tests()[0];
/// assert_eq!(test.name(), "test 1");
/// assert!(matches!(test.expectation(), Expectation::Value(v) if v == &json!(3)));
/// assert!(test.evaluate(Some(&json!(3)), &[]).is_empty());
/// assert_eq!(test.evaluate(Some(&json!(4)), &[]), ["expected 3, got 4"]);
/// # Ok::<(), intent_core::IntentError>(())
/// ```
#[derive(Debug, Clone)]
pub struct IntentTest {
    name: String,
    input: Value,
    expectation: Expectation,
    pub(crate) line: Option<usize>,
}

/// What a test's answer must be.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Expectation {
    /// The answer equals this value.
    Value(Value),
    /// Every check holds.
    Checks(Vec<MemberCheck>),
    /// The call ends without a value.
    Fails,
}

/// The checks on one member path of a test's answer.
#[derive(Debug, Clone)]
pub struct MemberCheck {
    path: RulePath,
    conditions: Vec<Condition>,
}

#[derive(Debug, Clone)]
enum Condition {
    Equals(Value),
    Contains(Value),
    Matches(Pattern),
}

impl IntentTest {
    /// The test's name (`test N` when the file gives none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input: a JSON string for text, any other JSON value as it was written.
    pub fn input(&self) -> &Value {
        &self.input
    }

    /// What the answer must be.
    pub fn expectation(&self) -> &Expectation {
        &self.expectation
    }

    /// The line of the test's `input`, when it could be found.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// Why a call's outcome fails the test: empty when it passes. `value` is the answer as JSON
    /// (a JSON string for a text shape), `None` when the call ended without one; `issues` are
    /// the call's final issues.
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    /// use serde_json::json;
    ///
    /// let catalog = Catalog::parse("c.yaml", r#"
    /// intents:
    ///   - name: triage
    ///     intent: Triage the ticket.
    ///     shape: { type: object, properties: { category: { type: string }, tags: { type: array, items: { type: string } } } }
    ///     tests:
    ///       - input: The site is down.
    ///         checks:
    ///           category: { equals: outage }
    ///           tags: { contains: urgent }
    /// "#)?;
    /// let test = &catalog.get("triage").unwrap().tests()[0];
    /// let answer = json!({"category": "billing", "tags": ["web"]});
    /// assert_eq!(test.evaluate(Some(&answer), &[]), [
    ///     r#"`category` at /category: expected "outage", got "billing""#,
    ///     r#"`tags` at /tags: expected a list that contains "urgent", got ["web"]"#,
    /// ]);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn evaluate(&self, value: Option<&Value>, issues: &[ResultIssue]) -> Vec<String> {
        let provider_failure = issues.iter().find(|i| i.kind == IssueKind::Provider);
        match (&self.expectation, value) {
            (Expectation::Fails, None) => match provider_failure {
                Some(issue) => vec![format!(
                    "expected the answers to be refused, but a provider failed: {issue}"
                )],
                None => Vec::new(),
            },
            (Expectation::Fails, Some(value)) => vec![format!(
                "expected the call to fail, but it answered {}",
                shown(value)
            )],
            (_, None) => {
                let why: Vec<String> = issues.iter().map(ToString::to_string).collect();
                vec![format!(
                    "expected an answer, but the call failed: {}",
                    if why.is_empty() {
                        "no issue was reported".to_owned()
                    } else {
                        why.join("; ")
                    }
                )]
            }
            (Expectation::Value(expected), Some(actual)) => {
                let mut out = Vec::new();
                differences(expected, actual, &mut String::new(), &mut out);
                if out.len() > MAX_DIFFERENCES {
                    let more = out.len() - MAX_DIFFERENCES;
                    out.truncate(MAX_DIFFERENCES);
                    out.push(format!("… and {more} more differences"));
                }
                out
            }
            (Expectation::Checks(checks), Some(actual)) => checks
                .iter()
                .flat_map(|check| check.evaluate(actual))
                .collect(),
        }
    }
}

impl MemberCheck {
    /// The member path, as the file writes it (`$` for the answer itself).
    pub fn path(&self) -> &str {
        let shown = self.path.display_name();
        if shown == "<result>" {
            "$"
        } else {
            shown
        }
    }

    fn evaluate(&self, root: &Value) -> Vec<String> {
        let selected = self.path.select(root);
        if selected.is_empty() {
            // A check on every element (or every value) holds when there is none; a check on one
            // member fails when the member is absent, unless it asks for null.
            let every = self
                .path
                .steps()
                .iter()
                .any(|s| matches!(s, Step::Items | Step::Values));
            let wants_null = self
                .conditions
                .iter()
                .all(|c| matches!(c, Condition::Equals(Value::Null)));
            return if every || wants_null {
                Vec::new()
            } else {
                vec![format!("`{}`: the answer has no value there", self.path())]
            };
        }
        let mut out = Vec::new();
        for (pointer, value) in selected {
            let at = match pointer.strip_prefix("/value").unwrap_or(&pointer) {
                "" => String::new(),
                rest => format!(" at {rest}"),
            };
            for condition in &self.conditions {
                if let Some(why) = condition.failure(value) {
                    out.push(format!("`{}`{at}: {why}", self.path()));
                }
            }
        }
        out
    }
}

impl fmt::Display for MemberCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<String> = self.conditions.iter().map(Condition::words).collect();
        write!(f, "`{}` {}", self.path(), words.join(" and "))
    }
}

impl Condition {
    fn words(&self) -> String {
        match self {
            Condition::Equals(v) => format!("equals {}", shown(v)),
            Condition::Contains(v) => format!("contains {}", shown(v)),
            Condition::Matches(p) => format!("matches {}", p.as_str()),
        }
    }

    /// Why `value` fails the condition, or `None` when it holds.
    fn failure(&self, value: &Value) -> Option<String> {
        match self {
            Condition::Equals(expected) => (!same(expected, value))
                .then(|| format!("expected {}, got {}", shown(expected), shown(value))),
            Condition::Contains(needle) => {
                match (value, needle) {
                    (Value::String(text), Value::String(part)) => (!text.contains(part.as_str()))
                        .then(|| {
                            format!(
                                "expected a text that contains {}, got {}",
                                shown(needle),
                                shown(value)
                            )
                        }),
                    (Value::Array(items), _) => (!items.iter().any(|item| same(needle, item)))
                        .then(|| {
                            format!(
                                "expected a list that contains {}, got {}",
                                shown(needle),
                                shown(value)
                            )
                        }),
                    _ => Some(format!(
                        "expected a text or a list that contains {}, got {}",
                        shown(needle),
                        shown(value)
                    )),
                }
            }
            Condition::Matches(pattern) => match value {
                Value::String(text) if pattern.is_match(text) => None,
                Value::String(_) => Some(format!(
                    "expected a text that matches {}, got {}",
                    pattern.as_str(),
                    shown(value)
                )),
                _ => Some(format!(
                    "expected a text that matches {}, got {}",
                    pattern.as_str(),
                    shown(value)
                )),
            },
        }
    }
}

/// JSON equality with numbers compared by value (`5` equals `5.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Every place where `actual` differs from `expected`, each with its JSON pointer.
fn differences(expected: &Value, actual: &Value, at: &mut String, out: &mut Vec<String>) {
    let place = |at: &str| {
        if at.is_empty() {
            String::new()
        } else {
            format!("at {at}: ")
        }
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                let len = at.len();
                at.push('/');
                at.push_str(&key.replace('~', "~0").replace('/', "~1"));
                match a.get(key) {
                    Some(got) => differences(value, got, at, out),
                    None => out.push(format!(
                        "{}expected {}, got nothing",
                        place(at),
                        shown(value)
                    )),
                }
                at.truncate(len);
            }
            for (key, value) in a {
                if !e.contains_key(key) {
                    out.push(format!(
                        "{}`{key}` is not expected, got {}",
                        place(at),
                        shown(value)
                    ));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            for (i, (value, got)) in e.iter().zip(a).enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                differences(value, got, at, out);
                at.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => out.push(format!(
            "{}expected {} elements, got {}: expected {}, got {}",
            place(at),
            e.len(),
            a.len(),
            shown(expected),
            shown(actual)
        )),
        _ if same(expected, actual) => {}
        _ => out.push(format!(
            "{}expected {}, got {}",
            place(at),
            shown(expected),
            shown(actual)
        )),
    }
}

/// A value as compact JSON, cut at [`MAX_SHOWN_CHARS`] characters.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// Compiles and checks an intent's tests; an error names the test's index and what is wrong.
pub(crate) fn compile(
    raw: Vec<RawTest>,
    shape: &Shape,
    rules: &[MemberRule],
) -> Result<Vec<IntentTest>, (usize, String)> {
    let mut tests: Vec<IntentTest> = Vec::with_capacity(raw.len());
    for (index, test) in raw.into_iter().enumerate() {
        let name = match test.name.as_deref().map(str::trim) {
            Some("") => {
                return Err((
                    index,
                    format!(
                        "test {}: `name` is empty; give the test a name or leave `name` out",
                        index + 1
                    ),
                ))
            }
            Some(name) => name.to_owned(),
            None => format!("test {}", index + 1),
        };
        if tests.iter().any(|t| t.name == name) {
            return Err((
                index,
                format!("test `{name}`: the name is used by another test of this intent"),
            ));
        }
        let fail = |message: String| (index, format!("test `{name}`: {message}"));
        let expectation = match (test.expected, test.checks, test.fails) {
            (Some(expected), None, None | Some(false)) => {
                fits_value(shape, rules, &expected).map_err(fail)?;
                Expectation::Value(expected)
            }
            (None, Some(checks), None | Some(false)) => {
                Expectation::Checks(compile_checks(checks, shape).map_err(fail)?)
            }
            (None, None, Some(true)) => Expectation::Fails,
            (None, None, _) => {
                return Err(fail(
                    "the test does not say what it expects; give `expected` (the whole answer), `checks` (members that must equal, contain or match) or `fails: true`".to_owned(),
                ))
            }
            _ => {
                return Err(fail(
                    "give one of `expected`, `checks` and `fails: true`, not several".to_owned(),
                ))
            }
        };
        if test.input.is_null() {
            return Err(fail(
                "`input` is null; write the input the intent is run on".to_owned(),
            ));
        }
        tests.push(IntentTest {
            name,
            input: test.input,
            expectation,
            line: None,
        });
    }
    Ok(tests)
}

fn is_text(shape: &Shape) -> bool {
    matches!(shape, Shape::Named(name) if name == TEXT_SHAPE)
}

/// Checks that an expected answer fits the shape and the file's rules.
fn fits_value(shape: &Shape, rules: &[MemberRule], expected: &Value) -> Result<(), String> {
    if is_text(shape) && !expected.is_string() {
        return Err(format!(
            "the expected answer must be a text, since the shape is `{TEXT_SHAPE}`; got {}",
            shown(expected)
        ));
    }
    let mut issues = Vec::new();
    if let Shape::Schema(schema) = shape {
        schema.check(expected, &mut issues);
        if !issues.is_empty() {
            return Err(format!(
                "the expected answer does not fit the shape: {}",
                joined(&issues)
            ));
        }
    }
    for rule in rules {
        rule.check(expected, &mut issues);
    }
    if issues.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the expected answer breaks a rule of the intent: {}",
            joined(&issues)
        ))
    }
}

fn joined(issues: &[ResultIssue]) -> String {
    let lines: Vec<String> = issues.iter().map(ToString::to_string).collect();
    lines.join("; ")
}

fn compile_checks(
    raw: IndexMap<String, RawCheck>,
    shape: &Shape,
) -> Result<Vec<MemberCheck>, String> {
    if raw.is_empty() {
        return Err(
            "`checks` is empty; name at least one member and what it must equal, contain or match"
                .to_owned(),
        );
    }
    let mut checks = Vec::with_capacity(raw.len());
    for (at, check) in raw {
        let path = RulePath::parse(&at).map_err(|e| format!("check `{at}`: {e}"))?;
        let fail = |message: String| format!("check `{at}`: {message}");
        let mut conditions = Vec::new();
        if let Some(value) = check.equals {
            conditions.push(Condition::Equals(value));
        }
        if let Some(value) = check.contains {
            conditions.push(Condition::Contains(value));
        }
        if let Some(source) = check.matches {
            let pattern = Pattern::new(&source).map_err(|e| {
                fail(format!(
                    "`matches` is not a valid regular expression ({})",
                    regex_reason(&e.to_string())
                ))
            })?;
            conditions.push(Condition::Matches(pattern));
        }
        if conditions.is_empty() {
            return Err(fail("give `equals`, `contains` or `matches`".to_owned()));
        }
        let check = MemberCheck { path, conditions };
        match shape {
            Shape::Named(_) if is_text(shape) => check_on_text(&check).map_err(fail)?,
            Shape::Named(_) => {}
            Shape::Schema(schema) => check_on_schema(&schema.schema, &check).map_err(fail)?,
        }
        checks.push(check);
    }
    Ok(checks)
}

/// A text answer has no members: its checks are on `$`, and compare with texts.
fn check_on_text(check: &MemberCheck) -> Result<(), String> {
    if !check.path.steps().is_empty() {
        return Err(format!(
            "the shape is `{TEXT_SHAPE}`, a text with no members; check `$`, the text itself"
        ));
    }
    for condition in &check.conditions {
        if let Condition::Equals(v) | Condition::Contains(v) = condition {
            if !v.is_string() {
                return Err(format!(
                    "the answer is a text, so `{}` needs a text, not {}",
                    condition.key(),
                    shown(v)
                ));
            }
        }
    }
    Ok(())
}

impl Condition {
    fn key(&self) -> &'static str {
        match self {
            Condition::Equals(_) => "equals",
            Condition::Contains(_) => "contains",
            Condition::Matches(_) => "matches",
        }
    }

    /// The kinds of value the condition can apply to.
    fn targets(&self) -> &'static [Option<RuleTarget>] {
        match self {
            Condition::Equals(_) => &[None],
            Condition::Contains(Value::String(_)) => {
                &[Some(RuleTarget::Text), Some(RuleTarget::Items)]
            }
            Condition::Contains(_) => &[Some(RuleTarget::Items)],
            Condition::Matches(_) => &[Some(RuleTarget::Text)],
        }
    }
}

/// The rule that stands for a check's path and the kind of value a condition needs.
fn as_rule(check: &MemberCheck, target: Option<RuleTarget>) -> MemberRule {
    MemberRule::needing(check.path.clone(), target)
}

/// Checks a check's path and kinds against a JSON Schema, and that the values it compares with
/// fit the member's type and enum where the schema says them plainly.
fn check_on_schema(schema: &Value, check: &MemberCheck) -> Result<(), String> {
    resolve::check_on_schema(schema, &as_rule(check, None)).map_err(reason)?;
    for condition in &check.conditions {
        fits_kinds(condition, |rule| {
            resolve::check_on_schema(schema, &as_rule(check, rule))
        })?;
        let Some(node) = member_schema(schema, check.path.steps()) else {
            continue;
        };
        match condition {
            Condition::Equals(value) => fits_node(schema, node, value).map_err(|why| {
                format!("`equals` {} does not fit the member: {why}", shown(value))
            })?,
            Condition::Contains(value) if !value.is_string() || node_is(node, "array") => {
                if let Some(items) = node.get("items").map(|i| follow(schema, i)) {
                    fits_node(schema, items, value).map_err(|why| {
                        format!(
                            "`contains` {} does not fit the list's elements: {why}",
                            shown(value)
                        )
                    })?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks a typed shape's tests: the expected answers read as the type, and every check's path is
/// a member of it of the kind its conditions need.
pub(crate) fn check_on_type<T: crate::intent::Intent>(
    tests: &[IntentTest],
    graph: &ShapeGraph,
    root: NodeId,
    label: &str,
) -> Result<(), (Option<usize>, String)> {
    for test in tests {
        let fail = |message: String| (test.line, format!("test `{}`: {message}", test.name));
        match &test.expectation {
            Expectation::Value(expected) => read_as::<T>(expected, label).map_err(fail)?,
            Expectation::Checks(checks) => {
                for check in checks {
                    let at = |m: String| fail(format!("check `{}`: {m}", check.path()));
                    resolve::check_on_type(graph, root, &as_rule(check, None))
                        .map_err(|m| at(reason(m)))?;
                    for condition in &check.conditions {
                        fits_kinds(condition, |rule| {
                            resolve::check_on_type(graph, root, &as_rule(check, rule))
                        })
                        .map_err(at)?;
                        if let (Condition::Equals(value), true) =
                            (condition, check.path.steps().is_empty())
                        {
                            read_as::<T>(value, label).map_err(at)?;
                        }
                    }
                }
            }
            Expectation::Fails => {}
        }
    }
    Ok(())
}

fn read_as<T: crate::intent::Intent>(value: &Value, label: &str) -> Result<(), String> {
    serde_path_to_error::deserialize::<_, T>(value.clone())
        .map(drop)
        .map_err(|e| {
            let at = e.path().to_string();
            let at = if at == "." {
                String::new()
            } else {
                format!(" at `{at}`")
            };
            format!(
                "the expected answer does not read as `{label}`{at}: {}",
                e.inner()
            )
        })
}

/// Passes when the condition applies to one of the kinds `check` accepts.
fn fits_kinds(
    condition: &Condition,
    check: impl Fn(Option<RuleTarget>) -> Result<(), String>,
) -> Result<(), String> {
    let mut first_error = None;
    for target in condition.targets() {
        match check(*target) {
            Ok(()) => return Ok(()),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        None => Ok(()),
        Some(e) => Err(format!(
            "`{}` does not apply here: {}",
            condition.key(),
            reason(e)
        )),
    }
}

/// A path finding of the rules' checker without its `rule `x`: ` start (the check names itself).
fn reason(message: String) -> String {
    match message
        .strip_prefix("rule `")
        .and_then(|rest| rest.split_once("`: "))
    {
        Some((_, why)) => why.to_owned(),
        None => message,
    }
}

/// The schema of the member `steps` reach, when the schema says it plainly (no combinators).
fn member_schema<'s>(root: &'s Value, steps: &[Step]) -> Option<&'s Value> {
    let mut node = follow(root, root);
    for step in steps {
        if ["anyOf", "oneOf", "allOf"]
            .iter()
            .any(|k| node.get(k).is_some())
        {
            return None;
        }
        let next = match step {
            Step::Member(name) => node.get("properties")?.get(name.as_str())?,
            Step::Items => node.get("items")?,
            Step::Values => node.get("additionalProperties").filter(|a| a.is_object())?,
        };
        node = follow(root, next);
    }
    (!["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| node.get(k).is_some()))
    .then_some(node)
}

/// A node with its local `$ref`s followed (a few levels at most).
fn follow<'s>(root: &'s Value, mut node: &'s Value) -> &'s Value {
    for _ in 0..8 {
        match node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            Some(target) => node = target,
            None => break,
        }
    }
    node
}

fn node_is(node: &Value, kind: &str) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == kind),
        _ => false,
    }
}

/// Checks a value against a member schema's `type`, `enum` and `const`.
fn fits_node(root: &Value, node: &Value, value: &Value) -> Result<(), String> {
    let node = follow(root, node);
    if let Some(types) = node.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let fits = |t: &str| match t {
            "string" => value.is_string(),
            "integer" => {
                value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            "null" => value.is_null(),
            _ => true,
        };
        if !types.is_empty() && !types.iter().any(|t| fits(t)) {
            return Err(format!("the member is of type {}", types.join(" or ")));
        }
    }
    if let Some(Value::Array(allowed)) = node.get("enum") {
        if !allowed.iter().any(|a| same(a, value)) {
            let allowed: Vec<String> = allowed.iter().map(shown).collect();
            return Err(format!("the member is one of {}", allowed.join(", ")));
        }
    }
    if let Some(constant) = node.get("const") {
        if !same(constant, value) {
            return Err(format!("the member is always {}", shown(constant)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_differ_at_their_pointers() {
        let mut out = Vec::new();
        differences(
            &json!({"a": 1, "b": [1, 2], "c": {"d": "x"}, "gone": true}),
            &json!({"a": 1.0, "b": [1, 3], "c": {"d": "y"}, "extra": null}),
            &mut String::new(),
            &mut out,
        );
        assert_eq!(
            out,
            [
                "at /b/1: expected 2, got 3",
                "at /c/d: expected \"x\", got \"y\"",
                "at /gone: expected true, got nothing",
                "`extra` is not expected, got null",
            ]
        );
    }

    #[test]
    fn numbers_are_the_same_by_value() {
        assert!(same(&json!(5), &json!(5.0)));
        assert!(same(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!same(&json!(5), &json!("5")));
        assert!(same(&json!({"a": [1]}), &json!({"a": [1.0]})));
    }

    #[test]
    fn long_values_are_cut() {
        let long = Value::String("x".repeat(500));
        assert_eq!(shown(&long).chars().count(), MAX_SHOWN_CHARS + 1);
    }
}

//! Whether a test fits its intent's shape: every check's path is a member of the kind its
//! conditions need, and the values it compares with fit the member (a JSON Schema's `type`,
//! `enum` and `const` where the schema says them plainly; a Rust type by reading them as it).

use serde_json::Value;

use super::verdict::{same, shown};
use super::{Condition, Expectation, IntentTest, MemberCheck};
use crate::catalog::path::Step;
use crate::catalog::resolve;
use crate::catalog::rules::MemberRule;
use crate::shape::{NodeId, RuleTarget, ShapeGraph};

impl Condition {
    pub(super) fn key(&self) -> &'static str {
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
pub(super) fn check_on_schema(schema: &Value, check: &MemberCheck) -> Result<(), String> {
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

//! Reading an intent's tests as the file writes them: names, one expectation each, checks whose
//! paths and values fit the shape and the file's rules.

use indexmap::IndexMap;
use serde_json::Value;

use super::shape_fit::check_on_schema;
use super::verdict::shown;
use super::{Condition, Expectation, IntentTest, MemberCheck};
use crate::catalog::file::{RawCheck, RawTest};
use crate::catalog::path::RulePath;
use crate::catalog::rules::{regex_reason, MemberRule};
use crate::catalog::shape::{Shape, TEXT_SHAPE};
use crate::result::ResultIssue;
use crate::shape::Pattern;

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
            Shape::Schema(schema) => check_on_schema(schema.schema(), &check).map_err(fail)?,
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

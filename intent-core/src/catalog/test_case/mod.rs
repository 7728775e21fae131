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
//!
//! The module holds the test model; [`compilation`] reads and checks the tests as the file writes
//! them, [`shape_fit`] checks them against the intent's shape (a JSON Schema, or a Rust type on
//! first use), and [`verdict`] judges a call's answer.

mod compilation;
mod shape_fit;
mod verdict;

pub(crate) use compilation::compile;
pub(crate) use shape_fit::check_on_type;

use serde_json::Value;

use super::path::RulePath;
use crate::result::ResultIssue;
use crate::shape::Pattern;

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
        verdict::evaluate(self, value, issues)
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
}

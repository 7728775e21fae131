//! The prompt: one system message and one user message per attempt.
//!
//! The system message is [`SYSTEM_PREAMBLE`], then the request's `system_instructions` after a
//! blank line. The user message has these sections, in order, one blank line apart:
//!
//! ```text
//! ## Intent
//! <the trimmed intent>
//!
//! ## Input (<label>)
//! <the serialized input>
//!
//! ## Output requirements
//! <the contract: plain text, or the {"value": ...} envelope with the result's description>
//! <for JSON-object mode: Use JSON types faithfully: ...>
//! <the members' rules, when the result has any>
//! Additional output requirements: <expected_output_description, when set>
//!
//! ## Examples                                  (only when there are examples)
//! Example 1 input:
//! <trimmed>
//! Example 1 output:
//! <trimmed>
//!
//! Example 2 input:
//! ...
//! Apply the same judgement and format to the input above.
//!
//! ## Previous attempt                          (retries only)
//! <the previous raw output, cut at 6000 characters>
//!
//! ## Problems with the previous attempt        (retries only)
//! - <one line per issue: its path, then its message>
//! Produce a corrected response that fixes every listed problem while still satisfying the intent.
//! ```
//!
//! A previous output longer than [`PREVIOUS_OUTPUT_LIMIT`] characters is cut there and followed by
//! one line saying so (`[cut at 6000 of 7250 characters]`), so the model knows it sees only part;
//! an empty one is shown as `(an empty reply)`. An issue message that spans lines is put on one.
//! At most [`PREVIOUS_PROBLEMS_LIMIT`] issues are listed, so a reply with thousands of findings
//! cannot grow the next prompt without bound; one more bullet counts the rest.

use std::fmt::Write;
use std::sync::Arc;

use serde_json::Value;

use crate::error::IntentError;
use crate::input::SerializedInput;
use crate::options::AiRequestOptions;
use crate::request::{AiRequest, ReasoningEffort, ResponseFormat, DEFAULT_SCHEMA_NAME};
use crate::result::AttemptRecord;
use crate::schema::build_envelope_from_schema;
use crate::shape::{Node, Scalar, TargetKind, TypeInfo};

/// The system prompt every request starts with.
pub const SYSTEM_PREAMBLE: &str = "You carry out the intent on the input exactly as asked. Use only the input and the intent; do not invent facts the input does not support. Answer with the result alone: no preamble, no explanation, no markdown fences.";

/// How much of a previous attempt's raw output a retry shows, in characters.
pub const PREVIOUS_OUTPUT_LIMIT: usize = 6000;

/// How many of a previous attempt's issues a retry lists; the rest are counted in one line.
pub const PREVIOUS_PROBLEMS_LIMIT: usize = crate::read::MAX_FINDINGS;

const JSON_TYPES_LINE: &str = "Use JSON types faithfully: numbers as numbers, true and false as booleans, null only where the description allows it (a type ending in ?), lists as arrays.";

/// What is asked of the model for one call, fixed across its attempts.
///
/// ```
/// use intent_core::prompt;
/// use intent_core::shape::TypeInfo;
/// use intent_core::{AiRequestOptions, ResponseFormat};
///
/// let input = intent_core::input::serialize("a, b, c", 1000).unwrap();
/// let plan = prompt::plan(&TypeInfo::of::<u32>(), &AiRequestOptions::default(), "Count the letters.", &input).unwrap();
/// let request = plan.request(None);
/// assert_eq!(request.format, ResponseFormat::JsonSchema);
/// assert!(request.user.starts_with("## Intent\nCount the letters.\n\n## Input (string)\na, b, c\n\n## Output requirements\n"));
/// ```
#[derive(Debug, Clone)]
pub struct PromptPlan {
    system: String,
    /// The user message without retry sections.
    user: String,
    format: ResponseFormat,
    /// Shared with the type's cached views: copied once per request, not once per plan too.
    schema: Option<Arc<Value>>,
    max_output_tokens: Option<u32>,
    temperature: Option<f32>,
    model: Option<String>,
    reasoning_effort: Option<ReasoningEffort>,
    thinking_budget: Option<u32>,
}

/// Plans a call: the response format and schema for the target, and the fixed part of the prompt.
///
/// `String` is asked for as plain text; a strict-compatible type with its strict envelope schema; a
/// `serde_json::Value` with `options.output_schema` with that schema's envelope
/// ([`build_envelope_from_schema`]); any other type in JSON-object mode, described in the prompt.
///
/// # Errors
///
/// [`IntentError::InvalidSchema`] when `options.output_schema` is malformed, or is set for a
/// result type other than `serde_json::Value` (which has a schema of its own).
///
/// ```
/// use intent_core::prompt;
/// use intent_core::shape::TypeInfo;
/// use intent_core::{AiRequestOptions, ResponseFormat};
///
/// let input = intent_core::input::serialize("Dana, 40 x A-1192", 1000).unwrap();
/// let options = AiRequestOptions {
///     output_schema: Some(serde_json::json!({"type": "object", "properties": {"sku": {"type": "string"}}})),
///     ..AiRequestOptions::default()
/// };
/// let plan = prompt::plan(&TypeInfo::of::<serde_json::Value>(), &options, "Extract the SKU.", &input).unwrap();
/// assert_eq!(plan.format(), ResponseFormat::JsonSchema);
/// assert_eq!(plan.schema().unwrap()["properties"]["value"]["required"], serde_json::json!(["sku"]));
/// ```
pub fn plan(
    info: &TypeInfo,
    options: &AiRequestOptions,
    intent: &str,
    input: &SerializedInput,
) -> Result<PromptPlan, IntentError> {
    let is_json_target = matches!(
        info.graph().node(info.root()),
        Node::Scalar(Scalar::Json | Scalar::JsonObject)
    );
    let (format, schema, result_description) = match (&options.output_schema, info.target()) {
        (Some(schema), _) if is_json_target => (
            ResponseFormat::JsonSchema,
            Some(Arc::new(build_envelope_from_schema(schema)?)),
            "a JSON value that conforms to the provided JSON schema".to_owned(),
        ),
        (Some(_), _) => {
            return Err(IntentError::InvalidSchema(
                "output_schema applies to serde_json::Value results only; this result type has a schema of its own".into(),
            ))
        }
        (None, TargetKind::Text) => (ResponseFormat::Text, None, String::new()),
        (None, TargetKind::StrictSchema) => (
            ResponseFormat::JsonSchema,
            info.shared_envelope_schema(),
            info.description().to_owned(),
        ),
        (None, TargetKind::JsonObject) if is_json_target => (
            ResponseFormat::JsonObject,
            None,
            "a JSON value".to_owned(),
        ),
        (None, TargetKind::JsonObject) => (
            ResponseFormat::JsonObject,
            None,
            info.description().to_owned(),
        ),
    };

    let mut system = SYSTEM_PREAMBLE.to_owned();
    if let Some(extra) = non_empty(options.system_instructions.as_deref()) {
        system.push_str("\n\n");
        system.push_str(extra);
    }

    // Sized for every section up front, so the message is written without regrowing.
    let examples: usize = options
        .examples
        .iter()
        .map(|e| e.input.len() + e.output.len() + 48)
        .sum();
    let rules: usize = info
        .rule_lines()
        .iter()
        .chain(&options.rule_lines)
        .map(|r| r.len() + 1)
        .sum();
    let mut user = String::with_capacity(
        input.text.len()
            + input.label.len()
            + intent.len()
            + result_description.len()
            + options
                .expected_output_description
                .as_ref()
                .map_or(0, String::len)
            + examples
            + rules
            + 512,
    );
    user.push_str("## Intent\n");
    user.push_str(intent.trim());
    user.push_str("\n\n## Input (");
    user.push_str(&input.label);
    user.push_str(")\n");
    user.push_str(&input.text);
    user.push_str("\n\n## Output requirements\n");
    if format == ResponseFormat::Text {
        user.push_str("Plain text only: no JSON, no markdown, no preamble.");
        if !options.rule_lines.is_empty() {
            user.push_str("\nRules for the text:");
            for rule in &options.rule_lines {
                user.push('\n');
                user.push_str(rule);
            }
        }
    } else {
        user.push_str("Reply with one JSON object {\"value\": <result>}, where <result> is ");
        user.push_str(&result_description);
        if format == ResponseFormat::JsonObject {
            user.push('\n');
            user.push_str(JSON_TYPES_LINE);
        }
        let mut rules = info
            .rule_lines()
            .iter()
            .chain(&options.rule_lines)
            .peekable();
        if rules.peek().is_some() {
            user.push_str("\nRules for members of <result>:");
            for rule in rules {
                user.push('\n');
                user.push_str(rule);
            }
        }
    }
    if let Some(extra) = non_empty(options.expected_output_description.as_deref()) {
        user.push_str("\nAdditional output requirements: ");
        user.push_str(extra);
    }
    if !options.examples.is_empty() {
        user.push_str("\n\n## Examples\n");
        for (i, example) in options.examples.iter().enumerate() {
            let n = i + 1;
            if i > 0 {
                user.push('\n');
            }
            let _ = writeln!(user, "Example {n} input:");
            user.push_str(example.input.trim());
            let _ = writeln!(user, "\nExample {n} output:");
            user.push_str(example.output.trim());
            user.push('\n');
        }
        user.push_str("Apply the same judgement and format to the input above.");
    }

    Ok(PromptPlan {
        system,
        user,
        format,
        schema,
        max_output_tokens: options.max_output_tokens,
        temperature: options.temperature,
        model: options.model.clone(),
        reasoning_effort: options.reasoning_effort,
        thinking_budget: options.thinking_budget,
    })
}

impl PromptPlan {
    /// The request for an attempt; `previous` is the attempt before it, whose raw output and issues
    /// are shown when it has issues.
    ///
    /// ```
    /// use intent_core::prompt;
    /// use intent_core::shape::TypeInfo;
    /// use intent_core::{AiRequestOptions, AttemptRecord, IssueKind, ResultIssue};
    ///
    /// let input = intent_core::input::serialize("a, b, c", 1000).unwrap();
    /// let plan = prompt::plan(&TypeInfo::of::<u32>(), &AiRequestOptions::default(), "Count.", &input).unwrap();
    /// let mut previous = AttemptRecord::new(1);
    /// previous.raw_output = "three".into();
    /// previous.issues.push(ResultIssue::new(IssueKind::Parse, "Reply with JSON."));
    /// let retry = plan.request(Some(&previous));
    /// assert!(retry.user.contains("## Previous attempt\nthree\n\n## Problems with the previous attempt\n- Reply with JSON.\n"));
    /// ```
    pub fn request(&self, previous: Option<&AttemptRecord>) -> AiRequest {
        let mut user = self.user.clone();
        if let Some(previous) = previous.filter(|p| !p.issues.is_empty()) {
            append_retry(&mut user, previous);
        }
        AiRequest {
            system: self.system.clone(),
            user,
            format: self.format,
            schema: self.schema.as_deref().cloned(),
            schema_name: DEFAULT_SCHEMA_NAME.to_owned(),
            max_output_tokens: self.max_output_tokens,
            temperature: self.temperature,
            model: self.model.clone(),
            reasoning_effort: self.reasoning_effort,
            thinking_budget: self.thinking_budget,
        }
    }

    /// The response format of every attempt.
    pub fn format(&self) -> ResponseFormat {
        self.format
    }

    /// The schema sent with every attempt.
    pub fn schema(&self) -> Option<&Value> {
        self.schema.as_deref()
    }

    /// The token limit of every attempt.
    pub fn max_output_tokens(&self) -> Option<u32> {
        self.max_output_tokens
    }
}

fn append_retry(user: &mut String, previous: &AttemptRecord) {
    user.push_str("\n\n## Previous attempt\n");
    let raw = &previous.raw_output;
    if raw.trim().is_empty() {
        user.push_str("(an empty reply)");
    } else {
        match raw.char_indices().nth(PREVIOUS_OUTPUT_LIMIT) {
            Some((cut, _)) => {
                user.push_str(&raw[..cut]);
                let _ = write!(
                    user,
                    "\n[cut at {PREVIOUS_OUTPUT_LIMIT} of {} characters]",
                    raw.chars().count()
                );
            }
            None => user.push_str(raw),
        }
    }
    user.push_str("\n\n## Problems with the previous attempt");
    for issue in previous.issues.iter().take(PREVIOUS_PROBLEMS_LIMIT) {
        user.push_str("\n- ");
        let line = issue.to_string();
        if line.contains(['\n', '\r']) {
            user.push_str(&line.split_whitespace().collect::<Vec<_>>().join(" "));
        } else {
            user.push_str(&line);
        }
    }
    if let Some(rest) = previous.issues.len().checked_sub(PREVIOUS_PROBLEMS_LIMIT) {
        if rest > 0 {
            let _ = write!(
                user,
                "\n- {rest} more problems like these are not listed; fix every one."
            );
        }
    }
    user.push_str("\nProduce a corrected response that fixes every listed problem while still satisfying the intent.");
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

//! The plan of a call's prompt, and each attempt's request from it.

use std::fmt::Write;
use std::sync::{Arc, LazyLock};

use crate::attachment::{describe_attachments, Attachment};
use crate::error::IntentError;
use crate::input::SerializedInput;
use crate::options::AiRequestOptions;
use crate::request::{
    AiRequest, ReasoningEffort, ResponseFormat, SharedSchema, DEFAULT_SCHEMA_NAME,
};
use crate::result::AttemptRecord;
use crate::schema::build_envelope_from_schema;
use crate::shape::{Node, Scalar, TargetKind, TypeInfo};

use super::SYSTEM_PREAMBLE;

/// How much of a previous attempt's raw output a retry shows, in characters (as the `prompt` module docs state).
pub const PREVIOUS_OUTPUT_LIMIT: usize = 6000;

/// How many of a previous attempt's issues a retry lists; the rest are counted in one line.
pub const PREVIOUS_PROBLEMS_LIMIT: usize = crate::read::MAX_FINDINGS;

const JSON_TYPES_LINE: &str = "Use JSON types faithfully: numbers as numbers, true and false as booleans, null only where the description allows it (a type ending in ?), lists as arrays.";

/// What is asked of the model for one call, fixed across its attempts: every attempt's request
/// shares its system prompt, schema and (on a first attempt) user message.
#[derive(Debug, Clone)]
pub struct PromptPlan {
    system: Arc<String>,
    /// The user message without retry sections.
    user: Arc<String>,
    format: ResponseFormat,
    /// Shared with the type's cached views, and serialized once.
    schema: Option<SharedSchema>,
    max_output_tokens: Option<u32>,
    temperature: Option<f32>,
    model: Option<String>,
    reasoning_effort: Option<ReasoningEffort>,
    thinking_budget: Option<u32>,
    prompt_caching: bool,
    /// Sent with every attempt; their bytes are shared.
    attachments: Vec<Attachment>,
    seed: Option<u64>,
    top_p: Option<f32>,
    stop: Vec<String>,
    extra_body: Option<Arc<serde_json::Map<String, serde_json::Value>>>,
    logprobs: bool,
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
            Some(SharedSchema::new(build_envelope_from_schema(schema)?)),
            "a JSON value that conforms to the provided JSON schema",
        ),
        (Some(_), _) => {
            return Err(IntentError::InvalidSchema(
                "output_schema applies to serde_json::Value results only; this result type has a schema of its own".into(),
            ))
        }
        (None, TargetKind::Text) => (ResponseFormat::Text, None, ""),
        (None, TargetKind::StrictSchema) => (
            ResponseFormat::JsonSchema,
            info.request_schema(),
            info.description(),
        ),
        (None, TargetKind::JsonObject) if is_json_target => {
            (ResponseFormat::JsonObject, None, "a JSON value")
        }
        (None, TargetKind::JsonObject) => {
            (ResponseFormat::JsonObject, None, info.description())
        }
    };

    let system = match non_empty(options.system_instructions.as_deref()) {
        // Most calls send the preamble alone: one copy shared by all of them.
        None => {
            static PREAMBLE: LazyLock<Arc<String>> =
                LazyLock::new(|| Arc::new(SYSTEM_PREAMBLE.to_owned()));
            Arc::clone(&PREAMBLE)
        }
        Some(extra) => Arc::new(format!("{SYSTEM_PREAMBLE}\n\n{extra}")),
    };

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
    describe_attachments(&mut user, &input.attachments);
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
        user.push_str(result_description);
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
        user: Arc::new(user),
        format,
        schema,
        max_output_tokens: options.max_output_tokens,
        temperature: options.temperature,
        model: options.model.clone(),
        reasoning_effort: options.reasoning_effort,
        thinking_budget: options.thinking_budget,
        prompt_caching: options.prompt_caching,
        attachments: input.attachments.clone(),
        seed: options.seed,
        top_p: options.top_p,
        stop: options.stop.clone(),
        extra_body: options.extra_body.clone().map(Arc::new),
        logprobs: options.logprobs,
    })
}

impl PromptPlan {
    /// The request for an attempt; `previous` is the attempt before it, whose raw output and issues
    /// are shown when it has issues. A first attempt shares the plan's user message; a retry's is
    /// written once, with room for its retry sections.
    pub fn request(&self, previous: Option<&AttemptRecord>) -> AiRequest {
        let user = match previous.filter(|p| !p.issues.is_empty()) {
            None => Arc::clone(&self.user),
            Some(previous) => {
                let mut user = String::with_capacity(self.user.len() + retry_len(previous));
                user.push_str(&self.user);
                append_retry(&mut user, previous);
                Arc::new(user)
            }
        };
        AiRequest {
            system: Arc::clone(&self.system),
            user,
            format: self.format,
            schema: self.schema.clone(),
            schema_name: DEFAULT_SCHEMA_NAME.to_owned(),
            max_output_tokens: self.max_output_tokens,
            temperature: self.temperature,
            model: self.model.clone(),
            reasoning_effort: self.reasoning_effort,
            thinking_budget: self.thinking_budget,
            prompt_caching: self.prompt_caching,
            attachments: self.attachments.clone(),
            seed: self.seed,
            top_p: self.top_p,
            stop: self.stop.clone(),
            extra_body: self.extra_body.clone(),
            logprobs: self.logprobs,
            tools: None,
        }
    }

    /// The response format of every attempt.
    #[cfg(feature = "__internals")]
    pub fn format(&self) -> ResponseFormat {
        self.format
    }

    /// The schema sent with every attempt.
    #[cfg(feature = "__internals")]
    pub fn schema(&self) -> Option<&serde_json::Value> {
        self.schema.as_deref()
    }

    /// The token limit of every attempt.
    pub fn max_output_tokens(&self) -> Option<u32> {
        self.max_output_tokens
    }
}

/// The bytes a retry's sections take, at most: the previous output (cut at
/// [`PREVIOUS_OUTPUT_LIMIT`] characters of up to 4 bytes), the listed issues, and the fixed lines.
fn retry_len(previous: &AttemptRecord) -> usize {
    let issues: usize = previous
        .issues
        .iter()
        .take(PREVIOUS_PROBLEMS_LIMIT)
        .map(|i| i.message.len() + i.path.as_ref().map_or(0, String::len) + 5)
        .sum();
    previous.raw_output.len().min(PREVIOUS_OUTPUT_LIMIT * 4) + issues + 320
}

fn append_retry(user: &mut String, previous: &AttemptRecord) {
    user.push_str("\n\n## Previous attempt\n");
    // The model's reasoning is its own: the retry shows the answer it gave, not how it got there.
    let (raw, _) = crate::read::split_reasoning(&previous.raw_output);
    let raw: &str = &raw;
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

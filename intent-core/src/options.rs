//! Request and client options.

use std::time::Duration;

use serde_json::Value;

use crate::request::ReasoningEffort;

/// A worked example: an input and the exact answer expected for it.
///
/// Write the output as the model should answer: plain text for a `String` result, the envelope
/// `{"value": ...}` for any other.
///
/// ```
/// use intent_core::IntentExample;
///
/// let example = IntentExample::new("2 apples and 3 pears", r#"{"value": 5}"#);
/// assert_eq!(example.output, r#"{"value": 5}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IntentExample {
    /// The example's input, as the model would see it.
    pub input: String,
    /// The exact answer expected.
    pub output: String,
}

impl IntentExample {
    /// An example from its input and output text.
    pub fn new(input: impl Into<String>, output: impl Into<String>) -> Self {
        IntentExample {
            input: input.into(),
            output: output.into(),
        }
    }
}

/// The judge: a second model call that checks an answer carries out the intent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgeOptions {
    /// The provider to ask, by name; the answering provider when `None`.
    pub provider: Option<String>,
    /// The model to ask; the request's model when `None`.
    pub model: Option<String>,
    /// Extra criteria for the judge, in words.
    pub instructions: Option<String>,
}

/// Options for one request. Every field is optional; `Default` is a plain request.
///
/// ```
/// use intent_core::{AiRequestOptions, IntentExample};
///
/// let options = AiRequestOptions {
///     expected_output_description: Some("ISO 4217 currency codes".into()),
///     max_output_tokens: Some(512),
///     temperature: Some(0.0),
///     examples: vec![IntentExample::new("ten euros", r#"{"value": "EUR"}"#)],
///     ..AiRequestOptions::default()
/// };
/// assert!(options.model.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AiRequestOptions {
    /// What a good answer looks like, in prose, where the type alone is not enough.
    pub expected_output_description: Option<String>,
    /// Added to the system message after a blank line: the role, the audience, the house style.
    pub system_instructions: Option<String>,
    /// Worked examples, rendered in order and numbered from 1.
    pub examples: Vec<IntentExample>,
    /// The longest reply, in tokens, for each model call; a reply cut off there fails its attempt.
    pub max_output_tokens: Option<u32>,
    /// The sampling temperature (0 to 2); none is sent when `None`.
    pub temperature: Option<f32>,
    /// The model to ask; it goes to the fallback too.
    pub model: Option<String>,
    /// How hard a reasoning model thinks (OpenAI `reasoning_effort`, Gemini `thinkingLevel`);
    /// none is sent when `None`.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// The most tokens a model may spend thinking before it answers (Anthropic extended thinking,
    /// Gemini `thinkingBudget`; 0 turns thinking off). With Anthropic, `max_output_tokens` stays
    /// the answer's own limit: the budget is added to it, and the temperature is not sent.
    pub thinking_budget: Option<u32>,
    /// The provider to ask, by name; naming one turns fallback off.
    pub provider: Option<String>,
    /// Where the attempts after a failed one go: a stronger provider or model of the client, asked
    /// with the failed attempt's findings (see [`Escalation`](crate::Escalation)); retries go
    /// where the first attempt went when `None`.
    pub escalation: Option<crate::Escalation>,
    /// Rule lines stated to the model after the result type's own, under "Rules for members of
    /// `<result>`", each as `- lines[].quantity: at most 1000`. They are stated, not checked: an
    /// intent catalog checks its rules itself (see `AiCall::validate_json`).
    pub rule_lines: Vec<String>,
    /// A JSON schema for a `serde_json::Value` result, sent strict.
    pub output_schema: Option<Value>,
    /// Ask a judge whether the answer carries out the intent (off when `None`).
    pub judge: Option<JudgeOptions>,
    /// Overrides the client's `max_attempts` for this request.
    pub max_attempts: Option<u32>,
    /// Overrides the client's token budget (input plus output, over every call) for this request.
    pub max_total_tokens: Option<u64>,
    /// Overrides the client's wall-clock deadline for this request.
    pub deadline: Option<Duration>,
    /// Skip the cache for this request (neither read nor written).
    pub no_cache: bool,
    /// Ask the provider to cache the prompt's stable prefix (the system message, the schema), so
    /// that repeated calls with the same instructions pay the cached input rate: Anthropic gets
    /// `cache_control: {"type": "ephemeral"}` on its system block, OpenAI (both APIs) a
    /// `prompt_cache_key` made from that prefix, which keeps such calls on the same cache; Gemini
    /// caches implicitly and needs nothing sent. The tokens served from the cache are in
    /// [`Usage::cached_tokens`](crate::Usage::cached_tokens) whichever way they were cached.
    /// Off by default: Anthropic bills writing the cache at more than the plain input rate, so it
    /// pays off only for a prefix reused within the cache's lifetime (5 minutes), and only one long
    /// enough to be cached at all (1024 to 4096 tokens by model; a shorter one is silently not).
    pub prompt_caching: bool,
}

/// Options for every call of a client.
///
/// ```
/// use intent_core::IntentClientOptions;
///
/// let options = IntentClientOptions { max_attempts: 2, ..IntentClientOptions::default() };
/// assert_eq!(options.max_input_chars, 200_000);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct IntentClientOptions {
    /// The longest serialized input, in characters; a longer input fails before any call.
    pub max_input_chars: usize,
    /// Attempts per call, the first included (at least 1).
    pub max_attempts: u32,
    /// A token budget per call (input plus output, over every call), when set.
    pub max_total_tokens: Option<u64>,
    /// A wall-clock deadline per call, when set.
    pub deadline: Option<Duration>,
}

impl Default for IntentClientOptions {
    fn default() -> Self {
        IntentClientOptions {
            max_input_chars: 200_000,
            max_attempts: 3,
            max_total_tokens: None,
            deadline: None,
        }
    }
}

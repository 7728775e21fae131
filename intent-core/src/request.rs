//! What a provider receives: [`AiRequest`] and its [`ResponseFormat`].

use serde_json::Value;

/// The schema name sent with a result's strict schema.
pub const DEFAULT_SCHEMA_NAME: &str = "intent_output";

/// The schema name sent with the judge's strict schema.
pub const JUDGE_SCHEMA_NAME: &str = "judge_verdict";

/// How the provider is asked to format its reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ResponseFormat {
    /// Plain text: no format is sent.
    #[default]
    Text,
    /// Any JSON object (OpenAI `json_object`; for Anthropic the prompt carries the contract).
    JsonObject,
    /// JSON under a strict schema (OpenAI `json_schema` strict; Anthropic `output_config.format`).
    JsonSchema,
}

/// How hard a reasoning model thinks before it answers.
///
/// Sent as OpenAI's `reasoning_effort` (Chat Completions) or `reasoning.effort` (Responses), and
/// as Gemini's `thinkingConfig.thinkingLevel`; Anthropic takes a token budget instead
/// (`AiRequestOptions::thinking_budget`). Models that do not reason refuse it, so it is sent only
/// when set.
///
/// ```
/// use intent_core::ReasoningEffort;
///
/// assert_eq!(ReasoningEffort::Low.as_str(), "low");
/// assert_eq!(ReasoningEffort::High.to_string(), "high");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReasoningEffort {
    /// Little reasoning: faster and cheaper.
    Low,
    /// The usual default of reasoning models.
    Medium,
    /// The most reasoning the request allows.
    High,
}

impl ReasoningEffort {
    /// The lowercase wire name: `low`, `medium` or `high`.
    ///
    /// ```
    /// assert_eq!(intent_core::ReasoningEffort::Medium.as_str(), "medium");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }
}

impl std::fmt::Display for ReasoningEffort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for ReasoningEffort {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One model call, as a provider receives it.
///
/// ```
/// use intent_core::{AiRequest, ResponseFormat};
///
/// let request = AiRequest::new("You are terse.", "Say hi.");
/// assert_eq!(request.format, ResponseFormat::Text);
/// assert_eq!(request.schema_name, "intent_output");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AiRequest {
    /// The system prompt.
    pub system: String,
    /// The user message.
    pub user: String,
    /// The reply's format.
    pub format: ResponseFormat,
    /// The strict schema, for [`ResponseFormat::JsonSchema`].
    pub schema: Option<Value>,
    /// The schema's name (`intent_output`; the judge uses `judge_verdict`).
    pub schema_name: String,
    /// The most tokens the reply may have.
    pub max_output_tokens: Option<u32>,
    /// The sampling temperature; none is sent when `None`.
    pub temperature: Option<f32>,
    /// The model to ask; the provider's own default when `None`.
    pub model: Option<String>,
    /// How hard a reasoning model thinks; none is sent when `None`.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// The most tokens a model may spend thinking (Anthropic `budget_tokens`, Gemini
    /// `thinkingBudget`; 0 turns thinking off); none is sent when `None`.
    pub thinking_budget: Option<u32>,
}

impl AiRequest {
    /// A text request with no limits or model.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Self {
        AiRequest {
            system: system.into(),
            user: user.into(),
            format: ResponseFormat::Text,
            schema: None,
            schema_name: DEFAULT_SCHEMA_NAME.to_owned(),
            max_output_tokens: None,
            temperature: None,
            model: None,
            reasoning_effort: None,
            thinking_budget: None,
        }
    }

    /// The same request with a format and schema.
    pub fn with_format(mut self, format: ResponseFormat, schema: Option<Value>) -> Self {
        self.format = format;
        self.schema = schema;
        self
    }
}

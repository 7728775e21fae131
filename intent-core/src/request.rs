//! What a provider receives: [`AiRequest`], its [`ResponseFormat`] and its [`SharedSchema`].
//!
//! A call's attempts (and a collection's chunks) send requests that differ only in their retry
//! sections, so a request shares what stays the same instead of owning a copy: the system prompt,
//! the user message (the first attempt's is the plan's own) and the strict schema, which is also
//! serialized once, when it is made, rather than once per request body.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::attachment::Attachment;
use crate::toolbox::RequestTools;

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
/// Cloning a request is cheap: its messages and schema are shared.
///
/// ```
/// use intent_core::{AiRequest, ResponseFormat};
///
/// let request = AiRequest::new("You are terse.", "Say hi.");
/// assert_eq!(request.format, ResponseFormat::Text);
/// assert_eq!(request.schema_name, "intent_output");
/// assert!(request.user.contains("hi"));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AiRequest {
    /// The system prompt, shared by every attempt of a call.
    pub system: Arc<String>,
    /// The user message. A first attempt shares its call's message; a retry's is written once,
    /// with its retry sections, and shared from then on (an `Arc<String>` rather than an
    /// `Arc<str>`, which would copy the message again when made).
    pub user: Arc<String>,
    /// The reply's format.
    pub format: ResponseFormat,
    /// The strict schema, for [`ResponseFormat::JsonSchema`].
    pub schema: Option<SharedSchema>,
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
    /// Ask the provider to cache the prompt's stable prefix (`AiRequestOptions::prompt_caching`):
    /// Anthropic `cache_control` on the system block, OpenAI a `prompt_cache_key`.
    pub prompt_caching: bool,
    /// Images and documents sent with the user message, in order (their bytes shared, never
    /// copied per attempt or per fallback).
    pub attachments: Vec<Attachment>,
    /// The sampling seed; none is sent when `None`. A provider that takes none refuses a request
    /// with one, before anything is sent (see [`AiRequestOptions::seed`](crate::AiRequestOptions::seed)).
    pub seed: Option<u64>,
    /// Nucleus sampling's `top_p`; none is sent when `None`.
    pub top_p: Option<f32>,
    /// Stop sequences; none are sent when empty.
    pub stop: Vec<String>,
    /// Body fields written at the top level of the provider's request body, replacing any of the
    /// same name; shared by every attempt of a call.
    pub extra_body: Option<Arc<serde_json::Map<String, Value>>>,
    /// Ask for the log probabilities of the reply's tokens ([`AiResponse::logprobs`](crate::provider::AiResponse::logprobs));
    /// a provider that gives none refuses the request before sending it.
    pub logprobs: bool,
    /// The tools the model may call and the rounds of calls and results so far, for a call with
    /// tools; `None` for every other request, which carries nothing more for them.
    pub tools: Option<Arc<RequestTools>>,
}

impl AiRequest {
    /// A text request with no limits or model.
    pub fn new(system: impl Into<String>, user: impl Into<String>) -> Self {
        AiRequest {
            system: Arc::new(system.into()),
            user: Arc::new(user.into()),
            format: ResponseFormat::Text,
            schema: None,
            schema_name: DEFAULT_SCHEMA_NAME.to_owned(),
            max_output_tokens: None,
            temperature: None,
            model: None,
            reasoning_effort: None,
            thinking_budget: None,
            prompt_caching: false,
            attachments: Vec::new(),
            seed: None,
            top_p: None,
            stop: Vec::new(),
            extra_body: None,
            logprobs: false,
            tools: None,
        }
    }

    /// This request as it goes to a provider that cannot call tools under a response format,
    /// when it lets the model call tools under one (see
    /// [`Provider::tools_beside_format`](crate::provider::Provider::tools_beside_format)): no
    /// format and no schema, the prompt's output requirements still describing the answer.
    /// `None` when it goes as it is: no tools, an answer round (no call allowed), or no format.
    pub(crate) fn with_tools_apart(&self) -> Option<AiRequest> {
        let tools = self.tools.as_deref()?;
        if tools.choice == crate::toolbox::ToolChoice::None || self.format == ResponseFormat::Text {
            return None;
        }
        let mut apart = self.clone();
        apart.format = ResponseFormat::Text;
        apart.schema = None;
        Some(apart)
    }

    /// The seed, `top_p`, stop sequences and extra body fields as one cache-key part, or `None`
    /// when none is set (so the keys of requests without them stay what they were).
    pub(crate) fn sampling_key(&self) -> Option<String> {
        if self.seed.is_none()
            && self.top_p.is_none()
            && self.stop.is_empty()
            && self.extra_body.is_none()
        {
            return None;
        }
        let mut part = String::from("sampling");
        if let Some(seed) = self.seed {
            part.push_str(&format!(";seed={seed}"));
        }
        if let Some(top_p) = self.top_p {
            part.push_str(&format!(";top_p={}", top_p.to_bits()));
        }
        if !self.stop.is_empty() {
            part.push_str(";stop=");
            part.push_str(&serde_json::to_string(&self.stop).unwrap_or_default());
        }
        if let Some(extra) = &self.extra_body {
            part.push_str(";extra_body=");
            part.push_str(&serde_json::to_string(&**extra).unwrap_or_default());
        }
        Some(part)
    }

    /// The bytes of the request's messages, schema and attachments (as base64), for sizing a
    /// body up front.
    pub(crate) fn text_len(&self) -> usize {
        self.system.len()
            + self.user.len()
            + self.schema.as_ref().map_or(0, |s| s.json().len())
            + crate::attachment::provider_limits::body_len(&self.attachments)
            + self.tools.as_ref().map_or(0, |tools| tools.text_len())
    }

    /// The same request with a format and schema.
    ///
    /// ```
    /// use intent_core::{AiRequest, ResponseFormat};
    ///
    /// let schema = serde_json::json!({"type": "object", "properties": {}});
    /// let request = AiRequest::new("s", "u").with_format(ResponseFormat::JsonSchema, Some(schema.clone()));
    /// assert_eq!(request.schema.as_deref(), Some(&schema));
    /// ```
    pub fn with_format(mut self, format: ResponseFormat, schema: Option<Value>) -> Self {
        self.format = format;
        self.schema = schema.map(SharedSchema::new);
        self
    }
}

/// A request's JSON schema: shared, never copied per request, and serialized once, when it is made.
///
/// It reads as the [`Value`] it holds (it dereferences to it) and serializes as that value's
/// compact JSON text, written out as it was made rather than walked again: a provider puts it in a
/// request body with serde, as any other field.
///
/// ```
/// use intent_core::provider::SharedSchema;
///
/// let schema = SharedSchema::new(serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
/// assert_eq!(schema["properties"]["n"]["type"], "integer");
/// assert_eq!(schema.json(), r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#);
/// let body = serde_json::json!({"schema": schema});
/// assert_eq!(body["schema"]["type"], "object");
/// ```
#[derive(Clone)]
pub struct SharedSchema {
    value: Arc<Value>,
    /// The compact JSON text of `value`; `None` only if serializing a `Value` ever failed (it
    /// cannot), in which case the value is serialized each time instead.
    json: Option<Arc<RawValue>>,
}

impl SharedSchema {
    /// Shares `schema`, serializing it once.
    pub fn new(schema: impl Into<Arc<Value>>) -> Self {
        let value = schema.into();
        let json = serde_json::value::to_raw_value(&*value).ok().map(Arc::from);
        SharedSchema { value, json }
    }

    /// The schema.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The schema as compact JSON text, as request bodies and cache keys carry it.
    ///
    /// ```
    /// let schema = intent_core::provider::SharedSchema::new(serde_json::json!({"type": "string"}));
    /// assert_eq!(schema.json(), r#"{"type":"string"}"#);
    /// ```
    pub fn json(&self) -> std::borrow::Cow<'_, str> {
        match &self.json {
            Some(raw) => std::borrow::Cow::Borrowed(raw.get()),
            None => std::borrow::Cow::Owned(self.value.to_string()),
        }
    }
}

impl Deref for SharedSchema {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.value
    }
}

impl AsRef<Value> for SharedSchema {
    fn as_ref(&self) -> &Value {
        &self.value
    }
}

impl From<Value> for SharedSchema {
    fn from(schema: Value) -> Self {
        SharedSchema::new(schema)
    }
}

impl From<Arc<Value>> for SharedSchema {
    fn from(schema: Arc<Value>) -> Self {
        SharedSchema::new(schema)
    }
}

impl PartialEq for SharedSchema {
    fn eq(&self, other: &SharedSchema) -> bool {
        Arc::ptr_eq(&self.value, &other.value) || self.value == other.value
    }
}

impl PartialEq<Value> for SharedSchema {
    fn eq(&self, other: &Value) -> bool {
        *self.value == *other
    }
}

impl fmt::Debug for SharedSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.value, f)
    }
}

impl Serialize for SharedSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.json {
            Some(raw) => raw.serialize(serializer),
            None => self.value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_shared_schema_serializes_to_the_text_of_its_value() {
        let value = json!({"b": [1, {"c": "d\"e"}], "a": null});
        let schema = SharedSchema::new(value.clone());
        assert_eq!(serde_json::to_string(&schema).unwrap(), value.to_string());
        assert_eq!(serde_json::to_value(&schema).unwrap(), value);
    }

    #[test]
    fn a_cloned_request_shares_its_messages_and_schema() {
        let request = AiRequest::new("system", "user")
            .with_format(ResponseFormat::JsonSchema, Some(json!({"type": "object"})));
        let copy = request.clone();
        assert!(Arc::ptr_eq(&request.user, &copy.user));
        assert!(Arc::ptr_eq(&request.system, &copy.system));
        let (Some(a), Some(b)) = (&request.schema, &copy.schema) else {
            panic!("both carry the schema");
        };
        assert!(std::ptr::eq(a.value(), b.value()));
        assert_eq!(request, copy);
    }
}

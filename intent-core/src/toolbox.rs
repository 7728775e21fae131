//! What a tool is once its argument type is erased, and the turns of a conversation that calls
//! tools, as a provider receives them.
//!
//! A call that gives the model tools ([`AiCall::tool`](crate::AiCall::tool)) sends, on every
//! round after the first, the tool-call turns the model made so far and the results that went
//! back: [`RequestTools`] on [`AiRequest::tools`](crate::AiRequest::tools). A plain request
//! carries `None` there and costs nothing more. Each vendor writes these turns in its own wire
//! (`provider/<vendor>/tools.rs`).
//!
//! [`Tool`] itself is defined here, below the request builder, so that a call can hold its tools
//! without the builder depending on the reader; its typed constructor,
//! [`Tool::new`](crate::tool::Tool::new), lives with the public [`crate::tool`] module.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// A tool the model may call, as the request describes it: its name, what it does, and the
/// strict JSON schema of its arguments.
///
/// ```
/// use intent_core::provider::ToolDefinition;
///
/// let tool = ToolDefinition::new("lookup_order", "Finds an order.", serde_json::json!({"type": "object"}));
/// assert_eq!(tool.name, "lookup_order");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The strict JSON schema of its arguments (an object schema).
    pub parameters: Arc<Value>,
}

impl ToolDefinition {
    /// A definition.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: impl Into<Arc<Value>>,
    ) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters: parameters.into(),
        }
    }
}

/// One tool call the model made: the vendor's id for it, the tool's name, and its arguments
/// exactly as the model wrote them (JSON text, not yet read).
///
/// ```
/// use intent_core::provider::ToolCall;
///
/// let call = ToolCall::new("call_1", "lookup_order", r#"{"order_id": "A17"}"#);
/// assert_eq!(call.arguments, r#"{"order_id": "A17"}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The vendor's id of the call, which its result names (empty when the vendor gives none,
    /// as Gemini does).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them.
    pub arguments: String,
}

impl ToolCall {
    /// A call.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// What went back to the model for one [`ToolCall`]: the tool's output, or the error it is
/// told of instead (arguments that do not read as the tool's type, an unknown tool, a handler
/// that failed or panicked).
///
/// ```
/// use intent_core::provider::ToolResult;
///
/// let result = ToolResult::new("call_1", "lookup_order", r#"{"status":"shipped"}"#, false);
/// assert!(!result.is_error);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the call it answers.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The output (JSON text, or the text of a string output), or the error's message.
    pub content: String,
    /// True when `content` is an error.
    pub is_error: bool,
}

impl ToolResult {
    /// A result.
    pub fn new(
        call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        ToolResult {
            call_id: call_id.into(),
            name: name.into(),
            content: content.into(),
            is_error,
        }
    }
}

/// One round of a tool-calling conversation: the model's turn (any text it wrote beside its
/// calls, the calls) and the results that went back.
///
/// ```
/// use intent_core::provider::{ToolCall, ToolResult, ToolRound};
///
/// let round = ToolRound::new(
///     vec![ToolCall::new("c1", "lookup_order", "{}")],
///     vec![ToolResult::new("c1", "lookup_order", "{}", false)],
/// );
/// assert_eq!(round.calls.len(), round.results.len());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolRound {
    /// The text the model wrote beside its calls (often empty).
    pub text: String,
    /// The model's turn as the vendor must be sent it again, when it holds more than text and
    /// calls: Anthropic's content blocks with their signed `thinking` blocks, Gemini's parts
    /// with their `thoughtSignature`s. `None` for vendors that need nothing more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vendor_turn: Option<Value>,
    /// The calls, in the order the model made them.
    pub calls: Vec<ToolCall>,
    /// Their results, one per call, in the same order.
    pub results: Vec<ToolResult>,
}

impl ToolRound {
    /// A round with no text beside its calls.
    pub fn new(calls: Vec<ToolCall>, results: Vec<ToolResult>) -> Self {
        ToolRound {
            text: String::new(),
            vendor_turn: None,
            calls,
            results,
        }
    }
}

/// Whether the model must call a tool.
///
/// ```
/// assert_eq!(intent_core::provider::ToolChoice::default(), intent_core::provider::ToolChoice::Auto);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides: call tools, or answer.
    #[default]
    Auto,
    /// The model must call one of the tools (OpenAI `required`, Anthropic `any`, Gemini mode
    /// `ANY`): how [`OutputMode::Tool`](crate::OutputMode::Tool) forces its `final_answer`.
    Required,
    /// The model must answer now, calling no tool (OpenAI `none`, Anthropic `none`; Gemini is
    /// sent no declarations): the answer round of an attempt whose model repeated calls it
    /// already has the results of, or whose server could not constrain its answer while
    /// tools were offered (see
    /// [`Provider::tools_beside_format`](crate::provider::Provider::tools_beside_format)).
    None,
}

/// The tools of a request and the rounds so far: what [`AiRequest::tools`](crate::AiRequest::tools)
/// holds for a call with tools.
///
/// ```
/// use intent_core::provider::{RequestTools, ToolChoice, ToolDefinition};
///
/// let tools = RequestTools::new(vec![ToolDefinition::new("t", "d", serde_json::json!({"type": "object"}))]);
/// assert_eq!(tools.choice, ToolChoice::Auto);
/// assert!(tools.rounds.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RequestTools {
    /// The tools the model may call (shared by every round and attempt of a call).
    pub definitions: Arc<[ToolDefinition]>,
    /// Whether it must call one.
    pub choice: ToolChoice,
    /// The rounds of calls and results so far, oldest first.
    pub rounds: Vec<ToolRound>,
}

impl RequestTools {
    /// The first round's tools: none called yet, the model free to answer.
    pub fn new(definitions: impl Into<Arc<[ToolDefinition]>>) -> Self {
        RequestTools {
            definitions: definitions.into(),
            choice: ToolChoice::Auto,
            rounds: Vec::new(),
        }
    }
}

/// One tool call of an attempt, as recorded on
/// [`AttemptRecord::tool_calls`](crate::AttemptRecord::tool_calls): the tool's name, the
/// arguments as the model sent them, what went back, and how long the tool took.
///
/// ```
/// use intent_core::tool::ToolCallRecord;
///
/// let record = ToolCallRecord::new("lookup_order", serde_json::json!({"order_id": "A17"}));
/// assert!(!record.is_error);
/// assert_eq!(record.arguments["order_id"], "A17");
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCallRecord {
    /// The tool's name, as the model called it.
    pub name: String,
    /// The arguments as the model sent them: their JSON, or the text itself (a JSON string)
    /// when they were not JSON.
    pub arguments: Value,
    /// What went back to the model: the tool's output, or the error it was told of.
    pub output: String,
    /// True when `output` is an error (arguments refused, an unknown tool, a handler that
    /// failed or panicked, the deadline).
    pub is_error: bool,
    /// How long the tool took (zero when it was not run).
    pub latency: Duration,
}

impl ToolCallRecord {
    /// A record of a call with nothing given back yet.
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        ToolCallRecord {
            name: name.into(),
            arguments,
            output: String::new(),
            is_error: false,
            latency: Duration::ZERO,
        }
    }
}

/// An error a tool's handler gives back: its message goes to the model as the tool's result,
/// marked as an error, and the model may call again or answer without it.
///
/// ```
/// use intent_core::tool::ToolError;
///
/// let error = ToolError::new("no order A99");
/// assert_eq!(error.message(), "no order A99");
/// assert_eq!(error.to_string(), "no order A99");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with `message`, written for the model to act on.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// A running tool: its output as JSON, or its error.
pub(crate) type ToolFuture = Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send>>;

/// A tool's arguments read and its handler started, or what the model is told of the findings
/// on the arguments instead (each with its JSON path).
pub(crate) type Start = dyn Fn(&str) -> Result<ToolFuture, String> + Send + Sync;

/// A tool the model may call: a name, a description, and a handler of one typed argument
/// (built with [`Tool::new`](crate::tool::Tool::new)). Cloning is cheap: clones share the
/// handler.
#[derive(Clone)]
pub struct Tool {
    pub(crate) definition: Arc<ToolDefinition>,
    pub(crate) start: Arc<Start>,
}

impl Tool {
    /// The tool's name.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::tool::ToolError;
    ///
    /// #[derive(Intent, serde::Deserialize)]
    /// struct Lookup { order_id: String }
    ///
    /// let tool = Tool::new("lookup_order", "Finds an order.", |a: Lookup| async move {
    ///     Ok::<_, ToolError>(a.order_id)
    /// });
    /// assert_eq!(tool.name(), "lookup_order");
    /// ```
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// What the request says of the tool: its name, description and argument schema.
    pub fn definition(&self) -> &ToolDefinition {
        &self.definition
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.definition.name)
            .field("description", &self.definition.description)
            .finish_non_exhaustive()
    }
}

impl RequestTools {
    /// The bytes of the definitions and rounds, for sizing a body up front.
    pub(crate) fn text_len(&self) -> usize {
        let definitions: usize = self
            .definitions
            .iter()
            .map(|d| d.name.len() + d.description.len() + 64)
            .sum();
        let rounds: usize = self
            .rounds
            .iter()
            .map(|round| {
                round.text.len()
                    + round
                        .calls
                        .iter()
                        .map(|c| c.arguments.len() + 64)
                        .sum::<usize>()
                    + round
                        .results
                        .iter()
                        .map(|r| r.content.len() + 64)
                        .sum::<usize>()
            })
            .sum();
        definitions + rounds
    }
}

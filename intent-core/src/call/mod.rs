//! [`AiCall`]: the request builder that `T::ai` and `client.transform` return.
//!
//! The builder only holds what the call will do; awaiting it runs the attempt loop, whose
//! `IntoFuture` implementation lives with the loop (`attempt`), so the builder depends on nothing
//! that runs a call.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::attachment::Attachment;
use crate::client::IntentClient;
use crate::error::IntentError;
use crate::input::{self, SerializedInput};
use crate::options::AiRequestOptions;
use crate::result::ResultIssue;
use crate::shape::{rule_line, MemberStep};
use crate::toolbox::Tool;

pub(crate) mod setters;

/// A `require` rule: the line it is stated with in the first prompt's output requirements, among
/// the member rules and worded as they are (`- the result: Quantity must be at most 1000.`;
/// `subject` is the path of what the rule is about, empty for the result itself), and its check,
/// `message` when `predicate` is false.
pub(crate) fn require_rule<'a, T>(
    subject: &[MemberStep<'_>],
    predicate: impl Fn(&T) -> bool + Send + Sync + 'a,
    message: impl Into<String>,
) -> (Option<String>, Check<'a, T>) {
    let message = message.into();
    let words = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let line = (!words.is_empty()).then(|| rule_line(subject, false, &[words]));
    let check: Check<'a, T> = Box::new(move |value| {
        if predicate(value) {
            Vec::new()
        } else {
            vec![message.clone()]
        }
    });
    (line, check)
}

/// A check on the value: the messages of what is wrong, empty when it passes.
pub(crate) type Check<'a, T> = Box<dyn Fn(&T) -> Vec<String> + Send + Sync + 'a>;

/// A check on the reply's JSON value: the issues found, each with its path.
pub(crate) type JsonCheck<'a> = Box<dyn Fn(&Value) -> Vec<ResultIssue> + Send + Sync + 'a>;

/// A call being prepared: `.options(..)` or a setter per option (`.temperature(..)`,
/// `.max_output_tokens(..)`, `.model(..)`, ...), `.require(..)`, `.validate(..)`, then `.await`.
///
/// The input is serialized when the call is made (so it may be borrowed only until then). The
/// call starts from the client's [`default_options`](crate::IntentClient::default_options); an
/// intent file's options lie over those, and the call's setters and `.options(..)` over both,
/// field by field.
///
/// ```
/// use intent_core::prelude::*;
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([r#"{"value": 3}"#]);
/// let client = IntentClient::new(model.clone());
/// let count = u32::ai(&client, "a, b, c", "Count the letters.")
///     .temperature(0.0)
///     .max_output_tokens(20)
///     .require(|n| *n > 0, "Count at least one letter.")
///     .await;
/// assert_eq!(count.value(), Some(&3));
/// let sent = &model.requests()[0];
/// assert_eq!((sent.temperature, sent.max_output_tokens), (Some(0.0), Some(20)));
/// // The rule is stated up front, before any reply broke it.
/// assert!(sent.user.contains("- the result: Count at least one letter."));
/// # });
/// ```
#[must_use = "an AiCall does nothing until it is awaited"]
pub struct AiCall<'a, T> {
    pub(crate) client: &'a IntentClient,
    pub(crate) input: Result<SerializedInput, IntentError>,
    pub(crate) intent: &'a str,
    pub(crate) options: AiRequestOptions,
    pub(crate) checks: Vec<Check<'a, T>>,
    pub(crate) json_checks: Vec<JsonCheck<'a>>,
    /// The tools the model may call (`.tool(..)`); empty for a plain call.
    pub(crate) tools: Vec<Tool>,
}

impl<T> fmt::Debug for AiCall<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiCall")
            .field("intent", &self.intent)
            .field("options", &self.options)
            .field("checks", &self.checks.len())
            .field("json_checks", &self.json_checks.len())
            .field("tools", &self.tools)
            .finish()
    }
}

impl<'a, T> AiCall<'a, T> {
    pub(crate) fn new<I: Serialize + ?Sized>(
        client: &'a IntentClient,
        input: &I,
        intent: &'a str,
    ) -> Self {
        AiCall {
            client,
            input: input::serialize_with_attachments(input, client.options().max_input_chars),
            intent,
            options: client.default_options().clone(),
            checks: Vec::new(),
            json_checks: Vec::new(),
            tools: Vec::new(),
        }
    }

    /// A call that fails with `error` when awaited, sending nothing.
    #[cfg_attr(not(feature = "catalog"), allow(dead_code))]
    pub(crate) fn refused(client: &'a IntentClient, error: IntentError) -> Self {
        AiCall {
            client,
            input: Err(error),
            intent: "",
            options: AiRequestOptions::default(),
            checks: Vec::new(),
            json_checks: Vec::new(),
            tools: Vec::new(),
        }
    }

    /// Lays `options` over the call's, field by field (see [`AiRequestOptions::merge`]): a field
    /// set in `options` wins, an unset one keeps what the client's defaults, an intent file or an
    /// earlier setter gave it. An `output_schema` set by `transform` is kept unless `options`
    /// carries one of its own.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedProvider::new([r#"{"value": 3}"#]);
    /// let client = IntentClient::new(model.clone());
    /// let _ = u32::ai(&client, "a, b, c", "Count the letters.")
    ///     .temperature(0.0)
    ///     .options(AiRequestOptions { max_output_tokens: Some(20), ..Default::default() })
    ///     .await;
    /// let sent = &model.requests()[0];
    /// assert_eq!((sent.temperature, sent.max_output_tokens), (Some(0.0), Some(20)));
    /// # });
    /// ```
    pub fn options(mut self, options: AiRequestOptions) -> Self {
        self.options.merge(options);
        self
    }

    /// Sends an image or a document with the input; call it once per attachment, in the order
    /// they are to be sent. An attachment that fails its checks (empty, cut short, mislabelled,
    /// too large) fails the call before anything is sent.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedProvider::new([r#"{"value": 12.5}"#]);
    /// let client = IntentClient::new(model.clone());
    /// # let png_bytes = vec![
    /// #     0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
    /// #     0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F,
    /// #     0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8,
    /// #     0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00,
    /// #     0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    /// # ];
    /// let receipt = Attachment::from_bytes(png_bytes).unwrap();
    /// let total = f64::ai(&client, "The receipt is attached.", "Read the receipt's total.")
    ///     .attach(receipt)
    ///     .await;
    /// assert_eq!(total.value(), Some(&12.5));
    /// assert_eq!(model.requests()[0].attachments[0].media_type(), "image/png");
    /// # });
    /// ```
    pub fn attach(mut self, attachment: Attachment) -> Self {
        if let Ok(input) = &mut self.input {
            match attachment.check() {
                Ok(()) => input.attachments.push(attachment),
                Err(error) => self.input = Err(error),
            }
        }
        self
    }

    /// Adds a rule on the value: when `predicate` is false, `message` goes back to the model.
    ///
    /// Write the message for the model to act on: "Quantity must be at most 1000." It is also
    /// stated in the first prompt's output requirements, among the member rules (as
    /// `- the result: Quantity must be at most 1000.`), so a model can meet it on the first
    /// attempt.
    pub fn require(
        mut self,
        predicate: impl Fn(&T) -> bool + Send + Sync + 'a,
        message: impl Into<String>,
    ) -> Self {
        let (line, check) = require_rule(&[], predicate, message);
        self.options.rule_lines.extend(line);
        self.checks.push(check);
        self
    }

    /// Adds a validator: every message it returns is an issue that goes back to the model.
    pub fn validate(mut self, validator: impl Fn(&T) -> Vec<String> + Send + Sync + 'a) -> Self {
        self.checks.push(Box::new(validator));
        self
    }

    /// Adds a check on the reply as JSON: the value inside the `{"value": ...}` envelope (the text
    /// itself, as a JSON string, for a `String` result), once it has been read as a `T`. Each issue
    /// it returns goes back to the model; give it a JSON pointer from the reply's root
    /// (`/value/lines/0/quantity`).
    ///
    /// A reply that the lenient reader accepted but that is not plain JSON (comments, trailing
    /// commas) fails the attempt, since the check cannot see it; prose around the JSON and a code
    /// fence are accepted.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::IssueKind;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": [1, 2, 2]}"#, r#"{"value": [1, 2]}"#]));
    /// let numbers = <Vec<u8>>::ai(&client, "1, 2", "List the numbers.")
    ///     .validate_json(|json| match json.as_array() {
    ///         Some(items) if items.len() > 2 => vec![ResultIssue::at("/value", IssueKind::Rule, "Return at most 2 numbers.")],
    ///         _ => Vec::new(),
    ///     })
    ///     .await;
    /// assert_eq!(numbers.value(), Some(&vec![1, 2]));
    /// # });
    /// ```
    pub fn validate_json(
        mut self,
        check: impl Fn(&Value) -> Vec<ResultIssue> + Send + Sync + 'a,
    ) -> Self {
        self.json_checks.push(Box::new(check));
        self
    }
}

impl IntentClient {
    /// Asks for a result shaped by a JSON schema chosen at run time; the value comes back as JSON,
    /// verified against the **whole** schema.
    ///
    /// The schema is sent strict (see [`build_envelope_from_schema`](crate::schema::build_envelope_from_schema)),
    /// which drops the constraints providers' strict modes refuse (`minimum`, `pattern`,
    /// `maxLength`, ...) and which a provider does not enforce at all when the call runs in
    /// JSON-object mode (the schema step-down, a server without structured output). So the
    /// constraints the strict copy drops, and every `format`, are stated in the prompt's output
    /// requirements, and every reply is verified against the schema as given: every keyword of
    /// drafts 4 to 2020-12, formats asserted (`date`, `date-time`, `time`, `duration`, `email`,
    /// `hostname`, `ipv4`, `ipv6`, `uri`, `uuid`, `regex` and the rest the JSON Schema
    /// specification defines; another format is stated to the model, not checked). Each
    /// violation is an issue at its JSON pointer under `/value`, sent back to the model on the
    /// next attempt; `null` answers only where the schema allows it. A schema that breaks its
    /// meta-schema, has a `pattern` that does not compile or a `$ref` to another document (never
    /// fetched) fails the call before anything is sent, naming the keyword and its place. The
    /// behaviour reference checks only that the reply is JSON; this checks it all.
    ///
    /// The schema is compiled once, and kept for the next calls with the same schema (the last
    /// 16 schemas compiled are kept, process-wide). Streamed partials of such a call (`.stream()`)
    /// are read as any JSON; the schema verifies the answer when it is whole, before `Done`.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": {"sku": "A-1", "quantity": 4}}"#]));
    /// let schema = serde_json::json!({"type": "object", "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer"}}});
    /// let line = client.transform("4 of A-1", "Extract the SKU and quantity.", schema).await;
    /// assert_eq!(line.value().unwrap()["quantity"], 4);
    ///
    /// // The whole schema is verified, the constraints the strict copy drops included.
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     r#"{"value": {"email": "dana at example"}}"#,
    ///     r#"{"value": {"email": "dana@example.com"}}"#,
    /// ]));
    /// let schema = serde_json::json!({"type": "object", "properties": {"email": {"type": "string", "format": "email"}}, "required": ["email"]});
    /// let contact = client.transform("Dana, dana@example.com", "Extract the email address.", schema).await;
    /// assert_eq!(contact.value().unwrap()["email"], "dana@example.com");
    /// assert_eq!(contact.attempts()[0].issues[0].path.as_deref(), Some("/value/email"));
    /// # });
    /// ```
    pub fn transform<'a, I>(
        &'a self,
        input: &'a I,
        intent: &'a str,
        schema: Value,
    ) -> AiCall<'a, Value>
    where
        I: Serialize + ?Sized,
    {
        let call = AiCall::new(self, input, intent);
        let options = AiRequestOptions {
            output_schema: Some(schema),
            ..AiRequestOptions::default()
        };
        call.options(options)
    }
}

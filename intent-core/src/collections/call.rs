//! [`CollectionCall`]: the builder that `map_each` and `map_values` return.

use std::collections::{BTreeMap, HashSet};
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::chunk::Element;
use super::result::Progress;
use crate::attachment::{self, Attachment, Scope};
use crate::call::{require_rule, Check};
use crate::client::IntentClient;
use crate::input;
use crate::intent::Intent;
use crate::options::AiRequestOptions;
use crate::result::{IssueKind, ResultIssue};
use crate::shape::MemberStep;

/// Elements per chunk unless [`CollectionCall::chunk_size`] says otherwise.
pub(crate) const DEFAULT_CHUNK_SIZE: usize = 50;

/// Chunks in flight at once unless [`CollectionCall::concurrency`] says otherwise.
pub(crate) const DEFAULT_CONCURRENCY: usize = 4;

pub(crate) type ProgressFn<'a> = Box<dyn Fn(Progress) + Send + Sync + 'a>;

/// How the model answers a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A list of `{"index": i, "value": ..}`, in input order.
    Each,
    /// An object with one member per input key.
    Keyed,
}

/// A collection call being prepared: `.options(..)`, `.chunk_size(n)`, `.concurrency(n)`,
/// `.on_progress(..)`, `.require(..)`, `.validate(..)`, then `.await` it for a
/// [`CollectionResult`](super::CollectionResult).
///
/// The inputs are serialized when the call is made, once each. Each chunk is one call with its own
/// attempts: a chunk whose answer fails verification is asked again with its findings, alone.
/// The request options, `max_attempts`, the token budget and the deadline apply to each chunk.
///
/// ```
/// use intent_core::prelude::*;
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([
///     r#"{"value": [{"index": 0, "value": "rouge"}, {"index": 1, "value": "vert"}]}"#,
///     r#"{"value": [{"index": 2, "value": "bleu"}]}"#,
/// ]);
/// let client = IntentClient::new(model);
/// let colours = ["red", "green", "blue"];
/// let french = client
///     .map_each::<String>(&colours, "Translate into French.")
///     .chunk_size(2)
///     .concurrency(1)
///     .on_progress(|p| println!("{p}"))
///     .await;
/// assert_eq!(french.into_result().unwrap(), ["rouge", "vert", "bleu"]);
/// # });
/// ```
#[must_use = "a CollectionCall does nothing until it is awaited"]
pub struct CollectionCall<'a, K, O> {
    pub(crate) client: &'a IntentClient,
    pub(crate) intent: &'a str,
    pub(crate) mode: Mode,
    pub(crate) keys: Vec<K>,
    pub(crate) elements: Vec<Result<Element, ResultIssue>>,
    pub(crate) label: String,
    pub(crate) options: AiRequestOptions,
    pub(crate) chunk_size: usize,
    pub(crate) concurrency: usize,
    pub(crate) on_progress: Option<ProgressFn<'a>>,
    pub(crate) checks: Vec<Check<'a, O>>,
    /// The tools the model may call for each chunk (`.tool(..)`).
    pub(crate) tools: Vec<crate::toolbox::Tool>,
}

impl<K, O> fmt::Debug for CollectionCall<'_, K, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CollectionCall")
            .field("intent", &self.intent)
            .field("mode", &self.mode)
            .field("elements", &self.elements.len())
            .field("options", &self.options)
            .field("chunk_size", &self.chunk_size)
            .field("concurrency", &self.concurrency)
            .field("checks", &self.checks.len())
            .field("tools", &self.tools)
            .finish()
    }
}

/// How a `map_each` element sits in a chunk's input (used for the input's label).
#[derive(Serialize)]
#[serde(rename = "Element")]
struct LabelElement<'i, I: ?Sized> {
    index: usize,
    input: &'i I,
}

impl<'a, O: Intent> CollectionCall<'a, usize, O> {
    pub(crate) fn each<I: Serialize>(
        client: &'a IntentClient,
        inputs: &[I],
        intent: &'a str,
    ) -> Self {
        let elements = inputs
            .iter()
            .enumerate()
            .map(|(index, input)| {
                let (text, attachments) = element_text(
                    &format!("{{\"index\":{index},\"input\":"),
                    input,
                    "}",
                    Scope::Element(index),
                )?;
                Ok(Element {
                    key: index.to_string(),
                    chars: text.chars().count(),
                    text,
                    attachments,
                })
            })
            .collect();
        // The first element that serializes gives the label (one refused, say for a file cut
        // short, would leave every chunk without one).
        let label = inputs
            .iter()
            .find_map(|element| {
                input::serialize_with_attachments(
                    std::slice::from_ref(&LabelElement {
                        index: 0,
                        input: element,
                    }),
                    usize::MAX,
                )
                .ok()
            })
            .map(|s| s.label)
            .unwrap_or_default();
        CollectionCall::new(
            client,
            intent,
            Mode::Each,
            (0..inputs.len()).collect(),
            elements,
            label,
        )
    }
}

impl<'a, K, O: Intent> CollectionCall<'a, K, O> {
    pub(crate) fn keyed<'m, I>(
        client: &'a IntentClient,
        map: impl IntoIterator<Item = (&'m K, &'m I)>,
        intent: &'a str,
    ) -> Self
    where
        K: Serialize + Clone + 'm,
        I: Serialize + ?Sized + 'm,
    {
        let mut keys = Vec::new();
        let mut elements = Vec::new();
        let mut seen = HashSet::new();
        let mut label = None;
        for (key, input) in map {
            keys.push(key.clone());
            let element = key_text(key).and_then(|key| {
                if !seen.insert(key.clone()) {
                    return Err(ResultIssue::new(
                        IssueKind::Input,
                        format!("Two keys are both written \"{key}\"; each key must be distinct as text. Nothing was sent for this one."),
                    ));
                }
                let quoted = Value::String(key.clone()).to_string();
                let before = format!("{quoted}:");
                let (text, attachments) = element_text(&before, input, "", Scope::Key(quoted))?;
                if label.is_none() {
                    label = input::serialize_with_attachments(&BTreeMap::from([(key.as_str(), input)]), usize::MAX)
                        .ok()
                        .map(|s| s.label);
                }
                Ok(Element {
                    key,
                    chars: text.chars().count(),
                    text,
                    attachments,
                })
            });
            elements.push(element);
        }
        CollectionCall::new(
            client,
            intent,
            Mode::Keyed,
            keys,
            elements,
            label.unwrap_or_default(),
        )
    }
}

/// An element as it sits in a chunk's input: `before`, the input as JSON, `after`, and the
/// attachments it carries, each written as its place in `scope` (`<attachment 1 of element 5:
/// image/png, 70 bytes>`) and checked. Serialized in place and trimmed to its length, since every
/// element is held until its chunk starts.
fn element_text<I: Serialize + ?Sized>(
    before: &str,
    input: &I,
    after: &str,
    scope: Scope,
) -> Result<(String, Vec<Attachment>), ResultIssue> {
    let failed = |e: &dyn fmt::Display| {
        ResultIssue::new(
            IssueKind::Input,
            format!("The element could not be serialized: {e}. Nothing was sent for it."),
        )
    };
    let mut text = Vec::with_capacity(before.len() + 64);
    text.extend_from_slice(before.as_bytes());
    let (written, attachments) =
        attachment::capturing_in(scope, || serde_json::to_writer(&mut text, input));
    written.map_err(|e| failed(&e))?;
    attachment::check_element(&attachments)?;
    text.extend_from_slice(after.as_bytes());
    text.shrink_to_fit();
    let text = String::from_utf8(text).map_err(|e| failed(&e))?;
    Ok((text, attachments))
}

/// A map key as the model sees it: a string key as it is, a number or boolean as its JSON text.
fn key_text<K: Serialize + ?Sized>(key: &K) -> Result<String, ResultIssue> {
    match serde_json::to_value(key) {
        Ok(Value::String(text)) => Ok(text),
        Ok(Value::Number(n)) => Ok(n.to_string()),
        Ok(Value::Bool(b)) => Ok(b.to_string()),
        Ok(_) => Err(ResultIssue::new(
            IssueKind::Input,
            "The key is not a string, number or boolean; map_values needs keys the model can see as JSON object keys. Nothing was sent for it.",
        )),
        Err(e) => Err(ResultIssue::new(
            IssueKind::Input,
            format!("The key could not be serialized: {e}. Nothing was sent for it."),
        )),
    }
}

impl<'a, K, O: Intent> CollectionCall<'a, K, O> {
    fn new(
        client: &'a IntentClient,
        intent: &'a str,
        mode: Mode,
        keys: Vec<K>,
        elements: Vec<Result<Element, ResultIssue>>,
        label: String,
    ) -> Self {
        CollectionCall {
            client,
            intent,
            mode,
            keys,
            elements,
            label,
            options: client.default_options().clone(),
            chunk_size: DEFAULT_CHUNK_SIZE,
            concurrency: DEFAULT_CONCURRENCY,
            on_progress: None,
            checks: Vec::new(),
            tools: Vec::new(),
        }
    }

    /// Lays `options` over the options of every chunk's request, field by field (see
    /// [`AiRequestOptions::merge`]): a field set in `options` wins, an unset one keeps what the
    /// client's defaults or an earlier setter gave it.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let client = IntentClient::new(ScriptedProvider::new(["{}"]));
    /// let call = client
    ///     .map_each::<String>(&["red"], "Translate into French.")
    ///     .options(AiRequestOptions { temperature: Some(0.0), ..Default::default() });
    /// # drop(call);
    /// ```
    pub fn options(mut self, options: AiRequestOptions) -> Self {
        self.options.merge(options);
        self
    }

    /// Sets the most elements per chunk (at least 1; default 50). Chunks are
    /// also cut so that each chunk's serialized input fits within the client's `max_input_chars`.
    pub fn chunk_size(mut self, elements: usize) -> Self {
        self.chunk_size = elements.max(1);
        self
    }

    /// Sets the most chunks in flight at once (at least 1; default 4).
    pub fn concurrency(mut self, chunks: usize) -> Self {
        self.concurrency = chunks.max(1);
        self
    }

    /// Calls `report` once at the start and after each chunk ends, with the elements done, the
    /// total and the failures so far.
    pub fn on_progress(mut self, report: impl Fn(Progress) + Send + Sync + 'a) -> Self {
        self.on_progress = Some(Box::new(report));
        self
    }

    /// Adds a rule on each element's value: when `predicate` is false, `message` goes back to the
    /// model for that element. It is also stated in every chunk's output requirements, among the
    /// member rules, so a model can meet it on the first attempt.
    pub fn require(
        mut self,
        predicate: impl Fn(&O) -> bool + Send + Sync + 'a,
        message: impl Into<String>,
    ) -> Self {
        let subject: &[MemberStep<'_>] = match self.mode {
            Mode::Each => &[MemberStep::Each, MemberStep::Member("value")],
            Mode::Keyed => &[MemberStep::EachValue],
        };
        let (line, check) = require_rule(subject, predicate, message);
        self.options.rule_lines.extend(line);
        self.checks.push(check);
        self
    }

    /// Adds a validator on each element's value: every message it returns is an issue for that
    /// element that goes back to the model.
    pub fn validate(mut self, validator: impl Fn(&O) -> Vec<String> + Send + Sync + 'a) -> Self {
        self.checks.push(Box::new(validator));
        self
    }
}

crate::call::setters::option_setters!(
    CollectionCall['a, K, O],
    "client.map_each::<u32>(&[\"three\"], \"Read each number.\")"
);

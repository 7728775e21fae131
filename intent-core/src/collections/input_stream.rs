//! [`IntentClient::map_stream`]: a collection from a [`Stream`], of any length, with results
//! streamed back in input order and memory held to chunk size × concurrency.
//!
//! The inputs are read a chunk at a time; each chunk runs as a `map_each` of its own (the same
//! prompts, checks and retries of the failed chunk alone), up to `concurrency` chunks at once.
//! Results leave in input order: a chunk that ends early waits for those before it, and no new
//! chunk is read while `concurrency` chunks are in flight or waiting, so at most
//! `chunk_size × concurrency` inputs and their results are held, whatever the input's length.
//!
//! Inputs that carry attachments are sent with them as in `map_each`; since each chunk runs as a
//! `map_each` of its own, an element's text and the prompt's list name it by its place in the
//! chunk (`attachment 1 of element 0`), as its `index` in the chunk's input does.

use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::stream::{self, BoxStream, Stream, StreamExt};
use serde::Serialize;

use super::call::{DEFAULT_CHUNK_SIZE, DEFAULT_CONCURRENCY};
use super::result::ElementIssue;
use crate::client::IntentClient;
use crate::intent::Intent;
use crate::options::AiRequestOptions;
use crate::result::{IssueKind, ResultIssue, Usage};

/// One result of a [`MapStream`]: the input's position, and its value or the first finding
/// that kept it from one (the chunk's [`ChunkRecord`](super::ChunkRecord)s are not kept: they
/// would grow with the input).
pub type StreamItem<O> = (usize, Result<O, ElementIssue>);

type Start<'a, O> = Box<dyn FnOnce(Settings<'a, O>) -> BoxStream<'a, StreamItem<O>> + Send + 'a>;

/// A rule on each element's value, given to every chunk's `map_each`.
enum Rule<'a, O> {
    Require(Predicate<'a, O>, String),
    Validate(Validator<'a, O>),
}

type Predicate<'a, O> = Arc<dyn Fn(&O) -> bool + Send + Sync + 'a>;
type Validator<'a, O> = Arc<dyn Fn(&O) -> Vec<String> + Send + Sync + 'a>;

impl<O> Clone for Rule<'_, O> {
    fn clone(&self) -> Self {
        match self {
            Rule::Require(predicate, message) => Rule::Require(predicate.clone(), message.clone()),
            Rule::Validate(validator) => Rule::Validate(validator.clone()),
        }
    }
}

struct Settings<'a, O> {
    options: AiRequestOptions,
    chunk_size: usize,
    concurrency: usize,
    usage: Arc<Mutex<Usage>>,
    rules: Vec<Rule<'a, O>>,
}

impl<O> Clone for Settings<'_, O> {
    fn clone(&self) -> Self {
        Settings {
            options: self.options.clone(),
            chunk_size: self.chunk_size,
            concurrency: self.concurrency,
            usage: self.usage.clone(),
            rules: self.rules.clone(),
        }
    }
}

/// The stream [`IntentClient::map_stream`] returns: set `.chunk_size(n)`, `.concurrency(n)`,
/// `.options(..)`, `.require(..)` and `.validate(..)` before polling it; it yields `(position, Result<O, ElementIssue>)` in input
/// order, and [`usage`](Self::usage) sums every call made so far.
#[must_use = "a MapStream does nothing until it is polled"]
pub struct MapStream<'a, O> {
    start: Option<Start<'a, O>>,
    running: Option<BoxStream<'a, StreamItem<O>>>,
    settings: Settings<'a, O>,
}

impl<O> fmt::Debug for MapStream<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapStream")
            .field("started", &self.running.is_some())
            .field("chunk_size", &self.settings.chunk_size)
            .field("concurrency", &self.settings.concurrency)
            .finish()
    }
}

impl IntentClient {
    /// Carries out `intent` on each input of a stream (or of an iterator, through
    /// [`futures::stream::iter`]), yielding `(position, Result<O, ElementIssue>)` in input order
    /// as chunks end. Memory is bounded by the chunk size times the concurrency, not the input's
    /// length: a million inputs from a generator run in the memory of a few chunks.
    ///
    /// ```
    /// use futures::StreamExt;
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     r#"{"value": [{"index": 0, "value": 2}, {"index": 1, "value": 4}]}"#,
    ///     r#"{"value": [{"index": 0, "value": 6}]}"#,
    /// ]));
    /// let inputs = futures::stream::iter(1..=3);
    /// let mut doubled = client.map_stream::<u32, _>(inputs, "Double the number.").chunk_size(2).concurrency(1);
    /// let mut values = Vec::new();
    /// while let Some((position, value)) = doubled.next().await {
    ///     values.push((position, value.unwrap()));
    /// }
    /// assert_eq!(values, [(0, 2), (1, 4), (2, 6)]);
    /// assert_eq!(doubled.usage().calls, 2);
    /// # });
    /// ```
    pub fn map_stream<'a, O, I>(
        &'a self,
        inputs: impl Stream<Item = I> + Send + 'a,
        intent: &'a str,
    ) -> MapStream<'a, O>
    where
        O: Intent + Send + 'a,
        I: Serialize + Send + 'a,
    {
        let start: Start<'a, O> = Box::new(move |settings: Settings<'a, O>| {
            let Settings {
                options,
                chunk_size,
                concurrency,
                usage,
                rules,
            } = settings;
            inputs
                .chunks(chunk_size)
                .enumerate()
                .map(move |(number, chunk)| {
                    let options = options.clone();
                    let rules = rules.clone();
                    async move {
                        let mut call = self
                            .map_each::<O>(&chunk, intent)
                            .options(options)
                            .chunk_size(chunk_size)
                            .concurrency(1);
                        for rule in rules {
                            call = match rule {
                                Rule::Require(predicate, message) => {
                                    call.require(move |value| predicate(value), message)
                                }
                                Rule::Validate(validator) => {
                                    call.validate(move |value| validator(value))
                                }
                            };
                        }
                        let result = call.await;
                        drop(chunk);
                        (number * chunk_size, result)
                    }
                })
                .buffered(concurrency)
                .flat_map(move |(offset, result)| {
                    if let Ok(mut sum) = usage.lock() {
                        *sum += result.usage;
                    }
                    let mut issues = result.issues.into_iter().peekable();
                    let items: Vec<StreamItem<O>> = result
                        .values
                        .into_iter()
                        .enumerate()
                        .map(|(slot, value)| {
                            let position = offset + slot;
                            // Issues are sorted by slot: the first of this slot, the rest skipped.
                            let mut first = None;
                            while let Some(issue) = issues.next_if(|i| i.position <= slot) {
                                if issue.position == slot && first.is_none() {
                                    first = Some(issue);
                                }
                            }
                            let outcome = match (value, first) {
                                (Some(value), _) => Ok(value),
                                (None, Some(mut issue)) => {
                                    // Paths and keys name the input's position, not the chunk's.
                                    let local = format!("/{slot}");
                                    if let Some(path) = &mut issue.issue.path {
                                        if let Some(rest) = path.strip_prefix(&local) {
                                            if rest.is_empty() || rest.starts_with('/') {
                                                *path = format!("/{position}{rest}");
                                            }
                                        }
                                    }
                                    issue.position = position;
                                    issue.key = position.to_string();
                                    Err(issue)
                                }
                                (None, None) => Err(ElementIssue::new(
                                    position,
                                    position.to_string(),
                                    ResultIssue::new(
                                        IssueKind::Shape,
                                        "No value was found for this element.",
                                    ),
                                )),
                            };
                            (position, outcome)
                        })
                        .collect();
                    stream::iter(items)
                })
                .boxed()
        });
        MapStream {
            start: Some(start),
            running: None,
            settings: Settings {
                options: AiRequestOptions::default(),
                chunk_size: DEFAULT_CHUNK_SIZE,
                concurrency: DEFAULT_CONCURRENCY,
                usage: Arc::new(Mutex::new(Usage::default())),
                rules: Vec::new(),
            },
        }
    }
}

impl<'a, O> MapStream<'a, O> {
    /// Adds a rule on each element's value, as [`CollectionCall::require`] does for every chunk:
    /// stated in each chunk's output requirements, and when `predicate` is false, `message` goes
    /// back to the model for that element. No effect once the stream was first polled.
    ///
    /// [`CollectionCall::require`]: super::CollectionCall::require
    ///
    /// ```
    /// use futures::StreamExt;
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     r#"{"value": [{"index": 0, "value": 0}]}"#,
    ///     r#"{"value": [{"index": 0, "value": 3}]}"#,
    /// ]));
    /// let mut scores = client
    ///     .map_stream::<u8, _>(futures::stream::iter(["fine"]), "Score it from 1 to 5.")
    ///     .require(|score| (1..=5).contains(score), "Score from 1 to 5.");
    /// assert_eq!(scores.next().await.map(|(_, score)| score.ok()), Some(Some(3)));
    /// # });
    /// ```
    pub fn require(
        mut self,
        predicate: impl Fn(&O) -> bool + Send + Sync + 'a,
        message: impl Into<String>,
    ) -> Self {
        self.settings
            .rules
            .push(Rule::Require(Arc::new(predicate), message.into()));
        self
    }

    /// Adds a validator on each element's value, as [`CollectionCall::validate`] does for every
    /// chunk: every message it returns is an issue for that element that goes back to the
    /// model. No effect once the stream was first polled.
    ///
    /// [`CollectionCall::validate`]: super::CollectionCall::validate
    ///
    /// ```
    /// # use intent_core::prelude::*;
    /// # let client = IntentClient::new(ScriptedProvider::new(["{}"]));
    /// let stream = client
    ///     .map_stream::<String, _>(futures::stream::iter(["a"]), "Name a colour.")
    ///     .validate(|name| if name.is_empty() { vec!["Name a colour.".into()] } else { vec![] });
    /// # drop(stream);
    /// ```
    pub fn validate(mut self, validator: impl Fn(&O) -> Vec<String> + Send + Sync + 'a) -> Self {
        self.settings
            .rules
            .push(Rule::Validate(Arc::new(validator)));
        self
    }
}

impl<O> MapStream<'_, O> {
    /// Sets the inputs per chunk (at least 1; default 50). No effect once the
    /// stream was first polled.
    ///
    /// ```
    /// # use intent_core::prelude::*;
    /// # let client = IntentClient::new(ScriptedProvider::new(["{}"]));
    /// let stream = client.map_stream::<bool, _>(futures::stream::iter(["a"]), "Is it a vowel?").chunk_size(500);
    /// # drop(stream);
    /// ```
    pub fn chunk_size(mut self, inputs: usize) -> Self {
        self.settings.chunk_size = inputs.max(1);
        self
    }

    /// Sets the most chunks in flight or waiting for those before them (at least 1; default
    /// 4). No effect once the stream was first polled.
    ///
    /// ```
    /// # use intent_core::prelude::*;
    /// # let client = IntentClient::new(ScriptedProvider::new(["{}"]));
    /// let stream = client.map_stream::<bool, _>(futures::stream::iter(["a"]), "Is it a vowel?").concurrency(16);
    /// # drop(stream);
    /// ```
    pub fn concurrency(mut self, chunks: usize) -> Self {
        self.settings.concurrency = chunks.max(1);
        self
    }

    /// Sets the options of every chunk's request. No effect once the stream was first polled.
    ///
    /// ```
    /// # use intent_core::prelude::*;
    /// # let client = IntentClient::new(ScriptedProvider::new(["{}"]));
    /// let options = AiRequestOptions { temperature: Some(0.0), ..AiRequestOptions::default() };
    /// let stream = client.map_stream::<bool, _>(futures::stream::iter(["a"]), "Is it a vowel?").options(options);
    /// # drop(stream);
    /// ```
    pub fn options(mut self, options: AiRequestOptions) -> Self {
        self.settings.options = options;
        self
    }

    /// The usage of every call made so far (all of them, once the stream has ended).
    ///
    /// ```
    /// # use intent_core::prelude::*;
    /// # let client = IntentClient::new(ScriptedProvider::new(["{}"]));
    /// let stream = client.map_stream::<bool, _>(futures::stream::iter(["a"]), "Is it a vowel?");
    /// assert_eq!(stream.usage().calls, 0);
    /// ```
    pub fn usage(&self) -> Usage {
        self.settings
            .usage
            .lock()
            .map(|usage| *usage)
            .unwrap_or_default()
    }
}

impl<O> Stream for MapStream<'_, O> {
    type Item = StreamItem<O>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.running.is_none() {
            if let Some(start) = this.start.take() {
                this.running = Some(start(this.settings.clone()));
            }
        }
        match &mut this.running {
            Some(running) => running.poll_next_unpin(cx),
            None => Poll::Ready(None),
        }
    }
}

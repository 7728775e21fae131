//! [`AiCall`]: the request builder that `T::ai` and `client.transform` return.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;

use serde::Serialize;

use crate::client::IntentClient;
use crate::error::IntentError;
use crate::input::{self, SerializedInput};
use crate::intent::Intent;
use crate::options::AiRequestOptions;
use crate::result::AiResult;

/// A check on the value: the messages of what is wrong, empty when it passes.
pub(crate) type Check<'a, T> = Box<dyn Fn(&T) -> Vec<String> + Send + Sync + 'a>;

/// A call being prepared: `.options(..)`, `.require(..)`, `.validate(..)`, then `.await`.
///
/// The input is serialized when the call is made (so it may be borrowed only until then).
#[must_use = "an AiCall does nothing until it is awaited"]
pub struct AiCall<'a, T> {
    pub(crate) client: &'a IntentClient,
    pub(crate) input: Result<SerializedInput, IntentError>,
    pub(crate) intent: &'a str,
    pub(crate) options: AiRequestOptions,
    pub(crate) checks: Vec<Check<'a, T>>,
}

impl<T> fmt::Debug for AiCall<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiCall")
            .field("intent", &self.intent)
            .field("options", &self.options)
            .field("checks", &self.checks.len())
            .finish()
    }
}

impl<'a, T: Intent> AiCall<'a, T> {
    pub(crate) fn new<I: Serialize + ?Sized>(
        client: &'a IntentClient,
        input: &I,
        intent: &'a str,
    ) -> Self {
        AiCall {
            client,
            input: input::serialize(input, client.options().max_input_chars),
            intent,
            options: AiRequestOptions::default(),
            checks: Vec::new(),
        }
    }

    /// Sets the request's options. An `output_schema` set by `transform` is kept unless these
    /// options carry one of their own.
    pub fn options(mut self, options: AiRequestOptions) -> Self {
        let schema = self.options.output_schema.take();
        self.options = options;
        if self.options.output_schema.is_none() {
            self.options.output_schema = schema;
        }
        self
    }

    /// Adds a rule on the value: when `predicate` is false, `message` goes back to the model.
    ///
    /// Write the message for the model to act on: "Quantity must be at most 1000."
    pub fn require(
        mut self,
        predicate: impl Fn(&T) -> bool + Send + Sync + 'a,
        message: impl Into<String>,
    ) -> Self {
        let message = message.into();
        self.checks.push(Box::new(move |value| {
            if predicate(value) {
                Vec::new()
            } else {
                vec![message.clone()]
            }
        }));
        self
    }

    /// Adds a validator: every message it returns is an issue that goes back to the model.
    pub fn validate(mut self, validator: impl Fn(&T) -> Vec<String> + Send + Sync + 'a) -> Self {
        self.checks.push(Box::new(validator));
        self
    }
}

impl<'a, T> IntoFuture for AiCall<'a, T>
where
    T: Intent + Send + 'a,
{
    type Output = AiResult<T>;
    type IntoFuture = Pin<Box<dyn Future<Output = AiResult<T>> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(crate::attempt::run(self))
    }
}

//! # intent: typed, checked LLM calls
//!
//! Send a value and an intent in plain words; get your own Rust type back, read leniently,
//! verified strictly, with your rules checked and a retry on the findings, within the limits you
//! set, from OpenAI, Anthropic, Gemini or any OpenAI-compatible server.
//!
//! ```
//! use intent_core::prelude::*;
//! use serde::Deserialize;
//!
//! /// A purchase request read from an email.
//! #[derive(Debug, Deserialize, Intent)]
//! #[serde(rename_all = "camelCase")]
//! struct PurchaseRequest {
//!     contact: String,
//!     sku: String,
//!     #[intent(minimum = 1)]
//!     quantity: u32,
//! }
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let model = ScriptedProvider::new([r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40}}"#]);
//! let client = IntentClient::new(model);
//! let order = PurchaseRequest::ai(&client, "Dana here: 40 of A-1192 please.", "Extract the purchase request.")
//!     .require(|o| o.quantity <= 1000, "Quantity must be at most 1000.")
//!     .await;
//! assert_eq!(order.value().unwrap().quantity, 40);
//! # });
//! ```
//!
//! The [`ScriptedProvider`](provider::ScriptedProvider) answers from a script, for examples and
//! tests. A program asks a real model: [`OpenAiProvider`](provider::OpenAiProvider) (and any
//! OpenAI-compatible server through `OPENAI_BASE_URL`: Azure, Ollama, llama.cpp, vLLM),
//! [`AnthropicProvider`](provider::AnthropicProvider) or
//! [`GeminiProvider`](provider::GeminiProvider), with fallbacks asked in turn when the one
//! before fails:
//!
//! ```no_run
//! use intent_core::prelude::*;
//!
//! # async fn run() -> Result<(), IntentError> {
//! let client = IntentClient::builder()
//!     .provider(OpenAiProvider::from_env()?) // OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL
//!     .fallback(AnthropicProvider::from_env()?) // ANTHROPIC_API_KEY, ANTHROPIC_MODEL
//!     .build()?;
//! let words = u32::ai(&client, "one two three", "Count the words.").await;
//! println!("{:?} after {} attempts", words.value(), words.attempts().len());
//! # Ok(())
//! # }
//! ```
//!
//! A program needs, beside `intent-core`: `serde` with `derive` (the result type derives
//! `Deserialize`), `tokio` with a runtime and `macros` (calls are futures), and `chrono` with
//! `serde` for date fields.
//!
//! # Limits
//!
//! Every call is held to limits set on the client ([`IntentClientOptions`]) or per call
//! ([`AiRequestOptions`], which win):
//!
//! - `max_attempts` (3 by default): attempts per call, the first included. A retry sends the
//!   previous reply and its findings; it is never served from the cache.
//! - `max_total_tokens`: a token budget over every model call of the call (the judge's too).
//!   Input tokens are only known once a reply reports them.
//! - `deadline`: a wall-clock limit; the call ends with a [`IssueKind::Limit`] issue when it
//!   passes, and waiting for a rate limiter counts.
//! - `max_input_chars` (200 000): a longer serialized input is refused before anything is sent;
//!   nothing is truncated.
//!
//! A call that reaches a limit returns an [`AiResult`] without a value whose last issue names the
//! limit and its value. Transport faults (timeouts, 408, 409, 429, 5xx, 529) are retried by the
//! provider with backoff and are not attempts.
//!
//! # The judge
//!
//! Types and rules cannot check everything ("is this summary faithful?"). With
//! [`AiRequestOptions::judge`] set ([`JudgeOptions`]: its provider, model and extra criteria), an
//! answer that passed every other check goes to a second model call that returns a verdict and
//! its problems. A failing verdict is an attempt's [`IssueKind::Judge`] issues, sent back to the
//! model on the next attempt; a judge that cannot decide (an unreadable verdict, a failed
//! provider) ends the call with an [`IssueKind::JudgeFailed`] issue, since asking the model
//! again would not help. The judge's usage counts in the call's.
//!
//! ```
//! use intent_core::prelude::*;
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let model = ScriptedProvider::new([
//!     "Bonjour", // a String result is plain text
//!     r#"{"verdict": "fail", "problems": ["The answer is French; the intent asks for German."]}"#,
//!     "Guten Tag",
//!     r#"{"verdict": "pass", "problems": []}"#,
//! ]);
//! let client = IntentClient::new(model);
//! let options = AiRequestOptions { judge: Some(JudgeOptions::default()), ..Default::default() };
//! let german = String::ai(&client, "Good day", "Translate into German.").options(options).await;
//! assert_eq!(german.value().map(String::as_str), Some("Guten Tag"));
//! assert_eq!(german.attempts()[0].issues[0].kind, IssueKind::Judge);
//! # });
//! ```
//!
//! # Observing calls
//!
//! Every call is traced with `tracing` spans (`intent.call`, `intent.attempt`, `intent.judge`,
//! `intent.collection`, `intent.chunk`) that carry the OpenTelemetry GenAI attributes
//! (`gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens`, ...) beside the
//! library's own fields, and logs one INFO event per finished call, so that
//! `tracing_subscriber::fmt::init()` shows each call on a line. An
//! [`Observer`](observe::Observer) added with [`IntentClientBuilder::observer`] is told of each
//! request, reply, failed attempt, transport retry, cache hit, fallback, judge verdict and
//! collection chunk. Neither ever holds the input, the intent or a key. See [`observe`] for the
//! fields and the events.
//!
//! # How a call runs
//!
//! Awaiting a call (an [`AiCall`], or a [`CollectionCall`](collections::CollectionCall) for each
//! of its chunks) runs these stages, each in its own modules:
//!
//! | stage | modules | what it does |
//! |---|---|---|
//! | build | `call`, [`collections`], `client` | the builder: the input serialized once, the options, the checks |
//! | shape | [`shape`], `intent`, `impls` | the result type's shape, and from it its description, verdict and strict schema |
//! | plan | `input`, [`prompt`], [`schema`] | the input as the model reads it, the prompt, the response format and schema, fixed for every attempt |
//! | attempt | `attempt` | the loop: per attempt *reply*, *checks* and *finish*, retrying within the limits |
//! | reply | [`cache`], `send`, [`provider`] | a first attempt's cached reply, else the named provider, or the primary and then each fallback |
//! | checks | [`read`], `judge`, [`catalog`] | the reply read leniently and verified strictly, the rules and checks, the judge |
//! | finish | `attempt`, `result` | the attempt's record, the cache write of a reply that passed, the [`AiResult`] |
//!
//! The modules' imports point one way, from the top of this table to the bottom, with no cycle
//! at any level: a test builds the import graph from the sources and fails on a cycle. The layers,
//! where each concern lives and the rules the tests hold the layout to are in the repository's
//! `ARCHITECTURE.md`.
//!
//! The input is written for the model as the spec's "Input serialization" says: a string
//! unchanged, dates in ISO 8601, `serde_json` values as their JSON text, anything else as compact
//! JSON with serde's names, under a label that describes its type (`## Input (DateOnly
//! (yyyy-MM-dd))`). An input longer than `max_input_chars` characters is refused before anything
//! is sent; nothing is truncated.
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// Lets the derive's `::intent_core::...` paths resolve inside this crate too.
extern crate self as intent_core;

mod attachment;
mod attempt;
mod call;
mod client;
mod error;
mod escalation;
mod from_env;
mod impls;
mod input;
mod intent;
mod judge;
mod options;
mod relay;
mod request;
mod result;
mod send;
mod toolbox;
mod trust;

pub mod cache;
pub mod catalog;
pub mod collections;
pub mod observe;
pub mod pricing;
pub mod prompt;
pub mod provider;
pub mod ratelimit;
pub mod read;
pub mod schema;
pub mod shape;
pub mod stream;
#[cfg(feature = "arrow")]
#[cfg_attr(docsrs, doc(cfg(feature = "arrow")))]
pub mod table;
pub mod testing;
pub mod tool;

pub use attachment::{Attachment, ImageDetail};
pub use call::AiCall;
pub use client::{IntentClient, IntentClientBuilder};
pub use error::IntentError;
pub use escalation::Escalation;
pub use intent::Intent;
pub use options::{
    AiRequestOptions, AnswerChecks, IntentClientOptions, IntentExample, JudgeOptions, OutputMode,
};
pub use request::{
    AiRequest, ReasoningEffort, ResponseFormat, DEFAULT_SCHEMA_NAME, JUDGE_SCHEMA_NAME,
};
pub use result::JudgeRecord;
pub use result::{AiResult, AttemptRecord, IssueKind, MemberConfidence, ResultIssue, Usage};

#[cfg(feature = "derive")]
pub use intent_derive::Intent;

/// The names most programs need: `use intent_core::prelude::*;`.
///
/// Types for provider authors and for tests that inspect what was sent ([`AiRequest`],
/// [`ResponseFormat`]) are not in it: name them from the crate root or [`provider`].
pub mod prelude {
    pub use crate::collections::CollectionEvent;
    pub use crate::observe::Observer;
    pub use crate::provider::{
        AnthropicProvider, GeminiProvider, OpenAiProvider, ScriptedProvider,
    };
    pub use crate::stream::{ElementEvent, Partial, StreamEvent};
    pub use crate::tool::Tool;
    pub use crate::{
        AiRequestOptions, AiResult, AnswerChecks, Attachment, AttemptRecord, Escalation, Intent,
        IntentClient, IntentClientOptions, IntentError, IntentExample, IssueKind, JudgeOptions,
        ReasoningEffort, ResultIssue, Usage,
    };
}

/// What the derive's generated code names, and nothing else. Not public API: its items change
/// with the derive, in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::stream::typed::read_complete;
    pub use std::any::type_name;
    pub use std::borrow::Cow;

    /// The shape types the derive builds.
    pub mod shape {
        pub use crate::shape::builder::ShapeGraph;
        pub use crate::shape::node::{
            EnumRepr, EnumShape, Field, Node, NodeId, Scalar, StructKind, StructShape, Variant,
            VariantKind,
        };
        pub use crate::shape::rules::{Pattern, RuleTarget, Rules};
    }

    /// The rule table's checks the derive runs at compile time.
    pub mod rule_table {
        pub use crate::shape::rules::table::{
            conflict, count_conflict, misfit_among, multiple_of_refusal, range_conflict, RuleKind,
            RuleNaming, FROM_INPUT_MISFIT,
        };
    }

    /// `T`'s strict hint, read through a call so that a derived type's hint is evaluated only when
    /// used: recursive types would otherwise form a cycle of constants.
    pub const fn strict_hint<T: crate::Intent>() -> bool {
        T::__STRICT_HINT
    }
}

/// Internals that the workspace's own tests and benchmarks check on their own, behind the
/// non-default `__internals` feature. Not public API: no program should enable it, and nothing
/// here is kept from one release to the next.
#[cfg(feature = "__internals")]
#[doc(hidden)]
pub mod __internals {
    pub use crate::read::json::{read_reply_json, read_reply_lenient, read_value};
    pub use crate::read::partial::{
        read_elements_in_pieces, read_in_pieces, read_partials_in_pieces,
    };
    pub use crate::shape::rules::table as rule_table;

    /// The shape types, to write a type's shape by hand.
    pub mod shape {
        pub use crate::shape::accepts::{Accepts, Kinds, TextForm};
        pub use crate::shape::builder::ShapeGraph;
        pub use crate::shape::node::{
            EnumRepr, EnumShape, Field, FloatKind, IntKind, Node, NodeId, Scalar, SeqKind,
            StructKind, StructShape, Variant, VariantKind,
        };
        pub use crate::shape::rules::{Pattern, RuleTarget, Rules};
        pub use crate::shape::{TargetKind, TypeInfo};
    }

    /// What each provider does with each option (the README's provider table), for the test
    /// that walks it.
    pub mod capabilities {
        pub use crate::provider::capabilities::{
            markdown, Api, Cell, Kind, Outcome, Row, Unless, Wire, APIS, OWN_APIS, TABLE,
            VERTEX_APART,
        };
    }

    /// The reader's bounds (private to the crate; their values, for the tests).
    pub mod read {
        /// The most issues one reply's reading reports.
        pub const MAX_FINDINGS: usize = crate::read::MAX_FINDINGS;
    }

    /// The input's serialization.
    pub mod input {
        pub use crate::input::{serialize, SerializedInput};
    }

    /// The prompt's plan and its requests.
    pub mod prompt {
        pub use crate::prompt::plan::{
            plan, PromptPlan, PREVIOUS_OUTPUT_LIMIT, PREVIOUS_PROBLEMS_LIMIT,
        };
    }

    /// A [`VertexProvider`](crate::provider::VertexProvider) configured from the variables in
    /// `vars` instead of the process's environment (the credentials' places included:
    /// `GCE_METADATA_HOST`, `GOOGLE_APPLICATION_CREDENTIALS`, `CLOUDSDK_CONFIG`, `HOME`).
    #[cfg(feature = "vertex")]
    pub fn vertex_from_vars(
        vars: &[(&str, &str)],
    ) -> Result<crate::provider::VertexProvider, crate::IntentError> {
        crate::provider::VertexProvider::from_vars(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    /// What a call for a `T` does before it sends: serialize the input, plan the prompt, build the
    /// first attempt's request. The benchmarks measure it on its own.
    pub fn first_request<T: crate::Intent, I: serde::Serialize + ?Sized>(
        input: &I,
        intent: &str,
        options: &crate::AiRequestOptions,
    ) -> Result<crate::AiRequest, crate::IntentError> {
        let input = crate::input::serialize(input, usize::MAX)?;
        let plan = crate::prompt::plan(&T::type_info(), options, intent, &input)?;
        Ok(plan.request(None))
    }
}

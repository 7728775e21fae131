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
#![warn(missing_docs)]

// Lets the derive's `::intent_core::...` paths resolve inside this crate too.
extern crate self as intent_core;

mod attempt;
mod call;
mod client;
mod error;
mod from_env;
mod impls;
mod intent;
mod judge;
mod options;
mod request;
mod result;
mod send;

pub mod cache;
pub mod catalog;
pub mod collections;
pub mod input;
pub mod pricing;
pub mod prompt;
pub mod provider;
pub mod ratelimit;
pub mod read;
pub mod schema;
pub mod shape;
pub mod testing;

pub use call::AiCall;
#[cfg(feature = "catalog")]
pub use catalog::Catalog;
pub use client::{IntentClient, IntentClientBuilder};
pub use collections::{CollectionCall, CollectionResult, Progress};
pub use error::IntentError;
pub use intent::Intent;
pub use options::{AiRequestOptions, IntentClientOptions, IntentExample, JudgeOptions};
pub use pricing::{Price, Pricing};
pub use provider::{AnthropicProvider, GeminiProvider, OpenAiProvider, Provider, ScriptedProvider};
pub use ratelimit::{RateLimit, RateLimiter};
pub use request::{
    AiRequest, ReasoningEffort, ResponseFormat, DEFAULT_SCHEMA_NAME, JUDGE_SCHEMA_NAME,
};
pub use result::{AiResult, AttemptRecord, IssueKind, ResultIssue, Usage};

#[cfg(feature = "derive")]
pub use intent_derive::Intent;

/// The names most programs need: `use intent_core::prelude::*;`.
pub mod prelude {
    pub use crate::provider::{
        AnthropicProvider, GeminiProvider, OpenAiProvider, ScriptedProvider,
    };
    pub use crate::{
        AiRequest, AiRequestOptions, AiResult, AttemptRecord, Intent, IntentClient,
        IntentClientOptions, IntentExample, ReasoningEffort, ResponseFormat, ResultIssue,
    };
}

/// Support for the derive's generated code. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::read::json::{read_reply_json, read_reply_lenient, read_value};

    /// The shape types the derive builds and tests inspect.
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
    pub use crate::shape::rules::table as rule_table;

    pub use serde_json;
    pub use std::any::type_name;
    pub use std::borrow::Cow;
    pub use std::option::Option;
    pub use std::vec::Vec;

    /// `T`'s strict hint, read through a call so that a derived type's hint is evaluated only when
    /// used: recursive types would otherwise form a cycle of constants.
    pub const fn strict_hint<T: crate::Intent>() -> bool {
        T::__STRICT_HINT
    }
}

//! The [`Intent`] trait: a type the library can ask a model for.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::call::AiCall;
use crate::client::IntentClient;
use crate::shape::{NodeId, RuleTarget, ShapeGraph, TypeInfo};

impl TypeInfo {
    /// The cached information of `T`, computed on first use.
    ///
    /// ```
    /// use intent_core::shape::TypeInfo;
    ///
    /// assert_eq!(TypeInfo::of::<Vec<u8>>().description(), "List<byte>");
    /// ```
    pub fn of<T: Intent>() -> Arc<TypeInfo> {
        TypeInfo::cached(std::any::type_name::<T>(), T::shape)
    }
}

/// A result type: its shape is known, so the model can be told what to answer, held to a strict
/// schema where one fits, and its reply read and verified.
///
/// Implemented by `#[derive(Intent)]` and by the library for std types, `serde_json::Value`, and
/// (behind features) chrono, uuid, url and rust_decimal types.
///
/// # Sealed
///
/// The trait is not implemented by hand: its one required method is hidden, and takes the
/// library's shape graph, whose types are internal. A type's shape is what every reader (the fast
/// path, the lenient path, the streaming reader, the catalog's checks), the strict schema and the
/// prompt's description are derived from; publishing the graph would freeze that representation,
/// which grows with what the library reads (new scalar types, rules, enum forms). What a hand
/// implementation would be for has a supported form instead: a member read by a custom
/// deserializer states the type it reads from JSON with `#[intent(as = "...")]`, a type read as
/// another with `#[serde(from = "...")]` or `#[serde(transparent)]` is derived as that type, and
/// a foreign type is wrapped in a derived newtype.
///
/// ```
/// use intent_core::Intent;
///
/// assert_eq!(<Vec<Option<i32>>>::describe(), "List<int?>");
/// assert!(<Vec<String>>::is_strict_compatible());
/// assert!(!<std::collections::HashMap<String, u8>>::is_strict_compatible());
/// assert_eq!(
///     u8::strict_envelope_schema().unwrap()["properties"]["value"],
///     serde_json::json!({"type": "integer"})
/// );
/// assert!(String::strict_envelope_schema().is_none());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `Intent`",
    label = "not an `Intent` type",
    note = "derive it with `#[derive(Intent)]`, or, for a member read by a custom deserializer, \
            state the type it reads from JSON with `#[intent(as = \"...\")]`"
)]
pub trait Intent: DeserializeOwned {
    /// Registers the type's shape in `graph` and returns its node. Written by the derive (see
    /// "Sealed" above).
    #[doc(hidden)]
    fn shape(graph: &mut ShapeGraph) -> NodeId;

    /// A compile-time hint for `#[intent(strict)]`: false for types that are never strict (maps,
    /// `Value`, tuples) and for containers of them. The runtime verdict is
    /// [`is_strict_compatible`](Intent::is_strict_compatible).
    #[doc(hidden)]
    const __STRICT_HINT: bool = true;

    /// Which member rules apply to the type (numbers, text, lists), checked by the derive.
    #[doc(hidden)]
    const __RULE_TARGET: RuleTarget = RuleTarget::Other;

    /// The type's shape and derived views, computed once and cached.
    fn type_info() -> Arc<TypeInfo>
    where
        Self: Sized,
    {
        TypeInfo::of::<Self>()
    }

    /// The C#-like description the model is given: `Order\n where Order { string id; ... }`.
    fn describe() -> String
    where
        Self: Sized,
    {
        Self::type_info().description().to_owned()
    }

    /// True when a provider's strict mode can express the type exactly.
    fn is_strict_compatible() -> bool
    where
        Self: Sized,
    {
        Self::type_info().is_strict()
    }

    /// The strict envelope schema `{"type":"object","properties":{"value":..},...}`, or `None` for
    /// `String` (a text result) and for types that are not strict-compatible.
    fn strict_envelope_schema() -> Option<Value>
    where
        Self: Sized,
    {
        Self::type_info().envelope_schema().cloned()
    }

    /// Asks `client` to carry out `intent` on `input` and answer with a `Self`.
    ///
    /// Returns a request builder: add `.options(..)`, `.require(..)`, `.validate(..)`, then `.await`
    /// it for an [`AiResult<Self>`](crate::AiResult).
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 3}"#]));
    /// let count = u32::ai(&client, "a, b, c", "Count the letters.")
    ///     .require(|n| *n < 100, "Count at most 99 letters.")
    ///     .await;
    /// assert_eq!(count.into_result().unwrap(), 3);
    /// # });
    /// ```
    fn ai<'a, I>(client: &'a IntentClient, input: &'a I, intent: &'a str) -> AiCall<'a, Self>
    where
        Self: Sized,
        I: Serialize + ?Sized,
    {
        AiCall::new(client, input, intent)
    }
}

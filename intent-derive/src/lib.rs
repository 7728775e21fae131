//! `#[derive(Intent)]`: see the macro's documentation, re-exported as `intent_core::Intent`.

mod ast;
mod case;
mod check;
mod expand;
mod partial;
mod rules;
mod serde_attr;
#[cfg(test)]
mod tests;
mod types;

use proc_macro::TokenStream;

/// Derives `intent_core::Intent`: the type's *shape* (serde wire names, member types, which members
/// may be missing or `null`, rules and docs), from which the library derives the description the
/// model is given, the strict-compatibility verdict, the strict envelope schema and the verifier
/// that checks every reply.
///
/// ```
/// use intent_core::Intent;
/// use serde::Deserialize;
///
/// /// One line of an order.
/// #[derive(Debug, Deserialize, Intent)]
/// #[serde(rename_all = "camelCase")]
/// struct OrderLine {
///     /// The article number, such as `A-1192`.
///     #[intent(pattern = "^[A-Z]-\\d+$")]
///     sku: String,
///     #[intent(minimum = 1, maximum = 1000)]
///     quantity: u32,
///     deliver_by: Option<chrono::NaiveDate>,
/// }
///
/// assert_eq!(
///     OrderLine::describe(),
///     "OrderLine\n where OrderLine /* One line of an order. */ { string sku /* The article \
///      number, such as `A-1192`. */; uint quantity; DateOnly? (yyyy-MM-dd) deliverBy }"
/// );
/// let schema = OrderLine::strict_envelope_schema().unwrap();
/// assert_eq!(schema["properties"]["value"]["required"], serde_json::json!(["sku", "quantity", "deliverBy"]));
/// ```
///
/// # Types
///
/// - Structs with named fields are JSON objects; newtype structs and `#[serde(transparent)]`
///   structs are their inner value; tuple structs are arrays of fixed length (never strict); unit
///   structs are `null`.
/// - Enums with unit variants only are string enums. Data enums follow serde's representation:
///   external (the default), internal (`#[serde(tag = "type")]`), adjacent (`tag` + `content`)
///   and `#[serde(untagged)]`.
/// - Generic types get an `Intent` bound on every type parameter; `Page<T>` is described as
///   `Page<Order>` for `Page<Order>`.
/// - A recursive type (directly or through other types) works, and is never strict.
///
/// # serde attributes honoured
///
/// `rename` (its deserialize side), `rename_all` (every serde case), `rename_all_fields`, `alias`,
/// `skip` and `skip_deserializing` (the member or variant is left out), `default` (on a field or the
/// container: the member may be missing), `flatten`, `transparent`, `tag`, `content`,
/// `untagged`, and `from`/`try_from` (the type is read as that type). An `Option` member may be
/// missing too, as serde reads it as `None`.
///
/// `#[serde(other)]` on a unit variant: a tag that names no variant reads as that one, in the
/// reader as in serde (a known name in another case, such as `closed` for `Closed`, is still
/// that variant). The model is told so: the variant is described with "(when no other fits)",
/// `Status is one of: Open, Closed, Unknown (when no other fits)`, and the strict schema lists it
/// among the names.
///
/// # `#[intent(...)]` attributes
///
/// | where | attribute | effect |
/// |---|---|---|
/// | type, field, variant | `description = "..."` | the description (replaces the doc comment) |
/// | type | `strict` | the build fails unless the type is strict-compatible, as far as the compiler can tell |
/// | struct | `partial` | also generate `NamePartial`, the answer so far while it streams (below) |
/// | type | `crate = "path"` | the path of `intent_core` in generated code (default `::intent_core`), for a crate that re-exports it: `#[intent(crate = "my_framework::intent_core")]` |
/// | field | `as = "Type"` | the member is read from JSON as `Type` (required with `with`/`deserialize_with`) |
/// | number field | `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`, `multiple_of` | number rules |
/// | text field | `min_length`, `max_length`, `pattern = "regex"` | text rules |
/// | list field | `min_items`, `max_items`, `unique_items` | list rules |
///
/// Rules are never sent in a strict schema (providers refuse them); they are stated in the
/// prompt's output requirements and checked on every reply. Which rules fit which members, and
/// which cannot be set together, is one table in `intent_core` that intent files are checked
/// against too: number rules fit integers, floats and `Decimal`; text rules fit every member whose
/// JSON form is a string (`String`, `char`, chrono dates and times, `Uuid`, `Url`, enums of unit
/// variants); list rules fit `Vec`, `VecDeque`, sets and arrays; an `Option`, a pointer or a
/// newtype takes its inner type's. The generated code asks the table about the member's resolved
/// type in a `const` item, so a rule on a member of another kind, two rules that contradict each
/// other (`minimum` with `exclusive_minimum`, a range no number fits, ...) or a `pattern` that is
/// not a valid regular expression fails the build, at the attribute:
///
/// ```compile_fail
/// use intent_core::Intent;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Intent)]
/// struct Order {
///     #[intent(max_length = 80)] // text rule on a number: build error here
///     quantity: u32,
/// }
/// ```
///
/// A member read by a custom deserializer states the type it reads from JSON:
///
/// ```
/// use intent_core::Intent;
/// use serde::{Deserialize, Deserializer};
///
/// fn upper<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
///     String::deserialize(d).map(|s| s.to_uppercase())
/// }
///
/// /// A product code.
/// #[derive(Deserialize, Intent)]
/// #[intent(strict)]
/// struct Code {
///     #[serde(deserialize_with = "upper")]
///     #[intent(as = "String")]
///     code: String,
/// }
///
/// assert!(Code::is_strict_compatible());
/// ```
///
/// # Typed partials: `#[intent(partial)]`
///
/// On a struct with named fields, generates `NamePartial` (same visibility; every member that
/// is not skipped an `Option` of its type's partial, with the member's visibility; `Debug`,
/// `Clone`, `Default`, `PartialEq`) and implements `intent_core::stream::HasPartial` with it, so
/// that `Partial::value` reads a streamed answer so far as a `NamePartial`: text so far for a
/// `String`, the elements so far for a `Vec`, a nested `#[intent(partial)]` struct as its own
/// partial, and numbers, enums, dates and types without the attribute only once complete. A
/// member is read under the wire name the shape gives it (`rename`, `rename_all`; an alias the
/// model used reads under the wire name); a `flatten` member is read from the same object.
/// `NamePartial` derives `Debug`, `Clone`, `Default` and `PartialEq`, so each member's partial
/// must implement the first three and `PartialEq`: a member type without `#[intent(partial)]`
/// is its own partial, so derive `Debug`, `Clone` and `PartialEq` on it too.
/// Without the attribute, a derived type's partial is itself, once complete: one small impl,
/// no extra type. The attribute on an enum, a tuple, newtype or unit struct, a struct read as
/// another type (`transparent`, `from`, `try_from`) or a generic struct is a build error.
///
/// ```
/// use intent_core::stream::{HasPartial, PartialView};
/// use intent_core::Intent;
/// use serde::Deserialize;
///
/// #[derive(Debug, Deserialize, Intent)]
/// #[serde(rename_all = "camelCase")]
/// #[intent(partial)]
/// pub struct Ticket {
///     pub customer_name: String,
///     pub priority: u8,
/// }
///
/// let so_far = serde_json::json!({"customerName": "Pri", "priority": 2});
/// let ticket: TicketPartial = Ticket::read_partial(PartialView::complete(&so_far)).unwrap();
/// assert_eq!(ticket.customer_name.as_deref(), Some("Pri"));
/// assert_eq!(ticket.priority, Some(2));
/// ```
///
/// # Compile errors
///
/// Every error is spanned at what causes it and all are reported at once: unions, unknown or
/// conflicting `intent` attributes, a rule on a member of the wrong kind, an invalid `pattern`, a
/// custom deserializer without `as`, a member type that does not implement `Intent`, and, under
/// `#[intent(strict)]`, a member that is a map, `serde_json::Value`, a tuple, the type itself, or a
/// type that is not strict. Strictness is asked of the member type's own `Intent` impl, never
/// guessed from its name: a type of yours called `Value` or `HashMap` is as strict as its shape.
///
/// ```compile_fail
/// use std::collections::HashMap;
/// use intent_core::Intent;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, Intent)]
/// #[intent(strict)]
/// struct Order {
///     quantities: HashMap<String, u32>, // a map: no strict schema
/// }
/// ```
#[proc_macro_derive(Intent, attributes(intent))]
pub fn derive_intent(input: TokenStream) -> TokenStream {
    expand::derive(syn::parse_macro_input!(input as syn::DeriveInput)).into()
}

//! Intent catalogs: prompts kept in files that people who do not write Rust can review and change.
//!
//! An intent file (`.yaml`, `.yml` or `.json`) holds a list of named intents. Each has:
//!
//! | key | what it is |
//! |---|---|
//! | `name` | the name the code runs it by (unique across the catalog) |
//! | `intent` | the instruction for the model |
//! | `shape` | the label of the Rust type the caller asks for (`PurchaseRequest`, `List<Line>`, `string`), or an inline JSON Schema |
//! | `rules` | per member path, any of `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`, `uniqueItems`, `enum` |
//! | `examples` | `input` and `output`, the output written exactly as the model should answer (`{"value": ...}`, or plain text for a `string` shape); a string is taken as it is, any other value as compact JSON |
//! | `expectedOutputDescription`, `systemInstructions`, `maxOutputTokens`, `temperature` (0 to 2), `model`, `provider` | the request options of the same names, over the client's defaults and under the call's own |
//! | `tests` | inputs and what the answer must be: `expected`, `checks` or `fails: true` (see [`IntentTest`]), run by the `intent test` command |
//!
//! A rule's path names members by their wire names, separated by dots; `[]` means every element
//! of a list and `*` every value of a map: `lines[].quantity`, `[].sku`, `prices.*`; `$` is the
//! result itself. The rules are stated to the model with the type's own, and checked on every reply:
//! a broken rule is an issue at its JSON pointer (`/value/lines/0/quantity`) that goes back to the
//! model on the next attempt.
//!
//! Loading checks everything it can before any call: unknown keys, missing keys, duplicate names,
//! invalid regular expressions, contradictory rules, invalid JSON Schemas, rules on members a schema
//! does not have, and examples that do not fit the shape or break a rule. What needs the Rust type
//! (a rule on a member the type does not have, an example that does not read as the type) is
//! checked on the first [`Catalog::run`] with that type, or at start-up with [`Catalog::check`].
//!
//! ```
//! use intent_core::catalog::Catalog;
//! use intent_core::prelude::*;
//!
//! let catalog = Catalog::parse("orders.yaml", r#"
//! intents:
//!   - name: skus
//!     intent: List the SKUs the email orders.
//!     shape: List<string>
//!     rules:
//!       $: { minItems: 1, maxItems: 10 }
//!       "[]": { pattern: "^[A-Z]-\\d+$" }
//! "#).unwrap();
//!
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let model = ScriptedProvider::new([r#"{"value": ["A-1", "b2"]}"#, r#"{"value": ["A-1", "B-2"]}"#]);
//! let client = IntentClient::new(model);
//! let skus = catalog.run::<Vec<String>>(&client, "skus", "4 of A-1, 2 of B-2").await;
//! assert_eq!(skus.value().unwrap(), &vec!["A-1".to_owned(), "B-2".to_owned()]);
//! assert_eq!(
//!     skus.attempts()[0].issues[0].to_string(),
//!     r#"/value/1: Must match the regular expression ^[A-Z]-\d+$; got "b2"."#
//! );
//! # });
//! ```

mod error;
#[cfg(feature = "catalog")]
mod file;
#[cfg(feature = "catalog")]
mod intent;
#[cfg(feature = "catalog")]
mod path;
#[cfg(feature = "catalog")]
mod resolve;
#[cfg(feature = "catalog")]
mod rules;
#[cfg(feature = "catalog")]
mod schema;
#[cfg(feature = "catalog")]
mod shape;
#[cfg(feature = "catalog")]
mod test_case;

pub use error::CatalogError;
#[cfg(feature = "catalog")]
pub use file::{is_intent_file, MAX_FILE_BYTES, MAX_YAML_NESTING};
#[cfg(feature = "catalog")]
pub use intent::{CatalogIntent, IntentShape};
#[cfg(feature = "catalog")]
pub use test_case::{Expectation, IntentTest, MemberCheck};

#[cfg(feature = "catalog")]
mod registry;
#[cfg(feature = "catalog")]
pub use registry::Catalog;

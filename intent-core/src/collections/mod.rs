//! Collections: one intent over many values, with order and keys kept, counts checked, large
//! inputs split into chunks, chunks run concurrently within a limit, only the failed chunks asked
//! again, and progress reported.
//!
//! - [`IntentClient::map_each`]: a slice of inputs to one value per input, same length, same order.
//!   The model answers a list of `{"index": i, "value": ..}`; each element is sent with its index,
//!   so a dropped, repeated or reordered element is caught, not silently accepted.
//! - [`IntentClient::map_values`]: a map (`HashMap`, `BTreeMap`, `IndexMap`, or any iterator of
//!   key and value references) to one value per key. The model answers one object whose members
//!   are exactly the keys; the schema lists them as required properties and stays strict when the
//!   value type is. Missing keys, extra keys and keys changed in case or spacing are findings
//!   naming the keys.
//!
//! Both cut the input into chunks of at most [`chunk_size`](CollectionCall::chunk_size) elements
//! whose serialized input fits within the client's `max_input_chars` (an element too large for any
//! chunk is refused with an issue, and the others go ahead). Up to
//! [`concurrency`](CollectionCall::concurrency) chunks are in flight at once. Each chunk is one
//! call with its own attempts: a chunk whose answer fails is asked again, alone, with its findings.
//! A chunk that fails after its attempts keeps the elements its last answer got right and does not
//! discard the other chunks; [`CollectionResult::missing`] names the keys or indexes with no value.
//!
//! An element may be an [`Attachment`](crate::Attachment) or carry some as members. Each
//! element's text names its attachments by the element (`<attachment 1 of element 5:
//! application/pdf, 48213 bytes>`, or `of key "T-1"` for `map_values`), a chunk's request carries
//! its elements' attachments in element order, and its `## Input` section lists them in the order
//! sent. Chunks are also cut within one request's attachment limits (count and bytes, the smallest
//! among the providers so that any fallback can take the request); an element whose own
//! attachments pass a limit is refused alone with an issue naming the limit, and nothing is sent
//! for it. `map_stream` and batch runs carry the attachments as live runs do.
//!
//! [`CollectionCall::stream_elements`] runs the same call streamed and yields each element's
//! value the moment it is certain ([`CollectionEvent`]), then the same result. See
//! [`CollectionStream`] for when an element is certain and how a chunk's retry is handled.
//!
//! ```
//! use std::collections::HashMap;
//! use intent_core::prelude::*;
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let client = IntentClient::new(ScriptedProvider::new([
//!     r#"{"value": {"T-1": "billing", "T-2": "outage"}}"#,
//! ]));
//! let tickets = HashMap::from([
//!     ("T-1".to_owned(), "I was charged twice."),
//!     ("T-2".to_owned(), "The site is down."),
//! ]);
//! let topics = client
//!     .map_values::<String, _, _>(&tickets, "Name the ticket's topic in one word.")
//!     .await;
//! let topics: HashMap<String, String> = topics.into_map_result().unwrap();
//! assert_eq!(topics["T-2"], "outage");
//! # });
//! ```

mod batch;
mod call;
mod chunk;
mod chunk_reply;
#[cfg(feature = "arrow")]
mod columns;
mod each;
mod element_schema;
mod element_stream;
mod element_watch;
mod input_stream;
mod observed;
mod result;
#[cfg(feature = "arrow")]
mod rows;
mod run;

#[cfg(feature = "progress-bar")]
mod progress_bar;

pub use batch::BatchOptions;
pub use call::CollectionCall;
pub use element_stream::{CollectionEvent, CollectionStream};
pub use input_stream::{MapStream, StreamItem};
#[cfg(feature = "progress-bar")]
pub use progress_bar::progress_bar;
pub use result::{ChunkRecord, CollectionResult, ElementIssue, Progress};

use serde::Serialize;

use crate::client::IntentClient;
use crate::intent::Intent;

impl IntentClient {
    /// Carries out `intent` on each input, answering one `O` per input, in the same order.
    ///
    /// Returns a builder: add `.chunk_size(n)`, `.concurrency(n)`, `.on_progress(..)`,
    /// `.options(..)`, `.require(..)` or `.validate(..)` (checked on each element), then `.await`
    /// it for a [`CollectionResult<usize, O>`](CollectionResult) whose keys are the indexes.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     // Index 1 is missing: the chunk is asked again with that finding.
    ///     r#"{"value": [{"index": 0, "value": true}]}"#,
    ///     r#"{"value": [{"index": 0, "value": true}, {"index": 1, "value": false}]}"#,
    /// ]));
    /// let urgent = client.map_each::<bool>(&["server down", "typo on page"], "Is it urgent?").await;
    /// assert_eq!(urgent.values(), &[Some(true), Some(false)]);
    /// assert_eq!(urgent.attempts().count(), 2);
    /// # });
    /// ```
    pub fn map_each<'a, O: Intent>(
        &'a self,
        inputs: &[impl Serialize],
        intent: &'a str,
    ) -> CollectionCall<'a, usize, O> {
        CollectionCall::each(self, inputs, intent)
    }

    /// Carries out `intent` on each value of a map, answering one `O` per key, under the same key.
    ///
    /// Keys must serialize to strings, numbers or booleans (the model sees them as JSON object
    /// keys). Returns a builder like [`map_each`](Self::map_each)'s; the result's keys are clones
    /// of the map's keys, in the map's iteration order, and
    /// [`into_map`](CollectionResult::into_map) collects it into the map type you want.
    ///
    /// ```
    /// use indexmap::IndexMap;
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([
    ///     // "sku 2" came back as "SKU 2": the chunk is asked again with that finding.
    ///     r#"{"value": {"sku 1": "Lampe", "SKU 2": "Tisch"}}"#,
    ///     r#"{"value": {"sku 1": "Lampe", "sku 2": "Tisch"}}"#,
    /// ]));
    /// let names: IndexMap<&str, &str> = IndexMap::from([("sku 1", "lamp"), ("sku 2", "table")]);
    /// let german = client.map_values::<String, _, _>(&names, "Translate into German.").await;
    /// assert!(german.is_complete());
    /// let first_issue = &german.chunks()[0].attempts[0].issues[0];
    /// assert!(first_issue.message.contains("must be spelled exactly \"sku 2\""));
    /// # });
    /// ```
    pub fn map_values<'a, 'm, O, K, I>(
        &'a self,
        map: impl IntoIterator<Item = (&'m K, &'m I)>,
        intent: &'a str,
    ) -> CollectionCall<'a, K, O>
    where
        O: Intent,
        K: Serialize + Clone + 'm,
        I: Serialize + ?Sized + 'm,
    {
        CollectionCall::keyed(self, map, intent)
    }
}

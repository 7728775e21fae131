//! [`CollectionCall::stream_elements`]: a collection call whose results arrive element by
//! element, each the moment it is certain, then the [`CollectionResult`] `.await` gives.
//!
//! See [`CollectionStream`] for when an element is certain and how a retry is handled.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::stream::{Stream, StreamExt as _};

use super::call::{CollectionCall, Mode};
use super::chunk::ChunkInput;
use super::each::EachItem;
use super::element_watch::{Queue, Relayed, Watch};
use super::observed;
use super::result::{CollectionResult, ElementIssue};
use super::run::{conclude_chunk, prepare_chunk, run_chunks, ChunkOutcome, Shared};
use crate::intent::Intent;
use crate::relay::{Pump, Pumped};
use crate::result::{AttemptRecord, IssueKind, ResultIssue, Usage};
use crate::shape::TypeInfo;

/// What a [`CollectionStream`] yields: each element's value the moment it is certain, the
/// findings of an element that failed, a chunk's retry, and last the call's result.
///
/// `K` is the index for `map_each` and the key for `map_values`.
///
/// ```
/// use futures::StreamExt;
/// use intent_core::prelude::*;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([
///     r#"{"value": [{"index": 0, "value": "rouge"}, {"index": 1, "value": "vert"}]}"#,
/// ])
/// .with_stream_chunk_chars(4);
/// let client = IntentClient::new(model);
/// let mut events = client.map_each::<String>(&["red", "green"], "Translate into French.").stream_elements();
/// let mut seen = Vec::new();
/// while let Some(event) = events.next().await {
///     match event {
///         CollectionEvent::Element(index, french) => seen.push((index, french)),
///         CollectionEvent::Done(result) => assert!(result.is_complete()),
///         _ => {}
///     }
/// }
/// assert_eq!(seen, [(0, "rouge".to_owned()), (1, "vert".to_owned())]);
/// # });
/// ```
#[derive(Debug)]
#[non_exhaustive]
// `Done` carries the whole result and `Retry` a record (the contract); both come rarely.
#[allow(clippy::large_enum_variant)]
pub enum CollectionEvent<K, O> {
    /// The element under this index or key is answered: verified, and in `Done` unless a
    /// [`Withdrawn`](Self::Withdrawn) for it follows.
    Element(K, O),
    /// An answer for this element failed its checks: its chunk will fail this attempt, and the
    /// element may still be answered by a retry (then an `Element` follows).
    Invalid(K, Vec<ResultIssue>),
    /// The value delivered under this index or key does not stand: once its reply was whole,
    /// its final reading did not take the answer the value was read from. It refused the reply
    /// (a second, different answer after the first, values separated by commas), took another
    /// answer from it (the first was reasoning before a `</think>` whose opening tag was in the
    /// prompt), or never read it (the reply broke off and was asked again, of the same provider
    /// or the fallback). Drop the value: it is not in `Done`, unless an
    /// [`Element`](Self::Element) for the same key follows with the value that is.
    Withdrawn(K),
    /// Chunk `number` (from 1) failed an attempt; it is asked again with the findings.
    Retry(usize, AttemptRecord),
    /// The call's result, as `.await` gives it, holding every delivered value. Always last.
    Done(CollectionResult<K, O>),
}

/// A streamed collection call: a [`Stream`] of [`CollectionEvent`]s, from
/// [`CollectionCall::stream_elements`]. Dropping it cancels the call.
///
/// The call runs exactly as `.await` runs it (the same chunks, concurrency, prompts, attempts,
/// checks and limits), but each chunk's replies are streamed and watched as they arrive:
///
/// - `map_each`: each `{"index": i, "value": ..}` of a chunk's reply is delivered the moment it
///   closes, if it stands at its own place (the `n`-th element of the reply carries the index of
///   the chunk's `n`-th input), passes the element's shape and rules and the call's `require` and
///   `validate` checks. An element written with a fraction, an exponent or more than 15 digits in
///   a row waits for the end of its reply: only the whole reply's reading knows whether such a
///   number lost digits.
/// - `map_values`: each member of a chunk's reply is delivered the moment it closes, if it is
///   named exactly as its key and passes the same checks (a member written `"SKU 2"` for the key
///   `"sku 2"` is the reply's reading's to judge: a finding, not an answer); numbers as for
///   `map_each`.
/// - An attempt that fails delivers what its reply got right, element by element, then a
///   [`CollectionEvent::Retry`]; the chunk is asked again with its findings, as for `.await`.
/// - With a judge (`AiRequestOptions::judge`), nothing is certain before the judge has seen the
///   whole reply: a chunk's elements are delivered when the chunk ends.
/// - A reply that does not begin with its answer (prose before it, beyond a code fence's
///   opening) is read whole before its elements are delivered: what the stream followed may be
///   a draft the final reading sets aside (a list before a closing `</think>` whose opening tag
///   was in the prompt, a "Maybe [...]?" before the real answer).
/// - [`CollectionEvent::Invalid`] reports an element that stood at its own place and failed its
///   checks; an element whose shape fails (its index cannot be trusted) is reported in `Done`.
///
/// Each input is delivered once, with its index or key, in any order, and again only after a
/// [`CollectionEvent::Withdrawn`]. **A delivered value stands unless withdrawn**: an element
/// delivered before its reply is whole is checked, once the reply is, against the final reading
/// of that reply, and withdrawn when that reading did not take the answer it came from (it
/// refused the reply, took another answer from it, or the reply broke off and was asked again);
/// the value the call then settles on, if any, is delivered after the withdrawal. When a chunk is
/// asked again because another element failed, the retry's answer for an element delivered and
/// standing is not used, and [`CollectionEvent::Done`] holds the delivered value. So `Done` holds
/// exactly what the events leave standing: every value delivered and not withdrawn. The retry's
/// raw reply stays in the chunk's attempt records.
///
/// The stream runs in the task that polls it; dropping it cancels every request in flight.
///
/// `O: Clone`: a delivered value is both yielded and kept for `Done`.
#[must_use = "a stream does nothing until it is polled"]
pub struct CollectionStream<'a, K, O> {
    /// The call, and what its chunks relayed.
    pump: Pump<'a, Relayed<O>, CollectionResult<K, O>>,
    /// The keys by position, to name what is delivered.
    keys: Vec<K>,
}

impl<'a, K, O> CollectionCall<'a, K, O>
where
    K: Clone + Send + 'a,
    O: Intent + Clone + Send + 'a,
{
    /// Runs the call streamed: each element's value the moment it is certain, then the result
    /// `.await` gives. See [`CollectionEvent`]; a delivered value stands unless withdrawn
    /// ([`CollectionStream`] says when an element is certain, when it is withdrawn, and how a
    /// retry is handled).
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": {"a": 1, "b": 2}}"#]));
    /// let map = std::collections::BTreeMap::from([("a", "one"), ("b", "two")]);
    /// let result = client.map_values::<u8, _, _>(&map, "The number.").stream_elements().finish().await;
    /// assert_eq!(result.values(), &[Some(1), Some(2)]);
    /// # });
    /// ```
    pub fn stream_elements(self) -> CollectionStream<'a, K, O> {
        let queue = Arc::new(Queue::default());
        let keys = self.keys.clone();
        let relay = Arc::clone(&queue);
        let call = Box::pin(observed::collection(self, move |call| run(call, relay)));
        CollectionStream {
            pump: Pump::new(queue, call),
            keys,
        }
    }
}

impl<K, O> CollectionStream<'_, K, O> {
    /// Reads the stream to its end and returns the result, the same `.await` gives.
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": [{"index": 0, "value": 7}]}"#]));
    /// let result = client.map_each::<u8>(&["seven"], "The number.").stream_elements().finish().await;
    /// assert_eq!(result.values(), &[Some(7)]);
    /// # });
    /// ```
    pub async fn finish(mut self) -> CollectionResult<K, O>
    where
        K: Clone,
    {
        while let Some(event) = self.next().await {
            if let CollectionEvent::Done(result) = event {
                return result;
            }
        }
        // Only a stream already read past its `Done` ends without one.
        let issue = ResultIssue::new(
            IssueKind::Request,
            "The stream had already yielded its result (`CollectionEvent::Done`); read it there.",
        );
        let keys = std::mem::take(&mut self.keys);
        CollectionResult {
            issues: keys
                .iter()
                .enumerate()
                .map(|(position, _)| ElementIssue::new(position, "", issue.clone()))
                .collect(),
            values: keys.iter().map(|_| None).collect(),
            keys,
            chunks: Vec::new(),
            usage: Usage::default(),
        }
    }
}

impl<K: Clone, O> Stream for CollectionStream<'_, K, O> {
    type Item = CollectionEvent<K, O>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.pump.poll_next(cx).map(|pumped| {
            let key = |position: usize| this.keys[position].clone();
            pumped.map(|pumped| match pumped {
                Pumped::Relayed(Relayed::Element(position, value)) => {
                    CollectionEvent::Element(key(position), value)
                }
                Pumped::Relayed(Relayed::Withdrawn(position)) => {
                    CollectionEvent::Withdrawn(key(position))
                }
                Pumped::Relayed(Relayed::Invalid(position, issues)) => {
                    CollectionEvent::Invalid(key(position), issues)
                }
                Pumped::Relayed(Relayed::Retry(chunk, record)) => {
                    CollectionEvent::Retry(chunk, record)
                }
                Pumped::Done(result) => CollectionEvent::Done(result),
            })
        })
    }
}

// Nothing is polled through a pin: the call's future is boxed.
impl<K, O> Unpin for CollectionStream<'_, K, O> {}

impl<K, O> fmt::Debug for CollectionStream<'_, K, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CollectionStream")
            .field("elements", &self.keys.len())
            .field("running", &self.pump.is_running())
            .finish_non_exhaustive()
    }
}

/// The call, as `.await` runs it, each chunk watched as its replies arrive.
async fn run<K, O: Intent + Clone + Send>(
    call: CollectionCall<'_, K, O>,
    queue: Arc<Queue<O>>,
) -> CollectionResult<K, O> {
    let each_info = (call.mode == Mode::Each).then(TypeInfo::of::<Vec<EachItem<O>>>);
    run_chunks(call, move |shared, number, input| {
        Box::pin(run_chunk(
            shared,
            number,
            input,
            each_info.clone(),
            Arc::clone(&queue),
        ))
    })
    .await
}

/// One chunk, its replies streamed to a [`Watch`]; its outcome holds what was delivered.
async fn run_chunk<O: Intent + Clone + Send>(
    shared: &Shared<'_, O>,
    number: usize,
    chunk: ChunkInput,
    each_info: Option<Arc<TypeInfo>>,
    queue: Arc<Queue<O>>,
) -> ChunkOutcome<O> {
    let mut prepared = prepare_chunk(shared, chunk);
    prepared.release_input();
    let watch = Watch::new(shared, &prepared, number, &queue, each_info);
    let result = prepared.ask(shared, Some(&watch)).await;
    // The last reply is whole: what it delivered early stands only if its reading took it.
    let delivered = watch.into_delivered();
    let (value, issues, attempts, usage) = match result {
        Some(result) => result.into_parts(),
        None => (None, Vec::new(), Vec::new(), Usage::default()),
    };
    let mut outcome = conclude_chunk(shared, number, prepared, value, issues, attempts, usage);
    // A delivered value that stands is final; what was not delivered yet is delivered now.
    for (slot, delivered) in delivered.into_iter().enumerate() {
        let position = outcome.record.positions[slot];
        match delivered {
            Some(value) => {
                outcome.values[slot] = Some(value);
                outcome.issues.retain(|issue| issue.position != position);
            }
            None => {
                if let Some(value) = &outcome.values[slot] {
                    queue.push(Relayed::Element(position, value.clone()));
                }
            }
        }
    }
    outcome
}

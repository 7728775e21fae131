//! [`CollectionCall::stream_elements`]: a collection call whose results arrive element by
//! element, each the moment it is certain, then the [`CollectionResult`] `.await` gives.
//!
//! See [`CollectionStream`] for when an element is certain and how a retry is handled.

use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures::stream::{Stream, StreamExt as _};
use serde_json::Value;

use super::call::{CollectionCall, Mode};
use super::chunk::ChunkInput;
use super::chunk_reply::below_element;
use super::each::EachItem;
use super::observed;
use super::result::{CollectionResult, ElementIssue};
use super::run::{conclude_chunk, prepare_chunk, run_chunks, ChunkOutcome, PreparedChunk, Shared};
use crate::intent::Intent;
use crate::read::join_pointer;
use crate::read::partial::{ClosedElement, ElementBody, PartialReader};
use crate::relay::{self, Pump, Pumped, Relay};
use crate::result::{AttemptRecord, IssueKind, ResultIssue, Usage};
use crate::schema::ENVELOPE_PROPERTY;
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
    /// The element under this index or key is answered: verified, final, and in `Done`.
    Element(K, O),
    /// An answer for this element failed its checks: its chunk will fail this attempt, and the
    /// element may still be answered by a retry (then an `Element` follows).
    Invalid(K, Vec<ResultIssue>),
    /// Chunk `number` (from 1) failed an attempt; it is asked again with the findings.
    Retry(usize, AttemptRecord),
    /// The call's result, as `.await` gives it, holding every delivered value. Always last.
    Done(CollectionResult<K, O>),
}

/// What the chunks relay, by input position.
#[allow(clippy::large_enum_variant)]
enum Relayed<O> {
    Element(usize, O),
    Invalid(usize, Vec<ResultIssue>),
    Retry(usize, AttemptRecord),
}

/// Where every chunk relays what it has.
type Queue<O> = relay::Queue<Relayed<O>>;

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
/// Each input is delivered at most once, with its index or key, in any order. **A delivered value
/// is final**: when its chunk is asked again (another element failed), the retry's answer for an
/// element already delivered is not used, and [`CollectionEvent::Done`] holds the delivered value.
/// So no event is ever contradicted by `Done`, and every value in `Done` was delivered once
/// before it. The retry's raw reply stays in the chunk's attempt records.
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
    /// `.await` gives. See [`CollectionEvent`]; a delivered value is final ([`CollectionStream`]
    /// says when an element is certain and how a retry is handled).
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
    let watch = Watch {
        shared,
        prepared: &prepared,
        number,
        queue: &queue,
        state: Mutex::new(WatchState {
            // A judge sees the whole reply: until it has, no element is certain.
            reader: match (shared.mode, each_info) {
                _ if prepared.options.judge.is_some() => None,
                (Mode::Each, Some(info)) => Some(
                    PartialReader::new(info)
                        .handing_out_elements()
                        .without_view(),
                ),
                (Mode::Each, None) => None,
                (Mode::Keyed, _) => Some(
                    PartialReader::new(prepared.info.clone())
                        .handing_out_members()
                        .without_view(),
                ),
            },
            delivered: (0..prepared.positions.len()).map(|_| None).collect(),
            numbers: NumberScan::default(),
            lead: String::new(),
            early: false,
        }),
    };
    let result = prepared.ask(shared, Some(&watch)).await;
    let delivered = watch.into_delivered();
    let (value, issues, attempts, usage) = match result {
        Some(result) => result.into_parts(),
        None => (None, Vec::new(), Vec::new(), Usage::default()),
    };
    let mut outcome = conclude_chunk(shared, number, prepared, value, issues, attempts, usage);
    // A delivered value is final; what was not delivered yet is delivered now.
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

/// Watches one chunk's replies as they arrive, delivering each element once it is certain.
struct Watch<'w, 'c, O> {
    shared: &'w Shared<'c, O>,
    prepared: &'w PreparedChunk,
    number: usize,
    queue: &'w Queue<O>,
    state: Mutex<WatchState<O>>,
}

struct WatchState<O> {
    /// The reader of a `map_each` reply so far.
    reader: Option<PartialReader>,
    /// The reply's numbers so far, for the elements that closed since the last piece.
    numbers: NumberScan,
    /// What was delivered, by slot.
    delivered: Vec<Option<O>>,
    /// The reply's text before its answer began, while it is short ([`MAX_LEAD`]).
    lead: String,
    /// Whether the reply began with its answer, so its elements may be delivered as they close.
    early: bool,
}

/// The most text before the answer a reply's elements may be delivered early after.
const MAX_LEAD: usize = 16;

/// True when `lead`, the text before a reply's answer, is nothing or a code fence's opening: the
/// answer the partial reader follows is then the one the final reading takes (unless a second
/// answer follows it). After prose, the answer followed may be a draft the final reading sets
/// aside (a list before a closing `</think>` whose opening tag was in the prompt, a "Maybe
/// [...]?" before the real answer); a delivered value is final, so such a reply's elements wait
/// for its whole reading.
fn answer_leads(lead: &str) -> bool {
    let lead = lead.trim_matches(char::is_whitespace);
    lead.is_empty() || lead == "```" || lead.eq_ignore_ascii_case("```json")
}

impl<O: Intent + Clone> Watch<'_, '_, O> {
    fn into_delivered(self) -> Vec<Option<O>> {
        self.state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .delivered
    }

    fn state(&self) -> std::sync::MutexGuard<'_, WatchState<O>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn deliver(&self, state: &mut WatchState<O>, slot: usize, value: O) {
        if state.delivered[slot].is_none() {
            state.delivered[slot] = Some(value.clone());
            self.queue
                .push(Relayed::Element(self.prepared.positions[slot], value));
        }
    }

    /// A `map_each` element that closed at `closed.index` in the reply, or a `map_values` member
    /// of the key at that slot; `suspect` when a number that may have lost digits was written
    /// since the piece before the one that closed it.
    fn closed(&self, state: &mut WatchState<O>, closed: ClosedElement, suspect: bool) {
        let slot = closed.index;
        let (Some(&position), Ok(ElementBody::Json(mut item))) =
            (self.prepared.positions.get(slot), closed.value)
        else {
            // Beyond the chunk, or failed where its index cannot be trusted: the reply's
            // reading says what is wrong.
            return;
        };
        if state.delivered[slot].is_some() {
            return;
        }
        let value = match self.shared.mode {
            // The member of the key's name is the key's value.
            Mode::Keyed => item,
            Mode::Each => {
                if item.get("index").and_then(Value::as_u64) != u64::try_from(position).ok() {
                    return;
                }
                let Some(value) = item
                    .as_object_mut()
                    .and_then(|object| object.remove(ENVELOPE_PROPERTY))
                else {
                    return;
                };
                value
            }
        };
        // Whether a written number lost digits is known to the whole reply's reading only.
        if suspect || holds_float(&value) {
            return;
        }
        match self
            .shared
            .reader
            .read(value, &[], self.prepared.grounds.get(slot))
        {
            Ok(read) => self.deliver(state, slot, read),
            Err(issues) => {
                let issues = issues
                    .into_iter()
                    .map(|issue| {
                        let element = match self.shared.mode {
                            Mode::Each => format!("/{position}"),
                            Mode::Keyed => join_pointer("", &self.prepared.keys[slot]),
                        };
                        let path = format!("{element}{}", below_element(&issue));
                        ResultIssue::at(path, issue.kind, issue.message)
                    })
                    .collect();
                self.queue.push(Relayed::Invalid(position, issues));
            }
        }
    }
}

impl<O: Intent + Clone + Send> Relay for Watch<'_, '_, O> {
    fn restart(&self) {
        let mut state = self.state();
        if let Some(reader) = &mut state.reader {
            reader.reset();
        }
        state.numbers = NumberScan::default();
        state.lead.clear();
        state.early = false;
    }

    fn text(&self, piece: &str) {
        let mut state = self.state();
        let Some(reader) = &mut state.reader else {
            return;
        };
        let began = reader.answer_at().is_some();
        reader.push(piece);
        let closed: Vec<ClosedElement> = reader.take_elements().collect();
        if !began {
            let at = reader.answer_at();
            let lead = &mut state.lead;
            if lead.len() <= MAX_LEAD {
                let upto = at.map_or(piece.len(), |at| at.saturating_sub(lead.len()));
                lead.push_str(piece.get(..upto.min(piece.len())).unwrap_or(piece));
            }
            if at.is_some() {
                state.early = state.lead.len() <= MAX_LEAD && answer_leads(&state.lead);
            }
        }
        if !state.early {
            // Its reading at the end delivers what is right.
            return;
        }
        let in_piece = state.numbers.scan(piece);
        let suspect = state.numbers.suspect || in_piece;
        if closed.is_empty() {
            state.numbers.suspect = suspect;
            return;
        }
        for element in closed {
            self.closed(&mut state, element, suspect);
        }
        // The piece may have begun the next element too.
        state.numbers.suspect = in_piece;
    }

    fn retry(&self, record: &AttemptRecord) {
        // What the failed reply got right, each element read and checked on its own (unless a
        // judge refused it).
        if self.prepared.options.judge.is_none() && !record.raw_output.trim().is_empty() {
            let verdict = self.prepared.verify(self.shared, &record.raw_output);
            let mut state = self.state();
            for (slot, value) in verdict.values.into_iter().enumerate() {
                if let Some(value) = value {
                    self.deliver(&mut state, slot, value);
                }
            }
        }
        self.queue.push(Relayed::Retry(self.number, record.clone()));
    }
}

/// True when `value` holds a number that is not an integer JSON reads exactly.
fn holds_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(holds_float),
        Value::Object(members) => members.values().any(holds_float),
        _ => false,
    }
}

/// Watches a reply's text for numbers the partial view cannot vouch for: a fraction or an
/// exponent, or more digits than a double holds exactly. The final reading refuses such a number
/// where it lost digits (`1.0000000000000000001` for an integer); the partial view cannot tell,
/// so an element that may hold one waits for its reply to be read whole. Digits inside strings
/// count too: that only delays an element, never delivers a wrong one.
#[derive(Debug, Default)]
struct NumberScan {
    /// Digits in a row so far, across pieces.
    digits: usize,
    /// Such a number was written since the last piece that closed an element.
    suspect: bool,
}

impl NumberScan {
    /// True when `piece` writes such a number (its digits may have begun in the piece before).
    fn scan(&mut self, piece: &str) -> bool {
        let mut found = false;
        for c in piece.chars() {
            if c.is_ascii_digit() {
                self.digits += 1;
                found |= self.digits > 15;
            } else {
                found |= self.digits > 0 && matches!(c, '.' | 'e' | 'E');
                self.digits = 0;
            }
        }
        found
    }
}

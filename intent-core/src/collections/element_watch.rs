//! The watch on one chunk's replies in a collection stream: each element delivered the moment
//! it is certain, and withdrawn when the reply it came from turns out not to be answered by it.
//!
//! See [`CollectionStream`](super::CollectionStream) for when an element is certain, when it is
//! withdrawn, and how a retry is handled.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::call::Mode;
use super::chunk_reply::below_element;
use super::run::{PreparedChunk, Shared};
use crate::intent::Intent;
use crate::read::partial::{ClosedElement, ElementBody, PartialReader};
use crate::read::{self, join_pointer};
use crate::relay::{self, Relay};
use crate::result::{AttemptRecord, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::TypeInfo;

/// What the chunks relay, by input position.
#[allow(clippy::large_enum_variant)]
pub(super) enum Relayed<O> {
    Element(usize, O),
    Withdrawn(usize),
    Invalid(usize, Vec<ResultIssue>),
    Retry(usize, AttemptRecord),
}

/// Where every chunk relays what it has.
pub(super) type Queue<O> = relay::Queue<Relayed<O>>;

/// Watches one chunk's replies as they arrive, delivering each element once it is certain.
pub(super) struct Watch<'w, 'c, O> {
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
    /// The reply so far, for its final reading's locator once it is whole.
    reply: String,
    /// The slots delivered from the reply so far, before it was whole.
    early_slots: Vec<usize>,
}

/// The most text before the answer a reply's elements may be delivered early after.
const MAX_LEAD: usize = 16;

/// True when `lead`, the text before a reply's answer, is nothing or a code fence's opening: the
/// answer the partial reader follows is then the one the final reading takes (unless a second
/// answer follows it). After prose, the answer followed may be a draft the final reading sets
/// aside (a list before a closing `</think>` whose opening tag was in the prompt, a "Maybe
/// [...]?" before the real answer); such a reply's elements wait for its whole reading rather
/// than be delivered and withdrawn.
fn answer_leads(lead: &str) -> bool {
    let lead = lead.trim_matches(char::is_whitespace);
    lead.is_empty() || lead == "```" || lead.eq_ignore_ascii_case("```json")
}

impl<'w, 'c, O: Intent + Clone> Watch<'w, 'c, O> {
    /// A watch on the replies of `prepared`, chunk `number`, relaying into `queue`; `each_info`
    /// is the shape of a `map_each` reply.
    pub(super) fn new(
        shared: &'w Shared<'c, O>,
        prepared: &'w PreparedChunk,
        number: usize,
        queue: &'w Queue<O>,
        each_info: Option<Arc<TypeInfo>>,
    ) -> Self {
        Watch {
            shared,
            prepared,
            number,
            queue,
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
                reply: String::new(),
                early_slots: Vec::new(),
            }),
        }
    }

    /// What stands delivered, by slot, once the chunk's call returned: its last reply is whole,
    /// and what it delivered early stands only if its final reading took it.
    pub(super) fn into_delivered(self) -> Vec<Option<O>> {
        self.settle(&mut self.state());
        self.state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner)
            .delivered
    }

    fn state(&self) -> std::sync::MutexGuard<'_, WatchState<O>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Delivers `value` for `slot` unless a value stands there; true when it did.
    fn deliver(&self, state: &mut WatchState<O>, slot: usize, value: O) -> bool {
        if state.delivered[slot].is_some() {
            return false;
        }
        state.delivered[slot] = Some(value.clone());
        self.queue
            .push(Relayed::Element(self.prepared.positions[slot], value));
        true
    }

    /// The reply is whole, or `abandoned` (it broke off and is asked again): the elements it
    /// delivered before it was whole are withdrawn unless its final reading took the answer
    /// they came from.
    fn end_reply(&self, state: &mut WatchState<O>, abandoned: bool) {
        let taken = state.early_slots.is_empty()
            || !abandoned
                && state
                    .reader
                    .as_ref()
                    .is_some_and(|reader| final_reading_took(reader, &state.reply));
        if !taken {
            for slot in std::mem::take(&mut state.early_slots) {
                if state.delivered[slot].take().is_some() {
                    self.queue
                        .push(Relayed::Withdrawn(self.prepared.positions[slot]));
                }
            }
        }
        state.early_slots.clear();
        state.reply.clear();
    }

    /// [`end_reply`](Self::end_reply) for a reply read whole.
    fn settle(&self, state: &mut WatchState<O>) {
        self.end_reply(state, false);
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
            Ok(read) => {
                if self.deliver(state, slot, read) {
                    state.early_slots.push(slot);
                }
            }
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
        // A reply not ended by a retry broke off: it is never read whole.
        self.end_reply(&mut state, true);
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
        // The reply is kept from its start while its elements may be delivered early (their
        // offsets are from the start), for the final reading's locator once it is whole.
        if !began || state.early {
            state.reply.push_str(piece);
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
        self.settle(&mut self.state());
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

/// True when the final reading of `reply` takes the answer `reader` followed: every locator the
/// chunk's reading may use (the typed one of the reader's shape, and the JSON one a reply falls
/// back to) takes that answer or none, and one of them takes it. A locator that takes another
/// answer, or none taking any, means what was delivered from the reply does not stand.
fn final_reading_took(reader: &PartialReader, reply: &str) -> bool {
    let Some(at) = reader.answer_at() else {
        return false;
    };
    let typed = read::answer_start(reader.info(), reply);
    let json = read::answer_start(&<Value as Intent>::type_info(), reply);
    let agrees = |start: Option<usize>| start.is_none_or(|start| start == at);
    agrees(typed) && agrees(json) && (typed == Some(at) || json == Some(at))
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

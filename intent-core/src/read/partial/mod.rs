//! The partial reader: the answer so far of a reply that is still arriving, with every member
//! that has closed already verified.
//!
//! [`PartialReader::push`] takes the reply's next piece. The reader keeps the answer so far as
//! JSON ([`PartialReader::value`]) and, the moment a member closes, checks it against the shape
//! with the same walker and rules the final reading uses ([`super::verify`], [`super::verify::rules`],
//! which ask the shape's table in `shape/accepts.rs`):
//!
//! - A member that passes is shown, normalized as the final reading normalizes it (wire names,
//!   numbers read from strings, enum names in their canonical case). One that fails is left out
//!   and its findings kept ([`PartialReader::issues`]); after a failed element, a list shows no
//!   further elements (so no element is ever shown at another's index).
//! - A member still open is shown as it is: a growing string (only where any text is a value, so
//!   no enum name or number-in-a-string shows half-written), an unfinished object or list. A
//!   number, `true`, `false` or `null` shows only once its token is complete.
//! - An object of a derived struct and a list are checked member by member, each once, as they
//!   close; when the object closes, only what is left to check is checked (its required members).
//!   Any other value (a map, a set, a tuple, a data enum, a JSON value) is checked whole when it
//!   closes. So each piece costs work in proportion to its length, plus the checks of what it
//!   closes, and the whole reply is checked about once.
//! - The elements of a list answer are handed out as they close and verify
//!   ([`PartialReader::take_elements`]), each once, with its index.
//!
//! Three ways to read, one per consumer. A stream of partials builds the view, only as far as
//! its consumer looks at it (`lazy`: the pieces kept and read when a partial's view is asked
//! for). A reader that
//! only hands out elements builds none ([`PartialReader::without_view`]): a container it must
//! see whole when it closes is built on its own as it is read (`tree::Capture`). An element
//! stream of a typed list copies each object or list element's text as it is written and hands
//! it out whole when it closes ([`PartialReader::elements_as_text`], module `raw`), to be read
//! by the fast path the final reading takes, so nothing inside an element is read twice: about
//! 1.3x the reading of the whole reply, where keeping a JSON view after every piece costs about
//! 4x (a `serde_json::Value` of the text alone costs 2x; `cargo bench --bench report --
//! streaming`).
//!
//! What the partial view cannot follow, it stops following: prose with braces before the answer,
//! comments or single quotes in the JSON. The view then stays as it was, never wrong; the final
//! reading, lenient about all of these, has the last word. Leading prose, a code fence and
//! reasoning blocks (`<think>…</think>`, `<thinking>`, `<reasoning>`) are skipped. The envelope
//! `{"value": X}` shows `X`; a bare value is read as the value.
//!
//! For a text result the view is the text so far, a leading reasoning block skipped.
//!
//! The reader's state and its public face are here; reading tokens into slots and containers is
//! in `tokens`, checking and keeping what closes in `settle`.

mod lazy;
#[cfg(feature = "__internals")]
mod pieces;
mod prose;
mod raw;
mod scan;
mod settle;
mod tokens;
mod tree;

use std::sync::Arc;

use serde_json::{Map, Value};

pub(crate) use self::lazy::{ViewAt, Views};
#[cfg(feature = "__internals")]
pub use self::pieces::{read_elements_in_pieces, read_in_pieces, read_partials_in_pieces};
use self::prose::Prose;
use self::raw::RawElement;
use self::scan::{NotJson, Scanner, Token};
use self::tree::{tree_here, value_in, Capture};
pub(crate) use self::tree::{way_down, Seg};
use super::path::Path;
use super::verify::rules;
use super::verify::{field_named, Walker};
use crate::result::ResultIssue;
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{Field, Node, NodeId, SeqKind, StructKind, TargetKind, TextForm, TypeInfo};

/// An element of a list answer that closed: its index, and its verified JSON or its findings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClosedElement {
    pub(crate) index: usize,
    pub(crate) value: Result<ElementBody, Vec<ResultIssue>>,
}

/// What a closed element holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ElementBody {
    /// Verified and normalized.
    Json(Value),
    /// The element's JSON text as written, not yet read: for a reader made
    /// [`elements_as_text`](PartialReader::elements_as_text), which leaves an object or list
    /// element to the reading of the element on its own (see [`super::read_list_element`]).
    Text(String),
}

impl ElementBody {
    /// The verified JSON, when that is what it holds.
    #[cfg(test)]
    pub(crate) fn json(&self) -> Option<&Value> {
        match self {
            ElementBody::Json(value) => Some(value),
            ElementBody::Text(_) => None,
        }
    }
}

/// Where the reader is in the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the answer: prose, a fence, reasoning.
    Before,
    /// Inside the answer's JSON.
    Json,
    /// The text of a text result.
    Text,
    /// The answer closed, or the reply stopped being JSON the view can follow.
    Stopped,
}

/// A member of a derived struct: the struct's node and the member's index.
#[derive(Debug, Clone, Copy)]
struct FieldRef {
    owner: NodeId,
    index: usize,
}

/// How a container's members are checked.
#[derive(Debug)]
enum Check {
    /// `{"value": ...}`, or the object that may be it until its first member's name says.
    Envelope { decided: bool },
    /// A derived struct's object: each member checked as it closes; `claimed` marks those seen.
    Members { owner: NodeId, claimed: Vec<bool> },
    /// A list: each element checked as it closes; after a failed one, no more are shown.
    Elements { item: NodeId, gap: bool },
    /// Checked whole when it closes.
    Whole,
    /// Inside a value checked whole: built, not checked on its own.
    Inside,
    /// Not part of the answer (a member the type does not know, or given twice): read, not kept.
    Hidden,
}

/// Where a value goes and how it is checked.
#[derive(Debug, Clone)]
struct Slot {
    /// Its segment below its container; `None` for the answer itself.
    seg: Option<Seg>,
    /// Its place in the shape, when it is checked on its own.
    place: Option<NodeId>,
    /// The struct member it is the value of.
    field: Option<FieldRef>,
    /// Built into the view (checked by the container around it when `inside`).
    shown: bool,
    inside: bool,
    /// Shown only while open: an element after a failed one, checked and handed out, not kept.
    temporary: bool,
    /// Its index, when it is an element of the answer's list.
    element: Option<usize>,
    /// Its member's index, when it is a member of the answer's struct handed out
    /// ([`PartialReader::handing_out_members`]).
    member: Option<usize>,
}

impl Slot {
    fn hidden() -> Slot {
        Slot {
            seg: None,
            place: None,
            field: None,
            shown: false,
            inside: false,
            temporary: false,
            element: None,
            member: None,
        }
    }

    fn inside(seg: Seg) -> Slot {
        Slot {
            seg: Some(seg),
            shown: true,
            inside: true,
            ..Slot::hidden()
        }
    }

    fn is_answer(&self) -> bool {
        self.shown && !self.inside && self.seg.is_none()
    }
}

/// An open object or array.
#[derive(Debug)]
struct Frame {
    check: Check,
    is_object: bool,
    /// Where the container sits.
    slot: Slot,
    /// Objects: whether a member name comes next, and the slot of the member named last.
    expect_key: bool,
    next: Option<Slot>,
    /// Arrays: elements begun so far.
    count: usize,
    /// The findings of its members that failed: the container fails with them.
    failed: Vec<ResultIssue>,
}

/// A string being read.
#[derive(Debug)]
struct OpenString {
    /// `None` for a member name.
    slot: Option<Slot>,
    text: String,
    /// Whether it grows in the view while open, and how much of it the view has.
    growing: bool,
    flushed: usize,
}

/// The reader of one reply's pieces. See the module docs.
#[derive(Debug)]
pub(crate) struct PartialReader {
    info: Arc<TypeInfo>,
    phase: Phase,
    prose: Prose,
    scanner: Scanner,
    frames: Vec<Frame>,
    /// The segments from the answer down to the open container that is shown deepest.
    path: Vec<Seg>,
    string: Option<OpenString>,
    view: Arc<Value>,
    started: bool,
    changed: bool,
    issues: Vec<ResultIssue>,
    elements: Vec<ClosedElement>,
    /// The index of the answer list's element being read, for the pointers of its findings.
    element_index: Option<Seg>,
    /// The doubles (bits, sorted) that numbers read so far lost a fraction to: no whole number
    /// is read from them, as in the final reading.
    lossy: Vec<u64>,
    /// The answer closed: nothing in the view is still being written.
    closed: bool,
    /// Whether the answer list's elements are handed out as they close ([`take_elements`]);
    /// a reader whose elements nobody takes does not copy them.
    ///
    /// [`take_elements`]: PartialReader::take_elements
    hand_out: bool,
    /// Whether the view is built. A reader that only hands out elements builds none: a
    /// container it must see whole when it closes (one checked whole, one with rules, an
    /// element handed out) is built on its own as it is read ([`Capture`]).
    view_on: bool,
    capture: Option<Capture>,
    /// Whether object and list elements of the answer's list are handed out as text.
    raw_elements: bool,
    /// Whether the members of a struct answer are handed out as they close, as elements are.
    hand_out_members: bool,
    raw: Option<RawElement>,
    /// The bytes of the reply read so far, and where in them the answer followed began.
    read: usize,
    answer_at: Option<usize>,
}

impl PartialReader {
    /// A reader of a reply to a call for the type `info` describes.
    pub(crate) fn new(info: Arc<TypeInfo>) -> Self {
        let text = info.target() == TargetKind::Text;
        PartialReader {
            info,
            phase: if text { Phase::Text } else { Phase::Before },
            prose: Prose::default(),
            scanner: Scanner::default(),
            frames: Vec::new(),
            path: Vec::new(),
            string: None,
            view: Arc::new(if text {
                Value::String(String::new())
            } else {
                Value::Null
            }),
            started: false,
            changed: false,
            issues: Vec::new(),
            elements: Vec::new(),
            element_index: None,
            lossy: Vec::new(),
            closed: false,
            hand_out: false,
            view_on: true,
            capture: None,
            raw_elements: false,
            hand_out_members: false,
            raw: None,
            read: 0,
            answer_at: None,
        }
    }

    /// The reader, handing out the answer list's elements as they close.
    pub(crate) fn handing_out_elements(mut self) -> Self {
        self.hand_out = true;
        self
    }

    /// The reader, handing out the members of a struct answer as they close and verify, as
    /// [`take_elements`](Self::take_elements) hands out elements (each [`ClosedElement`]'s
    /// index is the member's index in the struct): for a `map_values` chunk, whose answer is a
    /// struct of one member per key.
    pub(crate) fn handing_out_members(mut self) -> Self {
        self.hand_out = true;
        self.hand_out_members = true;
        self
    }

    /// The reader, building no view ([`value`](Self::value) stays `Null`): for a consumer of
    /// elements, which shows none, without the work of the view's tree.
    pub(crate) fn without_view(mut self) -> Self {
        self.view_on = false;
        self
    }

    /// The reader, handing out the answer list's elements as an element stream of a typed
    /// list wants them: an object or list element as its JSON text, copied while it is
    /// written and read whole when it closes by the fast path the final reading takes
    /// ([`ElementBody::Text`]); any other element verified ([`ElementBody::Json`]); no view.
    /// Nothing inside an element is read twice.
    pub(crate) fn elements_as_text(self) -> Self {
        let mut reader = self.handing_out_elements().without_view();
        reader.raw_elements = true;
        reader
    }

    /// The description of the type read.
    pub(crate) fn info(&self) -> &Arc<TypeInfo> {
        &self.info
    }

    /// Starts over, for a new reply.
    pub(crate) fn reset(&mut self) {
        let (hand_out, view_on, raw) = (self.hand_out, self.view_on, self.raw_elements);
        let members = self.hand_out_members;
        *self = PartialReader::new(self.info.clone());
        self.hand_out = hand_out;
        self.view_on = view_on;
        self.raw_elements = raw;
        self.hand_out_members = members;
    }

    /// The answer so far: `Null` until it begins, the text so far for a text result.
    pub(crate) fn value(&self) -> &Arc<Value> {
        &self.view
    }

    /// The way from the answer down to the value still being written: `None` before the answer
    /// began and once it closed; else the segments of the open containers below the answer,
    /// then that of the string the view shows growing. Every value off this way is closed (and
    /// so verified), as the view shows only one open member per container.
    /// A stream keeps only its depth ([`open_depth`](Self::open_depth)); the tests hold the two
    /// to the same way.
    #[cfg(test)]
    pub(crate) fn open_path(&self) -> Option<Vec<Seg>> {
        if self.closed || !self.started {
            return None;
        }
        let mut path = self.path.clone();
        if let Some(OpenString {
            slot: Some(slot),
            growing: true,
            ..
        }) = &self.string
        {
            if slot.shown {
                path.extend(slot.seg.clone());
            }
        }
        Some(path)
    }

    /// The length of the way from the answer down to the value still being written (`None`
    /// before the answer began and once it closed), without building the way: the value still being
    /// written is always the last member or element of each container on the way down (a
    /// container takes its members in the order written, and the view shows only the one being
    /// written as open), so the view and this depth give the way ([`tree::way_down`]). A stream
    /// keeps this number with each view instead of a copy of the way.
    pub(crate) fn open_depth(&self) -> Option<usize> {
        if self.closed || !self.started {
            return None;
        }
        let string = matches!(
            &self.string,
            Some(OpenString { slot: Some(slot), growing: true, .. })
                if slot.shown && slot.seg.is_some()
        );
        Some(self.path.len() + usize::from(string))
    }

    /// Where in the reply the answer this reader follows begins (the byte offset of its first
    /// bracket), once found: the offset [`crate::read::answer_start`] gives when the final
    /// reading takes the same answer.
    pub(crate) fn answer_at(&self) -> Option<usize> {
        self.answer_at
    }

    /// True once the answer has begun.
    pub(crate) fn started(&self) -> bool {
        self.started
    }

    /// True once the reader stopped: the answer closed, or the reply stopped being JSON the
    /// view can follow. No later piece changes the view.
    pub(crate) fn stopped(&self) -> bool {
        self.phase == Phase::Stopped
    }

    /// The findings about members that closed and failed their checks.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn issues(&self) -> &[ResultIssue] {
        &self.issues
    }

    /// True when elements closed since the last [`take_elements`](Self::take_elements).
    pub(crate) fn has_closed_elements(&self) -> bool {
        !self.elements.is_empty()
    }

    /// The elements of a list answer that closed since the last call (none unless the reader
    /// was made [`handing_out_elements`](Self::handing_out_elements)).
    pub(crate) fn take_elements(&mut self) -> std::vec::Drain<'_, ClosedElement> {
        self.elements.drain(..)
    }

    /// Reads the reply's next piece; true when the view changed or the answer closed.
    pub(crate) fn push(&mut self, piece: &str) -> bool {
        self.changed = false;
        let mut rest = piece;
        loop {
            match self.phase {
                Phase::Stopped => break,
                Phase::Text => {
                    let text = self.prose.text(rest);
                    if let Value::String(s) = Arc::make_mut(&mut self.view) {
                        let text = if s.is_empty() {
                            text.trim_start()
                        } else {
                            &text
                        };
                        if !text.is_empty() {
                            s.push_str(text);
                            self.changed = true;
                            self.started = true;
                        }
                    }
                    break;
                }
                Phase::Before => match self.prose.skip(rest) {
                    Some(at) => {
                        self.answer_at = Some(self.read + piece.len() - rest.len() + at);
                        rest = &rest[at..];
                        self.phase = Phase::Json;
                    }
                    None => break,
                },
                Phase::Json => {
                    if let Some(raw) = &mut self.raw {
                        match raw.read(rest) {
                            Ok(None) => break,
                            Ok(Some(taken)) => {
                                rest = &rest[taken..];
                                self.close_raw_element();
                            }
                            Err(NotJson) => {
                                self.phase = Phase::Stopped;
                                break;
                            }
                        }
                    }
                    let mut scanner = std::mem::take(&mut self.scanner);
                    let scanned = scanner.scan(rest, |token| self.token(token));
                    self.scanner = scanner;
                    match scanned {
                        Err(NotJson) => self.phase = Phase::Stopped,
                        // An element began that is copied as text.
                        Ok(taken) if self.raw.is_some() => {
                            rest = &rest[taken..];
                            continue;
                        }
                        Ok(_) => {}
                    }
                    self.flush_string();
                    break;
                }
            }
        }
        self.read += piece.len();
        self.changed
    }
}

#[cfg(test)]
mod tests;

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
//! Three ways to read, one per consumer. A stream of partials builds the view. A reader that
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

mod pieces;
mod prose;
mod raw;
mod scan;
mod tree;

use std::sync::Arc;

use serde_json::{Map, Value};

pub use self::pieces::{read_elements_in_pieces, read_in_pieces};
use self::prose::Prose;
use self::raw::RawElement;
use self::scan::{NotJson, Scanner, Token};
pub(crate) use self::tree::Seg;
use self::tree::{tree_here, value_in, Capture};
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

    /// Takes one token; false once the answer has closed.
    fn token(&mut self, token: Token<'_>) -> Result<bool, NotJson> {
        if let Some(open) = &mut self.string {
            return match token {
                Token::StringPart(part) => {
                    open.text.push_str(&part);
                    Ok(true)
                }
                Token::StringEnd => {
                    let open = self.string.take().ok_or(NotJson)?;
                    self.close_string(open)
                }
                _ => Err(NotJson),
            };
        }
        let expect_key = self
            .frames
            .last()
            .is_some_and(|f| f.is_object && f.expect_key);
        if expect_key {
            return match token {
                Token::StringStart => {
                    self.string = Some(OpenString {
                        slot: None,
                        text: String::new(),
                        growing: false,
                        flushed: 0,
                    });
                    Ok(true)
                }
                Token::String(name) => self.member_name(name),
                Token::EndObject => self.close_container(),
                // After a trailing comma, as the final reading allows.
                Token::Comma => Ok(true),
                _ => Err(NotJson),
            };
        }
        match token {
            Token::Colon => match self.frames.last() {
                Some(f) if f.is_object && f.next.is_some() => Ok(true),
                _ => Err(NotJson),
            },
            Token::Comma => {
                if let Some(frame) = self.frames.last_mut() {
                    if frame.is_object {
                        frame.expect_key = true;
                        frame.next = None;
                    }
                }
                Ok(true)
            }
            Token::EndObject | Token::EndArray => match self.frames.last() {
                Some(f) if f.is_object == (token == Token::EndObject) && f.next.is_none() => {
                    self.close_container()
                }
                _ => Err(NotJson),
            },
            Token::BeginObject | Token::BeginArray => {
                let slot = self.next_slot()?;
                let is_object = token == Token::BeginObject;
                if let Some(index) = slot.element.filter(|_| self.raw_elements) {
                    self.raw = Some(RawElement {
                        index,
                        text: {
                            let mut text = String::with_capacity(256);
                            text.push(if is_object { '{' } else { '[' });
                            text
                        },
                        depth: 1,
                        in_string: false,
                        escape: false,
                    });
                    self.started = true;
                    // The scanner stops here: the element's text is copied from here on.
                    return Ok(false);
                }
                self.open_container(slot, is_object);
                Ok(true)
            }
            Token::String(text) => {
                let slot = self.next_slot()?;
                if slot.inside || slot.place.is_some() {
                    return Ok(self.close_value(slot, Value::String(text.to_owned())));
                }
                Ok(true)
            }
            Token::StringStart => {
                let slot = self.next_slot()?;
                let growing = slot.shown
                    && (slot.inside
                        || slot.place.is_some_and(|id| {
                            self.info.graph().accepts(id).text() == TextForm::Text
                        }));
                if growing {
                    self.put(&slot, Value::String(String::new()));
                }
                self.string = Some(OpenString {
                    slot: Some(slot),
                    text: String::new(),
                    growing,
                    flushed: 0,
                });
                Ok(true)
            }
            Token::Scalar(value, lossy) => {
                if lossy {
                    if let Some(bits) = value.as_f64().map(f64::to_bits) {
                        if let Err(at) = self.lossy.binary_search(&bits) {
                            self.lossy.insert(at, bits);
                        }
                    }
                }
                let slot = self.next_slot()?;
                Ok(self.close_value(slot, value))
            }
            Token::StringPart(_) | Token::StringEnd => Err(NotJson),
        }
    }

    /// The slot of the value that comes next: in the open container, or the answer itself.
    fn next_slot(&mut self) -> Result<Slot, NotJson> {
        let shown_len = self.shown_len();
        let Some(frame) = self.frames.last_mut() else {
            return if self.started {
                Err(NotJson)
            } else {
                Ok(self.answer_slot())
            };
        };
        if frame.is_object {
            let slot = frame.next.take().ok_or(NotJson)?;
            // Only one value per member name.
            frame.next = None;
            frame.expect_key = false;
            return Ok(slot);
        }
        let index = frame.count;
        frame.count += 1;
        let seg = Seg::Index(index);
        Ok(match &frame.check {
            Check::Elements { item, gap } => Slot {
                // After a gap, an element is shown while it is read, where the list ends.
                seg: Some(if *gap { Seg::Index(shown_len) } else { seg }),
                place: Some(*item),
                field: None,
                shown: frame.slot.shown,
                inside: false,
                temporary: *gap,
                element: frame.slot.is_answer().then_some(index),
                member: None,
            },
            Check::Whole | Check::Inside => Slot::inside(seg),
            _ => Slot::hidden(),
        })
    }

    /// The length of the list the next value goes in, as the view shows it.
    fn shown_len(&self) -> usize {
        let (mut value, path): (&Value, &[Seg]) = if self.view_on {
            (&self.view, &self.path)
        } else {
            match &self.capture {
                Some(c) => (&c.root, self.path.get(c.base..).unwrap_or_default()),
                None => return 0,
            }
        };
        for seg in path {
            value = tree::child_ref(value, seg).unwrap_or(&Value::Null);
        }
        value.as_array().map_or(0, Vec::len)
    }

    /// The slot of the answer itself.
    fn answer_slot(&self) -> Slot {
        Slot {
            seg: None,
            place: Some(self.info.root()),
            field: None,
            shown: true,
            inside: false,
            temporary: false,
            element: None,
            member: None,
        }
    }

    /// The check of a container opened at `place`.
    fn check_for(&self, place: NodeId, is_object: bool) -> Check {
        let graph = self.info.graph();
        let at = graph.accepts(place);
        match at.node {
            Node::Struct(s) if is_object => match &s.kind {
                StructKind::Named(fields) if !fields.iter().any(|f| f.flatten) => Check::Members {
                    owner: at.id,
                    claimed: vec![false; fields.len()],
                },
                _ => Check::Whole,
            },
            Node::Seq {
                item,
                kind: SeqKind::List,
            } if !is_object => Check::Elements {
                item: *item,
                gap: false,
            },
            _ => Check::Whole,
        }
    }

    fn open_container(&mut self, slot: Slot, is_object: bool) {
        // The first object may be the envelope: its first member's name decides.
        if slot.is_answer() && is_object && self.frames.is_empty() {
            self.frames.push(Frame {
                check: Check::Envelope { decided: false },
                is_object,
                slot,
                expect_key: true,
                next: None,
                count: 0,
                failed: Vec::new(),
            });
            return;
        }
        let check = match (&slot, slot.place) {
            (s, _) if !s.shown => Check::Hidden,
            (s, _) if s.inside => Check::Inside,
            (_, Some(place)) => self.check_for(place, is_object),
            (_, None) => Check::Hidden,
        };
        self.begin(slot, check, is_object);
    }

    /// Opens a container that is part of the view (or hidden) with its check.
    fn begin(&mut self, slot: Slot, check: Check, is_object: bool) {
        if let Some(index) = slot.element {
            self.element_index = Some(Seg::Index(index));
        }
        if slot.shown {
            let empty = || {
                if is_object {
                    Value::Object(match &check {
                        Check::Members { claimed, .. } => Map::with_capacity(claimed.len()),
                        _ => Map::new(),
                    })
                } else {
                    Value::Array(Vec::new())
                }
            };
            self.put(&slot, empty());
            if let Some(seg) = &slot.seg {
                self.path.push(seg.clone());
            }
            if !self.view_on && self.capture.is_none() && self.needs_whole(&slot, &check) {
                self.capture = Some(Capture {
                    frame: self.frames.len(),
                    base: self.path.len(),
                    root: empty(),
                });
            }
        }
        self.frames.push(Frame {
            check,
            is_object,
            slot,
            expect_key: is_object,
            next: None,
            count: 0,
            failed: Vec::new(),
        });
    }

    /// The element copied as text closed: handed out as it was written.
    fn close_raw_element(&mut self) {
        if let Some(raw) = self.raw.take() {
            self.changed = true;
            self.elements.push(ClosedElement {
                index: raw.index,
                value: Ok(ElementBody::Text(raw.text)),
            });
        }
    }

    /// Whether the container opening at `slot` is needed whole when it closes.
    fn needs_whole(&self, slot: &Slot, check: &Check) -> bool {
        match check {
            Check::Whole => slot.place.is_some(),
            Check::Members { .. } | Check::Elements { .. } => {
                (self.hand_out && (slot.element.is_some() || slot.member.is_some()))
                    || slot.field.is_some_and(|r| {
                        !struct_fields(self.info.graph().node(r.owner))[r.index]
                            .rules
                            .is_empty()
                    })
            }
            _ => false,
        }
    }

    /// A member name closed: the slot of its value.
    fn member_name(&mut self, name: &str) -> Result<bool, NotJson> {
        let root = self.info.root();
        let Some(frame) = self.frames.last_mut() else {
            return Err(NotJson);
        };
        if let Check::Envelope { decided } = &mut frame.check {
            if *decided {
                frame.next = Some(Slot::hidden());
                frame.expect_key = false;
                return Ok(true);
            }
            if name.eq_ignore_ascii_case(ENVELOPE_PROPERTY) && !has_own_value(&self.info) {
                *decided = true;
                let answer = frame.slot.clone();
                frame.next = Some(answer);
                frame.expect_key = false;
                return Ok(true);
            }
            // The object is the answer itself.
            let frame = self.frames.pop().ok_or(NotJson)?;
            let check = self.check_for(root, true);
            self.begin(frame.slot, check, true);
        }
        let graph = self.info.graph();
        let Some(frame) = self.frames.last_mut() else {
            return Err(NotJson);
        };
        let slot = match &mut frame.check {
            Check::Members { owner, claimed } => {
                let fields = struct_fields(graph.node(*owner));
                // A member handed out must be named exactly: a near miss is the final
                // reading's to judge.
                let found = if self.hand_out_members && frame.slot.is_answer() {
                    fields.iter().enumerate().find(|(_, f)| f.name == name)
                } else {
                    field_named(fields, name)
                };
                match found {
                    Some((index, field)) if !claimed[index] => {
                        claimed[index] = true;
                        Slot {
                            seg: Some(Seg::Key(field.name.clone())),
                            place: Some(field.ty),
                            field: Some(FieldRef {
                                owner: *owner,
                                index,
                            }),
                            shown: frame.slot.shown,
                            inside: false,
                            temporary: false,
                            element: None,
                            member: (self.hand_out_members && frame.slot.is_answer())
                                .then_some(index),
                        }
                    }
                    _ => Slot::hidden(),
                }
            }
            Check::Whole | Check::Inside => {
                if frame.slot.shown {
                    let container =
                        tree_here(self.view_on, &mut self.view, &mut self.capture, &self.path)
                            .and_then(|(root, path)| tree::at(root, path));
                    if container.is_some_and(|c| c.get(name).is_some()) {
                        // A name given twice: the final reading refuses it; the view stops.
                        return Err(NotJson);
                    }
                }
                Slot::inside(Seg::Key(name.to_owned().into()))
            }
            _ => Slot::hidden(),
        };
        frame.next = Some(slot);
        frame.expect_key = false;
        Ok(true)
    }

    fn close_string(&mut self, open: OpenString) -> Result<bool, NotJson> {
        let Some(slot) = open.slot else {
            return self.member_name(&open.text);
        };
        Ok(self.close_value(slot, Value::String(open.text)))
    }

    /// A number, literal or string closed at `slot`: checked, then kept or left out. False once
    /// it was the answer.
    fn close_value(&mut self, slot: Slot, mut value: Value) -> bool {
        if slot.inside {
            self.put(&slot, value);
            return true;
        }
        let Some(place) = slot.place else {
            return true;
        };
        let issues = self.verify(place, slot.field, &mut value);
        self.settle(&slot, issues, Vec::new(), Some(value))
    }

    /// Closes the open container.
    fn close_container(&mut self) -> Result<bool, NotJson> {
        let frame = self.frames.pop().ok_or(NotJson)?;
        if frame.slot.shown
            && frame.slot.seg.is_some()
            && !matches!(frame.check, Check::Envelope { .. })
        {
            self.path.pop();
        }
        let slot = frame.slot;
        let inherited = frame.failed;
        if slot.element.is_some() {
            self.element_index = None;
        }
        let mut captured = match &self.capture {
            Some(c) if c.frame == self.frames.len() => self.capture.take().map(|c| c.root),
            _ => None,
        };
        let issues = match frame.check {
            // `{}`: the answer is an empty object.
            Check::Envelope { decided: false } => {
                return Ok(self.close_value(slot, Value::Object(Map::new())));
            }
            Check::Envelope { decided: true } => {
                self.phase = Phase::Stopped;
                return Ok(false);
            }
            Check::Hidden | Check::Inside => return Ok(true),
            Check::Whole => {
                let Some(place) = slot.place else {
                    return Ok(true);
                };
                let info = self.info.clone();
                let lossy = std::mem::take(&mut self.lossy);
                let issues = match self.value_of(&slot, &mut captured) {
                    Some(value) => verify_in(&info, place, slot.field, value, &lossy),
                    None => Vec::new(),
                };
                self.lossy = lossy;
                issues
            }
            Check::Members { owner, claimed } => {
                let info = self.info.clone();
                let mut walker = Walker::new(info.graph());
                let fields = struct_fields(info.graph().node(owner));
                for (field, seen) in fields.iter().zip(claimed) {
                    if !seen && field.required {
                        walker.missing(field, &Path::Root);
                    }
                }
                if walker.issues.is_empty() {
                    self.container_rules(&slot, &mut captured, &mut walker);
                }
                walker.issues.into_issues()
            }
            Check::Elements { .. } => {
                let info = self.info.clone();
                let mut walker = Walker::new(info.graph());
                self.container_rules(&slot, &mut captured, &mut walker);
                walker.issues.into_issues()
            }
        };
        Ok(self.settle(&slot, issues, inherited, captured))
    }

    /// The value of the container that closed at `slot`: its capture, or its place in the
    /// tree that holds it.
    fn value_of<'s>(
        &'s mut self,
        slot: &Slot,
        captured: &'s mut Option<Value>,
    ) -> Option<&'s mut Value> {
        if let Some(value) = captured {
            return Some(value);
        }
        let (root, path) = tree_here(self.view_on, &mut self.view, &mut self.capture, &self.path)?;
        value_in(root, path, slot.seg.as_ref())
    }

    /// The rules of the member whose value is the container at `slot`, on its value.
    fn container_rules(
        &mut self,
        slot: &Slot,
        captured: &mut Option<Value>,
        walker: &mut Walker<'_>,
    ) {
        let Some(field) = slot.field else { return };
        let graph = walker.graph;
        let field = &struct_fields(graph.node(field.owner))[field.index];
        if field.rules.is_empty() {
            return;
        }
        if let Some(value) = self.value_of(slot, captured) {
            let target = graph.rule_target(field.ty);
            rules::check(&field.rules, value, target, &Path::Root, &mut walker.issues);
        }
    }

    /// The findings of a value at `place` (the value of `field`, if any), normalizing it.
    fn verify(
        &self,
        place: NodeId,
        field: Option<FieldRef>,
        value: &mut Value,
    ) -> Vec<ResultIssue> {
        verify_in(&self.info, place, field, value, &self.lossy)
    }

    /// Keeps or leaves out the value that closed at `slot` (in the view already, or `value`),
    /// records its findings and hands out a closed element. False once it was the answer.
    fn settle(
        &mut self,
        slot: &Slot,
        issues: Vec<ResultIssue>,
        inherited: Vec<ResultIssue>,
        value: Option<Value>,
    ) -> bool {
        let passed = issues.is_empty() && inherited.is_empty();
        let issues: Vec<ResultIssue> = if issues.is_empty() {
            issues
        } else {
            // The pointer is built only for findings: most values that close have none.
            let base = self.pointer(slot);
            issues
                .into_iter()
                .map(|mut issue| {
                    issue.path = issue.path.map(|p| match p.strip_prefix("/value") {
                        Some(rest) => format!("{base}{rest}"),
                        None => p,
                    });
                    issue
                })
                .collect()
        };
        let mut value = value;
        if let Some(index) = slot.element.or(slot.member).filter(|_| self.hand_out) {
            let element = if passed {
                let value = match &mut value {
                    // Without a view, nothing else keeps it.
                    Some(v) if !self.view_on => Some(std::mem::take(v)),
                    Some(v) => Some(v.clone()),
                    None => self.current(slot).cloned(),
                };
                value.map(ElementBody::Json).ok_or_else(Vec::new)
            } else {
                Err(inherited.iter().chain(&issues).cloned().collect())
            };
            self.elements.push(ClosedElement {
                index,
                value: element,
            });
        }
        let answer = slot.is_answer();
        if passed && slot.shown && !slot.temporary {
            if let Some(value) = value {
                self.put(slot, value);
            }
        } else if slot.shown && !answer {
            self.take(slot);
        }
        if !passed {
            if let Some(frame) = self.frames.last_mut() {
                if let Check::Elements { gap, .. } = &mut frame.check {
                    *gap = true;
                }
                frame.failed.extend(inherited);
                frame.failed.extend(issues.iter().cloned());
            }
            self.issues.extend(issues);
        }
        if answer {
            self.phase = Phase::Stopped;
            self.closed = true;
            // Nothing is open any more: a view to read as complete, even when it looks the same.
            self.changed = true;
        }
        !answer
    }

    /// The JSON pointer of `slot`, elements of the answer's list at their own index wherever
    /// the view shows them.
    fn pointer(&self, slot: &Slot) -> String {
        let element = slot.element.map(Seg::Index);
        let mut segs: Vec<&Seg> = self.path.iter().chain(slot.seg.as_ref()).collect();
        let list_element = self
            .frames
            .iter()
            .position(|f| matches!(f.check, Check::Elements { .. }) && f.slot.is_answer());
        if let Some(element) = &element {
            if let Some(last) = segs.last_mut() {
                *last = element;
            }
        } else if let (Some(_), Some(first)) = (list_element, segs.first_mut()) {
            if let Some(index) = self.element_index.as_ref() {
                *first = index;
            }
        }
        tree::pointer(segs)
    }

    /// The value at `slot` in the view.
    fn current(&self, slot: &Slot) -> Option<&Value> {
        let mut value: &Value = &self.view;
        for seg in self.path.iter().chain(slot.seg.as_ref()) {
            value = tree::child_ref(value, seg)?;
        }
        Some(value)
    }

    /// Puts `value` into the view at `slot`.
    fn put(&mut self, slot: &Slot, value: Value) {
        if !slot.shown {
            return;
        }
        self.started = true;
        self.changed = true;
        let Some((root, path)) =
            tree_here(self.view_on, &mut self.view, &mut self.capture, &self.path)
        else {
            return;
        };
        match &slot.seg {
            None if path.is_empty() => *root = value,
            None => {}
            Some(seg) => {
                if let Some(container) = tree::at(root, path) {
                    tree::put(container, seg, value);
                }
            }
        }
    }

    /// Takes the value at `slot` out of the view.
    fn take(&mut self, slot: &Slot) {
        let Some(seg) = &slot.seg else { return };
        let Some((root, path)) =
            tree_here(self.view_on, &mut self.view, &mut self.capture, &self.path)
        else {
            return;
        };
        if let Some(container) = tree::at(root, path) {
            tree::take(container, seg);
            self.changed = true;
        }
    }

    /// Shows what the open string gained, where it grows in the view.
    fn flush_string(&mut self) {
        if !self.view_on {
            // Nothing shows it growing: its value is put when it closes.
            return;
        }
        let Some(open) = &mut self.string else { return };
        let Some(slot) = open.slot.as_ref().filter(|_| open.growing) else {
            return;
        };
        if open.flushed == open.text.len() {
            return;
        }
        let view = Arc::make_mut(&mut self.view);
        let target = match &slot.seg {
            None => Some(view),
            Some(seg) => tree::at(view, &self.path).and_then(|c| tree::child(c, seg)),
        };
        if let Some(Value::String(s)) = target {
            s.push_str(&open.text[open.flushed..]);
            open.flushed = open.text.len();
            self.changed = true;
        }
    }
}

/// The findings of `value` at `place` (the value of `field`, if any), normalizing it.
fn verify_in(
    info: &TypeInfo,
    place: NodeId,
    field: Option<FieldRef>,
    value: &mut Value,
    lossy: &[u64],
) -> Vec<ResultIssue> {
    let graph = info.graph();
    let mut walker = Walker::new(graph);
    walker.lossy = lossy.to_vec();
    match field {
        Some(r) => {
            let field = &struct_fields(graph.node(r.owner))[r.index];
            walker.member(field, value, &Path::Root);
        }
        None => walker.walk(place, value, &Path::Root),
    }
    let budget = walker.budget_issue();
    let mut issues = walker.issues.into_issues();
    issues.extend(budget);
    issues
}

/// The members of a derived struct's node (none for any other node).
fn struct_fields(node: &Node) -> &[Field] {
    match node {
        Node::Struct(s) => match &s.kind {
            StructKind::Named(fields) => fields,
            _ => &[],
        },
        _ => &[],
    }
}

/// True when the answer may itself be an object with a member named `value` (so `{"value": ...}`
/// is not taken for the envelope by the partial view; the final reading decides).
fn has_own_value(info: &TypeInfo) -> bool {
    info.accepts_envelope_lookalike()
        && !matches!(
            info.graph().node(info.graph().accepts(info.root()).id),
            Node::Map { .. } | Node::Scalar(_)
        )
}

#[cfg(test)]
mod tests;

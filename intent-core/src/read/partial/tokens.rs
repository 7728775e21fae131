//! Reading the answer's tokens: each value given its slot (where it goes and how it is
//! checked), containers opened, and member names matched to the shape's members.

use super::settle::{has_own_value, struct_fields};
use super::*;

/// The room a string split across pieces starts with: most strings of an answer (names, codes,
/// titles) fit in it or need one more step, where growing from nothing takes three or four
/// (8, 16, 32, 64 bytes), each a copy. A view that shows the string growing keeps a second
/// buffer, which starts with the same room.
const STRING_START: usize = 32;

impl PartialReader {
    /// Takes one token; false once the answer has closed.
    pub(super) fn token(&mut self, token: Token<'_>) -> Result<bool, NotJson> {
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
                if growing && self.view_on {
                    self.put(&slot, Value::String(String::with_capacity(STRING_START)));
                } else if growing {
                    self.put(&slot, Value::String(String::new()));
                }
                self.string = Some(OpenString {
                    slot: Some(slot),
                    text: String::with_capacity(STRING_START),
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
    pub(super) fn next_slot(&mut self) -> Result<Slot, NotJson> {
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
    pub(super) fn shown_len(&self) -> usize {
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
    pub(super) fn answer_slot(&self) -> Slot {
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
    pub(super) fn check_for(&self, place: NodeId, is_object: bool) -> Check {
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

    pub(super) fn open_container(&mut self, slot: Slot, is_object: bool) {
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
    pub(super) fn begin(&mut self, slot: Slot, check: Check, is_object: bool) {
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
    pub(super) fn close_raw_element(&mut self) {
        if let Some(raw) = self.raw.take() {
            self.changed = true;
            self.elements.push(ClosedElement {
                index: raw.index,
                value: Ok(ElementBody::Text(raw.text)),
            });
        }
    }

    /// Whether the container opening at `slot` is needed whole when it closes.
    pub(super) fn needs_whole(&self, slot: &Slot, check: &Check) -> bool {
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
    pub(super) fn member_name(&mut self, name: &str) -> Result<bool, NotJson> {
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
}

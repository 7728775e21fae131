//! Closing values: each checked as it closes with the final reading's walker and rules, then
//! kept in the view or left out with its findings, and handed out when it is an element.

use super::*;

impl PartialReader {
    pub(super) fn close_string(&mut self, open: OpenString) -> Result<bool, NotJson> {
        let Some(slot) = open.slot else {
            return self.member_name(&open.text);
        };
        Ok(self.close_value(slot, Value::String(open.text)))
    }

    /// A number, literal or string closed at `slot`: checked, then kept or left out. False once
    /// it was the answer.
    pub(super) fn close_value(&mut self, slot: Slot, mut value: Value) -> bool {
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
    pub(super) fn close_container(&mut self) -> Result<bool, NotJson> {
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
    pub(super) fn value_of<'s>(
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
    pub(super) fn container_rules(
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
    pub(super) fn verify(
        &self,
        place: NodeId,
        field: Option<FieldRef>,
        value: &mut Value,
    ) -> Vec<ResultIssue> {
        verify_in(&self.info, place, field, value, &self.lossy)
    }

    /// Keeps or leaves out the value that closed at `slot` (in the view already, or `value`),
    /// records its findings and hands out a closed element. False once it was the answer.
    pub(super) fn settle(
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
    pub(super) fn pointer(&self, slot: &Slot) -> String {
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
    pub(super) fn current(&self, slot: &Slot) -> Option<&Value> {
        let mut value: &Value = &self.view;
        for seg in self.path.iter().chain(slot.seg.as_ref()) {
            value = tree::child_ref(value, seg)?;
        }
        Some(value)
    }

    /// Puts `value` into the view at `slot`.
    pub(super) fn put(&mut self, slot: &Slot, value: Value) {
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
    pub(super) fn take(&mut self, slot: &Slot) {
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
    pub(super) fn flush_string(&mut self) {
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
pub(super) fn verify_in(
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
pub(super) fn struct_fields(node: &Node) -> &[Field] {
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
pub(super) fn has_own_value(info: &TypeInfo) -> bool {
    info.accepts_envelope_lookalike()
        && !matches!(
            info.graph().node(info.graph().accepts(info.root()).id),
            Node::Map { .. } | Node::Scalar(_)
        )
}

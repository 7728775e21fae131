//! Collecting the attachments met while a call's input is serialized.
//!
//! An input may be an [`Attachment`] or carry some as members; serde gives a `Serialize`
//! implementation no context, so the input's serialization runs inside [`capturing`], which
//! opens a list on this thread: each attachment serialized meanwhile joins the list and is written
//! as its place in it. Serialization is synchronous, so the list cannot leak to another call; a
//! guard closes it even if a `Serialize` implementation panics.
//!
//! A collection's element is serialized inside [`capturing_in`], with a scope (`element 5`, or
//! `key "T-1"`): each attachment met is written as `<attachment 2 of element 5: ...>`, and the
//! attachment kept remembers that place, so the chunk's prompt can name it whatever chunk the
//! element lands in.

use std::cell::RefCell;
use std::sync::Arc;

use super::Attachment;

/// What a collection's element is called where its attachments are named.
#[derive(Debug)]
pub(crate) enum Scope {
    /// A `map_each` element: `element 5`.
    Element(usize),
    /// A `map_values` element, by its key as JSON text: `key "T-1"`.
    Key(String),
}

impl Scope {
    fn name(&self) -> Arc<str> {
        match self {
            Scope::Element(index) => format!("element {index}").into(),
            Scope::Key(key) => format!("key {key}").into(),
        }
    }
}

/// The list open on this thread, and the scope its attachments are numbered in (named when the
/// first attachment is met, so an element without any costs nothing).
struct Open {
    list: Vec<Attachment>,
    scope: Option<Scope>,
    named: Option<Arc<str>>,
}

thread_local! {
    static CAPTURED: RefCell<Option<Open>> = const { RefCell::new(None) };
}

/// Runs `serialize` with a list open, and returns its result with the attachments met, in
/// order. `serialize` is given a function that empties the list, for a second pass over the
/// same value.
pub(crate) fn capturing<R>(serialize: impl FnOnce(&dyn Fn()) -> R) -> (R, Vec<Attachment>) {
    open(None, serialize)
}

/// Runs `serialize` with a list open whose attachments are numbered within `scope` (a
/// collection's element: `element 5`), and returns its result with the attachments met, in
/// order, each remembering its place (see [`Attachment::origin`]).
pub(crate) fn capturing_in<R>(scope: Scope, serialize: impl FnOnce() -> R) -> (R, Vec<Attachment>) {
    open(Some(scope), |_| serialize())
}

fn open<R>(scope: Option<Scope>, serialize: impl FnOnce(&dyn Fn()) -> R) -> (R, Vec<Attachment>) {
    struct Close(Option<Open>);
    impl Drop for Close {
        fn drop(&mut self) {
            CAPTURED.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    // A capture inside a capture (an input whose `Serialize` runs a call's serialization) keeps
    // the outer list for when the inner one closes.
    let outer = CAPTURED.with(|c| {
        c.borrow_mut().replace(Open {
            list: Vec::new(),
            scope,
            named: None,
        })
    });
    let close = Close(outer);
    let result = serialize(&|| {
        CAPTURED.with(|c| {
            if let Some(open) = c.borrow_mut().as_mut() {
                open.list.clear();
            }
        })
    });
    let captured = CAPTURED
        .with(|c| c.borrow_mut().take())
        .map(|open| open.list)
        .unwrap_or_default();
    drop(close);
    (result, captured)
}

/// Adds `attachment` to the open list: its 1-based place and the list's scope, or `None` when
/// no list is open.
pub(super) fn capture(attachment: &Attachment) -> Option<(usize, Option<Arc<str>>)> {
    CAPTURED.with(|c| {
        let mut open = c.borrow_mut();
        let open = open.as_mut()?;
        let place = open.list.len() + 1;
        if open.named.is_none() {
            open.named = open.scope.as_ref().map(Scope::name);
        }
        let kept = match &open.named {
            Some(name) => attachment.placed(place, Arc::clone(name)),
            None => attachment.clone(),
        };
        open.list.push(kept);
        Some((place, open.named.clone()))
    })
}

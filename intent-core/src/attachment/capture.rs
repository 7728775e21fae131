//! Collecting the attachments met while a call's input is serialized.
//!
//! An input may be an [`Attachment`] or carry some as members; serde gives a `Serialize`
//! implementation no context, so the input's serialization runs inside [`capturing`], which
//! opens a list on this thread: each attachment serialized meanwhile joins the list and is written
//! as its place in it. Serialization is synchronous, so the list cannot leak to another call; a
//! guard closes it even if a `Serialize` implementation panics.

use std::cell::RefCell;

use super::Attachment;

thread_local! {
    static CAPTURED: RefCell<Option<Vec<Attachment>>> = const { RefCell::new(None) };
}

/// Runs `serialize` with a list open, and returns its result with the attachments met, in
/// order. `serialize` is given a function that empties the list, for a second pass over the
/// same value.
pub(crate) fn capturing<R>(serialize: impl FnOnce(&dyn Fn()) -> R) -> (R, Vec<Attachment>) {
    struct Close(Option<Vec<Attachment>>);
    impl Drop for Close {
        fn drop(&mut self) {
            CAPTURED.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    // A capture inside a capture (an input whose `Serialize` runs a call's serialization) keeps
    // the outer list for when the inner one closes.
    let outer = CAPTURED.with(|c| c.borrow_mut().replace(Vec::new()));
    let close = Close(outer);
    let result = serialize(&|| {
        CAPTURED.with(|c| {
            if let Some(list) = c.borrow_mut().as_mut() {
                list.clear();
            }
        })
    });
    let captured = CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or_default();
    drop(close);
    (result, captured)
}

/// Adds `attachment` to the open list: its 1-based place, or `None` when no list is open.
pub(super) fn capture(attachment: &Attachment) -> Option<usize> {
    CAPTURED.with(|c| {
        let mut list = c.borrow_mut();
        let list = list.as_mut()?;
        list.push(attachment.clone());
        Some(list.len())
    })
}

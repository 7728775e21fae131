//! The answer so far built only when someone looks at it.
//!
//! A stream of partials hands out a partial after each piece, but many consumers never look at
//! one: they wait for the result, or read only some. Building the JSON view after every piece
//! costs about three times reading the reply whole, so it is built on demand instead:
//!
//! - [`Views`] follows one reply. Until the answer begins it reads each piece with the partial
//!   reader at once (only the prose, the fence and the envelope's opening before it: a few
//!   bytes), because whether a partial is due at all depends on it: no partial shows before the
//!   answer began. From then on a piece only joins the reply's text, and each hands out a
//!   [`ViewAt`]: the text's length at that point.
//! - [`ViewAt::get`] reads the pieces not read yet, up to its own point, into the one reader the
//!   reply's views share ([`Source`]), and keeps what it saw. A consumer that looks at every
//!   partial in order therefore reads each piece once, as when the view was built eagerly; one
//!   that looks at none reads nothing past the answer's first bracket. A view looked at after a
//!   later one (the reader already past its point) is read afresh from the reply's start: correct,
//!   and rare.
//! - Once the reader has stopped (the answer closed, or the reply stopped being JSON the view can
//!   follow), no piece can change the view: [`Views::push`] hands out no more views. Until some
//!   view is looked at, a piece that changes nothing (whitespace, the middle of a number) still
//!   hands out one, showing the same answer as the one before.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use serde_json::Value;

use super::PartialReader;
use crate::shape::TypeInfo;

/// What a view shows: the answer so far, and how deep the way down to what is still being
/// written goes (`None`: nothing is; the way itself is [`super::way_down`] of the answer).
pub(crate) type Seen = (Arc<Value>, Option<usize>);

/// The reply's views, built on demand. See the module docs.
#[derive(Debug)]
pub(crate) struct Views {
    /// The reader, while the answer has not begun; then it moves into `source`.
    reader: Option<PartialReader>,
    /// The reply so far, until the answer begins; then it moves into `source`.
    reply: String,
    source: Option<Arc<Source>>,
    info: Arc<TypeInfo>,
}

impl Views {
    /// The views of a reply to a call for the type `info` describes.
    pub(crate) fn new(info: Arc<TypeInfo>) -> Self {
        Views {
            reader: Some(PartialReader::new(info.clone())),
            reply: String::new(),
            source: None,
            info,
        }
    }

    /// True once the answer has begun (a view has been handed out).
    pub(crate) fn started(&self) -> bool {
        self.source.is_some()
    }

    /// How much of the reply the views' shared reader has read; `None` before the answer began.
    #[cfg(test)]
    pub(crate) fn applied(&self) -> Option<usize> {
        self.source.as_ref().map(|source| source.lock().applied)
    }

    /// Starts over, for a new reply.
    pub(crate) fn reset(&mut self) {
        *self = Views::new(self.info.clone());
    }

    /// Takes the reply's next piece; the view at its end when one is due.
    pub(crate) fn push(&mut self, piece: &str) -> Option<ViewAt> {
        if let Some(source) = &self.source {
            if source.settled() {
                return None;
            }
            let end = {
                let mut state = source.lock();
                state.text.push_str(piece);
                state.text.len()
            };
            return Some(ViewAt::new(source.clone(), end));
        }
        let reader = self.reader.as_mut()?;
        reader.push(piece);
        self.reply.push_str(piece);
        if !reader.started() {
            return None;
        }
        let reader = self.reader.take()?;
        let text = std::mem::take(&mut self.reply);
        let end = text.len();
        let source = Arc::new(Source {
            state: Mutex::new(State {
                applied: end,
                text,
                reader,
            }),
            settled: OnceLock::new(),
        });
        self.source = Some(source.clone());
        Some(ViewAt::new(source, end))
    }
}

/// One reply's text and the reader the views of it share.
#[derive(Debug)]
pub(crate) struct Source {
    state: Mutex<State>,
    /// Set once the reader stopped: no later piece changes the view.
    settled: OnceLock<()>,
}

#[derive(Debug)]
struct State {
    /// The reply from its start.
    text: String,
    /// How much of `text` the reader has read.
    applied: usize,
    reader: PartialReader,
}

impl Source {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is whole between calls: a panic while reading leaves a reader that reads on.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn settled(&self) -> bool {
        self.settled.get().is_some()
    }

    /// What the view shows once the reply's first `end` bytes are read.
    fn seen_at(&self, end: usize) -> Seen {
        let mut state = self.lock();
        let state = &mut *state;
        if state.applied > end {
            // Looked at after a later view: read afresh up to this point.
            let mut reader = PartialReader::new(state.reader.info().clone());
            reader.push(&state.text[..end]);
            return seen(&reader);
        }
        if state.applied < end {
            state.reader.push(&state.text[state.applied..end]);
            state.applied = end;
        }
        if state.reader.stopped() {
            let _ = self.settled.set(());
        }
        seen(&state.reader)
    }
}

/// What `reader` shows now.
fn seen(reader: &PartialReader) -> Seen {
    (reader.value().clone(), reader.open_depth())
}

/// The answer so far at one point of a reply, read when first asked for and kept.
#[derive(Debug, Clone)]
pub(crate) struct ViewAt {
    source: Arc<Source>,
    end: usize,
    seen: OnceLock<Seen>,
}

impl ViewAt {
    fn new(source: Arc<Source>, end: usize) -> Self {
        ViewAt {
            source,
            end,
            seen: OnceLock::new(),
        }
    }

    /// What the view shows, read on the first call.
    pub(crate) fn get(&self) -> &Seen {
        self.seen.get_or_init(|| self.source.seen_at(self.end))
    }
}

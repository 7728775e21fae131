//! The steps of a streamed call: the attempt loop run by the relay's [`Pump`], and what it relays
//! read by the partial reader into partials, closed elements, retries and the result.

use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::provider::BoxFuture;
use crate::read::partial::{ClosedElement, PartialReader};
use crate::relay::{Pump, Pumped, Queue, Relay};
use crate::result::{AiResult, AttemptRecord};
use crate::shape::TypeInfo;

/// What the call relayed, in order.
// A retry's record is rare next to the text pieces; boxing it would not make the text cheaper.
#[allow(clippy::large_enum_variant)]
pub(super) enum Relayed {
    Restart,
    Text(String),
    Retry(AttemptRecord),
}

impl Relay for Queue<Relayed> {
    fn restart(&self) {
        self.push(Relayed::Restart);
    }
    fn text(&self, piece: &str) {
        self.push(Relayed::Text(piece.to_owned()));
    }
    fn retry(&self, record: &AttemptRecord) {
        self.push(Relayed::Retry(record.clone()));
    }
}

/// One step of a streamed call.
#[allow(clippy::large_enum_variant)]
pub(super) enum Step<T> {
    /// The view changed: the answer so far, its attempt, whether it started over, and the way
    /// down to what is still being written.
    Partial(Arc<serde_json::Value>, u32, bool, super::typed::OpenPath),
    /// An element that closed, with the description of the list to read it by.
    Element(ClosedElement, Arc<TypeInfo>),
    /// The elements handed out since the reply began (this many) came from a reply the final
    /// reading refused, or from an answer in it other than the one the final reading took.
    Withdrawn(usize),
    Retry(AttemptRecord),
    Done(AiResult<T>),
}

/// A streamed call being run.
pub(super) struct Driver<'a, T> {
    /// The call, and what it relayed.
    pump: Pump<'a, Relayed, AiResult<T>>,
    reader: PartialReader,
    steps: VecDeque<Step<T>>,
    attempt: u32,
    /// The next partial starts over.
    restart: bool,
    /// Whether the elements of a list answer are wanted.
    elements: bool,
    /// Element streams: the reply so far, and how many elements were handed out from it.
    reply: String,
    delivered: usize,
}

impl<'a, T> Driver<'a, T> {
    pub(super) fn new(
        info: Arc<TypeInfo>,
        queue: Arc<Queue<Relayed>>,
        call: BoxFuture<'a, AiResult<T>>,
        elements: bool,
    ) -> Self {
        Driver {
            pump: Pump::new(queue, call),
            reader: if elements {
                PartialReader::new(info).elements_as_text()
            } else {
                PartialReader::new(info)
            },
            steps: VecDeque::new(),
            attempt: 1,
            restart: false,
            elements,
            reply: String::new(),
            delivered: 0,
        }
    }

    /// The next step; `None` after `Done`.
    ///
    /// What the call relayed is read one piece at a time, each partial handed out before the next
    /// piece is read: a consumer that drops each partial before asking for the next never makes
    /// the reader copy the answer so far.
    pub(super) fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<Option<Step<T>>> {
        loop {
            if let Some(step) = self.steps.pop_front() {
                return Poll::Ready(Some(step));
            }
            match self.pump.poll_next(cx) {
                Poll::Ready(Some(Pumped::Relayed(item))) => self.read(item),
                Poll::Ready(Some(Pumped::Done(result))) => {
                    if self.delivered > 0 && !self.final_reading_took_the_stream(&result) {
                        self.steps.push_back(Step::Withdrawn(self.delivered));
                    }
                    self.delivered = 0;
                    self.steps.push_back(Step::Done(result));
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// The next step that `map` keeps, mapped; `None` after `Done`.
    pub(super) fn poll_map<U>(
        &mut self,
        cx: &mut Context<'_>,
        mut map: impl FnMut(Step<T>) -> Option<U>,
    ) -> Poll<Option<U>> {
        loop {
            match self.poll_step(cx) {
                Poll::Ready(Some(step)) => {
                    if let Some(item) = map(step) {
                        return Poll::Ready(Some(item));
                    }
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    /// Whether the call's result stands behind the elements handed out: it succeeded, and the
    /// final reading's locator took the answer this stream followed in the same reply.
    fn final_reading_took_the_stream(&self, result: &AiResult<T>) -> bool {
        result.is_success()
            && self.reader.answer_at().is_some()
            && crate::read::answer_start(self.reader.info(), &self.reply) == self.reader.answer_at()
    }

    /// The reply starts over: the elements handed out from the one before are withdrawn.
    fn withdraw(&mut self) {
        if self.delivered > 0 {
            self.steps.push_back(Step::Withdrawn(self.delivered));
        }
        self.delivered = 0;
        self.reply.clear();
    }

    /// Reads one thing the call relayed: a partial when a piece changed the answer so far, after
    /// the elements it closed.
    fn read(&mut self, item: Relayed) {
        {
            match item {
                Relayed::Restart => {
                    self.withdraw();
                    if self.reader.started() {
                        self.restart = true;
                    }
                    self.reader.reset();
                }
                Relayed::Text(text) => {
                    let changed = self.reader.push(&text);
                    if self.elements {
                        self.reply.push_str(&text);
                    }
                    if self.elements && self.reader.has_closed_elements() {
                        let info = self.reader.info().clone();
                        let before = self.steps.len();
                        self.steps.extend(
                            self.reader
                                .take_elements()
                                .map(|closed| Step::Element(closed, info.clone())),
                        );
                        self.delivered += self.steps.len() - before;
                    }
                    // An element stream shows no partials: its reader builds no view.
                    if changed && !self.elements {
                        self.partial();
                    }
                }
                Relayed::Retry(record) => {
                    self.withdraw();
                    self.steps.push_back(Step::Retry(record));
                    self.attempt += 1;
                    self.restart = true;
                    self.reader.reset();
                }
            }
        }
    }

    fn partial(&mut self) {
        if !self.reader.started() {
            return;
        }
        let restart = std::mem::take(&mut self.restart);
        self.steps.push_back(Step::Partial(
            self.reader.value().clone(),
            self.attempt,
            restart,
            self.reader.open_path().map(Arc::from),
        ));
    }
}

// The driver is never pinned in place: the call's future is boxed, and nothing else is polled
// through a pin.
impl<T> Unpin for Driver<'_, T> {}

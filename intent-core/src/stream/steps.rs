//! The steps of a streamed call: the attempt loop run by the relay's [`Pump`], and what it relays
//! read by the partial reader into partials, closed elements, retries and the result.

use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};

use crate::provider::BoxFuture;
use crate::read::partial::{ClosedElement, PartialReader, ViewAt, Views};
use crate::relay::{Pump, Pumped, Queue, Relay};
use crate::result::{AiResult, AttemptRecord};
use crate::shape::TypeInfo;

/// What the call relayed, in order.
///
/// A retry's record is boxed: it is rare next to the text pieces, and a move of an enum copies
/// its largest variant's size whatever it holds, so every piece would carry the record's size
/// through the queue.
pub(super) enum Relayed {
    Restart,
    Text(String),
    Retry(Box<AttemptRecord>),
}

impl Relay for Queue<Relayed> {
    fn restart(&self) {
        self.push(Relayed::Restart);
    }
    fn text(&self, piece: &str) {
        self.push(Relayed::Text(piece.to_owned()));
    }
    fn retry(&self, record: &AttemptRecord) {
        self.push(Relayed::Retry(Box::new(record.clone())));
    }
}

/// One step of a streamed call.
///
/// A retry's record and the result are boxed, so that a step is small: there is one step for
/// each piece of the reply, and each is moved from the queue to the stream's event.
pub(super) enum Step<T> {
    /// A piece of the answer arrived: the answer so far (read when looked at), its attempt,
    /// and whether it started over.
    Partial(ViewAt, u32, bool),
    /// An element that closed, with the description of the list to read it by.
    Element(ClosedElement, Arc<TypeInfo>),
    /// The elements handed out since the reply began (this many) came from a reply the final
    /// reading refused, or from an answer in it other than the one the final reading took.
    Withdrawn(usize),
    Retry(Box<AttemptRecord>),
    Done(Box<AiResult<T>>),
}

/// A streamed call being run.
pub(super) struct Driver<'a, T> {
    /// The call, and what it relayed.
    /// The call's result comes boxed, as the steps hand it on (see [`Step`]).
    pump: Pump<'a, Relayed, Box<AiResult<T>>>,
    reading: Reading,
    steps: VecDeque<Step<T>>,
    attempt: u32,
    /// The next partial starts over.
    restart: bool,
    /// Element streams: the reply so far, and how many elements were handed out from it.
    reply: String,
    delivered: usize,
}

/// How a streamed call reads its reply: one way per stream.
enum Reading {
    /// A stream of partials: the views of the answer so far, each built when looked at.
    Partials(Views),
    /// An element stream: the elements of a list answer, as they close; no view.
    Elements(PartialReader),
}

impl<'a, T> Driver<'a, T> {
    pub(super) fn new(
        info: Arc<TypeInfo>,
        queue: Arc<Queue<Relayed>>,
        call: BoxFuture<'a, Box<AiResult<T>>>,
        elements: bool,
    ) -> Self {
        Driver {
            pump: Pump::new(queue, call),
            reading: if elements {
                Reading::Elements(PartialReader::new(info).elements_as_text())
            } else {
                Reading::Partials(Views::new(info))
            },
            steps: VecDeque::new(),
            attempt: 1,
            restart: false,
            reply: String::new(),
            delivered: 0,
        }
    }

    /// The next step; `None` after `Done`.
    ///
    /// What the call relayed is taken one piece at a time, each partial handed out before the
    /// next piece is taken. A partial's view is read when looked at: a consumer that looks at
    /// each and drops it before asking for the next never makes the reader copy the answer so
    /// far, and one that looks at none reads no view.
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
        let Reading::Elements(reader) = &self.reading else {
            return true;
        };
        result.is_success()
            && reader.answer_at().is_some()
            && crate::read::answer_start(reader.info(), &self.reply) == reader.answer_at()
    }

    /// The reply starts over: the elements handed out from the one before are withdrawn.
    fn withdraw(&mut self) {
        if self.delivered > 0 {
            self.steps.push_back(Step::Withdrawn(self.delivered));
        }
        self.delivered = 0;
        self.reply.clear();
    }

    /// Reads one thing the call relayed: a partial when a piece of the answer arrived, or the
    /// elements a piece closed.
    fn read(&mut self, item: Relayed) {
        match item {
            Relayed::Restart => {
                self.withdraw();
                if self.started() {
                    self.restart = true;
                }
                self.reset();
            }
            Relayed::Text(text) => match &mut self.reading {
                Reading::Partials(views) => {
                    if let Some(view) = views.push(&text) {
                        let restart = std::mem::take(&mut self.restart);
                        self.steps
                            .push_back(Step::Partial(view, self.attempt, restart));
                    }
                }
                // An element stream shows no partials: its reader builds no view.
                Reading::Elements(reader) => {
                    reader.push(&text);
                    self.reply.push_str(&text);
                    if reader.has_closed_elements() {
                        let info = reader.info().clone();
                        let before = self.steps.len();
                        self.steps.extend(
                            reader
                                .take_elements()
                                .map(|closed| Step::Element(closed, info.clone())),
                        );
                        self.delivered += self.steps.len() - before;
                    }
                }
            },
            Relayed::Retry(record) => {
                self.withdraw();
                self.steps.push_back(Step::Retry(record));
                self.attempt += 1;
                self.restart = true;
                self.reset();
            }
        }
    }

    /// True once the answer of the reply being read has begun.
    fn started(&self) -> bool {
        match &self.reading {
            Reading::Partials(views) => views.started(),
            Reading::Elements(reader) => reader.started(),
        }
    }

    /// Starts reading over, for a new reply.
    fn reset(&mut self) {
        match &mut self.reading {
            Reading::Partials(views) => views.reset(),
            Reading::Elements(reader) => reader.reset(),
        }
    }
}

// The driver is never pinned in place: the call's future is boxed, and nothing else is polled
// through a pin.
impl<T> Unpin for Driver<'_, T> {}

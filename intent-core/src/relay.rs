//! Relaying a call's reply as it arrives: the seam between the attempt loop, which runs a
//! streamed call exactly as an awaited one, and the stream that shows it.
//!
//! A call run with a [`Relay`] asks each provider through [`Streamed`], which reads the
//! provider's [`PieceStream`](crate::provider::PieceStream), hands each text piece to the relay
//! and rebuilds the same [`AiResponse`] that `complete` gives; the loop tells the relay when a
//! provider is asked anew (a fallback, or the next attempt) and when an attempt failed.
//!
//! The streams users read ([`AiStream`](crate::stream::AiStream) and
//! [`ElementStream`](crate::stream::ElementStream) for one call,
//! [`CollectionStream`](crate::collections::CollectionStream) for a collection) run their call
//! with one [`Pump`]: the call's future polled by the stream itself, in the task that polls the
//! stream (nothing is spawned, so dropping the stream cancels the call), what the call relayed
//! into a [`Queue`] handed out in order, and the call's output last.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures::StreamExt as _;

use crate::provider::{
    AiResponse, BoxFuture, Provider, ProviderError, ReplyAssembler, StreamPiece,
};
use crate::request::AiRequest;
use crate::result::AttemptRecord;
use crate::send::Ask;

/// What a streamed call tells whoever shows it.
pub(crate) trait Relay: Send + Sync {
    /// A provider is asked, or a cached reply replayed: what came before is not this reply.
    fn restart(&self);
    /// The next piece of the reply's text.
    fn text(&self, piece: &str);
    /// An attempt failed with `record`; the next one starts.
    fn retry(&self, record: &AttemptRecord);
}

/// Asks a provider for its reply streamed, relaying its text as it comes.
pub(crate) struct Streamed<'r>(pub(crate) &'r dyn Relay);

impl Ask for Streamed<'_> {
    fn ask<'a>(
        &'a self,
        provider: &'a dyn Provider,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            self.0.restart();
            let mut pieces = provider.stream(request);
            let mut reply = ReplyAssembler::new();
            while let Some(piece) = pieces.next().await {
                let piece = piece?;
                if let StreamPiece::Text(text) = &piece {
                    self.0.text(text);
                }
                reply.push(piece);
            }
            reply.finish()
        })
    }
}

/// Where a running call's relayed items wait until its stream reads them: pushed as the call
/// runs, taken by the [`Pump`] after each poll of the call.
pub(crate) struct Queue<I>(Mutex<Vec<I>>);

impl<I> Default for Queue<I> {
    fn default() -> Self {
        Queue(Mutex::new(Vec::new()))
    }
}

impl<I> Queue<I> {
    /// Adds `item` after what was relayed before it.
    pub(crate) fn push(&self, item: I) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(item);
    }

    /// Everything relayed since the last take, in order.
    fn take(&self) -> Vec<I> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// What a [`Pump`] hands out.
pub(crate) enum Pumped<I, R> {
    /// Something the call relayed, in the order it was relayed.
    Relayed(I),
    /// The call's output, after everything it relayed. Always last.
    Done(R),
}

/// A call run by the stream that shows it: see the module's documentation.
pub(crate) struct Pump<'a, I, R> {
    /// The call, until it is done.
    call: Option<BoxFuture<'a, R>>,
    queue: Arc<Queue<I>>,
    /// What the call relayed, not yet handed out.
    relayed: VecDeque<I>,
    /// The call's output, held until everything relayed before it is handed out.
    done: Option<R>,
}

impl<'a, I, R> Pump<'a, I, R> {
    /// Runs `call`, which relays into `queue`, as it is polled.
    pub(crate) fn new(queue: Arc<Queue<I>>, call: BoxFuture<'a, R>) -> Self {
        Pump {
            call: Some(call),
            queue,
            relayed: VecDeque::new(),
            done: None,
        }
    }

    /// Whether the call is still running.
    pub(crate) fn is_running(&self) -> bool {
        self.call.is_some()
    }

    /// The next relayed item, else the call's output once everything relayed is handed out;
    /// `None` after the output.
    pub(crate) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Pumped<I, R>>> {
        loop {
            if let Some(item) = self.relayed.pop_front() {
                return Poll::Ready(Some(Pumped::Relayed(item)));
            }
            if let Some(output) = self.done.take() {
                return Poll::Ready(Some(Pumped::Done(output)));
            }
            let Some(call) = self.call.as_mut() else {
                return Poll::Ready(None);
            };
            let polled = call.as_mut().poll(cx);
            self.relayed.extend(self.queue.take());
            match polled {
                Poll::Ready(output) => {
                    self.call = None;
                    self.done = Some(output);
                }
                Poll::Pending if self.relayed.is_empty() => return Poll::Pending,
                Poll::Pending => {}
            }
        }
    }
}

// Nothing is polled through a pin: the call's future is boxed.
impl<I, R> Unpin for Pump<'_, I, R> {}

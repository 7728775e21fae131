//! Handing events to the observers: each one called in turn, a panic caught and logged once, and
//! the call's [`Origin`] carried through the task.
//!
//! The origin travels in a task-local rather than through every function's arguments, because the
//! events come from layers that know nothing of the call: a provider's transport reports its
//! retries, the sender its fallbacks. A call without observers sets no task-local and builds no
//! event.

use std::cell::Cell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use futures::future::Either;

use super::events::{CallId, Origin};
use super::Observer;

/// The observers of a client, in the order they were added. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Observers(Option<Arc<[Registered]>>);

pub(crate) struct Registered {
    observer: Box<dyn Observer>,
    /// Set by the observer's first panic, so that it is logged once.
    panicked: AtomicBool,
}

impl Observers {
    /// The observers `observers`, in order.
    pub(crate) fn new(observers: Vec<Box<dyn Observer>>) -> Self {
        if observers.is_empty() {
            return Observers(None);
        }
        Observers(Some(
            observers
                .into_iter()
                .map(|observer| Registered {
                    observer,
                    panicked: AtomicBool::new(false),
                })
                .collect(),
        ))
    }

    /// True when there is no observer.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Calls `notify` on each observer. A panic is caught: the call goes on, the next observer is
    /// called, and the observer's first panic is logged as an error.
    fn each(&self, event: &'static str, notify: impl Fn(&dyn Observer)) {
        let Some(all) = &self.0 else { return };
        for registered in all.iter() {
            let outcome = catch_unwind(AssertUnwindSafe(|| notify(registered.observer.as_ref())));
            if let Err(panic) = outcome {
                if !registered.panicked.swap(true, Ordering::Relaxed) {
                    let message = panic
                        .downcast_ref::<&str>()
                        .copied()
                        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                        .unwrap_or("a panic with no message");
                    tracing::error!(
                        event,
                        panic = message,
                        "an observer panicked; the call goes on (later panics of this observer are not logged)"
                    );
                }
            }
        }
    }
}

/// What the events of the running call share: its observers and where it is.
struct Context {
    observers: Observers,
    call: CallId,
    chunk: Option<usize>,
    target: &'static str,
    attempt: Cell<u32>,
}

tokio::task_local! {
    static CONTEXT: Context;
}

/// A new call's id.
pub(crate) fn next_call_id() -> CallId {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    CallId::new(NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Runs `future` as call `call` returning a `target`, its events going to `observers`.
///
/// A plain function rather than an `async fn`: an `async fn` would hold `future` twice (as its
/// argument and as what it awaits), and a call's future is the largest thing a call moves.
pub(crate) fn in_call<F: Future>(
    observers: &Observers,
    call: CallId,
    target: &'static str,
    future: F,
) -> impl Future<Output = F::Output> {
    if observers.is_empty() {
        return Either::Left(future);
    }
    let context = Context {
        observers: observers.clone(),
        call,
        chunk: None,
        target,
        attempt: Cell::new(0),
    };
    Either::Right(CONTEXT.scope(context, future))
}

/// Runs `future` as chunk `chunk` of the running collection call (a plain function, as
/// [`in_call`] is).
pub(crate) fn in_chunk<F: Future>(chunk: usize, future: F) -> impl Future<Output = F::Output> {
    let context = CONTEXT
        .try_with(|outer| Context {
            observers: outer.observers.clone(),
            call: outer.call,
            chunk: Some(chunk),
            target: outer.target,
            attempt: Cell::new(0),
        })
        .ok();
    match context {
        Some(context) => Either::Right(CONTEXT.scope(context, future)),
        None => Either::Left(future),
    }
}

/// Marks attempt `number` of the running call (or chunk) as started.
pub(crate) fn attempt_started(number: u32) {
    let _ = CONTEXT.try_with(|context| context.attempt.set(number));
}

/// Builds the event with `build` from where the running call is and hands it to each observer
/// with `notify`; does nothing (builds nothing) outside a call with observers.
pub(crate) fn emit<E>(
    event: &'static str,
    build: impl FnOnce(Origin) -> E,
    notify: impl Fn(&dyn Observer, &E),
) {
    let _ = CONTEXT.try_with(|context| {
        let origin = Origin {
            call: context.call,
            chunk: context.chunk,
            attempt: context.attempt.get(),
            target: context.target,
        };
        let built = build(origin);
        context
            .observers
            .each(event, |observer| notify(observer, &built));
    });
}

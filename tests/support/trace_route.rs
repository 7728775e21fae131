//! One process-wide subscriber that hands each trace to the subscriber of the test whose thread
//! it happens on.
//!
//! tracing caches every callsite's interest process-wide. A thread-local subscriber installed
//! with `tracing::subscriber::set_default` while another test thread registers one of the
//! library's callsites for the first time can leave that callsite cached as "never":
//! tracing-core works the interest out from the dispatchers it saw when the registration began,
//! and the rebuild that the new subscriber triggers does not see a callsite not yet listed. The
//! test then sees no trace at all, and a test that asserts on the absence of something (a key in
//! a log) passes for the wrong reason. Here one global subscriber, installed once and never
//! removed, answers "sometimes" for every callsite, so no callsite is ever cached as "never";
//! whether a trace is wanted is asked per trace of the thread's own test subscriber.
//!
//! Each test runs on its own thread (libtest) with a current-thread runtime, so the thread is
//! the test. A trace on a thread without a routed subscriber (another test, a blocking pool) is
//! dropped.

use std::cell::RefCell;
use std::sync::Once;

use tracing::level_filters::LevelFilter;
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};
use tracing_core::span::Current;

thread_local! {
    static TARGET: RefCell<Option<Dispatch>> = const { RefCell::new(None) };
}

/// While it lives, this thread's traces go to the subscriber given to [`route_to`].
#[must_use = "traces are routed only while the guard lives"]
pub struct RouteGuard {
    previous: Option<Dispatch>,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        TARGET.with(|target| *target.borrow_mut() = previous);
    }
}

/// Sends this thread's traces to `subscriber` until the guard is dropped.
pub fn route_to(subscriber: impl Subscriber + Send + Sync + 'static) -> RouteGuard {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        tracing::subscriber::set_global_default(Router)
            .expect("the test binary installs no other global subscriber");
    });
    let dispatch = Dispatch::new(subscriber);
    let previous = TARGET.with(|target| target.borrow_mut().replace(dispatch));
    // A callsite whose registration was under way while the router was installed may still
    // hold the interest it worked out before; this works every listed callsite out again.
    tracing::callsite::rebuild_interest_cache();
    RouteGuard { previous }
}

/// The process-wide subscriber: every callsite "sometimes", each trace asked of the thread's
/// routed subscriber.
struct Router;

/// The thread's routed subscriber, cloned out so that it may emit traces of its own.
fn target() -> Option<Dispatch> {
    TARGET.with(|target| target.borrow().clone())
}

impl Subscriber for Router {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }

    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        target().is_some_and(|dispatch| dispatch.enabled(metadata))
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        match target() {
            Some(dispatch) => dispatch.new_span(span),
            // Only asked after `enabled` said yes on this thread; an id nothing will look up.
            None => Id::from_u64(u64::MAX),
        }
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(dispatch) = target() {
            dispatch.record(span, values);
        }
    }

    fn record_follows_from(&self, span: &Id, follows: &Id) {
        if let Some(dispatch) = target() {
            dispatch.record_follows_from(span, follows);
        }
    }

    fn event(&self, event: &Event<'_>) {
        if let Some(dispatch) = target() {
            dispatch.event(event);
        }
    }

    fn enter(&self, span: &Id) {
        if let Some(dispatch) = target() {
            dispatch.enter(span);
        }
    }

    fn exit(&self, span: &Id) {
        if let Some(dispatch) = target() {
            dispatch.exit(span);
        }
    }

    fn clone_span(&self, span: &Id) -> Id {
        match target() {
            Some(dispatch) => dispatch.clone_span(span),
            None => span.clone(),
        }
    }

    fn try_close(&self, span: Id) -> bool {
        match target() {
            Some(dispatch) => dispatch.try_close(span),
            None => false,
        }
    }

    fn current_span(&self) -> Current {
        match target() {
            Some(dispatch) => dispatch.current_span(),
            None => Current::none(),
        }
    }
}

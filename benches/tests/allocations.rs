//! The allocation budget of a plain call: how many times a plain `Order::ai` allocates, on the
//! scripted model and over HTTP against a loopback server, each pinned here, so that a change
//! that adds an allocation to every call fails this test and must raise the figure on purpose
//! (and one that removes some must lower it, keeping the figure true). A third figure holds what
//! the answer policies cost on a type they watch, and two more a streamed call's, by what its
//! consumer looks at.
//!
//! A counting global allocator counts only on a thread that asked it to, so the test harness's
//! other threads and the server's own thread (`Server` runs on one of its own) are not counted.
//! Each call runs on a current-thread runtime on the counting thread, so the HTTP client's
//! connection task is counted with the call. Every figure is the least count over several calls
//! after a warm-up: the first call of a type builds its schema and prompt parts once, and a
//! growing record of the scripted model's requests reallocates now and then.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::future::IntoFuture;

use intent_bench::call::{CallFixture, EMAIL, INTENT};
use intent_bench::replies::{order, Envelope};
use intent_bench::types::Order;
use intent_core::prelude::*;
use serde::Deserialize;

/// Allocations (including reallocations) of one plain `Order::ai` on the scripted model: the
/// library's own work for a call, with no transport.
const SCRIPTED_BUDGET: u64 = 28;

/// Allocations (including reallocations) of one plain `Order::ai` through `OpenAiProvider`
/// against a loopback server: the library's work plus reqwest's and hyper's for one request.
const HTTP_BUDGET: u64 = 90;

/// Allocations (including reallocations) of one `Confirmation::ai` on the scripted model: a type
/// that the answer policies watch (members from the input, a sample in a description, a bound),
/// answered with values that pass them all, so each policy looks and finds nothing. Above the
/// plain call's figure: the reply read as JSON as well as into the type (the policies look at the
/// answer as the model wrote it), and the input folded once for looking values up; no pointer is
/// written and no answer copied where nothing is found.
const WATCHED_BUDGET: u64 = 42;

/// Allocations (including reallocations) of one `Order::ai(..).stream()` on the scripted model,
/// the reply (689 bytes) in 16-character pieces (44 of them), read to its end by a consumer that
/// looks at no partial (it waits for the result): the plain call's work, each piece made by the
/// scripted model and copied as it is relayed, the reply's text growing in one buffer; no view
/// of the answer is built past its first bracket.
const STREAMED_UNREAD_BUDGET: u64 = 153;

/// The same streamed call read by a consumer that looks at every partial's JSON: the view
/// built piece by piece as well (its members' names, its objects and lists, its strings
/// growing).
const STREAMED_LOOKED_AT_BUDGET: u64 = 254;

/// An order confirmation whose members the answer policies watch.
#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Confirmation {
    /// The order number, such as SO-1234.
    #[intent(from_input)]
    number: String,
    /// Who ordered.
    #[intent(from_input)]
    customer: String,
    /// How many lamps, at least 1.
    #[intent(minimum = 1)]
    lamps: u32,
}

/// What a policy costs where it applies: the watched type's figure, pinned on its own.
#[test]
fn a_watched_call_allocates_within_its_budget() {
    let runtime = runtime();
    let reply = r#"{"value":{"number":"SO-2026-0042","customer":"Dana Whitfield","lamps":3}}"#;
    let model = ScriptedProvider::new(Vec::<String>::new());
    let client = IntentClient::new(model.clone());
    let watched = least_over_calls(|| {
        model.push([reply]);
        counted(|| {
            let confirmation =
                runtime.block_on(Confirmation::ai(&client, EMAIL, INTENT).into_future());
            assert!(confirmation.is_success(), "{:?}", confirmation.issues());
        })
    });
    eprintln!("allocations per call of a watched type: {watched}");
    assert_eq!(
        watched, WATCHED_BUDGET,
        "a watched call's allocations moved from the pinned budget. Change WATCHED_BUDGET on \
         purpose, with the reason in the commit."
    );
}

/// Both budgets, and the same exchange written by hand with reqwest and serde_json for scale (not
/// pinned: it is not the library's).
#[test]
fn a_plain_call_allocates_within_its_budget() {
    let runtime = runtime();

    let (expected, reply) = order_reply();
    let model = ScriptedProvider::new(Vec::<String>::new());
    let client = IntentClient::new(model.clone());
    let scripted = least_over_calls(|| {
        model.push([reply.as_str()]);
        counted(|| {
            let order = runtime.block_on(Order::ai(&client, EMAIL, INTENT).into_future());
            assert_eq!(order.value(), Some(&expected));
        })
    });

    let fixture = runtime.block_on(CallFixture::start());
    let http = least_over_calls(|| counted(|| drop(runtime.block_on(fixture.library()))));
    let by_hand = least_over_calls(|| counted(|| drop(runtime.block_on(fixture.by_hand()))));

    eprintln!("allocations per call: scripted {scripted}, HTTP {http}, by hand {by_hand}");
    assert_eq!(
        (scripted, http),
        (SCRIPTED_BUDGET, HTTP_BUDGET),
        "a plain call's allocations (scripted model, HTTP) moved from the pinned budget; \
         by hand over HTTP: {by_hand}. Change SCRIPTED_BUDGET and HTTP_BUDGET on purpose, with \
         the reason in the commit."
    );
}

/// A streamed call's budgets: looked at by no partial, and by every partial.
#[test]
fn a_streamed_call_allocates_within_its_budget() {
    use futures::StreamExt as _;

    let runtime = runtime();
    let (expected, reply) = order_reply();
    let model = ScriptedProvider::new(Vec::<String>::new()).with_stream_chunk_chars(16);
    let client = IntentClient::new(model.clone());
    let streamed = |look: bool| {
        least_over_calls(|| {
            model.push([reply.as_str()]);
            counted(|| {
                let mut stream = Order::ai(&client, EMAIL, INTENT).stream();
                let result = runtime.block_on(async {
                    while let Some(event) = stream.next().await {
                        match event {
                            StreamEvent::Partial(partial) if look => {
                                assert!(partial.json().is_object());
                            }
                            StreamEvent::Done(result) => return result,
                            _ => {}
                        }
                    }
                    panic!("the stream ends with its result")
                });
                assert_eq!(result.value(), Some(&expected));
            })
        })
    };
    let (unread, looked_at) = (streamed(false), streamed(true));
    eprintln!(
        "allocations per streamed call ({} bytes): unread {unread}, every partial looked at \
         {looked_at}",
        reply.len()
    );
    assert_eq!(
        (unread, looked_at),
        (STREAMED_UNREAD_BUDGET, STREAMED_LOOKED_AT_BUDGET),
        "a streamed call's allocations moved from the pinned budget. Change \
         STREAMED_UNREAD_BUDGET and STREAMED_LOOKED_AT_BUDGET on purpose, with the reason in the \
         commit."
    );
}

/// A current-thread runtime: the calls it runs run on the counting thread.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The order the scripted model answers with, and its reply.
fn order_reply() -> (Order, String) {
    let expected = order(3);
    let reply = serde_json::to_string(&Envelope { value: &expected }).expect("JSON");
    (expected, reply)
}

/// The least of `measure` over calls after a warm-up.
fn least_over_calls(mut measure: impl FnMut() -> u64) -> u64 {
    for _ in 0..20 {
        measure();
    }
    (0..10).map(|_| measure()).min().unwrap_or(0)
}

/// The allocations `run` makes on this thread.
fn counted(run: impl FnOnce()) -> u64 {
    COUNT.with(|count| count.set(0));
    COUNTING.with(|counting| counting.set(true));
    run();
    COUNTING.with(|counting| counting.set(false));
    COUNT.with(Cell::get)
}

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting allocations and reallocations on threads that count.
struct Counting;

impl Counting {
    fn note() {
        // `try_with`: a thread being torn down may allocate after its locals are gone.
        let _ = COUNTING.try_with(|counting| {
            if counting.get() {
                let _ = COUNT.try_with(|count| count.set(count.get() + 1));
            }
        });
    }
}

// SAFETY: every method hands the request to `System` unchanged; counting touches only
// const-initialized thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Counting::note();
        // SAFETY: the caller's guarantees for `layout` are passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Counting::note();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Counting::note();
        // SAFETY: `ptr` was allocated by `System` with `layout`, as the caller guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `realloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

//! Streaming calls: the answer so far, already verified, while the model writes it.
//!
//! [`AiCall::stream`](crate::AiCall::stream) runs the call exactly as `.await` does (the same
//! attempts, cache, judge, limits, fallback and rate limits: the one attempt loop) but asks each
//! provider for its reply streamed, and yields [`StreamEvent`]s as it arrives:
//!
//! - [`StreamEvent::Partial`]: the answer so far ([`Partial::json`]), in which every member that
//!   has closed is already verified against the type's shape and rules, and members still open
//!   are shown as they are (a growing string, an unfinished list). A number or literal shows only
//!   once complete. A text result shows its text so far. [`Partial::value`] reads the same
//!   answer so far as a value of the type's partial ([`HasPartial`]): for a struct with
//!   `#[intent(partial)]`, its generated `NamePartial`. A partial comes for each piece of the
//!   reply from the one that begins the answer, and its view is built only when asked for: a
//!   consumer that never looks pays nothing for it, one that looks at each partial in turn reads
//!   each piece once. Once a view looked at shows the answer closed, no more partials come; a
//!   piece that changed nothing may show the same answer as the partial before it.
//! - [`StreamEvent::Retry`]: an attempt failed (its record says why) and the next one starts
//!   from the start; the partials after it are the new attempt's ([`Partial::attempt`]).
//! - [`StreamEvent::Done`]: the result, the same that `.await` gives. Always last.
//!
//! A reply from the cache is replayed as one partial, then `Done`. A provider that fails while
//! streaming is handled as for `.await` (the fallback is asked; its partials start over, with
//! [`Partial::is_restart`] set). [`AiCall::stream_elements`](crate::AiCall::stream_elements)
//! yields the elements of a list answer as each closes and verifies ([`ElementEvent`]).
//!
//! The stream follows the first JSON value outside reasoning blocks while the reply arrives; the
//! final reading decides the answer on the whole reply, with the locator `.await` uses (which
//! also sets aside a draft before a closing `</think>` whose opening tag was in the prompt, and
//! refuses a reply with two different answers). When the reply is whole, the element stream asks
//! that locator whether it took the answer the stream followed: if the reply was refused, or the
//! answer taken is another one, [`ElementEvent::Withdrawn`] says so before `Retry` or `Done`, so
//! `Done` never silently contradicts what was delivered.
//!
//! The stream runs in the task that polls it (nothing is spawned), so dropping it cancels the
//! call: the HTTP request is dropped and its connection closed.

mod steps;
mod streams;
pub(crate) mod typed;

pub use streams::{AiStream, ElementStream};
pub use typed::{HasPartial, PartialView};

use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;

use crate::read::partial::{way_down, Seg, ViewAt};
use crate::result::{AiResult, AttemptRecord, ResultIssue};

/// What an [`AiStream`] yields.
///
/// ```
/// use futures::StreamExt;
/// use intent_core::prelude::*;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([r#"{"value": [1, 2, 3]}"#]).with_stream_chunk_chars(4);
/// let client = IntentClient::new(model);
/// let mut stream = <Vec<u8>>::ai(&client, "one two three", "List the numbers.").stream();
/// let mut partials = 0;
/// while let Some(event) = stream.next().await {
///     match event {
///         StreamEvent::Partial(partial) => partials += usize::from(partial.json().is_array()),
///         StreamEvent::Retry(record) => println!("attempt {} failed", record.number),
///         StreamEvent::Done(result) => assert_eq!(result.value(), Some(&vec![1, 2, 3])),
///         _ => {}
///     }
/// }
/// assert!(partials >= 2);
/// # });
/// ```
#[derive(Debug)]
#[non_exhaustive]
// `Retry` carries the attempt record itself (the public contract); retries are rare.
#[allow(clippy::large_enum_variant)]
pub enum StreamEvent<T> {
    /// The answer so far.
    Partial(Partial<T>),
    /// An attempt failed; the next starts from the start.
    Retry(AttemptRecord),
    /// The call's result, as `.await` gives it.
    Done(AiResult<T>),
}

/// The answer so far of a streamed call: every member that has closed is verified.
///
/// ```
/// use futures::StreamExt;
/// use intent_core::prelude::*;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new(["Hello, world"]).with_stream_chunk_chars(5);
/// let client = IntentClient::new(model);
/// let mut stream = String::ai(&client, "hi", "Greet.").stream();
/// let Some(StreamEvent::Partial(first)) = stream.next().await else { unreachable!() };
/// assert_eq!(first.text(), Some("Hello"));
/// assert_eq!(first.attempt(), 1);
/// # });
/// ```
pub struct Partial<T> {
    /// The answer so far, read from the reply's pieces the first time it is asked for
    /// ([`Partial::json`], [`Partial::value`]): a consumer that never looks builds no view.
    view: ViewAt,
    attempt: u32,
    restart: bool,
    _type: PhantomData<fn() -> T>,
}

impl<T> Partial<T> {
    pub(crate) fn new(view: ViewAt, attempt: u32, restart: bool) -> Self {
        Partial {
            view,
            attempt,
            restart,
            _type: PhantomData,
        }
    }

    /// The answer so far, as JSON (the value inside the envelope): members that closed are
    /// verified and normalized (wire names, numbers read from strings); open ones are as written
    /// so far. For a text result, the text so far, as a JSON string.
    ///
    /// Built on the first call, from the pieces of the reply up to this partial, and kept: a
    /// consumer that never calls it does not pay for it, and one that calls it on each partial
    /// in turn reads each piece once. Kept shared with the stream: holding a partial while the
    /// stream goes on costs one copy of it at the next change looked at.
    pub fn json(&self) -> &Value {
        &self.view.get().0
    }

    /// The text so far, for a text result (`String`); `None` for other results.
    pub fn text(&self) -> Option<&str> {
        self.json().as_str()
    }

    /// The attempt this partial belongs to, from 1.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// True for the first partial after the reply started over: a new attempt, or a fallback
    /// provider asked after the first failed mid-stream. It replaces what was shown before.
    pub fn is_restart(&self) -> bool {
        self.restart
    }

    /// The way down to what is still being written (`None`: nothing is), built from the view
    /// and its depth: only [`Partial::value`] asks for it.
    pub(crate) fn open(&self) -> Option<Vec<Seg>> {
        let (json, depth) = self.view.get();
        depth.map(|depth| way_down(json, depth))
    }
}

impl<T> Clone for Partial<T> {
    fn clone(&self) -> Self {
        Partial::new(self.view.clone(), self.attempt, self.restart)
    }
}

impl<T> fmt::Debug for Partial<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partial")
            .field("json", self.json())
            .field("attempt", &self.attempt)
            .field("restart", &self.restart)
            .finish()
    }
}

/// What an [`ElementStream`] yields: the elements of a list answer as each closes and verifies,
/// in order, each once per attempt, with its index.
///
/// ```
/// use futures::StreamExt;
/// use intent_core::prelude::*;
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([r#"{"value": ["a", "b"]}"#]).with_stream_chunk_chars(3);
/// let client = IntentClient::new(model);
/// let mut elements = <Vec<String>>::ai(&client, "a b", "List the letters.").stream_elements();
/// let mut seen = Vec::new();
/// while let Some(event) = elements.next().await {
///     if let ElementEvent::Element(index, letter) = event {
///         seen.push((index, letter));
///     }
/// }
/// assert_eq!(seen, [(0, "a".to_owned()), (1, "b".to_owned())]);
/// # });
/// ```
#[derive(Debug)]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)]
pub enum ElementEvent<E> {
    /// Element `index` closed and passed every check on it.
    Element(usize, E),
    /// Element `index` closed and failed: its findings (the attempt will fail; the stream goes
    /// on).
    Invalid(usize, Vec<ResultIssue>),
    /// The elements delivered from the reply so far (this many, from index 0) do not stand:
    /// the final reading refused that reply, or took from it another answer than the list the
    /// stream followed (a draft list before the real one, or a second answer after it). Comes
    /// before the [`Retry`](Self::Retry) or [`Done`](Self::Done) that follows; drop what was
    /// delivered since the attempt began. When it does not come, [`Done`](Self::Done)'s value
    /// begins with the elements delivered, in order.
    Withdrawn(usize),
    /// An attempt failed; the next starts, its elements from index 0 again.
    Retry(AttemptRecord),
    /// The call's result, as `.await` gives it.
    Done(AiResult<Vec<E>>),
}

#[cfg(test)]
mod tests {
    /// A stream and its partials go to other threads: the views they read on demand are shared
    /// safely.
    #[test]
    fn streams_and_partials_go_across_threads() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<super::Partial<Vec<String>>>();
        send::<super::AiStream<'static, Vec<String>>>();
    }
}

//! A collection call as the spans and the observers see it: one span for the whole call, one per
//! chunk, a [`ChunkFinished`](crate::observe::ChunkFinished) event as each chunk ends.

use std::any::type_name;
use std::future::Future;
use std::time::Instant;

use tracing::Instrument;

use super::call::CollectionCall;
use super::result::CollectionResult;
use crate::attempt;
use crate::intent::Intent;
use crate::observe::{self, spans::CollectionSummary};
use crate::result::Usage;

/// Runs the collection call `call` with `run`, in its span and with its client's observers.
pub(super) async fn collection<'a, K, O, F>(
    call: CollectionCall<'a, K, O>,
    run: impl FnOnce(CollectionCall<'a, K, O>) -> F,
) -> CollectionResult<K, O>
where
    O: Intent,
    F: Future<Output = CollectionResult<K, O>>,
{
    let (started, id, target) = (Instant::now(), observe::next_call_id(), type_name::<O>());
    let options = &call.options;
    let (_, model) = attempt::asked(
        call.client,
        options.model.as_deref(),
        options.provider.as_deref(),
    );
    let span = observe::spans::collection(id, target, model);
    let observers = call.client.observers().clone();
    let result = observe::in_call(&observers, id, target, run(call))
        .instrument(span.clone())
        .await;
    let summary = CollectionSummary {
        elements: result.values.len(),
        failed: result.values.iter().filter(|v| v.is_none()).count(),
        chunks: result.chunks.len(),
        usage: result.usage,
        last: result.chunks.last().and_then(|c| c.attempts.last()),
    };
    observe::spans::finish_collection(&span, &summary, started);
    result
}

/// Runs chunk `number` of `elements` elements, in its span; `summary` says of its outcome how
/// many elements have no value, how many attempts it made and what it used.
pub(super) async fn chunk<F: Future>(
    number: usize,
    elements: usize,
    run: F,
    summary: impl FnOnce(&F::Output) -> (usize, usize, Usage),
) -> F::Output {
    let started = Instant::now();
    let observed = async {
        let outcome = run.await;
        let (failed, attempts, usage) = summary(&outcome);
        observe::chunk_finished(elements, failed, attempts, usage, started.elapsed());
        outcome
    };
    observe::in_chunk(number, observed)
        .instrument(observe::spans::chunk(number, elements))
        .await
}

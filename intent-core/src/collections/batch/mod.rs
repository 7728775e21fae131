//! Batch runs: a collection call run through the provider's batch API
//! ([`CollectionCall::batch`]), at half the price of live calls, with the same chunks, prompts,
//! schemas and checks, and the same [`CollectionResult`].
//!
//! A run goes in rounds. Round 1 submits every chunk's first request; when the batches end, each
//! answer is read and verified as a live answer is. The chunks whose answers failed go into the
//! next round, each request carrying its previous answer and findings (the `## Previous attempt`
//! sections of a live retry), until the call's `max_attempts`. Each round is one attempt per
//! chunk, recorded in the chunk's [`ChunkRecord`](super::ChunkRecord) as a live attempt is.
//!
//! - **Limits**: a round's requests are split into several batches when they pass the
//!   provider's limits on one batch (OpenAI: 50,000 requests and 200 MB; Anthropic: 100,000
//!   requests and 256 MB) or [`BatchOptions::max_batch_requests`]; the batches of a round are
//!   submitted together and waited for together.
//! - **Polling**: every [`poll_interval`](BatchOptions::poll_interval), doubling while nothing
//!   changes; a status the provider fails to give (a 500, a lost connection) is asked again at
//!   the next poll, not a failure.
//! - **State**: with [`state_file`](BatchOptions::state_file), the batches of each round are
//!   recorded as they are staged and created; a process that dies and runs the same call again
//!   resumes: it finds the batches recorded (and a batch created just before the process died,
//!   by its input file or among the account's newest), reads their results again, and submits
//!   nothing twice.
//! - **Per element**: a request the provider errored, expired or cancelled ends its chunk with
//!   an issue carrying the provider's reason on each of its elements; a result file with lines
//!   missing, repeated, for unknown requests or not JSON leaves the requests without an answer
//!   with an issue that says so, and the other chunks go on.
//! - **Attachments**: a chunk's batch request carries its elements' attachments as the live
//!   request does (the same content parts, written by the same provider code).
//! - **Not in a batch run**: the cache (a batch answer is not a cached live one), fallback
//!   providers (a batch is paid for at one provider), the judge (a live call per chunk: the run
//!   is refused with an issue), and the deadline (see [`wait_limit`](BatchOptions::wait_limit)).
//!
//! # Live, streamed or batch
//!
//! | run | when | latency | price | size |
//! |---|---|---|---|---|
//! | live (`.await`) | a user waits | seconds per chunk, chunks concurrent | list price | what fits in memory |
//! | streamed ([`IntentClient::map_stream`](crate::IntentClient::map_stream)) | a pipeline, inputs from a generator, results as they come | the same as live | list price | unbounded: memory is held to chunk size × concurrency |
//! | batch (`.batch(..)`) | offline jobs: evaluations, backfills, classification of a corpus | minutes to 24 hours per round | half price at OpenAI and Anthropic | 50,000 (OpenAI) or 100,000 (Anthropic) requests a batch, any number of batches |
//!
//! A batch run's requests each carry a chunk, so a job of 1,000,000 elements in chunks of 50 is
//! 20,000 requests: one OpenAI batch.
//!
//! ```
//! use intent_core::collections::BatchOptions;
//! use intent_core::prelude::*;
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! // A scripted provider has no batch API: the run is refused before anything is sent.
//! let client = IntentClient::new(ScriptedProvider::new(["{}"]));
//! let result = client
//!     .map_each::<bool>(&["server down"], "Is it urgent?")
//!     .batch(BatchOptions::new())
//!     .await;
//! assert!(result.issues()[0].issue.message.contains("has no batch API"));
//! # });
//! ```

mod driver;
mod options;
mod state;
mod submit;

pub use options::BatchOptions;

use std::future::Future;
use std::pin::Pin;

use super::call::CollectionCall;
use super::result::CollectionResult;
use crate::intent::Intent;

impl<'a, K, O> CollectionCall<'a, K, O>
where
    K: Send + 'a,
    O: Intent + Send + 'a,
{
    /// Runs the collection through the provider's batch API: the same chunks, prompts and checks as a live run, submitted as provider batches, the
    /// chunks that fail verification asked again in a follow-up batch with their findings, until
    /// `max_attempts`. Returns the same [`CollectionResult`] as `.await`.
    ///
    /// The batch goes to the provider the options name, else the client's primary, which must
    /// have a batch API ([`Provider::batch_client`](crate::provider::Provider::batch_client)).
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use intent_core::collections::BatchOptions;
    /// use intent_core::prelude::*;
    /// # async fn run(client: IntentClient, reviews: Vec<String>) {
    /// let sentiment = client
    ///     .map_each::<String>(&reviews, "Classify the review: positive, negative or mixed.")
    ///     .batch(
    ///         BatchOptions::new()
    ///             .poll_interval(Duration::from_secs(60))
    ///             .state_file("reviews.batch.json"),
    ///     )
    ///     .await;
    /// println!("{} of {} classified", sentiment.len() - sentiment.missing().len(), sentiment.len());
    /// # }
    /// ```
    pub fn batch(
        self,
        options: BatchOptions,
    ) -> Pin<Box<dyn Future<Output = CollectionResult<K, O>> + Send + 'a>> {
        Box::pin(driver::run(self, options))
    }
}

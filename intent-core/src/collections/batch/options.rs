//! [`BatchOptions`]: how a batch run polls, how long it waits, and where it keeps its state.

use std::path::PathBuf;
use std::time::Duration;

/// How a batch run ([`CollectionCall::batch`](crate::collections::CollectionCall::batch)) polls the provider,
/// how long it waits, and where it keeps the job's state.
///
/// Built with [`BatchOptions::new`] and consuming setters:
///
/// ```
/// use std::time::Duration;
/// use intent_core::collections::BatchOptions;
///
/// let options = BatchOptions::new()
///     .poll_interval(Duration::from_secs(60))
///     .wait_limit(Duration::from_secs(6 * 3600))
///     .state_file("translations.batch.json");
/// assert_eq!(options.poll_interval_value(), Duration::from_secs(60));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchOptions {
    pub(crate) poll_interval: Duration,
    pub(crate) wait_limit: Option<Duration>,
    pub(crate) state_file: Option<PathBuf>,
    pub(crate) max_batch_requests: Option<usize>,
    pub(crate) retry_live: bool,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions::new()
    }
}

impl BatchOptions {
    /// The first wait between two looks at a batch unless [`poll_interval`](Self::poll_interval)
    /// says otherwise: 30 seconds.
    pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(30);

    /// How much longer a wait may grow, at most, than the poll interval, while nothing changes.
    pub const MAX_BACKOFF_FACTOR: u32 = 8;

    /// Polls every 30 seconds (backing off to 4 minutes while nothing changes), waits until the
    /// provider ends the batch (within its 24-hour window), and keeps no state file.
    ///
    /// ```
    /// use intent_core::collections::BatchOptions;
    /// assert_eq!(BatchOptions::new(), BatchOptions::default());
    /// ```
    pub fn new() -> Self {
        BatchOptions {
            poll_interval: Self::DEFAULT_POLL_INTERVAL,
            wait_limit: None,
            state_file: None,
            max_batch_requests: None,
            retry_live: false,
        }
    }

    /// Sets the first wait between two looks at a batch (at least 1 ms). While a batch's counts
    /// do not change, the wait doubles, up to [`MAX_BACKOFF_FACTOR`](Self::MAX_BACKOFF_FACTOR)
    /// times this; it starts again from this once they do.
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::collections::BatchOptions;
    /// let options = BatchOptions::new().poll_interval(Duration::from_secs(5));
    /// assert_eq!(options.poll_interval_value(), Duration::from_secs(5));
    /// ```
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval.max(Duration::from_millis(1));
        self
    }

    /// The first wait between two looks at a batch.
    ///
    /// ```
    /// use intent_core::collections::BatchOptions;
    /// assert_eq!(BatchOptions::new().poll_interval_value(), BatchOptions::DEFAULT_POLL_INTERVAL);
    /// ```
    pub fn poll_interval_value(&self) -> std::time::Duration {
        self.poll_interval
    }

    /// Sets how long the run waits for the provider, over all its rounds. When it passes:
    /// with a [`state_file`](Self::state_file), the batches are left running and their elements
    /// carry an issue saying so (run the same call again to resume); without one, nothing could
    /// read their results later, so the batches are cancelled, and what they answered before
    /// the cancellation is still verified and returned.
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::collections::BatchOptions;
    /// let options = BatchOptions::new().wait_limit(Duration::from_secs(3600));
    /// # let _ = options;
    /// ```
    pub fn wait_limit(mut self, limit: Duration) -> Self {
        self.wait_limit = Some(limit);
        self
    }

    /// Keeps the job's state in `path`: the batches submitted and their rounds, written
    /// atomically (a new file renamed over the old) after each step. A process that dies and
    /// runs the same call again with the same file resumes the job: it polls the batches already
    /// submitted, reads their results again from the provider, and never submits (or pays for) a
    /// request twice. The file names the job by a hash of every request of its first round, so a
    /// file of another job (another intent, other inputs, another model or provider) is refused
    /// with a clear issue, never resumed. A file that cannot be read or written stops the run
    /// before anything more is submitted.
    ///
    /// ```
    /// use intent_core::collections::BatchOptions;
    /// let options = BatchOptions::new().state_file("/var/lib/app/job.json");
    /// # let _ = options;
    /// ```
    pub fn state_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.state_file = Some(path.into());
        self
    }

    /// Holds each batch to at most `requests` requests (at least 1), below the provider's own
    /// limit (OpenAI 50,000 and 200 MB, Anthropic 100,000 and 256 MB): a job past it is split
    /// into several batches, submitted together.
    ///
    /// ```
    /// use intent_core::collections::BatchOptions;
    /// let options = BatchOptions::new().max_batch_requests(1000);
    /// # let _ = options;
    /// ```
    pub fn max_batch_requests(mut self, requests: usize) -> Self {
        self.max_batch_requests = Some(requests.max(1));
        self
    }

    /// Retries live, once the batches are over, the chunks they left without an answer (a request
    /// the provider errored, expired or cancelled, or that its results left out), each with its
    /// own attempts as a live run gives them (at list price). Off by default: such chunks end with
    /// an issue carrying the provider's reason.
    ///
    /// ```
    /// use intent_core::collections::BatchOptions;
    /// let options = BatchOptions::new().retry_live(true);
    /// # let _ = options;
    /// ```
    pub fn retry_live(mut self, on: bool) -> Self {
        self.retry_live = on;
        self
    }
}

//! A command-line progress bar for collection calls (feature `progress-bar`).

use indicatif::{ProgressBar, ProgressStyle};

use super::call::CollectionCall;
use super::result::Progress;

/// A progress report that drives `bar`: its length is the element total, its position the
/// elements done, its message the failures so far; it finishes when every element has ended.
///
/// ```
/// use intent_core::collections::{progress_bar, Progress};
///
/// let bar = indicatif::ProgressBar::hidden();
/// let report = progress_bar(bar.clone());
/// report(Progress { done: 3, total: 10, failed: 1, chunks_done: 1, chunks_total: 4 });
/// assert_eq!((bar.position(), bar.length()), (3, Some(10)));
/// assert_eq!(bar.message(), "1 failed");
/// ```
pub fn progress_bar(bar: ProgressBar) -> impl Fn(Progress) + Send + Sync + 'static {
    move |progress: Progress| {
        bar.set_length(progress.total as u64);
        bar.set_position(progress.done as u64);
        if progress.failed > 0 {
            bar.set_message(format!("{} failed", progress.failed));
        }
        if progress.is_finished() {
            bar.finish();
        }
    }
}

impl<'a, K, O> CollectionCall<'a, K, O> {
    /// Shows a progress bar on standard error while the call runs (replacing any
    /// [`on_progress`](CollectionCall::on_progress) report).
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": [{"index": 0, "value": 4}]}"#]));
    /// let lengths = client.map_each::<u32>(&["blue"], "Count the letters.").progress_bar().await;
    /// assert_eq!(lengths.values(), &[Some(4)]);
    /// # });
    /// ```
    pub fn progress_bar(mut self) -> Self {
        let bar = ProgressBar::new(self.elements.len() as u64).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} elements {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        self.on_progress = Some(Box::new(progress_bar(bar)));
        self
    }
}

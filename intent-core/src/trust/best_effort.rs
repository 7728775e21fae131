//! The last try, typed: [`AiResult::best_effort`].

use crate::intent::Intent;
use crate::read;
use crate::result::{AiResult, AttemptRecord, FinishReason};
use crate::shape::TypeInfo;

impl<T: Intent> AiResult<T> {
    /// The last answer read as a `T`, whatever checks it failed: the reply of the last attempt
    /// that ended normally, read leniently (as every reply is) into the type's shape without its
    /// member rules, and without the `require`/`validate` checks, the judge, the grounded members
    /// or the policies that questioned it. [`issues`](Self::issues) still says why it is not a
    /// success. `None` when no reply came, when the last reply was cut off, refused or filtered,
    /// or when it does not even read as a `T` (a missing member, a wrong type). For a success,
    /// the value read again.
    ///
    /// Use it to show a person what the model last said, never as a verified value.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 1500}"#, r#"{"value": 1400}"#]));
    /// let quantity = u32::ai(&client, "fifteen hundred", "Read the quantity.")
    ///     .require(|q| *q <= 1000, "Quantity must be at most 1000.")
    ///     .max_attempts(2)
    ///     .await;
    /// assert!(!quantity.is_success());
    /// assert_eq!(quantity.best_effort(), Some(1400));
    /// assert_eq!(quantity.issues()[0].message, "Quantity must be at most 1000.");
    /// # });
    /// ```
    pub fn best_effort(&self) -> Option<T> {
        let last = self
            .attempts()
            .iter()
            .rev()
            .find(|a| !a.raw_output.trim().is_empty())?;
        if !ended_normally(last) {
            return None;
        }
        let info = T::type_info();
        let unruled = TypeInfo::from_graph(info.graph().without_rules(), info.root());
        read::read_reply::<T>(&unruled, &last.raw_output).ok()
    }
}

/// True when the attempt's reply ended as a reply does: not cut off, refused, filtered or ended
/// abnormally.
fn ended_normally(attempt: &AttemptRecord) -> bool {
    !matches!(
        attempt.finish_reason,
        Some(
            FinishReason::Length
                | FinishReason::Refusal
                | FinishReason::ContentFilter
                | FinishReason::Abnormal(_)
        )
    )
}

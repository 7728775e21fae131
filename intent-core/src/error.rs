//! The library's one error type.

use crate::provider::ProviderError;
use crate::result::ResultIssue;

/// Everything that can go wrong around a call, for `?` and for configuration.
///
/// A call itself never fails with an error: it returns an [`AiResult`](crate::AiResult) whose
/// issues say what went wrong. [`AiResult::into_result`](crate::AiResult::into_result) turns a
/// failed result into [`IntentError::Failed`].
///
/// ```
/// use intent_core::IntentError;
///
/// let error = IntentError::InputTooLong { chars: 12, limit: 10 };
/// assert_eq!(
///     error.to_string(),
///     "the serialized input has 12 characters, more than max_input_chars (10); nothing was sent"
/// );
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IntentError {
    /// The serialized input is longer than `IntentClientOptions::max_input_chars`.
    #[error("the serialized input has {chars} characters, more than max_input_chars ({limit}); nothing was sent")]
    InputTooLong {
        /// The serialized input's length in characters.
        chars: usize,
        /// The limit.
        limit: usize,
    },
    /// The input could not be serialized to JSON.
    #[error("the input could not be serialized: {0}")]
    InputSerialization(String),
    /// A JSON schema given at run time cannot be used.
    #[error("invalid output schema: {0}")]
    InvalidSchema(String),
    /// The client or a provider is misconfigured (a missing API key, no provider, a bad URL).
    #[error("configuration: {0}")]
    Config(String),
    /// A provider failed and no fallback answered.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The call ended without a value; the issues say why.
    #[error("{}", summary(.issues))]
    Failed {
        /// The final issues of the call.
        issues: Vec<ResultIssue>,
    },
    /// An intent file is invalid, or a catalog intent was run with the wrong result type.
    #[error("{0}")]
    Catalog(crate::catalog::CatalogError),
}

fn summary(issues: &[ResultIssue]) -> String {
    if issues.is_empty() {
        return "the call failed without a reported issue".to_owned();
    }
    let lines: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    format!("the call failed: {}", lines.join("; "))
}

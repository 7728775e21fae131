//! The library's error types: [`IntentError`], and the [`ProviderError`] it carries.
//!
//! Both sit below everything that raises them: the providers, the client and the catalog depend
//! on this module, and it depends on nothing but the result types. An intent file's error is
//! carried boxed, and the catalog owns its conversions, so this layer knows nothing of catalogs.

mod provider;

pub use provider::{ProviderError, ProviderErrorKind};

use crate::result::{AiResult, IssueKind, ResultIssue};

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
    /// An attachment was refused before anything was sent: empty, of an unknown type, cut short,
    /// mislabelled, too large, a path that is not a readable file, or a URL that is not http(s).
    /// The message names the attachment and the rule.
    #[error("attachment refused: {0}; nothing was sent")]
    Attachment(String),
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
    /// An intent file is invalid, or a catalog intent was run with the wrong result type: a
    /// [`CatalogError`](crate::catalog::CatalogError), which
    /// [`IntentError::catalog_error`] returns with its file, intent and line.
    #[error("{0}")]
    Catalog(Box<dyn std::error::Error + Send + Sync>),
    /// A collection's results could not be written as an Arrow array or a Polars series (a
    /// value outside the column type's range, say).
    #[error("the results could not be written as a column: {0}")]
    Column(String),
}

impl<T> AiResult<T> {
    /// The value, or [`IntentError::Failed`] with the issues, for `?`.
    ///
    /// ```
    /// use intent_core::{AiResult, IntentError, IssueKind, ResultIssue};
    ///
    /// assert_eq!(AiResult::from_value(7u32).into_result().unwrap(), 7);
    /// let failed: AiResult<u32> = AiResult::failure(vec![ResultIssue::new(IssueKind::Parse, "The reply was empty.")]);
    /// assert!(matches!(failed.into_result(), Err(IntentError::Failed { issues }) if issues.len() == 1));
    /// ```
    pub fn into_result(self) -> Result<T, IntentError> {
        self.into_value_or_issues()
            .map_err(|issues| IntentError::Failed {
                issues: if issues.is_empty() {
                    vec![ResultIssue::new(
                        IssueKind::Provider,
                        "The call ended without a value or a reported issue.",
                    )]
                } else {
                    issues
                },
            })
    }
}

fn summary(issues: &[ResultIssue]) -> String {
    if issues.is_empty() {
        return "the call failed without a reported issue".to_owned();
    }
    let lines: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    format!("the call failed: {}", lines.join("; "))
}

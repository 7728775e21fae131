//! [`CatalogError`]: what is wrong in an intent file, and where.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::IntentError;

/// An invalid intent file: the file, the intent and the line where the parser gives one.
///
/// Its `Display` reads like a compiler's: `file:line: intent `name`: message`.
///
/// ```
/// use intent_core::catalog::CatalogError;
///
/// let error = CatalogError::new("intents/orders.yaml", "`intent` is empty; write the instruction for the model")
///     .with_intent("purchase-request")
///     .with_line(Some(4));
/// assert_eq!(
///     error.to_string(),
///     "intents/orders.yaml:4: intent `purchase-request`: `intent` is empty; write the instruction for the model"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CatalogError {
    /// The file (or folder) the error is in.
    pub file: PathBuf,
    /// The intent's name, when the error is about one intent.
    pub intent: Option<String>,
    /// The 1-based line, where it is known.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl CatalogError {
    /// An error about `file` as a whole.
    pub fn new(file: impl AsRef<Path>, message: impl Into<String>) -> Self {
        CatalogError {
            file: file.as_ref().to_path_buf(),
            intent: None,
            line: None,
            message: message.into(),
        }
    }

    /// Names the intent the error is about.
    pub fn with_intent(mut self, intent: impl Into<String>) -> Self {
        self.intent = Some(intent.into());
        self
    }

    /// Sets the line, when one is known.
    pub fn with_line(mut self, line: Option<usize>) -> Self {
        self.line = line;
        self
    }
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(intent) = &self.intent {
            write!(f, ": intent `{intent}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for CatalogError {}

/// The catalog owns both directions of its error's conversion, so the library's error type need
/// not know catalogs: into [`IntentError::Catalog`], boxed, and back out with
/// [`IntentError::catalog_error`].
impl From<CatalogError> for IntentError {
    fn from(error: CatalogError) -> Self {
        IntentError::Catalog(Box::new(error))
    }
}

impl IntentError {
    /// The intent file's error, with its file, intent and line, when this is one.
    ///
    /// ```
    /// use intent_core::catalog::CatalogError;
    /// use intent_core::IntentError;
    ///
    /// let error = IntentError::from(CatalogError::new("orders.yaml", "no intents").with_line(Some(1)));
    /// assert_eq!(error.catalog_error().and_then(|e| e.line), Some(1));
    /// assert_eq!(error.to_string(), "orders.yaml:1: no intents");
    /// assert!(IntentError::Config("no provider".into()).catalog_error().is_none());
    /// ```
    pub fn catalog_error(&self) -> Option<&CatalogError> {
        match self {
            IntentError::Catalog(error) => error.downcast_ref(),
            _ => None,
        }
    }
}

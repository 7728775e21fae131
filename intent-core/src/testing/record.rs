//! [`RecordingProvider`]: a provider that writes every exchange to a cassette as it completes.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::entry::{key_of, Entry, RecordedError, RecordedReply, RecordedRequest};
use super::redact::Redactor;
use crate::error::IntentError;
use crate::provider::{Provider, ProviderError, ProviderErrorKind, ReplyFuture};
use crate::request::AiRequest;

/// Wraps a provider and appends each request and its reply (or failure) to a cassette file, one
/// JSON line per exchange, written as the exchange completes; secrets are never written (see the
/// [module documentation](super)).
///
/// Replies pass through unchanged. A line that cannot be written fails the call with an error
/// naming the file: a recording with a silent gap would fail later, far from the cause.
///
/// ```
/// use intent_core::prelude::*;
/// use intent_core::testing::{RecordingProvider, ReplayProvider};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("count.jsonl");
/// let model = ScriptedProvider::new([r#"{"value": 3}"#]);
/// let recorded = u32::ai(&IntentClient::new(RecordingProvider::new(model, &path)?), "a, b, c", "Count the letters.").await;
///
/// let replayed = u32::ai(&IntentClient::new(ReplayProvider::open(&path)?), "a, b, c", "Count the letters.").await;
/// assert_eq!(replayed.value(), recorded.value());
/// # Ok::<(), intent_core::IntentError>(())
/// # }).unwrap();
/// ```
pub struct RecordingProvider {
    inner: Box<dyn Provider>,
    writer: CassetteWriter,
}

impl fmt::Debug for RecordingProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordingProvider")
            .field("inner", &self.inner.name())
            .field("path", &self.writer.path)
            .finish_non_exhaustive()
    }
}

impl RecordingProvider {
    /// Records `inner`'s exchanges at the end of the cassette `path` (created, with its folder,
    /// when missing).
    ///
    /// # Errors
    ///
    /// [`IntentError::Config`] naming the file when it cannot be opened for appending.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::testing::RecordingProvider;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let recorder = RecordingProvider::new(ScriptedProvider::new(["hi"]), dir.path().join("new/cassette.jsonl"))?;
    /// assert_eq!(intent_core::provider::Provider::name(&recorder), "scripted");
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn new(
        inner: impl Provider + 'static,
        path: impl AsRef<Path>,
    ) -> Result<Self, IntentError> {
        Ok(RecordingProvider {
            inner: Box::new(inner),
            writer: CassetteWriter::open(path.as_ref())?,
        })
    }

    /// Also redacts `secret` wherever it appears (the process's secret environment variables
    /// are always redacted; add a key that came from elsewhere, such as a vault).
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::testing::RecordingProvider;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let recorder = RecordingProvider::new(ScriptedProvider::new(["hi"]), dir.path().join("c.jsonl"))?
    ///     .with_secret("vault-key-0123456789");
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn with_secret(mut self, secret: impl AsRef<str>) -> Self {
        self.writer.redactor.add(secret.as_ref());
        self
    }

    /// The cassette's path.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::testing::RecordingProvider;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let recorder = RecordingProvider::new(ScriptedProvider::new(["hi"]), dir.path().join("c.jsonl"))?;
    /// assert!(recorder.path().ends_with("c.jsonl"));
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.writer.path
    }
}

impl Provider for RecordingProvider {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn default_model(&self) -> Option<&str> {
        self.inner.default_model()
    }

    fn tools_beside_format(&self, request: &AiRequest) -> bool {
        self.inner.tools_beside_format(request)
    }

    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        Box::pin(async move {
            let outcome = self.inner.complete(request).await;
            let provider = self.inner.name();
            let default_model = self.inner.default_model();
            let entry = Entry {
                key: key_of(provider, default_model, request).as_str().to_owned(),
                provider: provider.to_owned(),
                default_model: default_model.map(str::to_owned),
                request: RecordedRequest::of(request),
                reply: outcome.as_ref().ok().map(RecordedReply::of),
                error: outcome.as_ref().err().map(RecordedError::of),
                redacted: 0,
            };
            self.writer.append(entry).map_err(|message| {
                ProviderError::new(ProviderErrorKind::Config, message).with_provider(provider)
            })?;
            outcome
        })
    }
}

/// Appends redacted lines to a cassette file.
pub(crate) struct CassetteWriter {
    path: PathBuf,
    file: Mutex<File>,
    redactor: Redactor,
}

impl CassetteWriter {
    pub(crate) fn open(path: &Path) -> Result<Self, IntentError> {
        let fail = |e: std::io::Error| {
            IntentError::Config(format!(
                "the cassette {} cannot be opened for recording: {e}",
                path.display()
            ))
        };
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(fail)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(fail)?;
        Ok(CassetteWriter {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            redactor: Redactor::from_env(),
        })
    }

    /// Writes `entry` as one line, its secrets redacted. The write is one small append to a local
    /// file, done in place rather than on a blocking thread: it takes microseconds against the
    /// model call it records.
    pub(crate) fn append(&self, entry: Entry) -> Result<(), String> {
        let mut value = serde_json::to_value(&entry).map_err(|e| e.to_string())?;
        let redacted = self.redactor.redact_value(&mut value);
        if redacted > 0 {
            value["redacted"] = redacted.into();
        }
        let mut line = value.to_string();
        line.push('\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(line.as_bytes()).map_err(|e| {
            format!(
                "the cassette {} could not be written ({e}); the exchange was not recorded",
                self.path.display()
            )
        })
    }
}

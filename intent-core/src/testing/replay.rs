//! [`ReplayProvider`]: a provider that answers from a cassette, offline.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::diff;
use super::entry::{key_of, kind_of, Entry, KIND_NAMES};
use super::CASSETTE_MODE_VAR;
use crate::error::IntentError;
use crate::provider::{AiResponse, Provider, ProviderError, ProviderErrorKind, ReplyFuture};
use crate::request::AiRequest;

/// Answers each request with the reply recorded for its cache key, as the provider that was
/// recorded, with no network; see the [module documentation](super).
///
/// A request recorded more than once gets its recordings in order, then the last again. A request
/// with no recording fails with a [`ProviderErrorKind::Config`] error that names the nearest
/// recorded request and what differs (intent, input, schema, options), so a changed prompt is
/// found at once.
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
/// u32::ai(&IntentClient::new(RecordingProvider::new(model, &path)?), "a, b, c", "Count the letters.").await;
///
/// let replay = IntentClient::new(ReplayProvider::open(&path)?);
/// assert_eq!(u32::ai(&replay, "a, b, c", "Count the letters.").await.value(), Some(&3));
/// let missed = u32::ai(&replay, "a, b, c, d", "Count the letters.").await;
/// assert!(missed.issues()[0].message.contains("differs in input"));
/// # Ok::<(), intent_core::IntentError>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct ReplayProvider {
    book: Arc<Book>,
    name: String,
    default_model: Option<String>,
}

/// A cassette read into memory.
pub(crate) struct Book {
    pub(crate) path: PathBuf,
    /// The entries, with the 1-based line each was read from.
    pub(crate) entries: Vec<(usize, Entry)>,
    by_key: HashMap<String, Vec<usize>>,
    /// How many times each key was served.
    served: Mutex<HashMap<String, usize>>,
}

impl fmt::Debug for ReplayProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplayProvider")
            .field("path", &self.book.path)
            .field("name", &self.name)
            .field("recordings", &self.book.entries.len())
            .finish()
    }
}

impl ReplayProvider {
    /// Reads the cassette `path`; the provider answers as the provider of its first recording
    /// (see [`with_name`](Self::with_name) for a cassette that holds several).
    ///
    /// # Errors
    ///
    /// [`IntentError::Config`] when the file is missing or unreadable, or a line is not a
    /// recording (the message names the line).
    ///
    /// ```
    /// use intent_core::testing::ReplayProvider;
    ///
    /// let error = ReplayProvider::open("no/such/cassette.jsonl").unwrap_err();
    /// assert!(error.to_string().contains("INTENT_CASSETTE_MODE=record"));
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IntentError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            IntentError::Config(if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "the cassette {} does not exist; record it once against a real model with {CASSETTE_MODE_VAR}=record",
                    path.display()
                )
            } else {
                format!("the cassette {} cannot be read: {e}", path.display())
            })
        })?;
        Ok(Self::from_book(Book::parse(path, &text)?))
    }

    /// Reads the cassette `path`, or starts an empty one when the file does not exist yet.
    pub(crate) fn open_or_empty(path: &Path) -> Result<Self, IntentError> {
        if path.exists() {
            Self::open(path)
        } else {
            Ok(Self::from_book(Book::parse(path, "")?))
        }
    }

    /// One provider for each provider the cassette recorded, in the order they first appear: a
    /// client's primary and fallbacks, replayed.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    ///
    /// ```no_run
    /// use intent_core::testing::ReplayProvider;
    /// use intent_core::IntentClient;
    ///
    /// let mut builder = IntentClient::builder();
    /// for (i, provider) in ReplayProvider::open_all("tests/cassettes/suite.jsonl")?.into_iter().enumerate() {
    ///     builder = if i == 0 { builder.provider(provider) } else { builder.fallback(provider) };
    /// }
    /// let client = builder.build()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn open_all(path: impl AsRef<Path>) -> Result<Vec<Self>, IntentError> {
        let first = Self::open(path)?;
        let names = first.recorded_providers();
        Ok(names
            .iter()
            .map(|name| first.clone().with_name(name))
            .collect())
    }

    fn from_book(book: Book) -> Self {
        let (name, default_model) = match book.entries.first() {
            Some((_, entry)) => (entry.provider.clone(), entry.default_model.clone()),
            None => ("replay".to_owned(), None),
        };
        ReplayProvider {
            book: Arc::new(book),
            name,
            default_model,
        }
    }

    /// Answers as the provider `name` of the cassette, with the default model it was recorded
    /// with.
    ///
    /// ```no_run
    /// use intent_core::testing::ReplayProvider;
    ///
    /// let fallback = ReplayProvider::open("tests/cassettes/suite.jsonl")?.with_name("anthropic");
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn with_name(mut self, name: &str) -> Self {
        name.clone_into(&mut self.name);
        self.default_model = self
            .book
            .entries
            .iter()
            .find(|(_, entry)| entry.provider == name)
            .and_then(|(_, entry)| entry.default_model.clone());
        self
    }

    /// Answers as `name` with `default_model`: the provider being recorded, in record-missing mode.
    pub(crate) fn answering_as(mut self, name: &str, default_model: Option<&str>) -> Self {
        name.clone_into(&mut self.name);
        self.default_model = default_model.map(str::to_owned);
        self
    }

    /// The names of the providers the cassette recorded, in the order they first appear.
    ///
    /// ```no_run
    /// use intent_core::testing::ReplayProvider;
    ///
    /// let replay = ReplayProvider::open("tests/cassettes/suite.jsonl")?;
    /// println!("{:?}", replay.recorded_providers());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn recorded_providers(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for (_, entry) in &self.book.entries {
            if !names.contains(&entry.provider) {
                names.push(entry.provider.clone());
            }
        }
        names
    }

    /// The number of recorded exchanges (of every provider).
    ///
    /// ```no_run
    /// use intent_core::testing::ReplayProvider;
    ///
    /// assert!(ReplayProvider::open("tests/cassettes/suite.jsonl")?.len() > 0);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.book.entries.len()
    }

    /// True when the cassette has no recording.
    ///
    /// ```no_run
    /// use intent_core::testing::ReplayProvider;
    ///
    /// assert!(!ReplayProvider::open("tests/cassettes/suite.jsonl")?.is_empty());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.book.entries.is_empty()
    }

    /// The recorded answer to `request`, or `None` when the cassette has none.
    pub(crate) fn lookup(&self, request: &AiRequest) -> Option<Result<AiResponse, ProviderError>> {
        let key = key_of(&self.name, self.default_model.as_deref(), request);
        let indexes = self.book.by_key.get(key.as_str())?;
        let nth = {
            let mut served = self
                .book
                .served
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let count = served.entry(key.as_str().to_owned()).or_insert(0);
            let nth = (*count).min(indexes.len() - 1);
            *count += 1;
            nth
        };
        let (_, entry) = &self.book.entries[indexes[nth]];
        Some(match (&entry.reply, &entry.error) {
            (Some(reply), _) => Ok(reply.to_response()),
            (None, Some(error)) => Err(error.to_error(&self.name)),
            (None, None) => Err(ProviderError::new(
                ProviderErrorKind::Config,
                "the recording has neither a reply nor an error",
            )),
        })
    }

    /// The error for a request with no recording: the nearest recording and what differs.
    pub(crate) fn miss(&self, request: &AiRequest) -> ProviderError {
        let message = diff::describe_miss(
            &self.book.path,
            &self.book.entries,
            &self.name,
            self.default_model.as_deref(),
            request,
        );
        ProviderError::new(ProviderErrorKind::Config, message).with_provider(self.name.clone())
    }
}

impl Provider for ReplayProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn default_model(&self) -> Option<&str> {
        self.default_model.as_deref()
    }

    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        let answer = self
            .lookup(request)
            .unwrap_or_else(|| Err(self.miss(request)));
        Box::pin(async move { answer })
    }

    /// As the recording says: a cassette recorded through a provider that cannot call tools
    /// under a format holds the rounds as they were sent, without it. A request whose own key
    /// is not recorded, but whose key as such a provider is sent it is, replays as it was
    /// recorded.
    fn tools_beside_format(&self, request: &AiRequest) -> bool {
        let Some(apart) = request.with_tools_apart() else {
            return true;
        };
        let recorded = |request: &AiRequest| {
            let key = key_of(&self.name, self.default_model.as_deref(), request);
            self.book.by_key.contains_key(key.as_str())
        };
        recorded(request) || !recorded(&apart)
    }
}

impl Book {
    /// Reads a cassette's text; every non-blank line must be a recording.
    fn parse(path: &Path, text: &str) -> Result<Book, IntentError> {
        let mut entries = Vec::new();
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if line.trim().is_empty() {
                continue;
            }
            let fail = |message: String| {
                IntentError::Config(format!(
                    "the cassette {}:{number}: {message}",
                    path.display()
                ))
            };
            let entry: Entry = serde_json::from_str(line)
                .map_err(|e| fail(format!("the line is not a recording: {e}")))?;
            match (&entry.reply, &entry.error) {
                (None, None) => {
                    return Err(fail("the recording has neither `reply` nor `error`".into()))
                }
                (Some(_), Some(_)) => {
                    return Err(fail("the recording has both `reply` and `error`".into()))
                }
                (None, Some(error)) if kind_of(&error.kind).is_none() => {
                    return Err(fail(format!(
                        "the error kind `{}` is unknown; it is one of: {KIND_NAMES}",
                        error.kind
                    )))
                }
                _ => {}
            }
            by_key
                .entry(entry.key.clone())
                .or_default()
                .push(entries.len());
            entries.push((number, entry));
        }
        Ok(Book {
            path: path.to_path_buf(),
            entries,
            by_key,
            served: Mutex::new(HashMap::new()),
        })
    }
}

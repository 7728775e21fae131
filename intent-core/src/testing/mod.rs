//! Record and replay: tests that run offline on replies a real model gave once.
//!
//! [`RecordingProvider`] wraps any provider and appends each request and its reply to a *cassette*,
//! a file of JSON lines (one exchange per line, so a re-recording reads as a diff of the exchanges
//! that changed). [`ReplayProvider`] answers from a cassette with no network. Both key a request by
//! the reply cache's own key ([`CacheKey::for_request`](crate::cache::CacheKey::for_request):
//! provider, model, prompts, format, schema, max tokens, temperature), so the same request is the
//! same recording, and a changed prompt is a miss, reported with the nearest recording and what
//! differs: intent, input, schema, options.
//!
//! A cassette never holds an API key: a provider receives no headers, URL or key in its request,
//! and every string of a line is scanned before it is written: the values of the process's
//! secret environment variables (`*_API_KEY`, `*_TOKEN`, …), text shaped like a provider key
//! (`sk-…`, `AIza…`, `Bearer …`) and values named like one (`"api_key": …`, `Authorization: …`)
//! are written as `[redacted]`.
//!
//! # Record once, replay in CI
//!
//! Build the client of a test through [`cassette`], which reads the mode from the environment
//! variable `INTENT_CASSETTE_MODE`:
//!
//! | `INTENT_CASSETTE_MODE` | what the provider does |
//! |---|---|
//! | unset, empty or `replay` | answers from the cassette only; a request with no recording fails, naming what differs. No key or network needed: the default, for CI |
//! | `record` | asks the real provider and records every exchange, starting the cassette anew (once per process and file, so tests that share a file add to it) |
//! | `record-missing` | answers from the cassette, and asks the real provider (and records) only what it has no recording for |
//!
//! ```no_run
//! use intent_core::prelude::*;
//! use intent_core::testing;
//!
//! # async fn test() -> Result<(), intent_core::IntentError> {
//! // The closure runs only when the mode records: CI needs no key.
//! let provider = testing::cassette("tests/cassettes/invoices.jsonl", || OpenAiProvider::from_env())?;
//! let client = IntentClient::new(provider);
//! let total = f64::ai(&client, "Total: 41.50 EUR", "Extract the invoice total.").await;
//! assert_eq!(total.into_result()?, 41.5);
//! # Ok(())
//! # }
//! ```
//!
//! Then:
//!
//! 1. Record once against the real model: `INTENT_CASSETTE_MODE=record OPENAI_API_KEY=… cargo test`.
//! 2. Review and commit `tests/cassettes/*.jsonl` (each line is one request and its reply).
//! 3. CI runs `cargo test` with no key and no network: every reply comes from the cassette.
//! 4. After changing a prompt, an intent, an input or an option, the tests that changed fail with
//!    the difference; record what is missing with `INTENT_CASSETTE_MODE=record-missing`, or
//!    everything again with `record` (which also drops recordings no test asks for any more).
//!
//! Set a temperature of 0 when recording if the tests compare values: the replay gives back
//! what the model said once, which a later recording may not repeat.
//!
//! Provider failures are recorded and replayed too (with their kind and status), so a fallback
//! test replays the same way. A request recorded several times (the same prompt asked twice)
//! gets its recordings in order, then the last again.

mod diff;
mod entry;
mod record;
mod redact;
mod replay;

pub use record::RecordingProvider;
pub use replay::ReplayProvider;

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use crate::error::IntentError;
use crate::provider::{Provider, ReplyFuture};
use crate::request::AiRequest;

/// The environment variable [`cassette`] reads its [`CassetteMode`] from.
pub const CASSETTE_MODE_VAR: &str = "INTENT_CASSETTE_MODE";

/// What a [`cassette`] does with the real provider and the file.
///
/// ```
/// use intent_core::testing::CassetteMode;
///
/// assert_eq!(CassetteMode::parse("record-missing")?, CassetteMode::RecordMissing);
/// assert_eq!(CassetteMode::parse("")?, CassetteMode::Replay);
/// assert!(CassetteMode::parse("rec").unwrap_err().to_string().contains("replay, record, record-missing"));
/// # Ok::<(), intent_core::IntentError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CassetteMode {
    /// Answer from the cassette only (`replay`, and the default).
    #[default]
    Replay,
    /// Ask the real provider and record every exchange, starting the cassette anew (`record`).
    Record,
    /// Answer from the cassette; ask and record only what it lacks (`record-missing`).
    RecordMissing,
}

impl CassetteMode {
    /// The mode named `text` (`replay`, `record`, `record-missing`; empty is `replay`).
    ///
    /// # Errors
    ///
    /// [`IntentError::Config`] naming the modes, for any other text.
    ///
    /// ```
    /// use intent_core::testing::CassetteMode;
    ///
    /// assert_eq!(CassetteMode::parse("record")?, CassetteMode::Record);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn parse(text: &str) -> Result<CassetteMode, IntentError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "" | "replay" => Ok(CassetteMode::Replay),
            "record" => Ok(CassetteMode::Record),
            "record-missing" | "record_missing" => Ok(CassetteMode::RecordMissing),
            other => Err(IntentError::Config(format!(
                "{CASSETTE_MODE_VAR} is `{other}`; it must be one of: replay, record, record-missing"
            ))),
        }
    }

    /// The mode `INTENT_CASSETTE_MODE` names ([`Replay`](CassetteMode::Replay) when it is unset).
    ///
    /// # Errors
    ///
    /// As [`parse`](Self::parse).
    ///
    /// ```
    /// let mode = intent_core::testing::CassetteMode::from_env()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn from_env() -> Result<CassetteMode, IntentError> {
        match std::env::var(CASSETTE_MODE_VAR) {
            Ok(text) => Self::parse(&text),
            Err(std::env::VarError::NotPresent) => Ok(CassetteMode::Replay),
            Err(std::env::VarError::NotUnicode(_)) => Err(IntentError::Config(format!(
                "{CASSETTE_MODE_VAR} is not valid UTF-8; it must be one of: replay, record, record-missing"
            ))),
        }
    }

    /// The mode's name, as `INTENT_CASSETTE_MODE` writes it.
    ///
    /// ```
    /// assert_eq!(intent_core::testing::CassetteMode::RecordMissing.as_str(), "record-missing");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            CassetteMode::Replay => "replay",
            CassetteMode::Record => "record",
            CassetteMode::RecordMissing => "record-missing",
        }
    }

    /// True when the mode may ask the real provider.
    ///
    /// ```
    /// assert!(!intent_core::testing::CassetteMode::Replay.records());
    /// ```
    pub fn records(self) -> bool {
        self != CassetteMode::Replay
    }
}

/// A provider for a test: the cassette `path`, replayed or recorded as `INTENT_CASSETTE_MODE`
/// says (see the [module documentation](self)). `real` makes the real provider; it is called
/// only in the modes that record, so a replay needs no key.
///
/// # Errors
///
/// [`IntentError::Config`] for an unknown mode, a cassette that cannot be read or written, or a
/// missing cassette in replay mode; and `real`'s own error.
///
/// ```
/// use intent_core::prelude::*;
/// use intent_core::testing::{self, CassetteMode};
///
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("count.jsonl");
/// let real = || Ok(ScriptedProvider::new([r#"{"value": 3}"#]));
/// let recorder = testing::cassette_with_mode(CassetteMode::Record, &path, real)?;
/// u32::ai(&IntentClient::new(recorder), "a, b, c", "Count the letters.").await;
///
/// let replay = testing::cassette_with_mode(CassetteMode::Replay, &path, || -> Result<ScriptedProvider, _> {
///     unreachable!("a replay never makes the real provider")
/// })?;
/// assert_eq!(u32::ai(&IntentClient::new(replay), "a, b, c", "Count the letters.").await.value(), Some(&3));
/// # Ok::<(), intent_core::IntentError>(())
/// # }).unwrap();
/// ```
pub fn cassette<P, F>(path: impl AsRef<Path>, real: F) -> Result<Cassette, IntentError>
where
    P: Provider + 'static,
    F: FnOnce() -> Result<P, IntentError>,
{
    cassette_with_mode(CassetteMode::from_env()?, path, real)
}

/// [`cassette`] with the mode given rather than read from the environment.
///
/// # Errors
///
/// As [`cassette`].
///
/// ```
/// use intent_core::prelude::*;
/// use intent_core::testing::{self, CassetteMode};
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("new.jsonl");
/// let provider = testing::cassette_with_mode(CassetteMode::RecordMissing, &path, || Ok(ScriptedProvider::new(["hi"])))?;
/// assert_eq!(provider.mode(), CassetteMode::RecordMissing);
/// # Ok::<(), intent_core::IntentError>(())
/// ```
pub fn cassette_with_mode<P, F>(
    mode: CassetteMode,
    path: impl AsRef<Path>,
    real: F,
) -> Result<Cassette, IntentError>
where
    P: Provider + 'static,
    F: FnOnce() -> Result<P, IntentError>,
{
    let path = path.as_ref();
    let inner = match mode {
        CassetteMode::Replay => Inner::Replay(ReplayProvider::open(path)?),
        CassetteMode::Record => {
            let real = real()?;
            start_anew(path)?;
            Inner::Record(RecordingProvider::new(real, path)?)
        }
        CassetteMode::RecordMissing => {
            let real = real()?;
            let replay = ReplayProvider::open_or_empty(path)?
                .answering_as(real.name(), real.default_model());
            Inner::RecordMissing(replay, RecordingProvider::new(real, path)?)
        }
    };
    Ok(Cassette { mode, inner })
}

/// Empties the cassette `path` the first time this process records it.
fn start_anew(path: &Path) -> Result<(), IntentError> {
    static STARTED: LazyLock<Mutex<HashSet<PathBuf>>> =
        LazyLock::new(|| Mutex::new(HashSet::new()));
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut started = STARTED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if started.insert(absolute) && path.exists() {
        std::fs::write(path, "").map_err(|e| {
            IntentError::Config(format!(
                "the cassette {} cannot be recorded anew: {e}",
                path.display()
            ))
        })?;
    }
    Ok(())
}

/// The provider [`cassette`] returns: a replay, a recording, or a replay that records what it
/// lacks.
pub struct Cassette {
    mode: CassetteMode,
    inner: Inner,
}

enum Inner {
    Replay(ReplayProvider),
    Record(RecordingProvider),
    RecordMissing(ReplayProvider, RecordingProvider),
}

impl fmt::Debug for Cassette {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cassette")
            .field("mode", &self.mode)
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

impl Cassette {
    /// The mode the cassette runs in.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::testing::{self, CassetteMode};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let provider = testing::cassette_with_mode(CassetteMode::Record, dir.path().join("c.jsonl"), || Ok(ScriptedProvider::new(["hi"])))?;
    /// assert_eq!(provider.mode(), CassetteMode::Record);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn mode(&self) -> CassetteMode {
        self.mode
    }

    fn answering(&self) -> &dyn Provider {
        match &self.inner {
            Inner::Replay(replay) => replay,
            Inner::Record(recorder) | Inner::RecordMissing(_, recorder) => recorder,
        }
    }
}

impl Provider for Cassette {
    fn name(&self) -> &str {
        self.answering().name()
    }

    fn default_model(&self) -> Option<&str> {
        self.answering().default_model()
    }

    fn complete<'a>(&'a self, request: &'a AiRequest) -> ReplyFuture<'a> {
        match &self.inner {
            Inner::Replay(replay) => replay.complete(request),
            Inner::Record(recorder) => recorder.complete(request),
            Inner::RecordMissing(replay, recorder) => match replay.lookup(request) {
                Some(answer) => Box::pin(async move { answer }),
                None => recorder.complete(request),
            },
        }
    }
}

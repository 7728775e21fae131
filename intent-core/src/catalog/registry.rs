//! [`Catalog`]: the intents of one file or one folder, loaded, checked and run.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;

use super::error::CatalogError;
use super::file::{self, Format};
use super::intent::{compile, CatalogIntent};
use super::shape::Shape;
use crate::call::AiCall;
use crate::client::IntentClient;
use crate::error::IntentError;
use crate::intent::Intent;

/// Where a catalog was loaded from, for [`Catalog::reload`].
#[derive(Debug, Clone)]
enum Source {
    Path(PathBuf),
    Text { name: PathBuf, text: String },
}

/// The intents of one intent file or of a folder of them, checked and ready to run.
///
/// See the [module documentation](crate::catalog) for the file format.
///
/// ```
/// use intent_core::catalog::Catalog;
///
/// let catalog = Catalog::parse("inline.json", r#"{"intents": [
///     {"name": "summary", "intent": "Summarize the text in one sentence.", "shape": "string",
///      "rules": {"$": {"maxLength": 200}}}
/// ]}"#).unwrap();
/// assert_eq!(catalog.names().collect::<Vec<_>>(), vec!["summary"]);
///
/// let broken = Catalog::parse("inline.yaml", "intents:\n  - name: x\n    shape: string\n").unwrap_err();
/// assert_eq!(broken.to_string(), "inline.yaml:2: intent `x`: missing field `intent`");
/// ```
#[derive(Debug)]
pub struct Catalog {
    source: Source,
    intents: IndexMap<String, CatalogIntent>,
}

impl Catalog {
    /// Loads one intent file, or every `.json`, `.yaml` and `.yml` file of a folder (not its
    /// subfolders), in name order, checking every intent.
    ///
    /// ```no_run
    /// use intent_core::catalog::Catalog;
    ///
    /// let catalog = Catalog::load("intents/")?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Catalog, IntentError> {
        let source = Source::Path(path.as_ref().to_path_buf());
        let intents = load_source(&source)?;
        Ok(Catalog { source, intents })
    }

    /// Reads a catalog from text, as if it were the file `name` (whose extension gives the format):
    /// for intent files embedded with `include_str!`, and for tests.
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    ///
    /// let catalog = Catalog::parse("counts.yaml", "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n")?;
    /// assert_eq!(catalog.len(), 1);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn parse(name: impl AsRef<Path>, text: &str) -> Result<Catalog, IntentError> {
        let source = Source::Text {
            name: name.as_ref().to_path_buf(),
            text: text.to_owned(),
        };
        let intents = load_source(&source)?;
        Ok(Catalog { source, intents })
    }

    /// Loads the catalog again from where it was loaded. On an error the catalog is left as it was.
    ///
    /// ```no_run
    /// use intent_core::catalog::Catalog;
    ///
    /// let mut catalog = Catalog::load("intents/")?;
    /// // ... the files change ...
    /// catalog.reload()?;
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn reload(&mut self) -> Result<(), IntentError> {
        self.intents = load_source(&self.source)?;
        Ok(())
    }

    /// The intent named `name`.
    ///
    /// ```
    /// # use intent_core::catalog::Catalog;
    /// let catalog = Catalog::parse("c.yaml", "intents:\n  - name: count\n    intent: Count.\n    shape: uint\n")?;
    /// assert!(catalog.get("count").is_some());
    /// assert!(catalog.get("other").is_none());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn get(&self, name: &str) -> Option<&CatalogIntent> {
        self.intents.get(name)
    }

    /// The intents' names, in file order.
    ///
    /// ```
    /// # use intent_core::catalog::Catalog;
    /// let catalog = Catalog::parse("c.yaml", "intents:\n  - name: a\n    intent: A.\n    shape: uint\n  - name: b\n    intent: B.\n    shape: uint\n")?;
    /// assert_eq!(catalog.names().collect::<Vec<_>>(), vec!["a", "b"]);
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.intents.keys().map(String::as_str)
    }

    /// The number of intents.
    ///
    /// ```
    /// # use intent_core::catalog::Catalog;
    /// let catalog = Catalog::parse("c.yaml", "intents: []\n")?;
    /// assert!(catalog.is_empty());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.intents.len()
    }

    /// True when the catalog has no intent.
    ///
    /// ```
    /// # use intent_core::catalog::Catalog;
    /// assert!(Catalog::parse("c.yaml", "intents: []\n")?.is_empty());
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.intents.is_empty()
    }

    /// Checks that intent `name` can be run with `T`: `T`'s label is the file's `shape`, every rule
    /// names a member of `T` of the right kind, and every example's output reads as a `T`.
    /// [`run`](Self::run) does the same on its first call with each type; call this at start-up to
    /// fail early.
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    ///
    /// let catalog = Catalog::parse("c.yaml", "intents:\n  - name: count\n    intent: Count.\n    shape: uint\n")?;
    /// assert!(catalog.check::<u32>("count").is_ok());
    /// assert!(catalog.check::<i64>("count").unwrap_err().to_string().contains("names the shape `uint`, but it was run with `long`"));
    /// # Ok::<(), intent_core::IntentError>(())
    /// ```
    pub fn check<T: Intent>(&self, name: &str) -> Result<(), IntentError> {
        let entry = self.entry(name)?;
        entry.verify::<T>()?;
        Ok(())
    }

    /// Runs intent `name` on `input` for a `T`, with the file's options and rules; add your own
    /// `.require(..)` and `.validate(..)`, then `.await` it for an [`AiResult<T>`](crate::AiResult).
    ///
    /// A `T` whose label is not the file's `shape` (or an unknown name, or a schema-shaped intent)
    /// gives a failed result with that error, and nothing is sent. The file's options lie over the
    /// client's [`default_options`](crate::IntentClient::default_options); the returned call's
    /// setters and `.options(..)` lie over the file's, field by field (a field they leave unset
    /// keeps the file's value).
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    /// use intent_core::prelude::*;
    ///
    /// let catalog = Catalog::parse("c.yaml", "intents:\n  - name: count\n    intent: Count the letters.\n    shape: uint\n    rules:\n      $: { maximum: 26 }\n").unwrap();
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 3}"#]));
    /// let count = catalog.run::<u32>(&client, "count", "a, b, c").require(|n| *n > 0, "Count at least one letter.").await;
    /// assert_eq!(count.into_result().unwrap(), 3);
    /// # });
    /// ```
    pub fn run<'a, T: Intent>(
        &'a self,
        client: &'a IntentClient,
        name: &str,
        input: &'a (impl Serialize + ?Sized),
    ) -> AiCall<'a, T> {
        let entry = match self.entry(name).and_then(|e| e.verify::<T>().map(|()| e)) {
            Ok(entry) => entry,
            Err(error) => return AiCall::refused(client, error.into()),
        };
        with_rules(
            AiCall::new(client, input, &entry.intent).options(entry.options.clone()),
            entry,
        )
    }

    /// Runs intent `name`, whose shape is a JSON Schema, on `input`. The schema is sent strict (see
    /// [`build_envelope_from_schema`](crate::schema::build_envelope_from_schema)); the reply is
    /// checked against the *full* schema, with the constraints the strict copy drops and its
    /// formats, by the verifier of [`IntentClient::transform`] (compiled once, when the file was
    /// loaded), and against the file's rules: each violation is an issue at its path.
    ///
    /// ```
    /// use intent_core::catalog::Catalog;
    /// use intent_core::prelude::*;
    ///
    /// let catalog = Catalog::parse("c.json", r#"{"intents": [{"name": "rating", "intent": "Rate the review from 1 to 5.",
    ///     "shape": {"type": "object", "properties": {"stars": {"type": "integer", "minimum": 1, "maximum": 5}}, "required": ["stars"]}}]}"#).unwrap();
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": {"stars": 9}}"#, r#"{"value": {"stars": 4}}"#]));
    /// let rating = catalog.run_json(&client, "rating", "Great, but slow.").await;
    /// assert_eq!(rating.value().unwrap()["stars"], 4);
    /// assert_eq!(rating.attempts()[0].issues[0].path.as_deref(), Some("/value/stars"));
    /// # });
    /// ```
    pub fn run_json<'a>(
        &'a self,
        client: &'a IntentClient,
        name: &str,
        input: &'a (impl Serialize + ?Sized),
    ) -> AiCall<'a, Value> {
        let entry = match self.entry(name) {
            Ok(entry) => entry,
            Err(error) => return AiCall::refused(client, error.into()),
        };
        let Shape::Schema(_) = &entry.shape else {
            let error = entry.error(format!(
                "its shape is the Rust type `{}`: run it with `run::<T>`, not `run_json`",
                match &entry.shape {
                    Shape::Named(name) => name.as_str(),
                    Shape::Schema(_) => "",
                }
            ));
            return AiCall::refused(client, error.into());
        };
        // The schema, compiled into the cache of compiled schemas when the file was loaded,
        // verifies every reply (see `transform`).
        let call = AiCall::new(client, input, &entry.intent).options(entry.options.clone());
        with_rules(call, entry)
    }

    fn entry(&self, name: &str) -> Result<&CatalogIntent, CatalogError> {
        self.intents.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.names().collect();
            CatalogError::new(
                self.source_path(),
                format!(
                    "no intent is named `{name}`; the catalog has: {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        })
    }

    fn source_path(&self) -> &Path {
        match &self.source {
            Source::Path(path) => path,
            Source::Text { name, .. } => name,
        }
    }
}

/// `call` with the file's rules of `entry` and its members that must come from the input checked
/// on every reply, if it has any.
fn with_rules<'a, T>(call: AiCall<'a, T>, entry: &'a CatalogIntent) -> AiCall<'a, T> {
    if entry.rules.is_empty() && entry.grounded.is_empty() {
        return call;
    }
    let grounds = entry.grounds_of(&call);
    call.validate_json(move |value| {
        let mut issues = Vec::new();
        entry.check_rules(value, &mut issues);
        entry.check_grounded(value, grounds.as_ref(), &mut issues);
        issues
    })
}

/// Reads and checks every intent of `source`.
fn load_source(source: &Source) -> Result<IndexMap<String, CatalogIntent>, CatalogError> {
    let mut intents: IndexMap<String, CatalogIntent> = IndexMap::new();
    match source {
        Source::Text { name, text } => {
            let format = format_of(name)?;
            let parsed = file::parse(name, text.clone(), format)?;
            add(&mut intents, name, parsed)?;
        }
        Source::Path(path) if path.is_dir() => {
            let entries = std::fs::read_dir(path)
                .map_err(|e| CatalogError::new(path, format!("the folder cannot be read: {e}")))?;
            let mut files = Vec::new();
            for entry in entries {
                let entry = entry.map_err(|e| {
                    CatalogError::new(path, format!("the folder cannot be read: {e}"))
                })?;
                let file = entry.path();
                if file.is_file() {
                    if let Some(format) = Format::of(&file) {
                        files.push((file, format));
                    }
                }
            }
            if files.is_empty() {
                return Err(CatalogError::new(
                    path,
                    "the folder has no .json, .yaml or .yml file",
                ));
            }
            files.sort_by(|a, b| a.0.cmp(&b.0));
            for (file, format) in files {
                let parsed = file::read(&file, format)?;
                add(&mut intents, &file, parsed)?;
            }
        }
        Source::Path(path) => {
            if !path.exists() {
                return Err(CatalogError::new(path, "no such file or folder"));
            }
            let format = format_of(path)?;
            let parsed = file::read(path, format)?;
            add(&mut intents, path, parsed)?;
        }
    }
    Ok(intents)
}

fn format_of(path: &Path) -> Result<Format, CatalogError> {
    Format::of(path)
        .ok_or_else(|| CatalogError::new(path, "an intent file must end in .json, .yaml or .yml"))
}

fn add(
    intents: &mut IndexMap<String, CatalogIntent>,
    path: &Path,
    parsed: file::ParsedFile,
) -> Result<(), CatalogError> {
    for raw in parsed.intents {
        let intent = compile(path, &parsed.text, raw)?;
        if let Some(first) = intents.get(&intent.name) {
            let place = match first.line {
                Some(line) => format!("{}:{line}", first.file.display()),
                None => first.file.display().to_string(),
            };
            return Err(intent.error(format!(
                "the name is already used by the intent at {place}; intent names must be unique across the catalog"
            )));
        }
        intents.insert(intent.name.clone(), intent);
    }
    Ok(())
}

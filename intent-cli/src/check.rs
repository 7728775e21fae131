//! `intent check`: load intent files as the library does and print every error.
//!
//! `Catalog::load` stops at the first error, so a folder is loaded file by file (one error per
//! file at most), then whole when every file loads (names must be unique across the files). An
//! intent of a built-in type is also checked against that type, as a program's
//! `Catalog::check::<T>` would.

use std::path::{Path, PathBuf};

use intent_core::catalog::{is_intent_file, Catalog};
use intent_core::IntentError;

use crate::exit::{CliResult, Exit, Failure};
use crate::shapes;

pub fn check(path: &Path) -> CliResult {
    let files = intent_files(path)?;
    let mut errors: Vec<String> = Vec::new();
    let mut loaded = Vec::new();
    for file in &files {
        match Catalog::load(file) {
            Ok(catalog) => loaded.push(catalog),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if errors.is_empty() && path.is_dir() {
        if let Err(e) = Catalog::load(path) {
            errors.push(e.to_string());
        }
    }
    let mut notes = Vec::new();
    let (mut intents, mut tests) = (0, 0);
    for catalog in &loaded {
        for name in catalog.names() {
            let Some(intent) = catalog.get(name) else {
                continue;
            };
            intents += 1;
            tests += intent.tests().len();
            match shapes::runner(intent) {
                Ok(runner) => {
                    if let Err(e) = runner.check(catalog, name) {
                        errors.push(e.to_string());
                    }
                }
                Err(why) => notes.push(format!(
                    "{}: {why}; its rules, examples and tests are checked against it when the program runs it",
                    place(intent.file(), intent.line())
                )),
            }
        }
    }
    for note in &notes {
        eprintln!("note: {note}");
    }
    for error in &errors {
        eprintln!("error: {error}");
    }
    if errors.is_empty() {
        println!(
            "{}: {intents} {}, {tests} {}, no error",
            path.display(),
            plural(intents, "intent"),
            plural(tests, "test")
        );
        Ok(Exit::Ok)
    } else {
        println!(
            "{}: {} {}",
            path.display(),
            errors.len(),
            plural(errors.len(), "error")
        );
        Ok(Exit::Failed)
    }
}

/// The intent files `path` names: itself, or the intent files of the folder in name order.
pub fn intent_files(path: &Path) -> CliResult<Vec<PathBuf>> {
    if !path.exists() {
        return Err(Failure::new(
            Exit::Load,
            format!("{}: no such file or folder", path.display()),
        ));
    }
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| {
        Failure::new(
            Exit::Load,
            format!("{}: the folder cannot be read: {e}", path.display()),
        )
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && is_intent_file(p))
        .collect();
    if files.is_empty() {
        return Err(Failure::new(
            Exit::Load,
            format!(
                "{}: the folder has no .json, .yaml or .yml file",
                path.display()
            ),
        ));
    }
    files.sort();
    Ok(files)
}

/// Loads the catalog of `path` for `run` and `test`: any error is a load error.
pub fn load(path: &Path) -> CliResult<Catalog> {
    intent_files(path)?;
    Catalog::load(path).map_err(|e| match e {
        IntentError::Catalog(_) => Failure::new(Exit::Load, e.to_string()),
        other => Failure::from_intent(other),
    })
}

pub fn place(file: &Path, line: Option<usize>) -> String {
    match line {
        Some(line) => format!("{}:{line}", file.display()),
        None => file.display().to_string(),
    }
}

pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

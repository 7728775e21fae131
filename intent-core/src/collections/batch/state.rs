//! A batch job's state file: which batches each round submitted, so a process started again
//! resumes them instead of submitting their requests twice.
//!
//! The file is JSON, written whole to a sibling file that is synced and then renamed over the old
//! one, so a reader sees the old state or the new one, never half of one. It names its job by a
//! SHA-256 of the provider's name and every line of the job's first round (each line is the whole
//! request: model, prompt, schema and input), so a file of another job is refused.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::provider::batch::Staged;

/// The format's version, refused when it is another.
const VERSION: u32 = 1;

/// A job's progress, as the state file holds it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct JobState {
    pub(super) version: u32,
    /// The job's hash (hex), see the module docs.
    pub(super) job: String,
    /// One entry per round started, in order.
    pub(super) rounds: Vec<RoundState>,
}

/// The batches of one round, in the order the round's requests were split.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct RoundState {
    pub(super) batches: Vec<BatchState>,
}

/// One batch: staged, then created.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct BatchState {
    /// Its requests.
    pub(super) requests: usize,
    /// What was handed to the provider before creating it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) staged: Option<Staged>,
    /// The batch's id, once created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<String>,
}

/// The hash that names a job.
pub(super) fn job_hash<'l>(provider: &str, lines: impl IntoIterator<Item = &'l [u8]>) -> String {
    let mut hasher = Sha256::new();
    hasher.update(provider.as_bytes());
    hasher.update([0]);
    for line in lines {
        hasher.update((line.len() as u64).to_le_bytes());
        hasher.update(line);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a job's state lives: a file, or nowhere (the state is then only in memory).
pub(super) struct StateStore {
    path: Option<PathBuf>,
    pub(super) state: JobState,
}

impl StateStore {
    /// Opens the state of the job named `job`: the file's, when it exists and is this job's; a
    /// new state otherwise. A file that cannot be read, is not a state file, or is another job's
    /// is an error naming the file, and nothing is submitted.
    pub(super) fn open(path: Option<&Path>, job: String) -> Result<StateStore, String> {
        let fresh = JobState {
            version: VERSION,
            job: job.clone(),
            rounds: Vec::new(),
        };
        let Some(path) = path else {
            return Ok(StateStore {
                path: None,
                state: fresh,
            });
        };
        let shown = path.display();
        let state = match std::fs::read(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => fresh,
            Err(e) => {
                return Err(format!(
                    "The batch state file {shown} could not be read ({e}); nothing was submitted."
                ))
            }
            Ok(bytes) => {
                let state: JobState = serde_json::from_slice(&bytes).map_err(|e| {
                    format!("The batch state file {shown} is not a batch state file ({e}); nothing was submitted. Remove it to start the job afresh, knowing that batches it named may still be running.")
                })?;
                if state.version != VERSION {
                    return Err(format!("The batch state file {shown} is of version {}, and this library reads version {VERSION}; nothing was submitted.", state.version));
                }
                if state.job != job {
                    return Err(format!("The batch state file {shown} belongs to another job (another intent, inputs, options, model or provider: its hash is {}, this job's is {job}); nothing was submitted. Use another state file for this job.", state.job));
                }
                state
            }
        };
        let store = StateStore {
            path: Some(path.to_owned()),
            state,
        };
        // A file that cannot be written is found before anything is paid for.
        store.save()?;
        Ok(store)
    }

    /// Writes the state, atomically, when it has a file.
    pub(super) fn save(&self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let failed = |e: &dyn std::fmt::Display| {
            format!(
                "The batch state file {} could not be written ({e}); the job stopped so that nothing is submitted that a later run could not find.",
                path.display()
            )
        };
        let bytes = serde_json::to_vec_pretty(&self.state).map_err(|e| failed(&e))?;
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".{}.tmp", std::process::id()));
        let temporary = PathBuf::from(temporary);
        let written = (|| {
            let mut file = std::fs::File::create(&temporary)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            std::fs::rename(&temporary, path)
        })();
        written.map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            failed(&e)
        })
    }

    /// The state of round `round` (from 1), added when new.
    pub(super) fn round(&mut self, round: usize) -> &mut RoundState {
        while self.state.rounds.len() < round {
            self.state.rounds.push(RoundState::default());
        }
        &mut self.state.rounds[round - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_file_of_another_job_is_refused_and_a_corrupt_one_too() {
        let dir = std::env::temp_dir().join(format!("intent-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job.json");
        let _ = std::fs::remove_file(&path);
        let mut store = StateStore::open(Some(&path), "aaa".into()).unwrap();
        store.round(1).batches.push(BatchState {
            requests: 3,
            staged: None,
            id: Some("batch_1".into()),
        });
        store.save().unwrap();
        let again = StateStore::open(Some(&path), "aaa".into()).unwrap();
        assert_eq!(
            again.state.rounds[0].batches[0].id.as_deref(),
            Some("batch_1")
        );
        let other = StateStore::open(Some(&path), "bbb".into()).err().unwrap();
        assert!(other.contains("belongs to another job"), "{other}");
        std::fs::write(&path, b"{not json").unwrap();
        let corrupt = StateStore::open(Some(&path), "aaa".into()).err().unwrap();
        assert!(corrupt.contains("is not a batch state file"), "{corrupt}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_hash_changes_with_any_line_and_with_the_provider() {
        let a = job_hash("openai", [b"one".as_slice(), b"two"]);
        assert_eq!(a, job_hash("openai", [b"one".as_slice(), b"two"]));
        assert_ne!(a, job_hash("openai", [b"one".as_slice(), b"twO"]));
        assert_ne!(a, job_hash("anthropic", [b"one".as_slice(), b"two"]));
        assert_ne!(a, job_hash("openai", [b"onetwo".as_slice()]));
    }
}

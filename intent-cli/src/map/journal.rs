//! The state of a live run: every row's outcome, recorded in row order as it arrives, so a run
//! started again with the same state file sends only the rows with none.
//!
//! The file is JSON Lines: a header naming the run (the intent, the input file, its size and
//! row count), then one line per row, `{"row": 12, "value": ..}` or `{"row": 12, "issues":
//! [..]}`. A line cut off by a kill is dropped when the file is opened again. Rows in flight when
//! the run stopped have no line, and are sent again: their answers never arrived.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Lines, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::results::{Issue, Outcome};
use crate::exit::{CliResult, Failure};

pub struct Journal {
    path: PathBuf,
    writer: BufWriter<File>,
    /// The rows recorded by an earlier run.
    pub recorded: usize,
    /// Reads the recorded rows back, in order.
    reader: Option<Lines<BufReader<File>>>,
}

fn failed(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::usage(format!(
        "the state file {} cannot be used: {e}",
        path.display()
    ))
}

impl Journal {
    /// Opens the state file at `path` for the run `header` names, or starts it.
    pub fn open(path: &Path, header: Value) -> CliResult<Journal> {
        let mut recorded = 0;
        let mut kept_bytes = 0u64;
        let exists = path.exists();
        if exists {
            let text = std::fs::read(path).map_err(|e| failed(path, e))?;
            let mut lines = text.split_inclusive(|b| *b == b'\n');
            let first = lines.next().unwrap_or_default();
            let found: Value = serde_json::from_slice(first).unwrap_or(Value::Null);
            if found != header {
                return Err(failed(
                    path,
                    format!(
                        "it records another run ({}); remove it, or name another state file",
                        String::from_utf8_lossy(first).trim()
                    ),
                ));
            }
            kept_bytes += first.len() as u64;
            for line in lines {
                // A line without its newline was being written when the run stopped.
                let whole = line.ends_with(b"\n");
                let row = serde_json::from_slice::<Value>(line)
                    .ok()
                    .and_then(|v| v.get("row")?.as_u64());
                if !whole || row != Some(recorded as u64) {
                    break;
                }
                recorded += 1;
                kept_bytes += line.len() as u64;
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(path)
            .map_err(|e| failed(path, e))?;
        file.set_len(kept_bytes).map_err(|e| failed(path, e))?;
        let mut writer = BufWriter::new(file);
        use std::io::Seek;
        writer
            .seek(std::io::SeekFrom::End(0))
            .map_err(|e| failed(path, e))?;
        if !exists {
            writeln!(writer, "{header}").map_err(|e| failed(path, e))?;
            writer.flush().map_err(|e| failed(path, e))?;
        }
        let reader = if recorded > 0 {
            let mut lines = BufReader::new(File::open(path).map_err(|e| failed(path, e))?).lines();
            lines.next();
            Some(lines)
        } else {
            None
        };
        Ok(Journal {
            path: path.to_owned(),
            writer,
            recorded,
            reader,
        })
    }

    /// The next recorded row's outcome, in row order.
    pub fn replay(&mut self) -> CliResult<Outcome> {
        let line = self
            .reader
            .as_mut()
            .and_then(Iterator::next)
            .ok_or_else(|| failed(&self.path, "it ended before its recorded rows"))?
            .map_err(|e| failed(&self.path, e))?;
        let value: Value = serde_json::from_str(&line).map_err(|e| failed(&self.path, e))?;
        Ok(
            match (
                value.get("value"),
                value.get("issues").and_then(Value::as_array),
            ) {
                (_, Some(issues)) => {
                    Outcome::Failed(issues.iter().filter_map(Issue::from_json).collect())
                }
                (Some(value), None) => Outcome::Value(value.clone()),
                (None, None) => {
                    return Err(failed(&self.path, "a row has neither a value nor issues"))
                }
            },
        )
    }

    /// Records row `row`'s outcome (written through at once: a kill loses no recorded answer).
    pub fn record(&mut self, row: usize, outcome: &Outcome) -> CliResult<()> {
        let line = match outcome {
            Outcome::Value(value) => json!({"row": row, "value": value}),
            Outcome::Failed(issues) => {
                json!({"row": row, "issues": issues.iter().map(Issue::to_json).collect::<Vec<_>>()})
            }
        };
        writeln!(self.writer, "{line}")
            .and_then(|()| self.writer.flush())
            .map_err(|e| failed(&self.path, e))
    }

    /// Removes the state file of a run that finished.
    pub fn remove(self) {
        let path = self.path.clone();
        drop(self);
        let _ = std::fs::remove_file(path);
    }
}

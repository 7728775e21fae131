//! Table files: CSV, JSON Lines and Parquet read as record batches (after a first pass that
//! checks the whole file and counts its rows, so a bad file is refused before any call), and
//! written batch by batch into a temporary file renamed over the output at the end.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::args::Format;
use crate::exit::{CliResult, Failure};

/// Rows per record batch read.
pub const BATCH_ROWS: usize = 1024;

/// Batches of a file, in order.
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch, String>> + Send>;

/// An input file, checked whole: its format, its columns and its number of rows.
pub struct InputFile {
    pub path: PathBuf,
    pub format: Format,
    pub schema: SchemaRef,
    pub rows: usize,
}

fn unreadable(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::usage(format!("the input {} cannot be read: {e}", path.display()))
}

fn open(path: &Path) -> CliResult<File> {
    File::open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Failure::usage(format!("the input file {} does not exist", path.display()))
        } else {
            unreadable(path, e)
        }
    })
}

impl InputFile {
    /// Opens `path` as `format` (or the format its extension names) and reads it through once:
    /// a ragged or non-UTF-8 CSV, a line of JSON Lines that is not an object, a file that is not
    /// Parquet, each is refused here, naming the line.
    pub fn open(path: &Path, format: Option<Format>) -> CliResult<InputFile> {
        let format = format.or_else(|| Format::of(path)).ok_or_else(|| {
            Failure::usage(format!(
                "the input {} has no extension naming its format; add --format csv, jsonl or parquet",
                path.display()
            ))
        })?;
        let (schema, rows) = match format {
            Format::Parquet => {
                let builder =
                    ParquetRecordBatchReaderBuilder::try_new(open(path)?).map_err(|e| {
                        Failure::usage(format!(
                            "the input {} is not a Parquet file: {e}",
                            path.display()
                        ))
                    })?;
                let rows =
                    usize::try_from(builder.metadata().file_metadata().num_rows()).unwrap_or(0);
                (builder.schema().clone(), rows)
            }
            Format::Csv => {
                let schema = csv_schema(path)?;
                let mut rows = 0;
                for batch in csv_batches(path, schema.clone())? {
                    rows += batch.map_err(|e| unreadable(path, e))?.num_rows();
                }
                (schema, rows)
            }
            Format::Jsonl => jsonl_schema(path)?,
        };
        Ok(InputFile {
            path: path.to_owned(),
            format,
            schema,
            rows,
        })
    }

    /// The file's record batches, in order.
    pub fn batches(&self) -> CliResult<Batches> {
        let path = self.path.clone();
        let failed = move |e: &dyn std::fmt::Display| {
            format!("the input {} cannot be read: {e}", path.display())
        };
        Ok(match self.format {
            Format::Parquet => {
                let reader = ParquetRecordBatchReaderBuilder::try_new(open(&self.path)?)
                    .and_then(|b| b.with_batch_size(BATCH_ROWS).build())
                    .map_err(|e| unreadable(&self.path, e))?;
                Box::new(reader.map(move |b| b.map_err(|e| failed(&e))))
            }
            Format::Csv => Box::new(
                csv_batches(&self.path, self.schema.clone())?
                    .map(move |b| b.map_err(|e| failed(&e))),
            ),
            Format::Jsonl => {
                let reader = arrow_json::ReaderBuilder::new(self.schema.clone())
                    .with_batch_size(BATCH_ROWS)
                    .build(BufReader::new(open(&self.path)?))
                    .map_err(|e| unreadable(&self.path, e))?;
                Box::new(reader.map(move |b| b.map_err(|e| failed(&e))))
            }
        })
    }
}

/// A CSV file's columns, from its header line: every column text, so that nothing is guessed
/// (`007` stays `007`).
fn csv_schema(path: &Path) -> CliResult<SchemaRef> {
    let mut header = String::new();
    BufReader::new(open(path)?)
        .read_line(&mut header)
        .map_err(|e| {
            Failure::usage(format!(
                "the input {} cannot be read as text: line 1: {e}",
                path.display()
            ))
        })?;
    if header.trim().is_empty() {
        return Err(Failure::usage(format!(
            "the input {} has no header line naming its columns",
            path.display()
        )));
    }
    let (inferred, _) = arrow_csv::reader::Format::default()
        .with_header(true)
        .infer_schema(header.as_bytes(), Some(0))
        .map_err(|e| unreadable(path, e))?;
    let fields: Vec<Field> = inferred
        .fields()
        .iter()
        .map(|f| Field::new(f.name(), DataType::Utf8, true))
        .collect();
    Ok(Arc::new(Schema::new(fields)))
}

fn csv_batches(
    path: &Path,
    schema: SchemaRef,
) -> CliResult<impl Iterator<Item = Result<RecordBatch, arrow_schema::ArrowError>> + Send> {
    arrow_csv::ReaderBuilder::new(schema)
        .with_header(true)
        .with_batch_size(BATCH_ROWS)
        .build(open(path)?)
        .map_err(|e| unreadable(path, e))
}

/// A JSON Lines file's columns, inferred from every line, and its rows; a line that is not a
/// JSON object is refused, naming it. Blank lines are skipped.
fn jsonl_schema(path: &Path) -> CliResult<(SchemaRef, usize)> {
    let mut file = open(path)?;
    let mut rows = 0;
    for (number, line) in BufReader::new(&file).lines().enumerate() {
        let line = line.map_err(|e| {
            Failure::usage(format!(
                "the input {} line {}: {e}",
                path.display(),
                number + 1
            ))
        })?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(serde_json::Value::Object(_)) => rows += 1,
            Ok(_) => {
                return Err(Failure::usage(format!(
                    "the input {} line {} is not a JSON object; each line of JSON Lines is one row object",
                    path.display(),
                    number + 1
                )))
            }
            Err(e) => {
                return Err(Failure::usage(format!(
                    "the input {} line {} is not JSON: {e}",
                    path.display(),
                    number + 1
                )))
            }
        }
    }
    file.rewind().map_err(|e| unreadable(path, e))?;
    let (schema, _) = arrow_json::reader::infer_json_schema(BufReader::new(file), None)
        .map_err(|e| unreadable(path, e))?;
    Ok((Arc::new(schema), rows))
}

/// The output, being written: a temporary file beside it, renamed over it by [`finish`].
///
/// [`finish`]: OutputFile::finish
pub struct OutputFile {
    path: PathBuf,
    temporary: PathBuf,
    writer: Writer,
}

enum Writer {
    Csv(Box<arrow_csv::Writer<BufWriter<File>>>),
    Jsonl(BufWriter<File>),
    Parquet(Box<ArrowWriter<File>>),
}

/// The format of the output at `path`: its extension's, else the input's.
pub fn output_format(path: &Path, input: Format) -> Format {
    Format::of(path).unwrap_or(input)
}

impl OutputFile {
    /// Creates the temporary file beside `path` (proving the folder can be written before any
    /// call), for rows of `schema`.
    pub fn create(path: &Path, format: Format, schema: &SchemaRef) -> CliResult<OutputFile> {
        if path.is_dir() {
            return Err(Failure::usage(format!(
                "the output {} is a folder",
                path.display()
            )));
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".to_owned());
        let temporary = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
        let file = File::create(&temporary).map_err(|e| {
            Failure::usage(format!(
                "the output {} cannot be written ({e}); nothing was sent",
                path.display()
            ))
        })?;
        let writer = match format {
            Format::Csv => Writer::Csv(Box::new(
                arrow_csv::WriterBuilder::new()
                    .with_header(true)
                    .build(BufWriter::new(file)),
            )),
            Format::Jsonl => Writer::Jsonl(BufWriter::new(file)),
            Format::Parquet => {
                let properties = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .build();
                Writer::Parquet(Box::new(
                    ArrowWriter::try_new(file, schema.clone(), Some(properties)).map_err(|e| {
                        Failure::usage(format!("the output {}: {e}", path.display()))
                    })?,
                ))
            }
        };
        Ok(OutputFile {
            path: path.to_owned(),
            temporary,
            writer,
        })
    }

    /// Writes one batch (for JSON Lines, the lines are given already written).
    pub fn write(&mut self, batch: &RecordBatch, lines: &str) -> CliResult<()> {
        let failed = |e: &dyn std::fmt::Display| {
            Failure::usage(format!(
                "the output {} cannot be written: {e}",
                self.path.display()
            ))
        };
        match &mut self.writer {
            Writer::Csv(writer) => writer.write(batch).map_err(|e| failed(&e)),
            Writer::Jsonl(writer) => writer.write_all(lines.as_bytes()).map_err(|e| failed(&e)),
            Writer::Parquet(writer) => writer.write(batch).map_err(|e| failed(&e)),
        }
    }

    /// Flushes and closes the temporary file and renames it over the output.
    pub fn finish(self) -> CliResult<()> {
        let failed = |e: &dyn std::fmt::Display| {
            Failure::usage(format!(
                "the output {} cannot be written: {e}",
                self.path.display()
            ))
        };
        let file = match self.writer {
            Writer::Csv(writer) => writer.into_inner().into_inner().map_err(|e| failed(&e))?,
            Writer::Jsonl(writer) => writer.into_inner().map_err(|e| failed(&e))?,
            Writer::Parquet(writer) => writer.into_inner().map_err(|e| failed(&e))?,
        };
        file.sync_all().map_err(|e| failed(&e))?;
        drop(file);
        std::fs::rename(&self.temporary, &self.path).map_err(|e| failed(&e))
    }

    /// Removes the temporary file of a run that did not finish.
    pub fn abandon(self) {
        let temporary = self.temporary.clone();
        drop(self);
        let _ = std::fs::remove_file(temporary);
    }
}

/// Refuses input columns an output format cannot hold: CSV has no nested values.
pub fn check_holds(format: Format, schema: &Schema, output: &Path) -> CliResult<()> {
    if format != Format::Csv {
        return Ok(());
    }
    for field in schema.fields() {
        if field.data_type().is_nested() {
            return Err(Failure::usage(format!(
                "the input column `{}` has the type {}, which a CSV file cannot hold; write {} as JSON Lines or Parquet",
                field.name(),
                field.data_type(),
                output.display()
            )));
        }
    }
    Ok(())
}

//! `intent map`'s arguments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::cli::CallArgs;

/// A table file's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header line; every cell is text.
    Csv,
    /// JSON Lines: one JSON object per line.
    Jsonl,
    /// Apache Parquet.
    Parquet,
}

impl Format {
    /// The format a file's extension names.
    #[cfg_attr(not(feature = "map"), allow(dead_code))]
    pub fn of(path: &std::path::Path) -> Option<Format> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match extension.as_str() {
            "csv" => Format::Csv,
            "jsonl" | "ndjson" => Format::Jsonl,
            "parquet" | "pq" => Format::Parquet,
            _ => return None,
        })
    }
}

#[derive(Debug, Args)]
pub struct MapArgs {
    /// An intent file, or a folder of them.
    pub path: PathBuf,
    /// The intent's name.
    pub intent: String,
    /// The table: a CSV, JSON Lines or Parquet file (by its extension, or --format).
    #[arg(long, short, value_name = "FILE")]
    pub input: PathBuf,
    /// Where the table goes with the results as new columns (CSV, JSON Lines or Parquet, by its
    /// extension). It is written whole or not at all: a stopped run leaves no half file.
    #[arg(long, short, value_name = "FILE")]
    pub output: PathBuf,
    /// The input's format, when its extension does not tell.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Send only these columns to the model (every column is written to the output).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub columns: Vec<String>,
    /// Rows per request.
    #[arg(long, value_name = "N", default_value_t = 50, value_parser = clap::value_parser!(u16).range(1..))]
    pub chunk_size: u16,
    /// Requests in flight at once.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Run through the provider's batch API (OpenAI Batch, or Anthropic Message Batches when
    /// only Anthropic is configured): half the price, answers within a day. With
    /// OPENAI_BASE_URL, the server is taken to have OpenAI's Batch API.
    #[arg(long)]
    pub batch: bool,
    /// With --batch: seconds between looks at the batch (doubling while nothing changes);
    /// the library's default when not given.
    #[arg(long, value_name = "SECONDS", requires = "batch", value_parser = seconds)]
    pub poll_interval: Option<f64>,
    /// A state file: a run that stops (killed, a lost connection) and is started again with the
    /// same file goes on where it stopped, sending no row whose answer was recorded (a --batch
    /// run sends nothing twice). Removed when the output is written.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Dollars per million input and output tokens, for the cost in the summary.
    #[arg(long, value_name = "IN,OUT", value_parser = price)]
    pub price: Option<(f64, f64)>,
    #[command(flatten)]
    pub call: CallArgs,
}

fn seconds(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or_else(|| format!("`{text}` is not a number of seconds"))
}

fn price(text: &str) -> Result<(f64, f64), String> {
    let parse = |part: &str| {
        part.trim()
            .parse::<f64>()
            .ok()
            .filter(|p| p.is_finite() && *p >= 0.0)
            .ok_or_else(|| format!("`{part}` is not a price in dollars"))
    };
    match text.split_once(',') {
        Some((input, output)) => Ok((parse(input)?, parse(output)?)),
        None => Err(
            "give two prices, input and output per million tokens: --price 0.15,0.60".to_owned(),
        ),
    }
}

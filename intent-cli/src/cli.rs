//! The command line: commands, options and their help (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::exit::EXIT_CODES;

#[derive(Debug, Parser)]
#[command(
    name = "intent",
    version,
    about = "Check, run and test intent files: the prompts of a program that uses `intent`, kept in YAML or JSON.",
    long_about = "Check, run and test intent files: the prompts of a program that uses `intent`, kept in YAML \
or JSON so that people who do not write Rust can review and change them.\n\n\
`run` and `test` ask the providers configured in the environment: OpenAI (OPENAI_API_KEY, or \
OPENAI_BASE_URL for a compatible server such as Ollama or llama.cpp; OPENAI_MODEL), then \
Anthropic (ANTHROPIC_API_KEY; ANTHROPIC_MODEL); the first is the primary, the others fallbacks. \
Intents whose shape is a JSON Schema, `string`, or a built-in type (`int`, `double`, `bool`, \
`List<string>`, `DateOnly (yyyy-MM-dd)`, ...) run here; an intent that names a type of your \
program (`PurchaseRequest`) runs from that program.",
    after_help = EXIT_CODES,
    after_long_help = EXIT_CODES
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Load intent files as the library does and print every error, with file, intent and line.
    #[command(after_help = "Examples:
  intent check intents/              every .yaml, .yml and .json file of the folder
  intent check intents/orders.yaml   one file

Exit codes: 0 no error, 1 errors found, 3 the path is missing or has no intent file.")]
    Check {
        /// An intent file, or a folder of them.
        path: PathBuf,
    },

    /// Run one intent on one input and print the value, the issues, the attempts, usage and time.
    #[command(after_help = "Examples:
  intent run intents/ ticket-triage --input email.txt
  echo 'The site is down!' | intent run intents/ ticket-triage
  intent run intents/ ticket-triage --input order.json --input-json --json
  intent run intents/ ticket-title --input email.txt --provider anthropic --temperature 0
  intent run intents/ receipt-total --input note.txt --attach receipt.jpg --attach terms.pdf

The value goes to standard output (pretty JSON, one line with --json, plain text for a `string`
intent); the attempts, issues, usage and time go to standard error (all in the one line with --json).

Exit codes: 0 a value, 1 no value (the issues say why), 2 usage or input, 3 load, 4 configuration.")]
    Run {
        /// An intent file, or a folder of them.
        path: PathBuf,
        /// The intent's name.
        intent: String,
        /// The input: a file, or `-` for standard input (the default when it is not a terminal).
        #[arg(long, short, value_name = "FILE|-")]
        input: Option<PathBuf>,
        /// Read the input as JSON (sent as its JSON text) rather than as plain text.
        #[arg(long)]
        input_json: bool,
        /// Send an image or a PDF with the input (PNG, JPEG, GIF, WebP or PDF, told from its
        /// bytes); repeat it for several, sent in this order.
        #[arg(long, value_name = "FILE")]
        attach: Vec<PathBuf>,
        /// Print one line of JSON with the value, issues, attempts, usage and time.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        call: CallArgs,
    },

    /// Run every intent's `tests` and print a table per intent and the failures' differences.
    #[command(after_help = "Examples:
  intent test intents/
  intent test intents/ --filter triage --concurrency 2 --junit target/intent-tests.xml
  intent test intents/ --record tests/cassettes/intents.jsonl   ask the model, record the replies
  intent test intents/ --replay tests/cassettes/intents.jsonl   offline, from the recording

Exit codes: 0 every test passed, 1 a test failed, 2 usage (no test matches the filter),
3 load (an invalid intent or test), 4 configuration (no provider, an unusable cassette or report file).")]
    Test {
        /// An intent file, or a folder of them.
        path: PathBuf,
        /// Run only the tests whose intent's name or own name contains this text.
        #[arg(long, value_name = "NAME")]
        filter: Option<String>,
        /// Also write the results as JUnit XML, for CI systems.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// How many tests run at once.
        #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
        concurrency: u16,
        #[command(flatten)]
        call: CallArgs,
    },

    /// Run one intent on every row of a CSV, JSON Lines or Parquet file, writing the results as
    /// new columns next to the input's.
    #[command(after_help = "Examples:
  intent map intents/ ticket-triage --input tickets.csv --output triaged.csv
  intent map intents/ ticket-triage -i tickets.parquet -o triaged.parquet --columns subject,body
  intent map intents/ ticket-triage -i tickets.jsonl -o triaged.jsonl --state triage.state
  intent map intents/ ticket-triage -i tickets.parquet -o triaged.parquet --batch --state triage.state

Each row is sent as a JSON object of its columns (CSV cells as text, exactly as written), in
chunks of --chunk-size rows. A schema intent's object members become columns of their own,
any other answer one column named after the intent; `<intent>_issues` says why a row has none.
Failed rows are written, with their issues, never dropped. A summary (rows, failures, tokens,
cost with --price, time) goes to standard error.

Exit codes: 0 every row has a value, 1 some rows failed (the output is written), 2 usage or
input (a bad file, column or output path), 3 load, 4 configuration.")]
    Map(Box<MapArgs>),
}

/// `intent map`'s arguments (in their own module, with the command).
pub use crate::map::MapArgs;

/// How calls are made: the provider, the model, and a cassette to record or replay.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// Ask only this provider (`openai`, `anthropic`, or a name recorded in a cassette): no fallback.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Ask this model, whatever the intent file or the environment says.
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// The sampling temperature (0 makes replies repeatable on most models).
    #[arg(long, value_name = "T", value_parser = temperature)]
    pub temperature: Option<f32>,
    /// Record every request and reply to this cassette (JSON lines, started anew; no secret is
    /// written), asking the configured providers.
    #[arg(long, value_name = "CASSETTE", conflicts_with = "replay")]
    pub record: Option<PathBuf>,
    /// Answer from this cassette only, offline: no provider or key is needed.
    #[arg(long, value_name = "CASSETTE")]
    pub replay: Option<PathBuf>,
}

fn temperature(text: &str) -> Result<f32, String> {
    let value: f32 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if (0.0..=2.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is outside 0 to 2"))
    }
}

//! `intent map`: one intent over every row of a table file, the results written as new columns.
//!
//! The input is read in record batches ([`files`]), its rows sent in chunks through
//! `map_stream` (memory held to chunk size × concurrency rows and the batches they come from,
//! whatever the file's length) or, with `--batch`, through the provider's batch API. Results come
//! back in row order and are written batch by batch, next to the input's columns
//! ([`results`]), into a temporary file renamed over the output at the end, so a stopped run
//! leaves no half file. With `--state`, every answer is recorded as it arrives ([`journal`]); a
//! run started again with the same file skips the rows already answered.
//!
//! Built with the `map` feature (Arrow and Parquet lengthen the build); without it the command
//! says how to get it.

mod args;
#[cfg(feature = "map")]
mod files;
#[cfg(feature = "map")]
mod journal;
#[cfg(feature = "map")]
mod results;
#[cfg(feature = "map")]
mod run;

pub use args::MapArgs;
#[cfg(feature = "map")]
pub use run::{map_typed, MapFn};

use crate::exit::CliResult;

/// Runs `intent map`.
#[cfg(feature = "map")]
pub async fn map(args: &MapArgs) -> CliResult {
    run::map(args).await
}

/// Without the `map` feature: says how to get the command.
#[cfg(not(feature = "map"))]
pub async fn map(_args: &MapArgs) -> CliResult {
    Err(crate::exit::Failure::usage(
        "this `intent` was built without `intent map`; install it with `cargo install intent-cli --features map`",
    ))
}

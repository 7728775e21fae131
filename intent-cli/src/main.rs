//! `intent`: check, run and test intent files without writing Rust.
//!
//! ```text
//! intent check PATH
//! intent run PATH INTENT [--input FILE|-] [--input-json] [--json] [--provider NAME] [--model M]
//! intent test PATH [--filter NAME] [--junit FILE] [--concurrency N] [--record CASSETTE | --replay CASSETTE]
//! intent map PATH INTENT --input FILE --output FILE [--columns A,B] [--batch] [--state FILE]
//! ```
//!
//! See `intent --help` for the options, examples and exit codes.

mod check;
mod cli;
mod client;
mod exit;
mod input;
mod map;
mod run;
mod shapes;
mod test;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command};
use exit::Exit;

fn main() -> ExitCode {
    // A bug must still read as a message, not as a panic with a backtrace.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("intent: internal error: {what}{place}; please report it");
    }));
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("intent: cannot start the async runtime: {e}");
            return Exit::Internal.into();
        }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        runtime.block_on(async {
            match cli.command {
                Command::Check { path } => check::check(&path),
                Command::Run {
                    path,
                    intent,
                    input,
                    input_json,
                    attach,
                    json,
                    call,
                } => {
                    run::run(
                        &path,
                        &intent,
                        input.as_deref(),
                        &attach,
                        input_json,
                        json,
                        &call,
                    )
                    .await
                }
                Command::Test {
                    path,
                    filter,
                    junit,
                    concurrency,
                    call,
                } => {
                    let options = test::TestOptions {
                        filter,
                        junit,
                        concurrency: usize::from(concurrency),
                    };
                    test::test(&path, &options, &call).await
                }
                Command::Map(args) => map::map(&args).await,
            }
        })
    }));
    match outcome {
        Ok(Ok(exit)) => exit.into(),
        Ok(Err(failure)) => {
            eprintln!("error: {failure}");
            failure.exit.into()
        }
        Err(_) => Exit::Internal.into(),
    }
}

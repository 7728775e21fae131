//! Exit codes, and the error every command returns: a message and the code it exits with.

use std::fmt;
use std::process::ExitCode;

use intent_core::IntentError;

/// What the process exits with. Documented in `intent --help`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything passed.
    Ok = 0,
    /// A test failed, `run` got no value, or `check` found an error in the files.
    Failed = 1,
    /// The command line is wrong: an unknown option or intent, unreadable or invalid input, an
    /// intent the command line cannot run, a filter that matches no test.
    Usage = 2,
    /// The intent files could not be loaded: a missing path, a folder with no intent file, an
    /// invalid intent or test.
    Load = 3,
    /// No provider is configured, or a provider, cassette or report file is unusable.
    Config = 4,
    /// A bug in this program (reported without a backtrace).
    Internal = 70,
}

/// The exit codes, as `--help` lists them.
pub const EXIT_CODES: &str = "Exit codes:
  0  everything passed
  1  a test failed, `run` got no value, or `check` found an error in the files
  2  usage: a bad option or argument, an unknown intent, unreadable or invalid input,
     an intent the command line cannot run, a filter that matches no test
  3  the intent files could not be loaded (missing path, no intent file, invalid intent or test)
  4  configuration: no provider configured, or a provider, cassette or report file unusable
  70 internal error";

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// A command that did not succeed: what to print, and the code to exit with.
#[derive(Debug)]
pub struct Failure {
    pub exit: Exit,
    pub message: String,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Self {
        Failure {
            exit,
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Failure::new(Exit::Usage, message)
    }

    pub fn config(message: impl Into<String>) -> Self {
        Failure::new(Exit::Config, message)
    }

    /// A library error, with the code its kind calls for.
    pub fn from_intent(error: IntentError) -> Self {
        let exit = match &error {
            IntentError::Catalog(_) => Exit::Load,
            IntentError::Config(_) | IntentError::Provider(_) => Exit::Config,
            IntentError::InputTooLong { .. }
            | IntentError::InputSerialization(_)
            | IntentError::Attachment(_) => Exit::Usage,
            _ => Exit::Failed,
        };
        Failure::new(exit, error.to_string())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub type CliResult<T = Exit> = Result<T, Failure>;

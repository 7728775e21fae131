//! Integration tests: catalog (one binary, one module per theme).

mod broken;
mod hostile;
mod intent_tests;
mod run;

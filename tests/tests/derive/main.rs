//! Integration tests: derive (one binary, one module per theme).

mod agreement;
mod golden;
mod odd_types;
mod ui;

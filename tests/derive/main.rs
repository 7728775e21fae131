//! Integration tests: derive (one binary, one module per theme).

mod agreement;
mod golden;
mod odd_types;
mod resolved_names;
mod rule_table;
mod serde_other;
mod ui;

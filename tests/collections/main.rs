//! Integration tests: collections (one binary, one module per theme).

mod attachments;
mod attachments_wire;
mod each;
mod scale;
#[cfg(feature = "tables")]
mod tables;
mod values;

//! Integration tests: collections (one binary, one module per theme).

mod attachments;
mod each;
mod scale;
mod values;

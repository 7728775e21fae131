//! Integration tests: collections (one binary, one module per theme).

mod each;
mod scale;
mod values;

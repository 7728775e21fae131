//! Integration tests: reader (one binary, one module per theme).

mod common;
mod corpus;
mod props;
mod typed_output;

//! Integration tests: reader (one binary, one module per theme).

mod corpus;
mod no_wrong_value;
mod peer_corpus;
mod props;
mod typed_output;

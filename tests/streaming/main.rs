//! Integration tests: streamed calls (one binary, one module per theme).

mod calls;
mod collections;
mod elements;
mod located;
mod located_collections;
mod typed_partials;
mod wire;

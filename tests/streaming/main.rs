//! Integration tests: streamed calls (one binary, one module per theme).

mod calls;
mod collections;
mod elements;
mod located;
mod typed_partials;
mod wire;

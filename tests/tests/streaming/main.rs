//! Integration tests: streamed calls (one binary, one module per theme).

mod calls;
mod collections;
mod elements;
mod located;
mod typed_partials;
mod wire;

// The streaming HTTP server the provider tests use (pieces, holds, drops, closes seen).
#[allow(dead_code)]
#[path = "../providers/sse_server.rs"]
mod sse_server;

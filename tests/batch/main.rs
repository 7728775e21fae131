//! Integration tests: batch runs through the providers' batch APIs, against a stateful batch
//! server on 127.0.0.1, and `map_stream`.

mod attachments;
mod cycle;
mod resume;
mod stream;

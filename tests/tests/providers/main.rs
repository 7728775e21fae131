//! Integration tests: providers (one binary, one module per theme).

mod anthropic;
mod fallback;
mod odd_replies;
mod openai;
mod secrets;
mod transport;

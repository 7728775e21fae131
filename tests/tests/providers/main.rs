//! Integration tests: providers (one binary, one module per theme).

mod anthropic;
mod fallback;
mod gemini;
mod odd_replies;
mod openai;
mod reasoning;
mod redirects;
mod responses;
mod secrets;
mod support;
mod transport;

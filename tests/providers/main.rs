//! Integration tests: providers (one binary, one module per theme).

mod anthropic;
mod anthropic_stream;
mod attachments;
mod attempt_reasoning;
#[cfg(feature = "bedrock")]
mod bedrock;
mod capabilities;
mod conformance;
mod escalation;
mod fallback;
mod gemini;
mod logprobs;
mod odd_replies;
mod openai;
mod openai_stream;
mod prompt_caching;
mod reasoning;
mod redirects;
mod responses;
mod sampling;
mod scripted_stream;
mod secrets;
mod step_down;
mod stream_faults;
mod stream_step_down;
mod transport;

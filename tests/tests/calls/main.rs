//! Integration tests: calls (one binary, one module per theme).

mod attachments;
mod cache;
mod empty_lists;
mod input_before_any_call;
mod input_serialization;
mod judge;
mod limits;
mod observer;
mod replay;
mod shared_request;
mod tracing_spans;

//! Integration tests: calls (one binary, one module per theme).

mod attachments;
mod bound_answers;
mod cache;
mod copied_examples;
mod empty_lists;
mod honest_limits;
mod input_before_any_call;
mod input_serialization;
mod judge;
mod limits;
mod observer;
mod options_precedence;
mod replay;
mod rules_up_front;
mod shared_request;
mod tracing_spans;

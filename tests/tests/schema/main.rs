//! Integration tests: schema (one binary, one module per theme).

mod make_strict;
mod prompt_golden;
mod prompt_plan;
mod runtime_envelope;
mod runtime_verify;
mod support;

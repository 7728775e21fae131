//! Integration tests: schema (one binary, one module per theme).

mod conformance;
mod instances;
mod make_strict;
mod maskbench;
mod prompt_golden;
mod prompt_plan;
mod runtime_envelope;
mod runtime_verify;

//! Integration tests: running in production (rate limits, the providers' rate-limit headers,
//! cost), one module per theme.

mod cost;
mod headers;
mod pacing;
mod real_time;

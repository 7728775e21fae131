//! Fixtures shared by the benchmarks: a local HTTP server, the result types measured, reply texts
//! of a chosen size, and the small statistics the report prints.
//!
//! The benchmarks compare the library with the code a user would write without it, side by side in
//! the same run, because the machines they run on are shared and absolute times are not stable.

pub mod call;
pub mod collection;
pub mod load;
pub mod measure;
pub mod prompt;
pub mod replies;
pub mod server;
pub mod types;

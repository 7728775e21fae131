//! Answer quality on a real model.
//!
//! Runs a case set (such as the development set's `cases.json`, or this crate's `cases/trust.json`)
//! against a model, each case through its kind's result type three times: plain (the members
//! alone), ruled (with the member rules and docs a careful user would add, samples such as
//! `such as A-1192` included) and grounded (the ruled type with the members a reader copies from
//! the input marked `from_input`). Each run is written as JSON lines (`id`, `output`,
//! `error`, `calls`, `tokens_in`, `tokens_out`, the form the case set's `score.py` reads) and
//! scored here the same way, side by side.
//!
//! ```text
//! cargo run --release -p intent-quality -- ../shared/quality-dev/cases.json --out target/quality
//! ```
//!
//! The model is the OpenAI-compatible server configured in the environment (`OPENAI_BASE_URL`,
//! `OPENAI_API_KEY`, `OPENAI_MODEL`), else `INTENT_LLM_BASE_URL`, else the local model that
//! `scripts/local-llm/start.sh` starts.
#![warn(missing_docs)]

mod cases;
mod kinds;
mod report;
mod run;
mod score;

pub use cases::{Case, CaseSet};
pub use kinds::{grounded, plain, ruled, KINDS};
pub use report::side_by_side;
pub use run::{case_options, run_case, run_set, Row, Variant};
pub use score::{score_case, score_rows, Summary};

/// Writes rows as JSON lines.
///
/// ```
/// let rows = vec![intent_quality::Row { id: "a".into(), output: None, error: Some("no".into()), calls: 1, tokens_in: 1, tokens_out: 0, retried_on: vec![] }];
/// let text = intent_quality::to_json_lines(&rows);
/// assert_eq!(text.lines().count(), 1);
/// ```
pub fn to_json_lines(rows: &[Row]) -> String {
    let mut out = String::new();
    for row in rows {
        // A row of strings, numbers and JSON values always serializes.
        if let Ok(line) = serde_json::to_string(row) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

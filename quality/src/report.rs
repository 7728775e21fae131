//! The side-by-side report of a case set's runs (plain, ruled, grounded).

use std::fmt::Write;

use crate::run::Variant;
use crate::score::Summary;

/// A row of the table: its name, and how a run's cell reads.
type Line = (&'static str, fn(&Summary) -> String);

/// The runs' totals in one table, a column per run, then each run's misses.
///
/// ```
/// use intent_quality::{side_by_side, Summary, Variant};
///
/// let plain = Summary { cases: 2, answered: 2, exact: 1, field: 0.75, ..Summary::default() };
/// let ruled = Summary { cases: 2, answered: 2, exact: 2, field: 1.0, ..Summary::default() };
/// let table = side_by_side(&[(Variant::Plain, plain), (Variant::Ruled, ruled)]);
/// assert!(table.contains("exact            1         2"));
/// ```
pub fn side_by_side(runs: &[(Variant, Summary)]) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:<16}", "");
    for (variant, _) in runs {
        let _ = write!(out, " {:<9}", variant.to_string());
    }
    out.push('\n');
    let rows: [Line; 7] = [
        ("cases", |s| s.cases.to_string()),
        ("answered", |s| s.answered.to_string()),
        ("exact", |s| s.exact.to_string()),
        ("field score", |s| format!("{:.3}", s.field)),
        ("calls", |s| s.calls.to_string()),
        ("tokens in", |s| s.tokens_in.to_string()),
        ("tokens out", |s| s.tokens_out.to_string()),
    ];
    for (name, cell) in rows {
        let _ = write!(out, "{name:<16}");
        for (_, summary) in runs {
            let _ = write!(out, " {:<9}", cell(summary));
        }
        out.push('\n');
    }
    for (variant, summary) in runs {
        if summary.misses.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{variant} misses:");
        for (id, score, output, error) in &summary.misses {
            let got = output
                .as_ref()
                .map_or_else(|| "null".to_owned(), |o| o.to_string());
            let got: String = got.chars().take(160).collect();
            let error: String = error.as_deref().unwrap_or("").chars().take(160).collect();
            let _ = writeln!(out, "  {id}: {score:.2} got={got} error={error}");
        }
    }
    out
}

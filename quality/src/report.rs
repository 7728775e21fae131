//! The side-by-side report of a plain and a ruled run.

use std::fmt::Write;

use crate::score::Summary;

/// The two runs' totals in one table, then each run's misses.
///
/// ```
/// use intent_quality::{side_by_side, Summary};
///
/// let plain = Summary { cases: 2, answered: 2, exact: 1, field: 0.75, ..Summary::default() };
/// let ruled = Summary { cases: 2, answered: 2, exact: 2, field: 1.0, ..Summary::default() };
/// let table = side_by_side(&plain, &ruled);
/// assert!(table.contains("exact            1         2"));
/// ```
pub fn side_by_side(plain: &Summary, ruled: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<16} {:<9} {:<9}", "", "plain", "ruled");
    let rows: [(&str, String, String); 7] = [
        ("cases", plain.cases.to_string(), ruled.cases.to_string()),
        (
            "answered",
            plain.answered.to_string(),
            ruled.answered.to_string(),
        ),
        ("exact", plain.exact.to_string(), ruled.exact.to_string()),
        (
            "field score",
            format!("{:.3}", plain.field),
            format!("{:.3}", ruled.field),
        ),
        ("calls", plain.calls.to_string(), ruled.calls.to_string()),
        (
            "tokens in",
            plain.tokens_in.to_string(),
            ruled.tokens_in.to_string(),
        ),
        (
            "tokens out",
            plain.tokens_out.to_string(),
            ruled.tokens_out.to_string(),
        ),
    ];
    for (name, p, r) in rows {
        let _ = writeln!(out, "{name:<16} {p:<9} {r:<9}");
    }
    for (label, summary) in [("plain", plain), ("ruled", ruled)] {
        if summary.misses.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{label} misses:");
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

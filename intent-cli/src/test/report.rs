//! The table per intent and the failures, for standard output.

use std::fmt::Write;
use std::time::Duration;

use indexmap::IndexMap;

use super::{TestResult, Verdict};
use crate::check::place;

#[derive(Default)]
struct Row {
    passed: usize,
    failed: usize,
    skipped: usize,
    tokens: u64,
    time: Duration,
}

/// The table, the failures' differences and the closing `N passed, N failed` line.
pub fn render(results: &[TestResult], elapsed: Duration) -> String {
    let mut rows: IndexMap<&str, Row> = IndexMap::new();
    for result in results {
        let row = rows.entry(result.intent.as_str()).or_default();
        match result.verdict {
            Verdict::Passed => row.passed += 1,
            Verdict::Failed(_) | Verdict::Error(_) => row.failed += 1,
            Verdict::Skipped(_) => row.skipped += 1,
        }
        row.tokens += result.tokens;
        row.time += result.elapsed;
    }
    let mut total = Row::default();
    for row in rows.values() {
        total.passed += row.passed;
        total.failed += row.failed;
        total.skipped += row.skipped;
        total.tokens += row.tokens;
        total.time += row.time;
    }
    let with_skipped = total.skipped > 0;
    let width = rows
        .keys()
        .map(|k| k.chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = String::new();
    let header = |out: &mut String| {
        let _ = write!(
            out,
            "{:<width$}  {:>6}  {:>6}",
            "intent", "passed", "failed"
        );
        if with_skipped {
            let _ = write!(out, "  {:>7}", "skipped");
        }
        let _ = writeln!(out, "  {:>8}  {:>8}", "tokens", "time");
    };
    let line = |out: &mut String, name: &str, row: &Row| {
        let _ = write!(out, "{name:<width$}  {:>6}  {:>6}", row.passed, row.failed);
        if with_skipped {
            let _ = write!(out, "  {:>7}", row.skipped);
        }
        let _ = writeln!(
            out,
            "  {:>8}  {:>6.1} s",
            row.tokens,
            row.time.as_secs_f64()
        );
    };
    header(&mut out);
    for (name, row) in &rows {
        line(&mut out, name, row);
    }
    if rows.len() > 1 {
        line(&mut out, "total", &total);
    }

    let failures: Vec<&TestResult> = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Failed(_) | Verdict::Error(_)))
        .collect();
    if !failures.is_empty() {
        out.push_str("\nFailures:\n");
        for result in failures {
            let _ = writeln!(
                out,
                "\n{} › {} ({})",
                result.intent,
                result.test,
                place(&result.file, result.line)
            );
            match &result.verdict {
                Verdict::Failed(differences) => {
                    for difference in differences {
                        let _ = writeln!(out, "  - {difference}");
                    }
                    if let Some(answer) = &result.answer {
                        let _ = writeln!(out, "  answer: {answer}");
                    }
                }
                Verdict::Error(why) => {
                    let _ = writeln!(out, "  - error: {why}");
                }
                _ => {}
            }
        }
    }
    let skipped: Vec<&TestResult> = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Skipped(_)))
        .collect();
    let mut reasons: Vec<&str> = Vec::new();
    for result in &skipped {
        if let Verdict::Skipped(why) = &result.verdict {
            if !reasons.contains(&why.as_str()) {
                reasons.push(why);
            }
        }
    }
    if !reasons.is_empty() {
        out.push_str("\nSkipped:\n");
        for why in reasons {
            let _ = writeln!(out, "  - {why}");
        }
    }
    // The closing line is `N passed, N failed[, N skipped]` alone, as CI systems read it.
    let _ = writeln!(
        out,
        "\nRan {} tests in {:.1} s.",
        results.len(),
        elapsed.as_secs_f64()
    );
    let _ = write!(out, "{} passed, {} failed", total.passed, total.failed);
    if with_skipped {
        let _ = write!(out, ", {} skipped", total.skipped);
    }
    out.push('\n');
    out
}

//! The JUnit XML report of `intent test --junit FILE`, as CI systems (GitHub Actions, GitLab,
//! Jenkins) read it: one `<testsuite>` per intent, one `<testcase>` per test, with `<failure>`
//! for an answer that missed its expectation, `<error>` for a provider failure and `<skipped>`
//! for an intent the command line cannot run.
//!
//! Written by hand rather than with an XML crate: the format is a dozen elements and attributes,
//! and the one subtle part, escaping, is more than an XML writer does: XML 1.0 cannot hold most
//! control characters even escaped, and a model's reply may contain them, so they are replaced
//! by U+FFFD here, along with the five escaped characters.

use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

use indexmap::IndexMap;

use super::{TestResult, Verdict};
use crate::exit::{CliResult, Failure};

/// Writes the report of `results` to `path` (its folder created when missing).
pub fn write(path: &Path, results: &[TestResult], elapsed: Duration) -> CliResult<()> {
    let xml = render(results, elapsed);
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(|e| cannot(path, &e))?;
    }
    std::fs::write(path, xml).map_err(|e| cannot(path, &e))
}

fn cannot(path: &Path, e: &std::io::Error) -> Failure {
    Failure::config(format!(
        "the JUnit report {} cannot be written: {e}",
        path.display()
    ))
}

#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    time: Duration,
}

impl Counts {
    fn add(&mut self, result: &TestResult) {
        self.tests += 1;
        self.time += result.elapsed;
        match result.verdict {
            Verdict::Passed => {}
            Verdict::Failed(_) => self.failures += 1,
            Verdict::Error(_) => self.errors += 1,
            Verdict::Skipped(_) => self.skipped += 1,
        }
    }

    fn attributes(&self, time: Duration) -> String {
        format!(
            r#"tests="{}" failures="{}" errors="{}" skipped="{}" time="{:.3}""#,
            self.tests,
            self.failures,
            self.errors,
            self.skipped,
            time.as_secs_f64()
        )
    }
}

/// The report as XML text.
pub fn render(results: &[TestResult], elapsed: Duration) -> String {
    let mut suites: IndexMap<&str, Vec<&TestResult>> = IndexMap::new();
    let mut total = Counts::default();
    for result in results {
        suites
            .entry(result.intent.as_str())
            .or_default()
            .push(result);
        total.add(result);
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        r#"<testsuites name="intent" {}>"#,
        total.attributes(elapsed)
    );
    for (intent, cases) in suites {
        let mut counts = Counts::default();
        cases.iter().for_each(|c| counts.add(c));
        let file = cases
            .first()
            .map(|c| c.file.display().to_string())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            r#"  <testsuite name="{}" {} file="{}">"#,
            escape(intent),
            counts.attributes(counts.time),
            escape(&file)
        );
        for case in cases {
            let line = case
                .line
                .map(|l| format!(r#" line="{l}""#))
                .unwrap_or_default();
            let _ = write!(
                out,
                r#"    <testcase name="{}" classname="{}" time="{:.3}" file="{}"{line}"#,
                escape(&case.test),
                escape(intent),
                case.elapsed.as_secs_f64(),
                escape(&case.file.display().to_string())
            );
            match &case.verdict {
                Verdict::Passed => out.push_str("/>\n"),
                Verdict::Failed(differences) => {
                    let first = differences.first().map(String::as_str).unwrap_or("failed");
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\" type=\"expectation\">{}</failure>",
                        escape(first),
                        escape(&differences.join("\n"))
                    );
                    if let Some(answer) = &case.answer {
                        let _ = writeln!(
                            out,
                            "      <system-out>{}</system-out>",
                            escape(&answer.to_string())
                        );
                    }
                    out.push_str("    </testcase>\n");
                }
                Verdict::Error(why) => {
                    let _ = writeln!(
                        out,
                        ">\n      <error message=\"{}\" type=\"provider\">{}</error>\n    </testcase>",
                        escape(why),
                        escape(why)
                    );
                }
                Verdict::Skipped(why) => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        escape(why)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// `text` as XML 1.0 character data or attribute value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push_str(&format!("&#{};", u32::from(c))),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_replaces_what_xml_cannot_hold() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("bell\u{7}\nline"), "bell\u{FFFD}&#10;line");
    }
}

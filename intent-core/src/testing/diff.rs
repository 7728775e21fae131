//! What a request with no recording is nearest to, and how it differs from it.
//!
//! A request is cut into named parts: the user message's sections (`## Intent`, `## Input (…)`,
//! `## Output requirements`, `## Examples`, `## Previous attempt`, …), the system prompt, the schema
//! (format, name and schema), and each option (max tokens, temperature, model). The nearest
//! recording is the one with the fewest differing parts (then the smallest difference in
//! characters); the message names each differing part with the recorded and the new text around
//! the first difference.

use super::entry::{Entry, RecordedRequest};
use super::CASSETTE_MODE_VAR;
use crate::request::AiRequest;

/// Characters shown before the first difference.
const BEFORE: usize = 30;
/// Characters shown from the first difference on.
const AFTER: usize = 50;

/// A request's parts: a name (what differs, in words) and its text.
fn parts(request: &RecordedRequest, default_model: Option<&str>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = request.user.as_str();
    if !rest.starts_with("## ") {
        let end = rest.find("\n\n## ").unwrap_or(rest.len());
        out.push(("user message".to_owned(), rest[..end].to_owned()));
        rest = rest[end..].trim_start_matches('\n');
    }
    for section in rest.split("\n\n## ").filter(|s| !s.is_empty()) {
        let section = section.strip_prefix("## ").unwrap_or(section);
        let (title, body) = section.split_once('\n').unwrap_or((section, ""));
        let name = match title {
            t if t.starts_with("Intent") => "intent".to_owned(),
            // The input's label is part of the input: `## Input (string)`.
            t if t.starts_with("Input") => {
                out.push(("input".to_owned(), format!("({}) {body}", label(t))));
                continue;
            }
            "Examples" => "options: examples".to_owned(),
            other => other.to_ascii_lowercase(),
        };
        out.push((name, body.to_owned()));
    }
    out.push((
        "options: system prompt (system instructions)".to_owned(),
        request.system.clone(),
    ));
    let schema = request
        .schema
        .as_ref()
        .map(|s| s.to_string())
        .unwrap_or_else(|| "none".to_owned());
    out.push((
        "schema".to_owned(),
        format!("{} {} {schema}", request.format, request.schema_name),
    ));
    let shown = |v: Option<String>| v.unwrap_or_else(|| "none".to_owned());
    out.push((
        "options: max_output_tokens".to_owned(),
        shown(request.max_output_tokens.map(|t| t.to_string())),
    ));
    out.push((
        "options: temperature".to_owned(),
        shown(request.temperature.map(|t| t.to_string())),
    ));
    out.push((
        "options: model".to_owned(),
        shown(request.model.clone().or(default_model.map(str::to_owned))),
    ));
    out
}

fn label(title: &str) -> &str {
    title
        .split_once('(')
        .map_or("", |(_, rest)| rest.trim_end_matches(')'))
}

/// One differing part.
struct Difference {
    name: String,
    recorded: Option<String>,
    now: Option<String>,
}

/// The differing parts of two requests, and a size of their difference in characters.
fn compare(now: &[(String, String)], recorded: &[(String, String)]) -> (Vec<Difference>, usize) {
    let mut differences = Vec::new();
    let mut size = 0;
    for (name, text) in now {
        match recorded.iter().find(|(n, _)| n == name) {
            Some((_, old)) if old == text => {}
            old => {
                let old = old.map(|(_, t)| t.clone());
                size += distance(old.as_deref().unwrap_or(""), text);
                differences.push(Difference {
                    name: name.clone(),
                    recorded: old,
                    now: Some(text.clone()),
                });
            }
        }
    }
    for (name, text) in recorded {
        if !now.iter().any(|(n, _)| n == name) {
            size += text.len();
            differences.push(Difference {
                name: name.clone(),
                recorded: Some(text.clone()),
                now: None,
            });
        }
    }
    (differences, size)
}

/// The characters between the common prefix and the common suffix, in the longer text.
fn distance(a: &str, b: &str) -> usize {
    let prefix = common_prefix(a, b);
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    a.len().max(b.len()) - suffix.min(a.len().min(b.len()))
}

/// The length in bytes of the common prefix, at a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i)
}

/// `text` around byte `at`, on one line.
fn excerpt(text: &str, at: usize) -> String {
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(BEFORE - 1)
        .map_or(0, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .nth(AFTER)
        .map_or(text.len(), |(i, _)| at + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&text[start..end]);
    if end < text.len() {
        out.push('…');
    }
    format!("{out:?}")
}

fn show(difference: &Difference) -> String {
    match (&difference.recorded, &difference.now) {
        (Some(old), Some(new)) => {
            let at = common_prefix(old, new);
            format!(
                "  - {}: recorded {}, now {}",
                difference.name,
                excerpt(old, at),
                excerpt(new, at)
            )
        }
        (Some(old), None) => format!(
            "  - {}: recorded {}, now absent",
            difference.name,
            excerpt(old, 0)
        ),
        (None, Some(new)) => format!(
            "  - {}: not recorded, now {}",
            difference.name,
            excerpt(new, 0)
        ),
        (None, None) => format!("  - {}", difference.name),
    }
}

/// The message for a request to `provider` that has no recording among the `entries` of the
/// cassette at `path` (each with the 1-based line it was read from).
pub(crate) fn describe_miss(
    path: &std::path::Path,
    entries: &[(usize, Entry)],
    provider: &str,
    default_model: Option<&str>,
    request: &AiRequest,
) -> String {
    let path = path.display();
    let fix = format!(
        "record it with {CASSETTE_MODE_VAR}=record-missing (or {CASSETTE_MODE_VAR}=record to record every request again)"
    );
    let own: Vec<&(usize, Entry)> = entries
        .iter()
        .filter(|(_, e)| e.provider == provider)
        .collect();
    if own.is_empty() {
        let mut names: Vec<&str> = entries.iter().map(|(_, e)| e.provider.as_str()).collect();
        names.dedup();
        return if names.is_empty() {
            format!("the cassette {path} has no recording; {fix}")
        } else {
            format!(
                "the cassette {path} has no recording for the provider `{provider}` (it has: {}); {fix}",
                names.join(", ")
            )
        };
    }
    let now = parts(&super::entry::RecordedRequest::of(request), default_model);
    let mut nearest: Option<(usize, Vec<Difference>, (usize, usize))> = None;
    for (line, entry) in own {
        let recorded = parts(&entry.request, entry.default_model.as_deref());
        let (differences, size) = compare(&now, &recorded);
        let score = (differences.len(), size);
        if nearest.as_ref().is_none_or(|(_, _, best)| score < *best) {
            nearest = Some((*line, differences, score));
        }
    }
    let Some((line, differences, _)) = nearest else {
        return format!("the cassette {path} has no recording for this request; {fix}");
    };
    if differences.is_empty() {
        return format!(
            "the cassette {path} has no recording for this request to `{provider}`; the nearest recording (line {line}) shows the same prompts, schema and options, so it differs in what a cassette does not show (such as attachments); {fix}"
        );
    }
    let names: Vec<&str> = differences.iter().map(|d| d.name.as_str()).collect();
    let details: Vec<String> = differences.iter().map(show).collect();
    format!(
        "the cassette {path} has no recording for this request to `{provider}`; the nearest recording (line {line}) differs in {}:\n{}\n{fix}",
        names.join(", "),
        details.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_is_cut_into_named_parts() {
        let mut request = AiRequest::new(
            "system",
            "## Intent\nCount.\n\n## Input (string)\na, b\n\n## Output requirements\nJSON.",
        );
        request.temperature = Some(0.0);
        let parts = parts(&RecordedRequest::of(&request), Some("m"));
        let names: Vec<&str> = parts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            &names[..4],
            [
                "intent",
                "input",
                "output requirements",
                "options: system prompt (system instructions)"
            ]
        );
        assert_eq!(parts[1].1, "(string) a, b");
        assert!(parts.contains(&("options: model".to_owned(), "m".to_owned())));
        assert!(parts.contains(&("options: temperature".to_owned(), "0".to_owned())));
    }

    #[test]
    fn an_excerpt_shows_the_first_difference_on_one_line() {
        let old = "Dear support team, the customer ordered 40 units of A-1192 on Monday.\nThanks";
        let new = "Dear support team, the customer ordered 41 units of A-1192 on Monday.\nThanks";
        let at = common_prefix(old, new);
        assert_eq!(
            excerpt(old, at),
            r#""…t team, the customer ordered 40 units of A-1192 on Monday.\nThanks""#
        );
        assert_eq!(distance(old, new), 1);
        assert_eq!(
            excerpt("héllo wörld", common_prefix("héllo wörld", "héllo world")),
            "\"héllo wörld\""
        );
    }
}

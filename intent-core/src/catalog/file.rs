//! Reading one intent file (YAML or JSON) into its raw intents, with the line of every parse error.

use std::path::Path;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::error::CatalogError;
use super::rules::RawRules;

/// The largest intent file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The deepest nesting of flow lists and mappings (`[..]`, `{..}`) a YAML intent file may have.
/// The YAML parser's work grows with the square of the nesting, so deeper text is refused before
/// it is parsed.
pub const MAX_YAML_NESTING: usize = 256;

/// An intent file's format, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Json,
    Yaml,
}

impl Format {
    /// The format of a file named `path`, or `None` for another extension.
    pub(crate) fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "json" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            _ => None,
        }
    }
}

/// True when `path` names an intent file by its extension (`.json`, `.yaml` or `.yml`, in any
/// case): the files [`Catalog::load`](super::Catalog::load) reads from a folder.
///
/// ```
/// use intent_core::catalog::is_intent_file;
///
/// assert!(is_intent_file("intents/orders.YAML".as_ref()));
/// assert!(!is_intent_file("intents/README.md".as_ref()));
/// ```
pub fn is_intent_file(path: &Path) -> bool {
    Format::of(path).is_some()
}

/// A whole intent file.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with one key, `intents`, holding the list of intents"
)]
pub(crate) struct RawFile {
    pub(crate) intents: Vec<RawIntent>,
}

/// One intent as written.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "an intent: a mapping with `name`, `intent`, `shape` and optional `rules`, `examples`, `tests`, `expectedOutputDescription`, `systemInstructions`, `maxOutputTokens`, `temperature`, `model`, `provider` and `answerChecks`"
)]
pub(crate) struct RawIntent {
    pub(crate) name: String,
    pub(crate) intent: String,
    pub(crate) shape: Value,
    #[serde(default)]
    pub(crate) rules: IndexMap<String, RawRules>,
    #[serde(default)]
    pub(crate) examples: Vec<RawExample>,
    #[serde(default)]
    pub(crate) tests: Vec<RawTest>,
    pub(crate) expected_output_description: Option<String>,
    pub(crate) system_instructions: Option<String>,
    pub(crate) max_output_tokens: Option<u32>,
    /// The sampling temperature, 0 to 2.
    pub(crate) temperature: Option<f32>,
    pub(crate) model: Option<String>,
    pub(crate) provider: Option<String>,
    /// Which checks question a plausible answer (`AnswerChecks`); every one left out is on.
    #[serde(alias = "answer_checks")]
    pub(crate) answer_checks: Option<RawAnswerChecks>,
}

/// An intent's `answerChecks` as written: each check on unless set to `false`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping with any of `copiedExamples`, `sampleValues`, `ruleBounds` and `emptyLists`, each true or false"
)]
pub(crate) struct RawAnswerChecks {
    #[serde(alias = "copied_examples")]
    copied_examples: Option<bool>,
    #[serde(alias = "sample_values")]
    sample_values: Option<bool>,
    #[serde(alias = "rule_bounds")]
    rule_bounds: Option<bool>,
    #[serde(alias = "empty_lists")]
    empty_lists: Option<bool>,
}

impl RawAnswerChecks {
    /// The checks, each on unless the file turns it off.
    pub(crate) fn checks(&self) -> crate::options::AnswerChecks {
        let on = |set: Option<bool>| set.unwrap_or(true);
        crate::options::AnswerChecks {
            copied_examples: on(self.copied_examples),
            sample_values: on(self.sample_values),
            rule_bounds: on(self.rule_bounds),
            empty_lists: on(self.empty_lists),
        }
    }
}

/// One example as written: text is taken as it is, anything else as compact JSON.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an example: a mapping with `input` and `output`"
)]
pub(crate) struct RawExample {
    pub(crate) input: Value,
    pub(crate) output: Value,
}

/// One test as written: an input and what the answer must be.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a test: a mapping with `input`, one of `expected`, `checks` or `fails: true`, and an optional `name`"
)]
pub(crate) struct RawTest {
    pub(crate) name: Option<String>,
    pub(crate) input: Value,
    /// The whole value the answer must equal (`null` included, so it is read as present).
    #[serde(default, deserialize_with = "present")]
    pub(crate) expected: Option<Value>,
    /// Checks on members of the answer, by rule path.
    pub(crate) checks: Option<IndexMap<String, RawCheck>>,
    /// True when the call must end without a value.
    pub(crate) fails: Option<bool>,
}

/// The checks on one member of a test's answer.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "the checks on one member: a mapping with any of `equals`, `contains` and `matches`"
)]
pub(crate) struct RawCheck {
    #[serde(default, deserialize_with = "present")]
    pub(crate) equals: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) contains: Option<Value>,
    pub(crate) matches: Option<String>,
}

/// Reads a member that is present as `Some`, even when it is `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A parsed file, with its text kept for locating intents.
pub(crate) struct ParsedFile {
    pub(crate) text: String,
    pub(crate) intents: Vec<RawIntent>,
}

/// Reads and parses `path`.
pub(crate) fn read(path: &Path, format: Format) -> Result<ParsedFile, CatalogError> {
    let size = std::fs::metadata(path)
        .map_err(|e| CatalogError::new(path, format!("cannot be read: {e}")))?
        .len();
    if size > MAX_FILE_BYTES {
        return Err(CatalogError::new(
            path,
            format!(
                "the file has {size} bytes, more than the limit for an intent file ({MAX_FILE_BYTES} bytes, MAX_FILE_BYTES)"
            ),
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| CatalogError::new(path, format!("cannot be read as UTF-8 text: {e}")))?;
    parse(path, text, format)
}

/// Parses the text of an intent file.
pub(crate) fn parse(path: &Path, text: String, format: Format) -> Result<ParsedFile, CatalogError> {
    if text.trim().is_empty() {
        return Err(CatalogError::new(
            path,
            "the file is empty; write a mapping with an `intents` list",
        ));
    }
    if format == Format::Yaml {
        check_nesting(path, &text)?;
    }
    check_syntax(path, &text, format)?;
    let parsed: Result<RawFile, (String, Option<usize>, String)> = match format {
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(&text);
            let file: Result<RawFile, _> = serde_path_to_error::deserialize(&mut de);
            match file {
                Ok(file) => de.end().map(|()| file).map_err(|e| {
                    let line = Some(e.line()).filter(|l| *l > 0);
                    (String::new(), line, strip_location(&e.to_string()))
                }),
                Err(e) => {
                    let line = Some(e.inner().line()).filter(|l| *l > 0);
                    let message = strip_location(&e.inner().to_string());
                    Err((e.path().to_string(), line, message))
                }
            }
        }
        Format::Yaml => {
            let de = serde_yaml_ng::Deserializer::from_str(&text);
            serde_path_to_error::deserialize(de).map_err(|e| {
                let line = e.inner().location().map(|l| l.line());
                let message = strip_location(&e.inner().to_string());
                (e.path().to_string(), line, message)
            })
        }
    };
    match parsed {
        Ok(file) => Ok(ParsedFile {
            text,
            intents: file.intents,
        }),
        Err((at, line, message)) => Err(parse_error(path, &text, format, &at, line, message)),
    }
}

/// Refuses YAML whose flow brackets nest deeper than [`MAX_YAML_NESTING`], counted outside quoted
/// strings and comments (a bracket inside a plain scalar may count too, which only makes the
/// count larger).
fn check_nesting(path: &Path, text: &str) -> Result<(), CatalogError> {
    let (mut depth, mut line) = (0usize, 1usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut comment = false;
    let mut previous = '\n';
    for c in text.chars() {
        if c == '\n' {
            line += 1;
            comment = false;
        }
        match quote {
            _ if comment => {}
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '#' if previous.is_whitespace() => comment = true,
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_YAML_NESTING {
                        return Err(CatalogError::new(
                            path,
                            format!("the file nests lists and mappings deeper than {MAX_YAML_NESTING} levels (MAX_YAML_NESTING); write a flatter file"),
                        )
                        .with_line(Some(line)));
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        previous = c;
    }
    Ok(())
}

/// Refuses text that is not YAML or JSON at all, or whose top level is not a mapping, before it
/// is read as intents (so that such errors are not reported as a member's).
fn check_syntax(path: &Path, text: &str, format: Format) -> Result<(), CatalogError> {
    let (language, mapping) = match format {
        Format::Json => match serde_json::from_str::<Value>(text) {
            Ok(value) => ("JSON", value.is_object()),
            Err(e) => {
                return Err(CatalogError::new(
                    path,
                    format!(
                        "the file is not valid JSON: {}",
                        strip_location(&e.to_string())
                    ),
                )
                .with_line(Some(e.line()).filter(|l| *l > 0)))
            }
        },
        Format::Yaml => match serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text) {
            Ok(value) => ("YAML", value.is_mapping()),
            Err(e) => {
                return Err(CatalogError::new(
                    path,
                    format!(
                        "the file is not valid YAML: {}",
                        strip_location(&e.to_string())
                    ),
                )
                .with_line(e.location().map(|l| l.line())))
            }
        },
    };
    if mapping {
        Ok(())
    } else {
        Err(CatalogError::new(
            path,
            format!("the file's {language} must be a mapping with one key, `intents`, holding the list of intents"),
        ))
    }
}

/// A parse error, naming the intent when the error is inside one.
fn parse_error(
    path: &Path,
    text: &str,
    format: Format,
    at: &str,
    line: Option<usize>,
    message: String,
) -> CatalogError {
    // The YAML parser writes (part of) the path before its message too.
    let message = match message.split_once(": ") {
        Some((prefix, rest)) if !prefix.is_empty() && at.starts_with(prefix) => rest.to_owned(),
        _ => message,
    };
    // An unknown key is the last step of the path, and the message names it.
    let at = match at.rsplit_once('.') {
        Some((parent, last)) if message.starts_with(&format!("unknown field `{last}`")) => parent,
        None if message.starts_with(&format!("unknown field `{at}`")) => "",
        _ => at,
    };
    // `intents[2].rules.qty` -> intent 2, `rules.qty` inside it.
    let inside = at
        .strip_prefix("intents[")
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(index, rest)| Some((index.parse::<usize>().ok()?, rest)));
    let mut error = CatalogError::new(path, String::new()).with_line(line);
    let (place, message) = match inside {
        Some((index, rest)) => {
            if let Some(name) = intent_name(text, format, index) {
                error = error.with_intent(name);
            } else {
                error.message = format!("intent {}: ", index + 1);
            }
            (rest.trim_start_matches('.').to_owned(), message)
        }
        None if at == "." || at.is_empty() => (String::new(), message),
        None => (at.to_owned(), message),
    };
    if !place.is_empty() {
        error.message.push_str(&format!("`{place}`: "));
    }
    error.message.push_str(&message);
    error
}

/// The name of the `index`-th intent, read from the file as plain data (when it can be).
fn intent_name(text: &str, format: Format, index: usize) -> Option<String> {
    let value: Value = match format {
        Format::Json => serde_json::from_str(text).ok()?,
        Format::Yaml => serde_yaml_ng::from_str(text).ok()?,
    };
    value
        .get("intents")?
        .get(index)?
        .get("name")?
        .as_str()
        .map(str::to_owned)
}

/// Removes the parser's own ` at line L column C` (the line is reported on its own).
fn strip_location(message: &str) -> String {
    static LOCATION: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r" at line \d+ column \d+").ok());
    match &*LOCATION {
        Some(location) => location.replace_all(message, "").into_owned(),
        None => message.to_owned(),
    }
}

/// The 1-based line where the intent `name` is declared, found by its `name` key at the
/// indentation of the intents' own names (a test's `name` is nested deeper).
pub(crate) fn line_of_intent(text: &str, name: &str) -> Option<usize> {
    let level = intent_indent(text);
    text.lines()
        .position(|line| indent(line) == level && declares_name(line, name))
        .or_else(|| text.lines().position(|line| declares_name(line, name)))
        .map(|i| i + 1)
}

/// The 1-based line of the `nth` (0-based) line at or after the intent's that contains `needle`,
/// before the next intent's declaration; the intent's own line when there is none.
pub(crate) fn nth_line_in_intent(
    text: &str,
    name: &str,
    needle: &str,
    nth: usize,
) -> Option<usize> {
    let start = line_of_intent(text, name)?;
    let mut seen = 0;
    for (i, line) in intent_lines(text, start) {
        if line.contains(needle) {
            if seen == nth {
                return Some(i + 1);
            }
            seen += 1;
        }
    }
    Some(start)
}

/// The 1-based line of the intent's `index`-th (0-based) test: its `input` key after the
/// intent's `tests` key; the intent's own line when it cannot be found.
pub(crate) fn line_of_test(text: &str, name: &str, index: usize) -> Option<usize> {
    let start = line_of_intent(text, name)?;
    // A key as YAML writes it at the start of a line (`tests:`, `- input:`), or as JSON anywhere.
    let key_at = |line: &str, key: &str| -> Option<usize> {
        let bare = line.trim_start().trim_start_matches(['-', ' ']);
        if bare.starts_with(&format!("{key}:")) {
            return Some(line.len() - bare.len());
        }
        line.find(&format!("\"{key}\""))
    };
    let mut in_tests = false;
    let mut seen = 0;
    for (i, line) in intent_lines(text, start) {
        let mut rest = line;
        if !in_tests {
            let Some(at) = key_at(line, "tests") else {
                continue;
            };
            in_tests = true;
            rest = &line[at + "tests".len()..];
        }
        while let Some(at) = key_at(rest, "input") {
            if seen == index {
                return Some(i + 1);
            }
            seen += 1;
            rest = &rest[at + "input".len()..];
        }
    }
    Some(start)
}

/// The lines of the intent declared at 1-based line `start` (0-based index and text), up to the
/// next intent's declaration.
fn intent_lines(text: &str, start: usize) -> impl Iterator<Item = (usize, &str)> {
    let level = text.lines().nth(start - 1).map_or(0, indent);
    text.lines()
        .enumerate()
        .skip(start - 1)
        .take_while(move |(i, line)| {
            *i + 1 == start || !(indent(line) <= level && line_declares_any_name(line))
        })
}

/// The indentation of the intents' names: the least of every line that declares a name.
fn intent_indent(text: &str) -> usize {
    text.lines()
        .filter(|line| line_declares_any_name(line))
        .map(indent)
        .min()
        .unwrap_or(0)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn name_value(line: &str) -> Option<&str> {
    let line = line.trim_start();
    let line = line.strip_prefix('-').map_or(line, str::trim_start);
    let line = line.strip_prefix('{').map_or(line, str::trim_start);
    let rest = line
        .strip_prefix("\"name\"")
        .or_else(|| line.strip_prefix("'name'"))
        .or_else(|| line.strip_prefix("name"))?;
    let rest = rest.trim_start().strip_prefix(':')?.trim();
    let rest = rest.trim_end_matches(',').trim_end();
    Some(rest)
}

fn line_declares_any_name(line: &str) -> bool {
    name_value(line).is_some_and(|v| !v.is_empty())
}

fn declares_name(line: &str, name: &str) -> bool {
    let Some(value) = name_value(line) else {
        return false;
    };
    let quoted = |quote: char| {
        value
            .strip_prefix(quote)
            .and_then(|rest| rest.split_once(quote))
            .map(|(inside, _)| inside)
    };
    match quoted('"').or_else(|| quoted('\'')) {
        Some(inside) => inside == name,
        None => value.split(" #").next().unwrap_or(value).trim() == name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_line_of_an_intent_in_yaml_and_json() {
        let yaml =
            "intents:\n  - name: a\n    intent: x\n  - name: \"b\"\n    rules:\n      qty: {}\n";
        assert_eq!(line_of_intent(yaml, "b"), Some(4));
        assert_eq!(nth_line_in_intent(yaml, "b", "qty", 0), Some(6));
        assert_eq!(nth_line_in_intent(yaml, "a", "qty", 0), Some(2));
        let json = "{\"intents\": [\n  {\"name\": \"a\",\n   \"intent\": \"x\"},\n  {\"name\": \"b\", \"intent\": \"y\"}\n]}";
        assert_eq!(line_of_intent(json, "a"), Some(2));
        assert_eq!(line_of_intent(json, "b"), Some(4));
    }

    #[test]
    fn a_tests_names_do_not_end_its_intent() {
        let yaml = "intents:\n  - name: a\n    tests:\n      - name: b\n        input: x\n      - input: y\n    rules:\n      qty: {}\n  - name: b\n    intent: y\n";
        assert_eq!(line_of_intent(yaml, "b"), Some(9));
        assert_eq!(nth_line_in_intent(yaml, "a", "qty", 0), Some(8));
        assert_eq!(line_of_test(yaml, "a", 0), Some(5));
        assert_eq!(line_of_test(yaml, "a", 1), Some(6));
        assert_eq!(line_of_test(yaml, "a", 2), Some(2));
        let json = "{\"intents\": [\n  {\"name\": \"a\", \"tests\": [\n    {\"input\": \"x\",\n     \"fails\": true},\n    {\"input\": \"y\"}]}\n]}";
        assert_eq!(line_of_test(json, "a", 0), Some(3));
        assert_eq!(line_of_test(json, "a", 1), Some(5));
    }

    #[test]
    fn strips_the_parsers_location() {
        assert_eq!(
            strip_location("unknown field `x` at line 3 column 5"),
            "unknown field `x`"
        );
    }
}

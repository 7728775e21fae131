//! 11,305 real-world JSON schemas with their valid and invalid instances (JSONSchemaBench's
//! MaskBench set, `shared/corpora/maskbench.jsonl.xz`): every instance given as a model reply
//! through `client.transform` and through an intent file, and what each provider's strict mode
//! does with the strict copy `build_envelope_from_schema` makes of each schema.
//!
//! - No invalid instance may be accepted; a valid one is accepted with an equal value, or refused
//!   for a reason listed in [`VALID_REFUSED`]; a schema the library cannot send or check is
//!   refused before anything is sent, and counted by what the refusal names.
//! - Strict mode, per provider: OpenAI's and Anthropic's by the subsets `providers.md` records
//!   (the vendor refuses the rest with a 400, and the call steps down to JSON-object mode, every
//!   reply verified as before); Gemini's by the library's own check of Gemini's dialect, observed
//!   through `GeminiProvider` against a local server (a schema it refuses is stepped down before
//!   sending).
//!
//! The file is read through `xz -dc` (xz-utils; `.ci/run` installs it where it is missing), as a
//! stream: the corpus is never copied or decompressed to disk. Ignored by default; `.ci/run` runs
//! it: `cargo test -p intent-tests --test schema -- --ignored maskbench --nocapture`, which prints
//! the figures the README quotes.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

use futures::StreamExt;
use intent_core::prelude::*;
use intent_core::schema::build_envelope_from_schema;
use intent_tests::corpora::same_value;
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::instances::{intent_file, through_intent_file, through_transform, Verdict};
use intent_tests::strict_schema::openai_strict_violations;

/// Why a valid instance may be refused: what the refusal says, and why the library refuses it.
const VALID_REFUSED: &[(&str, &str)] = &[];

/// One line of the corpus.
struct Case {
    id: String,
    schema: Value,
    tests: Vec<(bool, Value)>,
}

/// The corpus, line by line, through `xz -dc`.
fn cases() -> impl Iterator<Item = Case> {
    let path = intent_tests::corpora::path("maskbench.jsonl.xz");
    let mut child = Command::new("xz")
        .arg("-dc")
        .arg(&path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "`xz -dc {}` could not start ({e}); install xz-utils",
                path.display()
            )
        });
    let mut lines = BufReader::new(child.stdout.take().expect("xz's output")).lines();
    std::iter::from_fn(move || {
        let Some(line) = lines.next() else {
            // The whole file was read: xz must have ended well.
            let status = child.wait().expect("xz ends");
            assert!(
                status.success(),
                "`xz -dc {}` failed: {status}",
                path.display()
            );
            return None;
        };
        let line = line.expect("a line of the corpus");
        let mut case: Value = serde_json::from_str(&line).expect("a corpus line is JSON");
        let tests = case["tests"]
            .as_array()
            .expect("tests")
            .iter()
            .map(|t| (t["valid"].as_bool().expect("valid"), t["data"].clone()))
            .collect();
        Some(Case {
            id: case["id"].as_str().unwrap_or_default().to_owned(),
            schema: case["schema"].take(),
            tests,
        })
    })
}

/// A refusal's message with its JSON pointers taken out, so refusals group by what they name
/// (`` `type` at `/properties/x` `` groups with every other `type`).
fn kind_of_refusal(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let quoted = &after[..end];
        if quoted.starts_with('/') || quoted.starts_with('#') || quoted.is_empty() {
            out.push_str("`<pointer>`");
        } else {
            out.push('`');
            out.push_str(quoted);
            out.push('`');
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    // Values quoted in the message (`"abc" is not a "date"`) go too.
    let mut plain = String::with_capacity(out.len());
    let mut in_quote = false;
    for c in out.chars() {
        match c {
            '"' if !in_quote => {
                in_quote = true;
                plain.push_str("\"…");
            }
            '"' => {
                in_quote = false;
                plain.push('"');
            }
            _ if in_quote => {}
            c => plain.push(c),
        }
    }
    // Pointers written bare (`(at /properties/x)`) and counts (`1554 enum values`) go too.
    let words: Vec<String> = plain
        .split(' ')
        .map(|word| {
            let bare = word.trim_start_matches('(');
            if bare.starts_with('/') {
                let closing = if word.ends_with(')') { ")" } else { "" };
                format!("{}<pointer>{closing}", &word[..word.len() - bare.len()])
            } else if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit() || b == b',') {
                "N".to_owned()
            } else {
                word.to_owned()
            }
        })
        .collect();
    words.join(" ").chars().take(160).collect()
}

/// Counts by kind, with the first example of each.
#[derive(Default)]
struct Kinds(BTreeMap<String, (usize, String)>);

impl Kinds {
    fn add(&mut self, message: &str, example: String) {
        self.0
            .entry(kind_of_refusal(message))
            .or_insert((0, example))
            .0 += 1;
    }

    fn total(&self) -> usize {
        self.0.values().map(|(n, _)| n).sum()
    }

    fn print(&self, title: &str) {
        let mut kinds: Vec<_> = self.0.iter().collect();
        kinds.sort_by_key(|kind| std::cmp::Reverse(kind.1 .0));
        eprintln!("  {title}: {}", self.total());
        for (kind, (n, example)) in kinds.into_iter().take(15) {
            eprintln!("    {n:>6}  {kind}  (e.g. {example})");
        }
    }
}

/// The tally of one way in (transform, or an intent file).
#[derive(Default)]
struct Tally {
    schemas_not_sent: Kinds,
    instances_not_sent: usize,
    valid_accepted: usize,
    invalid_refused: usize,
    valid_refused: Kinds,
    changed: Vec<String>,
    invalid_accepted: Vec<String>,
}

impl Tally {
    fn take(&mut self, id: &str, valid: bool, instance: &Value, verdict: Verdict) {
        match (verdict, valid) {
            (Verdict::NotSent(_), _) => self.instances_not_sent += 1,
            (Verdict::Accepted(value), true) if same_value(&value, instance) => {
                self.valid_accepted += 1
            }
            (Verdict::Accepted(value), true) => self.changed.push(format!("{id}: read as {value}")),
            (Verdict::Refused(why), true) => self.valid_refused.add(&why, id.to_owned()),
            (Verdict::Refused(_), false) => self.invalid_refused += 1,
            (Verdict::Accepted(_), false) => {
                self.invalid_accepted.push(format!("{id}: {instance}"))
            }
        }
    }

    fn print(&self, title: &str) -> Vec<String> {
        eprintln!(
            "{title}: {} schemas refused before sending ({} instances); {} valid accepted with an equal value, {} invalid refused, {} valid refused, {} read to another value, {} invalid accepted",
            self.schemas_not_sent.total(),
            self.instances_not_sent,
            self.valid_accepted,
            self.invalid_refused,
            self.valid_refused.total(),
            self.changed.len(),
            self.invalid_accepted.len()
        );
        self.schemas_not_sent
            .print("refused before sending, by what the refusal names");
        self.valid_refused
            .print("valid instances refused, by what the refusal names");
        let mut wrong: Vec<String> = self
            .invalid_accepted
            .iter()
            .map(|c| format!("INVALID ACCEPTED: {c}"))
            .chain(
                self.changed
                    .iter()
                    .map(|c| format!("read to another value: {c}")),
            )
            .collect();
        for (kind, (n, example)) in &self.valid_refused.0 {
            if !VALID_REFUSED.iter().any(|(says, _)| kind.contains(says)) {
                wrong.push(format!(
                    "{n} valid refused, not listed: {kind} (e.g. {example})"
                ));
            }
        }
        wrong
    }
}

/// Where a provider's strict mode leaves a schema.
#[derive(Default)]
struct Strictness {
    strict: usize,
    stepped_down: Kinds,
}

/// What Anthropic's structured outputs keep (`providers.md`), beside annotations: a keyword
/// outside it, an object whose `additionalProperties` is not `false`, a recursive or external
/// `$ref` is refused with a 400.
const ANTHROPIC_KEYWORDS: &[&str] = &[
    "type",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "description",
    "title",
    "properties",
    "required",
    "items",
    "$defs",
    "definitions",
    "$ref",
    "additionalProperties",
    "format",
    // Annotations, which constrain nothing.
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
    "$anchor",
];

/// Why Anthropic's strict mode refuses `envelope`, if it does.
fn anthropic_refusal(envelope: &Value) -> Option<String> {
    let mut stack = vec![(envelope, String::new())];
    while let Some((node, path)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        for (key, child) in map {
            let at = format!("{path}/{key}");
            match key.as_str() {
                "properties" | "$defs" | "definitions" => {
                    if let Value::Object(named) = child {
                        stack.extend(named.iter().map(|(n, c)| (c, format!("{at}/{n}"))));
                    }
                }
                "items" | "anyOf" | "allOf" => match child {
                    Value::Array(list) => stack.extend(
                        list.iter()
                            .enumerate()
                            .map(|(i, c)| (c, format!("{at}/{i}"))),
                    ),
                    other => stack.push((other, at)),
                },
                "additionalProperties" if child != &Value::Bool(false) => {
                    return Some(format!(
                        "`additionalProperties` other than false at `{path}`"
                    ))
                }
                "$ref" if !child.as_str().is_some_and(|r| r.starts_with('#')) => {
                    return Some(format!("an external `$ref` at `{path}`"))
                }
                k if !ANTHROPIC_KEYWORDS.contains(&k) => {
                    return Some(format!("`{k}` at `{path}`, outside the subset"))
                }
                _ => {}
            }
        }
        let is_object = map.get("type") == Some(&Value::from("object"));
        if is_object && map.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Some(format!(
                "an object without `additionalProperties: false` at `{path}`"
            ));
        }
    }
    recursive_ref(envelope).map(|at| format!("a recursive `$ref` to `{at}`"))
}

/// A local `$ref` that reaches itself, if any.
fn recursive_ref(root: &Value) -> Option<String> {
    fn refs<'v>(node: &'v Value, out: &mut Vec<&'v str>) {
        match node {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    out.push(r);
                }
                map.iter()
                    .filter(|(k, _)| *k != "$defs" && *k != "definitions")
                    .for_each(|(_, v)| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut on_path: Vec<String> = Vec::new();
    let mut done = HashSet::new();
    let mut top = Vec::new();
    refs(root, &mut top);
    let mut stack: Vec<(String, bool)> = top.into_iter().map(|r| (r.to_owned(), false)).collect();
    while let Some((reference, leaving)) = stack.pop() {
        if leaving {
            on_path.pop();
            done.insert(reference);
            continue;
        }
        if on_path.contains(&reference) {
            return Some(reference);
        }
        if done.contains(&reference) {
            continue;
        }
        let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p)) else {
            continue;
        };
        on_path.push(reference.clone());
        stack.push((reference, true));
        let mut inner = Vec::new();
        refs(target, &mut inner);
        stack.extend(inner.into_iter().map(|r| (r.to_owned(), false)));
    }
    None
}

/// Why OpenAI's strict mode refuses `envelope`, if it does: the subset `providers.md` records,
/// its 120,000 characters of names and enum values included.
fn openai_refusal(envelope: &Value) -> Option<String> {
    if let Some(first) = openai_strict_violations(envelope).into_iter().next() {
        return Some(match first.split_once(": ") {
            Some((at, why)) => format!("{why} at `{at}`"),
            None => first,
        });
    }
    (envelope.to_string().len() > 120_000).then(|| "more than 120,000 characters".to_owned())
}

/// Whether Gemini's strict mode takes `schema`, as `GeminiProvider` decides before sending: the
/// refusal its attempt notes, if it stepped down. `server` answers every request.
async fn gemini_refusal(server: &str, schema: &Value) -> Option<String> {
    let provider = GeminiProvider::new("gemini-test-key").with_base_url(server);
    let client = IntentClient::new(provider);
    let result = client
        .transform("the input", "Answer.", schema.clone())
        .max_attempts(1)
        .await;
    let attempt = result.attempts().first()?;
    attempt
        .notices
        .iter()
        .find(|n| n.message.contains("refused the strict JSON schema"))
        .map(|n| {
            let why = n
                .message
                .split("cannot be sent to Gemini: ")
                .nth(1)
                .unwrap_or(&n.message);
            why.split(". The attempt")
                .next()
                .unwrap_or_default()
                .to_owned()
        })
}

/// What became of one schema and its instances.
struct Outcome {
    id: String,
    instances: usize,
    /// The strict copy's refusal, or each provider's refusal of it (OpenAI, Anthropic, Gemini).
    strict: Result<[Option<String>; 3], String>,
    transform: Vec<(bool, Value, Verdict)>,
    file: Result<Vec<(bool, Value, Verdict)>, String>,
    seconds: f64,
}

/// Runs one schema and its instances through everything the suite measures.
async fn run_case(case: Case, gemini: &str) -> Outcome {
    let started = Instant::now();
    let instances = case.tests.len();
    let strict = match build_envelope_from_schema(&case.schema) {
        Err(error) => Err(error.to_string()),
        Ok(envelope) => Ok([
            openai_refusal(&envelope),
            anthropic_refusal(&envelope),
            gemini_refusal(gemini, &case.schema).await,
        ]),
    };
    let mut transform = Vec::with_capacity(case.tests.len());
    for (valid, instance) in &case.tests {
        let verdict = through_transform(&case.schema, instance).await;
        transform.push((*valid, instance.clone(), verdict));
    }
    let file = match intent_file(&case.schema) {
        Err(why) => Err(why),
        Ok(catalog) => {
            let mut verdicts = Vec::with_capacity(case.tests.len());
            for (valid, instance) in case.tests {
                let verdict = through_intent_file(&catalog, &instance).await;
                verdicts.push((valid, instance, verdict));
            }
            Ok(verdicts)
        }
    };
    Outcome {
        instances,
        id: case.id,
        strict,
        transform,
        file,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Schemas run at once: enough to keep every core busy.
const IN_FLIGHT: usize = 8;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "reads shared/corpora/maskbench.jsonl.xz; run by .ci/run"]
async fn every_real_world_instance_is_accepted_or_refused_as_its_schema_says() {
    let started = Instant::now();
    let gemini = MockServer::builder()
        .disable_request_recording()
        .start()
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "{\"value\": null}"}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
        })))
        .mount(&gemini)
        .await;
    let uri = gemini.uri();

    let (mut schemas, mut instances) = (0, 0);
    let mut not_sendable = Kinds::default();
    let mut openai = Strictness::default();
    let mut anthropic = Strictness::default();
    let mut gemini_modes = Strictness::default();
    let mut transform = Tally::default();
    let mut file = Tally::default();
    let mut slowest: Vec<(f64, String)> = Vec::new();
    // Each schema on a task of its own, IN_FLIGHT at once; the outcomes taken in corpus order.
    let mut outcomes = futures::stream::iter(cases())
        .map(|case| {
            let uri = uri.clone();
            tokio::spawn(async move { run_case(case, &uri).await })
        })
        .buffered(IN_FLIGHT);
    while let Some(outcome) = outcomes.next().await {
        let outcome = outcome.expect("a schema's task ends");
        schemas += 1;
        instances += outcome.instances;
        let id = &outcome.id;
        match outcome.strict {
            Err(why) => not_sendable.add(&why, id.clone()),
            Ok(refusals) => {
                for (strictness, refusal) in [&mut openai, &mut anthropic, &mut gemini_modes]
                    .into_iter()
                    .zip(refusals)
                {
                    match refusal {
                        None => strictness.strict += 1,
                        Some(why) => strictness.stepped_down.add(&why, id.clone()),
                    }
                }
            }
        }
        let mut counted = false;
        for (valid, instance, verdict) in outcome.transform {
            if let (Verdict::NotSent(why), false) = (&verdict, counted) {
                transform.schemas_not_sent.add(why, id.clone());
                counted = true;
            }
            transform.take(id, valid, &instance, verdict);
        }
        match outcome.file {
            Err(why) => {
                file.schemas_not_sent.add(&why, id.clone());
                file.instances_not_sent += outcome.instances;
            }
            Ok(verdicts) => {
                for (valid, instance, verdict) in verdicts {
                    file.take(id, valid, &instance, verdict);
                }
            }
        }
        slowest.push((outcome.seconds, outcome.id));
        if slowest.len() > 64 {
            slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
            slowest.truncate(5);
        }
        if schemas % 1000 == 0 {
            eprintln!(
                "  ... {schemas} schemas, {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
    }
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    slowest.truncate(5);

    let sendable = schemas - not_sendable.total();
    eprintln!(
        "maskbench: {schemas} schemas, {instances} instances; {sendable} schemas have a strict copy (build_envelope_from_schema)"
    );
    not_sendable.print("no strict copy, by what the refusal names");
    for (name, strictness) in [
        ("OpenAI", &openai),
        ("Anthropic", &anthropic),
        ("Gemini", &gemini_modes),
    ] {
        eprintln!(
            "{name}: {} of {sendable} strict, {} stepped down to JSON-object mode",
            strictness.strict,
            strictness.stepped_down.total()
        );
        strictness
            .stepped_down
            .print("stepped down, by what is refused");
    }
    let mut wrong = transform.print("through transform");
    wrong.extend(file.print("through an intent file"));
    eprintln!(
        "maskbench took {:.1} s; the slowest schemas: {}",
        started.elapsed().as_secs_f64(),
        slowest
            .iter()
            .map(|(s, id)| format!("{id} {s:.2} s"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(schemas, 11_305, "the corpus holds 11,305 schemas");
    assert_eq!(instances, 37_011, "the corpus holds 37,011 instances");
    assert!(
        wrong.is_empty(),
        "{} findings:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

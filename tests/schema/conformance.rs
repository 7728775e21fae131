//! The official JSON Schema Test Suite (`shared/corpora/json-schema-test-suite/`, drafts 2020-12
//! and 7, the required tests and the optional ones): every test's instance given as a model reply
//! to a call shaped by the test's schema, through `client.transform` and through an intent file.
//! A valid instance must be accepted with an equal value, an invalid one refused; a schema the
//! library cannot send or check must be refused before anything is sent, naming why.
//!
//! What the library does otherwise on purpose is listed in [`DIVERGENCES`], each with why; a
//! divergence not listed fails the test, and so does a listed one that no longer happens.
//!
//! Ignored by default (the suite lives outside the project); `.ci/run` runs it:
//! `cargo test -p intent-tests --test schema -- --ignored conformance`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use intent_tests::corpora::same_value;
use serde_json::Value;

use crate::instances::{intent_file, through_intent_file, through_transform, Verdict};

/// Groups of the suite (`draft/file: group description`, a prefix) where the library takes a
/// valid instance otherwise than the suite says, and why. Nothing here accepts an invalid one.
const DIVERGENCES: &[(&str, &str)] = &[(
    "draft2020-12/format:",
    "`format` is asserted: a model asked for an email must give one. The required suite tests \
     format as an annotation only (an invalid email is valid there); the optional format tests, \
     which assert it, all pass",
)];

/// Schemas refused before anything is sent (counted apart; never a failure of the test): what the
/// refusal says, and why the library refuses such a schema.
const NOT_SENT: &[(&str, &str)] = &[
    (
        "boolean",
        "a boolean schema at the root (`true`: anything, `false`: nothing) is no shape to ask a \
         model for and no provider's strict mode takes it; give an object schema",
    ),
    (
        "names another document",
        "a `$ref` to another document (the suite's remotes) is never fetched: a call must not \
         depend on a third server, and no provider's strict mode takes one; the referenced \
         schema goes under `$defs`",
    ),
    (
        "Unknown meta-schema",
        "a `$schema` naming a meta-schema of its own (custom vocabularies) is none of the drafts \
         the verifier knows, and is not fetched",
    ),
];

/// The tally of one draft.
#[derive(Debug, Default)]
struct Tally {
    groups: usize,
    instances: usize,
    not_sent_groups: BTreeMap<String, String>,
    not_sent_instances: usize,
    valid_accepted: usize,
    invalid_refused: usize,
    /// `(case, instance, what happened)`.
    valid_refused: Vec<(String, String)>,
    invalid_accepted: Vec<(String, String)>,
    changed: Vec<(String, String)>,
}

/// The suite's files of `draft`, required then optional, by their path under the draft.
fn files(draft: &str) -> Vec<(String, Value)> {
    let root = intent_tests::corpora::path(&format!("json-schema-test-suite/tests/{draft}"));
    let mut found = Vec::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a suite folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                let text = std::fs::read_to_string(&path).expect("a suite file");
                let name = relative(&root, &path);
                found.push((name, serde_json::from_str(&text).expect("suite JSON")));
            }
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .trim_end_matches(".json")
        .replace('\\', "/")
}

fn listed<'l>(list: &'l [(&str, &str)], case: &str) -> Option<&'l str> {
    list.iter()
        .find(|(prefix, _)| case.starts_with(prefix))
        .map(|(_, why)| *why)
}

/// The schema of a group, naming its draft when it does not (the library reads a schema
/// without `$schema` as 2020-12, the current draft).
fn with_draft(mut schema: Value, draft: &str) -> Value {
    let uri = match draft {
        "draft7" => "http://json-schema.org/draft-07/schema#",
        _ => "https://json-schema.org/draft/2020-12/schema",
    };
    if let Value::Object(map) = &mut schema {
        map.entry("$schema").or_insert_with(|| Value::from(uri));
    }
    schema
}

async fn run_draft(draft: &str, through_file: bool) -> Tally {
    let mut tally = Tally::default();
    for (file, groups) in files(draft) {
        for group in groups.as_array().expect("a list of groups") {
            tally.groups += 1;
            let case = format!(
                "{draft}/{file}: {}",
                group["description"].as_str().unwrap_or_default()
            );
            let schema = with_draft(group["schema"].clone(), draft);
            let tests = group["tests"].as_array().expect("tests");
            tally.instances += tests.len();
            let catalog = if through_file {
                match intent_file(&schema) {
                    Ok(catalog) => Some(catalog),
                    Err(why) => {
                        tally.not_sent_groups.insert(case.clone(), why);
                        tally.not_sent_instances += tests.len();
                        continue;
                    }
                }
            } else {
                None
            };
            for test in tests {
                let instance = &test["data"];
                let valid = test["valid"].as_bool().expect("valid");
                let what = format!(
                    "{case} / {}",
                    test["description"].as_str().unwrap_or_default()
                );
                let verdict = match &catalog {
                    Some(catalog) => through_intent_file(catalog, instance).await,
                    None => through_transform(&schema, instance).await,
                };
                match (verdict, valid) {
                    (Verdict::NotSent(why), _) => {
                        tally.not_sent_groups.insert(case.clone(), why);
                        tally.not_sent_instances += 1;
                    }
                    (Verdict::Accepted(value), true) if same_value(&value, instance) => {
                        tally.valid_accepted += 1
                    }
                    (Verdict::Accepted(value), true) => tally
                        .changed
                        .push((what, format!("{instance} was read as {value}"))),
                    (Verdict::Refused(why), true) => tally
                        .valid_refused
                        .push((what, format!("{instance}: {why}"))),
                    (Verdict::Refused(_), false) => tally.invalid_refused += 1,
                    (Verdict::Accepted(value), false) => tally
                        .invalid_accepted
                        .push((what, format!("{instance} accepted as {value}"))),
                }
            }
        }
    }
    tally
}

/// Prints the tally and returns what is wrong with it.
fn judge(name: &str, tally: &Tally) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut not_sent_why: BTreeMap<String, usize> = BTreeMap::new();
    for (case, why) in &tally.not_sent_groups {
        match NOT_SENT.iter().find(|(says, _)| why.contains(says)) {
            Some((says, _)) => *not_sent_why.entry((*says).to_owned()).or_default() += 1,
            None => wrong.push(format!("not sent, not listed: {case}: {why}")),
        }
    }
    eprintln!(
        "{name}: {} groups, {} instances; {} groups ({} instances) refused before sending; \
         {} valid accepted with an equal value, {} invalid refused, {} valid refused, \
         {} read to another value, {} invalid accepted",
        tally.groups,
        tally.instances,
        tally.not_sent_groups.len(),
        tally.not_sent_instances,
        tally.valid_accepted,
        tally.invalid_refused,
        tally.valid_refused.len(),
        tally.changed.len(),
        tally.invalid_accepted.len(),
    );
    for (says, groups) in &not_sent_why {
        eprintln!("  refused before sending, {groups} groups, saying \"{says}\"");
    }
    for (case, what) in tally.valid_refused.iter().chain(&tally.changed) {
        match listed(DIVERGENCES, case) {
            Some(why) => eprintln!("  listed: {case}: {what} ({why})"),
            None => wrong.push(format!("valid refused or changed: {case}: {what}")),
        }
    }
    for (case, what) in &tally.invalid_accepted {
        wrong.push(format!("INVALID ACCEPTED: {case}: {what}"));
    }
    wrong
}

#[tokio::test]
#[ignore = "reads shared/corpora/json-schema-test-suite; run by .ci/run"]
async fn every_suite_instance_is_accepted_or_refused_as_the_suite_says() {
    let started = Instant::now();
    let mut wrong = Vec::new();
    let mut seen = String::new();
    for draft in ["draft2020-12", "draft7"] {
        for (path, through_file) in [("transform", false), ("intent file", true)] {
            let tally = run_draft(draft, through_file).await;
            assert!(
                tally.instances > 1000,
                "{draft} holds {} instances",
                tally.instances
            );
            assert_eq!(tally.invalid_accepted.len(), 0, "{draft} through {path}");
            wrong.extend(judge(&format!("{draft} through {path}"), &tally));
            let refused = tally.valid_refused.iter().map(|(c, w)| (c, w));
            for (case, why) in refused.chain(&tally.not_sent_groups) {
                seen.push_str(&format!("{case}\n{why}\n"));
            }
        }
    }
    eprintln!("the suite took {:.1} s", started.elapsed().as_secs_f64());
    // Every listed divergence still happens (else it is stale and goes).
    for (listed, _) in DIVERGENCES.iter().chain(NOT_SENT) {
        assert!(
            seen.contains(listed),
            "`{listed}` is listed but no longer happens"
        );
    }
    assert!(
        wrong.is_empty(),
        "{} cases the library takes otherwise than the suite says:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

//! The reader against other projects' malformed-reply corpora (`shared/corpora/peer-replies/`:
//! json_repair's and jsonrepair's test inputs, and BAML's parser tests with their schemas). Each
//! case gives a reply and what its project reads from it. The reader must never yield another
//! value than the one the text says: each reply it reads must read to the project's value (numbers
//! by value), or be refused. Where a project's value is a guess the text does not say (a
//! repair), the reader refuses; where the two disagree on what the text says, the case is listed
//! below with why.
//!
//! Ignored by default (the corpora live outside the project); `.ci/run` runs it:
//! `cargo test -p intent-tests --test reader -- --ignored peer_corpus`.

use std::collections::BTreeMap;

use intent_core::read::read_reply;
use intent_core::Intent;
use intent_tests::corpora::same_value;
use serde_json::Value;

/// Cases where the reader's value is not the project's, and why the reader's is what the text
/// says: `(case id, why)`.
const READS_OTHERWISE: &[(&str, &str)] = &[
    ("jr-198", "a single-quoted string holding a double quote says `\"`; json_repair finds nothing in it"),
    ("jr-201", "the member name holds a raw new line before its closing quote, as written; json_repair drops it"),
    ("jr-222", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-228", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-229", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-230", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-231", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-232", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-234", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-235", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-236", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-237", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-238", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-239", "the string ends with a new line before its closing quote, as written; json_repair drops it"),
    ("jr-278", "an empty member name is valid JSON; json_repair's strict mode refuses it"),
    ("jsr-241", "prose (`callback`) before the object, which the reader allows; jsonrepair refuses JSONP without parentheses"),
    ("jsr-392", "three equal objects on their own lines, no comma between them: one answer given three times, as a repeated answer is read; jsonrepair reads newline-delimited JSON as a list"),
    ("jsr-411", "prose (`foo`) after the object, which the reader allows; jsonrepair refuses it"),
    ("jsr-416", "a raw control character inside a string is kept as written (models write raw new lines and tabs); jsonrepair refuses it"),
    ("jsr-417", "a raw control character inside a string is kept as written (models write raw new lines and tabs); jsonrepair refuses it"),
];

/// What reading one case gave.
#[derive(Debug, Default)]
struct Tally {
    cases: usize,
    /// Read to the project's value.
    same: usize,
    /// Refused (the project repairs or guesses, or the project refuses too).
    refused: usize,
    /// Read to a value the project does not give: `(id, input, ours, theirs)`.
    other: Vec<(String, String, Value, Value)>,
    /// Read although the project finds no value (`expect: error` or `nothing`).
    read_where_refused: Vec<(String, String, Value)>,
}

fn load(file: &str) -> Vec<Value> {
    let path = intent_tests::corpora::path(&format!("peer-replies/{file}"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let corpus: Value = serde_json::from_str(&text).expect("the corpus is JSON");
    corpus["cases"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{} has no `cases`", path.display()))
}

/// Reads every case of a JSON repair corpus (`input`, `expect`, `expected`) as any JSON.
fn read_repair_corpus(file: &str) -> Tally {
    let info = <Value as Intent>::type_info();
    let mut tally = Tally::default();
    for case in load(file) {
        let id = case["id"].as_str().unwrap_or_default().to_owned();
        let input = case["input"].as_str().unwrap_or_default();
        tally.cases += 1;
        let read = read_reply::<Value>(&info, input);
        match (case["expect"].as_str(), read) {
            (_, Err(_)) => tally.refused += 1,
            (Some("value"), Ok(ours)) => {
                let theirs = &case["expected"];
                if same_value(&ours, theirs) {
                    tally.same += 1;
                } else {
                    tally
                        .other
                        .push((id, input.to_owned(), ours, theirs.clone()));
                }
            }
            (_, Ok(ours)) => tally.read_where_refused.push((id, input.to_owned(), ours)),
        }
    }
    tally
}

fn report(name: &str, tally: &Tally) -> Vec<String> {
    eprintln!(
        "{name}: {} cases, {} read as the project reads them, {} refused, {} read otherwise, {} read where the project finds no value",
        tally.cases,
        tally.same,
        tally.refused,
        tally.other.len(),
        tally.read_where_refused.len()
    );
    let listed: BTreeMap<&str, &str> = READS_OTHERWISE.iter().copied().collect();
    let mut unexplained = Vec::new();
    for (id, input, ours, theirs) in &tally.other {
        match listed.get(id.as_str()) {
            Some(why) => eprintln!("  {id}: {input:?} reads {ours}, the project {theirs}: {why}"),
            None => unexplained.push(format!(
                "{id}: {input:?} reads {ours}, but the project reads {theirs}"
            )),
        }
    }
    for (id, input, ours) in &tally.read_where_refused {
        match listed.get(id.as_str()) {
            Some(why) => eprintln!("  {id}: {input:?} reads {ours}, the project none: {why}"),
            None => unexplained.push(format!(
                "{id}: {input:?} reads {ours}, but the project finds no value"
            )),
        }
    }
    unexplained
}

#[test]
#[ignore = "reads shared/corpora/peer-replies; run by .ci/run"]
fn no_peer_reply_reads_to_another_value_than_its_text_says() {
    let mut unexplained = Vec::new();
    for file in ["json_repair.json", "jsonrepair.json"] {
        let tally = read_repair_corpus(file);
        assert!(tally.cases > 250, "{file} holds {} cases", tally.cases);
        unexplained.extend(report(file, &tally));
    }
    assert!(
        unexplained.is_empty(),
        "replies read to another value than the one their text says:\n{}",
        unexplained.join("\n")
    );
}

/// The corpus cases of the forms the reader once read wrong, and of the numbers it once refused.
#[test]
#[ignore = "reads shared/corpora/peer-replies; run by .ci/run"]
fn joined_strings_and_comma_separated_values_are_refused_and_points_read() {
    let info = <Value as Intent>::type_info();
    let cases: BTreeMap<String, Value> = load("jsonrepair.json")
        .into_iter()
        .map(|case| (case["id"].as_str().unwrap_or_default().to_owned(), case))
        .collect();
    let input = |id: &str| {
        cases[id]["input"]
            .as_str()
            .unwrap_or_else(|| panic!("{id} has no input"))
            .to_owned()
    };
    for (id, reason) in [
        ("jsr-351", "joined with `+`"),
        ("jsr-352", "joined with `+`"),
        ("jsr-353", "joined with `+`"),
        ("jsr-354", "joined with `+`"),
        ("jsr-393", "several values separated by commas"),
        ("jsr-394", "several values separated by commas"),
    ] {
        let issues =
            read_reply::<Value>(&info, &input(id)).expect_err(&format!("{id} must be refused"));
        assert!(
            issues[0].message.contains(reason),
            "{id}: {}",
            issues[0].message
        );
    }
    for id in ["jsr-106", "jsr-107", "jsr-327", "jsr-328"] {
        let read = read_reply::<Value>(&info, &input(id))
            .unwrap_or_else(|issues| panic!("{id} must be read: {issues:?}"));
        assert!(same_value(&read, &cases[id]["expected"]), "{id}: {read}");
    }
}

//! Broken intent files: each is refused at load with the file, the intent, the line and the reason.

use std::path::{Path, PathBuf};

use intent_core::catalog::Catalog;
use intent_core::IntentError;

fn broken(name: &str) -> PathBuf {
    intent_tests::fixture("catalogs/broken").join(name)
}

/// The error of loading `name`, as (file name, intent, line, message).
fn load_error(name: &str) -> (String, Option<String>, Option<usize>, String) {
    match Catalog::load(broken(name)) {
        Err(error) if error.catalog_error().is_some() => {
            assert!(matches!(error, IntentError::Catalog(_)));
            let error = error.catalog_error().expect("a catalog error");
            (
                error
                    .file
                    .strip_prefix(broken(""))
                    .unwrap_or(Path::new("?"))
                    .display()
                    .to_string(),
                error.intent.clone(),
                error.line,
                error.message.clone(),
            )
        }
        Err(other) => panic!("{name}: expected a catalog error, got {other}"),
        Ok(catalog) => panic!("{name}: loaded {} intents", catalog.len()),
    }
}

type Expected = (
    &'static str,
    Option<&'static str>,
    Option<usize>,
    &'static str,
);

/// Each broken file (or folder) and the exact error it loads with: file, intent, line, message.
const BROKEN: &[Expected] = &[
    ("unknown_key.yaml", Some("summary"), Some(3), "unknown field `intnet`, expected one of `name`, `intent`, `shape`, `rules`, `examples`, `tests`, `expectedOutputDescription`, `systemInstructions`, `maxOutputTokens`, `temperature`, `model`, `provider`"),
    ("unknown_rule_keyword.json", Some("count"), Some(7), "`rules.$`: unknown field `min`, expected one of `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`, `uniqueItems`, `enum`"),
    ("missing_intent.yaml", Some("summary"), Some(2), "missing field `intent`"),
    ("empty_intent.yaml", Some("summary"), Some(3), "`intent` is empty; write the instruction for the model"),
    ("invalid_regex.yaml", Some("order-line"), Some(7), "rule `sku`: `pattern` is not a valid regular expression (unclosed character class)"),
    ("rule_on_missing_property.json", Some("rating"), Some(8), "rule `comment`: the schema has no property `comment`; its properties are: stars"),
    ("rule_of_wrong_kind.yaml", Some("rating"), Some(7), "rule `stars`: text rules (`minLength`, `maxLength`, `pattern`) apply only to text: strings, characters, dates and times, UUIDs, URLs and enums of unit variants; `stars` is of type integer"),
    ("items_rule_on_object.json", Some("triage"), Some(6), "rule `meta[].a`: the schema at `meta` is not an array with `items`"),
    ("mixed_rule_kinds.yaml", Some("order-line"), Some(6), "rule `quantity`: conflicting rules: number rules and text rules cannot be set on one member; a member is a number, a text or a list"),
    ("contradictory_range.json", Some("score"), Some(6), "rule `$`: conflicting rules: `minimum` and `maximum` leave no number that satisfies both (minimum 10, maximum 1)"),
    ("negative_length.yaml", Some("title"), Some(6), "`rules.$.maxLength`: invalid type: integer `-5`, expected u64"),
    ("indexed_rule_path.yaml", Some("order-lines"), Some(6), "rule path `[0].quantity` is invalid: `[0]` is not `[]` (an index cannot be named); write members with dots and `[]` for every element of a list (`lines[].quantity`), `*` for every value of a map, or `$` for the result itself"),
    ("example_not_fitting_schema.json", Some("rating"), Some(8), "example 2: the output does not fit the shape: /value/stars: 7 is greater than the maximum of 5."),
    ("example_breaks_rule.yaml", Some("order-line"), Some(9), "example 1: the output breaks a rule: /value/quantity: Must be at most 100; got 250."),
    ("example_breaks_text_rule.yaml", Some("title"), Some(9), "example 1: the output breaks a rule: /value: Must be at most 10 characters; got 25."),
    ("example_not_in_envelope.yaml", Some("count"), Some(7), "example 1: the output is not in the envelope; write it exactly as the model should answer: {\"value\": ...}"),
    ("invalid_schema.json", Some("rating"), Some(5), "`shape` is not a valid JSON Schema: at /properties/stars/type: \"integr\" is not valid under any of the schemas listed in the 'anyOf' keyword"),
    ("shape_is_a_number.yaml", Some("count"), Some(4), "`shape` must be a type name or a JSON Schema object, not a number"),
    ("not_yaml.yaml", None, Some(5), "the file is not valid YAML: found unexpected end of stream, while scanning a quoted scalar"),
    ("trailing_comma.json", None, Some(2), "the file is not valid JSON: trailing comma"),
    ("top_level_list.json", None, None, "the file's JSON must be a mapping with one key, `intents`, holding the list of intents"),
    ("empty_file.yaml", None, None, "the file is empty; write a mapping with an `intents` list"),
    ("wrong_extension.txt", None, None, "an intent file must end in .json, .yaml or .yml"),
];

#[test]
fn every_broken_file_is_refused_with_its_exact_error() {
    assert!(BROKEN.len() >= 15);
    let mut wrong = Vec::new();
    for &(name, intent, line, message) in BROKEN {
        let expected = (
            name.to_owned(),
            intent.map(str::to_owned),
            line,
            message.to_owned(),
        );
        let actual = load_error(name);
        if actual != expected {
            wrong.push(format!(
                "{name}:\n  expected {expected:?}\n  got      {actual:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_broken_file_in_the_folder_is_in_the_table() {
    let mut names: Vec<String> = std::fs::read_dir(broken(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "duplicate")
        .collect();
    names.sort();
    let mut listed: Vec<&str> = BROKEN.iter().map(|e| e.0).collect();
    listed.sort();
    assert_eq!(names, listed);
}

#[test]
fn a_name_used_in_two_files_of_a_folder_is_refused_naming_both() {
    let (file, intent, line, message) = load_error("duplicate");
    assert_eq!(file, "duplicate/b.json");
    assert_eq!(intent.as_deref(), Some("summary"));
    assert_eq!(line, Some(3));
    let first = broken("duplicate/a.yaml");
    assert_eq!(
        message,
        format!(
            "the name is already used by the intent at {}:2; intent names must be unique across the catalog",
            first.display()
        )
    );
}

#[test]
fn the_error_reads_like_a_compilers() {
    let error = Catalog::load(broken("invalid_regex.yaml")).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}:7: intent `order-line`: rule `sku`: `pattern` is not a valid regular expression (unclosed character class)",
            broken("invalid_regex.yaml").display()
        )
    );
}

#[test]
fn a_missing_path_and_an_empty_folder_are_refused() {
    let missing = Catalog::load(broken("no_such_file.yaml")).unwrap_err();
    assert!(missing
        .to_string()
        .ends_with("no_such_file.yaml: no such file or folder"));
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("notes.txt"), "not an intent file").unwrap();
    let error = Catalog::load(empty.path()).unwrap_err();
    assert!(error
        .to_string()
        .ends_with(": the folder has no .json, .yaml or .yml file"));
}

#[test]
fn an_oversized_file_is_refused_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("huge.yaml");
    let size = intent_core::catalog::MAX_FILE_BYTES as usize + 1;
    std::fs::write(&file, "#".repeat(size)).unwrap();
    let error = Catalog::load(&file).unwrap_err().to_string();
    assert!(
        error.ends_with(&format!(
            "huge.yaml: the file has {size} bytes, more than the limit for an intent file (4194304 bytes, MAX_FILE_BYTES)"
        )),
        "{error}"
    );
}

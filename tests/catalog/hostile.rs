//! Hostile intent files: an alias bomb, deep nesting and odd keys are refused with an error (or
//! read), never a hang, a stack overflow or a panic.

use std::time::{Duration, Instant};

use intent_core::catalog::Catalog;

fn parse_quickly(name: &str, text: &str) -> Result<Catalog, intent_core::IntentError> {
    let started = Instant::now();
    let outcome = Catalog::parse(name, text);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{name} took {:?}",
        started.elapsed()
    );
    outcome
}

#[test]
fn a_yaml_alias_bomb_is_refused_quickly() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("intents:\n  bomb:\n    intent: Count.\n    output: *a11\n");
    assert!(parse_quickly("bomb.yaml", &text).is_err());
}

#[test]
fn deeply_nested_yaml_and_json_are_refused_without_overflow() {
    let deep_yaml = format!(
        "intents:\n  deep:\n    intent: x\n    output: {}{}\n",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let Err(error) = parse_quickly("deep.yaml", &deep_yaml) else {
        panic!("a YAML file nested 50 000 deep was read");
    };
    assert!(error.to_string().contains("MAX_YAML_NESTING"), "{error}");
    let deep_json = format!(
        "{{\"intents\": {{\"deep\": {{\"intent\": \"x\", \"output\": {}{}}}}}}}",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    assert!(parse_quickly("deep.json", &deep_json).is_err());
}

#[test]
fn odd_keys_are_refused_or_read_without_panic() {
    for text in [
        "? [a, b]\n: c\n",
        "intents:\n  ? {x: 1}\n  : {intent: Count.}\n",
        "intents:\n  \"\": {intent: Count.}\n",
        "intents:\n  \"a/b~c\u{0}\": {intent: Count.}\n",
        "intents: !!binary aGVsbG8=\n",
        "intents:\n  x: !custom {intent: Count.}\n",
        "intents: {x: {intent: Count., output: {type: object, properties: {\"$ref\": {$ref: \"#\"}}}}}\n",
        "---\nintents: {}\n---\nintents: {}\n",
        "",
        "\u{feff}",
    ] {
        let _ = parse_quickly("odd.yaml", text);
    }
}

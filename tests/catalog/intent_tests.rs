//! The `tests` of intent files: every malformed test, and every test whose expectation does not
//! fit its intent, is refused at load with the file, the intent, the line and the reason; a
//! well-formed test judges answers by its expectation.

use intent_core::catalog::{Catalog, Expectation};
use intent_core::{IssueKind, ResultIssue};
use serde_json::json;

/// A triage intent with a schema shape and a rule, then the test lines given.
fn triage(tests: &str) -> String {
    format!(
        r#"intents:
  - name: triage
    intent: Triage the ticket.
    shape:
      type: object
      properties:
        category: {{ type: string, enum: [billing, delivery, product] }}
        urgency: {{ type: integer, minimum: 1, maximum: 5 }}
        tags: {{ type: array, items: {{ type: string }} }}
      required: [category, urgency]
    rules:
      tags: {{ maxItems: 3 }}
    tests:
{tests}"#
    )
}

fn titles(tests: &str) -> String {
    format!(
        "intents:\n  - name: title\n    intent: Write a title.\n    shape: string\n    rules:\n      $: {{ maxLength: 20 }}\n    tests:\n{tests}"
    )
}

/// The error of parsing `text` as `t.yaml`: (intent, line, message).
fn error_of(text: &str) -> (Option<String>, Option<usize>, String) {
    match Catalog::parse("t.yaml", text) {
        Err(error) if error.catalog_error().is_some() => {
            let e = error.catalog_error().expect("a catalog error");
            (e.intent.clone(), e.line, e.message.clone())
        }
        Err(other) => panic!("expected a catalog error, got {other}"),
        Ok(_) => panic!("the catalog loaded:\n{text}"),
    }
}

#[test]
fn every_misfit_test_is_refused_with_its_line_and_reason() {
    let cases: &[(String, usize, &str)] = &[
        (
            triage("      - input: hello\n"),
            14,
            "test `test 1`: the test does not say what it expects; give `expected` (the whole answer), `checks` (members that must equal, contain or match) or `fails: true`",
        ),
        (
            triage("      - input: a\n        fails: true\n      - name: both\n        input: b\n        expected: { category: billing, urgency: 1 }\n        fails: true\n"),
            17,
            "test `both`: give one of `expected`, `checks` and `fails: true`, not several",
        ),
        (
            triage("      - input: x\n        expected: { category: billing, urgency: 9 }\n"),
            14,
            "test `test 1`: the expected answer does not fit the shape: /value/urgency: 9 is greater than the maximum of 5.",
        ),
        (
            triage("      - input: x\n        expected: { category: billing, urgency: 2, tags: [a, b, c, d] }\n"),
            14,
            "test `test 1`: the expected answer breaks a rule of the intent: /value/tags: Must have at most 3 elements; got 4.",
        ),
        (
            triage("      - input: x\n        checks:\n          priority: { equals: 1 }\n"),
            14,
            "test `test 1`: check `priority`: the schema has no property `priority`; its properties are: category, urgency, tags",
        ),
        (
            triage("      - input: x\n        checks:\n          urgency: { matches: \"^[1-5]$\" }\n"),
            14,
            "test `test 1`: check `urgency`: `matches` does not apply here: text rules (`minLength`, `maxLength`, `pattern`) apply only to text: strings, characters, dates and times, UUIDs, URLs and enums of unit variants; `urgency` is of type integer",
        ),
        (
            triage("      - input: x\n        checks:\n          urgency: { equals: high }\n"),
            14,
            "test `test 1`: check `urgency`: `equals` \"high\" does not fit the member: the member is of type integer",
        ),
        (
            triage("      - input: x\n        checks:\n          category: { equals: refund }\n"),
            14,
            "test `test 1`: check `category`: `equals` \"refund\" does not fit the member: the member is one of \"billing\", \"delivery\", \"product\"",
        ),
        (
            triage("      - input: x\n        checks:\n          tags: { contains: 3 }\n"),
            14,
            "test `test 1`: check `tags`: `contains` 3 does not fit the list's elements: the member is of type string",
        ),
        (
            triage("      - input: x\n        checks:\n          category: { matches: \"[a-\" }\n"),
            14,
            "test `test 1`: check `category`: `matches` is not a valid regular expression (unclosed character class)",
        ),
        (
            triage("      - input: x\n        checks: {}\n"),
            14,
            "test `test 1`: `checks` is empty; name at least one member and what it must equal, contain or match",
        ),
        (
            triage("      - input: x\n        checks:\n          category: {}\n"),
            14,
            "test `test 1`: check `category`: give `equals`, `contains` or `matches`",
        ),
        (
            triage("      - name: same\n        input: x\n        fails: true\n      - name: same\n        input: y\n        fails: true\n"),
            18,
            "test `same`: the name is used by another test of this intent",
        ),
        (
            titles("      - input: x\n        expected: 3\n"),
            8,
            "test `test 1`: the expected answer must be a text, since the shape is `string`; got 3",
        ),
        (
            titles("      - input: x\n        expected: A title far longer than twenty characters\n"),
            8,
            "test `test 1`: the expected answer breaks a rule of the intent: /value: Must be at most 20 characters; got 41.",
        ),
        (
            titles("      - input: x\n        checks:\n          words: { contains: a }\n"),
            8,
            "test `test 1`: check `words`: the shape is `string`, a text with no members; check `$`, the text itself",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, line, message) in cases {
        let (intent, at, got) = error_of(text);
        if (intent.as_deref(), at, got.as_str())
            != (
                Some(text.split("name: ").nth(1).unwrap().lines().next().unwrap()),
                Some(*line),
                *message,
            )
        {
            wrong.push(format!(
                "expected line {line}: {message}\n     got {at:?} {intent:?}: {got}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_misspelled_test_key_is_named_with_its_line() {
    let (intent, line, message) = error_of(&triage(
        "      - input: x\n        expect: { category: billing }\n",
    ));
    assert_eq!(intent.as_deref(), Some("triage"));
    assert_eq!(line, Some(15));
    assert_eq!(
        message,
        "`tests[0]`: unknown field `expect`, expected one of `name`, `input`, `expected`, `checks`, `fails`"
    );
}

#[test]
fn a_typed_intents_tests_are_checked_against_the_type() {
    let catalog = Catalog::parse(
        "t.yaml",
        "intents:\n  - name: tags\n    intent: Tag it.\n    shape: List<string>\n    tests:\n      - input: a\n        expected: [a]\n      - input: b\n        expected: [1, 2]\n",
    )
    .expect("a typed intent's tests are checked when its type is known");
    let error = catalog
        .check::<Vec<String>>("tags")
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "t.yaml:8: intent `tags`: test `test 2`: the expected answer does not read as `List<string>` at `[0]`: invalid type: integer `1`, expected a string"
    );
    let counts = Catalog::parse(
        "t.yaml",
        "intents:\n  - name: count\n    intent: Count.\n    shape: uint\n    tests:\n      - input: a\n        checks:\n          total: { equals: 1 }\n",
    )
    .unwrap();
    assert!(counts
        .check::<u32>("count")
        .unwrap_err()
        .to_string()
        .contains("test `test 1`: check `total`: `uint` has no member `total`"));
}

#[test]
fn tests_judge_answers_by_their_expectation() {
    let catalog = Catalog::parse(
        "t.yaml",
        &triage(concat!(
            "      - name: whole\n        input: I was charged twice.\n        expected: { category: billing, urgency: 3 }\n",
            "      - name: members\n        input: { ticket: 7, text: The parcel never came. }\n        checks:\n",
            "          category: { equals: delivery }\n          tags: { contains: parcel }\n          \"tags[]\": { matches: \"^[a-z]+$\" }\n",
            "      - name: refused\n        input: \"?\"\n        fails: true\n",
        )),
    )
    .unwrap();
    let tests = catalog.get("triage").unwrap().tests();
    assert_eq!(tests.len(), 3);
    let (whole, members, refused) = (&tests[0], &tests[1], &tests[2]);
    assert_eq!(
        (whole.line(), members.line(), refused.line()),
        (Some(15), Some(18), Some(24))
    );
    assert_eq!(
        members.input(),
        &json!({"ticket": 7, "text": "The parcel never came."})
    );
    assert!(matches!(refused.expectation(), Expectation::Fails));

    assert!(whole
        .evaluate(Some(&json!({"category": "billing", "urgency": 3.0})), &[])
        .is_empty());
    assert_eq!(
        whole.evaluate(
            Some(&json!({"category": "delivery", "urgency": 3, "tags": []})),
            &[]
        ),
        [
            "at /category: expected \"billing\", got \"delivery\"",
            "`tags` is not expected, got []"
        ]
    );
    assert!(members
        .evaluate(
            Some(&json!({"category": "delivery", "urgency": 2, "tags": ["parcel", "late"]})),
            &[]
        )
        .is_empty());
    assert_eq!(
        members.evaluate(
            Some(&json!({"category": "delivery", "urgency": 2, "tags": ["Late"]})),
            &[]
        ),
        [
            "`tags` at /tags: expected a list that contains \"parcel\", got [\"Late\"]",
            "`tags[]` at /tags/0: expected a text that matches ^[a-z]+$, got \"Late\"",
        ]
    );
    // A check on every element holds for no element at all; the check on `tags` finds it absent.
    assert_eq!(
        members.evaluate(Some(&json!({"urgency": 2})), &[]),
        [
            "`category`: the answer has no value there",
            "`tags`: the answer has no value there",
        ]
    );

    let refusal = [ResultIssue::at(
        "/value/urgency",
        IssueKind::Rule,
        "Must be at most 5; got 9.",
    )];
    assert!(refused.evaluate(None, &refusal).is_empty());
    assert_eq!(
        refused.evaluate(Some(&json!({"category": "product", "urgency": 1})), &[]),
        ["expected the call to fail, but it answered {\"category\":\"product\",\"urgency\":1}"]
    );
    let outage = [ResultIssue::new(
        IssueKind::Provider,
        "openai: connection refused",
    )];
    assert_eq!(
        refused.evaluate(None, &outage),
        ["expected the answers to be refused, but a provider failed: openai: connection refused"]
    );
    assert_eq!(
        whole.evaluate(None, &refusal),
        ["expected an answer, but the call failed: /value/urgency: Must be at most 5; got 9."]
    );
}

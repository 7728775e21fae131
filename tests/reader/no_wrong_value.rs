//! Replies that once read as a value different from what they say. Each must now read as the
//! value it holds, or be refused with an issue that says why; never a silently wrong value.

use intent_core::__internals::read::MAX_FINDINGS;
use intent_core::read::read_reply;
use intent_core::{Intent, ResultIssue};
use serde::Deserialize;

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Rooms {
    rooms: u32,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Pair {
    a: u32,
    b: Option<u32>,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Line {
    sku: String,
    quantity: u32,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Order {
    id: String,
    lines: Vec<Line>,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Item {
    name: String,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
struct Price {
    #[intent(minimum = 10)]
    amount: rust_decimal::Decimal,
}

fn read<T: Intent>(reply: &str) -> Result<T, Vec<ResultIssue>> {
    read_reply::<T>(&T::type_info(), reply)
}

/// The reply is refused, and one issue's message contains `words`.
#[track_caller]
fn refused<T: Intent + std::fmt::Debug>(reply: &str, words: &str) {
    match read::<T>(reply) {
        Ok(value) => panic!("{reply:?} was read as {value:?}; it must be refused ({words})"),
        Err(issues) => assert!(
            issues.iter().any(|i| i.message.contains(words)),
            "{reply:?}: no issue says {words:?}: {issues:#?}"
        ),
    }
}

#[test]
fn a_cut_off_value_is_truncated_never_a_part_of_itself() {
    refused::<Vec<i64>>(r#"Sure: {"value": [1, 2, 3]"#, "ends before");
    refused::<Vec<i64>>(r#"{"value": [1, 2, 3]"#, "ends before");
    refused::<Order>(
        r#"{"value": {"id": "o1", "lines": [{"sku": "A", "quantity": 1}]"#,
        "ends before",
    );
    refused::<Order>(
        r#"Here it is: {"value": {"id": "o1", "lines": [{"sku": "A", "quantity": 1}]}"#,
        "ends before",
    );
}

#[test]
fn the_first_bracket_in_prose_does_not_win() {
    assert_eq!(
        read::<Rooms>(r#"Looking at listing['rooms'] first: {"rooms": 3}"#).unwrap(),
        Rooms { rooms: 3 }
    );
}

#[test]
fn a_number_token_must_end_at_a_delimiter() {
    refused::<u32>("4,250", "4,250");
    refused::<f64>("3/4", "3/4");
    refused::<f64>("512e7f30-0c1a-4d2b-9f00-5a5a5a5a5a5a", "512e7f30");
    refused::<f64>(r#"{"value": 3/4}"#, "3/4");
    refused::<f64>(
        r#"{"value": 512e7f30-0c1a-4d2b-9f00-5a5a5a5a5a5a}"#,
        "512e7f30",
    );
    refused::<Pair>(r#"{"value": {"a": 4,250}}"#, "4,250");
}

#[test]
fn trailing_json_that_is_not_prose_is_refused() {
    refused::<Pair>(r#"{"a": 1}, "b": 2}"#, "not part of");
    refused::<Pair>(r#"{"a": 1}, {"a": 2}"#, "");
    refused::<bool>("false or true", "two different answers");
    refused::<Option<String>>(r#""A 27" monitor""#, "not part of");
}

#[test]
fn of_two_candidates_neither_is_taken() {
    refused::<Rooms>(
        "First:\n```json\n{\"rooms\": 2}\n```\nOr:\n```json\n{\"rooms\": 3}\n```",
        "two different answers",
    );
    refused::<Rooms>(
        r#"I had {"rooms": 2} but then {"rooms": 3}."#,
        "two different answers",
    );
    refused::<Rooms>(
        r#"I had {"rooms": 2} but the answer is {"rooms": "three"}."#,
        "more than one",
    );
}

#[test]
fn leading_zeros_are_refused() {
    refused::<u32>("0789", "leading zero");
    refused::<Rooms>(r#"{"rooms": 05}"#, "leading zero");
    refused::<Rooms>(r#"{"rooms": "05"}"#, "05");
}

#[test]
fn markdown_and_unicode_spaces_and_prose_braces_are_read() {
    assert_eq!(read::<Rooms>(r#"- {"rooms": 3}"#).unwrap().rooms, 3);
    assert_eq!(read::<Rooms>(r#"1. {"rooms": 3}"#).unwrap().rooms, 3);
    assert_eq!(
        read::<Rooms>("{\"rooms\":\u{a0}3,\u{2009}}").unwrap().rooms,
        3
    );
    assert_eq!(
        read::<Rooms>("{\u{3000}\"value\"\u{202f}:\u{feff} {\"rooms\": 3}}")
            .unwrap()
            .rooms,
        3
    );
    assert_eq!(
        read::<Rooms>(r#"Objects are written { like this }; here: {"rooms": 3}"#)
            .unwrap()
            .rooms,
        3
    );
}

#[test]
fn reasoning_blocks_are_not_searched_for_the_answer() {
    for (open, close) in [
        ("<think>", "</think>"),
        ("<thinking>", "</thinking>"),
        ("<reasoning>", "</reasoning>"),
    ] {
        let reply = format!("{open}maybe {{\"rooms\": 0}}{close}{{\"rooms\": 1}}");
        assert_eq!(read::<Rooms>(&reply).unwrap().rooms, 1, "{reply}");
    }
    // A reasoning model whose opening tag was in the prompt writes only the closing one.
    assert_eq!(
        read::<Rooms>("maybe {\"rooms\": 0}, no.\n</think>\n{\"rooms\": 1}")
            .unwrap()
            .rooms,
        1
    );
    refused::<Rooms>("<think>maybe {\"rooms\": 0}", "never closed");
}

#[test]
fn findings_are_bounded_per_reply() {
    let numbers: Vec<String> = (0..1_000_000).map(|i| i.to_string()).collect();
    let reply = format!("{{\"value\": [{}]}}", numbers.join(","));
    let issues = read::<Vec<Item>>(&reply).unwrap_err();
    assert_eq!(issues.len(), MAX_FINDINGS);
    assert!(issues[..MAX_FINDINGS - 1]
        .iter()
        .all(|i| i.message.starts_with("Must be an object (Item)")));
    assert!(issues[MAX_FINDINGS - 1]
        .message
        .starts_with("999951 more findings are not listed"));

    let members: Vec<String> = (0..1_000_000).map(|_| "\"name\": \"x\"".into()).collect();
    let reply = format!("{{\"value\": {{{}}}}}", members.join(","));
    let issues = read::<Item>(&reply).unwrap_err();
    assert_eq!(issues.len(), MAX_FINDINGS);
    assert!(issues[MAX_FINDINGS - 1]
        .message
        .starts_with("999950 more findings are not listed"));
}

#[test]
fn a_decimal_written_as_a_string_has_its_rules_checked() {
    refused::<Price>(r#"{"value": {"amount": "5"}}"#, "at least 10");
    refused::<Price>(r#"{"value": {"amount": 5}}"#, "at least 10");
    assert_eq!(
        read::<Price>(r#"{"value": {"amount": "12.50"}}"#)
            .unwrap()
            .amount
            .to_string(),
        "12.50"
    );
}

#[test]
fn a_broken_unicode_escape_is_reported_as_one() {
    refused::<Vec<String>>(r#"{"value": ["\u000é"]}"#, "escape");
}

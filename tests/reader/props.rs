//! Property tests for the reply reader: no input panics or hangs, every reading path (the fast
//! path, the lenient path, `read_reply_json` and `read_value` of its JSON) has one outcome, a
//! well-formed reply of a valid value always reads back to that value, and any prefix of a reply
//! that cuts into its JSON is refused as cut off, never accepted.

use std::time::{Duration, Instant};

use intent_core::__internals::{read_reply_json, read_reply_lenient, read_value};
use intent_core::read::read_reply;
use intent_core::{Intent, ResultIssue};
use intent_tests::shapes::*;
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 192,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn purchase() -> impl Strategy<Value = PurchaseRequest> {
    (
        "[a-zA-Z ,.'é]{0,40}",
        "[A-Z]-[0-9]{1,6}",
        1u32..=1000,
        proptest::option::of((2000i32..2100, 1u32..=12, 1u32..=28)),
    )
        .prop_map(|(contact, sku, quantity, date)| PurchaseRequest {
            contact,
            sku,
            quantity,
            deliver_by: date.and_then(|(y, m, d)| chrono::NaiveDate::from_ymd_opt(y, m, d)),
        })
}

fn order() -> impl Strategy<Value = Order> {
    let line = ("[ -~]{0,12}", any::<u8>()).prop_map(|(sku, quantity)| Line { sku, quantity });
    (
        "\\PC{0,20}",
        prop_oneof![Just(Status::Open), Just(Status::Closed)],
        proptest::collection::vec(line, 0..=3),
        any::<[u8; 2]>(),
        any::<char>(),
        -1.0e9f64..1.0e9,
    )
        .prop_map(|(id, status, lines, rating, grade, weight)| Order {
            id,
            status,
            lines,
            rating,
            grade,
            weight,
        })
}

/// Mutations a reply suffers on the way: a cut, a character dropped, one inserted.
fn mutate(text: &str, at: usize, how: u8, with: char) -> String {
    let mut cut = at % (text.len() + 1);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    match how % 4 {
        0 => text[..cut].to_owned(),
        1 => {
            let mut out = text.to_owned();
            if cut < out.len() {
                out.remove(cut);
            }
            out
        }
        2 => {
            let mut out = text.to_owned();
            out.insert(cut, with);
            out
        }
        _ => format!("```json\n{}\n``` and {}", &text[..cut], &text[cut..]),
    }
}

/// Reads `reply` by every path and checks they agree; returns the outcome.
fn read_both<T: Intent + PartialEq + std::fmt::Debug>(reply: &str) -> Result<T, Vec<ResultIssue>> {
    let info = T::type_info();
    let fast = read_reply::<T>(&info, reply);
    let lenient = read_reply_lenient::<T>(&info, reply);
    assert_eq!(
        fast, lenient,
        "the fast and lenient paths disagree on {reply:?}"
    );
    match read_reply_json::<T>(&info, reply) {
        Ok((value, json)) => {
            assert_eq!(
                fast.as_ref().ok(),
                Some(&value),
                "read_reply_json disagrees on {reply:?}"
            );
            let again = read_value::<T>(&info, json);
            assert_eq!(
                again.as_ref().ok(),
                Some(&value),
                "read_value disagrees on {reply:?}"
            );
        }
        Err(issues) => {
            assert_eq!(
                fast.as_ref().err(),
                Some(&issues),
                "read_reply_json disagrees on {reply:?}"
            )
        }
    }
    fast
}

/// The ways a reply holding `json` is written: bare, enveloped, fenced, after prose, after a
/// reasoning block.
fn dressed(json: &str, how: u8) -> (String, usize) {
    let enveloped = format!("{{\"value\": {json}}}");
    let (before, body, after) = match how % 5 {
        0 => (String::new(), enveloped, String::new()),
        1 => ("```json\n".to_owned(), enveloped, "\n```".to_owned()),
        2 => ("Here is the result: ".to_owned(), enveloped, String::new()),
        3 => (
            "<think>Easy: {\"value\": 0}.</think>\n".to_owned(),
            enveloped,
            String::new(),
        ),
        _ => (String::new(), json.to_owned(), String::new()),
    };
    let start = before.len();
    (format!("{before}{body}{after}"), start)
}

/// True when an issue says the reply was cut off.
fn says_cut_off(issues: &[ResultIssue]) -> bool {
    issues
        .iter()
        .any(|i| i.message.contains("ends before") && i.message.contains("cut off"))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = read_both::<PurchaseRequest>(&text);
        let _ = read_both::<Order>(&text);
        let _ = read_both::<Figure>(&text);
        let _ = read_reply::<serde_json::Value>(&serde_json::Value::type_info(), &text);
        let _ = read_reply::<Inventory>(&Inventory::type_info(), &text);
    }

    #[test]
    fn jsonish_text_never_panics(text in "[{}\\[\\]:,\"'0-9a-zA-Z/*\\\\ .eE+-]{0,120}") {
        let _ = read_both::<Order>(&text);
        let _ = read_both::<Event>(&text);
        let _ = read_reply::<Amount>(&Amount::type_info(), &text);
        let _ = read_reply::<serde_json::Value>(&serde_json::Value::type_info(), &text);
    }

    #[test]
    fn mutated_replies_never_panic(
        value in order(),
        at in any::<usize>(),
        how in any::<u8>(),
        with in prop_oneof![Just('{'), Just('}'), Just('"'), Just(','), Just('['), Just('\\'), Just('1'), Just('\'')],
    ) {
        let reply = format!("{{\"value\": {}}}", serde_json::to_string(&value).unwrap());
        let _ = read_both::<Order>(&mutate(&reply, at, how, with));
    }

    #[test]
    fn valid_purchase_reads_back(value in purchase(), pretty in any::<bool>(), bare in any::<bool>()) {
        let json = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let reply = if bare { json } else { format!("{{\"value\": {json}}}") };
        prop_assert_eq!(read_both::<PurchaseRequest>(&reply), Ok(value));
    }

    #[test]
    fn valid_order_reads_back(value in order(), how in any::<u8>(), pretty in any::<bool>()) {
        let json = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let (reply, _) = dressed(&json, how);
        prop_assert_eq!(read_both::<Order>(&reply), Ok(value));
    }

    #[test]
    fn every_prefix_that_cuts_into_the_json_is_refused_as_cut_off(
        value in order(),
        how in 0u8..4,
        cut in any::<prop::sample::Index>(),
    ) {
        let json = serde_json::to_string(&value).unwrap();
        let (reply, start) = dressed(&json, how);
        let end = reply.rfind('}').unwrap();
        // Every cut from the JSON's first byte up to, not including, its last brace.
        let mut at = start + cut.index(end - start);
        while !reply.is_char_boundary(at) {
            at -= 1;
        }
        let prefix = &reply[..at.max(start + 1)];
        match read_both::<Order>(prefix) {
            Ok(read) => prop_assert!(false, "the prefix {prefix:?} was read as {read:?}"),
            Err(issues) => prop_assert!(says_cut_off(&issues), "{prefix:?}: {issues:#?}"),
        }
    }

    #[test]
    fn every_prefix_of_a_list_reply_is_refused_as_cut_off(
        items in proptest::collection::vec(any::<u8>(), 1..20),
        how in 0u8..4,
        cut in any::<prop::sample::Index>(),
    ) {
        let json = serde_json::to_string(&items).unwrap();
        let (reply, start) = dressed(&json, how);
        let end = reply.rfind('}').unwrap();
        let prefix = &reply[..start + 1 + cut.index(end - start - 1)];
        match read_both::<Vec<u8>>(prefix) {
            Ok(read) => prop_assert!(false, "the prefix {prefix:?} was read as {read:?}"),
            Err(issues) => prop_assert!(says_cut_off(&issues), "{prefix:?}: {issues:#?}"),
        }
    }

    #[test]
    fn plain_prose_around_a_valid_reply_is_read_past(
        value in purchase(),
        before in "[a-zA-Z ,.!?\n]{0,40}",
        after in "[a-zA-Z ,.!?\n]{0,40}",
    ) {
        let json = serde_json::to_string(&value).unwrap();
        let reply = format!("{before}{{\"value\": {json}}}{after}");
        prop_assert_eq!(read_both::<PurchaseRequest>(&reply), Ok(value));
    }

    #[test]
    fn prose_with_quotes_and_marks_around_a_reply_never_changes_its_value(
        value in purchase(),
        before in "[a-zA-Z ,.:'\"\\-*>#`\n]{0,40}",
        after in "[a-zA-Z ,.!?:'\"`)(\n]{0,40}",
    ) {
        let json = serde_json::to_string(&value).unwrap();
        let reply = format!("{before}{{\"value\": {json}}}{after}");
        // A refusal is allowed (the prose may look like JSON); a different value never is.
        if let Ok(read) = read_both::<PurchaseRequest>(&reply) {
            prop_assert_eq!(read, value);
        }
    }

    #[test]
    fn json_fragments_in_prose_never_yield_a_wrong_value(
        value in purchase(),
        fragments in proptest::collection::vec(prop_oneof![
            Just("{"), Just("}"), Just("["), Just("]"), Just("\""), Just(","), Just(":"),
            Just("{\"quantity\": 7}"), Just("[1, 2]"), Just("</think>"), Just("<think>"),
            Just("```"), Just("42"), Just("true"), Just(" "), Just("\n"), Just("word"),
        ], 0..8),
        position in any::<bool>(),
    ) {
        let json = serde_json::to_string(&value).unwrap();
        let noise: String = fragments.concat();
        let reply = if position {
            format!("{noise} {{\"value\": {json}}}")
        } else {
            format!("{{\"value\": {json}}} {noise}")
        };
        // Whatever the noise, the reply reads as the value it holds or is refused.
        if let Ok(read) = read_both::<PurchaseRequest>(&reply) {
            prop_assert_eq!(read, value, "{:?}", reply);
        }
    }
}

/// The time to read `reply` as an `Order` once, by every path.
fn time_to_read(reply: &str) -> Duration {
    let started = Instant::now();
    let _ = read_both::<Order>(reply);
    started.elapsed()
}

#[test]
fn reading_time_grows_linearly_with_the_reply() {
    const SMALL: usize = 20_000;
    // Replies built to make a careless reader quadratic: brackets that never parse, opened
    // strings, deep nesting, many candidates, tags.
    let patterns = [
        "{a",
        "{\"",
        "[[[[[[[[",
        "{'x",
        "[1, {\"a\": ",
        "{\"a\": 1} ",
        "<think>",
        "</think>{",
        "0,",
        "\"a\" ",
        "- [see] ",
        "{ x }\n",
    ];
    for pattern in patterns {
        let small = pattern.repeat(SMALL / pattern.len());
        let large = pattern.repeat(8 * SMALL / pattern.len());
        // Measured in turns, so both sizes see the same load; the fastest of five counts.
        let (mut short, mut long) = (Duration::MAX, Duration::MAX);
        for _ in 0..5 {
            short = short.min(time_to_read(&small));
            long = long.min(time_to_read(&large));
        }
        // Eight times the text: linear reading takes about eight times as long, quadratic 64.
        assert!(
            long <= short * 32 + Duration::from_millis(50),
            "{pattern:?}: {short:?} for 20 KB, {long:?} for 160 KB"
        );
    }
}

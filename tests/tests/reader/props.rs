//! Property tests for the reply reader: no input panics, and a well-formed reply of a valid value
//! always reads back to that value, by the fast path and the lenient path alike.

use crate::common::*;
use intent_core::read::{read_reply, read_reply_lenient};
use intent_core::Intent;
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

fn read_both<T: Intent + PartialEq + std::fmt::Debug>(
    reply: &str,
) -> Result<T, Vec<intent_core::ResultIssue>> {
    let info = T::type_info();
    let fast = read_reply::<T>(&info, reply);
    let lenient = read_reply_lenient::<T>(&info, reply);
    assert_eq!(fast, lenient, "the two paths disagree on {reply:?}");
    fast
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
    fn valid_order_reads_back(value in order(), fenced in any::<bool>()) {
        let json = format!("{{\"value\": {}}}", serde_json::to_string(&value).unwrap());
        let reply = if fenced { format!("```json\n{json}\n```") } else { json };
        prop_assert_eq!(read_both::<Order>(&reply), Ok(value));
    }
}

use serde::Deserialize;
use serde_json::json;

use super::lazy::{ViewAt, Views};
use super::*;
use crate::Intent;

#[derive(Debug, Deserialize, PartialEq, Intent)]
struct Line {
    sku: String,
    #[intent(minimum = 1)]
    quantity: u32,
    note: Option<String>,
}

fn reader<T: Intent>() -> PartialReader {
    PartialReader::new(T::type_info()).handing_out_elements()
}

/// Every view of `text` fed in pieces of `n` bytes (cut on character boundaries).
fn views<T: Intent>(text: &str, n: usize) -> (Vec<Value>, PartialReader) {
    let mut reader = reader::<T>();
    let mut out = Vec::new();
    for piece in pieces(text, n) {
        if reader.push(piece) {
            out.push((**reader.value()).clone());
        }
        // The way down to what is being written is its depth's way down the view.
        let way = reader.open_depth().map(|d| way_down(reader.value(), d));
        assert_eq!(way, reader.open_path(), "{text:?} in pieces of {n}");
    }
    (out, reader)
}

/// `text` in pieces of `n` bytes, each cut moved on to the next character's start.
fn pieces(text: &str, n: usize) -> impl Iterator<Item = &str> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= text.len() {
            return None;
        }
        let mut end = (at + n).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let piece = &text[at..end];
        at = end;
        Some(piece)
    })
}

#[test]
fn closed_members_show_verified_and_open_strings_grow() {
    let text = r#"{"value": {"SKU": "A-12", "quantity": "40", "note": "gift wrap"}}"#;
    let (shown, reader) = views::<Line>(text, 3);
    assert!(shown.len() > 3);
    // The name is mapped to its wire name and the number read from its string once closed.
    assert_eq!(
        shown.last().unwrap(),
        &json!({"sku": "A-12", "quantity": 40, "note": "gift wrap"})
    );
    // A number never shows on its way (no 4 before 40), and no quantity shows as text.
    for view in &shown {
        if let Some(q) = view.get("quantity") {
            assert_eq!(q, &json!(40));
        }
    }
    assert!(shown.iter().any(|v| v
        .get("note")
        .and_then(Value::as_str)
        .is_some_and(|n| n.len() < 9 && "gift wrap".starts_with(n))));
    assert!(reader.issues().is_empty());
}

#[test]
fn a_member_that_fails_its_rule_is_left_out_with_its_finding() {
    let text = r#"{"value": {"sku": "A", "quantity": 0}}"#;
    let (shown, reader) = views::<Line>(text, 4);
    assert!(shown.iter().all(|v| v.get("quantity").is_none()));
    assert_eq!(reader.issues()[0].path.as_deref(), Some("/value/quantity"));
}

#[test]
fn list_elements_are_handed_out_as_they_close_each_once_at_their_index() {
    let text = r#"```json
{"value": [{"sku": "A", "quantity": 1, "note": null}, {"sku": "B", "quantity": 0, "note": null}, {"sku": "C", "quantity": 3, "note": null}]}
```"#;
    for n in [1, 2, 7, 500] {
        let mut reader = reader::<Vec<Line>>();
        let mut elements = Vec::new();
        for piece in pieces(text, n) {
            reader.push(piece);
            elements.extend(reader.take_elements());
        }
        let indexes: Vec<usize> = elements.iter().map(|e| e.index).collect();
        assert_eq!(indexes, [0, 1, 2], "pieces of {n}");
        assert!(elements[0].value.is_ok() && elements[2].value.is_ok());
        let issues = elements[1].value.as_ref().unwrap_err();
        assert_eq!(issues[0].path.as_deref(), Some("/value/1/quantity"));
        // After the failed element the view shows no more elements.
        assert_eq!(reader.value().as_array().unwrap().len(), 1);
    }
}

#[test]
fn every_cut_gives_the_same_final_view_and_each_view_is_a_prefix_of_it() {
    let text = "<think>{not this}</think> Here: {\"value\": [{\"sku\": \"é😀\", \"quantity\": 12, \"note\": \"a\\\"b\"}, {\"sku\": \"x\", \"quantity\": 7, \"note\": null}]}";
    let (whole, _) = views::<Vec<Line>>(text, text.len());
    let last = whole.last().unwrap().clone();
    assert_eq!(last[0]["sku"], json!("é😀"));
    for n in 1..8 {
        let (shown, _) = views::<Vec<Line>>(text, n);
        assert_eq!(shown.last().unwrap(), &last, "pieces of {n}");
        for view in &shown {
            assert!(is_prefix(view, &last), "{view} is not a prefix of {last}");
        }
    }
}

/// True when `partial` is a growing view of `full`: every member or element in it is equal, or
/// is the last one open and a prefix.
fn is_prefix(partial: &Value, full: &Value) -> bool {
    match (partial, full) {
        (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
        (Value::Array(a), Value::Array(b)) => {
            a.len() <= b.len() && a.iter().zip(b).all(|(x, y)| is_prefix(x, y))
        }
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| is_prefix(v, w))),
        (a, b) => a == b,
    }
}

#[test]
fn a_text_result_is_the_text_so_far() {
    let (shown, _) = views::<String>("<think>x</think>  Hello there", 4);
    assert_eq!(shown.last().unwrap(), &json!("Hello there"));
    assert!(shown.iter().all(|v| !v.as_str().unwrap().contains("think")));
}

#[test]
fn a_bare_value_and_a_struct_answer_without_envelope_are_read() {
    let (shown, _) = views::<Line>(r#"{"sku": "A", "quantity": 2, "note": null}"#, 5);
    assert_eq!(
        shown.last().unwrap(),
        &json!({"sku": "A", "quantity": 2, "note": null})
    );
    let (shown, _) = views::<Vec<u8>>("[1, 2, 300, 4]", 2);
    assert_eq!(shown.last().unwrap(), &json!([1, 2]));
}

#[test]
fn what_the_view_cannot_follow_stops_it_unchanged() {
    let (shown, reader) = views::<Vec<u8>>("{\"value\": [1, // two\n 2]}", 3);
    assert_eq!(shown.last().unwrap(), &json!([1]));
    assert!(matches!(reader.phase, Phase::Stopped));
}

#[test]
fn a_number_that_lost_its_fraction_is_refused_as_the_final_reading_refuses_it() {
    let text = r#"{"value": [1.0000000000000000001, 2, 3.0]}"#;
    let info = <Vec<u32>>::type_info();
    assert!(crate::read::read_reply::<Vec<u32>>(&info, text).is_err());
    for n in [1, 3, 500] {
        let mut reader = reader::<Vec<u32>>();
        let mut elements = Vec::new();
        for piece in pieces(text, n) {
            reader.push(piece);
            elements.extend(reader.take_elements());
        }
        assert!(elements[0].value.is_err(), "pieces of {n}");
        assert!(
            reader.value().as_array().unwrap().is_empty(),
            "pieces of {n}"
        );
    }
    // A double that is whole as written is a whole number, as for the final reading.
    let (shown, _) = views::<Vec<u32>>(r#"{"value": [3.0, 1e2]}"#, 1);
    assert_eq!(shown.last().unwrap(), &serde_json::json!([3, 100]));
}

#[derive(Debug, Deserialize, PartialEq, Intent)]
struct Rich {
    name: String,
    #[intent(min_items = 2)]
    tags: Vec<String>,
    attrs: std::collections::HashMap<String, u32>,
    lines: Vec<Line>,
}

/// The elements a reader hands out for `text` in pieces of `n` bytes, and its findings.
fn handed_out(
    mut reader: PartialReader,
    text: &str,
    n: usize,
) -> (Vec<ClosedElement>, Vec<ResultIssue>) {
    let mut elements = Vec::new();
    for piece in pieces(text, n) {
        reader.push(piece);
        elements.extend(reader.take_elements());
    }
    (elements, reader.issues().to_vec())
}

#[test]
fn a_reader_without_a_view_hands_out_what_one_with_a_view_does() {
    let replies = [
        // Passing elements with a map checked whole, a list with a rule, nested lists.
        r#"{"value": [{"name": "a\"b", "tags": ["x", "y"], "attrs": {"k": 1, "l": "2"}, "lines": [{"sku": "S", "quantity": "3", "note": null}]}, {"name": "é😀", "tags": ["p", "q", "r"], "attrs": {}, "lines": []}]}"#,
        // A list rule broken, a map value of the wrong type, a nested element failing, then
        // elements after the gap.
        r#"{"value": [{"name": "a", "tags": ["x"], "attrs": {"k": 1}, "lines": []}, {"name": "b", "tags": ["x", "y"], "attrs": {"k": "many"}, "lines": []}, {"name": "c", "tags": ["x", "y"], "attrs": {}, "lines": [{"sku": "S", "quantity": 0, "note": null}]}, {"name": "d", "tags": ["x", "y"], "attrs": {}, "lines": []}]}"#,
        // A member missing, a name given twice in a map (the view stops there).
        r#"[{"name": "a", "tags": ["x", "y"], "lines": []}, {"name": "b", "tags": ["x", "y"], "attrs": {"k": 1, "k": 2}, "lines": []}]"#,
    ];
    for text in replies {
        for n in [1, 3, 16, text.len()] {
            let info = <Vec<Rich>>::type_info();
            let with_view = handed_out(
                PartialReader::new(info.clone()).handing_out_elements(),
                text,
                n,
            );
            let without = handed_out(
                PartialReader::new(info)
                    .handing_out_elements()
                    .without_view(),
                text,
                n,
            );
            assert_eq!(with_view, without, "pieces of {n} of {text}");
        }
    }
    // The first reply's elements pass, normalized; the second's fail where they should.
    let (elements, _) = handed_out(
        PartialReader::new(<Vec<Rich>>::type_info())
            .handing_out_elements()
            .without_view(),
        replies[0],
        5,
    );
    assert_eq!(elements.len(), 2);
    let first = elements[0].value.as_ref().unwrap().json().unwrap();
    assert_eq!(first["attrs"], json!({"k": 1, "l": 2}));
    assert_eq!(first["lines"][0]["quantity"], json!(3));
    let (elements, _) = handed_out(
        PartialReader::new(<Vec<Rich>>::type_info())
            .handing_out_elements()
            .without_view(),
        replies[1],
        7,
    );
    let failed: Vec<usize> = elements
        .iter()
        .filter(|e| e.value.is_err())
        .map(|e| e.index)
        .collect();
    assert_eq!(failed, [0, 1, 2]);
    assert!(elements[3].value.is_ok());
}

/// Elements by index, each read or refused.
type ReadElements = Vec<(usize, Result<Rich, Vec<ResultIssue>>)>;

/// The elements of `text` as an element stream reads them (as text, each read on its own),
/// against the elements of a reader with a view, read from their verified JSON.
fn elements_both_ways(text: &str, n: usize) -> (ReadElements, ReadElements) {
    let info = <Vec<Rich>>::type_info();
    let read = |elements: Vec<ClosedElement>| -> ReadElements {
        elements
            .into_iter()
            .map(|e| {
                let value = match e.value {
                    Ok(ElementBody::Json(json)) => {
                        Ok(serde_json::from_value::<Rich>(json).expect("verified JSON reads"))
                    }
                    Ok(ElementBody::Text(text)) => {
                        crate::read::read_list_element::<Rich>(&info, e.index, &text)
                    }
                    Err(issues) => Err(issues),
                };
                (e.index, value)
            })
            .collect()
    };
    let (with_view, _) = handed_out(
        PartialReader::new(info.clone()).handing_out_elements(),
        text,
        n,
    );
    let (as_text, _) = handed_out(PartialReader::new(info.clone()).elements_as_text(), text, n);
    (read(with_view), read(as_text))
}

#[test]
fn elements_copied_as_text_read_as_the_verified_ones_do() {
    let passing = r#"{"value": [{"name": "a\"b]}", "tags": ["x", "y"], "attrs": {"k": 1, "l": "2"}, "lines": [{"sku": "S", "quantity": "3", "note": null}]}, {"name": "é😀", "tags": ["p", "q", "r"], "attrs": {}, "lines": []}]}"#;
    let failing = r#"{"value": [{"name": "a", "tags": ["x"], "attrs": {"k": 1}, "lines": []}, {"name": "b", "tags": ["x", "y"], "attrs": {"k": "many"}, "lines": []}, {"name": "c", "tags": ["x", "y"], "attrs": {}, "lines": [{"sku": "S", "quantity": 0, "note": null}]}, {"name": "d", "tags": ["x", "y"], "attrs": {}, "lines": []}]}"#;
    for text in [passing, failing] {
        for n in [1, 2, 5, 16, text.len()] {
            let (verified, copied) = elements_both_ways(text, n);
            let outcome = |list: &[(usize, Result<Rich, Vec<ResultIssue>>)]| -> Vec<(usize, bool)> {
                list.iter().map(|(i, r)| (*i, r.is_ok())).collect()
            };
            assert_eq!(
                outcome(&verified),
                outcome(&copied),
                "pieces of {n} of {text}"
            );
            for ((_, a), (_, b)) in verified.iter().zip(&copied) {
                match (a, b) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b),
                    (Err(a), Err(b)) => {
                        // The same place named.
                        let paths = |issues: &[ResultIssue]| -> Vec<Option<String>> {
                            issues.iter().map(|i| i.path.clone()).collect()
                        };
                        assert_eq!(paths(a), paths(b), "pieces of {n}");
                    }
                    _ => unreachable!(),
                }
            }
        }
    }
    let (_, copied) = elements_both_ways(passing, 3);
    assert_eq!(copied.len(), 2);
    assert_eq!(copied[0].1.as_ref().unwrap().name, "a\"b]}");
    let (_, copied) = elements_both_ways(failing, 3);
    let failed: Vec<usize> = copied
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(failed, [0, 1, 2]);
}

#[test]
fn an_element_copied_as_text_stops_where_the_reply_is_not_json() {
    let text = r#"{"value": [{"name": "a", "tags": ["x", "y"], "attrs": {}, "lines": []}, {'name': 'b}'}, {"name": "c", "tags": ["x", "y"], "attrs": {}, "lines": []}]}"#;
    for n in [1, 4, text.len()] {
        let (elements, _) = handed_out(
            PartialReader::new(<Vec<Rich>>::type_info()).elements_as_text(),
            text,
            n,
        );
        let indexes: Vec<usize> = elements.iter().map(|e| e.index).collect();
        assert_eq!(indexes, [0], "pieces of {n}");
    }
}

#[test]
fn the_first_quote_or_backslash_is_found_at_any_offset() {
    let mut text = Vec::new();
    for len in 0..40 {
        for at in 0..=len {
            for mark in [b'"', b'\\'] {
                text.clear();
                text.extend((0..len).map(|i| b'a' + (i % 26) as u8));
                // Bytes one off the marks, and the marks' neighbours, never match.
                if len > 0 {
                    text[0] = 0x21;
                }
                if at < len {
                    text[at] = mark;
                    if at + 1 < len {
                        text[at + 1] = b'"';
                    }
                }
                let expected = text.iter().position(|&b| b == b'"' || b == b'\\');
                assert_eq!(raw::quote_or_backslash(&text), expected, "{len} {at}");
            }
        }
    }
    assert_eq!(raw::quote_or_backslash("é😀\u{5c}".as_bytes()), Some(6));
}

// The views of a stream of partials, built when looked at (`lazy`).

const LINES: &str = r#"Here: {"value": [{"sku": "A-12", "quantity": 40, "note": "gift"},
    {"sku": "B-7", "quantity": 0}, {"sku": "C-1", "quantity": 3}]} done"#;

/// What an eager reader shows after each piece, from the first that began the answer.
fn eager_views<T: Intent>(text: &str, n: usize) -> Vec<(Value, Option<Vec<Seg>>)> {
    let mut reader = PartialReader::new(T::type_info());
    pieces(text, n)
        .filter_map(|piece| {
            reader.push(piece);
            reader
                .started()
                .then(|| ((**reader.value()).clone(), reader.open_path()))
        })
        .collect()
}

/// The views handed out for each piece, none looked at.
fn unread_views<T: Intent>(text: &str, n: usize) -> (Views, Vec<ViewAt>) {
    let mut views = Views::new(T::type_info());
    let handed = pieces(text, n).filter_map(|p| views.push(p)).collect();
    (views, handed)
}

fn shown(view: &ViewAt) -> (Value, Option<Vec<Seg>>) {
    let (value, open) = view.get();
    ((**value).clone(), open.map(|depth| way_down(value, depth)))
}

#[test]
fn views_looked_at_in_any_order_show_what_the_eager_reader_showed() {
    for n in 1..=9 {
        let expected = eager_views::<Vec<Line>>(LINES, n);
        let (_, handed) = unread_views::<Vec<Line>>(LINES, n);
        // None looked at: one view a piece from the answer's start, as the eager reader's.
        assert_eq!(handed.len(), expected.len(), "pieces of {n}");
        // Backwards (each read afresh), then forwards (the shared reader, then kept).
        for (view, want) in handed.iter().zip(&expected).rev() {
            assert_eq!(&shown(view), want, "pieces of {n}");
        }
        let (_, handed) = unread_views::<Vec<Line>>(LINES, n);
        for (view, want) in handed.iter().zip(&expected) {
            assert_eq!(&shown(view), want, "pieces of {n}");
        }
    }
}

#[test]
fn a_view_never_looked_at_reads_nothing_past_the_answers_start() {
    let (views, handed) = unread_views::<Vec<Line>>(LINES, 4);
    let applied = views.applied().expect("the answer began");
    assert!(applied <= LINES.find('[').unwrap() + 4, "{applied}");
    // Looked at once, the last view reads the rest: the answer as verified.
    let last = shown(handed.last().unwrap()).0;
    assert_eq!(
        last,
        serde_json::json!([{"sku": "A-12", "quantity": 40, "note": "gift"}])
    );
}

#[test]
fn no_view_is_handed_out_once_a_view_saw_the_answer_close() {
    let mut views = Views::new(<Vec<Line>>::type_info());
    let mut after_close = 0;
    let mut closed = false;
    for piece in pieces(LINES, 5) {
        match views.push(piece) {
            Some(view) => {
                assert!(!closed);
                closed = view.get().1.is_none();
            }
            None if closed => after_close += 1,
            None => {}
        }
    }
    assert!(closed && after_close > 0);
}

#[test]
fn a_text_result_shows_its_text_so_far() {
    let text = "  Dear Dana, your order ships.";
    let (_, handed) = unread_views::<String>(text, 6);
    let texts: Vec<Value> = handed.iter().map(|v| shown(v).0).collect();
    assert_eq!(texts.first(), Some(&Value::from("Dear")));
    assert_eq!(texts.last(), Some(&Value::from(text.trim_start())));
    let expected: Vec<Value> = eager_views::<String>(text, 6)
        .into_iter()
        .map(|e| e.0)
        .collect();
    assert_eq!(texts, expected);
}

#[test]
fn views_and_partials_go_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<ViewAt>();
    send::<Views>();
}

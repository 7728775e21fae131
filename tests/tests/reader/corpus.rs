//! The reply reader against a corpus of malformed and odd replies, each with its outcome: the value
//! read, or the exact issues (kind, path and message). The outcomes live in
//! `tests/golden/read/corpus.txt`; regenerate with `INTENT_BLESS=1` and review the diff.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::common::*;
use intent_core::read::{read_reply, read_reply_lenient};
use intent_core::{Intent, ResultIssue};
use serde::Serialize;

fn outcome<T: Intent + Serialize>(reply: &str) -> String {
    let info = T::type_info();
    let fast = read_reply::<T>(&info, reply);
    let lenient = read_reply_lenient::<T>(&info, reply);
    let text = render(&fast);
    assert_eq!(
        text,
        render(&lenient),
        "the fast path and the lenient path disagree on {reply:?}"
    );
    text
}

fn render<T: Serialize>(result: &Result<T, Vec<ResultIssue>>) -> String {
    match result {
        Ok(value) => {
            let json = serde_json::to_string(value).unwrap_or_default();
            match json.char_indices().nth(200) {
                Some((cut, _)) => format!("=> {}… <{} bytes>\n", &json[..cut], json.len()),
                None => format!("=> {json}\n"),
            }
        }
        Err(issues) => {
            let mut out = String::new();
            for issue in issues {
                let _ = writeln!(
                    out,
                    "!! {:?} {}: {}",
                    issue.kind,
                    issue.path.as_deref().unwrap_or("-"),
                    issue.message
                );
            }
            out
        }
    }
}

macro_rules! corpus {
    ($($name:literal : $ty:ty = $reply:expr;)*) => {{
        let mut cases: Vec<(&'static str, &'static str, String, String)> = Vec::new();
        $(
            let reply: String = ($reply).into();
            let shown = if reply.len() > 200 {
                format!("<{} bytes> {}…", reply.len(), &reply[..60])
            } else {
                reply.clone()
            };
            cases.push(($name, stringify!($ty), shown, outcome::<$ty>(&reply)));
        )*
        cases
    }};
}

fn deep(levels: usize) -> String {
    format!(
        "{{\"value\": {}0{}}}",
        "[".repeat(levels),
        "]".repeat(levels)
    )
}

fn huge_order() -> String {
    // About 10 MB: a valid order whose id is long, so only size is unusual.
    let id = "x".repeat(10 * 1024 * 1024);
    format!(
        r#"{{"value": {{"id": "{id}", "status": "Open", "lines": [], "rating": [1, 2], "grade": "A", "weight": 1.5}}}}"#
    )
}

const GOOD: &str =
    r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40, "deliverBy": "2026-11-15"}}"#;

#[test]
fn corpus_matches_golden_outcomes() {
    let cases = corpus! {
        "well-formed envelope": PurchaseRequest = GOOD;
        "code fence with language": PurchaseRequest = format!("```json\n{GOOD}\n```");
        "code fence without language, prose around": PurchaseRequest = format!("Here you go:\n```\n{GOOD}\n```\nAnything else?");
        "prose before and after the JSON": PurchaseRequest = format!("Sure! The request is {GOOD}. Hope that helps.");
        "bare value without envelope": PurchaseRequest = r#"{"contact": "Dana", "sku": "A-1192", "quantity": 40, "deliverBy": null}"#;
        "property names in other case": PurchaseRequest = r#"{"Value": {"Contact": "Dana", "SKU": "A-1192", "QUANTITY": 40, "deliverby": "2026-11-15"}}"#;
        "numbers as strings": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": " 40 ", "deliverBy": null}}"#;
        "integer written with zero fraction": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40.0}}"#;
        "comments and trailing commas": PurchaseRequest = "{\"value\": { // the order\n \"contact\": \"Dana\", /* who */ \"sku\": \"A-1192\", \"quantity\": 40, }, }";
        "single-quoted strings and unquoted keys": PurchaseRequest = "{value: {contact: 'Dana\\'s desk', sku: 'A-1192', quantity: 40, deliverBy: '2026-11-15'}}";
        "JSON string holding the JSON": PurchaseRequest = serde_json::to_string(GOOD).unwrap();
        "missing members, all listed": PurchaseRequest = r#"{"value": {"deliverBy": null}}"#;
        "null for required members": PurchaseRequest = r#"{"value": {"contact": null, "sku": "A-1192", "quantity": null}}"#;
        "optional member omitted": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 40}}"#;
        "rules fail: range, pattern, length": PurchaseRequest = r#"{"value": {"contact": "Dana Whitfield-Okonkwo of Northwind Traders", "sku": "a1192", "quantity": 1500}}"#;
        "fraction for an integer": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 2.5}}"#;
        "negative for an unsigned integer": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": -3}}"#;
        "number beyond u64": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 123456789012345678901234567890}}"#;
        "non-numeric string for a number": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": "forty"}}"#;
        "number for a string": PurchaseRequest = r#"{"value": {"contact": 42, "sku": "A-1192", "quantity": 4}}"#;
        "bad date": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 4, "deliverBy": "15/11/2026"}}"#;
        "envelope with extra keys": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1192", "quantity": 4}, "note": "done"}"#;
        "wrong envelope: an array": PurchaseRequest = r#"[{"contact": "Dana", "sku": "A-1192", "quantity": 4}]"#;
        "null root for a struct": PurchaseRequest = r#"{"value": null}"#;
        "null root for an option": Option<u32> = r#"{"value": null}"#;
        "duplicate keys": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-1", "sku": "B-2", "quantity": 4}}"#;
        "same member in two cases": PurchaseRequest = r#"{"value": {"contact": "Dana", "Sku": "A-1", "SKU": "B-2", "quantity": 4}}"#;
        "truncated JSON": PurchaseRequest = r#"{"value": {"contact": "Dana", "sku": "A-11"#;
        "truncated inside a fence": PurchaseRequest = "```json\n{\"value\": {\"contact\": \"Da";
        "several top-level values": PurchaseRequest = format!("{GOOD}\n{GOOD}");
        "empty reply": PurchaseRequest = "   ";
        "prose only": PurchaseRequest = "I could not find a purchase request in this email.";
        "NaN": f64 = r#"{"value": NaN}"#;
        "negative Infinity": f64 = r#"{"value": -Infinity}"#;
        "number beyond a double": f64 = r#"{"value": 1e400}"#;
        "text result is the reply itself": String = "not json at all, but a text result";
        "lone surrogate in JSON": Vec<String> = r#"{"value": ["\ud800"]}"#;
        "surrogate pair escape": Vec<String> = r#"{"value": ["\ud83d\ude00"]}"#;
        "unknown escape": Vec<String> = r#"{"value": ["\q"]}"#;
        "deep nesting beyond the limit": serde_json::Value = deep(200);
        "deep nesting within the limit": serde_json::Value = deep(20);
        "deep recursive type beyond the limit": Tree = format!("{{\"value\": {}{}}}", "{\"name\": \"n\", \"children\": [".repeat(70), "]}".repeat(70));
        "huge reply (10 MB)": Order = huge_order();
        "enum in other case": Order = r#"{"value": {"id": "o1", "status": "closed", "lines": [], "rating": [1, 2], "grade": "A", "weight": 1}}"#;
        "enum as a number": Order = r#"{"value": {"id": "o1", "status": 1, "lines": [], "rating": [1, 2], "grade": "A", "weight": 1}}"#;
        "enum unknown name": Order = r#"{"value": {"id": "o1", "status": "Pending", "lines": [], "rating": [1, 2], "grade": "A", "weight": 1}}"#;
        "wrong nested types, every one reported": Order = r#"{"value": {"id": 7, "status": "Open", "lines": [{"sku": "A", "quantity": 1}, {"sku": "B", "quantity": 300}, {"sku": null, "quantity": "x"}], "rating": [1], "grade": "AB", "weight": "heavy"}}"#;
        "too many items": Order = r#"{"value": {"id": "o1", "status": "Open", "lines": [{"sku": "A", "quantity": 1}, {"sku": "A", "quantity": 1}, {"sku": "A", "quantity": 1}, {"sku": "A", "quantity": 1}], "rating": [1, 2], "grade": "A", "weight": 1}}"#;
        "object where an array is expected": Order = r#"{"value": {"id": "o1", "status": "Open", "lines": {"sku": "A"}, "rating": [1, 2], "grade": "A", "weight": 1}}"#;
        "unit enum root in lower case": Status = r#""open""#;
        "external enum: struct variant": Event = r#"{"value": {"move": {"x": 1, "Y": "-2"}}}"#;
        "external enum: newtype and tuple": Vec<Event> = r#"{"value": [{"Say": "hi"}, {"Pair": [1, 2]}, "Ping"]}"#;
        "external enum: data variant as a bare name": Event = r#"{"value": "Move"}"#;
        "external enum: number": Event = r#"{"value": 2}"#;
        "internal tag in other case": Figure = r#"{"value": {"Type": "circle", "radius": 2}}"#;
        "internal tag missing": Figure = r#"{"value": {"radius": 2}}"#;
        "internal tag as a number": Figure = r#"{"value": {"type": 0, "radius": 2}}"#;
        "internal unit variant": Figure = r#"{"value": {"type": "Empty"}}"#;
        "adjacent: content checked": Message = r#"{"value": {"kind": "Count", "data": "12"}}"#;
        "adjacent: content missing": Message = r#"{"value": {"kind": "Text"}}"#;
        "adjacent: unit without content": Message = r#"{"value": {"kind": "nothing"}}"#;
        "untagged: second form": Amount = r#"{"value": {"low": 1, "high": "5"}}"#;
        "untagged: no form fits": Amount = r#"{"value": {"low": 1}}"#;
        "flatten and alias": Contact = r#"{"value": {"fullName": "Sam", "City": "Oslo", "zip": "0150"}}"#;
        "flatten: flattened member missing": Contact = r#"{"value": {"name": "Sam", "city": "Oslo"}}"#;
        "own member named value: bare": Reading = r#"{"value": 21.5, "unit": "C"}"#;
        "own member named value: enveloped": Reading = r#"{"value": {"value": 21.5, "unit": "C"}}"#;
        "map keys by key shape": Inventory = r#"{"value": {"stock": {"12": "bolts", "70000": "nuts", "x": "?"}, "by_status": {"open": 3, "Shut": 1}, "tags": ["a"]}}"#;
        "set elements must be unique": Inventory = r#"{"value": {"stock": {}, "by_status": {}, "tags": ["a", "b", "a"]}}"#;
        "map envelope lookalike is the map": BTreeMap<String, u32> = r#"{"value": 3, "other": 4}"#;
        "dates: UTC designator on a local date-time": Schedule = r#"{"value": {"day": "2026-11-15", "at": "2026-11-15T09:30:00Z", "stamp": "2026-11-15T09:30:00+02:00"}}"#;
        "dates: offset refused, offset missing": Schedule = r#"{"value": {"day": "2026-11-15T00:00:00", "at": "2026-11-15T09:30:00+02:00", "stamp": "2026-11-15T09:30:00"}}"#;
        "rules: allowed, exclusive range, multiple, unique": Ruled = r#"{"value": {"code": "C", "score": 1, "step": 12, "items": [4, 4]}}"#;
        "rules pass": Ruled = r#"{"value": {"code": "A", "score": 0.5, "step": -15, "items": [4, 5]}}"#;
        "integer root out of range": i8 = r#"{"value": 128}"#;
        "bare scalar root": u64 = "18446744073709551615";
        "bare scalar with prose after": u32 = "42 apples";
        "tuple length": (u8, String) = r#"{"value": [1, "a", true]}"#;
        "text result trimmed": String = "  Dear Dana,\n thanks.  \n";
        "text result empty": String = " \n ";
    };
    let mut out = String::new();
    for (name, ty, reply, result) in &cases {
        let _ = write!(out, "## {name}\ntype: {ty}\nreply: {reply}\n{result}\n");
    }
    assert!(cases.len() >= 40, "the corpus has {} cases", cases.len());
    intent_tests::golden::check("read/corpus.txt", &out);
}

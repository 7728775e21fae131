//! The reply reader against a corpus of malformed and odd replies, each with its outcome: the value
//! read, or the exact issues (kind, path and message). The outcomes live in
//! `tests/fixtures/golden/read/corpus.txt`; regenerate with `INTENT_BLESS=1` and review the diff.

use std::collections::BTreeMap;
use std::fmt::Write;

use intent_core::__internals::{read_reply_json, read_reply_lenient, read_value};
use intent_core::read::read_reply;
use intent_core::shape::TargetKind;
use intent_core::{Intent, ResultIssue};
use intent_tests::shapes::*;
use serde::{Deserialize, Serialize};

/// A struct for replies whose answer hides among other JSON.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Intent)]
struct Rooms {
    rooms: u32,
}

/// Two members, one optional.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Intent)]
struct Pair {
    a: u32,
    b: Option<u32>,
}

/// A decimal with a number rule.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Intent)]
struct Price {
    #[intent(minimum = 10)]
    amount: rust_decimal::Decimal,
}

/// Items whose name is required, for many findings at once.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, Intent)]
struct Item {
    name: String,
}

fn many(count: usize, each: impl Fn(usize) -> String) -> String {
    (0..count).map(each).collect::<Vec<_>>().join(", ")
}

/// The outcome of reading `reply` as a `T`, the same by every path: the fast path, the lenient
/// path, and `read_reply_json` (whose JSON `read_value` reads back to the same value).
fn outcome<T: Intent + Serialize>(reply: &str) -> String {
    let info = T::type_info();
    let fast = read_reply::<T>(&info, reply);
    let text = render(&fast);
    let lenient = read_reply_lenient::<T>(&info, reply);
    assert_eq!(
        text,
        render(&lenient),
        "the fast path and the lenient path disagree on {reply:?}"
    );
    let with_json = read_reply_json::<T>(&info, reply);
    let json_value = with_json
        .as_ref()
        .map(|(value, _)| value)
        .map_err(Clone::clone);
    assert_eq!(
        text,
        render(&json_value),
        "read_reply and read_reply_json disagree on {reply:?}"
    );
    if let Ok((_, json)) = with_json {
        if info.target() != TargetKind::Text {
            let again = read_value::<T>(&info, json);
            assert_eq!(text, render(&again), "read_value disagrees on {reply:?}");
        }
    }
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
        "the same answer twice reads once": PurchaseRequest = format!("{GOOD}\n{GOOD}");
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
        "flatten: envelope with other members": Contact = r#"{"value": {"fullName": "Sam", "City": "Oslo", "zip": "0150"}, "note": "x"}"#;
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

        // A value cut off is truncation, never a part of itself.
        "cut off: array after prose": Vec<i64> = r#"Sure: {"value": [1, 2, 3]"#;
        "cut off: bare array": Vec<i64> = "[1, 2, 3";
        "cut off: object lost its final brace": Order = r#"{"value": {"id": "o1", "status": "Open", "lines": [{"sku": "A", "quantity": 1}], "rating": [1, 2], "grade": "A", "weight": 1}"#;
        "cut off: inside a number": Pair = r#"{"value": {"a": 4"#;
        "cut off: after a colon": Pair = r#"{"value":"#;
        "cut off: inside a literal": Option<bool> = r#"{"value": tru"#;
        "cut off: inside an escape": Vec<String> = r#"{"value": ["a\u00"#;
        "cut off: inside a comment": u32 = r#"{"value": 1 /* because"#;
        "cut off: inside a member name": Pair = r#"{"val"#;
        "cut off: after a comma": Vec<u8> = r#"{"value": [1,"#;
        "cut off: inside a fence after prose": Vec<u8> = "Here:\n```json\n{\"value\": [1, 2";
        "cut off: after a complete value": Vec<u8> = r#"{"value": [1]} and then {"value": [2"#;
        "cut off: inside a surrogate pair": Vec<String> = r#"{"value": ["\ud83d"#;
        "cut off: a lone brace": Rooms = "{";
        "cut off: an opening fence and brace": Rooms = "```json\n{";
        "cut off: a bare string": Status = r#""Ope"#;
        "cut off: nested arrays": Vec<Vec<u8>> = r#"{"value": [[1], [2, 3"#;
        "cut off: inside the number of a fraction": f64 = r#"{"value": 2."#;

        // The first bracket in prose does not win.
        "prose bracket: listing['rooms'] before the object": Rooms = r#"Looking at listing['rooms'] first: {"rooms": 3}"#;
        "prose bracket: a footnote": Rooms = r#"See [1]. {"rooms": 2}"#;
        "prose bracket: an array for an array type competes": Vec<u32> = r#"Counting [1, 2] first: {"value": [3]}"#;
        "prose bracket: an example object before a list": Vec<u32> = r#"Each entry looks like {"n": 1}; the answer: [1, 2]"#;
        "prose bracket: a set in braces": Rooms = r#"The set {1, 2} is not it: {"rooms": 2}"#;
        "prose bracket: a placeholder": Rooms = r#"Fill {name} in: {"rooms": 2}"#;
        "prose bracket: braces in a sentence": Rooms = r#"Objects are written { like this }; here: {"rooms": 3}"#;
        "prose bracket: see note": Rooms = r#"[see note] {"rooms": 1}"#;
        "prose bracket: only an object for a number": u32 = r#"Given {"a": 1}, the answer follows."#;
        "prose bracket: broken JSON at a line start is refused": Rooms = "[05]\n{\"rooms\": 1}";

        // A token must end at a delimiter.
        "token: thousands separator at the top": u32 = "4,250";
        "token: a fraction written with a slash": f64 = "3/4";
        "token: an identifier that starts with digits": f64 = "512e7f30-0c1a-4d2b-9f00-5a5a5a5a5a5a";
        "token: a slash fraction inside JSON": f64 = r#"{"value": 3/4}"#;
        "token: an identifier inside JSON": f64 = r#"{"value": 512e7f30-0c1a-4d2b-9f00-5a5a5a5a5a5a}"#;
        "token: thousands separator inside an object": Pair = r#"{"value": {"a": 4,250}}"#;
        "token: thousands separator inside an array": Vec<u32> = r#"{"value": [4,250]}"#;
        "token: a percent sign": u32 = "42%";
        "token: two decimal points": f64 = r#"{"value": 1.5.2}"#;
        "token: letters after digits": u32 = r#"{"value": 12abc}"#;
        "token: an underscore separator": u32 = r#"{"value": 1_000}"#;
        "token: hexadecimal": u32 = r#"{"value": 0x1F}"#;
        "token: a leading point": f64 = r#"{"value": .5}"#;
        "token: a plus sign": f64 = r#"{"value": +5}"#;
        "token: a trailing point": f64 = r#"{"value": 5.}"#;
        "token: an exponent without digits": f64 = r#"{"value": 1e}"#;
        "token: a negative leading point": f64 = "-.3";
        "token: a bare leading point": f64 = ".25";
        "token: a bare trailing point": f64 = "2.";
        "token: trailing points in a list": Vec<f64> = r#"{"value": [1., 2.]}"#;
        "token: a trailing point before an exponent": f64 = r#"{"value": 1.e2}"#;
        "token: a point alone": f64 = r#"{"value": .}"#;
        "token: a leading point in a string for a number": Rooms = r#"{"rooms": "3."}"#;
        "token: a lone minus": f64 = r#"{"value": -}"#;
        "token: a literal ending a sentence": bool = "true.";
        "token: a word that starts like a literal": bool = "truely";
        "token: a literal run on inside JSON": bool = r#"{"value": truee}"#;
        "token: null run on inside JSON": Option<u8> = r#"{"value": nullx}"#;
        "token: a number ending a sentence": u32 = "42.";
        "token: a number then a new line": u32 = "42\n";
        "token: a date is no number": u32 = "2026-11-15";
        "token: a negative bare number": i32 = "-17 degrees";

        // Trailing content that is not prose is refused.
        "trailing: a member after the object": Pair = r#"{"a": 1}, "b": 2}"#;
        "trailing: a second object after a comma": Pair = r#"{"a": 1}, {"a": 2}"#;
        "trailing: the same object twice after a comma": Pair = r#"{"a": 1}, {"a": 1}"#;
        "trailing: a literal after a literal": bool = "false or true";
        "trailing: a quote inside a bare string": Option<String> = r#""A 27" monitor""#;
        "trailing: an extra closing brace": Pair = r#"{"a": 1}}"#;
        "trailing: an extra closing bracket": Pair = r#"{"a": 1}]"#;
        "trailing: a colon after the object": Pair = r#"{"a": 1}: 2"#;
        "trailing: a string after the object": Pair = r#"{"a": 1} "extra""#;
        "trailing: an unquoted member after a comma": Pair = r#"{"a": 1}, b: 2"#;
        "trailing: prose after the envelope": u32 = r#"{"value": 3} done"#;
        "trailing: a full stop": u32 = r#"{"value": 3}."#;
        "trailing: a comma and prose": u32 = r#"{"value": 3}, as asked."#;
        "trailing: a member name without braces": u32 = r#""value": 3"#;
        "trailing: a second number in prose": u32 = "42 apples, 3 pears";
        "trailing: two numbers": u32 = "42 or 43";
        "trailing: two literals with a comma": bool = "true, false";
        "trailing: null or a number": Option<u32> = "null or 5";
        "trailing: a number beside a string answer is no rival": Status = r#""Open" since 2024"#;
        "trailing: strings joined with a plus": Option<String> = r#""hello" + " world""#;
        "trailing: strings joined with a plus across a comment": Option<String> = "\"hello\" + /*comment*/ \" world\"";
        "trailing: three strings joined": serde_json::Value = r#""a"+"b"+"c""#;
        "trailing: equal objects separated by commas": serde_json::Value = "{}, {}, {}";
        "trailing: objects separated by commas and comments": serde_json::Value = "/* 1 */\n{},\n\n/* 2 */\n{},\n\n/* 3 */\n{}\n";
        "trailing: lists separated by a comma": Vec<u8> = "[1], [1]";
        "leading: a quoted member name before the object": Pair = r#""x": {"a": 1}"#;
        "leading: a value and a comma before the object": Pair = r#""x", {"a": 1}"#;

        // Of two candidates, neither is taken.
        "two: fenced blocks that differ": Rooms = "First:\n```json\n{\"rooms\": 2}\n```\nOr:\n```json\n{\"rooms\": 3}\n```";
        "two: fenced blocks that agree": Rooms = "```json\n{\"rooms\": 2}\n```\nAgain:\n```json\n{\"rooms\": 2}\n```";
        "two: objects in prose that differ": Rooms = r#"I had {"rooms": 2} but then {"rooms": 3}."#;
        "two: one reads, one does not": Rooms = r#"I had {"rooms": 2} but the answer is {"rooms": "three"}."#;
        "two: envelope and bare value that agree": Rooms = r#"{"value": {"rooms": 3}}, that is {"rooms": 3}"#;
        "two: a draft then the fenced answer": Rooms = "Draft {\"rooms\": 1}\n```json\n{\"rooms\": 2}\n```";
        "two: three candidates, the third differs": Rooms = r#"{"rooms": 1} and {"rooms": 1} or {"rooms": 4}"#;
        "two: arrays that differ": Vec<u8> = "[1, 2]\n[1, 3]";
        "two: neither reads": Rooms = r#"{"rooms": "a"} {"rooms": "b"}"#;
        "two: an answer repeated in a fence and in prose": Rooms = "The answer is {\"rooms\": 5}:\n```json\n{\"value\": {\"rooms\": 5}}\n```";

        // Leading zeros are refused.
        "zeros: a bare number": u32 = "0789";
        "zeros: inside an object": Rooms = r#"{"rooms": 05}"#;
        "zeros: in a string for a number": Rooms = r#"{"rooms": "05"}"#;
        "zeros: negative": i32 = r#"{"value": -05}"#;
        "zeros: two zeros": u32 = r#"{"value": 00}"#;
        "zeros: a fraction below one is fine": f64 = r#"{"value": 0.5}"#;
        "zeros: zero is fine": u32 = r#"{"value": 0}"#;
        "zeros: negative zero is zero": i32 = r#"{"value": -0}"#;
        "zeros: zero with an exponent": u32 = r#"{"value": 0e5}"#;
        "zeros: a map key with a leading zero": BTreeMap<u16, String> = r#"{"value": {"007": "bond", "7": "seven"}}"#;
        "zeros: a map key with a sign": BTreeMap<u16, String> = r#"{"value": {"+7": "seven"}}"#;

        // Form leniency.
        "form: a markdown bullet": Rooms = r#"- {"rooms": 3}"#;
        "form: a starred bullet": Rooms = r#"* {"rooms": 3}"#;
        "form: a numbered item": Rooms = r#"1. {"rooms": 3}"#;
        "form: a numbered item with a parenthesis": Rooms = r#"1) {"rooms": 3}"#;
        "form: no-break spaces": Rooms = "{\"rooms\":\u{a0}3,\u{a0}}";
        "form: thin and ideographic spaces": Rooms = "{\u{3000}\"rooms\"\u{2009}:\u{202f}3}";
        "form: a byte order mark first": Rooms = "\u{feff}{\"rooms\": 3}";
        "form: a zero-width space": Rooms = "{\"rooms\":\u{200b}3}";
        "form: a line separator": Rooms = "{\"rooms\":\u{2028}3}";
        "form: a quoted markdown line": Rooms = r#"> {"rooms": 3}"#;
        "form: bold label before": Rooms = r#"**Answer:** {"rooms": 3}"#;
        "form: indented block": Rooms = "Answer:\n\n    {\"rooms\": 3}\n";
        "form: inline code": Rooms = "`{\"rooms\": 3}`";
        "form: a language word without a fence": Rooms = "json\n{\"rooms\": 3}";
        "form: an upper-case fence": Rooms = "```JSON\n{\"rooms\": 3}\n```";
        "form: a jsonc fence with a comment": Rooms = "```jsonc\n{\"rooms\": 3 // three\n}\n```";
        "form: a fence on one line": Rooms = "```{\"rooms\": 3}```";
        "form: tags around the answer": Rooms = r#"<answer>{"rooms": 3}</answer>"#;
        "form: windows line ends": Rooms = "{\r\n  \"rooms\": 3\r\n}\r\n";
        "form: a fence holding backticks in a string": Vec<String> = "```json\n{\"value\": [\"a ``` b\"]}\n```";

        // Reasoning blocks are not searched for the answer.
        "reasoning: think block with a draft": Rooms = "<think>maybe {\"rooms\": 0}</think>{\"rooms\": 1}";
        "reasoning: thinking block": Rooms = "<thinking>maybe {\"rooms\": 0}</thinking>\n{\"rooms\": 1}";
        "reasoning: reasoning block": Rooms = "<reasoning>maybe [0]</reasoning> {\"rooms\": 1}";
        "reasoning: upper-case tags": Rooms = "<THINK>maybe {\"rooms\": 0}</THINK>{\"rooms\": 1}";
        "reasoning: a closing tag alone": Rooms = "maybe {\"rooms\": 0}, no.\n</think>\n{\"rooms\": 1}";
        "reasoning: never closed": Rooms = "<think>maybe {\"rooms\": 0}";
        "reasoning: a tag inside a string is text": Vec<String> = r#"{"value": ["<think>", "</think>"]}"#;
        "reasoning: two blocks": Rooms = "<think>a</think>\n<think>b {\"rooms\": 9}</think>\n{\"rooms\": 1}";
        "reasoning: a block after the answer": Rooms = "{\"rooms\": 1}\n<think>was it {\"rooms\": 2}?</think>";
        "reasoning: a block between prose and the answer": Rooms = "Let me see. <think>{\"rooms\": 7}</think> Answer: {\"rooms\": 1}";
        "reasoning: only reasoning": Rooms = "<think>{\"rooms\": 7}</think>";
        "reasoning: a fence inside the block": Rooms = "<think>```json\n{\"rooms\": 7}\n```</think>```json\n{\"rooms\": 1}\n```";
        "reasoning: a text result without its reasoning": String = "<think>Be polite.</think>\nDear Dana, thanks.";
        "reasoning: the fast path after a block": Vec<u8> = "<think>easy</think>\n{\"value\": [1, 2]}";

        // Findings are bounded per reply.
        "bounded: sixty wrong elements": Vec<Item> = format!("{{\"value\": [{}]}}", many(60, |i| i.to_string()));
        "bounded: sixty repeated members": Item = format!("{{\"value\": {{{}}}}}", many(61, |_| "\"name\": \"x\"".into()));
        "bounded: sixty rule failures": Vec<PurchaseRequest> = format!("{{\"value\": [{}]}}", many(60, |_| r#"{"contact": "D", "sku": "a", "quantity": 0}"#.into()));

        // A decimal written as a string has its rules checked; broken escapes are named.
        "decimal: a string below the minimum": Price = r#"{"value": {"amount": "5"}}"#;
        "decimal: a number below the minimum": Price = r#"{"value": {"amount": 5}}"#;
        "decimal: a string above the minimum": Price = r#"{"value": {"amount": "12.50"}}"#;
        "decimal: a string that holds no number": Price = r#"{"value": {"amount": "ten"}}"#;
        "decimal: a string with a leading zero": Price = r#"{"value": {"amount": "012"}}"#;
        "escape: a broken \\u escape": Vec<String> = r#"{"value": ["\u000é"]}"#;
        "escape: letters in a \\u escape": Vec<String> = r#"{"value": ["\uZZZZ"]}"#;
        "escape: a short \\u escape": Vec<String> = r#"{"value": ["\u12"]}"#;
        "escape: a \\x escape": Vec<String> = r#"{"value": ["\x41"]}"#;
        "escape: a lone low surrogate": Vec<String> = r#"{"value": ["\udc00"]}"#;

        // Whole numbers are read exactly or not at all.
        "exact: a fraction a double cannot hold": u32 = r#"{"value": 1.0000000000000000001}"#;
        "exact: one past u64": u64 = r#"{"value": 18446744073709551616}"#;
        "exact: a large whole number with a fraction": u64 = r#"{"value": 12345678901234567890.0}"#;
        "exact: a large whole number is exact": u64 = r#"{"value": 9007199254740993}"#;
        "exact: an exponent for a whole number": u32 = r#"{"value": 4e1}"#;
        "exact: an underflow to zero is the nearest double": f64 = r#"{"value": 1e-400}"#;
        "exact: an underflow to zero is no integer": u32 = r#"{"value": 1e-400}"#;
        "exact: a lost fraction in a list of integers": Vec<u32> = r#"{"value": [2, 1.0000000000000000001]}"#;
        "exact: a lost fraction in a string": u32 = r#"{"value": "1.0000000000000000001"}"#;
        "exact: a whole number in a string with a fraction": u32 = r#"{"value": "40.0"}"#;
        "exact: a whole number in a string with spaces": u32 = r#"{"value": " 40 "}"#;
    };
    let mut out = String::new();
    for (name, ty, reply, result) in &cases {
        let _ = write!(out, "## {name}\ntype: {ty}\nreply: {reply}\n{result}\n");
    }
    assert!(cases.len() >= 200, "the corpus has {} cases", cases.len());
    intent_tests::golden::check("read/corpus.txt", &out);
}

//! The derive on odd but legal types: generics with bounds and where clauses, lifetimes held in
//! `PhantomData`, raw identifiers, very many fields, nested generics, recursion through `Box`,
//! `Option` and `Vec`, and enums with no variants or only skipped ones. Each compiles, describes
//! itself, gets the right strict verdict, and reads a reply without panicking.
#![allow(dead_code, clippy::type_complexity)]

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::marker::PhantomData;

use intent_core::read::read_reply;
use intent_core::Intent;
use serde::Deserialize;

#[derive(Debug, Deserialize, Intent)]
struct Bounded<T, U: Clone>
where
    T: Debug + Clone,
{
    first: T,
    second: Vec<U>,
}

#[derive(Debug, Deserialize, Intent)]
struct Borrowing<'a> {
    name: String,
    #[serde(skip)]
    marker: PhantomData<&'a str>,
}

#[derive(Debug, Deserialize, Intent)]
#[allow(non_camel_case_types)]
struct r#Raw {
    r#type: String,
    r#match: u32,
}

#[derive(Debug, Deserialize, Intent)]
struct Nested<T> {
    inner: Option<Vec<Option<BTreeMap<String, Vec<T>>>>>,
}

/// A tree that holds itself through `Option<Box<Self>>` and `Vec<Self>`.
#[derive(Debug, Deserialize, Intent)]
struct Tree {
    label: String,
    parent: Option<Box<Tree>>,
    children: Vec<Tree>,
}

#[derive(Debug, Deserialize, Intent)]
enum Never {}

#[derive(Debug, Deserialize, Intent)]
enum OnlySkipped {
    #[serde(skip)]
    #[allow(dead_code)]
    Hidden,
}

#[derive(Debug, Deserialize, Intent)]
#[allow(dead_code)]
struct Wide {
    f00: u8,
    f01: u8,
    f02: u8,
    f03: u8,
    f04: u8,
    f05: u8,
    f06: u8,
    f07: u8,
    f08: u8,
    f09: u8,
    f10: u8,
    f11: u8,
    f12: u8,
    f13: u8,
    f14: u8,
    f15: u8,
    f16: u8,
    f17: u8,
    f18: u8,
    f19: u8,
    f20: u8,
    f21: u8,
    f22: u8,
    f23: u8,
    f24: u8,
    f25: u8,
    f26: u8,
    f27: u8,
    f28: u8,
    f29: u8,
    f30: u8,
    f31: u8,
    f32: u8,
    f33: u8,
    f34: u8,
    f35: u8,
    f36: u8,
    f37: u8,
    f38: u8,
    f39: u8,
    f40: u8,
    f41: u8,
    f42: u8,
    f43: u8,
    f44: u8,
    f45: u8,
    f46: u8,
    f47: u8,
    f48: u8,
    f49: u8,
    f50: u8,
    f51: u8,
    f52: u8,
    f53: u8,
    f54: u8,
    f55: u8,
    f56: u8,
    f57: u8,
    f58: u8,
    f59: u8,
    f60: u8,
    f61: u8,
    f62: u8,
    f63: u8,
    f64: u8,
    f65: u8,
    f66: u8,
    f67: u8,
    f68: u8,
    f69: u8,
}

#[test]
fn generic_types_with_where_clauses_read_replies() {
    assert!(<Bounded<String, u8>>::is_strict_compatible());
    let info = <Bounded<String, u8>>::type_info();
    let read: Bounded<String, u8> =
        read_reply(&info, r#"{"value": {"first": "a", "second": [1, 2]}}"#).unwrap();
    assert_eq!(read.second, vec![1, 2]);
}

#[test]
fn lifetimes_in_phantom_data_and_raw_identifiers_compile_and_read() {
    let info = Borrowing::type_info();
    let read: Borrowing<'static> = read_reply(&info, r#"{"name": "x"}"#).unwrap();
    assert_eq!(read.name, "x");
    assert!(!Borrowing::describe().contains("marker"));

    let info = Raw::type_info();
    assert!(Raw::describe().contains("type"), "{}", Raw::describe());
    assert!(!Raw::describe().contains("r#"), "{}", Raw::describe());
    let read: Raw = read_reply(&info, r#"{"type": "t", "match": 2}"#).unwrap();
    assert_eq!((read.r#type.as_str(), read.r#match), ("t", 2));
}

#[test]
fn nested_generics_fall_back_without_a_schema() {
    assert!(!<Nested<u8>>::is_strict_compatible());
    assert!(<Nested<u8>>::strict_envelope_schema().is_none());
    let info = <Nested<u8>>::type_info();
    let read: Nested<u8> = read_reply(&info, r#"{"inner": [null, {"k": [1]}]}"#).unwrap();
    assert!(read.inner.is_some());
}

#[test]
fn self_recursion_through_option_box_and_vec_is_not_strict_and_reads() {
    assert!(!Tree::is_strict_compatible());
    assert!(Tree::describe().contains("Tree"));
    let info = Tree::type_info();
    let reply = r#"{"label": "a", "parent": {"label": "b", "parent": null, "children": []}, "children": [{"label": "c", "parent": null, "children": []}]}"#;
    let read: Tree = read_reply(&info, reply).unwrap();
    assert_eq!(read.children[0].label, "c");
    // A deep reply is refused with an issue, not a stack overflow.
    let deep = format!(
        "{}{}",
        r#"{"label":"x","children":[],"parent":"#.repeat(200),
        "null".to_owned() + &"}".repeat(200)
    );
    let issues = read_reply::<Tree>(&info, &deep).unwrap_err();
    assert!(!issues.is_empty());
}

#[test]
fn enums_with_no_readable_variant_refuse_every_reply() {
    let _ = Never::describe();
    let _ = OnlySkipped::describe();
    for reply in [
        r#"{"value": "Hidden"}"#,
        r#"{"value": 1}"#,
        r#"{"value": null}"#,
        "Hidden",
    ] {
        assert!(
            read_reply::<Never>(&Never::type_info(), reply).is_err(),
            "{reply}"
        );
        assert!(
            read_reply::<OnlySkipped>(&OnlySkipped::type_info(), reply).is_err(),
            "{reply}"
        );
    }
}

#[test]
fn very_many_fields_describe_and_read() {
    assert!(Wide::is_strict_compatible());
    let schema = Wide::strict_envelope_schema().unwrap();
    assert_eq!(
        schema["properties"]["value"]["required"]
            .as_array()
            .unwrap()
            .len(),
        70
    );
    let body: Vec<String> = (0..70).map(|i| format!("\"f{i:02}\": {i}")).collect();
    let reply = format!("{{\"value\": {{{}}}}}", body.join(", "));
    let read: Wide = read_reply(&Wide::type_info(), &reply).unwrap();
    assert_eq!(read.f69, 69);
}

//! Result types for the reader's tests, with `Intent` written by hand: each `shape` registers the
//! type's node once through `ShapeGraph::named`, next to serde's `Deserialize`.

#![allow(dead_code)]

use std::any::type_name;
use std::collections::{BTreeMap, BTreeSet};

use intent_core::__internals::shape::{
    EnumRepr, EnumShape, Field, Node, NodeId, Pattern, ShapeGraph, StructKind, StructShape,
    Variant, VariantKind,
};
use intent_core::Intent;
use serde::{Deserialize, Serialize};

fn object(name: &'static str, fields: Vec<Field>) -> Node {
    Node::Struct(StructShape::new(name, StructKind::Named(fields)))
}

fn optional(mut field: Field) -> Field {
    field.required = false;
    field
}

fn variant(name: &'static str, kind: VariantKind) -> Variant {
    Variant::new(name, kind)
}

fn enumeration(name: &'static str, repr: EnumRepr, variants: Vec<Variant>) -> Node {
    Node::Enum(EnumShape::new(name, repr, variants))
}

/// A purchase request with rules: quantity 1..=1000, a SKU pattern, a contact of at most 40 characters.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PurchaseRequest {
    pub contact: String,
    pub sku: String,
    pub quantity: u32,
    pub deliver_by: Option<chrono::NaiveDate>,
}

impl Intent for PurchaseRequest {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let mut contact = Field::new("contact", String::shape(graph));
            contact.rules.max_length = Some(40);
            let mut sku = Field::new("sku", String::shape(graph));
            sku.rules.pattern = Some(Pattern::cached("^[A-Z]-\\d+$").expect("valid pattern"));
            let mut quantity = Field::new("quantity", u32::shape(graph));
            quantity.rules.minimum = Some(1.0);
            quantity.rules.maximum = Some(1000.0);
            let deliver_by = optional(Field::new(
                "deliverBy",
                Option::<chrono::NaiveDate>::shape(graph),
            ));
            object("PurchaseRequest", vec![contact, sku, quantity, deliver_by])
        })
    }
}

/// A unit enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize)]
pub enum Status {
    Open,
    Closed,
}

impl Intent for Status {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |_, _| {
            enumeration(
                "Status",
                EnumRepr::External,
                vec![
                    variant("Open", VariantKind::Unit),
                    variant("Closed", VariantKind::Unit),
                ],
            )
        })
    }
}

/// One order line.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Line {
    pub sku: String,
    pub quantity: u8,
}

impl Intent for Line {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let sku = Field::new("sku", String::shape(graph));
            let quantity = Field::new("quantity", u8::shape(graph));
            object("Line", vec![sku, quantity])
        })
    }
}

/// An order: nested structs, an enum, a list with an item-count rule, a fixed array and a char.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Order {
    pub id: String,
    pub status: Status,
    pub lines: Vec<Line>,
    pub rating: [u8; 2],
    pub grade: char,
    pub weight: f64,
}

impl Intent for Order {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let id = Field::new("id", String::shape(graph));
            let status = Field::new("status", Status::shape(graph));
            let mut lines = Field::new("lines", Vec::<Line>::shape(graph));
            lines.rules.max_items = Some(3);
            let rating = Field::new("rating", <[u8; 2]>::shape(graph));
            let grade = Field::new("grade", char::shape(graph));
            let weight = Field::new("weight", f64::shape(graph));
            object("Order", vec![id, status, lines, rating, grade, weight])
        })
    }
}

/// An internally tagged enum.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "type")]
pub enum Figure {
    Circle { radius: f64 },
    Square { side: f64 },
    Empty,
}

impl Intent for Figure {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let f64_id = f64::shape(graph);
            enumeration(
                "Figure",
                EnumRepr::Internal { tag: "type".into() },
                vec![
                    variant(
                        "Circle",
                        VariantKind::Struct(vec![Field::new("radius", f64_id)]),
                    ),
                    variant(
                        "Square",
                        VariantKind::Struct(vec![Field::new("side", f64_id)]),
                    ),
                    variant("Empty", VariantKind::Unit),
                ],
            )
        })
    }
}

/// An externally tagged data enum.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub enum Event {
    Ping,
    Move { x: i32, y: i32 },
    Say(String),
    Pair(u8, u8),
}

impl Intent for Event {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let i = i32::shape(graph);
            let s = String::shape(graph);
            let b = u8::shape(graph);
            enumeration(
                "Event",
                EnumRepr::External,
                vec![
                    variant("Ping", VariantKind::Unit),
                    variant(
                        "Move",
                        VariantKind::Struct(vec![Field::new("x", i), Field::new("y", i)]),
                    ),
                    variant("Say", VariantKind::Newtype(s)),
                    variant("Pair", VariantKind::Tuple(vec![b, b])),
                ],
            )
        })
    }
}

/// An adjacently tagged enum.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", content = "data")]
pub enum Message {
    Text(String),
    Count(u32),
    Nothing,
}

impl Intent for Message {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let s = String::shape(graph);
            let n = u32::shape(graph);
            enumeration(
                "Message",
                EnumRepr::Adjacent {
                    tag: "kind".into(),
                    content: "data".into(),
                },
                vec![
                    variant("Text", VariantKind::Newtype(s)),
                    variant("Count", VariantKind::Newtype(n)),
                    variant("Nothing", VariantKind::Unit),
                ],
            )
        })
    }
}

/// An untagged enum.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Amount {
    Exact(u32),
    Range { low: u32, high: u32 },
}

impl Intent for Amount {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let n = u32::shape(graph);
            enumeration(
                "Amount",
                EnumRepr::Untagged,
                vec![
                    variant("Exact", VariantKind::Newtype(n)),
                    variant(
                        "Range",
                        VariantKind::Struct(vec![Field::new("low", n), Field::new("high", n)]),
                    ),
                ],
            )
        })
    }
}

/// A struct with a flattened member and an alias.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Contact {
    #[serde(alias = "fullName")]
    pub name: String,
    #[serde(flatten)]
    pub address: Address,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Address {
    pub city: String,
    pub zip: String,
}

impl Intent for Address {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let s = String::shape(graph);
            object("Address", vec![Field::new("city", s), Field::new("zip", s)])
        })
    }
}

impl Intent for Contact {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let mut name = Field::new("name", String::shape(graph));
            name.aliases.push("fullName".into());
            let mut address = Field::new("address", Address::shape(graph));
            address.flatten = true;
            object("Contact", vec![name, address])
        })
    }
}

/// A struct with its own member named `value`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Reading {
    pub value: f64,
    pub unit: String,
}

impl Intent for Reading {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let v = Field::new("value", f64::shape(graph));
            let unit = Field::new("unit", String::shape(graph));
            object("Reading", vec![v, unit])
        })
    }
}

/// Maps and sets: keys per key shape, set elements unique.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Inventory {
    pub stock: BTreeMap<u16, String>,
    pub by_status: BTreeMap<Status, u32>,
    pub tags: BTreeSet<String>,
}

impl Intent for Inventory {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let stock = Field::new("stock", BTreeMap::<u16, String>::shape(graph));
            let by_status = Field::new("by_status", BTreeMap::<Status, u32>::shape(graph));
            let mut tags = Field::new("tags", BTreeSet::<String>::shape(graph));
            tags.rules.min_items = Some(1);
            object("Inventory", vec![stock, by_status, tags])
        })
    }
}

/// Dates and times.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Schedule {
    pub day: chrono::NaiveDate,
    pub at: chrono::NaiveDateTime,
    pub stamp: chrono::DateTime<chrono::FixedOffset>,
}

impl Intent for Schedule {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let day = Field::new("day", chrono::NaiveDate::shape(graph));
            let at = Field::new("at", chrono::NaiveDateTime::shape(graph));
            let stamp = Field::new(
                "stamp",
                chrono::DateTime::<chrono::FixedOffset>::shape(graph),
            );
            object("Schedule", vec![day, at, stamp])
        })
    }
}

/// A recursive type (a tree of any depth).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Tree {
    pub name: String,
    pub children: Vec<Tree>,
}

impl Intent for Tree {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, me| {
            let name = Field::new("name", String::shape(graph));
            let children = graph.add(Node::Seq {
                item: me,
                kind: intent_core::__internals::shape::SeqKind::List,
            });
            object("Tree", vec![name, Field::new("children", children)])
        })
    }
}

/// A rule with allowed values and an exclusive range, for the rules table.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Ruled {
    pub code: String,
    pub score: f64,
    pub step: i64,
    pub items: Vec<u8>,
}

impl Intent for Ruled {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(type_name::<Self>(), |graph, _| {
            let mut code = Field::new("code", String::shape(graph));
            code.rules.allowed = Some(vec!["A".into(), "B".into()]);
            code.rules.min_length = Some(1);
            let mut score = Field::new("score", f64::shape(graph));
            score.rules.exclusive_minimum = Some(0.0);
            score.rules.exclusive_maximum = Some(1.0);
            let mut step = Field::new("step", i64::shape(graph));
            step.rules.multiple_of = Some(5.0);
            let mut items = Field::new("items", Vec::<u8>::shape(graph));
            items.rules.unique_items = true;
            items.rules.min_items = Some(2);
            object("Ruled", vec![code, score, step, items])
        })
    }
}

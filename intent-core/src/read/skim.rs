//! The fast path for a well-formed reply: serde reads the text straight into the type in one pass,
//! through a proxy that checks every value against the shape as it is read.
//!
//! The checks allocate nothing for a well-formed reply (strings are seen borrowed from the text)
//! and refuse anything the lenient path would read differently from serde: a member name not
//! written exactly, a required member missing, an array where an object is expected, a failed
//! rule. Whatever they refuse is read by the lenient path instead, which then reports or repairs
//! it, so the fast path never changes an outcome; it only skips the work of building a
//! `serde_json::Value`.
//!
//! Types with parts serde reads more loosely than the verifier (maps, sets, `serde_json::Value`,
//! `f32`, flattened members, internally, adjacently and untagged enums, `unique_items` rules) always
//! take the lenient path.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use crate::shape::{
    EnumRepr, Field, FloatKind, Node, NodeId, Rules, Scalar, SeqKind, ShapeGraph, StructKind,
    Variant, VariantKind,
};

use super::rules::{failures, Seen};

/// True when every part of the shape below `root` is read the same way by serde and the verifier.
pub(crate) fn eligible(graph: &ShapeGraph, root: NodeId) -> bool {
    let mut seen = vec![false; graph.len()];
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        let Some(slot) = seen.get_mut(id.index()) else {
            return false;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        let fields_ok = |fields: &[Field], stack: &mut Vec<NodeId>| {
            fields.iter().all(|f| {
                stack.push(f.ty);
                !f.flatten && !f.rules.unique_items
            })
        };
        let ok = match graph.node(id) {
            Node::Scalar(s) => !matches!(
                s,
                Scalar::Json | Scalar::JsonObject | Scalar::Float(FloatKind::F32)
            ),
            Node::Option(inner) => {
                stack.push(*inner);
                true
            }
            Node::Seq { item, kind } => {
                stack.push(*item);
                *kind != SeqKind::Set
            }
            Node::Tuple(items) => {
                stack.extend(items);
                true
            }
            Node::Struct(s) => match &s.kind {
                StructKind::Named(fields) => fields_ok(fields, &mut stack),
                StructKind::Newtype(inner) => {
                    stack.push(*inner);
                    true
                }
                StructKind::Tuple(items) => {
                    stack.extend(items);
                    true
                }
                StructKind::Unit => true,
            },
            Node::Enum(e) => {
                e.repr == EnumRepr::External
                    && e.variants.iter().all(|v| match &v.kind {
                        VariantKind::Unit => true,
                        VariantKind::Newtype(inner) => {
                            stack.push(*inner);
                            true
                        }
                        VariantKind::Tuple(items) => {
                            stack.extend(items);
                            true
                        }
                        VariantKind::Struct(fields) => fields_ok(fields, &mut stack),
                    })
            }
            Node::Map { .. } | Node::Reserved => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Reads `{"value": ...}` straight into `T`, or `None` when any check refuses the text.
pub(crate) fn read<T: de::DeserializeOwned>(
    graph: &ShapeGraph,
    root: NodeId,
    body: &str,
) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(body);
    let skim = Skim {
        graph,
        id: root,
        rules: None,
    };
    let value = Envelope(super::checked::seed::<T>(skim))
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    Some(value)
}

/// The error every failed check returns: the fast path gives way to the lenient path.
pub(super) fn refuse<E: de::Error>() -> E {
    E::custom("not certified")
}

/// `{"value": X}` with `X` read by the inner seed, and no other member.
struct Envelope<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Envelope<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Envelope<S> {
    type Value = S::Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{\"value\": ...}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<S::Value, A::Error> {
        match map.next_key::<EnvelopeKey>()? {
            Some(EnvelopeKey) => {}
            None => return Err(refuse()),
        }
        let value = map.next_value_seed(self.0)?;
        match map.next_key::<IgnoredAny>()? {
            None => Ok(value),
            Some(_) => Err(refuse()),
        }
    }
}

struct EnvelopeKey;

impl<'de> Deserialize<'de> for EnvelopeKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyIs(crate::schema::ENVELOPE_PROPERTY))
            .map(|()| EnvelopeKey)
    }
}

struct KeyIs(&'static str);

impl<'de> Visitor<'de> for KeyIs {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v == self.0 {
            Ok(())
        } else {
            Err(refuse())
        }
    }
}

/// Where a value sits in the shape: node `id`, with the member's rules, if any.
#[derive(Clone, Copy)]
pub(super) struct Skim<'g> {
    pub(super) graph: &'g ShapeGraph,
    pub(super) id: NodeId,
    pub(super) rules: Option<&'g Rules>,
}

/// How the elements of an array are read.
#[derive(Clone, Copy)]
pub(super) enum Elements<'g> {
    /// Any number of elements of one node; exactly `n` when `Some(n)`.
    Each(NodeId, Option<usize>),
    /// One element per node, in order.
    Fixed(&'g [NodeId]),
}

impl<'g> Skim<'g> {
    /// The same place in the shape at node `id`, with a member's `rules`.
    pub(super) fn at(self, id: NodeId, rules: Option<&'g Rules>) -> Skim<'g> {
        Skim {
            graph: self.graph,
            id,
            rules,
        }
    }

    /// The member's rules for `field`, when it has any.
    pub(super) fn field(self, field: &'g Field) -> Skim<'g> {
        let rules = (!field.rules.is_empty()).then_some(&field.rules);
        self.at(field.ty, rules)
    }

    /// The node below options and newtypes, and whether the value may be null.
    fn target(self) -> (&'g Node, bool) {
        let mut id = self.id;
        let mut nullable = false;
        for _ in 0..=self.graph.len() {
            match self.graph.node(id) {
                Node::Option(inner) => {
                    nullable = true;
                    id = *inner;
                }
                Node::Struct(s) => match &s.kind {
                    StructKind::Newtype(inner) => id = *inner,
                    _ => break,
                },
                _ => break,
            }
        }
        (self.graph.node(id), nullable)
    }

    /// The place of an `Option`'s content (the same place when the node is not an `Option`).
    pub(super) fn some(self) -> Skim<'g> {
        match self.graph.node(self.id) {
            Node::Option(inner) => self.at(*inner, self.rules),
            _ => self,
        }
    }

    /// The place of a newtype's content (the same place when the node is not a newtype).
    pub(super) fn newtype(self) -> Skim<'g> {
        match self.graph.node(self.id) {
            Node::Struct(s) => match &s.kind {
                StructKind::Newtype(inner) => self.at(*inner, self.rules),
                _ => self,
            },
            _ => self,
        }
    }

    pub(super) fn rules_pass<E: de::Error>(self, seen: Seen<'_>) -> Result<(), E> {
        let Some(rules) = self.rules else {
            return Ok(());
        };
        if !failures(rules, seen).is_empty() {
            return Err(refuse());
        }
        if let Some(allowed) = &rules.allowed {
            let hit = match seen {
                Seen::Number(v) => allowed.iter().any(|a| a.as_f64() == Some(v)),
                Seen::Text(s) => allowed.iter().any(|a| a.as_str() == Some(s)),
                _ => false,
            };
            if !hit {
                return Err(refuse());
            }
        }
        Ok(())
    }

    /// `null`: only where the shape is an `Option`, `()` or a unit struct.
    pub(super) fn null<E: de::Error>(self) -> Result<(), E> {
        match self.target() {
            (_, true) => Ok(()),
            (Node::Scalar(Scalar::Unit), _) => Ok(()),
            (Node::Struct(s), _) if matches!(s.kind, StructKind::Unit) => Ok(()),
            _ => Err(refuse()),
        }
    }

    pub(super) fn bool<E: de::Error>(self) -> Result<(), E> {
        match self.target().0 {
            Node::Scalar(Scalar::Bool) => Ok(()),
            _ => Err(refuse()),
        }
    }

    /// A number: an integer in the kind's range, or any number where the shape takes fractions.
    pub(super) fn number<E: de::Error>(self, v: f64, int: Option<i128>) -> Result<(), E> {
        let ok = match self.target().0 {
            Node::Scalar(Scalar::Int(kind)) => {
                int.is_some_and(|i| i >= kind.min() && i <= kind.max())
            }
            Node::Scalar(Scalar::Float(_) | Scalar::Decimal) => true,
            _ => false,
        };
        if !ok {
            return Err(refuse());
        }
        self.rules_pass(Seen::Number(v))
    }

    /// A string: text of any kind the shape reads from a string, or a unit variant's exact name.
    pub(super) fn text<E: de::Error>(self, v: &str) -> Result<(), E> {
        let ok = match self.target().0 {
            Node::Scalar(Scalar::Char) => v.chars().count() == 1,
            Node::Scalar(
                Scalar::String
                | Scalar::Date
                | Scalar::Time
                | Scalar::DateTime
                | Scalar::DateTimeOffset
                | Scalar::Uuid
                | Scalar::Url
                | Scalar::Decimal,
            ) => true,
            Node::Enum(e) => {
                e.variants.iter().any(|var| {
                    matches!(var.kind, VariantKind::Unit)
                        && (var.name == v || var.aliases.iter().any(|a| a == v))
                }) || super::enums::other_taking(&e.variants, v).is_some()
            }
            _ => false,
        };
        if !ok {
            return Err(refuse());
        }
        self.rules_pass(Seen::Text(v))
    }

    /// An array: how its elements are read.
    pub(super) fn elements<E: de::Error>(self) -> Result<Elements<'g>, E> {
        match self.target().0 {
            Node::Seq { item, kind } => Ok(Elements::Each(
                *item,
                match kind {
                    SeqKind::Array(n) => Some(*n),
                    _ => None,
                },
            )),
            Node::Tuple(items) => Ok(Elements::Fixed(items)),
            Node::Struct(s) => match &s.kind {
                StructKind::Tuple(items) => Ok(Elements::Fixed(items)),
                _ => Err(refuse()),
            },
            _ => Err(refuse()),
        }
    }

    /// An object: the struct's members.
    pub(super) fn fields<E: de::Error>(self) -> Result<&'g [Field], E> {
        match self.target().0 {
            Node::Struct(s) => match &s.kind {
                StructKind::Named(fields) => Ok(fields),
                _ => Err(refuse()),
            },
            _ => Err(refuse()),
        }
    }

    /// An enum: its variants.
    pub(super) fn variants<E: de::Error>(self) -> Result<&'g [Variant], E> {
        match self.target().0 {
            Node::Enum(e) if e.repr == EnumRepr::External => Ok(&e.variants),
            _ => Err(refuse()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::read;
    use crate::Intent;

    fn fast<T: Intent>(body: &str) -> Option<T> {
        let info = T::type_info();
        read::<T>(info.graph(), info.root(), body)
    }

    #[test]
    fn well_formed_replies_take_the_fast_path() {
        assert_eq!(
            fast::<Vec<u8>>(r#"{"value": [1, 2, 255]}"#),
            Some(vec![1, 2, 255])
        );
        assert_eq!(fast::<Option<u16>>(r#"{"value": null}"#), Some(None));
        assert_eq!(fast::<Option<u16>>(r#"{"value": 7}"#), Some(Some(7)));
        assert_eq!(
            fast::<(u8, String)>(r#"{"value": [3, "three"]}"#),
            Some((3, "three".to_owned()))
        );
        assert_eq!(fast::<[i8; 2]>(r#"{"value": [-1, 1]}"#), Some([-1, 1]));
        assert_eq!(fast::<char>(r#"{"value": "é"}"#), Some('é'));
        assert_eq!(
            fast::<Vec<bool>>(r#"{"value": [true, false]}"#),
            Some(vec![true, false])
        );
        assert_eq!(fast::<f64>(r#"{"value": 2.5}"#), Some(2.5));
    }

    #[test]
    fn values_the_shape_refuses_leave_the_fast_path() {
        assert_eq!(fast::<Vec<u8>>(r#"{"value": [1, 300]}"#), None);
        assert_eq!(fast::<Vec<u8>>(r#"{"value": [1, 2.5]}"#), None);
        assert_eq!(fast::<Vec<u8>>(r#"{"value": [1, "2"]}"#), None);
        assert_eq!(fast::<u16>(r#"{"value": null}"#), None);
        assert_eq!(fast::<(u8, String)>(r#"{"value": [3]}"#), None);
        assert_eq!(fast::<(u8, String)>(r#"{"value": [3, "a", 4]}"#), None);
        assert_eq!(fast::<[i8; 2]>(r#"{"value": [1, 2, 3]}"#), None);
        assert_eq!(fast::<char>(r#"{"value": "ab"}"#), None);
        assert_eq!(fast::<bool>(r#"{"value": "true"}"#), None);
    }

    #[test]
    fn the_envelope_must_be_exactly_value() {
        assert_eq!(fast::<u8>(r#"{"Value": 1}"#), None);
        assert_eq!(fast::<u8>(r#"{"value": 1, "note": 2}"#), None);
        assert_eq!(fast::<u8>(r#"{}"#), None);
        assert_eq!(fast::<u8>(r#"{"value": 1} 2"#), None);
    }
}

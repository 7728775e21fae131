//! The fast path for a well-formed reply: certify the text against the shape in one borrowed pass,
//! then let serde read it straight into the type.
//!
//! The certifying pass allocates nothing for a well-formed reply (strings are borrowed from the text)
//! and refuses anything the lenient path would read differently from serde: a member name not
//! written exactly, an array where an object is expected, a failed rule. Whatever it refuses is read
//! by the lenient path instead, which then reports or repairs it, so the fast path never changes an
//! outcome; it only skips the work of building a `serde_json::Value`.
//!
//! Types with parts serde reads more loosely than the verifier (maps, sets, `serde_json::Value`,
//! `f32`, flattened members, internally, adjacently and untagged enums, `unique_items` rules) always
//! take the lenient path.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::shape::{
    EnumRepr, Field, FloatKind, Node, NodeId, Rules, Scalar, SeqKind, ShapeGraph, StructKind,
    VariantKind,
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

/// Reads `{"value": ...}` straight into `T` when the certifying pass accepts it.
pub(crate) fn read<T: de::DeserializeOwned>(
    graph: &ShapeGraph,
    root: NodeId,
    body: &str,
) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(body);
    Envelope(Skim {
        graph,
        id: root,
        rules: None,
    })
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()?;
    let mut de = serde_json::Deserializer::from_str(body);
    let value = Envelope(PhantomData::<T>).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

fn refuse<E: de::Error>() -> E {
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

/// Certifies one value against node `id` (and the member's rules, if any).
#[derive(Clone, Copy)]
struct Skim<'g> {
    graph: &'g ShapeGraph,
    id: NodeId,
    rules: Option<&'g Rules>,
}

impl<'g> Skim<'g> {
    fn at(self, id: NodeId, rules: Option<&'g Rules>) -> Skim<'g> {
        Skim {
            graph: self.graph,
            id,
            rules,
        }
    }

    /// The node below options and newtypes; `None` means the value may be null.
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

    fn rules_pass<E: de::Error>(self, seen: Seen<'_>) -> Result<(), E> {
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

    fn number<E: de::Error>(self, v: f64, int: Option<i128>) -> Result<(), E> {
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
}

impl<'de> DeserializeSeed<'de> for Skim<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value of the target's shape")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        match self.target() {
            (_, true) => Ok(()),
            (Node::Scalar(Scalar::Unit), _) => Ok(()),
            (Node::Struct(s), _) if matches!(s.kind, StructKind::Unit) => Ok(()),
            _ => Err(refuse()),
        }
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        match self.target().0 {
            Node::Scalar(Scalar::Bool) => Ok(()),
            _ => Err(refuse()),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.number(v as f64, Some(i128::from(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.number(v as f64, Some(i128::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.number(v, None)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
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
            Node::Enum(e) => e.variants.iter().any(|var| {
                matches!(var.kind, VariantKind::Unit)
                    && (var.name == v || var.aliases.iter().any(|a| a == v))
            }),
            _ => false,
        };
        if !ok {
            return Err(refuse());
        }
        self.rules_pass(Seen::Text(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let count = match self.target().0 {
            Node::Seq { item, kind } => {
                let mut count = 0usize;
                while seq.next_element_seed(self.at(*item, None))?.is_some() {
                    count += 1;
                }
                if let SeqKind::Array(n) = kind {
                    if count != *n {
                        return Err(refuse());
                    }
                }
                count
            }
            Node::Tuple(items) => self.fixed(items, &mut seq)?,
            Node::Struct(s) => match &s.kind {
                StructKind::Tuple(items) => self.fixed(items, &mut seq)?,
                _ => return Err(refuse()),
            },
            _ => return Err(refuse()),
        };
        self.rules_pass(Seen::Items(count))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match self.target().0 {
            Node::Struct(s) => match &s.kind {
                StructKind::Named(fields) => self.fields(fields, &mut map),
                _ => Err(refuse()),
            },
            Node::Enum(e) => {
                let Some(index) = map.next_key_seed(VariantKey(&e.variants))? else {
                    return Err(refuse());
                };
                let content = VariantContent {
                    skim: self,
                    kind: &e.variants[index].kind,
                };
                map.next_value_seed(content)?;
                match map.next_key::<IgnoredAny>()? {
                    None => Ok(()),
                    Some(_) => Err(refuse()),
                }
            }
            _ => Err(refuse()),
        }
    }
}

impl<'g> Skim<'g> {
    fn fixed<'de, A: SeqAccess<'de>>(
        self,
        items: &[NodeId],
        seq: &mut A,
    ) -> Result<usize, A::Error> {
        for item in items {
            if seq.next_element_seed(self.at(*item, None))?.is_none() {
                return Err(refuse());
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(refuse());
        }
        Ok(items.len())
    }

    fn fields<'de, A: MapAccess<'de>>(
        self,
        fields: &'g [Field],
        map: &mut A,
    ) -> Result<(), A::Error> {
        while let Some(index) = map.next_key_seed(FieldKey(fields))? {
            let field = &fields[index];
            let rules = (!field.rules.is_empty()).then_some(&field.rules);
            map.next_value_seed(self.at(field.ty, rules))?;
        }
        Ok(())
    }
}

/// A member name written exactly as a field's wire name or alias: the field's index.
struct FieldKey<'g>(&'g [Field]);

impl<'de> DeserializeSeed<'de> for FieldKey<'_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FieldKey<'_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|f| f.name == v || f.aliases.iter().any(|a| a == v))
            .ok_or_else(refuse)
    }
}

/// A variant name written exactly: the variant's index.
struct VariantKey<'g>(&'g [crate::shape::Variant]);

impl<'de> DeserializeSeed<'de> for VariantKey<'_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for VariantKey<'_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|var| var.name == v || var.aliases.iter().any(|a| a == v))
            .ok_or_else(refuse)
    }
}

/// The content of an externally tagged variant.
struct VariantContent<'g> {
    skim: Skim<'g>,
    kind: &'g VariantKind,
}

impl<'de> DeserializeSeed<'de> for VariantContent<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for VariantContent<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant's content")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        match self.kind {
            VariantKind::Unit => Ok(()),
            VariantKind::Newtype(inner) => self.skim.at(*inner, None).visit_unit(),
            _ => Err(refuse()),
        }
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.newtype()?.visit_bool(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.newtype()?.visit_u64(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.newtype()?.visit_i64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.newtype()?.visit_f64(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.newtype()?.visit_str(v)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        match self.kind {
            VariantKind::Tuple(items) => self.skim.fixed(items, &mut seq).map(|_| ()),
            VariantKind::Newtype(inner) => self.skim.at(*inner, None).visit_seq(seq),
            _ => Err(refuse()),
        }
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        match self.kind {
            VariantKind::Struct(fields) => self.skim.fields(fields, &mut map),
            VariantKind::Newtype(inner) => self.skim.at(*inner, None).visit_map(map),
            _ => Err(refuse()),
        }
    }
}

impl<'g> VariantContent<'g> {
    fn newtype<E: de::Error>(&self) -> Result<Skim<'g>, E> {
        match self.kind {
            VariantKind::Newtype(inner) => Ok(self.skim.at(*inner, None)),
            _ => Err(refuse()),
        }
    }
}

//! Where a value read by the fast path sits in the shape, and the checks of a value there.
//!
//! Every check asks the shape table ([`ShapeGraph::accepts`]) what the place accepts, as the
//! lenient path does; a value the fast path cannot certify is refused with [`refuse`], which sends
//! the reply to the lenient path.

use serde::de;

use crate::shape::{
    Accepts, EnumRepr, Field, Node, NodeId, Rules, SeqKind, ShapeGraph, StructKind, TextForm,
    Variant, VariantKind,
};

use super::super::parse::number;
use super::super::verify::enums;
use super::super::verify::rules::{failures, Seen};

/// The error every failed check returns: the fast path gives way to the lenient path.
pub(super) fn refuse<E: de::Error>() -> E {
    E::custom("not certified")
}

/// Where a value sits in the shape: node `id`, what the table says it accepts, and the member's
/// rules, if any.
#[derive(Clone, Copy)]
pub(super) struct Place<'g> {
    graph: &'g ShapeGraph,
    id: NodeId,
    accepts: Accepts<'g>,
    rules: Option<&'g Rules>,
}

/// How the elements of an array are read.
#[derive(Clone, Copy)]
pub(super) enum Elements<'g> {
    /// Any number of elements of one node; exactly `n` when `Some(n)`.
    Each(NodeId, Option<usize>),
    /// One element per node, in order.
    Fixed(&'g [NodeId]),
}

impl<'g> Place<'g> {
    /// The root of the shape.
    pub(super) fn root(graph: &'g ShapeGraph, id: NodeId) -> Place<'g> {
        Place {
            graph,
            id,
            accepts: graph.accepts(id),
            rules: None,
        }
    }

    /// The same place in the shape at node `id`, with a member's `rules`.
    pub(super) fn at(self, id: NodeId, rules: Option<&'g Rules>) -> Place<'g> {
        Place {
            graph: self.graph,
            id,
            accepts: self.graph.accepts(id),
            rules,
        }
    }

    /// The member's place, with its rules when it has any.
    pub(super) fn field(self, field: &'g Field) -> Place<'g> {
        let rules = (!field.rules.is_empty()).then_some(&field.rules);
        self.at(field.ty, rules)
    }

    fn target(self) -> &'g Node {
        self.accepts.node
    }

    /// The place of an `Option`'s content (the same place when the node is not an `Option`).
    pub(super) fn some(self) -> Place<'g> {
        match self.graph.node(self.id) {
            Node::Option(inner) => self.at(*inner, self.rules),
            _ => self,
        }
    }

    /// The place of a newtype's content (the same place when the node is not a newtype).
    pub(super) fn newtype(self) -> Place<'g> {
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

    /// `null`: only where the shape table accepts it.
    pub(super) fn null<E: de::Error>(self) -> Result<(), E> {
        if self.accepts.null {
            Ok(())
        } else {
            Err(refuse())
        }
    }

    pub(super) fn bool<E: de::Error>(self) -> Result<(), E> {
        match self.target() {
            Node::Scalar(crate::shape::Scalar::Bool) => Ok(()),
            _ => Err(refuse()),
        }
    }

    /// A number: an integer in the kind's range, or any number where the shape takes fractions.
    pub(super) fn number<E: de::Error>(self, v: f64, int: Option<i128>) -> Result<(), E> {
        let at = self.accepts;
        let ok = match at.integer() {
            Some(kind) => int.is_some_and(|i| i >= kind.min() && i <= kind.max()),
            // Where strings hold numbers, JSON numbers are the numbers themselves.
            None => matches!(at.text(), TextForm::Number | TextForm::NumericText),
        };
        if !ok {
            return Err(refuse());
        }
        self.rules_pass(Seen::Number(v))
    }

    /// A string: text of any kind the shape reads from a string as itself, a `Decimal`'s digits,
    /// or a unit variant's exact name.
    pub(super) fn text<E: de::Error>(self, v: &str) -> Result<(), E> {
        let at = self.accepts;
        let seen = match at.text() {
            TextForm::Text => Seen::Text(v),
            TextForm::Char if v.chars().count() == 1 => Seen::Text(v),
            TextForm::NumericText => match number::in_text(v).and_then(|n| n.as_f64()) {
                // The lenient path compares allowed values as JSON: leave them to it.
                Some(n) if self.rules.is_none_or(|r| r.allowed.is_none()) => Seen::Number(n),
                _ => return Err(refuse()),
            },
            // A unit variant's exact name, or a tag the `#[serde(other)]` variant takes.
            TextForm::VariantName => match at.node {
                Node::Enum(e)
                    if e.variants.iter().any(|var| {
                        matches!(var.kind, VariantKind::Unit)
                            && (var.name == v || var.aliases.iter().any(|a| a == v))
                    }) || enums::other_taking(&e.variants, v).is_some() =>
                {
                    Seen::Text(v)
                }
                _ => return Err(refuse()),
            },
            // A number in a string is normalized by the lenient path.
            TextForm::Char | TextForm::Number | TextForm::Refused => return Err(refuse()),
        };
        self.rules_pass(seen)
    }

    /// An array: how its elements are read.
    pub(super) fn elements<E: de::Error>(self) -> Result<Elements<'g>, E> {
        match self.target() {
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
        match self.target() {
            Node::Struct(s) => match &s.kind {
                StructKind::Named(fields) => Ok(fields),
                _ => Err(refuse()),
            },
            _ => Err(refuse()),
        }
    }

    /// An enum: its variants.
    pub(super) fn variants<E: de::Error>(self) -> Result<&'g [Variant], E> {
        match self.target() {
            Node::Enum(e) if e.repr == EnumRepr::External => Ok(&e.variants),
            _ => Err(refuse()),
        }
    }
}

//! What a reply may hold at one place of a shape: the one table every reader asks.
//!
//! The fast path, the lenient path, the locator, the collections reader, the catalog's checks and
//! the judge's reply all read replies against a shape. What each node accepts is decided here and
//! nowhere else:
//!
//! | fact | where |
//! |---|---|
//! | options and newtypes peeled to the node that has a JSON form | [`ShapeGraph::accepts`] |
//! | whether `null` is a value | [`Accepts::null`] |
//! | what a JSON string means (text, one character, a number, a variant's name) | [`Accepts::text`] |
//! | the range of an integer | [`Accepts::integer`] |
//! | which member rules apply | the rule table (`rules::table`), which peels the same way |
//! | which kinds of JSON value can be the value at all | [`Accepts::kinds`] |
//!
//! A scalar's own facts are `const fn`s on [`Scalar`]. Which rules apply where is the rule
//! table's (`ShapeGraph::rule_target`), shared with the derive and the catalog.

use serde_json::Value;

use super::{EnumRepr, IntKind, Node, NodeId, Scalar, ShapeGraph, StructKind, VariantKind};

/// How deep an untagged enum's variants are followed when collecting the kinds of JSON it takes.
const MAX_KIND_DEPTH: usize = 16;

/// How a JSON string is read at a place of the shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextForm {
    /// Any string is the value (`String`; dates, times, UUIDs and URLs, whose form their own check
    /// reads).
    Text,
    /// A string of exactly one character (`char`).
    Char,
    /// A string holding a JSON number, read as that number (integers and floats).
    Number,
    /// A string holding a JSON number, kept as text, with number rules checked on the number it
    /// holds (`Decimal`, which reads its digits exactly from text).
    NumericText,
    /// The name of one of the enum's unit variants.
    VariantName,
    /// No string is a value here.
    Refused,
}

/// The kinds of JSON value a place of the shape can take, as a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kinds(u8);

impl Kinds {
    /// `null`.
    pub const NULL: Kinds = Kinds(1);
    /// `true` and `false`.
    pub const BOOL: Kinds = Kinds(2);
    /// A number.
    pub const NUMBER: Kinds = Kinds(4);
    /// A string.
    pub const STRING: Kinds = Kinds(8);
    /// An array.
    pub const ARRAY: Kinds = Kinds(16);
    /// An object.
    pub const OBJECT: Kinds = Kinds(32);
    /// Every kind: any JSON.
    pub const ANY: Kinds = Kinds(63);
    /// No kind.
    pub const NONE: Kinds = Kinds(0);

    /// The kind of `value`.
    pub fn of(value: &Value) -> Kinds {
        match value {
            Value::Null => Kinds::NULL,
            Value::Bool(_) => Kinds::BOOL,
            Value::Number(_) => Kinds::NUMBER,
            Value::String(_) => Kinds::STRING,
            Value::Array(_) => Kinds::ARRAY,
            Value::Object(_) => Kinds::OBJECT,
        }
    }

    /// Both sets together.
    pub const fn or(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    /// True when the two sets share a kind.
    pub const fn meets(self, other: Kinds) -> bool {
        self.0 & other.0 != 0
    }

    /// True when every kind is in the set.
    pub const fn is_any(self) -> bool {
        self.0 == Kinds::ANY.0
    }
}

impl Scalar {
    /// What a JSON string means for the scalar.
    pub const fn text_form(self) -> TextForm {
        match self {
            Scalar::String
            | Scalar::Date
            | Scalar::Time
            | Scalar::DateTime
            | Scalar::DateTimeOffset
            | Scalar::Uuid
            | Scalar::Url
            | Scalar::Json => TextForm::Text,
            Scalar::Char => TextForm::Char,
            Scalar::Int(_) | Scalar::Float(_) => TextForm::Number,
            Scalar::Decimal => TextForm::NumericText,
            Scalar::Bool | Scalar::Unit | Scalar::JsonObject => TextForm::Refused,
        }
    }

    /// True when `null` is the scalar's value or one of them.
    pub const fn accepts_null(self) -> bool {
        matches!(self, Scalar::Unit | Scalar::Json)
    }

    /// The kinds of JSON the scalar is read from (numbers also from strings that hold them).
    pub const fn kinds(self) -> Kinds {
        match self {
            Scalar::String
            | Scalar::Char
            | Scalar::Date
            | Scalar::Time
            | Scalar::DateTime
            | Scalar::DateTimeOffset
            | Scalar::Uuid
            | Scalar::Url => Kinds::STRING,
            Scalar::Bool => Kinds::BOOL,
            Scalar::Int(_) | Scalar::Float(_) | Scalar::Decimal => Kinds::NUMBER.or(Kinds::STRING),
            Scalar::Unit => Kinds::NULL,
            Scalar::Json => Kinds::ANY,
            Scalar::JsonObject => Kinds::OBJECT,
        }
    }
}

/// What one place of a shape accepts: its node below options and newtypes, and the facts of
/// that node.
#[derive(Debug, Clone, Copy)]
pub struct Accepts<'g> {
    /// The node that has a JSON form of its own (options and newtypes peeled).
    pub id: NodeId,
    /// That node.
    pub node: &'g Node,
    /// Whether `null` is a value here: an `Option` was peeled, or the node takes `null` itself.
    pub null: bool,
}

impl ShapeGraph {
    /// What the place `id` accepts, with `Option`s and newtypes peeled.
    ///
    /// ```
    /// use intent_core::__internals::shape::{ShapeGraph, TextForm};
    /// use intent_core::Intent;
    ///
    /// let mut graph = ShapeGraph::new();
    /// let id = <Option<Box<u8>>>::shape(&mut graph);
    /// let place = graph.accepts(id);
    /// assert!(place.null);
    /// assert_eq!(place.text(), TextForm::Number);
    /// assert_eq!(place.integer().map(|k| k.max()), Some(255));
    /// ```
    pub fn accepts(&self, id: NodeId) -> Accepts<'_> {
        // Worked out once per node and kept: every value a reader checks asks.
        let table = self.accepts.get_or_init(|| {
            (0..self.len())
                .map(|i| self.peel(NodeId(i as u32)))
                .collect()
        });
        let (id, null) = match table.get(id.index()) {
            Some(known) => *known,
            None => self.peel(id),
        };
        Accepts {
            id,
            node: self.node(id),
            null,
        }
    }

    /// The node below `id`'s options and newtypes, and whether `null` is a value at `id`.
    fn peel(&self, id: NodeId) -> (NodeId, bool) {
        let mut id = id;
        let mut null = false;
        for _ in 0..=self.len() {
            match self.node(id) {
                Node::Option(inner) => {
                    null = true;
                    id = *inner;
                }
                Node::Struct(s) => match &s.kind {
                    StructKind::Newtype(inner) => id = *inner,
                    _ => break,
                },
                _ => break,
            }
        }
        let null = null
            || match self.node(id) {
                Node::Scalar(s) => s.accepts_null(),
                Node::Struct(s) => matches!(s.kind, StructKind::Unit),
                // An untagged enum's variants decide, one of which may take `null`.
                Node::Enum(e) => matches!(e.repr, EnumRepr::Untagged),
                Node::Reserved => true,
                _ => false,
            };
        (id, null)
    }
}

impl<'g> Accepts<'g> {
    /// What a JSON string means here.
    pub fn text(&self) -> TextForm {
        match self.node {
            Node::Scalar(s) => s.text_form(),
            Node::Enum(e)
                if e.repr == EnumRepr::External
                    && e.variants
                        .iter()
                        .any(|v| matches!(v.kind, VariantKind::Unit)) =>
            {
                TextForm::VariantName
            }
            Node::Reserved => TextForm::Text,
            _ => TextForm::Refused,
        }
    }

    /// The integer type here, whose range a number must be in.
    pub fn integer(&self) -> Option<IntKind> {
        match self.node {
            Node::Scalar(Scalar::Int(kind)) => Some(*kind),
            _ => None,
        }
    }

    /// The kinds of JSON value that can be the value here.
    pub fn kinds(&self, graph: &ShapeGraph) -> Kinds {
        self.kinds_at(graph, 0)
    }

    fn kinds_at(&self, graph: &ShapeGraph, depth: usize) -> Kinds {
        let null = if self.null { Kinds::NULL } else { Kinds::NONE };
        let own = match self.node {
            Node::Scalar(s) => s.kinds(),
            Node::Seq { .. } | Node::Tuple(_) => Kinds::ARRAY,
            Node::Map { .. } => Kinds::OBJECT,
            Node::Struct(s) => match &s.kind {
                StructKind::Named(_) => Kinds::OBJECT,
                StructKind::Tuple(_) => Kinds::ARRAY,
                StructKind::Unit => Kinds::NULL,
                // Peeled unless the newtype chain loops: then anything may follow.
                StructKind::Newtype(_) => Kinds::ANY,
            },
            Node::Enum(e) => match &e.repr {
                EnumRepr::External => e.variants.iter().fold(Kinds::NONE, |kinds, v| {
                    kinds.or(match v.kind {
                        VariantKind::Unit => Kinds::STRING,
                        _ => Kinds::OBJECT,
                    })
                }),
                EnumRepr::Internal { .. } | EnumRepr::Adjacent { .. } => Kinds::OBJECT,
                EnumRepr::Untagged if depth >= MAX_KIND_DEPTH => Kinds::ANY,
                EnumRepr::Untagged => e.variants.iter().fold(Kinds::NONE, |kinds, v| {
                    kinds.or(match &v.kind {
                        VariantKind::Unit => Kinds::NULL,
                        VariantKind::Newtype(inner) => {
                            graph.accepts(*inner).kinds_at(graph, depth + 1)
                        }
                        VariantKind::Tuple(_) => Kinds::ARRAY,
                        VariantKind::Struct(_) => Kinds::OBJECT,
                    })
                }),
            },
            Node::Option(_) | Node::Reserved => Kinds::ANY,
        };
        own.or(null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Intent;

    fn place<T: Intent>() -> (ShapeGraph, NodeId) {
        let mut graph = ShapeGraph::new();
        let id = T::shape(&mut graph);
        (graph, id)
    }

    #[test]
    fn options_and_newtypes_are_peeled_and_null_follows_the_option() {
        let (graph, id) = place::<Option<Vec<u8>>>();
        let at = graph.accepts(id);
        assert!(at.null);
        assert!(matches!(at.node, Node::Seq { .. }));
        assert_eq!(at.kinds(&graph), Kinds::ARRAY.or(Kinds::NULL));
        let (graph, id) = place::<Vec<u8>>();
        assert!(!graph.accepts(id).null);
    }

    #[test]
    fn strings_hold_numbers_for_numbers_and_decimals_keep_their_text() {
        assert_eq!(Scalar::Int(IntKind::U8).text_form(), TextForm::Number);
        assert_eq!(Scalar::Decimal.text_form(), TextForm::NumericText);
        assert_eq!(Scalar::Bool.text_form(), TextForm::Refused);
    }
}

//! Building a [`ShapeGraph`].

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Node, NodeId, Scalar};

/// A graph of shapes, built by [`Intent::shape`](crate::Intent::shape).
///
/// Named types are registered once under their Rust type name, so recursive types form cycles.
///
/// ```
/// use intent_core::__internals::shape::{Node, Scalar, ShapeGraph};
///
/// let mut graph = ShapeGraph::new();
/// let text = graph.scalar(Scalar::String);
/// let list = graph.add(Node::Seq { item: text, kind: intent_core::__internals::shape::SeqKind::List });
/// assert_eq!(graph.label(list), "List<string>");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ShapeGraph {
    nodes: Vec<Node>,
    named: HashMap<&'static str, NodeId>,
    scalars: HashMap<ScalarKey, NodeId>,
    /// What each node accepts, once the graph is read (see [`ShapeGraph::accepts`]); cleared by
    /// every change.
    pub(super) accepts: OnceLock<Vec<(NodeId, bool)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct ScalarKey(u8, u8);

fn scalar_key(scalar: Scalar) -> ScalarKey {
    use super::{FloatKind, IntKind};
    match scalar {
        Scalar::String => ScalarKey(0, 0),
        Scalar::Char => ScalarKey(1, 0),
        Scalar::Bool => ScalarKey(2, 0),
        Scalar::Int(kind) => ScalarKey(
            3,
            match kind {
                IntKind::I8 => 0,
                IntKind::I16 => 1,
                IntKind::I32 => 2,
                IntKind::I64 => 3,
                IntKind::I128 => 4,
                IntKind::Isize => 5,
                IntKind::U8 => 6,
                IntKind::U16 => 7,
                IntKind::U32 => 8,
                IntKind::U64 => 9,
                IntKind::U128 => 10,
                IntKind::Usize => 11,
            },
        ),
        Scalar::Float(FloatKind::F32) => ScalarKey(4, 0),
        Scalar::Float(FloatKind::F64) => ScalarKey(4, 1),
        Scalar::Unit => ScalarKey(5, 0),
        Scalar::Date => ScalarKey(6, 0),
        Scalar::Time => ScalarKey(7, 0),
        Scalar::DateTime => ScalarKey(8, 0),
        Scalar::DateTimeOffset => ScalarKey(9, 0),
        Scalar::Uuid => ScalarKey(10, 0),
        Scalar::Url => ScalarKey(11, 0),
        Scalar::Decimal => ScalarKey(12, 0),
        Scalar::Json => ScalarKey(13, 0),
        Scalar::JsonObject => ScalarKey(14, 0),
    }
}

impl ShapeGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an anonymous node and returns its id.
    pub fn add(&mut self, node: Node) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.accepts = OnceLock::new();
        self.nodes.push(node);
        id
    }

    /// The node of a scalar, shared by every use of it in the graph.
    pub fn scalar(&mut self, scalar: Scalar) -> NodeId {
        let key = scalar_key(scalar);
        if let Some(id) = self.scalars.get(&key) {
            return *id;
        }
        let id = self.add(Node::Scalar(scalar));
        self.scalars.insert(key, id);
        id
    }

    /// Registers a named type once: `key` identifies the Rust type (its `type_name`), and `build` is
    /// called only the first time, with the type's node already reserved, so a type that contains
    /// itself gets its own id back instead of recursing forever.
    ///
    /// ```
    /// use intent_core::__internals::shape::{Node, ShapeGraph, StructKind, StructShape};
    ///
    /// let mut graph = ShapeGraph::new();
    /// let first = graph.named("my::Tree", |graph, me| {
    ///     // a member of the type's own type resolves to `me`
    ///     assert_eq!(graph.named("my::Tree", |_, _| unreachable!()), me);
    ///     Node::Struct(StructShape::new("Tree", StructKind::Named(Vec::new())))
    /// });
    /// assert_eq!(graph.label(first), "Tree");
    /// ```
    pub fn named(
        &mut self,
        key: &'static str,
        build: impl FnOnce(&mut ShapeGraph, NodeId) -> Node,
    ) -> NodeId {
        if let Some(id) = self.named.get(key) {
            return *id;
        }
        let id = self.add(Node::Reserved);
        self.named.insert(key, id);
        let node = build(self, id);
        self.accepts = OnceLock::new();
        self.nodes[id.index()] = node;
        id
    }

    /// Reserves the node of a named type, or returns the existing node as `Err` when the type is
    /// already registered. Fill a reserved node with [`set`](Self::set).
    pub fn reserve_named(&mut self, key: &'static str) -> Result<NodeId, NodeId> {
        if let Some(id) = self.named.get(key) {
            return Err(*id);
        }
        let id = self.add(Node::Reserved);
        self.named.insert(key, id);
        Ok(id)
    }

    /// Replaces a node (used to fill a reserved one).
    pub fn set(&mut self, id: NodeId, node: Node) {
        self.accepts = OnceLock::new();
        if let Some(slot) = self.nodes.get_mut(id.index()) {
            *slot = node;
        }
    }

    /// The node with this id.
    ///
    /// Ids come from this graph; an id from another graph yields [`Node::Reserved`].
    pub fn node(&self, id: NodeId) -> &Node {
        self.nodes.get(id.index()).unwrap_or(&Node::Reserved)
    }

    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no node was added.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Follows `Option` nodes down to the shape they wrap.
    pub fn strip_option(&self, mut id: NodeId) -> NodeId {
        let mut guard = 0;
        while let Node::Option(inner) = self.node(id) {
            id = *inner;
            guard += 1;
            if guard > self.nodes.len() {
                break;
            }
        }
        id
    }

    /// Follows newtype structs down to the shape that has a JSON form of its own.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        use super::{StructKind, StructShape};
        for _ in 0..=self.nodes.len() {
            match self.node(id) {
                Node::Struct(StructShape {
                    kind: StructKind::Newtype(inner),
                    ..
                }) => id = *inner,
                _ => return id,
            }
        }
        id
    }
}

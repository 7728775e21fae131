//! The strict-compatibility verdict: can a provider's strict mode express this shape?
//!
//! Not strict: `serde_json::Value` and `Map`, maps, tuples (and tuple structs and variants), a
//! flattened map, an internally tagged newtype variant whose content is not a struct, and any shape
//! that reaches itself (recursion, direct or through other types). The walk is iterative over the
//! graph with a colour per node, so it never recurses deeply and always ends.

use super::{EnumRepr, Field, Node, NodeId, Scalar, ShapeGraph, StructKind, VariantKind};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Colour {
    New,
    OnPath,
    Done,
}

impl ShapeGraph {
    /// True when a strict JSON schema can describe the shape exactly.
    pub fn is_strict(&self, root: NodeId) -> bool {
        let mut colour = vec![Colour::New; self.len()];
        // Iterative depth-first search: (node, children visited?) pairs.
        let mut stack: Vec<(NodeId, bool)> = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            let Some(slot) = colour.get(id.index()).copied() else {
                return false;
            };
            if expanded {
                colour[id.index()] = Colour::Done;
                continue;
            }
            match slot {
                Colour::Done => continue,
                // Reaching a node that is still being explored: a cycle, so a recursive type.
                Colour::OnPath => return false,
                Colour::New => {}
            }
            if !self.is_locally_strict(id) {
                return false;
            }
            colour[id.index()] = Colour::OnPath;
            stack.push((id, true));
            for child in self.children(id).into_iter().rev() {
                match colour.get(child.index()) {
                    Some(Colour::OnPath) => return false,
                    Some(Colour::Done) => {}
                    _ => stack.push((child, false)),
                }
            }
        }
        true
    }

    /// The node's own verdict, not looking at its children's.
    fn is_locally_strict(&self, id: NodeId) -> bool {
        match self.node(id) {
            Node::Scalar(Scalar::Json | Scalar::JsonObject) => false,
            Node::Scalar(_) | Node::Option(_) | Node::Seq { .. } => true,
            Node::Map { .. } | Node::Tuple(_) | Node::Reserved => false,
            Node::Struct(s) => match &s.kind {
                StructKind::Named(fields) => self.flattened_are_structs(fields),
                StructKind::Newtype(_) | StructKind::Unit => true,
                StructKind::Tuple(_) => false,
            },
            Node::Enum(e) => e.variants.iter().all(|v| match &v.kind {
                VariantKind::Unit => true,
                VariantKind::Tuple(_) => false,
                VariantKind::Struct(fields) => self.flattened_are_structs(fields),
                VariantKind::Newtype(inner) => match e.repr {
                    EnumRepr::Internal { .. } => self.is_named_struct(*inner),
                    _ => true,
                },
            }),
        }
    }

    fn flattened_are_structs(&self, fields: &[Field]) -> bool {
        fields
            .iter()
            .filter(|f| f.flatten)
            .all(|f| self.is_named_struct(f.ty))
    }

    pub(crate) fn is_named_struct(&self, id: NodeId) -> bool {
        matches!(
            self.node(self.resolve(id)),
            Node::Struct(s) if matches!(s.kind, StructKind::Named(_))
        )
    }
}

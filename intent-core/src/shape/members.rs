//! The members each answer policy watches, found once per type: those with an inclusive numeric
//! bound, those that must come from the input, and those whose description names samples.
//! [`TypeInfo`](super::TypeInfo) keeps each list the first time a call asks for it, so a call of a
//! type with nothing to watch walks nothing and allocates nothing for the policy.

use super::samples::samples_in;
use super::{Node, NodeId, Scalar, Seg, ShapeGraph};

/// A member with inclusive numeric bounds: where it is, its bounds, and whether it may be null.
#[derive(Debug)]
pub(crate) struct BoundedMember {
    pub(crate) path: Vec<Seg>,
    pub(crate) bounds: Vec<f64>,
    pub(crate) nullable: bool,
}

/// A member whose value must come from the input (`from_input`): where it is, and whether it may
/// be null.
#[derive(Debug, Clone)]
pub(crate) struct GroundedMember {
    pub(crate) path: Vec<Seg>,
    pub(crate) nullable: bool,
}

/// A text or number member whose description names samples: where it is, the samples, and
/// whether it may be null.
#[derive(Debug)]
pub(crate) struct SampledMember {
    pub(crate) path: Vec<Seg>,
    pub(crate) samples: Vec<String>,
    pub(crate) nullable: bool,
}

impl ShapeGraph {
    /// Every member below `root` with an inclusive numeric bound (`minimum`, `maximum`), in the
    /// order [`for_each_ruled_member`](Self::for_each_ruled_member) visits them.
    pub(crate) fn bounded_members(&self, root: NodeId) -> Vec<BoundedMember> {
        let mut members = Vec::new();
        self.for_each_ruled_member(root, |path, rules, nullable| {
            let bounds: Vec<f64> = rules.minimum.into_iter().chain(rules.maximum).collect();
            if !bounds.is_empty() {
                members.push(BoundedMember {
                    path: path.to_vec(),
                    bounds,
                    nullable,
                });
            }
        });
        members
    }

    /// Every member below `root` that must come from the input, in the order
    /// [`for_each_ruled_member`](Self::for_each_ruled_member) visits them.
    pub(crate) fn grounded_members(&self, root: NodeId) -> Vec<GroundedMember> {
        let mut members = Vec::new();
        self.for_each_ruled_member(root, |path, rules, nullable| {
            if rules.from_input {
                members.push(GroundedMember {
                    path: path.to_vec(),
                    nullable,
                });
            }
        });
        members
    }

    /// Every text or number member below `root` whose description names samples, in the order
    /// [`for_each_member`](Self::for_each_member) visits them.
    pub(crate) fn sampled_members(&self, root: NodeId) -> Vec<SampledMember> {
        let mut members = Vec::new();
        self.for_each_member(root, |path, field, nullable| {
            let Some(doc) = field.doc.as_deref() else {
                return;
            };
            if !self.is_text_or_number(field.ty) {
                return;
            }
            let samples = samples_in(doc);
            if !samples.is_empty() {
                members.push(SampledMember {
                    path: path.to_vec(),
                    samples,
                    nullable,
                });
            }
        });
        members
    }

    /// True when the member's type (options and newtypes looked through, and a list's elements)
    /// is text or a number: the members a sample can be copied into.
    fn is_text_or_number(&self, id: NodeId) -> bool {
        let mut id = id;
        for _ in 0..=self.len() {
            id = self.resolve(self.strip_option(id));
            match self.node(id) {
                Node::Seq { item, .. } => id = *item,
                Node::Scalar(
                    Scalar::String
                    | Scalar::Char
                    | Scalar::Int(_)
                    | Scalar::Float(_)
                    | Scalar::Decimal
                    | Scalar::Uuid
                    | Scalar::Url,
                ) => return true,
                _ => return false,
            }
        }
        false
    }
}

//! The shape of a result type: one description from which the prompt's type description, the strict
//! schema, the strict-compatibility verdict and the reply verifier are all derived.
//!
//! A shape is a small graph. Every [`Intent`](crate::Intent) type registers its node in a
//! `ShapeGraph` through [`Intent::shape`](crate::Intent::shape); named types (derived structs and
//! enums) are registered once per graph under their Rust type name, so a recursive type becomes a
//! cycle in the graph instead of an infinite recursion. What each node accepts in a reply is
//! decided in one table, `accepts`, that every reader asks.
//!
//! Only [`TypeInfo`] (what [`Intent::type_info`](crate::Intent::type_info) returns and
//! [`read_reply`](crate::read::read_reply) takes) and [`TargetKind`] are public here; the graph's
//! types are the derive's business, reached through `intent_core::__private::shape`.
//!
//! ```
//! use intent_core::__private::shape::{Node, ShapeGraph};
//! use intent_core::Intent;
//!
//! let mut graph = ShapeGraph::new();
//! let root = <Vec<Option<u32>> as Intent>::shape(&mut graph);
//! assert_eq!(graph.label(root), "List<uint?>");
//! assert!(matches!(graph.node(root), Node::Seq { .. }));
//! ```

pub(crate) mod accepts;
pub(crate) mod builder;
mod describe;
pub(crate) mod envelope;
mod info;
mod members;
pub(crate) mod node;
pub(crate) mod rules;
mod samples;
mod schema;
mod strict;

pub use info::{TargetKind, TypeInfo};

pub(crate) use accepts::{Accepts, Kinds, TextForm};
pub(crate) use builder::ShapeGraph;
pub(crate) use members::{BoundedMember, GroundedMember, SampledMember};
pub(crate) use node::{
    EnumRepr, EnumShape, Field, FloatKind, IntKind, Node, NodeId, Scalar, SeqKind, StructKind,
    StructShape, Variant, VariantKind,
};
pub(crate) use rules::table as rule_table;
pub(crate) use rules::{member_subject, number, plural, rule_line, MemberStep, Seg};
pub(crate) use rules::{Pattern, RuleTarget, Rules};

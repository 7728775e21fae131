//! The shape of a result type: one description from which the prompt's type description, the strict
//! schema, the strict-compatibility verdict and the reply verifier are all derived.
//!
//! A shape is a small graph. Every [`Intent`](crate::Intent) type registers its node in a
//! `ShapeGraph` through the trait's hidden `shape` method; named types (derived structs and
//! enums) are registered once per graph under their Rust type name, so a recursive type becomes a
//! cycle in the graph instead of an infinite recursion. What each node accepts in a reply is
//! decided in one table, `accepts`, that every reader asks.
//!
//! Only [`TypeInfo`] (what [`Intent::type_info`](crate::Intent::type_info) returns and
//! [`read_reply`](crate::read::read_reply) takes) and [`TargetKind`] (what
//! [`TypeInfo::target`] tells) are public here. The graph's types are internal: the derive
//! names them through `intent_core::__private`, the workspace's tests through the non-default
//! `__internals` feature, and [`Intent`](crate::Intent) is sealed so that they can change with
//! the readers that ask them (see the trait's documentation).
//!
//! ```
//! use intent_core::shape::{TargetKind, TypeInfo};
//!
//! let info = TypeInfo::of::<Vec<Option<u32>>>();
//! assert_eq!(info.description(), "List<uint?>");
//! assert_eq!(info.target(), TargetKind::StrictSchema);
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
    Content, EnumRepr, EnumShape, Field, FloatKind, IntKind, Node, NodeId, Scalar, SeqKind,
    StructKind, StructShape, Variant, VariantKind,
};
pub(crate) use rules::table as rule_table;
#[cfg(feature = "catalog")]
pub(crate) use rules::Pattern;
pub(crate) use rules::{member_subject, number, plural, rule_line, MemberStep, Seg};
pub(crate) use rules::{RuleTarget, Rules};

//! [`Intent`] for std types, `serde_json` types and (behind features) chrono, uuid, url and
//! rust_decimal types.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::intent::Intent;
use crate::shape::{FloatKind, IntKind, Node, NodeId, RuleTarget, Scalar, SeqKind, ShapeGraph};

/// A scalar type; its rule target comes from the one rule table, as the catalog's does.
macro_rules! scalar {
    ($($ty:ty = $scalar:expr),* $(,)?) => {$(
        impl Intent for $ty {
            const __RULE_TARGET: RuleTarget = crate::shape::rule_table::scalar_target($scalar);
            fn shape(graph: &mut ShapeGraph) -> NodeId {
                graph.scalar($scalar)
            }
        }
    )*};
}

scalar!(
    String = Scalar::String,
    Box<str> = Scalar::String,
    Arc<str> = Scalar::String,
    Rc<str> = Scalar::String,
    Cow<'static, str> = Scalar::String,
    char = Scalar::Char,
);
scalar!(
    i8 = Scalar::Int(IntKind::I8),
    i16 = Scalar::Int(IntKind::I16),
    i32 = Scalar::Int(IntKind::I32),
    i64 = Scalar::Int(IntKind::I64),
    i128 = Scalar::Int(IntKind::I128),
    isize = Scalar::Int(IntKind::Isize),
    u8 = Scalar::Int(IntKind::U8),
    u16 = Scalar::Int(IntKind::U16),
    u32 = Scalar::Int(IntKind::U32),
    u64 = Scalar::Int(IntKind::U64),
    u128 = Scalar::Int(IntKind::U128),
    usize = Scalar::Int(IntKind::Usize),
    f32 = Scalar::Float(FloatKind::F32),
    f64 = Scalar::Float(FloatKind::F64),
);
scalar!(bool = Scalar::Bool, () = Scalar::Unit,);

impl Intent for serde_json::Value {
    const __STRICT_HINT: bool = false;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.scalar(Scalar::Json)
    }
}

impl Intent for serde_json::Map<String, serde_json::Value> {
    const __STRICT_HINT: bool = false;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.scalar(Scalar::JsonObject)
    }
}

impl<T: Intent> Intent for Option<T> {
    const __STRICT_HINT: bool = T::__STRICT_HINT;
    const __RULE_TARGET: RuleTarget = T::__RULE_TARGET;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        let inner = T::shape(graph);
        graph.add(Node::Option(inner))
    }
}

macro_rules! pointer {
    ($($ty:ident),*) => {$(
        impl<T: Intent> Intent for $ty<T>
        where
            $ty<T>: DeserializeOwned,
        {
            const __STRICT_HINT: bool = T::__STRICT_HINT;
            const __RULE_TARGET: RuleTarget = T::__RULE_TARGET;
            fn shape(graph: &mut ShapeGraph) -> NodeId {
                T::shape(graph)
            }
        }
    )*};
}
pointer!(Box, Arc, Rc);

fn seq<T: Intent>(graph: &mut ShapeGraph, kind: SeqKind) -> NodeId {
    let item = T::shape(graph);
    graph.add(Node::Seq { item, kind })
}

macro_rules! list {
    ($kind:expr => $($ty:ty $(where $($bound:tt)*)?),* $(,)?) => {$(
        impl<T: Intent $(+ $($bound)*)?> Intent for $ty {
            const __STRICT_HINT: bool = T::__STRICT_HINT;
            const __RULE_TARGET: RuleTarget = RuleTarget::Items;
            fn shape(graph: &mut ShapeGraph) -> NodeId {
                seq::<T>(graph, $kind)
            }
        }
    )*};
}
list!(SeqKind::List => Vec<T>, VecDeque<T>, LinkedList<T>, Box<[T]>);
list!(SeqKind::Set => BTreeSet<T> where Ord);

impl<T: Intent + Eq + Hash, S: BuildHasher + Default> Intent for HashSet<T, S> {
    const __STRICT_HINT: bool = T::__STRICT_HINT;
    const __RULE_TARGET: RuleTarget = RuleTarget::Items;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        seq::<T>(graph, SeqKind::Set)
    }
}

impl<T: Intent + Eq + Hash, S: BuildHasher + Default> Intent for indexmap::IndexSet<T, S> {
    const __STRICT_HINT: bool = T::__STRICT_HINT;
    const __RULE_TARGET: RuleTarget = RuleTarget::Items;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        seq::<T>(graph, SeqKind::Set)
    }
}

impl<T: Intent, const N: usize> Intent for [T; N]
where
    [T; N]: DeserializeOwned,
{
    const __STRICT_HINT: bool = T::__STRICT_HINT;
    const __RULE_TARGET: RuleTarget = RuleTarget::Items;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        seq::<T>(graph, SeqKind::Array(N))
    }
}

fn map<K: Intent, V: Intent>(graph: &mut ShapeGraph) -> NodeId {
    let key = K::shape(graph);
    let value = V::shape(graph);
    graph.add(Node::Map { key, value })
}

impl<K: Intent + Eq + Hash, V: Intent, S: BuildHasher + Default> Intent for HashMap<K, V, S> {
    const __STRICT_HINT: bool = false;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        map::<K, V>(graph)
    }
}

impl<K: Intent + Ord, V: Intent> Intent for BTreeMap<K, V> {
    const __STRICT_HINT: bool = false;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        map::<K, V>(graph)
    }
}

impl<K: Intent + Eq + Hash, V: Intent, S: BuildHasher + Default> Intent
    for indexmap::IndexMap<K, V, S>
{
    const __STRICT_HINT: bool = false;
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        map::<K, V>(graph)
    }
}

/// Calls the macro `$m` with the tuples the library's traits are implemented for: one to eight
/// members.
macro_rules! for_tuples {
    ($m:ident) => {
        $m! {
            (A)
            (A, B)
            (A, B, C)
            (A, B, C, D)
            (A, B, C, D, E)
            (A, B, C, D, E, F)
            (A, B, C, D, E, F, G)
            (A, B, C, D, E, F, G, H)
        }
    };
}
pub(crate) use for_tuples;

macro_rules! tuple {
    ($(($($name:ident),+))*) => {$(
        impl<$($name: Intent),+> Intent for ($($name,)+) {
            const __STRICT_HINT: bool = false;
            fn shape(graph: &mut ShapeGraph) -> NodeId {
                let items = vec![$($name::shape(graph)),+];
                graph.add(Node::Tuple(items))
            }
        }
    )*};
}
for_tuples!(tuple);

#[cfg(feature = "chrono")]
mod chrono_impls {
    use super::*;

    scalar!(
        chrono::NaiveDate = Scalar::Date,
        chrono::NaiveTime = Scalar::Time,
        chrono::NaiveDateTime = Scalar::DateTime,
        chrono::DateTime<chrono::Utc> = Scalar::DateTimeOffset,
        chrono::DateTime<chrono::FixedOffset> = Scalar::DateTimeOffset,
        chrono::DateTime<chrono::Local> = Scalar::DateTimeOffset,
    );
}

#[cfg(feature = "uuid")]
scalar!(uuid::Uuid = Scalar::Uuid);

#[cfg(feature = "url")]
scalar!(url::Url = Scalar::Url);

#[cfg(feature = "decimal")]
scalar!(rust_decimal::Decimal = Scalar::Decimal);

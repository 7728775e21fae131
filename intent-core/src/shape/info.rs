//! Everything the library derives from a type's shape, computed once per type and cached.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, OnceLock, RwLock};

use serde_json::Value;

use super::envelope::{envelope, make_strict, ENVELOPE_PROPERTY};
use super::{
    BoundedMember, GroundedMember, Node, NodeId, SampledMember, Scalar, ShapeGraph, StructKind,
};
use crate::request::SharedSchema;

/// How a result type is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// `String`: plain text, no JSON.
    Text,
    /// A strict JSON schema (structured output).
    StrictSchema,
    /// JSON-object mode: the type is described in the prompt only.
    JsonObject,
}

/// A type's shape and the views derived from it: description, verdict, envelope schema.
///
/// ```
/// use intent_core::shape::{TargetKind, TypeInfo};
///
/// let info = TypeInfo::of::<Vec<u8>>();
/// assert_eq!(info.description(), "List<byte>");
/// assert_eq!(info.target(), TargetKind::StrictSchema);
/// assert!(TypeInfo::of::<String>().target() == TargetKind::Text);
/// ```
#[derive(Debug)]
pub struct TypeInfo {
    graph: ShapeGraph,
    root: NodeId,
    description: String,
    /// Shared, so a call's plan holds it without copying it.
    envelope_schema: Option<Arc<Value>>,
    target: TargetKind,
    /// The member rules in words, computed on first use.
    rule_lines: OnceLock<Vec<String>>,
    /// The members with inclusive numeric bounds, found on first use.
    bounded_members: OnceLock<Vec<BoundedMember>>,
    /// The members that must come from the input, found on first use.
    grounded_members: OnceLock<Vec<GroundedMember>>,
    /// The text and number members whose descriptions name samples, found on first use.
    sampled_members: OnceLock<Vec<SampledMember>>,
    /// Whether replies may take the reader's fast path, computed on first use.
    fast_read: OnceLock<u8>,
    /// The envelope schema as requests carry it, serialized on first use.
    request_schema: OnceLock<Option<SharedSchema>>,
}

impl TypeInfo {
    /// The cached information of the type named `key`, whose shape `shape` registers; computed on
    /// first use. `TypeInfo::of::<T>()` (defined with the `Intent` trait) calls it for `T`.
    pub(crate) fn cached(key: &'static str, shape: fn(&mut ShapeGraph) -> NodeId) -> Arc<TypeInfo> {
        static CACHE: LazyLock<RwLock<HashMap<&'static str, Arc<TypeInfo>>>> =
            LazyLock::new(|| RwLock::new(HashMap::new()));
        if let Some(info) = CACHE
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(key)
        {
            return Arc::clone(info);
        }
        let mut graph = ShapeGraph::new();
        let root = shape(&mut graph);
        let info = Arc::new(TypeInfo::from_graph(graph, root));
        CACHE
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(key)
            .or_insert(info)
            .clone()
    }

    /// Builds the views of the shape `root` of `graph`.
    #[doc(hidden)]
    pub fn from_graph(graph: ShapeGraph, root: NodeId) -> TypeInfo {
        let description = graph.describe(root);
        let text = matches!(
            graph.node(graph.resolve(root)),
            Node::Scalar(Scalar::String)
        ) && !matches!(graph.node(root), Node::Option(_));
        let envelope_schema = if text {
            None
        } else {
            graph.strict_schema(root).map(|inner| {
                let mut schema = envelope(inner);
                make_strict(&mut schema);
                Arc::new(schema)
            })
        };
        let target = if text {
            TargetKind::Text
        } else if envelope_schema.is_some() {
            TargetKind::StrictSchema
        } else {
            TargetKind::JsonObject
        };
        TypeInfo {
            graph,
            root,
            description,
            envelope_schema,
            target,
            rule_lines: OnceLock::new(),
            bounded_members: OnceLock::new(),
            grounded_members: OnceLock::new(),
            sampled_members: OnceLock::new(),
            fast_read: OnceLock::new(),
            request_schema: OnceLock::new(),
        }
    }

    /// The shape graph.
    #[doc(hidden)]
    pub fn graph(&self) -> &ShapeGraph {
        &self.graph
    }

    /// The root node of the type in [`graph`](Self::graph).
    #[doc(hidden)]
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The C#-like description (`Order\n where Order { string id }`).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The strict envelope schema, or `None` for text and non-strict types.
    pub fn envelope_schema(&self) -> Option<&Value> {
        self.envelope_schema.as_deref()
    }

    /// The strict envelope schema, shared rather than copied.
    pub(crate) fn shared_envelope_schema(&self) -> Option<Arc<Value>> {
        self.envelope_schema.clone()
    }

    /// The strict envelope schema as requests carry it: shared, and serialized once per type.
    pub(crate) fn request_schema(&self) -> Option<SharedSchema> {
        self.request_schema
            .get_or_init(|| self.shared_envelope_schema().map(SharedSchema::new))
            .clone()
    }

    /// How the type is asked for.
    pub fn target(&self) -> TargetKind {
        self.target
    }

    /// True when a strict schema describes the type (text types included, which need none).
    pub fn is_strict(&self) -> bool {
        self.graph.is_strict(self.root)
    }

    /// True when an object reply with `value` and other keys may be the bare value itself: the
    /// target is a map or JSON object, or has a member named `value` of its own or in a
    /// flattened member (a flattened map holds any name).
    #[doc(hidden)]
    pub fn accepts_envelope_lookalike(&self) -> bool {
        may_hold_envelope_name(&self.graph, self.root, 0)
    }

    /// One line per member rule: ``- `quantity` of each element of `lines`: at least 1``.
    pub fn rule_lines(&self) -> &[String] {
        self.rule_lines
            .get_or_init(|| self.graph.rule_lines(self.root))
    }

    /// The members with an inclusive numeric bound (`minimum`, `maximum`), in the order the rule
    /// lines state them: found once per type, not once per call.
    pub(crate) fn bounded_members(&self) -> &[BoundedMember] {
        self.bounded_members
            .get_or_init(|| self.graph.bounded_members(self.root))
    }

    /// The members that must come from the input (`from_input`), in the order the rule lines
    /// state them: found once per type.
    pub(crate) fn grounded_members(&self) -> &[GroundedMember] {
        self.grounded_members
            .get_or_init(|| self.graph.grounded_members(self.root))
    }

    /// The text and number members whose descriptions name samples (`such as A-1192`), with
    /// their samples: found once per type.
    pub(crate) fn sampled_members(&self) -> &[SampledMember] {
        self.sampled_members
            .get_or_init(|| self.graph.sampled_members(self.root))
    }

    /// How replies may take the reader's fast path (the reader's plan, decided once per type).
    pub(crate) fn fast_read(&self, decide: impl FnOnce(&ShapeGraph, NodeId) -> u8) -> u8 {
        *self
            .fast_read
            .get_or_init(|| decide(&self.graph, self.root))
    }
}

/// Whether an object read at `id` may have a member named `value` (see
/// [`TypeInfo::accepts_envelope_lookalike`]); flattened members are followed `depth` levels
/// down, to a bound no derived type reaches.
fn may_hold_envelope_name(graph: &ShapeGraph, id: NodeId, depth: usize) -> bool {
    let named = |name: &str, aliases: &[std::borrow::Cow<'static, str>]| {
        name == ENVELOPE_PROPERTY || aliases.iter().any(|a| a == ENVELOPE_PROPERTY)
    };
    let id = graph.resolve(graph.strip_option(id));
    match graph.node(id) {
        Node::Map { .. } | Node::Scalar(Scalar::Json | Scalar::JsonObject) => true,
        Node::Struct(s) => match &s.kind {
            StructKind::Named(fields) => fields.iter().any(|f| {
                named(&f.name, &f.aliases)
                    || (f.flatten
                        && (depth >= 16 || may_hold_envelope_name(graph, f.ty, depth + 1)))
            }),
            _ => false,
        },
        // A flattened enum's variants put their members beside the others: any name may come.
        Node::Enum(e) => depth > 0 || e.variants.iter().any(|v| named(&v.name, &v.aliases)),
        _ => false,
    }
}

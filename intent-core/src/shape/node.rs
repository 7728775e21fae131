//! The nodes of a shape graph: scalars, options, sequences, maps, tuples, structs and enums.

use std::borrow::Cow;

use super::rules::Rules;

/// The index of a node in a [`ShapeGraph`](super::builder::ShapeGraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    /// The node's position in its graph.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One node of a shape graph.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Node {
    /// A value with no members.
    Scalar(Scalar),
    /// `Option<T>`: the inner shape or `null`.
    Option(NodeId),
    /// A sequence: `Vec`, `VecDeque`, sets, slices, arrays.
    Seq {
        /// The element shape.
        item: NodeId,
        /// How the sequence is described.
        kind: SeqKind,
    },
    /// A map: `HashMap`, `BTreeMap`, `IndexMap`. Never strict.
    Map {
        /// The key shape.
        key: NodeId,
        /// The value shape.
        value: NodeId,
    },
    /// A tuple `(A, B, ..)`, a JSON array of fixed length. Never strict.
    Tuple(Vec<NodeId>),
    /// A derived struct.
    Struct(StructShape),
    /// A derived enum.
    Enum(EnumShape),
    /// A named type whose registration has started but not finished (only seen while building).
    Reserved,
}

/// A scalar shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scalar {
    /// `String`, `&str`, `Box<str>`, ...
    String,
    /// `char`: a string of exactly one character.
    Char,
    /// `bool`.
    Bool,
    /// An integer type.
    Int(IntKind),
    /// A floating-point type.
    Float(FloatKind),
    /// `()` and unit structs: JSON `null`.
    Unit,
    /// `chrono::NaiveDate`: `yyyy-MM-dd`.
    Date,
    /// `chrono::NaiveTime`: `HH:mm:ss` with an optional fraction.
    Time,
    /// `chrono::NaiveDateTime`: ISO 8601 without offset.
    DateTime,
    /// `chrono::DateTime<Tz>`: ISO 8601 with offset.
    DateTimeOffset,
    /// `uuid::Uuid`.
    Uuid,
    /// `url::Url`.
    Url,
    /// `rust_decimal::Decimal`, read from a JSON number or a numeric string.
    Decimal,
    /// `serde_json::Value`: any JSON. Never strict.
    Json,
    /// `serde_json::Map`: any JSON object. Never strict.
    JsonObject,
}

/// The Rust integer types, with their ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum IntKind {
    I8,
    I16,
    I32,
    I64,
    I128,
    Isize,
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
}

impl IntKind {
    /// The smallest value of the type.
    pub fn min(self) -> i128 {
        match self {
            IntKind::I8 => i8::MIN as i128,
            IntKind::I16 => i16::MIN as i128,
            IntKind::I32 => i32::MIN as i128,
            IntKind::I64 => i64::MIN as i128,
            IntKind::I128 => i128::MIN,
            IntKind::Isize => isize::MIN as i128,
            _ => 0,
        }
    }

    /// The largest value of the type (`u128::MAX` is capped at `i128::MAX`).
    pub fn max(self) -> i128 {
        match self {
            IntKind::I8 => i8::MAX as i128,
            IntKind::I16 => i16::MAX as i128,
            IntKind::I32 => i32::MAX as i128,
            IntKind::I64 => i64::MAX as i128,
            IntKind::I128 | IntKind::U128 => i128::MAX,
            IntKind::Isize => isize::MAX as i128,
            IntKind::U8 => u8::MAX as i128,
            IntKind::U16 => u16::MAX as i128,
            IntKind::U32 => u32::MAX as i128,
            IntKind::U64 => u64::MAX as i128,
            IntKind::Usize => usize::MAX as i128,
        }
    }

    /// The C#-like name used in descriptions (`int`, `ulong`, ...).
    pub fn label(self) -> &'static str {
        match self {
            IntKind::I8 => "sbyte",
            IntKind::I16 => "short",
            IntKind::I32 => "int",
            IntKind::I64 | IntKind::Isize => "long",
            IntKind::I128 => "Int128",
            IntKind::U8 => "byte",
            IntKind::U16 => "ushort",
            IntKind::U32 => "uint",
            IntKind::U64 | IntKind::Usize => "ulong",
            IntKind::U128 => "UInt128",
        }
    }
}

/// `f32` or `f64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum FloatKind {
    F32,
    F64,
}

/// How a sequence is described.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeqKind {
    /// `Vec`, `VecDeque`, `LinkedList`, slices: `List<T>`.
    List,
    /// A set (`HashSet`, `BTreeSet`, `IndexSet`): `List<T>` whose items must be unique.
    Set,
    /// `[T; N]`: `T[]` of exactly `N` elements.
    Array(usize),
}

/// A derived struct.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StructShape {
    /// The label of the type in descriptions (`Order`, `Page<Order>`).
    pub name: Cow<'static, str>,
    /// The type's doc comment or `#[intent(description)]`.
    pub doc: Option<Cow<'static, str>>,
    /// The type's JSON form.
    pub kind: StructKind,
}

impl StructShape {
    /// A struct labelled `name` of the JSON form `kind`, without a doc.
    pub fn new(name: impl Into<Cow<'static, str>>, kind: StructKind) -> Self {
        StructShape {
            name: name.into(),
            doc: None,
            kind,
        }
    }
}

/// The JSON form of a derived struct.
#[derive(Debug, Clone)]
pub enum StructKind {
    /// A struct with named fields: a JSON object.
    Named(Vec<Field>),
    /// A newtype struct `struct Id(String)` or a `#[serde(transparent)]` struct: the inner value.
    Newtype(NodeId),
    /// A tuple struct with several fields: a JSON array of fixed length. Never strict.
    Tuple(Vec<NodeId>),
    /// A unit struct: `null`.
    Unit,
}

/// A named member of a struct or struct variant.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Field {
    /// The wire name (after serde's `rename` and `rename_all`).
    pub name: Cow<'static, str>,
    /// Other accepted wire names (serde's `alias`).
    pub aliases: Vec<Cow<'static, str>>,
    /// The member's shape.
    pub ty: NodeId,
    /// Whether the member must be present in a reply (false for `Option` members and `#[serde(default)]`).
    pub required: bool,
    /// `#[serde(flatten)]`: the member's own members sit in the parent object.
    pub flatten: bool,
    /// The member's doc comment or `#[intent(description)]`.
    pub doc: Option<Cow<'static, str>>,
    /// The member's rules (`minimum`, `max_length`, `pattern`, ...).
    pub rules: Rules,
}

impl Field {
    /// A required member with no rules, doc or aliases.
    pub fn new(name: impl Into<Cow<'static, str>>, ty: NodeId) -> Self {
        Field {
            name: name.into(),
            aliases: Vec::new(),
            ty,
            required: true,
            flatten: false,
            doc: None,
            rules: Rules::default(),
        }
    }
}

/// A derived enum.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EnumShape {
    /// The label of the type in descriptions.
    pub name: Cow<'static, str>,
    /// The type's doc comment or `#[intent(description)]`.
    pub doc: Option<Cow<'static, str>>,
    /// serde's representation.
    pub repr: EnumRepr,
    /// The variants, in declaration order, without `#[serde(skip)]` ones.
    pub variants: Vec<Variant>,
}

impl EnumShape {
    /// An enum labelled `name`, in serde's representation `repr`, without a doc.
    pub fn new(name: impl Into<Cow<'static, str>>, repr: EnumRepr, variants: Vec<Variant>) -> Self {
        EnumShape {
            name: name.into(),
            doc: None,
            repr,
            variants,
        }
    }

    /// True when every variant is a unit variant and the enum is externally tagged: a string enum.
    pub fn is_unit_only(&self) -> bool {
        matches!(self.repr, EnumRepr::External)
            && self
                .variants
                .iter()
                .all(|v| matches!(v.kind, VariantKind::Unit))
    }
}

/// serde's enum representations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnumRepr {
    /// The default: `"Unit"` or `{"Variant": ...}`.
    External,
    /// `#[serde(tag = "type")]`: `{"type": "Variant", ...members}`.
    Internal {
        /// The tag's wire name.
        tag: Cow<'static, str>,
    },
    /// `#[serde(tag = "t", content = "c")]`: `{"t": "Variant", "c": ...}`.
    Adjacent {
        /// The tag's wire name.
        tag: Cow<'static, str>,
        /// The content's wire name.
        content: Cow<'static, str>,
    },
    /// `#[serde(untagged)]`: the variant's content alone.
    Untagged,
}

/// One variant of an enum.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Variant {
    /// The wire name.
    pub name: Cow<'static, str>,
    /// Other accepted wire names.
    pub aliases: Vec<Cow<'static, str>>,
    /// The variant's doc comment.
    pub doc: Option<Cow<'static, str>>,
    /// The variant's content.
    pub kind: VariantKind,
    /// `#[serde(other)]` (on a unit variant): a tag naming no other variant reads as this one.
    pub other: bool,
}

impl Variant {
    /// A variant named `name` with content `kind`, without aliases or a doc, not `other`.
    pub fn new(name: impl Into<Cow<'static, str>>, kind: VariantKind) -> Self {
        Variant {
            name: name.into(),
            aliases: Vec::new(),
            doc: None,
            kind,
            other: false,
        }
    }
}

/// The content of a variant.
#[derive(Debug, Clone)]
pub enum VariantKind {
    /// No content.
    Unit,
    /// One unnamed value.
    Newtype(NodeId),
    /// Several unnamed values: a JSON array.
    Tuple(Vec<NodeId>),
    /// Named members: a JSON object.
    Struct(Vec<Field>),
}

/// The content of a struct or of a variant, seen alike: the two kinds differ only in their names,
/// so a walk over a type's children matches on this once instead of on each.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Content<'a> {
    /// Named members: a JSON object.
    Fields(&'a [Field]),
    /// One unnamed value.
    Inner(NodeId),
    /// Several unnamed values: a JSON array.
    Items(&'a [NodeId]),
    /// No content.
    Nothing,
}

impl StructKind {
    /// The struct's content, as [`Content`] sees it.
    pub(crate) fn content(&self) -> Content<'_> {
        match self {
            StructKind::Named(fields) => Content::Fields(fields),
            StructKind::Newtype(inner) => Content::Inner(*inner),
            StructKind::Tuple(items) => Content::Items(items),
            StructKind::Unit => Content::Nothing,
        }
    }
}

impl VariantKind {
    /// The variant's content, as [`Content`] sees it.
    pub(crate) fn content(&self) -> Content<'_> {
        match self {
            VariantKind::Struct(fields) => Content::Fields(fields),
            VariantKind::Newtype(inner) => Content::Inner(*inner),
            VariantKind::Tuple(items) => Content::Items(items),
            VariantKind::Unit => Content::Nothing,
        }
    }
}

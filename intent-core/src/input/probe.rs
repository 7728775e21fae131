//! A serializer that records the structure of a value (struct names, member names and kinds) as a
//! shape, for the input's label. Only the first element of each list or map is looked at, and the
//! walk stops descending past a fixed depth.
//!
//! Well-known types are recognised by their type name before they are serialized, so the label says
//! what they are rather than how they travel: a `chrono::NaiveDate` is `DateOnly (yyyy-MM-dd)`, not
//! `string`; a `serde_json::Value` is `JsonNode`, not the shape of the one value at hand; an
//! `Option<u32>` that is `None` is still `uint?`.

use std::borrow::Cow;
use std::fmt::Display;

use serde::ser::{self, Serialize};

use crate::error::IntentError;
use crate::shape::{
    Field, FloatKind, IntKind, Node, NodeId, Scalar, SeqKind, ShapeGraph, StructKind, StructShape,
};

const MAX_DEPTH: usize = 32;

pub(crate) struct Probed {
    /// The label in `## Input (<label>)`.
    pub(crate) label: String,
    /// The input's text when it is not written as JSON: a string (unchanged), an enum's unit
    /// variant or a `char` (as its name), a non-finite float, or `null`.
    pub(crate) root_text: Option<String>,
}

pub(crate) fn probe<I: Serialize + ?Sized>(input: &I) -> Result<Probed, IntentError> {
    let mut graph = ShapeGraph::new();
    let mut root_text = None;
    let root = Probe {
        graph: &mut graph,
        root_text: Some(&mut root_text),
        depth: 0,
        type_name: "",
    }
    .typed(input)
    .map_err(|e| IntentError::InputSerialization(e.0))?;
    let (_, base) = strip_options(std::any::type_name::<I>());
    if matches!(known_scalar(base), Some(Scalar::Json | Scalar::JsonObject)) {
        // Sent as its JSON text, and labelled as such (a table and a row as the spec labels a
        // DataTable and a DataRow).
        return Ok(Probed {
            label: table_label(base).unwrap_or("JSON").to_owned(),
            root_text: None,
        });
    }
    if root_text.is_none() && matches!(graph.node(root), Node::Scalar(Scalar::Unit)) {
        root_text = Some("null".to_owned());
    }
    Ok(Probed {
        label: graph.describe(root),
        root_text,
    })
}

/// The scalar a well-known type stands for, from its type name: the primitives, `String`, chrono's
/// dates and times, `Uuid`, `Url`, `Decimal`, and `serde_json`'s `Value`, `Map` and `RawValue`
/// (behind references and `Box`, `Arc`, `Rc`).
fn known_scalar(type_name: &str) -> Option<Scalar> {
    let name = unwrap_pointers(type_name);
    let (path, generics) = match name.split_once('<') {
        Some((path, rest)) => (path, Some(rest)),
        None => (name, None),
    };
    // A type path's segments are joined by `::`: splitting on `:` finds the first and the last
    // without a substring search.
    let krate = path.split(':').next().unwrap_or(path);
    let last = path.rsplit(':').next().unwrap_or(path);
    Some(match (krate, last, generics) {
        ("str" | "char" | "bool", _, None) => match last {
            "str" => Scalar::String,
            "char" => Scalar::Char,
            _ => Scalar::Bool,
        },
        ("alloc", "String", None) => Scalar::String,
        ("alloc", "Cow", Some(inner)) if inner.starts_with("str>") => Scalar::String,
        ("f32", _, None) => Scalar::Float(FloatKind::F32),
        ("f64", _, None) => Scalar::Float(FloatKind::F64),
        ("chrono", "NaiveDate", None) => Scalar::Date,
        ("chrono", "NaiveTime", None) => Scalar::Time,
        ("chrono", "NaiveDateTime", None) => Scalar::DateTime,
        ("chrono", "DateTime", Some(_)) => Scalar::DateTimeOffset,
        ("uuid", "Uuid", None) => Scalar::Uuid,
        ("url", "Url", None) => Scalar::Url,
        ("rust_decimal", "Decimal", None) => Scalar::Decimal,
        ("serde_json", "Value" | "RawValue", None) => Scalar::Json,
        ("serde_json", "Map", Some(_)) => Scalar::JsonObject,
        ("intent_core", _, None) if table_label(name).is_some() => match last {
            "Row" => Scalar::JsonObject,
            _ => Scalar::Json,
        },
        _ => Scalar::Int(int_kind(name)?),
    })
}

/// The label of a [`Table`](crate::table::Table) or a [`Row`](crate::table::Row), named by its
/// type name: sent as JSON rather than as their members.
fn table_label(type_name: &str) -> Option<&'static str> {
    match unwrap_pointers(type_name) {
        "intent_core::table::Table" => Some("JSON array of row objects"),
        "intent_core::table::Row" => Some("JSON object"),
        _ => None,
    }
}

fn int_kind(name: &str) -> Option<IntKind> {
    Some(match name {
        "i8" => IntKind::I8,
        "i16" => IntKind::I16,
        "i32" => IntKind::I32,
        "i64" => IntKind::I64,
        "i128" => IntKind::I128,
        "isize" => IntKind::Isize,
        "u8" => IntKind::U8,
        "u16" => IntKind::U16,
        "u32" => IntKind::U32,
        "u64" => IntKind::U64,
        "u128" => IntKind::U128,
        "usize" => IntKind::Usize,
        _ => return None,
    })
}

/// `&T`, `&mut T`, `Box<T>`, `Arc<T>` and `Rc<T>` serialize as `T`.
fn unwrap_pointers(mut name: &str) -> &str {
    loop {
        let mut trimmed = name;
        while let Some(rest) = trimmed.strip_prefix('&') {
            trimmed = rest.strip_prefix("mut ").unwrap_or(rest);
        }
        let inner = ["alloc::boxed::Box<", "alloc::sync::Arc<", "alloc::rc::Rc<"]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p))
            .and_then(|rest| rest.strip_suffix('>'));
        match inner {
            Some(inner) => name = inner,
            None => return trimmed,
        }
    }
}

/// The number of `Option` layers around a type, and the type inside them.
fn strip_options(mut name: &str) -> (usize, &str) {
    let mut layers = 0;
    loop {
        let unwrapped = unwrap_pointers(name);
        match unwrapped
            .strip_prefix("core::option::Option<")
            .and_then(|rest| rest.strip_suffix('>'))
        {
            Some(inner) => {
                layers += 1;
                name = inner;
            }
            None => return (layers, unwrapped),
        }
    }
}

/// The node of a well-known type (with its `Option` layers) named by `type_name`.
fn known_shape(graph: &mut ShapeGraph, type_name: &str) -> Option<NodeId> {
    let (options, inner) = strip_options(type_name);
    let mut id = graph.scalar(known_scalar(inner)?);
    for _ in 0..options {
        id = graph.add(Node::Option(id));
    }
    Some(id)
}

/// The type arguments of a generic type's name, or a slice's or array's element type:
/// `HashMap<K, V, S>` gives `[K, V, S]`, `[T; 3]` gives `[T]`.
fn type_args(type_name: &str) -> Vec<&str> {
    let name = unwrap_pointers(type_name);
    let inner = if let Some(rest) = name.strip_prefix('[') {
        rest.strip_suffix(']')
    } else {
        name.split_once('<')
            .and_then(|(_, rest)| rest.strip_suffix('>'))
    };
    let Some(inner) = inner else {
        return Vec::new();
    };
    let mut args = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' | ';' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
                if c == ';' {
                    return args;
                }
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    args
}

#[derive(Debug)]
pub(crate) struct ProbeError(String);

impl Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProbeError {}

impl ser::Error for ProbeError {
    fn custom<T: Display>(msg: T) -> Self {
        ProbeError(msg.to_string())
    }
}

struct Probe<'g, 't> {
    graph: &'g mut ShapeGraph,
    /// Where the root's text goes; `None` below the root.
    root_text: Option<&'t mut Option<String>>,
    depth: usize,
    /// The Rust type being serialized, when known: the key of a struct in the graph.
    type_name: &'static str,
}

impl<'g> Probe<'g, '_> {
    fn scalar(self, scalar: Scalar) -> Result<NodeId, ProbeError> {
        Ok(self.graph.scalar(scalar))
    }

    /// The collector of a sequence or a map, which keeps the Rust type's name (a list or map
    /// type seen before is the same node).
    fn keyed_by_type(self) -> Collect<'g> {
        let mut collect = Collect::new(self.graph, self.depth);
        collect.type_name = self.type_name;
        collect
    }

    /// A float; at the root a non-finite one is written by name, as JSON has no form for it.
    fn float(self, v: f64, kind: FloatKind) -> Result<NodeId, ProbeError> {
        if let Some(slot) = self.root_text {
            if !v.is_finite() {
                *slot = Some(
                    match (v.is_nan(), v > 0.0) {
                        (true, _) => "NaN",
                        (false, true) => "Infinity",
                        (false, false) => "-Infinity",
                    }
                    .to_owned(),
                );
            }
        }
        Ok(self.graph.scalar(Scalar::Float(kind)))
    }

    /// Probes a value of a known Rust type: a well-known type by its name, any other by serializing.
    fn typed<T: Serialize + ?Sized>(self, value: &T) -> Result<NodeId, ProbeError> {
        let type_name = std::any::type_name::<T>();
        let Some(id) = known_shape(self.graph, type_name) else {
            return value.serialize(Probe { type_name, ..self });
        };
        let is_json = matches!(
            self.graph.node(self.graph.strip_option(id)),
            Node::Scalar(Scalar::Json | Scalar::JsonObject)
        );
        match self.root_text {
            // The root's own text (a date's ISO form, a string) still comes from serializing it.
            Some(slot) if !is_json => {
                value.serialize(Probe {
                    graph: self.graph,
                    root_text: Some(slot),
                    depth: self.depth,
                    type_name,
                })?;
            }
            _ => {}
        }
        Ok(id)
    }
}

struct Collect<'g> {
    graph: &'g mut ShapeGraph,
    depth: usize,
    /// The reserved node of a struct seen for the first time; `None` when it is known already.
    target: Option<NodeId>,
    existing: Option<NodeId>,
    fields: Vec<Field>,
    items: Vec<NodeId>,
    first: Option<NodeId>,
    key: Option<NodeId>,
    value: Option<NodeId>,
    tuple: bool,
    name: &'static str,
    /// The Rust type of a list or map, for the element type of an empty one.
    type_name: &'static str,
}

impl<'g> Collect<'g> {
    fn new(graph: &'g mut ShapeGraph, depth: usize) -> Self {
        Collect {
            graph,
            depth,
            target: None,
            existing: None,
            fields: Vec::new(),
            items: Vec::new(),
            first: None,
            key: None,
            value: None,
            tuple: false,
            name: "",
            type_name: "",
        }
    }

    fn probe_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<NodeId, ProbeError> {
        if self.depth >= MAX_DEPTH {
            return Ok(self.graph.scalar(Scalar::Json));
        }
        Probe {
            graph: self.graph,
            root_text: None,
            depth: self.depth + 1,
            type_name: "",
        }
        .typed(value)
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ProbeError> {
        if self.tuple {
            let id = self.probe_value(value)?;
            self.items.push(id);
        } else if self.first.is_none() {
            self.first = Some(self.probe_value(value)?);
        }
        Ok(())
    }

    /// The shape of the `index`th type argument of an empty list or map, when it is well known.
    fn declared(&mut self, index: usize) -> NodeId {
        let args = type_args(self.type_name);
        match args.get(index).and_then(|arg| known_shape(self.graph, arg)) {
            Some(id) => id,
            None => self.graph.scalar(Scalar::Json),
        }
    }

    fn finish_seq(mut self) -> Result<NodeId, ProbeError> {
        if self.tuple {
            return Ok(self.graph.add(Node::Tuple(self.items)));
        }
        let item = match self.first {
            Some(item) => item,
            None => self.declared(0),
        };
        Ok(self.graph.add(Node::Seq {
            item,
            kind: SeqKind::List,
        }))
    }

    fn field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ProbeError> {
        if self.existing.is_some() {
            return Ok(());
        }
        let ty = self.probe_value(value)?;
        self.fields.push(Field::new(Cow::Borrowed(key), ty));
        Ok(())
    }

    fn finish_struct(self) -> Result<NodeId, ProbeError> {
        let name = self.name;
        if let Some(existing) = self.existing {
            return Ok(existing);
        }
        let Some(id) = self.target else {
            return Ok(self.graph.scalar(Scalar::Json));
        };
        self.graph.set(
            id,
            Node::Struct(StructShape {
                name: Cow::Borrowed(name),
                doc: None,
                kind: StructKind::Named(self.fields),
            }),
        );
        Ok(id)
    }
}

macro_rules! int {
    ($($method:ident: $ty:ty = $kind:expr),*) => {$(
        fn $method(self, _: $ty) -> Result<NodeId, ProbeError> {
            self.scalar(Scalar::Int($kind))
        }
    )*};
}

impl<'g> ser::Serializer for Probe<'g, '_> {
    type Ok = NodeId;
    type Error = ProbeError;
    type SerializeSeq = Collect<'g>;
    type SerializeTuple = Collect<'g>;
    type SerializeTupleStruct = Collect<'g>;
    type SerializeTupleVariant = Collect<'g>;
    type SerializeMap = Collect<'g>;
    type SerializeStruct = Collect<'g>;
    type SerializeStructVariant = Collect<'g>;

    fn serialize_bool(self, _: bool) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Bool)
    }

    int!(
        serialize_i8: i8 = IntKind::I8,
        serialize_i16: i16 = IntKind::I16,
        serialize_i32: i32 = IntKind::I32,
        serialize_i64: i64 = IntKind::I64,
        serialize_i128: i128 = IntKind::I128,
        serialize_u8: u8 = IntKind::U8,
        serialize_u16: u16 = IntKind::U16,
        serialize_u32: u32 = IntKind::U32,
        serialize_u64: u64 = IntKind::U64,
        serialize_u128: u128 = IntKind::U128
    );

    fn serialize_f32(self, v: f32) -> Result<NodeId, ProbeError> {
        self.float(f64::from(v), FloatKind::F32)
    }

    fn serialize_f64(self, v: f64) -> Result<NodeId, ProbeError> {
        self.float(v, FloatKind::F64)
    }

    fn serialize_char(self, v: char) -> Result<NodeId, ProbeError> {
        if let Some(slot) = self.root_text {
            *slot = Some(v.to_string());
        }
        Ok(self.graph.scalar(Scalar::Char))
    }

    fn serialize_str(self, v: &str) -> Result<NodeId, ProbeError> {
        if let Some(slot) = self.root_text {
            *slot = Some(v.to_owned());
        }
        Ok(self.graph.scalar(Scalar::String))
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<NodeId, ProbeError> {
        let item = self.graph.scalar(Scalar::Int(IntKind::U8));
        Ok(self.graph.add(Node::Seq {
            item,
            kind: SeqKind::List,
        }))
    }

    fn serialize_none(self) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Unit)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<NodeId, ProbeError> {
        if self.depth >= MAX_DEPTH {
            return self.scalar(Scalar::Json);
        }
        // `Some("text")` at the root is still text: the slot goes down with the value.
        let inner = Probe {
            graph: &mut *self.graph,
            root_text: self.root_text,
            depth: self.depth + 1,
            type_name: "",
        }
        .typed(value)?;
        Ok(self.graph.add(Node::Option(inner)))
    }

    fn serialize_unit(self) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Unit)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Unit)
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<NodeId, ProbeError> {
        if let Some(slot) = self.root_text {
            *slot = Some(variant.to_owned());
        }
        Ok(self.graph.scalar(Scalar::String))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<NodeId, ProbeError> {
        if self.depth >= MAX_DEPTH {
            return self.scalar(Scalar::Json);
        }
        Probe {
            depth: self.depth + 1,
            type_name: "",
            ..self
        }
        .typed(value)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::JsonObject)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Collect<'g>, ProbeError> {
        Ok(self.keyed_by_type())
    }

    fn serialize_tuple(self, _: usize) -> Result<Collect<'g>, ProbeError> {
        let mut collect = Collect::new(self.graph, self.depth);
        collect.tuple = true;
        Ok(collect)
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Collect<'g>, ProbeError> {
        self.serialize_tuple(len)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Collect<'g>, ProbeError> {
        Ok(Collect::new(self.graph, MAX_DEPTH))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Collect<'g>, ProbeError> {
        Ok(self.keyed_by_type())
    }

    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Collect<'g>, ProbeError> {
        // Keyed by the Rust type when known, so two types of one name (or two instances of a
        // generic type) stay apart; by serde's name otherwise.
        let key = if self.type_name.is_empty() {
            name
        } else {
            unwrap_pointers(self.type_name)
        };
        let reserved = self.graph.reserve_named(key);
        let mut collect = Collect::new(self.graph, self.depth);
        collect.name = name;
        match reserved {
            Ok(id) => collect.target = Some(id),
            Err(id) => collect.existing = Some(id),
        }
        Ok(collect)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Collect<'g>, ProbeError> {
        let mut collect = Collect::new(self.graph, self.depth);
        collect.existing = Some(collect.graph.scalar(Scalar::JsonObject));
        Ok(collect)
    }
}

/// Sequences, tuples and tuple structs: each element probed as a list's element.
macro_rules! sequence {
    ($($serializer:ident::$element:ident),*) => {$(
        impl ser::$serializer for Collect<'_> {
            type Ok = NodeId;
            type Error = ProbeError;
            fn $element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ProbeError> {
                self.element(value)
            }
            fn end(self) -> Result<NodeId, ProbeError> {
                self.finish_seq()
            }
        }
    )*};
}
sequence!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

/// Variants with members: their shape is not probed (an object, whatever it holds).
macro_rules! variant {
    ($($serializer:ident($($member:ty),*)),*) => {$(
        impl ser::$serializer for Collect<'_> {
            type Ok = NodeId;
            type Error = ProbeError;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, $(_: $member),*) -> Result<(), ProbeError> {
                Ok(())
            }
            fn end(self) -> Result<NodeId, ProbeError> {
                Ok(self.graph.scalar(Scalar::JsonObject))
            }
        }
    )*};
}
variant!(
    SerializeTupleVariant(&T),
    SerializeStructVariant(&'static str, &T)
);

impl ser::SerializeMap for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), ProbeError> {
        if self.key.is_none() {
            self.key = Some(self.probe_value(key)?);
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ProbeError> {
        if self.value.is_none() {
            self.value = Some(self.probe_value(value)?);
        }
        Ok(())
    }
    fn end(mut self) -> Result<NodeId, ProbeError> {
        let key = match self.key {
            Some(key) => key,
            None => match known_shape(self.graph, type_args(self.type_name).first().unwrap_or(&""))
            {
                Some(key) => key,
                None => self.graph.scalar(Scalar::String),
            },
        };
        let value = match self.value {
            Some(value) => value,
            None => self.declared(1),
        };
        Ok(self.graph.add(Node::Map { key, value }))
    }
}

impl ser::SerializeStruct for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), ProbeError> {
        self.field(key, value)
    }
    fn end(self) -> Result<NodeId, ProbeError> {
        self.finish_struct()
    }
}

//! A serializer that records the structure of a value (struct names, member names and kinds) as a
//! shape, for the input's label. Only the first element of each list or map is looked at, and the
//! walk stops descending past a fixed depth.

use std::borrow::Cow;
use std::fmt::Display;

use serde::ser::{self, Serialize};

use crate::error::IntentError;
use crate::shape::{
    Field, FloatKind, IntKind, Node, NodeId, Scalar, SeqKind, ShapeGraph, StructKind, StructShape,
};

const MAX_DEPTH: usize = 32;

pub(crate) struct Probed {
    pub(crate) label: String,
    /// The value's text when it is itself a string (written unchanged), or `null`.
    pub(crate) root_text: Option<String>,
}

pub(crate) fn probe<I: Serialize + ?Sized>(input: &I) -> Result<Probed, IntentError> {
    let mut graph = ShapeGraph::new();
    let mut root_text = None;
    let root = input
        .serialize(Probe {
            graph: &mut graph,
            root_text: Some(&mut root_text),
            depth: 0,
        })
        .map_err(|e| IntentError::InputSerialization(e.0))?;
    if root_text.is_none() && matches!(graph.node(root), Node::Scalar(Scalar::Unit)) {
        root_text = Some("null".to_owned());
    }
    Ok(Probed {
        label: graph.describe(root),
        root_text,
    })
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
    root_text: Option<&'t mut Option<String>>,
    depth: usize,
}

impl<'g> Probe<'g, '_> {
    fn nested(&mut self) -> Probe<'_, 'static> {
        Probe {
            graph: self.graph,
            root_text: None,
            depth: self.depth + 1,
        }
    }

    fn scalar(self, scalar: Scalar) -> Result<NodeId, ProbeError> {
        Ok(self.graph.scalar(scalar))
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
        }
    }

    fn probe_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<NodeId, ProbeError> {
        if self.depth >= MAX_DEPTH {
            return Ok(self.graph.scalar(Scalar::Json));
        }
        value.serialize(Probe {
            graph: self.graph,
            root_text: None,
            depth: self.depth + 1,
        })
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

    fn finish_seq(self) -> Result<NodeId, ProbeError> {
        if self.tuple {
            return Ok(self.graph.add(Node::Tuple(self.items)));
        }
        let item = match self.first {
            Some(item) => item,
            None => self.graph.scalar(Scalar::Json),
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

    fn serialize_f32(self, _: f32) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Float(FloatKind::F32))
    }

    fn serialize_f64(self, _: f64) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Float(FloatKind::F64))
    }

    fn serialize_char(self, _: char) -> Result<NodeId, ProbeError> {
        self.scalar(Scalar::Char)
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

    fn serialize_some<T: Serialize + ?Sized>(mut self, value: &T) -> Result<NodeId, ProbeError> {
        if self.depth >= MAX_DEPTH {
            return self.scalar(Scalar::Json);
        }
        // `Some("text")` at the root is still text.
        let inner = match self.root_text.take() {
            Some(slot) => value.serialize(Probe {
                graph: self.graph,
                root_text: Some(slot),
                depth: self.depth,
            })?,
            None => value.serialize(self.nested())?,
        };
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
        value.serialize(self)
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
        Ok(Collect::new(self.graph, self.depth))
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
        Ok(Collect::new(self.graph, self.depth))
    }

    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Collect<'g>, ProbeError> {
        let reserved = self.graph.reserve_named(name);
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

impl ser::SerializeSeq for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ProbeError> {
        self.element(value)
    }
    fn end(self) -> Result<NodeId, ProbeError> {
        self.finish_seq()
    }
}

impl ser::SerializeTuple for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ProbeError> {
        self.element(value)
    }
    fn end(self) -> Result<NodeId, ProbeError> {
        self.finish_seq()
    }
}

impl ser::SerializeTupleStruct for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ProbeError> {
        self.element(value)
    }
    fn end(self) -> Result<NodeId, ProbeError> {
        self.finish_seq()
    }
}

impl ser::SerializeTupleVariant for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), ProbeError> {
        Ok(())
    }
    fn end(self) -> Result<NodeId, ProbeError> {
        Ok(self.graph.scalar(Scalar::JsonObject))
    }
}

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
    fn end(self) -> Result<NodeId, ProbeError> {
        let key = match self.key {
            Some(key) => key,
            None => self.graph.scalar(Scalar::String),
        };
        let value = match self.value {
            Some(value) => value,
            None => self.graph.scalar(Scalar::Json),
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

impl ser::SerializeStructVariant for Collect<'_> {
    type Ok = NodeId;
    type Error = ProbeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _: &'static str,
        _: &T,
    ) -> Result<(), ProbeError> {
        Ok(())
    }
    fn end(self) -> Result<NodeId, ProbeError> {
        Ok(self.graph.scalar(Scalar::JsonObject))
    }
}

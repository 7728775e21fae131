//! The C#-like description of a shape, as in the prompt:
//! `Order\n where Order { string id; List<Line> lines }`.

use std::collections::HashSet;
use std::fmt::Write;

use super::{
    EnumRepr, EnumShape, Field, FloatKind, Node, NodeId, Scalar, SeqKind, ShapeGraph, StructKind,
    VariantKind,
};

/// A shape's label, written when displayed ([`ShapeGraph::label_of`]).
pub(crate) struct LabelOf<'g> {
    graph: &'g ShapeGraph,
    id: NodeId,
}

impl std::fmt::Display for LabelOf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.graph.label(self.id))
    }
}

impl ShapeGraph {
    /// The short label of a shape: `int`, `List<Order>`, `DateOnly? (yyyy-MM-dd)`, `Order`.
    pub fn label(&self, id: NodeId) -> String {
        let mut out = String::new();
        self.write_label(id, &mut out, 0);
        out
    }

    /// The label of `id`, written only when shown: checks that pass never build it.
    pub(crate) fn label_of(&self, id: NodeId) -> LabelOf<'_> {
        LabelOf { graph: self, id }
    }

    fn write_label(&self, id: NodeId, out: &mut String, depth: usize) {
        if depth > 64 {
            out.push_str("object");
            return;
        }
        match self.node(id) {
            Node::Scalar(s) => out.push_str(scalar_label(*s)),
            Node::Option(inner) => {
                let inner = self.strip_option(*inner);
                let mut label = String::new();
                self.write_label(inner, &mut label, depth + 1);
                // `DateOnly (yyyy-MM-dd)` becomes `DateOnly? (yyyy-MM-dd)`.
                match label.find(" (") {
                    Some(at) if !label.starts_with('(') => {
                        out.push_str(&label[..at]);
                        out.push('?');
                        out.push_str(&label[at..]);
                    }
                    _ => {
                        out.push_str(&label);
                        out.push('?');
                    }
                }
            }
            Node::Seq { item, kind } => match kind {
                SeqKind::List | SeqKind::Set => {
                    out.push_str("List<");
                    self.write_label(*item, out, depth + 1);
                    out.push('>');
                }
                SeqKind::Array(_) => {
                    self.write_label(*item, out, depth + 1);
                    out.push_str("[]");
                }
            },
            Node::Map { key, value } => {
                out.push_str("Dictionary<");
                self.write_label(*key, out, depth + 1);
                out.push_str(", ");
                self.write_label(*value, out, depth + 1);
                out.push('>');
            }
            Node::Tuple(items) => self.write_tuple(items, out, depth),
            Node::Struct(s) => match &s.kind {
                StructKind::Newtype(inner) => self.write_label(*inner, out, depth + 1),
                StructKind::Tuple(items) => self.write_tuple(items, out, depth),
                StructKind::Unit => out.push_str("null"),
                StructKind::Named(_) => out.push_str(&s.name),
            },
            Node::Enum(e) => out.push_str(&e.name),
            Node::Reserved => out.push_str("object"),
        }
    }

    fn write_tuple(&self, items: &[NodeId], out: &mut String, depth: usize) {
        out.push('(');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write_label(*item, out, depth + 1);
        }
        out.push(')');
    }

    /// The full description of a shape: its label, then one ` where ...` line per named type it
    /// reaches, each once (so a recursive type's description is finite).
    pub fn describe(&self, root: NodeId) -> String {
        let mut out = self.label(root);
        // A scalar (a string input, a number) reaches no named type: its label says it all.
        if matches!(self.node(self.strip_option(root)), Node::Scalar(_)) {
            return out;
        }
        let mut seen = HashSet::new();
        let mut stack = vec![root];
        let mut order = Vec::new();
        // Depth-first, in order of first appearance.
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            if matches!(
                self.node(id),
                Node::Struct(s) if matches!(s.kind, StructKind::Named(_))
            ) || matches!(self.node(id), Node::Enum(_))
            {
                order.push(id);
            }
            let mut children = self.children(id);
            children.reverse();
            stack.extend(children);
        }
        for id in order {
            out.push_str("\n where ");
            self.write_where(id, &mut out);
        }
        out
    }

    /// The nodes a node refers to, in declaration order.
    pub(crate) fn children(&self, id: NodeId) -> Vec<NodeId> {
        fn fields(out: &mut Vec<NodeId>, fields: &[Field]) {
            out.extend(fields.iter().map(|f| f.ty));
        }
        let mut out = Vec::new();
        match self.node(id) {
            Node::Scalar(_) | Node::Reserved => {}
            Node::Option(inner) => out.push(*inner),
            Node::Seq { item, .. } => out.push(*item),
            Node::Map { key, value } => out.extend([*key, *value]),
            Node::Tuple(items) => out.extend(items),
            Node::Struct(s) => match &s.kind {
                StructKind::Named(f) => fields(&mut out, f),
                StructKind::Newtype(inner) => out.push(*inner),
                StructKind::Tuple(items) => out.extend(items),
                StructKind::Unit => {}
            },
            Node::Enum(e) => {
                for v in &e.variants {
                    match &v.kind {
                        VariantKind::Unit => {}
                        VariantKind::Newtype(inner) => out.push(*inner),
                        VariantKind::Tuple(items) => out.extend(items),
                        VariantKind::Struct(f) => fields(&mut out, f),
                    }
                }
            }
        }
        out
    }

    fn write_where(&self, id: NodeId, out: &mut String) {
        match self.node(id) {
            Node::Struct(s) => {
                out.push_str(&s.name);
                write_doc(out, s.doc.as_deref());
                if let StructKind::Named(fields) = &s.kind {
                    out.push(' ');
                    self.write_members(fields, out);
                }
            }
            Node::Enum(e) => self.write_enum(e, out),
            _ => {}
        }
    }

    fn write_members(&self, fields: &[Field], out: &mut String) {
        let mut members = Vec::new();
        self.collect_members(fields, &mut members, 0);
        if members.is_empty() {
            out.push_str("{ }");
            return;
        }
        out.push_str("{ ");
        out.push_str(&members.join("; "));
        out.push_str(" }");
    }

    /// One `type name` entry per member, with flattened members inlined.
    fn collect_members(&self, fields: &[Field], out: &mut Vec<String>, depth: usize) {
        for field in fields {
            if field.flatten && depth < 16 {
                let inner = self.resolve(self.strip_option(field.ty));
                match self.node(inner) {
                    Node::Struct(s) => {
                        if let StructKind::Named(inner_fields) = &s.kind {
                            self.collect_members(inner_fields, out, depth + 1);
                            continue;
                        }
                    }
                    Node::Map { value, .. } => {
                        out.push(format!("{} (any other member)", self.label(*value)));
                        continue;
                    }
                    Node::Scalar(Scalar::Json | Scalar::JsonObject) => {
                        out.push("JsonNode (any other member)".to_owned());
                        continue;
                    }
                    _ => {}
                }
            }
            let mut member = self.label(field.ty);
            member.push(' ');
            member.push_str(&field.name);
            if !field.required && !matches!(self.node(field.ty), Node::Option(_)) {
                member.push_str(" (optional)");
            }
            write_doc(&mut member, field.doc.as_deref());
            out.push(member);
        }
    }

    fn write_enum(&self, e: &EnumShape, out: &mut String) {
        out.push_str(&e.name);
        write_doc(out, e.doc.as_deref());
        if e.is_unit_only() {
            out.push_str(" is one of: ");
            for (i, v) in e.variants.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&v.name);
                if v.other {
                    out.push_str(OTHER_NOTE);
                }
            }
            return;
        }
        match &e.repr {
            EnumRepr::External => out.push_str(" is exactly one of:"),
            EnumRepr::Internal { tag } => {
                let _ = write!(out, " is exactly one of (tagged by \"{tag}\"):");
            }
            EnumRepr::Adjacent { tag, content } => {
                let _ = write!(
                    out,
                    " is exactly one of (tagged by \"{tag}\", content in \"{content}\"):"
                );
            }
            EnumRepr::Untagged => out.push_str(" is exactly one of:"),
        }
        for v in &e.variants {
            out.push_str("\n   ");
            let content = match &v.kind {
                VariantKind::Unit => None,
                VariantKind::Newtype(inner) => Some(self.variant_newtype(&e.repr, *inner)),
                VariantKind::Tuple(items) => {
                    let mut s = String::new();
                    self.write_tuple(items, &mut s, 0);
                    Some(s)
                }
                VariantKind::Struct(fields) => {
                    let mut s = String::new();
                    self.write_members(fields, &mut s);
                    Some(s)
                }
            };
            match (&e.repr, content) {
                (EnumRepr::External, None) => {
                    let _ = write!(out, "\"{}\"", v.name);
                }
                (EnumRepr::External, Some(c)) => {
                    let _ = write!(out, "{{ \"{}\": {c} }}", v.name);
                }
                (EnumRepr::Internal { tag }, None) => {
                    let _ = write!(out, "{{ \"{tag}\": \"{}\" }}", v.name);
                }
                (EnumRepr::Internal { tag }, Some(c)) => {
                    let members = c
                        .strip_prefix("{ ")
                        .and_then(|c| c.strip_suffix(" }"))
                        .unwrap_or(&c);
                    let _ = write!(out, "{{ \"{tag}\": \"{}\"; {members} }}", v.name);
                }
                (EnumRepr::Adjacent { tag, .. }, None) => {
                    let _ = write!(out, "{{ \"{tag}\": \"{}\" }}", v.name);
                }
                (EnumRepr::Adjacent { tag, content }, Some(c)) => {
                    let _ = write!(out, "{{ \"{tag}\": \"{}\", \"{content}\": {c} }}", v.name);
                }
                (EnumRepr::Untagged, None) => out.push_str("null"),
                (EnumRepr::Untagged, Some(c)) => out.push_str(&c),
            }
            if v.other {
                out.push_str(OTHER_NOTE);
            }
            write_doc(out, v.doc.as_deref());
        }
    }

    /// A newtype variant's content: for an internally tagged enum, the inner struct's members.
    fn variant_newtype(&self, repr: &EnumRepr, inner: NodeId) -> String {
        if matches!(repr, EnumRepr::Internal { .. }) {
            if let Node::Struct(s) = self.node(self.resolve(inner)) {
                if let StructKind::Named(fields) = &s.kind {
                    let mut out = String::new();
                    self.write_members(fields, &mut out);
                    return out;
                }
            }
        }
        self.label(inner)
    }
}

/// After a `#[serde(other)]` variant: the model is told to pick it when no other variant fits (any
/// other tag reads as it, so this is what such a reply means).
const OTHER_NOTE: &str = " (when no other fits)";

fn write_doc(out: &mut String, doc: Option<&str>) {
    if let Some(doc) = doc {
        let doc = doc.trim();
        if !doc.is_empty() {
            out.push_str(" /* ");
            // A doc comment never closes the comment early, and stays on one line.
            let one_line = doc.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push_str(&one_line.replace("*/", "* /"));
            out.push_str(" */");
        }
    }
}

pub(crate) fn scalar_label(s: Scalar) -> &'static str {
    match s {
        Scalar::String => "string",
        Scalar::Char => "char",
        Scalar::Bool => "bool",
        Scalar::Int(kind) => kind.label(),
        Scalar::Float(FloatKind::F32) => "float",
        Scalar::Float(FloatKind::F64) => "double",
        Scalar::Unit => "null",
        Scalar::Date => "DateOnly (yyyy-MM-dd)",
        Scalar::Time => "TimeOnly (HH:mm:ss)",
        Scalar::DateTime => "DateTime (ISO 8601)",
        Scalar::DateTimeOffset => "DateTimeOffset (ISO 8601)",
        Scalar::Uuid => "Guid",
        Scalar::Url => "Uri",
        Scalar::Decimal => "decimal",
        Scalar::Json => "JsonNode",
        Scalar::JsonObject => "JsonObject",
    }
}

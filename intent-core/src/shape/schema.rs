//! The strict JSON schema of a shape (inlined, no `$ref`), for shapes that [`ShapeGraph::is_strict`]
//! accepts.

use serde_json::{json, Map, Value};

use super::{
    EnumRepr, Field, FloatKind, Node, NodeId, Scalar, ShapeGraph, StructKind, VariantKind,
};

/// Deeper than any strict provider accepts (OpenAI: 10 levels); a guard, not a limit users meet.
const MAX_DEPTH: usize = 64;

impl ShapeGraph {
    /// The strict schema of a shape, or `None` when the shape is not strict-compatible.
    ///
    /// ```
    /// use intent_core::__internals::shape::ShapeGraph;
    /// use intent_core::Intent;
    ///
    /// let mut graph = ShapeGraph::new();
    /// let root = <Option<Vec<String>> as Intent>::shape(&mut graph);
    /// assert_eq!(
    ///     graph.strict_schema(root).unwrap(),
    ///     serde_json::json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]})
    /// );
    /// ```
    pub fn strict_schema(&self, root: NodeId) -> Option<Value> {
        if !self.is_strict(root) {
            return None;
        }
        self.schema_of(root, 0)
    }

    fn schema_of(&self, id: NodeId, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match self.node(id) {
            Node::Scalar(s) => scalar_schema(*s)?,
            Node::Option(inner) => nullable(self.schema_of(self.strip_option(*inner), depth + 1)?),
            Node::Seq { item, .. } => {
                json!({"type": "array", "items": self.schema_of(*item, depth + 1)?})
            }
            Node::Map { .. } | Node::Tuple(_) | Node::Reserved => return None,
            Node::Struct(s) => {
                let mut schema = match &s.kind {
                    StructKind::Named(fields) => self.object_schema(&[], fields, depth)?,
                    StructKind::Newtype(inner) => return self.schema_of(*inner, depth + 1),
                    StructKind::Unit => json!({"type": "null"}),
                    StructKind::Tuple(_) => return None,
                };
                with_description(&mut schema, s.doc.as_deref());
                schema
            }
            Node::Enum(e) => {
                let mut schema = if e.is_unit_only() {
                    let names: Vec<Value> =
                        e.variants.iter().map(|v| Value::from(&*v.name)).collect();
                    json!({"type": "string", "enum": names})
                } else {
                    let mut options = Vec::with_capacity(e.variants.len());
                    for v in &e.variants {
                        let mut option = self.variant_schema(&e.repr, &v.name, &v.kind, depth)?;
                        with_description(&mut option, v.doc.as_deref());
                        options.push(option);
                    }
                    if options.len() == 1 {
                        options.pop().unwrap_or(Value::Null)
                    } else {
                        json!({ "anyOf": options })
                    }
                };
                with_description(&mut schema, e.doc.as_deref());
                schema
            }
        })
    }

    fn variant_schema(
        &self,
        repr: &EnumRepr,
        name: &str,
        kind: &VariantKind,
        depth: usize,
    ) -> Option<Value> {
        let tag_value = json!({"type": "string", "enum": [name]});
        let content = |graph: &ShapeGraph| -> Option<Option<Value>> {
            Some(match kind {
                VariantKind::Unit => None,
                VariantKind::Newtype(inner) => Some(graph.schema_of(*inner, depth + 1)?),
                VariantKind::Struct(fields) => Some(graph.object_schema(&[], fields, depth)?),
                VariantKind::Tuple(_) => return None,
            })
        };
        Some(match repr {
            EnumRepr::External => match content(self)? {
                None => tag_value,
                Some(c) => object(vec![(name.to_owned(), c)]),
            },
            EnumRepr::Internal { tag } => {
                let tag_member = [(tag.to_string(), tag_value)];
                match kind {
                    VariantKind::Unit => object(tag_member.into()),
                    VariantKind::Struct(fields) => {
                        self.object_schema(&tag_member, fields, depth)?
                    }
                    VariantKind::Newtype(inner) => match self.node(self.resolve(*inner)) {
                        Node::Struct(s) => match &s.kind {
                            StructKind::Named(fields) => {
                                self.object_schema(&tag_member, fields, depth)?
                            }
                            _ => return None,
                        },
                        _ => return None,
                    },
                    VariantKind::Tuple(_) => return None,
                }
            }
            EnumRepr::Adjacent { tag, content: c } => match content(self)? {
                None => object(vec![(tag.to_string(), tag_value)]),
                Some(inner) => object(vec![(tag.to_string(), tag_value), (c.to_string(), inner)]),
            },
            EnumRepr::Untagged => match content(self)? {
                None => json!({"type": "null"}),
                Some(c) => c,
            },
        })
    }

    /// An object with `leading` members first, then `fields` (flattened structs inlined).
    fn object_schema(
        &self,
        leading: &[(String, Value)],
        fields: &[Field],
        depth: usize,
    ) -> Option<Value> {
        let mut members: Vec<(String, Value)> = leading.to_vec();
        self.collect_properties(fields, &mut members, depth)?;
        Some(object(members))
    }

    fn collect_properties(
        &self,
        fields: &[Field],
        out: &mut Vec<(String, Value)>,
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        for field in fields {
            if field.flatten {
                match self.node(self.resolve(field.ty)) {
                    Node::Struct(s) => match &s.kind {
                        StructKind::Named(inner) => {
                            self.collect_properties(inner, out, depth + 1)?;
                            continue;
                        }
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            let mut schema = self.schema_of(field.ty, depth + 1)?;
            with_description(&mut schema, field.doc.as_deref());
            out.push((field.name.to_string(), schema));
        }
        Some(())
    }
}

/// `{"type":"object","properties":..,"required":[all],"additionalProperties":false}`.
fn object(members: Vec<(String, Value)>) -> Value {
    let required: Vec<Value> = members
        .iter()
        .map(|(k, _)| Value::from(k.as_str()))
        .collect();
    let properties: Map<String, Value> = members.into_iter().collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn scalar_schema(s: Scalar) -> Option<Value> {
    Some(match s {
        Scalar::String | Scalar::Char | Scalar::Time => json!({"type": "string"}),
        // A naive date-time has no offset, which JSON Schema's `date-time` format requires: a plain
        // string with its form in the description keeps providers from adding one.
        Scalar::DateTime => json!({
            "type": "string",
            "description": "ISO 8601 date and time without offset, such as 2026-11-15T09:30:00",
        }),
        Scalar::Bool => json!({"type": "boolean"}),
        Scalar::Int(_) => json!({"type": "integer"}),
        Scalar::Float(FloatKind::F32 | FloatKind::F64) | Scalar::Decimal => {
            json!({"type": "number"})
        }
        Scalar::Unit => json!({"type": "null"}),
        Scalar::Date => json!({"type": "string", "format": "date"}),
        Scalar::DateTimeOffset => json!({"type": "string", "format": "date-time"}),
        Scalar::Uuid => json!({"type": "string", "format": "uuid"}),
        Scalar::Url => json!({"type": "string", "format": "uri"}),
        Scalar::Json | Scalar::JsonObject => return None,
    })
}

/// Makes a schema also accept `null`: `"type": [t, "null"]` for simple typed schemas (with `null`
/// added to an `enum`), `anyOf` with `{"type":"null"}` otherwise.
pub(crate) fn nullable(schema: Value) -> Value {
    if let Value::Object(mut map) = schema {
        let simple = matches!(map.get("type"), Some(Value::String(t)) if t != "object" && t != "array" && t != "null");
        if simple && !map.contains_key("anyOf") {
            if let Some(t) = map.get_mut("type") {
                *t = json!([t.take(), "null"]);
            }
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            return Value::Object(map);
        }
        if map.get("type") == Some(&Value::from("null")) {
            return Value::Object(map);
        }
        return json!({"anyOf": [Value::Object(map), {"type": "null"}]});
    }
    schema
}

fn with_description(schema: &mut Value, doc: Option<&str>) {
    let Some(doc) = doc.map(str::trim).filter(|d| !d.is_empty()) else {
        return;
    };
    if let Value::Object(map) = schema {
        if !map.contains_key("description") {
            map.insert("description".into(), Value::from(doc));
        }
    }
}

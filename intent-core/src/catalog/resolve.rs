//! Checking that a rule's path names a member the shape has, of the kind the rule needs: against
//! a Rust type's shape graph, or against a JSON Schema.

use serde_json::Value;

use super::path::Step;
use super::rules::MemberRule;
use crate::shape::rule_table::schema_type_target;
use crate::shape::RuleTarget;
use crate::shape::{EnumRepr, Field, Node, NodeId, Scalar, ShapeGraph, StructKind, VariantKind};

/// How deep `$ref`s and combinators are followed in a schema.
const MAX_SCHEMA_DEPTH: usize = 64;

/// Checks `rule` against the shape `root` of `graph`.
pub(crate) fn check_on_type(
    graph: &ShapeGraph,
    root: NodeId,
    rule: &MemberRule,
) -> Result<(), String> {
    let mut current = vec![root];
    let mut walked = String::new();
    for step in rule.path.steps() {
        let mut next = Vec::new();
        for &id in &current {
            let id = plain(graph, id);
            match (step, graph.node(id)) {
                (Step::Member(name), node) => members_named(graph, node, name, &mut next, 0),
                (Step::Items, Node::Seq { item, .. }) => next.push(*item),
                (Step::Values, Node::Map { value, .. }) => next.push(*value),
                (_, Node::Scalar(Scalar::Json | Scalar::JsonObject)) => {
                    // Any JSON: every path may exist, and any rule may apply.
                    return Ok(());
                }
                _ => {}
            }
        }
        if next.is_empty() {
            let at = at_words(&walked);
            let labels = labels(graph, &current);
            return Err(match step {
                Step::Member(name) => {
                    let known = member_names(graph, &current);
                    format!(
                        "rule `{}`: {labels}{at} has no member `{name}`; its members are: {}",
                        rule.path,
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    )
                }
                Step::Items => format!("rule `{}`: {labels}{at} is not a list", rule.path),
                Step::Values => format!("rule `{}`: {labels}{at} is not a map", rule.path),
            });
        }
        push_step(&mut walked, step);
        current = next;
    }
    for &id in &current {
        let id = plain(graph, id);
        if let Some(misfit) = rule.misfit(graph.rule_target(id)) {
            return Err(format!(
                "rule `{}`: {misfit}; {} is a `{}`",
                rule.path,
                member_words(&walked),
                graph.label(id)
            ));
        }
    }
    Ok(())
}

fn plain(graph: &ShapeGraph, id: NodeId) -> NodeId {
    let mut id = id;
    for _ in 0..=graph.len() {
        let next = graph.resolve(graph.strip_option(id));
        if next == id {
            break;
        }
        id = next;
    }
    id
}

fn members_named(graph: &ShapeGraph, node: &Node, name: &str, out: &mut Vec<NodeId>, depth: u32) {
    if depth > 16 {
        return;
    }
    let visit = |fields: &[Field], out: &mut Vec<NodeId>| {
        for f in fields {
            if f.flatten {
                let inner = plain(graph, f.ty);
                members_named(graph, graph.node(inner), name, out, depth + 1);
            } else if f.name == name || f.aliases.iter().any(|a| a == name) {
                out.push(f.ty);
            }
        }
    };
    match node {
        Node::Struct(s) => {
            if let StructKind::Named(fields) = &s.kind {
                visit(fields, out);
            }
        }
        Node::Enum(e) => {
            for v in &e.variants {
                match &v.kind {
                    VariantKind::Struct(fields) => visit(fields, out),
                    VariantKind::Newtype(inner) if !matches!(e.repr, EnumRepr::External) => {
                        let inner = plain(graph, *inner);
                        members_named(graph, graph.node(inner), name, out, depth + 1);
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

fn member_names(graph: &ShapeGraph, nodes: &[NodeId]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut collect = |fields: &[Field]| {
        for f in fields {
            if !names.iter().any(|n| n == &*f.name) {
                names.push(f.name.to_string());
            }
        }
    };
    for &id in nodes {
        match graph.node(plain(graph, id)) {
            Node::Struct(s) => {
                if let StructKind::Named(fields) = &s.kind {
                    collect(fields);
                }
            }
            Node::Enum(e) => {
                for v in &e.variants {
                    if let VariantKind::Struct(fields) = &v.kind {
                        collect(fields);
                    }
                }
            }
            _ => {}
        }
    }
    names
}

fn labels(graph: &ShapeGraph, nodes: &[NodeId]) -> String {
    let mut out: Vec<String> = Vec::new();
    for &id in nodes {
        let label = format!("`{}`", graph.label(plain(graph, id)));
        if !out.contains(&label) {
            out.push(label);
        }
    }
    out.join(" or ")
}

/// Checks `rule` against a JSON Schema.
pub(crate) fn check_on_schema(schema: &Value, rule: &MemberRule) -> Result<(), String> {
    let mut current = branches(schema, schema);
    let mut walked = String::new();
    for step in rule.path.steps() {
        let mut next = Vec::new();
        let mut open = false;
        for node in &current {
            let child = match step {
                Step::Member(name) => node.get("properties").and_then(|p| p.get(name.as_str())),
                Step::Items => node
                    .get("items")
                    .filter(|i| i.is_object() || i.is_boolean()),
                Step::Values => node.get("additionalProperties").filter(|a| a.is_object()),
            };
            match child {
                Some(child) => next.extend(branches(schema, child)),
                None => open |= is_open(node),
            }
        }
        if next.is_empty() {
            if open {
                // A schema with no type and no members constrains nothing: any path may exist.
                return Ok(());
            }
            let at = at_words(&walked);
            return Err(match step {
                Step::Member(name) => {
                    let mut known: Vec<&str> = Vec::new();
                    for node in &current {
                        if let Some(Value::Object(p)) = node.get("properties") {
                            known.extend(p.keys().map(String::as_str));
                        }
                    }
                    format!(
                        "rule `{}`: the schema{at} has no property `{name}`; its properties are: {}",
                        rule.path,
                        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                    )
                }
                Step::Items => format!(
                    "rule `{}`: the schema{at} is not an array with `items`",
                    rule.path
                ),
                Step::Values => format!(
                    "rule `{}`: the schema{at} is not a map (an object with an `additionalProperties` schema)",
                    rule.path
                ),
            });
        }
        push_step(&mut walked, step);
        current = next;
    }
    if rule.kind.is_none() && !rule.rules.from_input {
        return Ok(());
    }
    let mut types: Vec<&str> = Vec::new();
    for node in &current {
        match node.get("type") {
            Some(Value::String(t)) => types.push(t),
            Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str)),
            _ => return Ok(()), // untyped: the rule may apply
        }
    }
    if types
        .iter()
        .any(|t| rule.misfit(schema_type_target(t)).is_none())
    {
        return Ok(());
    }
    // No type listed fits: the rule's family is refused by every one of them alike.
    let misfit = types
        .first()
        .and_then(|t| rule.misfit(schema_type_target(t)))
        .or_else(|| rule.misfit(RuleTarget::Other));
    let Some(misfit) = misfit else {
        return Ok(());
    };
    types.retain(|t| *t != "null");
    types.dedup();
    Err(format!(
        "rule `{}`: {misfit}; {} is of type {}",
        rule.path,
        member_words(&walked),
        types.join(" or ")
    ))
}

/// A schema node and, through local `$ref`s and `anyOf`/`oneOf`/`allOf`, the nodes it stands for.
fn branches<'s>(root: &'s Value, node: &'s Value) -> Vec<&'s Value> {
    let mut out = Vec::new();
    let mut stack = vec![(node, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_SCHEMA_DEPTH || !node.is_object() {
            continue;
        }
        out.push(node);
        if let Some(target) = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer))
        {
            stack.push((target, depth + 1));
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(options)) = node.get(keyword) {
                stack.extend(options.iter().map(|o| (o, depth + 1)));
            }
        }
    }
    out
}

/// True when a schema node does not say what it is (no type, no members, no reference).
fn is_open(node: &Value) -> bool {
    [
        "type",
        "properties",
        "items",
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
    ]
    .iter()
    .all(|k| node.get(k).is_none())
}

fn push_step(walked: &mut String, step: &Step) {
    match step {
        Step::Member(name) => {
            if !walked.is_empty() {
                walked.push('.');
            }
            walked.push_str(name);
        }
        Step::Items => walked.push_str("[]"),
        Step::Values => walked.push_str(if walked.is_empty() { "*" } else { ".*" }),
    }
}

fn at_words(walked: &str) -> String {
    if walked.is_empty() {
        String::new()
    } else {
        format!(" at `{walked}`")
    }
}

fn member_words(walked: &str) -> String {
    if walked.is_empty() {
        "the result".to_owned()
    } else {
        format!("`{walked}`")
    }
}

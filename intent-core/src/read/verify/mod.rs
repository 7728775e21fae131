//! Walking a reply's value against the type's shape: every violation found in one pass, each with
//! its JSON pointer, while names are mapped to their wire form and numbers read from strings.

use serde_json::{Map, Value};

use crate::result::{IssueKind, ResultIssue};
use crate::shape::{EnumShape, Field, Node, NodeId, Scalar, SeqKind, ShapeGraph, StructKind};

use super::findings::Findings;
use super::path::Path;
use scalar::mismatch;

pub(super) mod enums;
pub(super) mod rules;
pub(super) mod scalar;
pub(super) mod schema;

/// The most shape steps the walk takes down one branch (newtypes and options included), so a type
/// that wraps itself cannot loop.
pub const MAX_WALK_DEPTH: usize = 1024;

/// A node id outside every graph: it reads as [`Node::Reserved`], which accepts any value.
const ANYTHING: NodeId = NodeId(u32::MAX);

/// The walk over one reply.
pub(crate) struct Walker<'g> {
    pub graph: &'g ShapeGraph,
    /// The findings so far, bounded.
    pub issues: Findings,
    /// The doubles (bits, sorted) that numbers of the reply read as by losing their fraction:
    /// no integer is read from them.
    pub lossy: Vec<u64>,
    depth: usize,
    /// Shape steps taken so far, trials of untagged variants included.
    steps: usize,
}

/// The most shape steps one reply may take, untagged variants' trials included: a bound on the
/// work a reply can cause.
pub const MAX_WALK_STEPS: usize = 4_000_000;

/// A member of an object after `flatten` is expanded.
struct Member<'g> {
    field: &'g Field,
    required: bool,
}

impl<'g> Walker<'g> {
    pub(crate) fn new(graph: &'g ShapeGraph) -> Self {
        Walker {
            graph,
            issues: Findings::new(),
            lossy: Vec::new(),
            depth: 0,
            steps: 0,
        }
    }

    /// A walker for trying a variant: same depth and step count, its own issues.
    pub(crate) fn trial(&self) -> Walker<'g> {
        Walker {
            graph: self.graph,
            issues: Findings::new(),
            lossy: self.lossy.clone(),
            depth: self.depth,
            steps: self.steps,
        }
    }

    /// The issue to report when the walk ran out of steps (and so did not check everything).
    pub(crate) fn budget_issue(&self) -> Option<ResultIssue> {
        (self.steps > MAX_WALK_STEPS).then(|| {
            ResultIssue::new(
                IssueKind::Shape,
                format!("The value takes more than {MAX_WALK_STEPS} steps to check (the reader's limit); reply with a smaller value."),
            )
        })
    }

    /// Takes over the step count of a finished trial.
    pub(crate) fn absorb_steps(&mut self, trial: &Walker<'g>) {
        self.steps = self.steps.max(trial.steps);
    }

    pub(crate) fn shape_issue(&mut self, path: &Path<'_>, message: impl Into<String>) {
        self.issues
            .push(ResultIssue::at(path.pointer(), IssueKind::Shape, message));
    }

    /// A shape issue at `path` saying what is wanted, then what was got:
    /// `Must be an object ...; got the number 3.`
    pub(crate) fn wrong_shape(
        &mut self,
        path: &Path<'_>,
        wanted: impl std::fmt::Display,
        got: &Value,
    ) {
        let message = format!("{wanted}; got {}.", scalar::describe(got));
        self.shape_issue(path, message);
    }

    /// Checks `value` against node `id`, normalizing it in place.
    pub(crate) fn walk(&mut self, id: NodeId, value: &mut Value, path: &Path<'_>) {
        self.steps += 1;
        if self.steps > MAX_WALK_STEPS {
            return;
        }
        if self.depth >= MAX_WALK_DEPTH {
            self.shape_issue(
                path,
                format!("The value is nested too deeply to check (the reader's limit is {MAX_WALK_DEPTH} steps); reply with a flatter value."),
            );
            return;
        }
        self.depth += 1;
        self.node(id, value, path);
        self.depth -= 1;
    }

    fn node(&mut self, id: NodeId, value: &mut Value, path: &Path<'_>) {
        let graph = self.graph;
        let node = graph.node(id);
        if value.is_null() && !graph.accepts(id).null {
            let message = format!("Must not be null: write a {}.", graph.label(id));
            self.shape_issue(path, message);
            return;
        }
        match node {
            Node::Option(inner) => {
                if !value.is_null() {
                    self.walk(*inner, value, path);
                }
            }
            Node::Scalar(s) => {
                if let Err(message) = scalar::check(*s, &graph.label_of(id), value, &self.lossy) {
                    self.shape_issue(path, message);
                }
            }
            Node::Seq { item, kind } => self.seq(*item, *kind, value, path),
            Node::Map { key, value: item } => self.map(*key, *item, value, path),
            Node::Tuple(items) => self.tuple(items, value, path),
            Node::Struct(s) => match &s.kind {
                StructKind::Named(fields) => match value {
                    Value::Object(map) => self.members(fields, map, path),
                    other => {
                        let message = mismatch(&format!("an object ({})", s.name), other);
                        self.shape_issue(path, message)
                    }
                },
                StructKind::Newtype(inner) => self.walk(*inner, value, path),
                StructKind::Tuple(items) => self.tuple(items, value, path),
                StructKind::Unit => {
                    if !value.is_null() {
                        let message = mismatch("null", value);
                        self.shape_issue(path, message)
                    }
                }
            },
            Node::Enum(e) => self.enumeration(id, e, value, path),
            Node::Reserved => {}
        }
    }

    fn enumeration(&mut self, id: NodeId, e: &'g EnumShape, value: &mut Value, path: &Path<'_>) {
        enums::walk(self, id, e, value, path);
    }

    fn seq(&mut self, item: NodeId, kind: SeqKind, value: &mut Value, path: &Path<'_>) {
        let Value::Array(items) = value else {
            let message = mismatch("an array", value);
            self.shape_issue(path, message);
            return;
        };
        if let SeqKind::Array(n) = kind {
            if items.len() != n {
                let message = format!(
                    "Must have exactly {n} {}; got {}.",
                    if n == 1 { "element" } else { "elements" },
                    items.len()
                );
                self.shape_issue(path, message);
            }
        }
        for (index, element) in items.iter_mut().enumerate() {
            self.walk(item, element, &path.index(index));
        }
        if kind == SeqKind::Set {
            for (index, first) in rules::repeats(items) {
                self.shape_issue(
                    &path.index(index),
                    format!("The elements of a set must all be different; this one repeats element {first}."),
                );
            }
        }
    }

    pub(crate) fn tuple(&mut self, items: &[NodeId], value: &mut Value, path: &Path<'_>) {
        let Value::Array(elements) = value else {
            let message = mismatch(&format!("an array of {} elements", items.len()), value);
            self.shape_issue(path, message);
            return;
        };
        if elements.len() != items.len() {
            let message = format!(
                "Must have exactly {} elements; got {}.",
                items.len(),
                elements.len()
            );
            self.shape_issue(path, message);
        }
        for (index, (element, item)) in elements.iter_mut().zip(items).enumerate() {
            self.walk(*item, element, &path.index(index));
        }
    }

    fn map(&mut self, key: NodeId, item: NodeId, value: &mut Value, path: &Path<'_>) {
        let Value::Object(map) = value else {
            let message = mismatch("a JSON object", value);
            self.shape_issue(path, message);
            return;
        };
        let key_node = self.graph.accepts(key).id;
        let mut renames: Vec<(usize, String)> = Vec::new();
        for (index, name) in map.keys().enumerate() {
            match self.map_key(key_node, name) {
                Ok(Some(canonical)) => renames.push((index, canonical)),
                Ok(None) => {}
                Err(message) => self.shape_issue(&path.key(name), message),
            }
        }
        if !renames.is_empty() {
            rename_keys(map, &renames, |name| {
                self.shape_issue(
                    &path.key(name),
                    format!("The key `{name}` is given twice; give each key once."),
                )
            });
        }
        for (name, element) in map.iter_mut() {
            self.walk(item, element, &path.key(name));
        }
    }

    /// Checks a map key against its shape; `Ok(Some(name))` renames it (an enum name's case).
    fn map_key(&self, key: NodeId, name: &str) -> Result<Option<String>, String> {
        match self.graph.node(key) {
            // Written exactly as the integer is (no sign, zeros or spaces more), so no two keys
            // read as the same one.
            Node::Scalar(Scalar::Int(kind)) => match name.parse::<i128>() {
                Ok(v) if v >= kind.min() && v <= kind.max() && v.to_string() == name => Ok(None),
                _ => Err(format!(
                    "The key must be a whole number from {} to {}; got {}.",
                    kind.min(),
                    kind.max(),
                    Value::from(name)
                )),
            },
            Node::Scalar(Scalar::Bool) if name != "true" && name != "false" => Err(format!(
                "The key must be true or false; got {}.",
                Value::from(name)
            )),
            Node::Scalar(Scalar::Char) if name.chars().count() != 1 => {
                Err("The key must be exactly one character.".to_owned())
            }
            Node::Enum(e) if e.is_unit_only() => match enums::find_variant(e, name) {
                Some(v) if v.name == name || !enums::is_named(v, name) => Ok(None),
                Some(v) => Ok(Some(v.name.to_string())),
                None => Err(format!(
                    "The key must be one of: {}; got {}.",
                    enums::names(e),
                    Value::from(name)
                )),
            },
            _ => Ok(None),
        }
    }

    /// Checks an object's members against `fields`: names mapped to wire names, required members
    /// present, each member walked and its rules checked.
    pub(crate) fn members(
        &mut self,
        fields: &'g [Field],
        map: &mut Map<String, Value>,
        path: &Path<'_>,
    ) {
        let mut members = Vec::with_capacity(fields.len());
        let mut rest: Option<NodeId> = None;
        self.expand(fields, true, &mut members, &mut rest, 0);

        // Map each key to its member; rename keys written in another case.
        let mut renames: Vec<(usize, String)> = Vec::new();
        let mut claimed = vec![false; members.len()];
        for name in map.keys() {
            if let Some(m) = members.iter().position(|m| is_named(m.field, name)) {
                if claimed[m] {
                    let message = format!(
                        "The member `{}` is given twice (also as `{name}`); give it once.",
                        members[m].field.name
                    );
                    self.shape_issue(&path.key(name), message);
                }
                claimed[m] = true;
            }
        }
        for (index, name) in map.keys().enumerate() {
            let exact = members.iter().any(|m| is_named(m.field, name));
            if exact {
                continue;
            }
            let loose = members.iter().position(|m| {
                m.field.name.eq_ignore_ascii_case(name)
                    || m.field.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
            });
            if let Some(m) = loose {
                if claimed[m] {
                    let message = format!(
                        "The member `{}` is given twice (also as `{name}`); give it once.",
                        members[m].field.name
                    );
                    self.shape_issue(&path.key(name), message);
                } else {
                    claimed[m] = true;
                    renames.push((index, members[m].field.name.to_string()));
                }
            }
        }
        if !renames.is_empty() {
            rename_keys(map, &renames, |_| {});
        }

        for (m, member) in members.iter().enumerate() {
            if !claimed[m] && member.required {
                self.missing(member.field, path);
            }
        }
        for (name, element) in map.iter_mut() {
            let member = members.iter().find(|m| is_named(m.field, name));
            let here = path.key(name);
            match member {
                Some(member) => self.member(member.field, element, &here),
                None => {
                    if let Some(rest) = rest {
                        self.walk(rest, element, &here);
                    }
                }
            }
        }
    }

    /// Reports the required member `field` missing from the object at `path`.
    pub(crate) fn missing(&mut self, field: &Field, path: &Path<'_>) {
        let message = format!(
            "The required member `{}` ({}) is missing; add it.",
            field.name,
            self.graph.label(field.ty)
        );
        self.shape_issue(&path.key(&field.name), message);
    }

    /// Checks the value of member `field`, at `here`: its shape, then its rules.
    pub(crate) fn member(&mut self, field: &Field, element: &mut Value, here: &Path<'_>) {
        let before = self.issues.total();
        self.walk(field.ty, element, here);
        // A value of the wrong shape is reported once, not again by its rules.
        if self.issues.total() == before && !field.rules.is_empty() {
            let target = self.graph.rule_target(field.ty);
            rules::check(&field.rules, element, target, here, &mut self.issues);
        }
    }

    /// Expands flattened members into `out`; a flattened map or JSON object collects the rest.
    fn expand(
        &self,
        fields: &'g [Field],
        required: bool,
        out: &mut Vec<Member<'g>>,
        rest: &mut Option<NodeId>,
        depth: usize,
    ) {
        for field in fields {
            if !field.flatten {
                out.push(Member {
                    field,
                    required: required && field.required,
                });
                continue;
            }
            if depth > 32 {
                continue;
            }
            let optional = !matches!(self.graph.node(field.ty), Node::Option(_));
            let inner = self.graph.resolve(self.graph.strip_option(field.ty));
            match self.graph.node(inner) {
                Node::Struct(s) => {
                    if let StructKind::Named(inner_fields) = &s.kind {
                        self.expand(
                            inner_fields,
                            required && optional && field.required,
                            out,
                            rest,
                            depth + 1,
                        );
                    }
                }
                Node::Map { value, .. } => *rest = Some(*value),
                Node::Scalar(Scalar::Json | Scalar::JsonObject) => *rest = Some(ANYTHING),
                _ => {}
            }
        }
    }
}

/// The member of `fields` that a reply's `name` stands for, as [`Walker::members`] maps names:
/// its wire name or an alias exactly, else in another case. Flattened members are not looked in.
pub(crate) fn field_named<'f>(fields: &'f [Field], name: &str) -> Option<(usize, &'f Field)> {
    let direct = |f: &&Field| !f.flatten;
    fields
        .iter()
        .enumerate()
        .filter(|(_, f)| direct(f))
        .find(|(_, f)| is_named(f, name))
        .or_else(|| {
            fields
                .iter()
                .enumerate()
                .filter(|(_, f)| direct(f))
                .find(|(_, f)| {
                    f.name.eq_ignore_ascii_case(name)
                        || f.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
                })
        })
}

/// True when `name` is the field's wire name or one of its aliases, exactly.
fn is_named(field: &Field, name: &str) -> bool {
    field.name == name || field.aliases.iter().any(|a| a == name)
}

/// Renames the keys at the given positions, keeping the order; a name that collides reports.
fn rename_keys(
    map: &mut Map<String, Value>,
    renames: &[(usize, String)],
    mut collided: impl FnMut(&str),
) {
    let old = std::mem::take(map);
    let mut next = renames.iter().peekable();
    for (index, (name, value)) in old.into_iter().enumerate() {
        let name = match next.peek() {
            Some((at, new)) if *at == index => {
                next.next();
                new.clone()
            }
            _ => name,
        };
        if map.contains_key(&name) {
            collided(&name);
        }
        map.insert(name, value);
    }
}

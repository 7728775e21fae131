//! Enums in each of serde's representations: names only (case-insensitive to the canonical name),
//! never numbers.

use serde_json::{Map, Value};

use crate::shape::{EnumRepr, EnumShape, NodeId, Variant, VariantKind};

use super::scalar::describe;
use super::Walker;
use crate::read::findings::Findings;
use crate::read::path::Path;

/// The variant named `name`: by wire name or alias, then the same ignoring ASCII case, then the
/// `#[serde(other)]` variant, which serde reads any other tag as.
pub(crate) fn find_variant<'e>(e: &'e EnumShape, name: &str) -> Option<&'e Variant> {
    let name = name.trim();
    e.variants
        .iter()
        .find(|v| v.name == name || v.aliases.iter().any(|a| a == name))
        .or_else(|| e.variants.iter().find(|v| is_named(v, name)))
        .or_else(|| other_taking(&e.variants, name))
}

/// The `#[serde(other)]` variant among `variants`, when it takes `name`: no variant is named so in
/// any ASCII case (a name that is one in another case is read as that variant, not as `other`).
pub(crate) fn other_taking<'v>(variants: &'v [Variant], name: &str) -> Option<&'v Variant> {
    let other = variants.iter().find(|v| v.other)?;
    (!variants.iter().any(|v| is_named(v, name))).then_some(other)
}

/// True when `name` names `v` (its wire name or an alias, in any ASCII case), rather than being
/// taken by `v` as the `#[serde(other)]` variant.
pub(crate) fn is_named(v: &Variant, name: &str) -> bool {
    let name = name.trim();
    v.name.eq_ignore_ascii_case(name) || v.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// The variants' names, for messages: `Open, Closed`.
pub(crate) fn names(e: &EnumShape) -> String {
    let names: Vec<&str> = e.variants.iter().map(|v| v.name.as_ref()).collect();
    names.join(", ")
}

fn unknown(e: &EnumShape, got: &Value) -> String {
    let numbers = if matches!(got, Value::Number(_)) {
        " (by name; numbers are not accepted)"
    } else {
        ""
    };
    format!(
        "Must be one of: {}{numbers}; got {}.",
        names(e),
        describe(got)
    )
}

/// Replaces `slot` with the variant's canonical name when it was written otherwise. A tag the
/// `#[serde(other)]` variant takes stays as written: serde reads it as that variant all the same.
fn canonical(slot: &mut String, variant: &Variant) {
    if *slot != *variant.name
        && !variant.aliases.iter().any(|a| a == slot)
        && is_named(variant, slot)
    {
        *slot = variant.name.to_string();
    }
}

pub(crate) fn walk<'g>(
    w: &mut Walker<'g>,
    _id: NodeId,
    e: &'g EnumShape,
    value: &mut Value,
    path: &Path<'_>,
) {
    match &e.repr {
        EnumRepr::External => external(w, e, value, path),
        EnumRepr::Internal { tag } => internal(w, e, tag, value, path),
        EnumRepr::Adjacent { tag, content } => adjacent(w, e, tag, content, value, path),
        EnumRepr::Untagged => untagged(w, e, value, path),
    }
}

fn external<'g>(w: &mut Walker<'g>, e: &'g EnumShape, value: &mut Value, path: &Path<'_>) {
    match value {
        Value::String(name) => match find_variant(e, name) {
            Some(v) if matches!(v.kind, VariantKind::Unit) => canonical(name, v),
            Some(v) => {
                let message = format!(
                    "The variant `{}` carries data: write {{\"{}\": ...}} with its content.",
                    v.name, v.name
                );
                w.shape_issue(path, message);
            }
            None => {
                let message = unknown(e, value);
                w.shape_issue(path, message);
            }
        },
        Value::Object(map) if map.len() == 1 => {
            let Some((name, content)) = map.iter_mut().next() else {
                return;
            };
            let Some(v) = find_variant(e, name) else {
                let message = unknown(e, &Value::from(name.as_str()));
                w.shape_issue(path, message);
                return;
            };
            let here = path.key(name);
            content_of(w, v, content, &here);
            if *name != *v.name && !v.aliases.iter().any(|a| a == name) && is_named(v, name) {
                let content = std::mem::take(content);
                map.clear();
                map.insert(v.name.to_string(), content);
            }
        }
        other if e.is_unit_only() => {
            let message = unknown(e, other);
            w.shape_issue(path, message);
        }
        other => w.wrong_shape(
            path,
            format_args!(
                "Must be the name of a variant of {} or an object with one member named for the variant, one of: {}",
                e.name,
                names(e)
            ),
            other,
        ),
    }
}

/// Checks a variant's content (external and adjacent forms).
fn content_of<'g>(w: &mut Walker<'g>, v: &'g Variant, content: &mut Value, path: &Path<'_>) {
    match &v.kind {
        VariantKind::Unit => {
            if !content.is_null() {
                let message = format!("The variant `{}` has no content: write null.", v.name);
                w.shape_issue(path, message);
            }
        }
        VariantKind::Newtype(inner) => w.walk(*inner, content, path),
        VariantKind::Tuple(items) => w.tuple(items, content, path),
        VariantKind::Struct(fields) => match content {
            Value::Object(map) => w.members(fields, map, path),
            other => w.wrong_shape(
                path,
                format_args!("The variant `{}` must be an object", v.name),
                other,
            ),
        },
    }
}

/// Finds the member written as `name` in any case, renaming it to `name`; false when absent.
fn claim(map: &mut Map<String, Value>, name: &str) -> bool {
    if map.contains_key(name) {
        return true;
    }
    let Some(found) = map.keys().find(|k| k.eq_ignore_ascii_case(name)).cloned() else {
        return false;
    };
    if let Some(value) = map.shift_remove(&found) {
        map.insert(name.to_owned(), value);
    }
    true
}

fn tag_variant<'e>(
    w: &mut Walker<'_>,
    e: &'e EnumShape,
    map: &mut Map<String, Value>,
    tag: &str,
    path: &Path<'_>,
) -> Option<&'e Variant> {
    if !claim(map, tag) {
        let message = format!(
            "The member `{tag}` naming the variant is missing; add it, one of: {}.",
            names(e)
        );
        w.shape_issue(path, message);
        return None;
    }
    let here = path.key(tag);
    match map.get_mut(tag) {
        Some(Value::String(name)) => match find_variant(e, name) {
            Some(v) => {
                canonical(name, v);
                Some(v)
            }
            None => {
                let message = unknown(e, &Value::from(name.as_str()));
                w.shape_issue(&here, message);
                None
            }
        },
        Some(other) => {
            let message = unknown(e, other);
            w.shape_issue(&here, message);
            None
        }
        None => None,
    }
}

/// The object of a tagged variant and the variant its `tag` names; `None` when `value` is not an
/// object (the issue says what is wanted, the `content` member too when the variant's content
/// sits beside its tag, then what was got) or names no variant.
fn tagged<'v, 'e>(
    w: &mut Walker<'_>,
    e: &'e EnumShape,
    (tag, content): (&str, Option<&str>),
    value: &'v mut Value,
    path: &Path<'_>,
) -> Option<(&'v mut Map<String, Value>, &'e Variant)> {
    let Value::Object(map) = value else {
        let names = names(e);
        match content {
            None => w.wrong_shape(
                path,
                format_args!("Must be an object with the member `{tag}` naming the variant, one of: {names}"),
                value,
            ),
            Some(content) => w.wrong_shape(
                path,
                format_args!("Must be an object with the members `{tag}` (the variant, one of: {names}) and `{content}`"),
                value,
            ),
        }
        return None;
    };
    let v = tag_variant(w, e, map, tag, path)?;
    Some((map, v))
}

fn internal<'g>(
    w: &mut Walker<'g>,
    e: &'g EnumShape,
    tag: &str,
    value: &mut Value,
    path: &Path<'_>,
) {
    let Some((map, v)) = tagged(w, e, (tag, None), value, path) else {
        return;
    };
    match &v.kind {
        VariantKind::Unit | VariantKind::Tuple(_) => {}
        VariantKind::Struct(fields) => w.members(fields, map, path),
        VariantKind::Newtype(inner) => w.walk(*inner, value, path),
    }
}

fn adjacent<'g>(
    w: &mut Walker<'g>,
    e: &'g EnumShape,
    tag: &str,
    content: &str,
    value: &mut Value,
    path: &Path<'_>,
) {
    let Some((map, v)) = tagged(w, e, (tag, Some(content)), value, path) else {
        return;
    };
    let present = claim(map, content);
    match (present, &v.kind) {
        (false, VariantKind::Unit) => {}
        (false, _) => {
            let message = format!(
                "The member `{content}` with the content of `{}` is missing; add it.",
                v.name
            );
            w.shape_issue(&path.key(content), message);
        }
        (true, _) => {
            if let Some(slot) = map.get_mut(content) {
                content_of(w, v, slot, &path.key(content));
            }
        }
    }
}

fn untagged<'g>(w: &mut Walker<'g>, e: &'g EnumShape, value: &mut Value, path: &Path<'_>) {
    // When no form fits, the issues of the closest form are reported: one whose own shape matched
    // (its issues lie deeper than here), then the one with the fewest issues.
    let here = path.pointer();
    let mut best: Option<((bool, usize), Findings)> = None;
    for v in &e.variants {
        let mut trial = w.trial();
        let mut candidate = value.clone();
        match &v.kind {
            VariantKind::Unit => {
                if !candidate.is_null() {
                    continue;
                }
            }
            VariantKind::Newtype(inner) => trial.walk(*inner, &mut candidate, path),
            VariantKind::Tuple(items) => trial.tuple(items, &mut candidate, path),
            VariantKind::Struct(fields) => match &mut candidate {
                Value::Object(map) => trial.members(fields, map, path),
                _ => continue,
            },
        }
        w.absorb_steps(&trial);
        if trial.issues.is_empty() {
            *value = candidate;
            return;
        }
        let score = (
            trial
                .issues
                .listed()
                .iter()
                .any(|i| i.path.as_deref() == Some(here.as_str())),
            trial.issues.total(),
        );
        if best.as_ref().is_none_or(|(b, _)| score < *b) {
            best = Some((score, trial.issues));
        }
    }
    match best {
        Some((_, issues)) => w.issues.extend(issues.into_issues()),
        None => w.wrong_shape(
            path,
            format_args!("Must match one of the forms of {}", e.name),
            value,
        ),
    }
}

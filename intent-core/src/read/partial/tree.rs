//! The partial view's places: a value's segment below its container, and the way down to it.
//! Also the container a reader without a view builds on its own ([`Capture`]).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::super::path::push_token;

/// One step down from a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A member name: borrowed from the shape for a struct's member.
    Key(Cow<'static, str>),
    Index(usize),
}

/// The way `depth` steps down from `value`, each step to the last member or element: the way
/// down to what is still being written, given its depth
/// ([`PartialReader::open_depth`](super::PartialReader::open_depth)). Stops early at a value
/// with nothing in it.
pub(crate) fn way_down(mut value: &Value, depth: usize) -> Vec<Seg> {
    let mut way = Vec::with_capacity(depth);
    while way.len() < depth {
        let (seg, next) = match value {
            Value::Object(map) => match map.iter().next_back() {
                Some((key, next)) => (Seg::Key(Cow::Owned(key.clone())), next),
                None => break,
            },
            Value::Array(items) => match items.last() {
                Some(next) => (Seg::Index(items.len() - 1), next),
                None => break,
            },
            _ => break,
        };
        way.push(seg);
        value = next;
    }
    way
}

/// The container at `path` below `root`.
pub(super) fn at<'v>(root: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    path.iter().try_fold(root, |value, seg| child(value, seg))
}

/// The child at `seg` of `value`.
pub(super) fn child<'v>(value: &'v mut Value, seg: &Seg) -> Option<&'v mut Value> {
    match (value, seg) {
        // The way down is nearly always the member written last: found without hashing.
        (Value::Object(map), Seg::Key(key)) => {
            if map.iter().next_back().is_some_and(|(last, _)| last == key) {
                map.values_mut().next_back()
            } else {
                map.get_mut(key.as_ref())
            }
        }
        (Value::Array(items), Seg::Index(i)) => items.get_mut(*i),
        _ => None,
    }
}

/// The child at `seg` of `value`, read only.
pub(super) fn child_ref<'v>(value: &'v Value, seg: &Seg) -> Option<&'v Value> {
    match (value, seg) {
        (Value::Object(map), Seg::Key(key)) => match map.iter().next_back() {
            Some((last, value)) if last == key => Some(value),
            _ => map.get(key.as_ref()),
        },
        (Value::Array(items), Seg::Index(i)) => items.get(*i),
        _ => None,
    }
}

/// Puts `value` at `seg` of `container`: a member set, an element pushed or replaced.
pub(super) fn put(container: &mut Value, seg: &Seg, value: Value) {
    match (container, seg) {
        (Value::Object(map), Seg::Key(key)) => {
            // A value shown while open is replaced where it is, without hashing its name.
            if let Some((last, slot)) = map.iter_mut().next_back() {
                if last == key {
                    *slot = value;
                    return;
                }
            }
            map.insert(key.to_string(), value);
        }
        (Value::Array(items), Seg::Index(i)) if *i == items.len() => items.push(value),
        (Value::Array(items), Seg::Index(i)) => {
            if let Some(slot) = items.get_mut(*i) {
                *slot = value;
            }
        }
        _ => {}
    }
}

/// Takes the value at `seg` out of `container`: a member removed, the last element popped.
pub(super) fn take(container: &mut Value, seg: &Seg) {
    match (container, seg) {
        (Value::Object(map), Seg::Key(key)) => {
            map.remove(key.as_ref());
        }
        (Value::Array(items), Seg::Index(i)) if *i + 1 == items.len() => {
            items.pop();
        }
        _ => {}
    }
}

/// The JSON pointer of `path` then `last`, from the reply's `/value`.
pub(super) fn pointer<'s>(path: impl IntoIterator<Item = &'s Seg>) -> String {
    let mut out = String::from("/value");
    for seg in path {
        match seg {
            Seg::Key(key) => push_token(&mut out, key),
            Seg::Index(i) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
    out
}

/// A container built on its own while it is read, by a reader that builds no view: the
/// outermost open one whose value is needed when it closes.
#[derive(Debug)]
pub(super) struct Capture {
    /// The index of its frame.
    pub(super) frame: usize,
    /// The length of `path` inside it: places at this depth or below are in it.
    pub(super) base: usize,
    pub(super) root: Value,
}

/// The tree values are built in at the reader's place, with the way from its root to the open
/// container: the view, or the captured container (`None` when neither holds the place).
pub(super) fn tree_here<'t>(
    view_on: bool,
    view: &'t mut Arc<Value>,
    capture: &'t mut Option<Capture>,
    path: &'t [Seg],
) -> Option<(&'t mut Value, &'t [Seg])> {
    if view_on {
        return Some((Arc::make_mut(view), path));
    }
    let capture = capture.as_mut()?;
    Some((&mut capture.root, path.get(capture.base..)?))
}

/// The value at `seg` below the open container of a tree (the root itself for `None`).
pub(super) fn value_in<'t>(
    root: &'t mut Value,
    path: &[Seg],
    seg: Option<&Seg>,
) -> Option<&'t mut Value> {
    match seg {
        Some(seg) => at(root, path).and_then(|c| child(c, seg)),
        None if path.is_empty() => Some(root),
        None => None,
    }
}

//! The partial view's places: a value's segment below its container, and the way down to it.

use serde_json::Value;

use super::super::path::push_token;

/// One step down from a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// The container at `path` below `root`.
pub(super) fn at<'v>(root: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    path.iter().try_fold(root, |value, seg| child(value, seg))
}

/// The child at `seg` of `value`.
pub(super) fn child<'v>(value: &'v mut Value, seg: &Seg) -> Option<&'v mut Value> {
    match (value, seg) {
        (Value::Object(map), Seg::Key(key)) => map.get_mut(key),
        (Value::Array(items), Seg::Index(i)) => items.get_mut(*i),
        _ => None,
    }
}

/// Puts `value` at `seg` of `container`: a member set, an element pushed or replaced.
pub(super) fn put(container: &mut Value, seg: &Seg, value: Value) {
    match (container, seg) {
        (Value::Object(map), Seg::Key(key)) => {
            map.insert(key.clone(), value);
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
            map.remove(key);
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

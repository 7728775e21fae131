//! The fast path for a well-formed reply: serde reads the text straight into the type in one pass,
//! through a proxy that checks every value against the shape as it is read.
//!
//! It is taken only when the reply is exactly one JSON object `{"value": ...}`, alone or alone in
//! one code fence (white space around it, nothing else), so the locator would find that one
//! candidate and nothing beside it. The checks allocate nothing for a well-formed reply (strings
//! are seen borrowed from the text) and refuse anything the lenient path would read differently
//! from serde: a member name not written exactly, a required member missing, an array where an
//! object is expected, a failed rule. Whatever they refuse is read by the lenient path instead,
//! which then reports or repairs it, so the fast path never changes an outcome; it only skips the
//! work of building a `serde_json::Value`.
//!
//! Types with parts serde reads more loosely than the verifier (maps, sets, `serde_json::Value`,
//! `f32`, flattened members, internally, adjacently and untagged enums, `unique_items` rules) always
//! take the lenient path.
//!
//! The modules point one way: this one drives [`checked`] (the proxy), which asks [`place`] (the
//! checks of one value against the shape table).

mod checked;
mod place;

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use crate::shape::{
    Content, EnumRepr, FloatKind, Node, NodeId, Scalar, SeqKind, ShapeGraph, TypeInfo,
};

use place::{refuse, Place};

/// Reads `text` straight into `T` when it is one well-formed `{"value": ...}` the shape
/// certifies, alone or alone in a code fence; `None` sends it to the lenient path.
pub(crate) fn read<T: de::DeserializeOwned>(info: &TypeInfo, text: &str) -> Option<T> {
    let body = body(text)?;
    if info.fast_read(|graph, root| u8::from(eligible(graph, root))) == 0 {
        return None;
    }
    read_body(info.graph(), info.root(), body)
}

/// Reads `text`, the JSON of one element of a list answer (`info` describes the list), straight
/// into `T` when the shape certifies it as it would in the whole reply; `None` sends it to the
/// lenient path.
pub(crate) fn read_element<T: de::DeserializeOwned>(info: &TypeInfo, text: &str) -> Option<T> {
    if info.fast_read(|graph, root| u8::from(eligible(graph, root))) == 0 {
        return None;
    }
    let graph = info.graph();
    let Node::Seq {
        item,
        kind: SeqKind::List,
    } = graph.accepts(info.root()).node
    else {
        return None;
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = checked::seed::<T>(Place::root(graph, *item))
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    Some(value)
}

/// The JSON object that is the whole of `text` (white space aside), or the whole of its one code
/// fence (```` ```json ````, or no language).
fn body(text: &str) -> Option<&str> {
    let text = text.trim_ascii();
    if text.starts_with('{') {
        return Some(text);
    }
    let fenced = text.strip_prefix("```")?.strip_suffix("```")?;
    let (language, body) = fenced.split_once('\n')?;
    if !language
        .trim_ascii()
        .bytes()
        .all(|b| b.is_ascii_alphanumeric())
    {
        return None;
    }
    let body = body.trim_ascii();
    body.starts_with('{').then_some(body)
}

/// True when every part of the shape below `root` is read the same way by serde and the verifier.
fn eligible(graph: &ShapeGraph, root: NodeId) -> bool {
    let mut seen = vec![false; graph.len()];
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        let Some(slot) = seen.get_mut(id.index()) else {
            return false;
        };
        if std::mem::replace(slot, true) {
            continue;
        }
        // Each child is walked in its turn; a flattened member or a unique list is checked by
        // the full reader alone.
        let content_ok = |content: Content<'_>, stack: &mut Vec<NodeId>| match content {
            Content::Fields(fields) => fields.iter().all(|f| {
                stack.push(f.ty);
                !f.flatten && !f.rules.unique_items
            }),
            Content::Inner(inner) => {
                stack.push(inner);
                true
            }
            Content::Items(items) => {
                stack.extend(items);
                true
            }
            Content::Nothing => true,
        };
        let ok = match graph.node(id) {
            Node::Scalar(s) => !matches!(
                s,
                Scalar::Json | Scalar::JsonObject | Scalar::Float(FloatKind::F32)
            ),
            Node::Option(inner) => {
                stack.push(*inner);
                true
            }
            Node::Seq { item, kind } => {
                stack.push(*item);
                *kind != SeqKind::Set
            }
            Node::Tuple(items) => content_ok(Content::Items(items), &mut stack),
            Node::Struct(s) => content_ok(s.kind.content(), &mut stack),
            Node::Enum(e) => {
                e.repr == EnumRepr::External
                    && e.variants
                        .iter()
                        .all(|v| content_ok(v.kind.content(), &mut stack))
            }
            Node::Map { .. } | Node::Reserved => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Reads `{"value": ...}` straight into `T`, or `None` when any check refuses the text.
fn read_body<T: de::DeserializeOwned>(graph: &ShapeGraph, root: NodeId, body: &str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(body);
    let value = Envelope(checked::seed::<T>(Place::root(graph, root)))
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    Some(value)
}

/// `{"value": X}` with `X` read by the inner seed, and no other member.
struct Envelope<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Envelope<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Envelope<S> {
    type Value = S::Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{\"value\": ...}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<S::Value, A::Error> {
        match map.next_key::<EnvelopeKey>()? {
            Some(EnvelopeKey) => {}
            None => return Err(refuse()),
        }
        let value = map.next_value_seed(self.0)?;
        match map.next_key::<IgnoredAny>()? {
            None => Ok(value),
            Some(_) => Err(refuse()),
        }
    }
}

struct EnvelopeKey;

impl<'de> Deserialize<'de> for EnvelopeKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyIs(crate::schema::ENVELOPE_PROPERTY))
            .map(|()| EnvelopeKey)
    }
}

struct KeyIs(&'static str);

impl<'de> Visitor<'de> for KeyIs {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v == self.0 {
            Ok(())
        } else {
            Err(refuse())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{body, read, read_body};
    use crate::Intent;

    fn fast<T: Intent>(body: &str) -> Option<T> {
        let info = T::type_info();
        read_body::<T>(info.graph(), info.root(), body)
    }

    #[test]
    fn only_a_reply_that_is_one_object_or_one_fenced_object_is_read_fast() {
        assert_eq!(body(" {\"value\": 1}\n"), Some("{\"value\": 1}"));
        assert_eq!(body("```json\n{\"value\": 1}\n```"), Some("{\"value\": 1}"));
        assert_eq!(body("```\n{\"value\": 1}\n```"), Some("{\"value\": 1}"));
        assert_eq!(body("Sure: ```json\n{\"value\": 1}\n```"), None);
        assert_eq!(body("```json\n{\"value\": 1}\n```\nDone."), None);
        assert_eq!(body("```json {\"value\": 1}```"), None);
        let info = u8::type_info();
        assert_eq!(read::<u8>(&info, "```json\n{\"value\": 1}\n```"), Some(1));
        let floats = f64::type_info();
        assert_eq!(read::<f64>(&floats, "{\"value\": 13.0}"), Some(13.0));
        // A double is the nearest one, on both paths.
        assert_eq!(read::<f64>(&floats, "{\"value\": 1e-400}"), Some(0.0));
        // No integer is read from a float, fast: the lenient path knows which lost a fraction.
        assert_eq!(read::<u32>(&u32::type_info(), "{\"value\": 40.0}"), None);
    }

    #[test]
    fn well_formed_replies_take_the_fast_path() {
        assert_eq!(
            fast::<Vec<u8>>(r#"{"value": [1, 2, 255]}"#),
            Some(vec![1, 2, 255])
        );
        assert_eq!(fast::<Option<u16>>(r#"{"value": null}"#), Some(None));
        assert_eq!(fast::<Option<u16>>(r#"{"value": 7}"#), Some(Some(7)));
        assert_eq!(
            fast::<(u8, String)>(r#"{"value": [3, "three"]}"#),
            Some((3, "three".to_owned()))
        );
        assert_eq!(fast::<[i8; 2]>(r#"{"value": [-1, 1]}"#), Some([-1, 1]));
        assert_eq!(fast::<char>(r#"{"value": "é"}"#), Some('é'));
        assert_eq!(
            fast::<Vec<bool>>(r#"{"value": [true, false]}"#),
            Some(vec![true, false])
        );
        assert_eq!(fast::<f64>(r#"{"value": 2.5}"#), Some(2.5));
    }

    #[test]
    fn values_the_shape_refuses_leave_the_fast_path() {
        assert_eq!(fast::<Vec<u8>>(r#"{"value": [1, 300]}"#), None);
        assert_eq!(fast::<Vec<u8>>(r#"{"value": [1, 2.5]}"#), None);
        assert_eq!(fast::<Vec<u8>>(r#"{"value": [1, "2"]}"#), None);
        assert_eq!(fast::<u16>(r#"{"value": null}"#), None);
        assert_eq!(fast::<(u8, String)>(r#"{"value": [3]}"#), None);
        assert_eq!(fast::<(u8, String)>(r#"{"value": [3, "a", 4]}"#), None);
        assert_eq!(fast::<[i8; 2]>(r#"{"value": [1, 2, 3]}"#), None);
        assert_eq!(fast::<char>(r#"{"value": "ab"}"#), None);
        assert_eq!(fast::<bool>(r#"{"value": "true"}"#), None);
    }

    #[test]
    fn the_envelope_must_be_exactly_value() {
        assert_eq!(fast::<u8>(r#"{"Value": 1}"#), None);
        assert_eq!(fast::<u8>(r#"{"value": 1, "note": 2}"#), None);
        assert_eq!(fast::<u8>(r#"{}"#), None);
        assert_eq!(fast::<u8>(r#"{"value": 1} 2"#), None);
    }
}

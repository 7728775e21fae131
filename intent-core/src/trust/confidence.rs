//! Confidence: the probability of each enum and `bool` member's chosen value, from the log
//! probabilities of the reply's tokens.
//!
//! The reply's text is scanned for its answer's JSON (the first `{` or `[` from which one whole
//! JSON value reads, the `{"value": ...}` envelope unwrapped), with the byte span of every value;
//! the type's shape is walked along it to the members whose type is a `bool` or an enum of unit
//! variants (and the tag of an internally or adjacently tagged enum). A value's probability is
//! the product of the probabilities of the tokens that write it: the tokens overlapping its span
//! (a string's text inside its quotes). The tokens must write the reply's text exactly (their
//! bytes joined); when they do not, no confidence is given and the attempt says why.
//!
//! Written by hand: the scan keeps byte offsets, which no JSON parser of the dependency tree
//! reports, and it reads only standard JSON, which is what a provider asked for log probabilities
//! writes (a reply in another form has no confidence rather than a wrong one).

use serde_json::Value;

use crate::provider::TokenLogprob;
use crate::read::join_pointer;
use crate::result::{IssueKind, MemberConfidence, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{EnumRepr, Field, Node, NodeId, Scalar, StructKind, TypeInfo, VariantKind};

/// How deep the scan and the walk go; deeper values have no confidence.
const MAX_DEPTH: usize = 64;

/// The confidence of each enum and `bool` member of `text`'s answer, from `tokens`; `Err` with
/// the notice to record when the tokens do not write the text.
pub(crate) fn confidence(
    info: &TypeInfo,
    text: &str,
    tokens: &[TokenLogprob],
) -> Result<Vec<MemberConfidence>, ResultIssue> {
    let Some(offsets) = token_offsets(text, tokens) else {
        return Err(ResultIssue::new(
            IssueKind::Provider,
            "The provider's log probabilities do not write this reply's text, so no member's confidence is given.",
        ));
    };
    let Some(root) = answer(text) else {
        return Ok(Vec::new());
    };
    let mut chosen = Vec::new();
    let walk = Walk { info };
    walk.node(
        info.root(),
        &root,
        format!("/{ENVELOPE_PROPERTY}"),
        0,
        &mut chosen,
    );
    Ok(chosen
        .into_iter()
        .map(|(path, value, span)| MemberConfidence {
            path,
            value,
            probability: probability(&offsets, tokens, span),
        })
        .collect())
}

/// The byte range of each token in `text`, or `None` when the tokens' bytes do not write it (a
/// prefix the provider left out, such as an assistant prefill, is allowed).
fn token_offsets(text: &str, tokens: &[TokenLogprob]) -> Option<Vec<(usize, usize)>> {
    let mut written = Vec::with_capacity(text.len());
    for token in tokens {
        written.extend_from_slice(token.text_bytes());
    }
    let shift = if written == text.as_bytes() {
        0
    } else {
        // The text may carry what the tokens do not (a trimmed space at either end).
        let trimmed = text.trim();
        let at = find(&written, trimmed.as_bytes())?;
        let lead = text.len() - text.trim_start().len();
        if at > lead && !written[..at].iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        lead as isize - at as isize
    };
    let mut offsets = Vec::with_capacity(tokens.len());
    let mut at: isize = 0;
    for token in tokens {
        let len = token.text_bytes().len() as isize;
        let start = (at + shift).max(0) as usize;
        let end = (at + len + shift).max(0) as usize;
        offsets.push((start, end));
        at += len;
    }
    Some(offsets)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The probability of the tokens overlapping `span` (all of them, multiplied).
fn probability(offsets: &[(usize, usize)], tokens: &[TokenLogprob], span: (usize, usize)) -> f64 {
    let (start, end) = span;
    let sum: f64 = offsets
        .iter()
        .zip(tokens)
        .filter(|((s, e), _)| *s < end && *e > start)
        .map(|(_, t)| t.logprob)
        .sum();
    sum.exp().clamp(0.0, 1.0)
}

/// A JSON value of the reply with its byte span.
#[derive(Debug)]
enum Spanned {
    /// A string: its span inside the quotes, and its text.
    Str(usize, usize, String),
    /// `true` or `false`, with its span.
    Bool(usize, usize, bool),
    /// A number or `null`: nothing to give a confidence for.
    Other,
    Array(Vec<Spanned>),
    Object(Vec<(String, Spanned)>),
}

/// The answer of `text`: the first JSON object or array that reads whole, its envelope
/// unwrapped; or, for a reply that is one string or literal, that.
fn answer(text: &str) -> Option<Spanned> {
    let bytes = text.as_bytes();
    for (at, b) in bytes.iter().enumerate() {
        if matches!(b, b'{' | b'[') {
            let mut scan = Scan { bytes, at };
            if let Some(value) = scan.value(0) {
                return Some(unwrap_envelope(value));
            }
        }
    }
    let trimmed = text.trim_start();
    let mut scan = Scan {
        bytes,
        at: text.len() - trimmed.len(),
    };
    let value = scan.value(0)?;
    scan.space();
    (scan.at == bytes.len()).then_some(value)
}

fn unwrap_envelope(value: Spanned) -> Spanned {
    match value {
        Spanned::Object(mut members)
            if members.len() == 1 && members[0].0.eq_ignore_ascii_case(ENVELOPE_PROPERTY) =>
        {
            members.pop().map_or(Spanned::Other, |(_, v)| v)
        }
        other => other,
    }
}

/// A scan of standard JSON that keeps byte offsets.
struct Scan<'t> {
    bytes: &'t [u8],
    at: usize,
}

impl Scan<'_> {
    fn space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// Whether the container closes right here (an empty object or array), stepping past `close`.
    fn closes(&mut self, close: u8) -> bool {
        self.space();
        let closes = self.bytes.get(self.at) == Some(&close);
        self.at += usize::from(closes);
        closes
    }

    /// After a member or an element: `Some(false)` past a comma, `Some(true)` past `close`, `None`
    /// for anything else.
    fn next_or_close(&mut self, close: u8) -> Option<bool> {
        self.space();
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        match byte {
            b',' => Some(false),
            byte if byte == close => Some(true),
            _ => None,
        }
    }

    /// The members or elements of the object or array whose opening byte is at the cursor, each
    /// read by `item`, up to `close`.
    fn items<T>(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        self.at += 1;
        let mut items = Vec::new();
        if self.closes(close) {
            return Some(items);
        }
        loop {
            items.push(item(self)?);
            if self.next_or_close(close)? {
                return Some(items);
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Spanned> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.space();
        match *self.bytes.get(self.at)? {
            b'{' => self
                .items(b'}', |scan| {
                    scan.space();
                    let (_, _, key) = scan.string()?;
                    scan.space();
                    if scan.bytes.get(scan.at) != Some(&b':') {
                        return None;
                    }
                    scan.at += 1;
                    Some((key, scan.value(depth + 1)?))
                })
                .map(Spanned::Object),
            b'[' => self
                .items(b']', |scan| scan.value(depth + 1))
                .map(Spanned::Array),
            b'"' => {
                let (start, end, text) = self.string()?;
                Some(Spanned::Str(start, end, text))
            }
            b't' => self
                .literal(b"true")
                .map(|(s, e)| Spanned::Bool(s, e, true)),
            b'f' => self
                .literal(b"false")
                .map(|(s, e)| Spanned::Bool(s, e, false)),
            b'n' => self.literal(b"null").map(|_| Spanned::Other),
            b'-' | b'0'..=b'9' => {
                while self.bytes.get(self.at).is_some_and(|b| {
                    b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                }) {
                    self.at += 1;
                }
                Some(Spanned::Other)
            }
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<(usize, usize)> {
        let start = self.at;
        if self.bytes.get(start..start + word.len())? != word {
            return None;
        }
        self.at += word.len();
        Some((start, self.at))
    }

    /// A string at the cursor: the span of its content and its text, escapes read.
    fn string(&mut self) -> Option<(usize, usize, String)> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        let start = self.at + 1;
        let mut end = start;
        let mut escaped = false;
        loop {
            let b = *self.bytes.get(end)?;
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => break,
                _ => {}
            }
            end += 1;
        }
        self.at = end + 1;
        let raw = std::str::from_utf8(&self.bytes[start - 1..=end]).ok()?;
        let text: String = serde_json::from_str(raw).ok()?;
        Some((start, end, text))
    }
}

/// The walk of a type's shape along a reply's answer.
struct Walk<'a> {
    info: &'a TypeInfo,
}

type Chosen = Vec<(String, Value, (usize, usize))>;

impl Walk<'_> {
    fn node(&self, id: NodeId, value: &Spanned, pointer: String, depth: usize, out: &mut Chosen) {
        let graph = self.info.graph();
        if depth > MAX_DEPTH {
            return;
        }
        let id = graph.resolve(graph.strip_option(id));
        match (graph.node(id), value) {
            (Node::Scalar(Scalar::Bool), Spanned::Bool(start, end, b)) => {
                out.push((pointer, Value::Bool(*b), (*start, *end)));
            }
            (Node::Enum(e), Spanned::Str(start, end, written)) if e.is_unit_only() => {
                let name = e
                    .variants
                    .iter()
                    .find(|v| {
                        v.name.eq_ignore_ascii_case(written)
                            || v.aliases.iter().any(|a| a.eq_ignore_ascii_case(written))
                    })
                    .map_or_else(|| written.clone(), |v| v.name.to_string());
                out.push((pointer, Value::String(name), span(*start, *end)));
            }
            (Node::Seq { item, .. }, Spanned::Array(items)) => {
                for (i, element) in items.iter().enumerate() {
                    let at = join_pointer(&pointer, &i.to_string());
                    self.node(*item, element, at, depth + 1, out);
                }
            }
            (Node::Tuple(types), Spanned::Array(items)) => {
                for (i, (ty, element)) in types.iter().zip(items).enumerate() {
                    let at = join_pointer(&pointer, &i.to_string());
                    self.node(*ty, element, at, depth + 1, out);
                }
            }
            (Node::Map { value: ty, .. }, Spanned::Object(members)) => {
                for (key, member) in members {
                    self.node(*ty, member, join_pointer(&pointer, key), depth + 1, out);
                }
            }
            (Node::Struct(s), Spanned::Object(members)) => {
                if let StructKind::Named(fields) = &s.kind {
                    self.fields(fields, members, &pointer, depth, out);
                }
            }
            (Node::Enum(e), Spanned::Object(members)) => match &e.repr {
                EnumRepr::External => {
                    let [(tag, inner)] = members.as_slice() else {
                        return;
                    };
                    let Some(variant) =
                        e.variants.iter().find(|v| v.name.eq_ignore_ascii_case(tag))
                    else {
                        return;
                    };
                    let at = join_pointer(&pointer, tag);
                    self.variant(&variant.kind, inner, at, depth, out);
                }
                EnumRepr::Internal { tag } | EnumRepr::Adjacent { tag, .. } => {
                    let Some((key, Spanned::Str(start, end, written))) =
                        members.iter().find(|(k, _)| k.eq_ignore_ascii_case(tag))
                    else {
                        return;
                    };
                    let Some(variant) = e
                        .variants
                        .iter()
                        .find(|v| v.name.eq_ignore_ascii_case(written))
                    else {
                        return;
                    };
                    out.push((
                        join_pointer(&pointer, key),
                        Value::String(variant.name.to_string()),
                        span(*start, *end),
                    ));
                    match &e.repr {
                        EnumRepr::Adjacent { content, .. } => {
                            if let Some((key, inner)) = members
                                .iter()
                                .find(|(k, _)| k.eq_ignore_ascii_case(content))
                            {
                                let at = join_pointer(&pointer, key);
                                self.variant(&variant.kind, inner, at, depth, out);
                            }
                        }
                        _ => {
                            if let VariantKind::Struct(fields) = &variant.kind {
                                self.fields(fields, members, &pointer, depth, out);
                            }
                        }
                    }
                }
                EnumRepr::Untagged => {}
            },
            _ => {}
        }
    }

    fn variant(
        &self,
        kind: &VariantKind,
        value: &Spanned,
        pointer: String,
        depth: usize,
        out: &mut Chosen,
    ) {
        match (kind, value) {
            (VariantKind::Newtype(inner), _) => self.node(*inner, value, pointer, depth + 1, out),
            (VariantKind::Struct(fields), Spanned::Object(members)) => {
                self.fields(fields, members, &pointer, depth, out);
            }
            (VariantKind::Tuple(types), Spanned::Array(items)) => {
                for (i, (ty, element)) in types.iter().zip(items).enumerate() {
                    let at = join_pointer(&pointer, &i.to_string());
                    self.node(*ty, element, at, depth + 1, out);
                }
            }
            _ => {}
        }
    }

    fn fields(
        &self,
        fields: &[Field],
        members: &[(String, Spanned)],
        pointer: &str,
        depth: usize,
        out: &mut Chosen,
    ) {
        for field in fields {
            if field.flatten {
                // A flattened member's own members sit among these.
                if let Node::Struct(s) = self.info.graph().node(self.info.graph().resolve(field.ty))
                {
                    if let StructKind::Named(inner) = &s.kind {
                        self.fields(inner, members, pointer, depth + 1, out);
                    }
                }
                continue;
            }
            let found = members.iter().find(|(key, _)| {
                key == &*field.name
                    || key.eq_ignore_ascii_case(&field.name)
                    || field.aliases.iter().any(|a| a.eq_ignore_ascii_case(key))
            });
            if let Some((key, member)) = found {
                self.node(field.ty, member, join_pointer(pointer, key), depth + 1, out);
            }
        }
    }
}

/// A string's span, or (for an empty string) the span of its quotes.
fn span(start: usize, end: usize) -> (usize, usize) {
    if start == end {
        (start.saturating_sub(1), end + 1)
    } else {
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Intent;

    fn tokens(pieces: &[(&str, f64)]) -> Vec<TokenLogprob> {
        pieces
            .iter()
            .map(|(t, l)| TokenLogprob::new(*t, *l))
            .collect()
    }

    #[test]
    fn a_bool_answer_has_the_probability_of_its_tokens() {
        let text = "{\"value\": true}";
        let toks = tokens(&[
            ("{\"", -0.1),
            ("value", 0.0),
            ("\":", 0.0),
            (" true", -0.2),
            ("}", 0.0),
        ]);
        let found = confidence(&<bool>::type_info(), text, &toks).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "/value");
        assert_eq!(found[0].value, Value::Bool(true));
        assert!((found[0].probability - (-0.2f64).exp()).abs() < 1e-9);
    }

    #[test]
    fn tokens_that_do_not_write_the_text_give_no_confidence() {
        let toks = tokens(&[("{\"value\": false}", -0.1)]);
        assert!(confidence(&<bool>::type_info(), "{\"value\": true}", &toks).is_err());
        // A space the provider trimmed is allowed.
        let toks = tokens(&[("{\"value\": true}", -0.1)]);
        assert!(confidence(&<bool>::type_info(), " {\"value\": true}\n", &toks).is_ok());
    }

    #[test]
    fn the_scan_keeps_string_spans() {
        let text = r#"Sure: {"value": {"a": "x\"y", "b": [true, null, 1.5e3]}}"#;
        let Some(Spanned::Object(members)) = answer(text) else {
            panic!("an object")
        };
        let Spanned::Str(start, end, ref s) = members[0].1 else {
            panic!("a string")
        };
        assert_eq!(s, "x\"y");
        assert_eq!(&text[start..end], "x\\\"y");
    }
}

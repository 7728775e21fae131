//! [`ApiKey`]: a key that never shows in `Debug`, logs or errors, and [`Redact`]: a reply that
//! echoes it loses it at the provider boundary.

use std::fmt;

use crate::provider::{AiResponse, FinishReason};

/// An API key. Its `Debug` form is redacted; it is only ever read to build a request header.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct ApiKey(Option<Box<str>>);

impl ApiKey {
    /// A key; an empty or blank one is no key.
    pub(crate) fn new(key: impl Into<String>) -> Self {
        let key = key.into();
        let key = key.trim();
        if key.is_empty() {
            ApiKey(None)
        } else {
            ApiKey(Some(key.into()))
        }
    }

    /// The key, to build a header. Never log or format it.
    pub(crate) fn expose(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// `text` with every occurrence of the key replaced by `[redacted]`: written as it is, or
    /// with any of its characters as a JSON string escape (`\u0053`, `\/`), which a reader would
    /// decode back into the key. A key shorter than 4 characters is left alone (it would match
    /// ordinary text).
    pub(crate) fn redact(&self, text: String) -> String {
        match self.expose() {
            Some(key) if key.len() >= 4 => match redacted(&text, key) {
                Some(clean) => clean,
                None => text,
            },
            _ => text,
        }
    }
}

impl ApiKey {
    /// `body` with every occurrence of the key replaced by `[redacted]` (as [`ApiKey::redact`]),
    /// before any of it is cut for a message (a cut could fall inside the key and leave part of it
    /// behind).
    pub(crate) fn redact_bytes<'b>(&self, body: &'b [u8]) -> std::borrow::Cow<'b, [u8]> {
        let Some(key) = self.expose().filter(|k| k.len() >= 4) else {
            return std::borrow::Cow::Borrowed(body);
        };
        let text = String::from_utf8_lossy(body);
        match redacted(&text, key) {
            Some(clean) => std::borrow::Cow::Owned(clean.into_bytes()),
            None => std::borrow::Cow::Borrowed(body),
        }
    }
}

const REDACTED: &str = "[redacted]";

/// `text` with each occurrence of `key` (each character literal or JSON-escaped) replaced, or
/// `None` when there is none. Without a backslash in `text` only literal occurrences can exist,
/// found by the standard library's substring search.
fn redacted(text: &str, key: &str) -> Option<String> {
    if !text.contains('\\') {
        return text.contains(key).then(|| text.replace(key, REDACTED));
    }
    let scan = scan(text, key, false);
    let mut out = scan.out?;
    out.push_str(&text[scan.copied..]);
    Some(out)
}

/// What [`scan`] found.
struct Scan {
    /// The text before `copied`, redacted; `None` when nothing was replaced.
    out: Option<String>,
    /// How much of the text `out` covers.
    copied: usize,
    /// Where the text could still be the start of the key, when more may follow.
    held: Option<usize>,
}

/// Replaces each occurrence of `key` in `text` (each character literal or JSON-escaped), left to
/// right, stopping where `text` could still be the start of the key when `more` text may follow.
fn scan(text: &str, key: &str, more: bool) -> Scan {
    let mut found = Scan {
        out: None,
        copied: 0,
        held: None,
    };
    let Some(first) = key.chars().next() else {
        return found;
    };
    let mut at = 0;
    while let Some(offset) = text[at..].find([first, '\\']) {
        let start = at + offset;
        match match_prefix(&text[start..], key) {
            Prefix::Key(len) => {
                let out = found
                    .out
                    .get_or_insert_with(|| String::with_capacity(text.len()));
                out.push_str(&text[found.copied..start]);
                out.push_str(REDACTED);
                found.copied = start + len;
                at = found.copied;
            }
            Prefix::Short if more => {
                found.held = Some(start);
                return found;
            }
            Prefix::Not | Prefix::Short => {
                // Step over this character (and a whole escape, so `\\\\u0053` is not read as
                // an escape of its second backslash).
                let step = if text[start..].starts_with("\\\\") {
                    2
                } else {
                    1
                };
                at = start + step.max(text[start..].chars().next().map_or(1, char::len_utf8));
            }
        }
    }
    found
}

/// Whether `text` starts with the key.
enum Prefix {
    /// It does, in this many bytes.
    Key(usize),
    /// It does not.
    Not,
    /// It starts like the key but ends before the key does: more text decides.
    Short,
}

/// Whether `text` starts with `key`, each of its characters written as it is or as a JSON string
/// escape.
fn match_prefix(text: &str, key: &str) -> Prefix {
    let bytes = text.as_bytes();
    let mut pos = 0;
    for c in key.chars() {
        let rest = &text[pos..];
        if rest.is_empty() {
            return Prefix::Short;
        }
        if rest.starts_with(c) {
            pos += c.len_utf8();
            continue;
        }
        if bytes[pos] != b'\\' {
            return Prefix::Not;
        }
        let Some(&escape) = bytes.get(pos + 1) else {
            return Prefix::Short;
        };
        let decoded = match escape {
            b'u' => {
                if text.len() < pos + 6 {
                    return Prefix::Short;
                }
                let Some(unit) = text
                    .get(pos + 2..pos + 6)
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32)
                else {
                    return Prefix::Not;
                };
                pos += 6;
                unit
            }
            short => {
                pos += 2;
                match short {
                    b'"' => '"',
                    b'\'' => '\'',
                    b'\\' => '\\',
                    b'/' => '/',
                    _ => return Prefix::Not,
                }
            }
        };
        if decoded != c {
            return Prefix::Not;
        }
    }
    Prefix::Key(pos)
}

/// The key's redaction for text that arrives in pieces (a streamed reply's text, reasoning or
/// refusal): the pieces it gives, joined, are [`ApiKey::redact`] of the whole text, so a key cut
/// across two pieces is caught. Text that could still be the start of the key is held back until
/// the next piece shows whether it is, or until [`finish`](Self::finish).
#[derive(Debug, Default)]
pub(crate) struct PieceRedactor {
    held: String,
}

impl PieceRedactor {
    /// The text to pass on for `piece` (possibly empty).
    pub(crate) fn push(&mut self, key: &ApiKey, piece: String) -> String {
        let Some(key) = key.expose().filter(|k| k.len() >= 4) else {
            return piece;
        };
        let text = if self.held.is_empty() {
            piece
        } else {
            let mut text = std::mem::take(&mut self.held);
            text.push_str(&piece);
            text
        };
        self.redact(text, key, false)
    }

    /// The text held back, at the end of the stream.
    pub(crate) fn finish(&mut self, key: &ApiKey) -> String {
        let held = std::mem::take(&mut self.held);
        match key.expose().filter(|k| k.len() >= 4) {
            Some(key) if !held.is_empty() => self.redact(held, key, true),
            _ => held,
        }
    }

    /// `text` redacted as [`ApiKey::redact`] does, but from the first place that could still be
    /// the start of the key on (unless `last`), which is held back.
    fn redact(&mut self, text: String, key: &str, last: bool) -> String {
        let scan = scan(&text, key, !last);
        let end = scan.held.unwrap_or(text.len());
        if let Some(held) = scan.held {
            self.held = text[held..].to_owned();
        }
        match scan.out {
            Some(mut out) => {
                out.push_str(&text[scan.copied..end]);
                out
            }
            None if end == text.len() => text,
            None => text[..end].to_owned(),
        }
    }
}

/// A provider's reply, redacted of the key before the transport hands it on: a server that echoes
/// the key (in the reply's `model`, in the answer text, a refusal or the reasoning) must not put
/// it into an `AttemptRecord`, an issue, the next attempt's prompt, the cache or a log. The
/// strings are redacted after they are decoded, so a key written with JSON escapes is caught too.
pub(crate) trait Redact {
    /// `self` with every occurrence of `key` replaced by `[redacted]`.
    fn redact(self, key: &ApiKey) -> Self;
}

impl Redact for AiResponse {
    fn redact(self, key: &ApiKey) -> Self {
        // Every field named, so a new text field cannot be added without deciding on it here.
        let AiResponse {
            text,
            finish_reason,
            refusal,
            usage,
            model,
            reasoning,
            rate_limit,
            logprobs,
            tool_calls,
            vendor_turn,
        } = self;
        let finish_reason = match finish_reason {
            FinishReason::Other(reason) => FinishReason::Other(key.redact(reason)),
            FinishReason::Abnormal(reason) => FinishReason::Abnormal(key.redact(reason)),
            other => other,
        };
        let mut response = AiResponse::new(key.redact(text), key.redact(model));
        response.finish_reason = finish_reason;
        response.refusal = refusal.map(|r| key.redact(r));
        response.usage = usage;
        response.reasoning = reasoning.map(|r| key.redact(r));
        // Counts and durations only: nothing a key could be in.
        response.rate_limit = rate_limit;
        // Tokens cannot be redacted one by one: tokens that write the key are dropped whole.
        response.logprobs = logprobs.filter(|tokens| !key.in_tokens(tokens));
        // A model that writes the key into a tool's arguments does not get it into the call.
        response.tool_calls = tool_calls
            .into_iter()
            .map(|call| {
                crate::provider::ToolCall::new(
                    key.redact(call.id),
                    key.redact(call.name),
                    key.redact(call.arguments),
                )
            })
            .collect();
        response.vendor_turn = vendor_turn.map(|turn| Box::new(key.redact_json(*turn)));
        response
    }
}

impl ApiKey {
    /// `value` with the key taken out of its text (a value that holds none is kept as it is).
    pub(crate) fn redact_json(&self, value: serde_json::Value) -> serde_json::Value {
        let text = value.to_string();
        let redacted = self.redact(text.clone());
        if redacted == text {
            value
        } else {
            serde_json::from_str(&redacted).unwrap_or(serde_json::Value::Null)
        }
    }

    /// True when the text `tokens` write holds the key.
    pub(crate) fn in_tokens(&self, tokens: &[crate::provider::TokenLogprob]) -> bool {
        let joined: String = tokens.iter().map(|t| t.token.as_str()).collect();
        self.redact(joined.clone()) != joined
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(_) => f.write_str("[redacted]"),
            None => f.write_str("None"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_cut_across_pieces_is_redacted_as_in_the_whole_text() {
        let key = ApiKey::new("sk-secret-123");
        let texts = [
            "the key sk-secret-123 and again sk-secret-123!",
            r"escaped \u0073k-secret-123 and \\u0073k-secret-123 and sk\/secret",
            "almost sk-secret-12 then sk-secret-123",
            "ends with the start of it: sk-sec",
            "no key at all, only Grüße — 日本 🙂",
            r"sk-secret-123\",
        ];
        for text in texts {
            let whole = key.redact(text.to_owned());
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            // Cut once at every place, then at every character.
            let mut cuts: Vec<Vec<usize>> = bounds.iter().map(|&b| vec![b]).collect();
            cuts.push(bounds.clone());
            for cut in cuts {
                let mut redactor = PieceRedactor::default();
                let mut joined = String::new();
                let mut start = 0;
                for &end in cut.iter().chain([&text.len()]) {
                    if end >= start {
                        joined.push_str(&redactor.push(&key, text[start..end].to_owned()));
                        start = end;
                    }
                }
                joined.push_str(&redactor.finish(&key));
                assert_eq!(joined, whole, "{text:?} cut at {cut:?}");
            }
        }
    }

    #[test]
    fn only_what_could_start_the_key_is_held_back() {
        let key = ApiKey::new("sk-secret-123");
        let mut redactor = PieceRedactor::default();
        assert_eq!(redactor.push(&key, "so it is, sk-se".into()), "so it is, ");
        assert_eq!(redactor.push(&key, "ven".into()), "sk-seven");
        assert_eq!(redactor.push(&key, " sk".into()), " ");
        assert_eq!(redactor.finish(&key), "sk");
        let none = ApiKey::new("");
        assert_eq!(PieceRedactor::default().push(&none, "sk".into()), "sk");
    }

    #[test]
    fn debug_never_shows_the_key() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{key:?}"), "[redacted]");
        assert_eq!(format!("{:?}", ApiKey::new("  ")), "None");
        assert_eq!(
            key.redact("bad key sk-secret-123!".into()),
            "bad key [redacted]!"
        );
    }

    #[test]
    fn a_reply_echoing_the_key_loses_it_in_every_text() {
        let key = ApiKey::new("sk-secret-123");
        let mut reply = AiResponse::new("{\"value\": \"sk-secret-123\"}", "gpt-sk-secret-123");
        reply.refusal = Some("no, sk-secret-123".into());
        reply.finish_reason = FinishReason::Other("stop sk-secret-123".into());
        reply.reasoning = Some("the key is sk-secret-123".into());
        let reply = reply.redact(&key);
        let shown = format!("{reply:?}");
        assert!(!shown.contains("sk-secret-123"), "{shown}");
        assert_eq!(reply.text, "{\"value\": \"[redacted]\"}");
        assert_eq!(reply.model, "gpt-[redacted]");
    }

    #[test]
    fn a_key_written_with_json_escapes_is_redacted_too() {
        let key = ApiKey::new("sk-a/b");
        let cases = [
            (r#"{"v": "sk-a/b"}"#, r#"{"v": "[redacted]"}"#),
            (r#"{"v": "sk-a\/b"}"#, r#"{"v": "[redacted]"}"#),
            (r#"{"v": "\u0073\u006B-a/b!"}"#, r#"{"v": "[redacted]!"}"#),
            (r#"x \\ sk-a\u002fb \n"#, r#"x \\ [redacted] \n"#),
            (r#"\\u0073k-a/b"#, r#"\\u0073k-a/b"#),
            (r#"sk-a/"#, r#"sk-a/"#),
            ("ünïcode sk-a/b ✓", "ünïcode [redacted] ✓"),
        ];
        for (text, expected) in cases {
            assert_eq!(key.redact(text.to_owned()), expected, "{text}");
        }
        assert_eq!(
            &*key.redact_bytes(br#"{"error": "bad \u0073k-a/b"}"#),
            br#"{"error": "bad [redacted]"}"#
        );
    }
}

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
    let first = key.chars().next()?;
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while let Some(offset) = text[at..].find([first, '\\']) {
        let start = at + offset;
        match match_at(&text[start..], key) {
            Some(len) => {
                let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                out.push_str(&text[copied..start]);
                out.push_str(REDACTED);
                copied = start + len;
                at = copied;
            }
            None => {
                // Step over this character (and a whole escape, so `\\u0053` is not read as
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
    let mut out = out?;
    out.push_str(&text[copied..]);
    Some(out)
}

/// The length of `key` at the start of `text`, each of its characters written as it is or as a
/// JSON string escape; `None` when `text` does not start with it.
fn match_at(text: &str, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    for c in key.chars() {
        let rest = &text[pos..];
        if rest.starts_with(c) {
            pos += c.len_utf8();
            continue;
        }
        if bytes.get(pos) != Some(&b'\\') {
            return None;
        }
        let decoded = match bytes.get(pos + 1)? {
            b'u' => {
                let hex = text.get(pos + 2..pos + 6)?;
                let unit = u32::from_str_radix(hex, 16).ok()?;
                pos += 6;
                char::from_u32(unit)?
            }
            short => {
                pos += 2;
                match short {
                    b'"' => '"',
                    b'\'' => '\'',
                    b'\\' => '\\',
                    b'/' => '/',
                    _ => return None,
                }
            }
        };
        if decoded != c {
            return None;
        }
    }
    Some(pos)
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
        } = self;
        let finish_reason = match finish_reason {
            FinishReason::Other(reason) => FinishReason::Other(key.redact(reason)),
            other => other,
        };
        let mut response = AiResponse::new(key.redact(text), key.redact(model));
        response.finish_reason = finish_reason;
        response.refusal = refusal.map(|r| key.redact(r));
        response.usage = usage;
        response.reasoning = reasoning.map(|r| key.redact(r));
        response
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

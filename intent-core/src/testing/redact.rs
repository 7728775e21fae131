//! Keeping secrets out of cassettes: every string of a line is scanned before it is written.
//!
//! A request as a provider receives it has no headers, URL or key, so a key cannot reach a
//! cassette through the request's structure. It can through its text: an input that quotes a
//! configuration file, a reply that echoes a header. So every string of a line (prompts, schema,
//! reply, error message) is scanned, and these are replaced by `[redacted]`:
//!
//! - the values of this process's environment variables whose names say they are secrets
//!   (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`; at least 8 characters), and any secret
//!   given to [`RecordingProvider::with_secret`](super::RecordingProvider::with_secret);
//! - text shaped like a provider key or token: `sk-…` (OpenAI, Anthropic), `AIza…` (Google),
//!   `Bearer …`, GitHub (`ghp_…`, `github_pat_…`), Slack (`xox…-`) and AWS access key ids (`AKIA…`);
//! - the value after a name that says it is a secret, as a header, a JSON member or a setting
//!   writes it: `Authorization: …`, `"api_key": "…"`, `x-api-key=…`, `password: …`;
//! - the string value of any JSON member of the line whose name says it is a secret.
//!
//! The request's cache key is computed before redaction, so a redacted request still replays.
//! A reply that held a secret replays redacted: the line's `redacted` count says so.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// What a secret is replaced by (the same mark the providers' error messages use).
pub(crate) const REDACTED: &str = "[redacted]";

/// Shorter known secrets are not searched for: they would match ordinary text.
const MIN_SECRET_CHARS: usize = 8;

/// Text shaped like a provider key or token, whatever surrounds it.
static TOKEN_SHAPES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"sk-[A-Za-z0-9_\-]{16,}",
        r"AIza[0-9A-Za-z_\-]{30,}",
        r"gh[pousr]_[A-Za-z0-9]{30,}",
        r"github_pat_[A-Za-z0-9_]{20,}",
        r"xox[abprs]-[A-Za-z0-9\-]{10,}",
        r"AKIA[0-9A-Z]{16}",
    ]
    .iter()
    .filter_map(|pattern| Regex::new(pattern).ok())
    .collect()
});

/// A name that says its value is a secret, then `:` or `=` (quotes allowed), then the value.
static NAMED_SECRET: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)((?:\b|_)(?:x-api-key|x-goog-api-key|api[_\-]?key|apikey|authorization|proxy-authorization|password|passwd|secret|client[_\-]?secret|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|bearer)["']?\s*[:=]\s*["']?)((?:bearer|basic)\s+)?([^\s"',;}{]{6,})"#,
    )
    .ok()
});

/// `Bearer <token>` anywhere.
static BEARER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\b(bearer\s+)([A-Za-z0-9._~+/=\-]{8,})").ok());

/// True when a member or variable name says its value is a secret: one of its words (split at
/// `_`, `-` and `.`) is `token`, `secret`, `password`, `passwd`, `authorization` or `apikey`, or
/// two words are `api` then `key` (`max_output_tokens` is not one).
pub(crate) fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(['_', '-', '.']).collect();
    words.iter().any(|word| {
        matches!(
            *word,
            "token" | "secret" | "password" | "passwd" | "authorization" | "apikey"
        )
    }) || words.windows(2).any(|pair| pair == ["api", "key"])
}

/// The secrets to search for, and the scan.
#[derive(Clone, Default)]
pub(crate) struct Redactor {
    known: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} known secrets)", self.known.len())
    }
}

impl Redactor {
    /// A redactor that knows the secrets in this process's environment.
    pub(crate) fn from_env() -> Self {
        let mut redactor = Redactor::default();
        for (name, value) in std::env::vars_os() {
            if let (Some(name), Some(value)) = (name.to_str(), value.to_str()) {
                if is_secret_name(name) {
                    redactor.add(value);
                }
            }
        }
        redactor
    }

    /// Adds a secret to search for (ignored when shorter than 8 characters).
    pub(crate) fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.chars().count() >= MIN_SECRET_CHARS && !self.known.iter().any(|k| k == secret) {
            self.known.push(secret.to_owned());
            // Longer first, so a secret that contains another is replaced whole.
            self.known.sort_by_key(|k| std::cmp::Reverse(k.len()));
        }
    }

    /// Redacts every string of `value` (and the string value of every member whose name says
    /// it is a secret); returns how many secrets were replaced.
    pub(crate) fn redact_value(&self, value: &mut Value) -> usize {
        match value {
            Value::String(text) => self.redact_text(text),
            Value::Array(items) => items.iter_mut().map(|v| self.redact_value(v)).sum(),
            Value::Object(members) => members
                .iter_mut()
                .map(|(name, member)| match member {
                    Value::String(text) if is_secret_name(name) && text != REDACTED => {
                        *text = REDACTED.to_owned();
                        1
                    }
                    _ => self.redact_value(member),
                })
                .sum(),
            _ => 0,
        }
    }

    /// Redacts `text` in place; returns how many secrets were replaced.
    pub(crate) fn redact_text(&self, text: &mut String) -> usize {
        let mut count = 0;
        for secret in &self.known {
            let found = text.matches(secret.as_str()).count();
            if found > 0 {
                *text = text.replace(secret.as_str(), REDACTED);
                count += found;
            }
        }
        for shape in TOKEN_SHAPES.iter() {
            count += replace(text, shape, |_| REDACTED.to_owned());
        }
        if let Some(named) = &*NAMED_SECRET {
            count += replace(text, named, |caps| {
                let prefix = caps.get(1).map_or("", |m| m.as_str());
                let scheme = caps.get(2).map_or("", |m| m.as_str());
                format!("{prefix}{scheme}{REDACTED}")
            });
        }
        if let Some(bearer) = &*BEARER {
            count += replace(text, bearer, |caps| {
                format!("{}{REDACTED}", caps.get(1).map_or("", |m| m.as_str()))
            });
        }
        count
    }
}

/// Replaces every match of `regex` in `text` whose last group is not already redacted.
fn replace(
    text: &mut String,
    regex: &Regex,
    with: impl Fn(&regex::Captures<'_>) -> String,
) -> usize {
    let mut count = 0;
    let replaced = regex.replace_all(text, |caps: &regex::Captures<'_>| {
        let last = caps.iter().flatten().last().map_or("", |m| m.as_str());
        if last.starts_with(REDACTED) || REDACTED.contains(last) {
            caps[0].to_owned()
        } else {
            count += 1;
            with(caps)
        }
    });
    if count > 0 {
        *text = replaced.into_owned();
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redacted(text: &str) -> (String, usize) {
        let mut redactor = Redactor::default();
        redactor.add("hunter2-is-my-key");
        let mut text = text.to_owned();
        let count = redactor.redact_text(&mut text);
        (text, count)
    }

    #[test]
    fn known_secrets_key_shapes_and_named_values_are_replaced() {
        assert_eq!(
            redacted("my key is hunter2-is-my-key."),
            ("my key is [redacted].".to_owned(), 1)
        );
        assert_eq!(
            redacted("use sk-proj-abcdefghijklmnopqrstuvwx now").0,
            "use [redacted] now"
        );
        assert_eq!(
            redacted("Authorization: Bearer abc.def-ghi_123").0,
            "Authorization: Bearer [redacted]"
        );
        assert_eq!(
            redacted(r#"{"api_key":"q8f7d6s5a4"}"#).0,
            r#"{"api_key":"[redacted]"}"#
        );
        assert_eq!(
            redacted("x-goog-api-key=AbCdEf123456").0,
            "x-goog-api-key=[redacted]"
        );
        assert_eq!(redacted("password: swordfish!").0, "password: [redacted]");
        assert_eq!(redacted("AKIAABCDEFGHIJKLMNOP").0, "[redacted]");
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in [
            "The secret is out: we ship on Monday.",
            "Extract the token count.",
            "Order 5521 arrived broken, replacement asked",
            r#"{"value": {"category": "billing", "urgency": 3}}"#,
        ] {
            assert_eq!(redacted(text), (text.to_owned(), 0), "{text}");
        }
    }

    #[test]
    fn a_redacted_text_is_not_counted_again() {
        let (once, count) = redacted("Authorization: Bearer abcdefgh12345");
        assert_eq!(count, 1);
        assert_eq!(redacted(&once), (once.clone(), 0));
    }

    #[test]
    fn members_named_like_secrets_are_redacted_and_schemas_kept() {
        let redactor = Redactor::default();
        let mut value = serde_json::json!({
            "headers": {"x-api-key": "abc", "accept": "json"},
            "schema": {"properties": {"api_key": {"type": "string"}}}
        });
        assert_eq!(redactor.redact_value(&mut value), 1);
        assert_eq!(value["headers"]["x-api-key"], REDACTED);
        assert_eq!(value["headers"]["accept"], "json");
        assert_eq!(value["schema"]["properties"]["api_key"]["type"], "string");
    }

    #[test]
    fn secret_names_are_recognised() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "client-secret",
            "DB_PASSWORD",
            "Authorization",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in [
            "OPENAI_BASE_URL",
            "OPENAI_MODEL",
            "HOME",
            "max_output_tokens",
        ] {
            assert!(!is_secret_name(name), "{name}");
        }
    }
}

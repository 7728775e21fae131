//! [`ApiKey`]: a key that never shows in `Debug`, logs or errors.

use std::fmt;

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

    /// `text` with every occurrence of the key replaced by `[redacted]`.
    pub(crate) fn redact(&self, text: String) -> String {
        match self.expose() {
            Some(key) if key.len() >= 4 && text.contains(key) => text.replace(key, "[redacted]"),
            _ => text,
        }
    }
}

impl ApiKey {
    /// `body` with every occurrence of the key replaced by `[redacted]`, before any of it is cut
    /// for a message (a cut could fall inside the key and leave part of it behind).
    pub(crate) fn redact_bytes<'b>(&self, body: &'b [u8]) -> std::borrow::Cow<'b, [u8]> {
        match self.expose() {
            Some(key) if key.len() >= 4 && body.windows(key.len()).any(|w| w == key.as_bytes()) => {
                let text = String::from_utf8_lossy(body).replace(key, "[redacted]");
                std::borrow::Cow::Owned(text.into_bytes())
            }
            _ => std::borrow::Cow::Borrowed(body),
        }
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
}

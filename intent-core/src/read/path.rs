//! JSON pointers: the one RFC 6901 escaping of the library ([`push_token`], [`join`],
//! [`escape`]), and pointers built lazily: a walk carries a chain of borrowed frames and turns it
//! into a pointer only when it has something to report.

use std::borrow::Cow;
use std::fmt::Write;

/// One step from the reply's value (`/value`) down to the member being read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    /// The value itself: `/value`.
    Root,
    /// A member of an object.
    Key(&'a Path<'a>, &'a str),
    /// An element of an array.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The path of member `key` below `self`.
    pub(crate) fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The path of element `index` below `self`.
    pub(crate) fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    /// The RFC 6901 pointer, rooted at the envelope's `/value`.
    pub(crate) fn pointer(&self) -> String {
        let mut out = String::from("/value");
        self.write_segments(&mut out);
        out
    }

    /// The pointer relative to where the chain starts (`/lines/2`, or empty for the start).
    pub(crate) fn relative(&self) -> String {
        let mut out = String::new();
        self.write_segments(&mut out);
        out
    }

    fn write_segments(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write_segments(out);
                push_token(out, key);
            }
            Path::Index(parent, index) => {
                parent.write_segments(out);
                let _ = write!(out, "/{index}");
            }
        }
    }
}

/// Appends `/` and `token`, escaped per RFC 6901 (`~` as `~0`, `/` as `~1`), to `pointer`.
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    pointer.push_str(&escape(token));
}

/// `pointer` with `/token` appended, escaped.
pub(crate) fn join(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    push_token(&mut out, token);
    out
}

/// `token` escaped per RFC 6901, borrowed when it needs no escaping.
pub(crate) fn escape(token: &str) -> Cow<'_, str> {
    if !token.contains(['~', '/']) {
        return Cow::Borrowed(token);
    }
    let mut out = String::with_capacity(token.len() + 2);
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_tilde_and_slash() {
        let root = Path::Root;
        let lines = root.key("lines");
        let second = lines.index(2);
        let odd = second.key("a/b~c");
        assert_eq!(odd.pointer(), "/value/lines/2/a~1b~0c");
        assert_eq!(root.pointer(), "/value");
        assert_eq!(join("/value", "~/"), "/value/~0~1");
        assert!(matches!(escape("plain"), Cow::Borrowed("plain")));
    }
}

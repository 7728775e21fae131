//! Helpers on the reply's text that every reading step shares: what counts as space between
//! tokens, where an offset is in words, and a short excerpt for a message.

/// True for white space between tokens: ASCII and Unicode white space, the byte order mark, the
/// zero-width space and the word joiner.
pub(crate) fn is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{feff}' | '\u{200b}' | '\u{2060}')
}

/// "line 3, column 7" for a byte offset (columns count characters).
pub(crate) fn position(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let mut cut = offset;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let before = &text[..cut];
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    format!("line {line}, column {column}")
}

/// The first 40 characters of `text`, with an ellipsis when cut.
pub(crate) fn clip(text: &str) -> String {
    const LIMIT: usize = 40;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

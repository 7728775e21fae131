//! An element of the answer's list copied as text while it is written, for an element stream
//! that reads each element whole when it closes ([`super::PartialReader::elements_as_text`]).
//!
//! Only what finds the element's end is followed: strings (and their escapes) and the nesting of
//! brackets. Written by hand: the element's end must be found piece by piece, in pieces cut
//! anywhere, which no JSON crate's reader does without reading the values themselves.

use super::scan::NotJson;

/// An object or list element of the answer's list being copied as text
/// ([`PartialReader::elements_as_text`]): only strings and nesting are followed, to find its end.
#[derive(Debug)]
pub(super) struct RawElement {
    pub(super) index: usize,
    pub(super) text: String,
    pub(super) depth: usize,
    pub(super) in_string: bool,
    pub(super) escape: bool,
}

impl RawElement {
    /// Reads `piece` on: the bytes it took when the element closed in it, `None` when all of
    /// it is the element's; text no JSON value holds outside a string (a quote other than `"`,
    /// a comment) is an error, as for the scanner.
    pub(super) fn read(&mut self, piece: &str) -> Result<Option<usize>, NotJson> {
        let bytes = piece.as_bytes();
        let (mut depth, mut in_string, mut escape) = (self.depth, self.in_string, self.escape);
        let mut i = 0;
        let closed = 'piece: loop {
            if in_string {
                if escape {
                    if i == bytes.len() {
                        break None;
                    }
                    escape = false;
                    i += 1;
                }
                loop {
                    let Some(at) = quote_or_backslash(&bytes[i..]) else {
                        break 'piece None;
                    };
                    i += at + 1;
                    if bytes[i - 1] == b'"' {
                        in_string = false;
                        break;
                    }
                    if i == bytes.len() {
                        escape = true;
                        break 'piece None;
                    }
                    i += 1;
                }
            }
            loop {
                let Some(&b) = bytes.get(i) else {
                    break 'piece None;
                };
                i += 1;
                let class = RAW_CLASS[usize::from(b)];
                if class == RAW_PLAIN {
                    continue;
                }
                if class == RAW_QUOTE {
                    in_string = true;
                    break;
                }
                if class == RAW_OPEN {
                    depth += 1;
                } else if class == RAW_CLOSE {
                    depth -= 1;
                    if depth == 0 {
                        break 'piece Some(i);
                    }
                } else {
                    return Err(NotJson);
                }
            }
        };
        (self.depth, self.in_string, self.escape) = (depth, in_string, escape);
        if let Some(end) = closed {
            self.text.push_str(&piece[..end]);
            return Ok(Some(end));
        }
        self.text.push_str(piece);
        Ok(None)
    }
}

/// The position of the first `"` or `\\` in `bytes`, eight bytes at a time (the strings of a
/// reply are short, too short for `memchr`'s set-up to pay).
pub(super) fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // The high bit of each byte of `v` that is zero (exact for the lowest such byte).
    let zeros = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let found = zeros(word ^ u64::from_ne_bytes([b'"'; 8]))
            | zeros(word ^ u64::from_ne_bytes([b'\\'; 8]));
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\')
        .map(|p| at + p)
}

/// What a byte outside a string is to [`RawElement::read`]: part of a number, literal, white
/// space or punctuation; a quote; an opening or closing bracket; or no JSON at all.
const RAW_PLAIN: u8 = 0;
const RAW_QUOTE: u8 = 1;
const RAW_OPEN: u8 = 2;
const RAW_CLOSE: u8 = 3;
const RAW_BAD: u8 = 4;

/// The class of each byte outside a string (see [`RAW_PLAIN`]).
static RAW_CLASS: [u8; 256] = {
    let mut classes = [RAW_BAD; 256];
    let plain = b" \t\n\r,:-+.E0123456789abcdefghijklmnopqrstuvwxyz";
    let mut i = 0;
    while i < plain.len() {
        classes[plain[i] as usize] = RAW_PLAIN;
        i += 1;
    }
    classes[b'"' as usize] = RAW_QUOTE;
    classes[b'{' as usize] = RAW_OPEN;
    classes[b'[' as usize] = RAW_OPEN;
    classes[b'}' as usize] = RAW_CLOSE;
    classes[b']' as usize] = RAW_CLOSE;
    classes
};

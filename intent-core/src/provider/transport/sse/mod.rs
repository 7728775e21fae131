//! A Server-Sent Events parser for streamed replies, with a limit on the size of one event.
//!
//! It follows the WHATWG HTML standard, "Server-sent events", §9.2.6 "Interpreting an event
//! stream": lines end with CRLF, LF or a lone CR; an empty line dispatches the event; a line that
//! starts with `:` is a comment; `field: value` (one space after the colon is dropped) or a bare
//! `field` (empty value); `data` lines are joined with LF; `event` names the event; a leading UTF-8
//! BOM is dropped; an event with no data is not dispatched. `id` and `retry` only serve reconnection,
//! which a model reply never does, so they are read and ignored, like unknown fields.
//!
//! It departs from the standard where a model reply needs it:
//! - An event larger than its limit (its data, its name and any unfinished line, in bytes) is an
//!   error, never an unbounded buffer.
//! - Bytes that are not UTF-8 are an error, not U+FFFD: a replaced character inside a JSON string
//!   would read as a valid, wrong value.
//! - The end of the stream in the middle of an event (an unfinished line, or fields with no
//!   closing empty line) is reported by [`SseParser::finish`], not silently dropped.
//!
//! The parser works on bytes and splits lines on the ASCII CR and LF, which never occur inside a
//! multi-byte UTF-8 character, so an input cut anywhere (inside a character, between CR and LF)
//! reads the same as the whole. A line that arrives whole is read in place; only a line cut across
//! reads is copied into a carry-over buffer.
//!
//! Written here rather than taken from a crate: `eventsource-stream` 0.2 keeps an unbounded
//! `String` buffer, re-copies it per line and replaces bad UTF-8; `sse-stream` 0.2 has no limit
//! either, refuses lines the standard ignores (a bare field, an unknown field) and drops an
//! unfinished event at the end without a word. Neither has a size limit to configure.

#[cfg(feature = "bedrock")]
pub(crate) mod aws_frames;
mod body;

pub(crate) use body::{EventBody, Opened};

use std::fmt;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event` field, when one was sent (the standard's default type is `message`).
    pub(crate) event: Option<String>,
    /// The `data` lines, joined with LF.
    pub(crate) data: String,
}

impl SseEvent {
    /// The event's name: its `event` field, else `message`.
    pub(crate) fn name(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }
}

/// A stream that is not a readable event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseError {
    /// One event is larger than the limit, in bytes.
    TooLarge {
        /// The limit.
        limit: usize,
    },
    /// An event's data or name is not UTF-8.
    NotUtf8 {
        /// The event's number, from 1.
        event: u64,
    },
    /// The stream ended in the middle of an event.
    Unfinished {
        /// The start of the unfinished line or data, for the message.
        preview: String,
    },
    /// A frame of AWS's event-stream framing is malformed or fails its checksum.
    #[cfg(feature = "bedrock")]
    BadFrame {
        /// The frame's number, from 1.
        frame: u64,
        /// What is wrong with it.
        why: String,
    },
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SseError::TooLarge { limit } => {
                write!(f, "an event is larger than max_event_bytes ({limit} bytes)")
            }
            SseError::NotUtf8 { event } => write!(f, "event {event} is not valid UTF-8"),
            SseError::Unfinished { preview } => {
                write!(
                    f,
                    "the stream ended in the middle of an event ({preview:?})"
                )
            }
            #[cfg(feature = "bedrock")]
            SseError::BadFrame { frame, why } => {
                write!(f, "event-stream frame {frame} is not readable: {why}")
            }
        }
    }
}

/// How much of an unfinished event or an ignored line a message shows, in bytes.
const PREVIEW_BYTES: usize = 120;

/// An incremental event-stream parser: feed it the body as it arrives with
/// [`next_event`](Self::next_event), then call [`finish`](Self::finish) at the end.
#[derive(Debug)]
pub(crate) struct SseParser {
    max_event_bytes: usize,
    /// An unfinished line carried over from the previous input.
    line: Vec<u8>,
    /// The event's data buffer: each `data` value followed by LF.
    data: Vec<u8>,
    /// The event's `event` field.
    name: Vec<u8>,
    /// A field line was read for the event not yet dispatched.
    in_event: bool,
    /// The last input ended with CR: a LF at the start of the next belongs to it.
    skip_lf: bool,
    /// The first line is not read yet (it may start with a BOM).
    first_line: bool,
    dispatched: u64,
    comments: u64,
    ignored: u64,
    first_ignored: Option<String>,
}

impl SseParser {
    /// A parser that refuses an event larger than `max_event_bytes`.
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        SseParser {
            max_event_bytes,
            line: Vec::new(),
            data: Vec::new(),
            name: Vec::new(),
            in_event: false,
            skip_lf: false,
            first_line: true,
            dispatched: 0,
            comments: 0,
            ignored: 0,
            first_ignored: None,
        }
    }

    /// Reads `input` up to the end of the next event and returns it, leaving `input` after it;
    /// `Ok(None)` when `input` is used up with no event complete (the rest is kept for the next
    /// input).
    pub(crate) fn next_event(&mut self, input: &mut &[u8]) -> Result<Option<SseEvent>, SseError> {
        loop {
            if self.skip_lf {
                match input.first() {
                    None => return Ok(None),
                    Some(b'\n') => *input = &input[1..],
                    Some(_) => {}
                }
                self.skip_lf = false;
            }
            let Some(end) = input.iter().position(|&b| b == b'\n' || b == b'\r') else {
                if !input.is_empty() {
                    self.check_size(self.line.len() + input.len())?;
                    self.line.extend_from_slice(input);
                    *input = &[];
                }
                return Ok(None);
            };
            let (line, rest) = input.split_at(end);
            let mut rest = &rest[1..];
            if input[end] == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.skip_lf = true,
                    Some(_) => {}
                }
            }
            *input = rest;
            let event = if self.line.is_empty() {
                self.read_line(line)?
            } else {
                self.check_size(self.line.len() + line.len())?;
                let mut whole = std::mem::take(&mut self.line);
                whole.extend_from_slice(line);
                let event = self.read_line(&whole);
                whole.clear();
                self.line = whole;
                event?
            };
            if event.is_some() {
                return Ok(event);
            }
        }
    }

    /// Checks the end of the stream: an error when it ended in the middle of an event.
    pub(crate) fn finish(&self) -> Result<(), SseError> {
        if self.line.is_empty() && !self.in_event {
            return Ok(());
        }
        let pending = if self.line.is_empty() {
            &self.data
        } else {
            &self.line
        };
        Err(SseError::Unfinished {
            preview: preview(pending),
        })
    }

    /// Events dispatched and comments read so far: it grows whenever the server shows it is alive.
    pub(crate) fn activity(&self) -> u64 {
        self.dispatched + self.comments
    }

    /// Lines that were neither a known field nor a comment, and the first of them: a server that
    /// sends no event stream (an HTML page, a JSON error) shows here.
    pub(crate) fn ignored(&self) -> (u64, Option<&str>) {
        (self.ignored, self.first_ignored.as_deref())
    }

    /// Refuses an event whose buffered bytes, with `extra` more, pass the limit.
    fn check_size(&self, extra: usize) -> Result<(), SseError> {
        if self.data.len() + self.name.len() + extra > self.max_event_bytes {
            Err(SseError::TooLarge {
                limit: self.max_event_bytes,
            })
        } else {
            Ok(())
        }
    }

    fn read_line(&mut self, mut line: &[u8]) -> Result<Option<SseEvent>, SseError> {
        if self.first_line {
            self.first_line = false;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            self.comments += 1;
            return Ok(None);
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                self.check_size(value.len() + 1)?;
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
                self.in_event = true;
            }
            b"event" => {
                self.check_size(value.len())?;
                self.name.clear();
                self.name.extend_from_slice(value);
                self.in_event = true;
            }
            b"id" | b"retry" => self.in_event = true,
            _ => {
                self.ignored += 1;
                if self.first_ignored.is_none() {
                    self.first_ignored = Some(preview(line));
                }
            }
        }
        Ok(None)
    }

    fn dispatch(&mut self) -> Result<Option<SseEvent>, SseError> {
        self.in_event = false;
        if self.data.is_empty() {
            self.name.clear();
            return Ok(None);
        }
        self.dispatched += 1;
        let event = self.dispatched;
        self.data.pop();
        let data = String::from_utf8(std::mem::take(&mut self.data))
            .map_err(|_| SseError::NotUtf8 { event })?;
        let name = if self.name.is_empty() {
            None
        } else {
            let name = std::mem::take(&mut self.name);
            Some(String::from_utf8(name).map_err(|_| SseError::NotUtf8 { event })?)
        };
        Ok(Some(SseEvent { event: name, data }))
    }
}

/// The start of `bytes`, as text, for a message.
fn preview(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(PREVIEW_BYTES)];
    let mut text = String::from_utf8_lossy(cut).into_owned();
    if bytes.len() > PREVIEW_BYTES {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    /// Every event of `input` fed in pieces of the given sizes (cycled), then `finish`.
    fn parse_in_pieces(input: &[u8], sizes: &[usize]) -> Result<Vec<SseEvent>, SseError> {
        let mut parser = SseParser::new(1024);
        let mut events = Vec::new();
        let mut rest = input;
        let mut size = sizes.iter().cycle();
        while !rest.is_empty() {
            let n = (*size.next().unwrap()).min(rest.len());
            let mut piece = &rest[..n];
            rest = &rest[n..];
            while let Some(event) = parser.next_event(&mut piece)? {
                events.push(event);
            }
            assert!(piece.is_empty());
        }
        parser.finish()?;
        Ok(events)
    }

    fn parse(input: &str) -> Result<Vec<SseEvent>, SseError> {
        parse_in_pieces(input.as_bytes(), &[usize::MAX])
    }

    #[test]
    fn reads_the_standards_examples() {
        assert_eq!(
            parse("data: YHOO\ndata: +2\ndata: 10\n\n").unwrap(),
            [event(None, "YHOO\n+2\n10")]
        );
        assert_eq!(
            parse(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n")
                .unwrap(),
            [
                event(None, "first event"),
                event(None, "second event"),
                event(None, " third event")
            ]
        );
        // A bare `data` is an empty value; an event whose data buffer is empty is not dispatched.
        assert_eq!(
            parse("data\n\ndata\ndata\n\n").unwrap(),
            [event(None, ""), event(None, "\n")]
        );
        assert_eq!(
            parse("event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\n").unwrap(),
            [
                event(Some("add"), "73857293"),
                event(Some("remove"), "2153")
            ]
        );
    }

    #[test]
    fn an_event_with_no_data_is_not_dispatched_and_its_name_does_not_leak() {
        assert_eq!(
            parse("event: ping\n\ndata: x\n\n").unwrap(),
            [event(None, "x")]
        );
    }

    #[test]
    fn crlf_lone_cr_and_lf_all_end_lines() {
        let expected = [event(Some("a"), "1\n2"), event(None, "3")];
        for text in [
            "event: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3\r\n\r\n",
            "event: a\rdata: 1\rdata: 2\r\rdata: 3\r\r",
            "event: a\ndata: 1\r\ndata: 2\r\rdata: 3\n\r\n",
        ] {
            assert_eq!(parse(text).unwrap(), expected, "{text:?}");
            for size in 1..text.len() {
                assert_eq!(
                    parse_in_pieces(text.as_bytes(), &[size]).unwrap(),
                    expected,
                    "{text:?} in pieces of {size}"
                );
            }
        }
    }

    #[test]
    fn a_stream_cut_at_every_byte_reads_the_same_even_inside_a_character() {
        let text = "\u{feff}: hello\r\n\r\nevent: message_start\r\ndata: {\"t\":\"Grüße — 日本 🙂\"}\r\n\r\ndata: a\rdata: b\r\r:c\ndata: [DONE]\n\n";
        let whole = parse(text).unwrap();
        assert_eq!(whole.len(), 3);
        assert_eq!(whole[0].data, "{\"t\":\"Grüße — 日本 🙂\"}");
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            let mut parser = SseParser::new(1024);
            let mut events = Vec::new();
            for mut part in [&bytes[..cut], &bytes[cut..]] {
                while let Some(event) = parser.next_event(&mut part).unwrap() {
                    events.push(event);
                }
            }
            parser.finish().unwrap();
            assert_eq!(events, whole, "cut at {cut}");
        }
        assert_eq!(parse_in_pieces(bytes, &[1]).unwrap(), whole);
        assert_eq!(parse_in_pieces(bytes, &[3, 1, 7]).unwrap(), whole);
    }

    #[test]
    fn a_bom_is_dropped_only_at_the_start() {
        assert_eq!(
            parse_in_pieces("\u{feff}data: a\n\n".as_bytes(), &[1]).unwrap(),
            [event(None, "a")]
        );
        // A BOM later is part of the field name, so the line is an unknown field.
        assert_eq!(
            parse("data: a\n\n\u{feff}data: b\n\n").unwrap(),
            [event(None, "a")]
        );
    }

    #[test]
    fn unknown_fields_and_bare_lines_are_ignored_and_counted() {
        let mut parser = SseParser::new(1024);
        let mut input: &[u8] = b"<html>\nfoo: bar\nretry: 10\ndata: x\n\n";
        assert_eq!(
            parser.next_event(&mut input).unwrap(),
            Some(event(None, "x"))
        );
        assert_eq!(parser.ignored(), (2, Some("<html>")));
        assert_eq!(parser.activity(), 1);
    }

    #[test]
    fn an_event_over_the_limit_is_refused_whole_or_in_pieces() {
        let big = format!("data: {}\n\n", "x".repeat(2000));
        assert_eq!(parse(&big), Err(SseError::TooLarge { limit: 1024 }));
        assert_eq!(
            parse_in_pieces(big.as_bytes(), &[10]),
            Err(SseError::TooLarge { limit: 1024 })
        );
        // Many data lines add up.
        let lines = "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(40);
        assert_eq!(parse(&lines), Err(SseError::TooLarge { limit: 1024 }));
        // A line that never ends is bounded too.
        let mut parser = SseParser::new(1024);
        let chunk = [b'x'; 100];
        let refused = (0..20).find_map(|_| parser.next_event(&mut &chunk[..]).err());
        assert_eq!(refused, Some(SseError::TooLarge { limit: 1024 }));
        // Events under the limit, one after another, are fine however many.
        let many = "data: xxxxxxxxxxxxxxxxxxxxxxxx\n\n".repeat(200);
        assert_eq!(parse(&many).unwrap().len(), 200);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_an_error() {
        let mut parser = SseParser::new(1024);
        let mut input: &[u8] = b"data: ok\n\ndata: \xff\xfe\n\n";
        assert!(parser.next_event(&mut input).unwrap().is_some());
        assert_eq!(
            parser.next_event(&mut input),
            Err(SseError::NotUtf8 { event: 2 })
        );
    }

    #[test]
    fn the_end_in_the_middle_of_an_event_is_reported() {
        for text in ["data: {\"cho", "data: x\n", "event: a\n", "data: x\r"] {
            let error = parse(text).unwrap_err();
            assert!(
                matches!(error, SseError::Unfinished { .. }),
                "{text:?}: {error:?}"
            );
        }
        assert_eq!(
            parse("data: {\"cho").unwrap_err().to_string(),
            "the stream ended in the middle of an event (\"data: {\\\"cho\")"
        );
        // A comment or a blank line at the end is not an event.
        assert!(parse("data: x\n\n: bye\n").is_ok());
        assert!(parse("data: x\n\n\n").is_ok());
    }
}

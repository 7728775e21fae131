//! AWS's event-stream framing (`application/vnd.amazon.eventstream`), as Amazon Bedrock's
//! `converse-stream` sends a reply, read into the same events as server-sent events.
//!
//! Wire facts (AWS's "Event stream encoding" in the Transcribe and S3 `SelectObjectContent`
//! references, and the Bedrock Runtime `ConverseStream` reference): each message is a prelude
//! (total length u32, headers length u32, the prelude's CRC32), headers (`:message-type`
//! `event`, `exception` or `error`; `:event-type` or `:exception-type` naming it; `:content-type`),
//! a JSON payload, and the message's CRC32, all big-endian. The frames are decoded by
//! `aws-smithy-eventstream` (the AWS SDK's own decoder), which checks both checksums.
//!
//! Each message becomes one [`SseEvent`]: an `event` message is named by its `:event-type`
//! (`messageStart`, `contentBlockDelta`, ..., `metadata`), an `exception` message
//! `exception:{:exception-type}` (`exception:throttlingException`), an `error` message
//! `error:{:error-code}` with `:error-message` as its data; the data is the payload, which must be
//! UTF-8. A frame whose prelude announces more than the event limit is refused before it is
//! read; a bad checksum or a malformed frame is an error naming the frame; the body ending
//! inside a frame is reported by [`finish`](FrameParser::finish).

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use aws_smithy_types::event_stream::{HeaderValue, Message};
use bytes::BytesMut;

use super::{SseError, SseEvent};

/// An incremental reader of event-stream frames, with a limit on one frame's size.
#[derive(Debug)]
pub(crate) struct FrameParser {
    max_event_bytes: usize,
    decoder: MessageFrameDecoder,
    /// Bytes of the frame being read (the decoder keeps the prelude once it has read it).
    buffer: BytesMut,
    /// Whether a frame's prelude was seen and checked against the limit.
    in_frame: bool,
    frames: u64,
}

impl FrameParser {
    /// A parser that refuses a frame larger than `max_event_bytes`.
    pub(crate) fn new(max_event_bytes: usize) -> Self {
        FrameParser {
            max_event_bytes,
            decoder: MessageFrameDecoder::new(),
            buffer: BytesMut::new(),
            in_frame: false,
            frames: 0,
        }
    }

    /// Reads `input` (all of it) and returns the next complete frame's event, if any.
    pub(crate) fn next_event(&mut self, input: &mut &[u8]) -> Result<Option<SseEvent>, SseError> {
        self.buffer.extend_from_slice(input);
        *input = &[];
        if !self.in_frame && self.buffer.len() >= 4 {
            let total = u32::from_be_bytes([
                self.buffer[0],
                self.buffer[1],
                self.buffer[2],
                self.buffer[3],
            ]);
            if usize::try_from(total).unwrap_or(usize::MAX) > self.max_event_bytes {
                return Err(SseError::TooLarge {
                    limit: self.max_event_bytes,
                });
            }
            self.in_frame = true;
        }
        if !self.in_frame {
            return Ok(None);
        }
        let number = self.frames + 1;
        match self.decoder.decode_frame(&mut self.buffer) {
            Ok(DecodedFrame::Incomplete) => Ok(None),
            Ok(DecodedFrame::Complete(message)) => {
                self.in_frame = false;
                self.frames = number;
                event_of(&message, number).map(Some)
            }
            Err(error) => Err(SseError::BadFrame {
                frame: number,
                why: error.to_string(),
            }),
        }
    }

    /// Checks the end of the body: an error when it ended inside a frame.
    pub(crate) fn finish(&self) -> Result<(), SseError> {
        if !self.in_frame && self.buffer.is_empty() {
            return Ok(());
        }
        Err(SseError::Unfinished {
            preview: format!(
                "frame {} cut short, {} bytes of it unread",
                self.frames + 1,
                self.buffer.len()
            ),
        })
    }

    /// Frames read so far.
    pub(crate) fn activity(&self) -> u64 {
        self.frames
    }
}

/// The event a message carries.
fn event_of(message: &Message, number: u64) -> Result<SseEvent, SseError> {
    let header = |name: &str| {
        message
            .headers()
            .iter()
            .find(|h| h.name().as_str() == name)
            .and_then(|h| match h.value() {
                HeaderValue::String(value) => Some(value.as_str().to_owned()),
                _ => None,
            })
    };
    let bad = |why: String| SseError::BadFrame { frame: number, why };
    let payload = || {
        std::str::from_utf8(message.payload())
            .map(str::to_owned)
            .map_err(|_| SseError::NotUtf8 { event: number })
    };
    let message_type = header(":message-type").unwrap_or_else(|| "event".to_owned());
    let (name, data) = match message_type.as_str() {
        "event" => {
            let name =
                header(":event-type").ok_or_else(|| bad("an event without :event-type".into()))?;
            (name, payload()?)
        }
        "exception" => {
            let name = header(":exception-type").unwrap_or_else(|| "unknown".into());
            (format!("exception:{name}"), payload()?)
        }
        "error" => {
            let code = header(":error-code").unwrap_or_else(|| "unknown".into());
            (
                format!("error:{code}"),
                header(":error-message").unwrap_or_default(),
            )
        }
        other => return Err(bad(format!("a message of type {other:?}"))),
    };
    Ok(SseEvent {
        event: Some(name),
        data,
    })
}

/// A frame as AWS writes it, for tests: an `event` message named `event_type` with `payload`.
#[cfg(test)]
pub(crate) fn frame(message_type: &str, name_header: (&str, &str), payload: &[u8]) -> Vec<u8> {
    use aws_smithy_types::event_stream::Header;
    let message = Message::new(bytes::Bytes::copy_from_slice(payload))
        .add_header(Header::new(
            ":message-type",
            HeaderValue::String(message_type.to_owned().into()),
        ))
        .add_header(Header::new(
            name_header.0.to_owned(),
            HeaderValue::String(name_header.1.to_owned().into()),
        ))
        .add_header(Header::new(
            ":content-type",
            HeaderValue::String("application/json".to_owned().into()),
        ));
    let mut out = Vec::new();
    aws_smithy_eventstream::frame::write_message_to(&message, &mut out).unwrap();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_in_pieces(body: &[u8], piece: usize) -> Result<Vec<SseEvent>, SseError> {
        let mut parser = FrameParser::new(1 << 20);
        let mut events = Vec::new();
        for chunk in body.chunks(piece.max(1)) {
            let mut input = chunk;
            while let Some(event) = parser.next_event(&mut input)? {
                events.push(event);
            }
        }
        parser.finish()?;
        Ok(events)
    }

    fn two_frames() -> Vec<u8> {
        let mut body = frame(
            "event",
            (":event-type", "messageStart"),
            br#"{"role":"assistant","p":"abcd"}"#,
        );
        body.extend(frame(
            "exception",
            (":exception-type", "throttlingException"),
            br#"{"message":"Rate exceeded"}"#,
        ));
        body
    }

    #[test]
    fn frames_read_the_same_in_pieces_of_every_size() {
        let body = two_frames();
        let whole = read_in_pieces(&body, body.len()).unwrap();
        assert_eq!(whole.len(), 2);
        assert_eq!(whole[0].name(), "messageStart");
        assert_eq!(whole[0].data, r#"{"role":"assistant","p":"abcd"}"#);
        assert_eq!(whole[1].name(), "exception:throttlingException");
        for piece in 1..body.len() {
            assert_eq!(
                read_in_pieces(&body, piece).unwrap(),
                whole,
                "pieces of {piece}"
            );
        }
    }

    #[test]
    fn a_bad_checksum_a_cut_frame_and_a_frame_over_the_limit_are_errors() {
        let mut body = two_frames();
        let last = body.len() - 1;
        body[last] ^= 0xff;
        assert!(
            matches!(
                read_in_pieces(&body, 7),
                Err(SseError::BadFrame { frame: 2, .. })
            ),
            "{:?}",
            read_in_pieces(&body, 7)
        );
        let mut prelude = two_frames();
        prelude[9] ^= 0x01; // the first frame's prelude CRC
        assert!(matches!(
            read_in_pieces(&prelude, 100),
            Err(SseError::BadFrame { frame: 1, .. })
        ));
        let body = two_frames();
        for cut in [3, 20, body.len() - 1] {
            assert!(
                matches!(
                    read_in_pieces(&body[..cut], 5),
                    Err(SseError::Unfinished { .. })
                ),
                "cut at {cut}"
            );
        }
        let mut parser = FrameParser::new(16);
        let mut input = &body[..];
        assert_eq!(
            parser.next_event(&mut input),
            Err(SseError::TooLarge { limit: 16 })
        );
    }
}

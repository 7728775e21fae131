//! An attachment's bytes as base64 text, written straight into a request body.
//!
//! Both types serialize with `collect_str`, which `serde_json` writes through its escaping writer
//! without building the string first: the encoded text (a third larger than the file) is never
//! held on its own, only in the body.

use std::fmt;

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use serde::{Serialize, Serializer};

/// The standard base64 (with padding) of some bytes, as the providers' `data` fields take it.
pub(crate) struct Base64<'a>(pub(crate) &'a Bytes);

impl fmt::Display for Base64<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Base64Display::new(self.0, &STANDARD), f)
    }
}

impl Serialize for Base64<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A `data:<media type>;base64,<data>` URL (RFC 2397), as OpenAI's `image_url` and `file_data`
/// take inline content.
pub(crate) struct DataUrl<'a> {
    pub(crate) media_type: &'a str,
    pub(crate) bytes: &'a Bytes,
}

impl fmt::Display for DataUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data:{};base64,{}", self.media_type, Base64(self.bytes))
    }
}

impl Serialize for DataUrl<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_encoding_is_standard_base64_with_padding() {
        let bytes = Bytes::from_static(b"\xFF\xFEhi");
        assert_eq!(
            serde_json::to_string(&Base64(&bytes)).unwrap(),
            "\"//5oaQ==\""
        );
        let url = DataUrl {
            media_type: "image/png",
            bytes: &bytes,
        };
        assert_eq!(url.to_string(), "data:image/png;base64,//5oaQ==");
    }
}

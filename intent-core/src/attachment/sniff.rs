//! The media type of a file from its first bytes (its magic number), and whether a file of a known
//! type ends where its format says it must.
//!
//! Written by hand: the five formats the providers take need a dozen bytes each, and the crates
//! that sniff hundreds of types (`infer`, `tree_magic`) do not check that a file is whole, which is
//! what catches a truncated download before it is sent.
//!
//! Signatures and trailers (each format's own specification):
//! - PNG: `89 50 4E 47 0D 0A 1A 0A`, then the `IHDR` chunk; ends with the `IEND` chunk
//!   (`49 45 4E 44 AE 42 60 82`, its type and CRC). PNG 1.2, §5.2 and §11.2.
//! - JPEG: `FF D8 FF`; ends with the EOI marker `FF D9` (ITU T.81, Annex B), which some encoders
//!   follow with padding: the marker is looked for in the last 32 bytes.
//! - GIF: `GIF87a` or `GIF89a`; ends with the trailer `3B` (GIF89a, §27).
//! - WebP: `RIFF`, a little-endian size, `WEBP`; the size counts every byte after the first 8
//!   (RIFF container, RFC 9649 §2.5).
//! - PDF: `%PDF-`; ends with `%%EOF`, which may be followed by line ends or a little padding: it
//!   is looked for in the last 1024 bytes (ISO 32000-1, §7.5.5).

/// A media type the sniffer knows.
pub(crate) const PNG: &str = "image/png";
pub(crate) const JPEG: &str = "image/jpeg";
pub(crate) const GIF: &str = "image/gif";
pub(crate) const WEBP: &str = "image/webp";
pub(crate) const PDF: &str = "application/pdf";

/// The media type of `bytes` from their signature, if it is one of the known ones.
pub(super) fn media_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(PNG)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(JPEG)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(GIF)
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some(WEBP)
    } else if bytes.starts_with(b"%PDF-") {
        Some(PDF)
    } else {
        None
    }
}

/// Why `bytes`, sniffed as `media_type`, are not a whole file of that type: `None` when they are,
/// or when the type is not one the sniffer checks.
pub(super) fn truncation(media_type: &str, bytes: &[u8]) -> Option<&'static str> {
    match media_type {
        PNG => {
            let has_header = bytes.len() >= 16 && &bytes[12..16] == b"IHDR";
            let has_end = bytes.ends_with(b"IEND\xAE\x42\x60\x82");
            (!(has_header && has_end)).then_some("a PNG file ends with its IEND chunk")
        }
        JPEG => {
            let tail = &bytes[bytes.len().saturating_sub(32)..];
            let has_end = bytes.len() > 4 && tail.windows(2).any(|w| w == [0xFF, 0xD9]);
            (!has_end).then_some("a JPEG file ends with the EOI marker FF D9")
        }
        GIF => (bytes.len() < 14 || bytes.last() != Some(&0x3B))
            .then_some("a GIF file ends with the trailer byte 3B"),
        WEBP => {
            let declared = bytes
                .get(4..8)
                .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize);
            // RIFF pads an odd-sized chunk with one byte, which the size may leave out.
            let whole = declared.is_some_and(|size| {
                let actual = bytes.len() - 8;
                actual == size || actual == size + 1
            });
            (!whole).then_some("a WebP file is as long as its RIFF header says")
        }
        PDF => {
            let tail = &bytes[bytes.len().saturating_sub(1024)..];
            let has_end = tail.windows(5).any(|w| w == b"%%EOF");
            (!has_end).then_some("a PDF file ends with %%EOF")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_signature_is_recognised() {
        assert_eq!(media_type(b"\x89PNG\r\n\x1a\n...."), Some(PNG));
        assert_eq!(media_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some(JPEG));
        assert_eq!(media_type(b"GIF89a.."), Some(GIF));
        assert_eq!(media_type(b"GIF87a.."), Some(GIF));
        assert_eq!(media_type(b"RIFF\x04\0\0\0WEBP"), Some(WEBP));
        assert_eq!(media_type(b"%PDF-1.7\n"), Some(PDF));
        assert_eq!(media_type(b"RIFF\x04\0\0\0WAVE"), None);
        assert_eq!(media_type(b""), None);
        assert_eq!(media_type(b"hello"), None);
    }

    #[test]
    fn a_cut_file_is_told_from_a_whole_one() {
        let mut webp = b"RIFF\x06\0\0\0WEBPab".to_vec();
        assert_eq!(truncation(WEBP, &webp), None);
        webp.pop();
        assert!(truncation(WEBP, &webp).is_some());
        assert!(truncation(PDF, b"%PDF-1.7\n1 0 obj").is_some());
        assert_eq!(truncation(PDF, b"%PDF-1.7\n1 0 obj\n%%EOF\n"), None);
        assert!(truncation(JPEG, &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0]).is_some());
        assert_eq!(
            truncation(JPEG, &[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xD9]),
            None
        );
        assert!(truncation(GIF, b"GIF89a").is_some());
        assert!(truncation(PNG, b"\x89PNG\r\n\x1a\n").is_some());
        assert_eq!(truncation("image/heic", b"anything"), None);
    }
}

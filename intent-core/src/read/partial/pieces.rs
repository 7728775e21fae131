//! Reading a whole reply through a partial reader in pieces, as a stream hands it over: for the
//! benchmarks.

use std::sync::Arc;

use super::{ElementBody, PartialReader, Views};
use crate::shape::TypeInfo;

/// Reads `text` through a partial reader in pieces of `piece_bytes` bytes (each cut moved on to
/// the next character's start), as a stream would hand it over; returns how many pieces changed
/// the view. For benchmarks.
#[doc(hidden)]
pub fn read_in_pieces(info: Arc<TypeInfo>, text: &str, piece_bytes: usize) -> usize {
    let mut reader = PartialReader::new(info);
    in_pieces(text, piece_bytes, |piece| usize::from(reader.push(piece)))
}

/// Hands `text` to a stream of partials' views in pieces, as [`read_in_pieces`] does: with
/// `look`, each partial's view is looked at as it is handed out (the view kept after every
/// piece, as a consumer that shows each partial reads it); without, none is (a consumer that
/// waits for the result). Returns how many partials were handed out. For benchmarks.
#[doc(hidden)]
pub fn read_partials_in_pieces(
    info: Arc<TypeInfo>,
    text: &str,
    piece_bytes: usize,
    look: bool,
) -> usize {
    let mut views = Views::new(info);
    in_pieces(text, piece_bytes, |piece| match views.push(piece) {
        Some(view) => {
            if look {
                std::hint::black_box(view.get());
            }
            1
        }
        None => 0,
    })
}

/// Reads `text` as [`read_in_pieces`] does, as an element stream of `E` reads it (each
/// element of the list answer copied as text, then read on its own as the final reading reads
/// it; no view); returns how many elements passed. For benchmarks.
#[doc(hidden)]
pub fn read_elements_in_pieces<E: serde::de::DeserializeOwned>(
    info: Arc<TypeInfo>,
    text: &str,
    piece_bytes: usize,
) -> usize {
    let mut reader = PartialReader::new(info.clone()).elements_as_text();
    in_pieces(text, piece_bytes, |piece| {
        reader.push(piece);
        if !reader.has_closed_elements() {
            return 0;
        }
        reader
            .take_elements()
            .filter(|e| match &e.value {
                Ok(ElementBody::Text(text)) => {
                    crate::read::read_list_element::<E>(&info, e.index, text).is_ok()
                }
                Ok(ElementBody::Json(json)) => E::deserialize(json).is_ok(),
                Err(_) => false,
            })
            .count()
    })
}

/// The sum of `each` over the pieces of `text`.
fn in_pieces(text: &str, piece_bytes: usize, mut each: impl FnMut(&str) -> usize) -> usize {
    let mut total = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = piece_bytes.max(1).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        total += each(piece);
        rest = tail;
    }
    total
}

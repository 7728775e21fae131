//! Splitting a collection into chunks: at most `chunk_size` elements each, and a serialized chunk
//! no longer than `max_input_chars`.

use crate::result::{IssueKind, ResultIssue};

/// One element of a collection, serialized once when the call is made.
#[derive(Debug)]
pub(crate) struct Element {
    /// The key the model sees: the index for `map_each`, the key text for `map_values`.
    pub(crate) key: String,
    /// The element as it sits in a chunk's input: `{"index":3,"input":..}` or `"key":..`.
    pub(crate) text: String,
    /// `text`'s length in characters.
    pub(crate) chars: usize,
}

/// Characters a chunk adds around its elements: the brackets or braces.
const CHUNK_OVERHEAD: usize = 2;

/// The chunks (input positions, in order) and the elements refused because they cannot fit in any.
///
/// Elements that failed earlier (`Err`) are in neither list; the caller already has their issue.
pub(crate) fn plan_chunks(
    elements: &[Result<Element, ResultIssue>],
    chunk_size: usize,
    max_chars: usize,
) -> (Vec<Vec<usize>>, Vec<(usize, ResultIssue)>) {
    let chunk_size = chunk_size.max(1);
    let mut chunks = Vec::new();
    let mut refused = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut current_chars = CHUNK_OVERHEAD;
    for (position, element) in elements.iter().enumerate() {
        let Ok(element) = element else { continue };
        if element.chars + CHUNK_OVERHEAD > max_chars {
            refused.push((
                position,
                ResultIssue::new(
                    IssueKind::Input,
                    format!(
                        "The element serializes to {} characters, too many for a chunk within max_input_chars ({max_chars}); nothing was sent for it.",
                        element.chars
                    ),
                ),
            ));
            continue;
        }
        let separator = usize::from(!current.is_empty());
        if !current.is_empty()
            && (current.len() >= chunk_size
                || current_chars + separator + element.chars > max_chars)
        {
            chunks.push(std::mem::take(&mut current));
            current_chars = CHUNK_OVERHEAD;
        }
        current_chars += usize::from(!current.is_empty()) + element.chars;
        current.push(position);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    (chunks, refused)
}

/// What one chunk sends: its input positions, their keys, and its input text.
pub(crate) struct ChunkInput {
    /// The chunk's input positions, in order.
    pub(crate) positions: Vec<usize>,
    /// The key of each position.
    pub(crate) keys: Vec<String>,
    /// The elements joined inside the brackets or braces.
    pub(crate) text: String,
}

impl ChunkInput {
    /// Moves the chunk's elements out of `elements` into one input text, joined inside `open` and
    /// `close`: each element's own text is freed as it is copied, so a collection's input is held
    /// once, by the chunks still to run or in flight, and not again by the call.
    pub(crate) fn take(
        elements: &mut [Result<Element, ResultIssue>],
        positions: Vec<usize>,
        open: char,
        close: char,
    ) -> ChunkInput {
        let length: usize = positions
            .iter()
            .filter_map(|&p| elements[p].as_ref().ok())
            .map(|e| e.text.len() + 1)
            .sum();
        let mut text = String::with_capacity(length + CHUNK_OVERHEAD);
        let mut keys = Vec::with_capacity(positions.len());
        text.push(open);
        for &position in &positions {
            // A chunk holds only elements that serialized.
            let Ok(element) = &mut elements[position] else {
                continue;
            };
            if !keys.is_empty() {
                text.push(',');
            }
            text.push_str(&std::mem::take(&mut element.text));
            keys.push(std::mem::take(&mut element.key));
        }
        text.push(close);
        ChunkInput {
            positions,
            keys,
            text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(chars: usize) -> Result<Element, ResultIssue> {
        Ok(Element {
            key: String::new(),
            text: "x".repeat(chars),
            chars,
        })
    }

    #[test]
    fn splits_by_count_and_by_size() {
        let elements: Vec<_> = (0..10).map(|_| element(10)).collect();
        let (chunks, refused) = plan_chunks(&elements, 4, 1000);
        assert!(refused.is_empty());
        assert_eq!(
            chunks.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 4, 2]
        );
        // 2 + 10 + 1 + 10 + 1 + 10 = 34 fits in 34, a fourth element does not.
        let (chunks, _) = plan_chunks(&elements, 100, 34);
        assert!(chunks.iter().all(|c| c.len() == 3 || c.len() == 1));
        let mut elements = elements;
        for chunk in chunks {
            let input = ChunkInput::take(&mut elements, chunk, '[', ']');
            assert!(input.text.chars().count() <= 34);
        }
        assert!(elements
            .iter()
            .all(|e| e.as_ref().is_ok_and(|e| e.text.is_empty())));
    }

    #[test]
    fn refuses_an_element_that_fits_no_chunk() {
        let elements = vec![element(5), element(50), element(5)];
        let (chunks, refused) = plan_chunks(&elements, 10, 20);
        assert_eq!(chunks, vec![vec![0, 2]]);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].0, 1);
        assert!(refused[0].1.message.contains("max_input_chars (20)"));
    }
}

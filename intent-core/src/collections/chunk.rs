//! Splitting a collection into chunks: at most `chunk_size` elements each, a serialized chunk
//! no longer than `max_input_chars`, and the attachments its elements carry within one request's
//! limits ([`CHUNK_BUDGET`]: the smallest among the providers, since a fallback must be able to
//! take the same request).

use crate::attachment::chunk_budget::{Load, RequestBudget, CHUNK_BUDGET};
use crate::attachment::Attachment;
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
    /// The attachments the element carries, in the order its text refers to them (bytes shared
    /// with the caller's).
    pub(crate) attachments: Vec<Attachment>,
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
    plan_within(elements, chunk_size, max_chars, &CHUNK_BUDGET)
}

/// [`plan_chunks`] within a given attachment budget.
fn plan_within(
    elements: &[Result<Element, ResultIssue>],
    chunk_size: usize,
    max_chars: usize,
    budget: &RequestBudget,
) -> (Vec<Vec<usize>>, Vec<(usize, ResultIssue)>) {
    let chunk_size = chunk_size.max(1);
    let mut current_load = Load::default();
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
        if let Some(message) = budget.refusal(&element.attachments) {
            refused.push((position, ResultIssue::new(IssueKind::Input, message)));
            continue;
        }
        let load = budget.load(&element.attachments);
        let separator = usize::from(!current.is_empty());
        if !current.is_empty()
            && (current.len() >= chunk_size
                || current_chars + separator + element.chars > max_chars
                || !budget.fits(current_load, load))
        {
            chunks.push(std::mem::take(&mut current));
            current_chars = CHUNK_OVERHEAD;
            current_load = Load::default();
        }
        current_chars += usize::from(!current.is_empty()) + element.chars;
        current_load.count += load.count;
        current_load.size = current_load.size.saturating_add(load.size);
        current.push(position);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    (chunks, refused)
}

/// What one chunk sends: its input positions, their keys, its input text and its attachments.
pub(crate) struct ChunkInput {
    /// The chunk's input positions, in order.
    pub(crate) positions: Vec<usize>,
    /// The key of each position.
    pub(crate) keys: Vec<String>,
    /// The elements joined inside the brackets or braces.
    pub(crate) text: String,
    /// The elements' attachments, element after element, each element's in its own order.
    pub(crate) attachments: Vec<Attachment>,
    /// Where each element's text sits in `text`, in the order of `keys`.
    pub(crate) ranges: Vec<std::ops::Range<usize>>,
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
        let mut ranges = Vec::with_capacity(positions.len());
        let mut attachments = Vec::new();
        text.push(open);
        for &position in &positions {
            // A chunk holds only elements that serialized.
            let Ok(element) = &mut elements[position] else {
                continue;
            };
            if !keys.is_empty() {
                text.push(',');
            }
            let start = text.len();
            text.push_str(&std::mem::take(&mut element.text));
            ranges.push(start..text.len());
            keys.push(std::mem::take(&mut element.key));
            attachments.append(&mut element.attachments);
        }
        text.push(close);
        ChunkInput {
            positions,
            keys,
            text,
            attachments,
            ranges,
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
            attachments: Vec::new(),
        })
    }

    fn carrying(attachments: Vec<Attachment>) -> Result<Element, ResultIssue> {
        Ok(Element {
            key: String::new(),
            text: "x".repeat(10),
            chars: 10,
            attachments,
        })
    }

    fn pdf(size: usize) -> Attachment {
        Attachment::new(vec![0u8; size], "application/pdf")
    }

    const SMALL: RequestBudget = RequestBudget {
        source: "a test's",
        limits: crate::attachment::provider_limits::Limits {
            max_count: 3,
            max_image: 100,
            max_pdf: 100,
            max_total: 250,
            measure: crate::attachment::provider_limits::Measure::Raw,
        },
    };

    #[test]
    fn attachments_cut_chunks_by_count_and_by_size() {
        // Two attachments each: a chunk takes one element within 3 attachments a request.
        let elements: Vec<_> = (0..4).map(|_| carrying(vec![pdf(10), pdf(10)])).collect();
        let (chunks, refused) = plan_within(&elements, 10, 1000, &SMALL);
        assert!(refused.is_empty());
        assert_eq!(chunks, vec![vec![0], vec![1], vec![2], vec![3]]);
        // 100 bytes each: two fit within 250 bytes a request, a third does not.
        let elements: Vec<_> = (0..5).map(|_| carrying(vec![pdf(100)])).collect();
        let (chunks, _) = plan_within(&elements, 10, 1000, &SMALL);
        assert_eq!(chunks, vec![vec![0, 1], vec![2, 3], vec![4]]);
        // Elements without attachments are cut by count only.
        let elements: Vec<_> = (0..5).map(|_| carrying(Vec::new())).collect();
        let (chunks, _) = plan_within(&elements, 2, 1000, &SMALL);
        assert_eq!(chunks, vec![vec![0, 1], vec![2, 3], vec![4]]);
    }

    #[test]
    fn an_element_over_an_attachment_limit_is_refused_alone() {
        let elements = vec![
            carrying(vec![pdf(10)]),
            carrying(vec![pdf(101)]),
            carrying(vec![pdf(10); 4]),
            carrying(vec![pdf(10)]),
        ];
        let (chunks, refused) = plan_within(&elements, 10, 1000, &SMALL);
        assert_eq!(chunks, vec![vec![0, 3]]);
        assert_eq!(refused.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 2]);
        assert!(refused[0]
            .1
            .message
            .contains("limit of 100 bytes per PDF (a test's)"));
        assert!(refused[1]
            .1
            .message
            .contains("4 attachments, more than the 3"));
        let mut elements = elements;
        let input = ChunkInput::take(&mut elements, vec![0, 3], '[', ']');
        assert_eq!(input.attachments.len(), 2);
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

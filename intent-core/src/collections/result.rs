//! What a collection call returns: [`CollectionResult`], its [`ElementIssue`]s and [`ChunkRecord`]s,
//! and the [`Progress`] reported while it runs.

use crate::error::IntentError;
use crate::result::{AttemptRecord, IssueKind, ResultIssue, Usage};

/// A finding about one element of a collection: which element, and what is wrong with it.
///
/// The issue's `path` is a JSON pointer into the whole collection: `/3/sku` is the `sku` member of
/// the result for input index 3 (`map_each`), `/A-1/sku` that of key `A-1` (`map_values`, with
/// `~` and `/` in keys escaped as `~0` and `~1`).
///
/// ```
/// use intent_core::collections::ElementIssue;
/// use intent_core::{IssueKind, ResultIssue};
///
/// let issue = ElementIssue::new(3, "3", ResultIssue::at("/3", IssueKind::Shape, "No element answers this index."));
/// assert_eq!(issue.to_string(), "/3: No element answers this index.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ElementIssue {
    /// The element's position in the input (its index for `map_each`).
    pub position: usize,
    /// The element's key as the model saw it: the index for `map_each`, the key for `map_values`.
    pub key: String,
    /// The finding.
    pub issue: ResultIssue,
}

impl ElementIssue {
    /// A finding about the element at `position`.
    pub fn new(position: usize, key: impl Into<String>, issue: ResultIssue) -> Self {
        ElementIssue {
            position,
            key: key.into(),
            issue,
        }
    }
}

impl std::fmt::Display for ElementIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.issue.fmt(f)
    }
}

/// One chunk of a collection call: the elements it carried and every attempt made for it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChunkRecord {
    /// 1 for the first chunk, in input order.
    pub number: usize,
    /// The input positions of the chunk's elements, in order.
    pub positions: Vec<usize>,
    /// Every attempt made for the chunk, in order, with its raw output and findings.
    pub attempts: Vec<AttemptRecord>,
    /// The chunk's final findings: empty when an attempt passed.
    pub issues: Vec<ResultIssue>,
    /// Tokens and calls of the chunk's attempts.
    pub usage: Usage,
}

impl ChunkRecord {
    /// True when an attempt of the chunk passed every check.
    pub fn passed(&self) -> bool {
        self.issues.is_empty()
    }
}

/// How far a collection call has come, reported after each chunk ends (and once at the start).
///
/// ```
/// use intent_core::collections::Progress;
///
/// let progress = Progress { done: 40, total: 100, failed: 2, chunks_done: 2, chunks_total: 5 };
/// assert_eq!(progress.to_string(), "40/100 elements (2 failed), 2/5 chunks");
/// assert!(!progress.is_finished());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Progress {
    /// Elements whose chunk has ended (with or without a value), refused elements included.
    pub done: usize,
    /// Elements in the input.
    pub total: usize,
    /// Elements that ended without a value so far.
    pub failed: usize,
    /// Chunks that have ended.
    pub chunks_done: usize,
    /// Chunks in the call.
    pub chunks_total: usize,
}

impl Progress {
    /// True when every element has ended.
    pub fn is_finished(&self) -> bool {
        self.done >= self.total
    }
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} elements ({} failed), {}/{} chunks",
            self.done, self.total, self.failed, self.chunks_done, self.chunks_total
        )
    }
}

/// The outcome of `map_each` or `map_values`: a value or the issues per element, in input order,
/// every chunk's attempts, and the usage summed over every call.
///
/// `K` is the key type: `usize` (the index) for `map_each`, the map's key type for `map_values`.
/// A chunk that fails after its attempts does not discard the others: its elements have no value
/// and [`missing`](Self::missing) names them.
///
/// ```
/// use intent_core::prelude::*;
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let client = IntentClient::new(ScriptedProvider::new([
///     r#"{"value": [{"index": 0, "value": 3}, {"index": 1, "value": 5}]}"#,
/// ]));
/// let lengths = client.map_each::<u32>(&["red", "green"], "Count the letters.").await;
/// assert!(lengths.is_complete());
/// assert_eq!(lengths.values(), &[Some(3), Some(5)]);
/// assert_eq!(lengths.usage().calls, 1);
/// assert_eq!(lengths.into_result().unwrap(), vec![3, 5]);
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct CollectionResult<K, O> {
    pub(crate) keys: Vec<K>,
    pub(crate) values: Vec<Option<O>>,
    pub(crate) issues: Vec<ElementIssue>,
    pub(crate) chunks: Vec<ChunkRecord>,
    pub(crate) usage: Usage,
}

impl<K, O> CollectionResult<K, O> {
    /// The number of elements in the input.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when the input had no element.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// True when every element has a value.
    pub fn is_complete(&self) -> bool {
        self.values.iter().all(Option::is_some)
    }

    /// The keys, in input order (`0..len` for `map_each`).
    pub fn keys(&self) -> &[K] {
        &self.keys
    }

    /// The values, in input order; `None` where an element has no value.
    pub fn values(&self) -> &[Option<O>] {
        &self.values
    }

    /// The value of the element at `position`, when it has one.
    pub fn get(&self, position: usize) -> Option<&O> {
        self.values.get(position).and_then(Option::as_ref)
    }

    /// Each key with its value, in input order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, Option<&O>)> {
        self.keys.iter().zip(self.values.iter().map(Option::as_ref))
    }

    /// The keys of the elements with no value, in input order (the indexes for `map_each`).
    pub fn missing(&self) -> Vec<&K> {
        self.iter()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key)
            .collect()
    }

    /// The final findings about elements with no value, in input order: at least one per such
    /// element. Findings of attempts that were later corrected are in [`chunks`](Self::chunks).
    pub fn issues(&self) -> &[ElementIssue] {
        &self.issues
    }

    /// The final findings about the element at `position`.
    pub fn issues_for(&self, position: usize) -> impl Iterator<Item = &ResultIssue> {
        self.issues
            .iter()
            .filter(move |i| i.position == position)
            .map(|i| &i.issue)
    }

    /// Every chunk, in input order, with its attempts.
    pub fn chunks(&self) -> &[ChunkRecord] {
        &self.chunks
    }

    /// Every attempt of every chunk, chunk by chunk.
    pub fn attempts(&self) -> impl Iterator<Item = &AttemptRecord> {
        self.chunks.iter().flat_map(|c| c.attempts.iter())
    }

    /// Tokens and calls summed over every chunk's attempts.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The values, in input order; `None` where an element has no value.
    pub fn into_values(self) -> Vec<Option<O>> {
        self.values
    }

    /// Each key with its value, in input order.
    pub fn into_pairs(self) -> impl Iterator<Item = (K, Option<O>)> {
        self.keys.into_iter().zip(self.values)
    }

    /// The elements that have a value, collected into any map (or list of pairs).
    ///
    /// ```
    /// use std::collections::BTreeMap;
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": {"a": 1, "b": 2}}"#]));
    /// let words = BTreeMap::from([("a", "one"), ("b", "two")]);
    /// let numbers = client.map_values::<u8, _, _>(&words, "Give the number.").await;
    /// let numbers: BTreeMap<&str, u8> = numbers.into_map();
    /// assert_eq!(numbers["b"], 2);
    /// # });
    /// ```
    pub fn into_map<M: FromIterator<(K, O)>>(self) -> M {
        self.into_pairs()
            .filter_map(|(key, value)| value.map(|v| (key, v)))
            .collect()
    }

    /// Every value in input order, or [`IntentError::Failed`] with the findings when any element
    /// has no value.
    pub fn into_result(self) -> Result<Vec<O>, IntentError> {
        self.complete()?;
        Ok(self.values.into_iter().flatten().collect())
    }

    /// Every key with its value, collected into any map, or [`IntentError::Failed`] with the
    /// findings when any element has no value.
    pub fn into_map_result<M: FromIterator<(K, O)>>(self) -> Result<M, IntentError> {
        self.complete()?;
        Ok(self.into_map())
    }

    fn complete(&self) -> Result<(), IntentError> {
        if self.is_complete() {
            return Ok(());
        }
        let mut issues: Vec<ResultIssue> = self.issues.iter().map(|i| i.issue.clone()).collect();
        if issues.is_empty() {
            issues.push(ResultIssue::new(
                IssueKind::Limit,
                "Some elements ended without a value or a reported issue.",
            ));
        }
        Err(IntentError::Failed { issues })
    }
}

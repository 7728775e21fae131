//! Tables larger than memory: a stream of record batches read as a stream of rows, for
//! [`IntentClient::map_stream`](crate::IntentClient::map_stream).

use arrow_array::RecordBatch;
use futures::stream::{self, Stream, StreamExt};

use super::{Row, Table};

/// The rows of a stream of record batches (a Parquet or CSV reader's, say), in order, each an
/// input of its own for [`IntentClient::map_stream`](crate::IntentClient::map_stream), which
/// holds only the rows of the chunks in flight: a file of a million rows runs in the memory of
/// chunk size × concurrency rows and their batches.
///
/// A batch with a column of a type that has no JSON form is not dropped: each of its rows fails
/// on its own with the reason (naming the column and the type), and nothing is sent for it.
/// Messages name rows by their position in the whole stream.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, RecordBatch, StringArray};
/// use futures::StreamExt;
/// use intent_core::prelude::*;
/// use intent_core::table;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let batch = |words: Vec<&str>| {
///     RecordBatch::try_from_iter([("word", Arc::new(StringArray::from(words)) as ArrayRef)]).unwrap()
/// };
/// let batches = futures::stream::iter([batch(vec!["red", "green"]), batch(vec!["blue"])]);
/// let client = IntentClient::new(ScriptedProvider::new([
///     r#"{"value": [{"index": 0, "value": 3}, {"index": 1, "value": 5}, {"index": 2, "value": 4}]}"#,
/// ]));
/// let lengths: Vec<_> = client
///     .map_stream::<u32, _>(table::stream_rows(batches), "Count the letters of the word.")
///     .collect()
///     .await;
/// assert_eq!(lengths.len(), 3);
/// assert_eq!(lengths[2].1.as_ref().ok(), Some(&4));
/// # });
/// ```
pub fn stream_rows<S>(batches: S) -> impl Stream<Item = Row> + Send
where
    S: Stream<Item = RecordBatch> + Send,
{
    batches
        .scan(0usize, |next, batch| {
            let first = *next;
            *next += batch.num_rows();
            std::future::ready(Some(Table::checked(batch, first)))
        })
        .flat_map(|table| stream::iter(table.into_rows()))
}

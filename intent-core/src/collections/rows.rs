//! [`IntentClient::map_rows`]: the `map_each` of a table's rows.

use super::call::CollectionCall;
use crate::client::IntentClient;
use crate::intent::Intent;
use crate::table::{Row, Table};

impl IntentClient {
    /// Carries out `intent` on each row of `table`, answering one `O` per row, in row order: the
    /// [`map_each`](Self::map_each) of the rows, each sent as its JSON object (see
    /// [`table`](crate::table)), with the same chunking, concurrency, retries, progress and
    /// [`batch`](CollectionCall::batch) runs. Turn the result into a column with
    /// [`CollectionResult::to_arrow`](super::CollectionResult::to_arrow) (or `to_polars`).
    ///
    /// A table larger than memory is read as a stream of record batches instead:
    /// [`map_stream`](Self::map_stream) over [`table::stream_rows`](crate::table::stream_rows).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{ArrayRef, RecordBatch, StringArray};
    /// use intent_core::prelude::*;
    /// use intent_core::table::Table;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let batch = RecordBatch::try_from_iter([
    ///     ("ticket", Arc::new(StringArray::from(vec!["server down", "typo on page"])) as ArrayRef),
    /// ])
    /// .unwrap();
    /// let model = ScriptedProvider::new([r#"{"value": [{"index": 0, "value": true}, {"index": 1, "value": false}]}"#]);
    /// let client = IntentClient::new(model.clone());
    /// let urgent = client.map_rows::<bool>(&Table::from_arrow(&batch)?, "Is the ticket urgent?").await;
    /// assert_eq!(urgent.values(), &[Some(true), Some(false)]);
    /// assert!(model.requests()[0].user.contains(r#"{"index":1,"input":{"ticket":"typo on page"}}"#));
    /// # Ok::<(), IntentError>(())
    /// # }).unwrap();
    /// ```
    pub fn map_rows<'a, O: Intent>(
        &'a self,
        table: &Table,
        intent: &'a str,
    ) -> CollectionCall<'a, usize, O> {
        let rows: Vec<Row> = table.rows().collect();
        CollectionCall::each(self, &rows, intent)
    }
}

//! Tools: functions the model may call before it gives its typed answer.
//!
//! A [`Tool`] is a name, a description and an async handler of one argument type that derives
//! `Intent` (and `Deserialize`): the type's strict schema is the tool's parameters, and the
//! model's arguments are read and verified by the same reader as an answer, so a call whose
//! arguments do not read as the type (or break its member rules) is not run: the model is sent
//! the findings, each with its JSON path, as the tool's result, and may call again. Give tools to
//! a call with [`AiCall::tool`](crate::AiCall::tool) (repeatable) and bound them with
//! [`AiCall::max_tool_calls`](crate::AiCall::max_tool_calls) (8 by default).
//!
//! ```
//! use intent_core::prelude::*;
//! use intent_core::provider::ScriptedReply;
//! use intent_core::tool::ToolError;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Intent, Deserialize)]
//! struct Lookup { order_id: String }
//!
//! #[derive(Serialize)]
//! struct Order { status: &'static str, total_cents: u32 }
//!
//! #[derive(Intent, Deserialize, Debug)]
//! struct Decision { refund: bool, reason: String }
//!
//! let lookup = Tool::new("lookup_order", "Finds an order by its id.", |a: Lookup| async move {
//!     match a.order_id.as_str() {
//!         "A17" => Ok(Order { status: "lost in transit", total_cents: 4200 }),
//!         other => Err(ToolError::new(format!("no order {other}"))),
//!     }
//! });
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let model = ScriptedProvider::new([
//!     ScriptedReply::tool_calls([("lookup_order", serde_json::json!({"order_id": "A17"}))]),
//!     ScriptedReply::from(r#"{"value": {"refund": true, "reason": "The parcel was lost."}}"#),
//! ]);
//! let client = IntentClient::new(model.clone());
//! let decision = Decision::ai(&client, "Order A17 never arrived.", "Decide on a refund.")
//!     .tool(lookup)
//!     .await;
//! assert!(decision.value().unwrap().refund);
//! let calls = &decision.attempts()[0].tool_calls;
//! assert_eq!(calls[0].name, "lookup_order");
//! assert!(calls[0].output.contains("lost in transit"));
//! # });
//! ```

mod arguments;

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

pub use crate::toolbox::{Tool, ToolCallRecord, ToolError};

use crate::intent::Intent;
use crate::toolbox::{ToolDefinition, ToolFuture};

pub(crate) use arguments::panicked;

impl Tool {
    /// A tool named `name` (what the model calls it by: letters, digits, `_` and `-`), described
    /// for the model by `description`, run by `handler` on arguments read as an `A`.
    ///
    /// The handler's output is serialized to JSON for the model (a string output is sent as its
    /// text); an output that cannot be serialized goes back as an error. A handler that panics is
    /// caught, and the model told the tool failed.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::tool::ToolError;
    ///
    /// #[derive(Intent, serde::Deserialize)]
    /// struct Add { a: i64, b: i64 }
    ///
    /// let add = Tool::new("add", "Adds two integers.", |x: Add| async move { Ok::<_, ToolError>(x.a + x.b) });
    /// assert_eq!(add.definition().parameters["properties"]["a"]["type"], "integer");
    /// ```
    pub fn new<A, F, Fut, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Tool
    where
        A: Intent + DeserializeOwned + Send + 'static,
        F: Fn(A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
        R: Serialize,
    {
        let info = A::type_info();
        let (parameters, wrapped) = arguments::parameters(&info);
        let mut description = description.into();
        if parameters.get("properties").is_none() {
            // A type with no strict schema: the model reads its description instead.
            description.push_str("\nArguments: ");
            description.push_str(info.description());
        }
        let definition = Arc::new(ToolDefinition::new(name, description, parameters));
        let name = definition.name.clone();
        let start = move |text: &str| -> Result<ToolFuture, String> {
            let argument: A = arguments::read(&info, wrapped, text)
                .map_err(|findings| arguments::refused(&name, &findings))?;
            // A handler that panics before it returns its future is caught here; one that
            // panics while it runs, where the future is awaited.
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(argument))) {
                Ok(future) => Ok(Box::pin(
                    future.map(|output| output.and_then(|value| to_json(&value))),
                )),
                Err(panic) => {
                    let error = arguments::panicked(&*panic);
                    Ok(Box::pin(std::future::ready(Err(error))))
                }
            }
        };
        Tool {
            definition,
            start: Arc::new(start),
        }
    }
}

/// A handler's output as JSON, or the error the model is told of.
fn to_json<R: Serialize>(output: &R) -> Result<Value, ToolError> {
    serde_json::to_value(output).map_err(|error| {
        ToolError::new(format!(
            "the tool's output could not be written as JSON ({error}); the tool failed"
        ))
    })
}

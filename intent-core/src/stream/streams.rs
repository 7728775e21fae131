//! `AiCall::stream` and `AiCall::stream_elements`, and the streams they return.

use std::borrow::Cow;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt as _};
use serde::de::DeserializeOwned;

use super::steps::{Driver, Step};
use super::{ElementEvent, Partial, StreamEvent};
use crate::attempt;
use crate::call::AiCall;
use crate::intent::Intent;
use crate::read::partial::{ClosedElement, ElementBody};
use crate::read::{read_json, read_list_element};
use crate::relay::{Queue, Relay};
use crate::result::{AiResult, IssueKind, ResultIssue};
use crate::shape::TypeInfo;
use crate::trust::{At, Grounded, Grounds, ANSWER};

impl<'a, T> AiCall<'a, T>
where
    T: Intent + Send + 'a,
{
    /// Runs the call streamed: the answer so far as it arrives, every closed member verified,
    /// then the result `.await` would give. See [`crate::stream`].
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 42}"#]));
    /// let result = u32::ai(&client, "forty-two", "Read the number.").stream().finish().await;
    /// assert_eq!(result.value(), Some(&42));
    /// # });
    /// ```
    pub fn stream(self) -> AiStream<'a, T> {
        AiStream {
            driver: drive(self, false),
        }
    }
}

impl<'a, E> AiCall<'a, Vec<E>>
where
    E: DeserializeOwned + Send + 'a,
    Vec<E>: Intent,
{
    /// Runs the call streamed, yielding each element of the list as it closes and verifies, then
    /// the result `.await` would give. See [`ElementEvent`].
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new([r#"{"value": [3, 4]}"#]));
    /// let result = <Vec<u8>>::ai(&client, "3 4", "List the numbers.").stream_elements().finish().await;
    /// assert_eq!(result.value(), Some(&vec![3, 4]));
    /// # });
    /// ```
    pub fn stream_elements(self) -> ElementStream<'a, E> {
        // The members of an element that must come from the input are checked before it is
        // delivered, against the call's input.
        let info = <Vec<E>>::type_info();
        let grounded = Grounded::of(&info);
        let grounding = match &self.input {
            Ok(input) if !grounded.is_empty() => {
                Some(Arc::new((grounded.of_elements(), Grounds::of(input))))
            }
            _ => None,
        };
        ElementStream {
            driver: drive(self, true),
            grounding,
        }
    }
}

/// Starts nothing yet: the call runs as the stream is polled.
fn drive<'a, T: Intent + Send + 'a>(call: AiCall<'a, T>, elements: bool) -> Driver<'a, T> {
    let queue = Arc::new(Queue::default());
    let relay = queue.clone();
    let future = Box::pin(async move {
        let relay: &dyn Relay = &*relay;
        Box::new(attempt::run(call, Some(relay)).await)
    });
    Driver::new(T::type_info(), queue, future, elements)
}

/// The failure of a stream that ended without its result (it cannot: the call always ends with
/// one).
fn ended<T>() -> AiResult<T> {
    AiResult::failure(vec![ResultIssue::new(
        IssueKind::Provider,
        "The stream ended without a result.",
    )])
}

/// A streamed call: a [`Stream`] of [`StreamEvent`]s, from [`AiCall::stream`].
///
/// Dropping it cancels the call.
#[must_use = "a stream does nothing until it is polled"]
pub struct AiStream<'a, T> {
    driver: Driver<'a, T>,
}

impl<T> AiStream<'_, T> {
    /// Reads the stream to its end and returns the result, the same `.await` gives.
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let client = IntentClient::new(ScriptedProvider::new(["Hello"]));
    /// let result = String::ai(&client, "hi", "Greet.").stream().finish().await;
    /// assert_eq!(result.value().map(String::as_str), Some("Hello"));
    /// # });
    /// ```
    pub async fn finish(mut self) -> AiResult<T> {
        while let Some(event) = self.next().await {
            if let StreamEvent::Done(result) = event {
                return result;
            }
        }
        ended()
    }
}

impl<T> Stream for AiStream<'_, T> {
    type Item = StreamEvent<T>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.get_mut().driver.poll_map(cx, |step| match step {
            Step::Partial(view, attempt, restart) => {
                Some(StreamEvent::Partial(Partial::new(view, attempt, restart)))
            }
            Step::Retry(record) => Some(StreamEvent::Retry(*record)),
            Step::Done(result) => Some(StreamEvent::Done(*result)),
            Step::Element(..) | Step::Withdrawn(_) => None,
        })
    }
}

impl<T> fmt::Debug for AiStream<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AiStream").finish_non_exhaustive()
    }
}

/// The elements of a streamed list call: a [`Stream`] of [`ElementEvent`]s, from
/// [`AiCall::stream_elements`].
///
/// Dropping it cancels the call.
#[must_use = "a stream does nothing until it is polled"]
pub struct ElementStream<'a, E> {
    driver: Driver<'a, Vec<E>>,
    /// The element's members that must come from the input, and the input.
    grounding: Option<Arc<(Grounded<'static>, Grounds)>>,
}

impl<E: DeserializeOwned> ElementStream<'_, E> {
    /// Reads the stream to its end and returns the result, the same `.await` gives.
    pub async fn finish(mut self) -> AiResult<Vec<E>> {
        while let Some(event) = self.next().await {
            if let ElementEvent::Done(result) = event {
                return result;
            }
        }
        ended()
    }
}

impl<E: DeserializeOwned> Stream for ElementStream<'_, E> {
    type Item = ElementEvent<E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let grounding = this.grounding.as_deref();
        this.driver.poll_map(cx, |step| match step {
            Step::Element(closed, info) => Some(element_event(&info, closed, grounding)),
            Step::Withdrawn(count) => Some(ElementEvent::Withdrawn(count)),
            Step::Retry(record) => Some(ElementEvent::Retry(*record)),
            Step::Done(result) => Some(ElementEvent::Done(*result)),
            Step::Partial(..) => None,
        })
    }
}

/// The event of an element that closed: read into an `E`, or its findings; with `grounding`,
/// an element whose grounded members the input does not hold is not delivered.
fn element_event<E: DeserializeOwned>(
    info: &TypeInfo,
    closed: ClosedElement,
    grounding: Option<&(Grounded<'static>, Grounds)>,
) -> ElementEvent<E> {
    let index = closed.index;
    if let (Some((grounded, grounds)), Ok(body)) = (grounding, &closed.value) {
        let json = match body {
            ElementBody::Text(text) => read_json(text).map(|answer| Cow::Owned(answer.value)).ok(),
            ElementBody::Json(json) => Some(Cow::Borrowed(json)),
        };
        if let Some(json) = json {
            let missing = grounded.check_at(&json, grounds, &At::Element(&ANSWER, index));
            if !missing.is_empty() {
                return ElementEvent::Invalid(index, missing);
            }
        }
    }
    match closed.value {
        Ok(ElementBody::Text(text)) => match read_list_element::<E>(info, closed.index, &text) {
            Ok(element) => ElementEvent::Element(closed.index, element),
            Err(issues) => ElementEvent::Invalid(closed.index, issues),
        },
        Ok(ElementBody::Json(json)) => match serde_json::from_value::<E>(json) {
            Ok(element) => ElementEvent::Element(closed.index, element),
            Err(error) => ElementEvent::Invalid(
                closed.index,
                vec![ResultIssue::at(
                    format!("/value/{}", closed.index),
                    IssueKind::Shape,
                    error.to_string(),
                )],
            ),
        },
        Err(issues) => ElementEvent::Invalid(closed.index, issues),
    }
}

impl<E> fmt::Debug for ElementStream<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ElementStream").finish_non_exhaustive()
    }
}

//! [`ScriptedProvider`]: answers from a script, in order, and records what it was sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::{AiResponse, BoxFuture, FinishReason, Provider, ProviderError, ProviderErrorKind};
use crate::request::AiRequest;

/// One scripted answer.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ScriptedReply {
    /// A full reply.
    Response(AiResponse),
    /// A provider failure.
    Error(ProviderError),
    /// A reply that arrives after a delay (for deadlines and concurrency tests).
    Delayed(Duration, Box<ScriptedReply>),
}

impl ScriptedReply {
    /// A reply cut off at the token limit.
    pub fn truncated(text: impl Into<String>) -> Self {
        let mut response = AiResponse::new(text, ScriptedProvider::MODEL);
        response.finish_reason = FinishReason::Length;
        ScriptedReply::Response(response)
    }

    /// A refusal.
    pub fn refusal(message: impl Into<String>) -> Self {
        let mut response = AiResponse::new("", ScriptedProvider::MODEL);
        response.finish_reason = FinishReason::Refusal;
        response.refusal = Some(message.into());
        ScriptedReply::Response(response)
    }

    /// The same reply after `delay`.
    pub fn after(self, delay: Duration) -> Self {
        ScriptedReply::Delayed(delay, Box::new(self))
    }
}

impl From<&str> for ScriptedReply {
    fn from(text: &str) -> Self {
        ScriptedReply::Response(AiResponse::new(text, ScriptedProvider::MODEL))
    }
}

impl From<String> for ScriptedReply {
    fn from(text: String) -> Self {
        ScriptedReply::Response(AiResponse::new(text, ScriptedProvider::MODEL))
    }
}

impl From<AiResponse> for ScriptedReply {
    fn from(response: AiResponse) -> Self {
        ScriptedReply::Response(response)
    }
}

impl From<ProviderError> for ScriptedReply {
    fn from(error: ProviderError) -> Self {
        ScriptedReply::Error(error)
    }
}

#[derive(Debug, Default)]
struct Script {
    replies: VecDeque<ScriptedReply>,
    scripted: usize,
    requests: Vec<AiRequest>,
}

/// A provider that answers from a script, offline: the default for examples and tests.
///
/// Replies are given in order; each request is recorded. Clones share the script and the record.
/// When the script runs out, calls fail with [`ProviderErrorKind::ScriptExhausted`].
///
/// ```
/// use intent_core::prelude::*;
///
/// # tokio_test();
/// # fn tokio_test() {
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([r#"{"value": 42}"#]);
/// let client = IntentClient::new(model.clone());
/// let answer = u32::ai(&client, "six times seven", "Compute.").await;
/// assert_eq!(answer.value(), Some(&42));
/// assert!(model.requests()[0].user.contains("six times seven"));
/// # });
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScriptedProvider {
    script: Arc<Mutex<Script>>,
    name: Arc<str>,
}

impl ScriptedProvider {
    /// The model name scripted replies report.
    pub const MODEL: &'static str = "scripted";

    /// A provider that answers with `replies`, in order.
    pub fn new<R: Into<ScriptedReply>>(replies: impl IntoIterator<Item = R>) -> Self {
        let replies: VecDeque<ScriptedReply> = replies.into_iter().map(Into::into).collect();
        ScriptedProvider {
            script: Arc::new(Mutex::new(Script {
                scripted: replies.len(),
                replies,
                requests: Vec::new(),
            })),
            name: Arc::from("scripted"),
        }
    }

    /// The same script under another provider name (for fallback tests).
    pub fn with_name(mut self, name: &str) -> Self {
        self.name = Arc::from(name);
        self
    }

    /// Adds replies at the end of the script.
    pub fn push<R: Into<ScriptedReply>>(&self, replies: impl IntoIterator<Item = R>) {
        let mut script = self.lock();
        for reply in replies {
            script.replies.push_back(reply.into());
            script.scripted += 1;
        }
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<AiRequest> {
        self.lock().requests.clone()
    }

    /// The number of replies not yet given.
    pub fn remaining(&self) -> usize {
        self.lock().replies.len()
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        self.script
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Provider for ScriptedProvider {
    fn name(&self) -> &str {
        &self.name
    }

    fn default_model(&self) -> Option<&str> {
        Some(Self::MODEL)
    }

    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        let next = {
            let mut script = self.lock();
            script.requests.push(request.clone());
            let scripted = script.scripted;
            script.replies.pop_front().ok_or_else(|| {
                ProviderError::new(
                    ProviderErrorKind::ScriptExhausted,
                    format!("the script has no reply left ({scripted} were scripted)"),
                )
            })
        };
        let name = self.name.to_string();
        Box::pin(async move {
            let mut reply = next.map_err(|e| e.with_provider(name.clone()))?;
            loop {
                match reply {
                    ScriptedReply::Delayed(delay, inner) => {
                        tokio::time::sleep(delay).await;
                        reply = *inner;
                    }
                    ScriptedReply::Response(mut response) => {
                        if let Some(model) = &request.model {
                            response.model.clone_from(model);
                        }
                        return Ok(response);
                    }
                    ScriptedReply::Error(error) => return Err(error.with_provider(name)),
                }
            }
        })
    }
}

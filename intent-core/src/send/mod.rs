//! Sending a request: the named provider, or the primary and then each fallback in turn.
//!
//! On the way, two things may happen to an attempt that do not fail it, each recorded as a notice
//! on its record: a provider that refuses the strict schema gets the same attempt once more in
//! JSON-object mode ([`step_down`]), and the attempts after a failed one may go to a stronger
//! provider or model ([`escalate`]). A round that offers tools goes to a provider that cannot call
//! them under a response format without the format ([`tools_apart`]). The reasoning a reply
//! carries is kept apart from its answer ([`reasoning`]).

mod escalate;
mod reasoning;
mod step_down;
mod tools_apart;

use std::time::Instant;

pub(crate) use self::escalate::route;
pub(crate) use self::reasoning::reasoning_of;
pub(crate) use self::step_down::{schema_in_prompt, StepDowns};

use crate::client::IntentClient;
use crate::observe;
use crate::provider::{AiResponse, BoxFuture, Provider, ProviderError, ProviderErrorKind};
use crate::request::AiRequest;
use crate::result::ResultIssue;

/// A reply and how it came.
pub(crate) struct Sent {
    /// The name of the provider that answered.
    pub(crate) provider: String,
    /// Its reply (`usage.calls` at least 1).
    pub(crate) response: AiResponse,
    /// What happened on the way that did not fail the request (a schema step-down, an option the
    /// provider left out: [`Provider::notices`]).
    pub(crate) notices: Vec<ResultIssue>,
    /// True when the request went without its response format, because it offered tools to a
    /// provider that cannot call them under one ([`tools_apart`]).
    pub(crate) format_left_out: bool,
}

/// How one provider is asked for its reply: whole ([`Provider::complete`]), or streamed and
/// relayed as it comes (`relay::Streamed`). Fallback, rate limits and call counting are the same
/// whichever way.
pub(crate) trait Ask: Sync {
    fn ask<'a>(
        &'a self,
        provider: &'a dyn Provider,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>>;
}

/// The reply read whole.
struct Whole;

impl Ask for Whole {
    fn ask<'a>(
        &'a self,
        provider: &'a dyn Provider,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        provider.complete(request)
    }
}

/// Sends a request to the named provider, or to the primary and then each fallback in turn.
///
/// Returns the answering provider's name with its reply (its `usage.calls` at least 1), or the last
/// provider's error.
pub(crate) async fn send(
    client: &IntentClient,
    request: &AiRequest,
    named: Option<&str>,
) -> Result<(String, AiResponse), ProviderError> {
    send_within(client, request, named, None, &StepDowns::default())
        .await
        .map(|sent| (sent.provider, sent.response))
}

/// [`send`], with each provider's rate limiter waited for only until `deadline` (a longer wait
/// is a [`ProviderErrorKind::RateLimitWait`] error, and nothing is sent to that provider), and
/// the call's `step_downs`: a provider that refused the call's strict schema before is asked in
/// JSON-object mode straight away.
pub(crate) async fn send_within(
    client: &IntentClient,
    request: &AiRequest,
    named: Option<&str>,
    deadline: Option<Instant>,
    step_downs: &StepDowns,
) -> Result<Sent, ProviderError> {
    send_via(client, request, named, deadline, step_downs, &Whole).await
}

/// [`send_within`], each provider asked through `ask`.
pub(crate) async fn send_via(
    client: &IntentClient,
    request: &AiRequest,
    named: Option<&str>,
    deadline: Option<Instant>,
    step_downs: &StepDowns,
    ask: &dyn Ask,
) -> Result<Sent, ProviderError> {
    let ask = Asking {
        client,
        deadline,
        step_downs,
        ask,
    };
    let providers = client.providers();
    if let Some(name) = named {
        let Some(index) = providers.iter().position(|p| p.name() == name) else {
            let known: Vec<&str> = providers.iter().map(|p| p.name()).collect();
            return Err(ProviderError::new(
                ProviderErrorKind::Config,
                format!(
                    "no provider named \"{name}\"; this client has: {}",
                    known.join(", ")
                ),
            ));
        };
        return ask.complete_or_step_down(index, request).await;
    }
    let mut last_error = None;
    for (index, provider) in providers.iter().enumerate() {
        match ask.complete_or_step_down(index, request).await {
            Ok(answer) => return Ok(answer),
            Err(error) => {
                if let Some(next) = providers.get(index + 1) {
                    observe::fallback_taken(provider.name(), next.name(), &error);
                    tracing::warn!(
                        provider = provider.name(),
                        error = %error,
                        "provider failed; asking the fallback"
                    );
                }
                last_error = Some(error);
            }
        }
    }
    Err(last_error.unwrap_or_else(|| {
        ProviderError::new(ProviderErrorKind::Config, "the client has no provider")
    }))
}

/// How each provider of one send is asked.
struct Asking<'a> {
    client: &'a IntentClient,
    deadline: Option<Instant>,
    step_downs: &'a StepDowns,
    ask: &'a dyn Ask,
}

impl Asking<'_> {
    /// Asks the provider at `index`, without the request's format when it offers tools the
    /// provider cannot call under one ([`tools_apart`]).
    async fn complete_or_step_down(
        &self,
        index: usize,
        request: &AiRequest,
    ) -> Result<Sent, ProviderError> {
        let provider = &*self.client.providers()[index];
        let Some(apart) = tools_apart::without_format(provider, request) else {
            return self.with_step_down(index, request).await;
        };
        let mut sent = self.with_step_down(index, &apart).await?;
        sent.format_left_out = true;
        sent.notices.insert(0, tools_apart::notice(&sent.provider));
        Ok(sent)
    }

    /// Asks the provider at `index`; when it refuses the request's strict schema, asks it once
    /// more with the same request in JSON-object mode, says so in a notice, and remembers it for
    /// the rest of the call: a provider that refused the call's schema before is sent the
    /// JSON-object request at once, with the notice again.
    async fn with_step_down(
        &self,
        index: usize,
        request: &AiRequest,
    ) -> Result<Sent, ProviderError> {
        let (client, deadline, ask) = (self.client, self.deadline, self.ask);
        if let Some(refusal) = self.step_downs.refusal(index, request) {
            let stepped = step_down::json_object_request(request);
            let (provider, response) = complete(client, index, &stepped, deadline, ask).await?;
            let mut notices = vec![step_down::remembered_notice(&refusal)];
            notices.extend(client.providers()[index].notices(&stepped));
            return Ok(Sent {
                provider,
                response,
                notices,
                format_left_out: false,
            });
        }
        let refusal = match complete(client, index, request, deadline, ask).await {
            Ok((provider, response)) => {
                return Ok(Sent {
                    provider,
                    response,
                    notices: client.providers()[index].notices(request),
                    format_left_out: false,
                })
            }
            Err(error) if step_down::refuses_strict_schema(request, &error) => error,
            Err(error) => return Err(error),
        };
        tracing::warn!(
            provider = %refusal.provider,
            error = %refusal,
            "the provider refused the strict schema; sending the attempt in JSON-object mode"
        );
        self.step_downs.remember(index, &refusal);
        let stepped = step_down::json_object_request(request);
        let (provider, response) = complete(client, index, &stepped, deadline, ask).await?;
        let mut notices = vec![step_down::notice(&refusal)];
        notices.extend(client.providers()[index].notices(&stepped));
        Ok(Sent {
            provider,
            response,
            notices,
            format_left_out: false,
        })
    }
}

/// Asks the provider at `index`, within its rate limiter when it has one. A reply is counted as
/// one model call whatever usage its provider reported.
async fn complete(
    client: &IntentClient,
    index: usize,
    request: &AiRequest,
    deadline: Option<Instant>,
    ask: &dyn Ask,
) -> Result<(String, AiResponse), ProviderError> {
    let provider = &client.providers()[index];
    let name = provider.name().to_owned();
    let outcome = match client.rate_limiter(index) {
        None => ask.ask(&**provider, request).await,
        Some(limiter) => {
            let permit = limiter
                .acquire(request, deadline)
                .await
                .map_err(|e| e.with_provider(name.clone()))?;
            let outcome = ask.ask(&**provider, request).await;
            limiter.settle(permit, outcome.as_ref()).await;
            outcome
        }
    };
    match outcome {
        Ok(mut response) => {
            response.usage.calls = response.usage.calls.max(1);
            Ok((name, response))
        }
        Err(error) => {
            let error = if error.provider.is_empty() {
                error.with_provider(name)
            } else {
                error
            };
            Err(error)
        }
    }
}

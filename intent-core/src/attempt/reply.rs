//! An attempt's reply: from the cache (first attempts only) or from the providers, within the
//! call's deadline.

use std::time::Instant;

use tracing::Instrument;

use super::limits::Limits;
use super::Job;
use crate::cache::{CacheKey, CachedReply};
use crate::client::IntentClient;
use crate::observe;
use crate::provider::{AiResponse, ProviderError};
use crate::relay::Streamed;
use crate::request::AiRequest;
use crate::result::{ResultIssue, Usage};
use crate::send::{route, send_via, send_within};

/// A reply and where it came from.
pub(super) struct Answer {
    pub(super) response: AiResponse,
    /// The name of the provider that answered (or answered first, for a cached reply).
    pub(super) provider: String,
    pub(super) from_cache: bool,
    /// What happened on the way that did not fail the attempt (a schema step-down, an escalation).
    pub(super) notices: Vec<ResultIssue>,
    /// True when the request went without its response format, offering tools to a provider
    /// that cannot call them under one: the answer round may then be needed
    /// (`tools::rounds`).
    pub(super) format_left_out: bool,
}

/// How asking for an answer ended.
// A reply is the common case: boxing it would allocate once more on every call.
#[allow(clippy::large_enum_variant)]
pub(super) enum Answered {
    Reply(Answer),
    /// Every provider asked failed; the error is the last one's.
    Failed(ProviderError),
    /// The deadline came first.
    Deadline,
}

/// Asks for attempt `number`'s answer to `request`. A first attempt looks in the cache first and
/// leaves the key it used in `first_key`, for storing a reply that passes.
pub(super) async fn answer<T>(
    job: &Job<'_, '_, T>,
    limits: &Limits,
    request: &AiRequest,
    number: u32,
    first_key: &mut Option<CacheKey>,
    span: &tracing::Span,
) -> Answered {
    let (named, request, escalated) = route(job.options, number, request);
    let request = &*request;
    let asked = async {
        if number == 1 {
            if let Some(cache) = job.cache() {
                let key = cache_key(job.client, request, named);
                let hit = match cache.get(&key).await {
                    Ok(hit) => hit,
                    Err(error) => {
                        tracing::warn!(%error, "cache read failed; asking the model");
                        None
                    }
                };
                *first_key = Some(key);
                if let Some(hit) = hit {
                    observe::cache_hit(&hit.provider, &hit.model);
                    if let Some(relay) = job.relay {
                        relay.restart();
                        relay.text(&hit.text);
                    }
                    return Ok(from_cache(hit));
                }
            }
        }
        let (provider, model) = asked(job.client, request.model.as_deref(), named);
        observe::spans::record_asked(span, model);
        observe::request_sent(provider, model, request);
        let sent_at = Instant::now();
        let deadline = limits.deadline_at();
        let sent = match job.relay {
            None => send_within(job.client, request, named, deadline, &job.step_downs).await,
            Some(relay) => {
                let ask = Streamed(relay);
                send_via(job.client, request, named, deadline, &job.step_downs, &ask).await
            }
        };
        sent.map(|sent| {
            observe::reply_received(
                &sent.provider,
                &sent.response.model,
                &sent.response.text,
                &sent.response.finish_reason,
                sent.response.usage,
                sent_at.elapsed(),
            );
            Answer {
                response: sent.response,
                provider: sent.provider,
                from_cache: false,
                notices: escalated.into_iter().chain(sent.notices).collect(),
                format_left_out: sent.format_left_out,
            }
        })
    }
    .instrument(span.clone());
    match limits.within(asked).await {
        None => Answered::Deadline,
        Some(Ok(answer)) => Answered::Reply(answer),
        Some(Err(error)) => Answered::Failed(error),
    }
}

/// The cache key of a request sent to the named provider (the primary when none is named), for
/// the model it asks or the provider's default.
fn cache_key(client: &IntentClient, request: &AiRequest, named: Option<&str>) -> CacheKey {
    let (provider, model) = asked(client, request.model.as_deref(), named);
    CacheKey::for_request(provider, model, request)
}

/// The provider a request goes to first (the named one, else the primary) and the model it asks
/// for (`model`, else that provider's default); empty when not known.
pub(crate) fn asked<'c>(
    client: &'c IntentClient,
    model: Option<&'c str>,
    named: Option<&str>,
) -> (&'c str, &'c str) {
    let providers = client.providers();
    let provider = named
        .and_then(|name| providers.iter().find(|p| p.name() == name))
        .or_else(|| providers.first());
    let provider_name = provider.map(|p| p.name()).unwrap_or_default();
    let model = model
        .or_else(|| provider.and_then(|p| p.default_model()))
        .unwrap_or_default();
    (provider_name, model)
}

/// A cached reply as an answer; it cost nothing now.
fn from_cache(hit: CachedReply) -> Answer {
    let CachedReply {
        text,
        provider,
        model,
        ..
    } = hit;
    let mut response = AiResponse::new(text, model);
    response.usage = Usage::default();
    Answer {
        response,
        provider,
        from_cache: true,
        notices: Vec::new(),
        format_left_out: false,
    }
}

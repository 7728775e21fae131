//! Redirects: a provider request (its key, its prompt and its input) never leaves the origin it
//! was sent to.
//!
//! reqwest follows up to 10 redirects by default, resending a 307/308 request's body to wherever
//! `Location` points and dropping only `Authorization`, cookies and proxy credentials when the host
//! changes: an `x-api-key` (Anthropic), an `api-key` (Azure) or any custom key header would go
//! along, and the prompt and input would reach the other host in any case. So the client's policy
//! ([`policy`]) is:
//!
//! - to another origin (scheme, host or port differ from the request's): never followed. The
//!   3xx reply comes back to the transport, which fails the call with an error naming the status
//!   and the target ([`refusal`]); nothing is sent to the other origin, no key header, no body.
//! - within the origin, 307 and 308: followed (they keep the method and the body), up to
//!   [`MAX_REDIRECTS`] in a row. Every header goes along, the key included: it stays where it was
//!   sent.
//! - within the origin, 301, 302 and 303: refused as well. Clients turn them into a GET without
//!   the body (RFC 9110 §15.4), which no provider endpoint answers; the error names the address to
//!   set as the base URL instead.
//!
//! A refused redirect is a [`Config`](crate::provider::ProviderErrorKind::Config) error with the
//! 3xx status: the base URL needs changing, so it is not retried.

use reqwest::header::{HeaderMap, LOCATION};
use reqwest::redirect::{Attempt, Policy};
use reqwest::{StatusCode, Url};

use super::display_url;

/// The most same-origin 307/308 redirects followed for one request.
pub(crate) const MAX_REDIRECTS: usize = 5;

/// The client's redirect policy: same-origin 307 and 308 only.
pub(crate) fn policy() -> Policy {
    Policy::custom(decide)
}

fn decide(attempt: Attempt<'_>) -> reqwest::redirect::Action {
    let same_origin = attempt
        .previous()
        .first()
        .is_some_and(|first| first.origin() == attempt.url().origin());
    let keeps_the_request = matches!(
        attempt.status(),
        StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
    );
    if same_origin && keeps_the_request && attempt.previous().len() <= MAX_REDIRECTS {
        attempt.follow()
    } else {
        attempt.stop()
    }
}

/// Why a redirect the policy stopped was not followed, for the error: `status` came from `at`
/// (the last address requested) with `headers`; `sent_to` is the request's own endpoint.
pub(crate) fn refusal(status: StatusCode, headers: &HeaderMap, at: &Url, sent_to: &Url) -> String {
    let code = status.as_u16();
    let target = headers
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|location| at.join(location).ok());
    let Some(target) = target else {
        return format!(
            "HTTP {code}: the server answered with a redirect without a usable `Location`; \
             redirects are not followed without one; check the base URL"
        );
    };
    let shown = display_url(target.as_str());
    if target.origin() != sent_to.origin() {
        let host = target.host_str().unwrap_or("(no host)");
        return format!(
            "HTTP {code}: the server redirected the request to another origin, {shown} (host \
             {host}); it was not followed, since the request carries the API key, the prompt and \
             the input, which never leave the origin they were sent to; if that address is \
             really the provider's, set it as the base URL"
        );
    }
    if matches!(code, 307 | 308) {
        return format!(
            "HTTP {code}: more than {MAX_REDIRECTS} redirects in a row, the last to {shown}; set \
             the base URL to the address the provider answers at"
        );
    }
    format!(
        "HTTP {code}: the server redirected the request to {shown}; a {code} redirect is not \
         followed, since it would turn the POST into a GET without its body; set the base URL to \
         that address"
    )
}

//! What a fixture's replies are compared on: every difference between what our provider yielded
//! and what the recording holds, each said with the field and the values.

use intent_core::provider::{AiResponse, ProviderError, ProviderErrorKind};

use super::corpus::{Want, WantError};
use super::run::Outcome;

/// The differences between the replies read and the outcome wanted.
pub(super) fn compare_all(
    replies: &[Result<AiResponse, ProviderError>],
    outcome: &Outcome,
) -> Vec<String> {
    match outcome {
        Outcome::Reply(want) => compare(&replies[0], want),
        Outcome::Error(want) => compare_error(&replies[0], want),
        Outcome::Replies { each, all } => {
            let mut failures = Vec::new();
            let mut text = String::new();
            let mut reasoning: Vec<String> = Vec::new();
            let mut calls = Vec::new();
            for (i, (reply, want)) in replies.iter().zip(each).enumerate() {
                let reply = reply.as_ref().map(|reply| {
                    text.push_str(&reply.text);
                    calls.extend(reply.tool_calls.iter().cloned());
                    reasoning.extend(reply.reasoning.clone());
                    let mut reply = reply.clone();
                    reply.text.clear();
                    reply.reasoning = None;
                    reply
                });
                let reply = reply.map_err(Clone::clone);
                failures.extend(
                    compare(&reply, want)
                        .into_iter()
                        .map(|f| format!("stream {i}: {f}")),
                );
            }
            failures.extend(differs("the streams' text", &text, &all.text));
            if let Some(wanted) = &all.tool_calls {
                failures.extend(compare_calls(&calls, wanted));
            }
            let reasoning = (!reasoning.is_empty()).then(|| reasoning.join("\n\n"));
            failures.extend(differs(
                "the streams' reasoning",
                reasoning.as_deref().unwrap_or_default(),
                all.reasoning.as_deref().unwrap_or_default(),
            ));
            failures
        }
    }
}

/// The differences between a reply and what it must be.
fn compare(reply: &Result<AiResponse, ProviderError>, want: &Want) -> Vec<String> {
    let reply = match reply {
        Ok(reply) => reply,
        Err(error) => return vec![format!("no reply: {error} ({:?})", error.kind)],
    };
    let mut failures = Vec::new();
    failures.extend(differs("text", &reply.text, &want.text));
    match (&reply.reasoning, &want.reasoning) {
        (None, None) => {}
        (Some(got), Some(wanted)) => failures.extend(differs("reasoning", got, wanted)),
        (got, wanted) => failures.push(format!(
            "reasoning: got {}, want {}",
            excerpt_of(got.as_deref()),
            excerpt_of(wanted.as_deref())
        )),
    }
    let (got, wanted) = (&reply.usage, &want.usage);
    for (name, got, wanted) in [
        ("input_tokens", got.input_tokens, wanted.input_tokens),
        ("output_tokens", got.output_tokens, wanted.output_tokens),
        ("cached_tokens", got.cached_tokens, wanted.cached_tokens),
        (
            "reasoning_tokens",
            got.reasoning_tokens,
            wanted.reasoning_tokens,
        ),
        ("calls", u64::from(got.calls), u64::from(wanted.calls)),
    ] {
        if got != wanted {
            failures.push(format!("usage.{name}: got {got}, want {wanted}"));
        }
    }
    if reply.finish_reason != want.finish {
        failures.push(format!(
            "finish reason: got {:?}, want {:?}",
            reply.finish_reason, want.finish
        ));
    }
    if let Some(model) = &want.model {
        if &reply.model != model {
            failures.push(format!("model: got {:?}, want {model:?}", reply.model));
        }
    }
    if let Some(calls) = &want.tool_calls {
        failures.extend(compare_calls(&reply.tool_calls, calls));
    }
    failures
}

/// The differences between a reply's tool calls and the recorded ones: each call's name, id
/// (where the recording has one) and arguments, read as JSON.
pub(super) fn compare_calls(
    got: &[intent_core::provider::ToolCall],
    want: &[(String, String, serde_json::Value)],
) -> Vec<String> {
    let mut failures = Vec::new();
    if got.len() != want.len() {
        failures.push(format!(
            "tool calls: got {} ({got:?}), want {} ({want:?})",
            got.len(),
            want.len()
        ));
        return failures;
    }
    for (i, (call, (id, name, arguments))) in got.iter().zip(want).enumerate() {
        if &call.name != name {
            failures.push(format!(
                "tool call {i}: name {:?}, want {name:?}",
                call.name
            ));
        }
        if !id.is_empty() && &call.id != id {
            failures.push(format!("tool call {i}: id {:?}, want {id:?}", call.id));
        }
        let read: Result<serde_json::Value, _> = match call.arguments.trim() {
            "" => Ok(serde_json::json!({})),
            text => serde_json::from_str(text),
        };
        match read {
            Ok(value) if &value == arguments => {}
            Ok(value) => failures.push(format!(
                "tool call {i}: arguments {value}, want {arguments}"
            )),
            Err(error) => failures.push(format!(
                "tool call {i}: arguments {:?} are not JSON ({error})",
                call.arguments
            )),
        }
    }
    failures
}

/// The differences between an error and the recorded one: its message, whole, and its kind.
fn compare_error(reply: &Result<AiResponse, ProviderError>, want: &WantError) -> Vec<String> {
    let error = match reply {
        Ok(reply) => {
            return vec![format!(
                "a reply ({:?}, finish {:?}) where the recording is an error: {}",
                excerpt(&reply.text),
                reply.finish_reason,
                want.message
            )]
        }
        Err(error) => error,
    };
    let mut failures = Vec::new();
    if !error.message.contains(&want.message) {
        failures.push(format!(
            "the error's message {:?} does not hold the vendor's {:?}",
            error.message, want.message
        ));
    }
    let kinds: &[ProviderErrorKind] = match want.status {
        // Said by the body after the stream began, or by the status.
        429 => &[
            ProviderErrorKind::QuotaExhausted,
            ProviderErrorKind::StreamBroken,
        ],
        _ => &[
            ProviderErrorKind::InvalidRequest,
            ProviderErrorKind::StreamBroken,
        ],
    };
    if !kinds.contains(&error.kind) {
        failures.push(format!(
            "the error's kind: got {:?}, want one of {kinds:?}",
            error.kind
        ));
    }
    if let Some(kind) = &want.kind {
        if !error.message.contains(kind.as_str()) {
            failures.push(format!(
                "the error's message {:?} does not name {kind:?}",
                error.message
            ));
        }
    }
    failures
}

/// Where two texts first differ, with a little of each around it.
fn differs(what: &str, got: &str, wanted: &str) -> Option<String> {
    if got == wanted {
        return None;
    }
    let at = got
        .char_indices()
        .zip(wanted.chars())
        .find(|((_, a), b)| a != b)
        .map_or(got.len().min(wanted.len()), |((i, _), _)| i);
    let from = at.saturating_sub(20);
    let near = |text: &str| {
        let start = (from..=at.min(text.len()))
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        excerpt(&text[start.min(text.len())..])
    };
    Some(format!(
        "{what} differs at byte {at} (got {} bytes, want {}): got {:?}, want {:?}",
        got.len(),
        wanted.len(),
        near(got),
        near(wanted)
    ))
}

fn excerpt(text: &str) -> String {
    let mut excerpt: String = text.chars().take(60).collect();
    if excerpt.len() < text.len() {
        excerpt.push('…');
    }
    excerpt
}

fn excerpt_of(text: Option<&str>) -> String {
    text.map_or("none".to_owned(), |t| format!("{:?}", excerpt(t)))
}

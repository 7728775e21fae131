//! Prompt caching (`AiRequest::prompt_caching`): what each provider is sent so that the stable
//! prefix of a prompt (the system message, the schema, the intent) is served from its cache.
//!
//! Wire facts (checked against the vendors' references, December 2026):
//!
//! - Anthropic caches the prefix up to a block marked `cache_control: {"type": "ephemeral"}`
//!   (5 minutes by default), in the order tools, system, messages, with at most 4 marks; `system`
//!   takes a list of `{"type": "text", "text", "cache_control"}` blocks for that. A prefix shorter
//!   than the model's minimum (1024 to 4096 tokens) is silently not cached. Usage reports
//!   `cache_creation_input_tokens` and `cache_read_input_tokens` apart from `input_tokens`.
//!   Only the system block is marked: the prompt's examples follow its input (the prompt's
//!   sections are intent, input, output requirements, examples), so a mark after them would
//!   cover the input too and no other call would share that prefix.
//! - OpenAI (Chat Completions and Responses) caches prompts of 1024 tokens or more by itself;
//!   `prompt_cache_key` ("used by OpenAI to cache responses for similar requests to optimize your
//!   cache hit rates; replaces the `user` field") routes requests with the same key to the same
//!   cache. The key is made here from the request's stable prefix, so calls that share it share a
//!   key, and nothing of the prompt itself is sent twice. Usage reports
//!   `prompt_tokens_details.cached_tokens` (`input_tokens_details.cached_tokens` on Responses).
//! - Gemini caches implicitly (2.5 models and later) and reports `cachedContentTokenCount`;
//!   explicit caches are separate resources (`cachedContents`) this library does not create.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::request::AiRequest;

/// Anthropic's `system`: the plain text, or one text block marked for caching.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum AnthropicSystem<'a> {
    Text(&'a str),
    Cached([CachedText<'a>; 1]),
}

#[derive(Serialize)]
pub(crate) struct CachedText<'a> {
    r#type: &'static str,
    text: &'a str,
    cache_control: CacheControl,
}

#[derive(Serialize)]
struct CacheControl {
    r#type: &'static str,
}

impl<'a> AnthropicSystem<'a> {
    /// The `system` of `request`, none when it is empty; a cached block when it asks for caching.
    pub(crate) fn of(request: &'a AiRequest) -> Option<Self> {
        let text = request.system.as_str();
        if text.is_empty() {
            return None;
        }
        Some(if request.prompt_caching {
            AnthropicSystem::Cached([CachedText {
                r#type: "text",
                text,
                cache_control: CacheControl {
                    r#type: "ephemeral",
                },
            }])
        } else {
            AnthropicSystem::Text(text)
        })
    }
}

/// The user message's part before its input: the intent, the same for every call of a call site.
const INPUT_HEADING: &str = "\n\n## Input";

/// OpenAI's `prompt_cache_key` for `request`, when it asks for caching: `intent-` and 32 hex digits
/// of a SHA-256 of its stable prefix (the system message, the schema's name and text, and the
/// user message up to its input), which names the prefix without sending it again.
pub(crate) fn openai_cache_key(request: &AiRequest) -> Option<String> {
    if !request.prompt_caching {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(request.system.as_bytes());
    hasher.update([0]);
    if let Some(schema) = &request.schema {
        hasher.update(request.schema_name.as_bytes());
        hasher.update([0]);
        hasher.update(schema.json().as_bytes());
    }
    hasher.update([0]);
    let user = request.user.as_str();
    let intent = user.find(INPUT_HEADING).map_or(user, |end| &user[..end]);
    hasher.update(intent.as_bytes());
    let digest = hasher.finalize();
    let mut key = String::with_capacity(7 + 32);
    key.push_str("intent-");
    for byte in &digest[..16] {
        key.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        key.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(system: &str, user: &str) -> AiRequest {
        let mut request = AiRequest::new(system, user);
        request.prompt_caching = true;
        request
    }

    #[test]
    fn the_key_names_the_stable_prefix_and_not_the_input() {
        let one = openai_cache_key(&request("sys", "## Intent\nSum.\n\n## Input (text)\n1 2"));
        let two = openai_cache_key(&request("sys", "## Intent\nSum.\n\n## Input (text)\n3 4"));
        let other = openai_cache_key(&request("sys", "## Intent\nCount.\n\n## Input (text)\n1"));
        let key = one.clone().unwrap();
        assert!(key.starts_with("intent-") && key.len() == 39, "{key}");
        assert_eq!(one, two);
        assert_ne!(one, other);
        assert_eq!(openai_cache_key(&AiRequest::new("sys", "u")), None);
    }

    #[test]
    fn anthropic_marks_the_system_block_only_when_asked() {
        let cached = serde_json::to_value(AnthropicSystem::of(&request("sys", "u"))).unwrap();
        assert_eq!(
            cached,
            serde_json::json!([{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}])
        );
        let plain = serde_json::to_value(AnthropicSystem::of(&AiRequest::new("sys", "u"))).unwrap();
        assert_eq!(plain, serde_json::json!("sys"));
        assert!(AnthropicSystem::of(&request("", "u")).is_none());
    }
}

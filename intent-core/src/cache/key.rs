//! [`CacheKey`]: a hash of everything that shapes a reply.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::request::{AiRequest, ResponseFormat};

/// The hex SHA-256 of a request's reply-shaping parts. It never includes an API key.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CacheKey(String);

impl CacheKey {
    /// The key of a request sent to `provider`, answered by `model`.
    ///
    /// ```
    /// use intent_core::cache::CacheKey;
    /// use intent_core::AiRequest;
    ///
    /// let request = AiRequest::new("system", "user");
    /// let a = CacheKey::for_request("openai", "gpt-4o-mini", &request);
    /// let mut warmer = request.clone();
    /// warmer.temperature = Some(0.7);
    /// assert_ne!(a, CacheKey::for_request("openai", "gpt-4o-mini", &warmer));
    /// let mut thinking = request.clone();
    /// thinking.thinking_budget = Some(2048);
    /// assert_ne!(a, CacheKey::for_request("openai", "gpt-4o-mini", &thinking));
    /// assert_eq!(a.as_str().len(), 64);
    /// ```
    pub fn for_request(provider: &str, model: &str, request: &AiRequest) -> CacheKey {
        let format = match request.format {
            ResponseFormat::Text => "text",
            ResponseFormat::JsonObject => "json_object",
            ResponseFormat::JsonSchema => "json_schema",
        };
        let schema = request
            .schema
            .as_ref()
            .map(|s| s.json())
            .unwrap_or_default();
        let max_tokens = request
            .max_output_tokens
            .map(|t| t.to_string())
            .unwrap_or_default();
        let temperature = request
            .temperature
            .map(|t| t.to_bits().to_string())
            .unwrap_or_default();
        // Reasoning settings are added only when set, so the keys of requests without them stay
        // what they were.
        let effort = request
            .reasoning_effort
            .map(|e| format!("reasoning_effort={e}"));
        let budget = request
            .thinking_budget
            .map(|b| format!("thinking_budget={b}"));
        // Each attachment by its media type, settings and the hash of its bytes (or URL), also
        // only when there are any.
        let attachments: Vec<String> = request
            .attachments
            .iter()
            .map(crate::attachment::cache_part)
            .collect();
        let sampling = request.sampling_key();
        // The tools offered and the rounds so far (a cassette replays each round by it), also
        // only when there are any.
        let tools = request.tools.as_ref().map(|tools| {
            let mut part = String::from("tools=");
            part.push_str(&serde_json::to_string(&**tools).unwrap_or_default());
            part
        });
        CacheKey::from_parts(
            [
                "intent-cache-v1",
                provider,
                model,
                request.system.as_str(),
                request.user.as_str(),
                format,
                &request.schema_name,
                &schema,
                &max_tokens,
                &temperature,
            ]
            .into_iter()
            .chain(effort.as_deref())
            .chain(budget.as_deref())
            .chain(attachments.iter().map(String::as_str))
            .chain(sampling.as_deref())
            .chain(tools.as_deref()),
        )
    }

    /// The key of arbitrary parts, each length-prefixed so no two lists collide.
    pub fn from_parts<'a>(parts: impl IntoIterator<Item = &'a str>) -> CacheKey {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        let digest = hasher.finalize();
        let mut hex = String::with_capacity(64);
        for byte in digest {
            hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
            hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
        }
        CacheKey(hex)
    }

    /// The key as 64 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CacheKey({})", &self.0[..12.min(self.0.len())])
    }
}

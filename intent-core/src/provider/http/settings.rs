//! The settings every [`HttpProvider`] has, whatever its vendor, as consuming `with_*` methods
//! and getters: where it sends (base URL, model, name) and how (timeouts, retries, limits); and
//! the base URL and model a vendor's `from_env` reads.

use std::time::Duration;

use super::{HttpProvider, Vendor};
use crate::error::IntentError;
use crate::provider::transport::{check_base_url, ApiKey, Prepared, Transport};
use crate::provider::RetryPolicy;

impl<V> HttpProvider<V> {
    /// The base URL: every endpoint of the provider is under it (see its `endpoint`). A base URL
    /// that is not an absolute http(s) URL is refused when sending.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("").with_base_url("http://localhost:11434/v1/");
    /// assert_eq!(provider.endpoint(), "http://localhost:11434/v1/chat/completions");
    /// let anthropic = intent_core::provider::AnthropicProvider::new("k").with_base_url("http://127.0.0.1:9000/");
    /// assert_eq!(anthropic.endpoint(), "http://127.0.0.1:9000/v1/messages");
    /// ```
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.prepared = Prepared::default();
        self.base_url = base_url.into();
        self
    }

    /// The model asked when a request names none. (A Gemini model name may start with
    /// `models/`, or name a tuned model as `tunedModels/NAME`.)
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("").with_model("gpt-4.1-mini");
    /// assert_eq!(provider.model(), "gpt-4.1-mini");
    /// ```
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// The provider's name, as `AiRequestOptions::provider` names it (`openai`, `anthropic` and
    /// `gemini` by default).
    ///
    /// ```
    /// use intent_core::provider::{OpenAiProvider, Provider};
    /// assert_eq!(OpenAiProvider::new("").with_name("ollama").name(), "ollama");
    /// ```
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The base URL.
    ///
    /// ```
    /// use intent_core::provider::GeminiProvider;
    /// assert_eq!(GeminiProvider::new("k").base_url(), "https://generativelanguage.googleapis.com");
    /// ```
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model asked when a request names none.
    ///
    /// ```
    /// use intent_core::provider::AnthropicProvider;
    /// assert_eq!(AnthropicProvider::new("k").model(), "claude-sonnet-4-5");
    /// ```
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The timeout for one HTTP request, from connecting until the reply body is read
    /// (600 s by default). A request past it is a timeout, retried under the retry policy.
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::new("key").with_timeout(Duration::from_secs(30));
    /// assert_eq!(provider.timeout(), Duration::from_secs(30));
    /// ```
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.transport.set_timeout(timeout);
        self
    }

    /// The timeout for opening a connection (10 s by default).
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::new("key").with_connect_timeout(Duration::from_secs(2));
    /// # let _ = provider;
    /// ```
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.transport.set_connect_timeout(timeout);
        self
    }

    /// How many times a transport fault is retried after the first try (2 by default).
    ///
    /// ```
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::new("key").with_max_retries(5);
    /// assert_eq!(provider.retry_policy().max_retries, 5);
    /// ```
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.transport.retry.max_retries = retries;
        self
    }

    /// The whole retry policy: retries, backoff and the longest server delay honoured.
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::provider::{OpenAiProvider, RetryPolicy};
    ///
    /// let policy = RetryPolicy { initial_backoff: Duration::from_millis(100), ..RetryPolicy::default() };
    /// let provider = OpenAiProvider::new("key").with_retry_policy(policy);
    /// assert_eq!(provider.retry_policy(), policy);
    /// ```
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.transport.retry = policy;
        self
    }

    /// The largest reply body read, in bytes (16 MiB by default); a larger one is an error.
    ///
    /// ```
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::new("key").with_max_response_bytes(1 << 20);
    /// # let _ = provider;
    /// ```
    pub fn with_max_response_bytes(mut self, bytes: usize) -> Self {
        self.transport.max_response_bytes = bytes;
        self
    }

    /// The longest wait for the next event of a streamed reply once it has begun (120 s
    /// by default); a server silent for longer breaks the stream. An event or a comment
    /// resets it, a single byte does not. The wait for the first byte is bounded by
    /// [`with_timeout`](Self::with_timeout) alone, as is the whole stream.
    ///
    /// ```
    /// use std::time::Duration;
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::new("key").with_idle_timeout(Duration::from_secs(30));
    /// assert_eq!(provider.idle_timeout(), Duration::from_secs(30));
    /// ```
    pub fn with_idle_timeout(mut self, timeout: Duration) -> Self {
        self.transport.idle_timeout = timeout;
        self
    }

    /// The largest event of a streamed reply, in bytes (4 MiB by default); a larger one
    /// stops the stream with an error. The whole stream is bounded by
    /// [`with_max_response_bytes`](Self::with_max_response_bytes).
    ///
    /// ```
    /// use intent_core::provider::OpenAiProvider;
    ///
    /// let provider = OpenAiProvider::new("key").with_max_event_bytes(1 << 20);
    /// # let _ = provider;
    /// ```
    pub fn with_max_event_bytes(mut self, bytes: usize) -> Self {
        self.transport.max_event_bytes = bytes;
        self
    }

    /// The longest wait for the next event of a streamed reply.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("key");
    /// assert_eq!(provider.idle_timeout().as_secs(), 120);
    /// ```
    pub fn idle_timeout(&self) -> Duration {
        self.transport.idle_timeout
    }

    /// The timeout for one HTTP request.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("key");
    /// assert_eq!(provider.timeout().as_secs(), 600);
    /// ```
    pub fn timeout(&self) -> Duration {
        self.transport.timeout()
    }

    /// The retry policy for transport faults.
    ///
    /// ```
    /// let provider = intent_core::provider::OpenAiProvider::new("key");
    /// assert_eq!(provider.retry_policy().max_retries, 2);
    /// ```
    pub fn retry_policy(&self) -> RetryPolicy {
        self.transport.retry
    }
}

/// A vendor's fixed facts: its name, default base URL and model, and the variables its key is
/// read from. The name, in capitals, is also the prefix of the variables `from_env` reads beside
/// the key's (`ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`).
pub(crate) struct Defaults {
    name: &'static str,
    base_url: &'static str,
    model: &'static str,
    /// The key's variables, the first that is set taken.
    keys: &'static [&'static str],
    /// Whether the vendor may go without a key when its base URL names another server (a local
    /// one, a proxy that adds its own).
    keyless: bool,
}

impl Defaults {
    /// A vendor named `name` at `base_url` asking `model`, its key read from no variable yet.
    pub(crate) const fn new(
        name: &'static str,
        base_url: &'static str,
        model: &'static str,
    ) -> Self {
        Defaults {
            name,
            base_url,
            model,
            keys: &[],
            keyless: false,
        }
    }

    /// The variables the key is read from, the first that is set taken.
    pub(crate) const fn keys(mut self, keys: &'static [&'static str]) -> Self {
        self.keys = keys;
        self
    }

    /// The vendor may go without a key when its base URL names another server.
    pub(crate) const fn keyless(mut self) -> Self {
        self.keyless = true;
        self
    }

    /// The prefix of the base URL's and model's variables: the name in capitals.
    fn prefix(&self) -> String {
        self.name.to_ascii_uppercase()
    }

    /// The error when no key is set, naming the variables to set.
    fn missing(&self) -> IntentError {
        let mut message = match self.keys {
            [one] => format!("{one} is not set"),
            [first, second] => format!("neither {first} nor {second} is set"),
            many => format!("none of {} is set", many.join(", ")),
        };
        if self.keyless {
            let which = if self.keys.len() == 1 { "it" } else { "one" };
            message.push_str(&format!(
                "; set {which}, or set {}_BASE_URL to a server that needs no key",
                self.prefix()
            ));
        }
        IntentError::Config(message)
    }
}

/// A provider of `V` with its defaults and `key`.
pub(crate) fn with_defaults<V: Vendor + Default>(key: impl Into<String>) -> HttpProvider<V> {
    let Defaults {
        name,
        base_url,
        model,
        ..
    } = V::DEFAULTS;
    HttpProvider {
        vendor: V::default(),
        name: name.to_owned(),
        base_url: base_url.to_owned(),
        model: model.to_owned(),
        key: ApiKey::new(key),
        transport: Transport::default(),
        prepared: Prepared::default(),
        cloud: None,
    }
}

/// A provider of `V` configured from the variables `var` reads (see [`Defaults`]): the key, then
/// the base URL and model over the defaults `new` gives.
pub(crate) fn from_vars<V: Vendor>(
    new: impl FnOnce(String) -> HttpProvider<V>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<HttpProvider<V>, IntentError> {
    let env = V::DEFAULTS;
    let key = env.keys.iter().find_map(|name| var(name));
    if key.is_none() && !env.keyless {
        return Err(env.missing());
    }
    let prefix = env.prefix();
    let base_var = format!("{prefix}_BASE_URL");
    let endpoint = EnvEndpoint::read(&var, &base_var, &format!("{prefix}_MODEL"))?;
    if key.is_none() && endpoint.base_url.is_none() {
        return Err(env.missing());
    }
    let mut provider = new(key.unwrap_or_default());
    endpoint.apply(&mut provider.base_url, &mut provider.model);
    Ok(provider)
}

/// The base URL and model a provider reads from its environment variables, the base URL checked.
struct EnvEndpoint {
    /// The base URL variable's value, when set.
    base_url: Option<String>,
    /// The model variable's value, when set.
    model: Option<String>,
}

impl EnvEndpoint {
    /// Reads `base_var` and `model_var` with `var`; a base URL that is not http(s) is an error
    /// naming its variable.
    fn read(
        var: impl Fn(&str) -> Option<String>,
        base_var: &str,
        model_var: &str,
    ) -> Result<EnvEndpoint, crate::IntentError> {
        let base_url = var(base_var);
        if let Some(base_url) = &base_url {
            check_base_url(base_url)
                .map_err(|e| crate::IntentError::Config(format!("{base_var}: {e}")))?;
        }
        Ok(EnvEndpoint {
            base_url,
            model: var(model_var),
        })
    }

    /// Sets what was read over a provider's defaults.
    fn apply(self, base_url: &mut String, model: &mut String) {
        if let Some(value) = self.base_url {
            *base_url = value;
        }
        if let Some(value) = self.model {
            *model = value;
        }
    }
}

/// An environment variable's value, `None` when unset or blank.
pub(crate) fn env_var(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Checks that building a provider failed with an error that says each of `says`, for the
/// clouds' tests.
#[cfg(all(test, any(feature = "bedrock", feature = "vertex")))]
pub(crate) fn assert_refused<T: std::fmt::Debug>(built: Result<T, IntentError>, says: &[&str]) {
    let error = built.unwrap_err().to_string();
    for said in says {
        assert!(error.contains(said), "{error}");
    }
}

/// The variables of `pairs`, as `from_env` would read them, for the clouds' tests.
#[cfg(all(test, any(feature = "bedrock", feature = "vertex")))]
pub(crate) fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        pairs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

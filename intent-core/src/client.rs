//! [`IntentClient`]: the providers, options and cache every call of a program shares.

use std::fmt;
use std::sync::Arc;

use crate::cache::Cache;
use crate::error::IntentError;
use crate::observe::{Observer, Observers};
use crate::options::{AiRequestOptions, IntentClientOptions};
use crate::provider::Provider;
use crate::ratelimit::{RateLimit, RateLimiter, RateLimiters};

/// The entry point: a primary provider, optional fallbacks, and options. Cheap to clone; clones
/// share everything.
///
/// ```
/// use intent_core::prelude::*;
///
/// let client = IntentClient::builder()
///     .provider(ScriptedProvider::new(["{\"value\": 1}"]))
///     .fallback(ScriptedProvider::new(["{\"value\": 2}"]).with_name("backup"))
///     .options(IntentClientOptions { max_attempts: 2, ..Default::default() })
///     .build()
///     .unwrap();
/// assert_eq!(client.provider_names(), vec!["scripted", "backup"]);
/// ```
#[derive(Clone)]
pub struct IntentClient {
    inner: Arc<ClientInner>,
}

pub(crate) struct ClientInner {
    pub(crate) providers: Vec<Arc<dyn Provider>>,
    pub(crate) options: IntentClientOptions,
    /// The options every call starts from, under its intent file's and its own.
    pub(crate) default_options: AiRequestOptions,
    pub(crate) cache: Option<Arc<dyn Cache>>,
    /// Each provider's rate limiter, in provider order.
    pub(crate) rate_limiters: RateLimiters,
    pub(crate) observers: Observers,
}

impl fmt::Debug for IntentClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntentClient")
            .field("providers", &self.provider_names())
            .field("options", &self.inner.options)
            .finish()
    }
}

impl IntentClient {
    /// A client with one provider and default options.
    pub fn new(provider: impl Provider + 'static) -> Self {
        IntentClient {
            inner: Arc::new(ClientInner {
                providers: vec![Arc::new(provider)],
                options: IntentClientOptions::default(),
                default_options: AiRequestOptions::default(),
                cache: None,
                rate_limiters: RateLimiters::default(),
                observers: Observers::default(),
            }),
        }
    }

    /// A builder for a client with fallbacks and options.
    pub fn builder() -> IntentClientBuilder {
        IntentClientBuilder::default()
    }

    /// The client's options.
    pub fn options(&self) -> &IntentClientOptions {
        &self.inner.options
    }

    /// The request options every call of this client starts from (see
    /// [`IntentClientBuilder::default_options`]).
    ///
    /// ```
    /// use intent_core::prelude::*;
    ///
    /// let client = IntentClient::new(ScriptedProvider::new(["{\"value\": 1}"]));
    /// assert_eq!(client.default_options(), &AiRequestOptions::default());
    /// ```
    pub fn default_options(&self) -> &AiRequestOptions {
        &self.inner.default_options
    }

    /// The providers' names, primary first.
    pub fn provider_names(&self) -> Vec<&str> {
        self.inner.providers.iter().map(|p| p.name()).collect()
    }

    pub(crate) fn providers(&self) -> &[Arc<dyn Provider>] {
        &self.inner.providers
    }

    /// The rate limiter of the provider at `index`, when it has one.
    pub(crate) fn rate_limiter(&self, index: usize) -> Option<&RateLimiter> {
        self.inner.rate_limiters.get(index)
    }

    /// The client's reply cache, when it has one.
    pub fn cache(&self) -> Option<&dyn Cache> {
        self.inner.cache.as_deref()
    }

    /// The client's observers.
    pub(crate) fn observers(&self) -> &Observers {
        &self.inner.observers
    }
}

/// Builds an [`IntentClient`].
#[derive(Default)]
pub struct IntentClientBuilder {
    providers: Vec<Arc<dyn Provider>>,
    has_primary: bool,
    options: IntentClientOptions,
    default_options: AiRequestOptions,
    cache: Option<Arc<dyn Cache>>,
    rate_limit: Option<RateLimit>,
    rate_limiters: Vec<(String, RateLimiter)>,
    observers: Vec<Box<dyn Observer>>,
}

impl IntentClientBuilder {
    /// Sets the primary provider.
    pub fn provider(mut self, provider: impl Provider + 'static) -> Self {
        let provider: Arc<dyn Provider> = Arc::new(provider);
        if self.has_primary {
            self.providers[0] = provider;
        } else {
            self.providers.insert(0, provider);
            self.has_primary = true;
        }
        self
    }

    /// Adds a fallback, asked in order when the providers before it fail.
    pub fn fallback(mut self, provider: impl Provider + 'static) -> Self {
        self.providers.push(Arc::new(provider));
        self
    }

    /// Sets the client's options.
    pub fn options(mut self, options: IntentClientOptions) -> Self {
        self.options = options;
        self
    }

    /// Sets the request options every call starts from: client-wide defaults such as the
    /// temperature, the model or the token limit. A call's own setters and
    /// [`options`](crate::AiCall::options) win over an intent file's options, which win over these,
    /// field by field (see [`AiRequestOptions::merge`]).
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedProvider::new(["{\"value\": 1}"]);
    /// let client = IntentClient::builder()
    ///     .provider(model.clone())
    ///     .default_options(AiRequestOptions { temperature: Some(0.0), max_output_tokens: Some(200), ..Default::default() })
    ///     .build()
    ///     .unwrap();
    /// let _ = u32::ai(&client, "one", "Read the number.").max_output_tokens(20).await;
    /// let sent = &model.requests()[0];
    /// assert_eq!((sent.temperature, sent.max_output_tokens), (Some(0.0), Some(20)));
    /// # });
    /// ```
    pub fn default_options(mut self, options: AiRequestOptions) -> Self {
        self.default_options = options;
        self
    }

    /// Sets the reply cache (none by default): [`MemoryCache`](crate::cache::MemoryCache),
    /// [`DiskCache`](crate::cache::DiskCache), a Redis cache, or your own [`Cache`].
    pub fn cache(mut self, cache: impl Cache + 'static) -> Self {
        self.cache = Some(Arc::new(cache));
        self
    }

    /// Sets a reply cache shared with other clients.
    pub fn shared_cache(mut self, cache: Arc<dyn Cache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Paces every provider of the client within `limit`, each with its own count (limits belong
    /// to a provider's key). Requests wait for their slot, within the call's deadline; see
    /// [`ratelimit`](crate::ratelimit) for how it paces and adapts to the provider's headers.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::ratelimit::RateLimit;
    ///
    /// let client = IntentClient::builder()
    ///     .provider(ScriptedProvider::new(["{\"value\": 1}"]))
    ///     .rate_limit(RateLimit { requests_per_minute: Some(600), tokens_per_minute: Some(150_000) })
    ///     .build()
    ///     .unwrap();
    /// # let _ = client;
    /// ```
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Paces the provider named `provider` with `limiter` instead of the client-wide
    /// [`rate_limit`](Self::rate_limit): a limit of its own, or a [`RateLimiter`] shared with
    /// other clients of the same key, in this process or (feature `redis`) across a fleet.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::ratelimit::{RateLimit, RateLimiter};
    ///
    /// let openai_key = RateLimiter::new(RateLimit { requests_per_minute: Some(500), ..Default::default() });
    /// let client = IntentClient::builder()
    ///     .provider(ScriptedProvider::new(["{\"value\": 1}"]).with_name("openai"))
    ///     .rate_limiter("openai", openai_key.clone())
    ///     .build()
    ///     .unwrap();
    /// # let _ = client;
    /// ```
    pub fn rate_limiter(
        mut self,
        provider: impl Into<String>,
        limiter: impl Into<RateLimiter>,
    ) -> Self {
        self.rate_limiters.push((provider.into(), limiter.into()));
        self
    }

    /// Adds an observer, told of each step of every call: requests, replies, failed attempts,
    /// transport retries, cache hits, fallbacks, judge verdicts and collection chunks (see
    /// [`observe`](crate::observe)). Several may be added; each is called in turn, and none can
    /// slow or fail a call.
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::observe::AttemptFailed;
    ///
    /// struct Failures;
    ///
    /// impl Observer for Failures {
    ///     fn attempt_failed(&self, event: &AttemptFailed<'_>) {
    ///         eprintln!("attempt {} failed with {} issues", event.origin.attempt, event.issues.len());
    ///     }
    /// }
    ///
    /// let client = IntentClient::builder()
    ///     .provider(ScriptedProvider::new(["{\"value\": 1}"]))
    ///     .observer(Failures)
    ///     .build()
    ///     .unwrap();
    /// # let _ = client;
    /// ```
    pub fn observer(mut self, observer: impl Observer) -> Self {
        self.observers.push(Box::new(observer));
        self
    }

    /// The client, or an error naming what is missing or invalid.
    pub fn build(self) -> Result<IntentClient, IntentError> {
        if !self.has_primary {
            return Err(IntentError::Config(
                "the client has no provider; call .provider(..) on the builder".into(),
            ));
        }
        if self.options.max_attempts == 0 {
            return Err(IntentError::Config(
                "max_attempts must be at least 1".into(),
            ));
        }
        let names: Vec<&str> = self.providers.iter().map(|p| p.name()).collect();
        let rate_limiters = RateLimiters::build(&names, self.rate_limit, self.rate_limiters)?;
        Ok(IntentClient {
            inner: Arc::new(ClientInner {
                providers: self.providers,
                options: self.options,
                default_options: self.default_options,
                cache: self.cache,
                rate_limiters,
                observers: Observers::new(self.observers),
            }),
        })
    }
}

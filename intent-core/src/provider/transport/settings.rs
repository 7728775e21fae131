//! The transport settings both HTTP providers share, as consuming `with_*` methods.

/// Adds `with_timeout`, `with_connect_timeout`, `with_max_retries`, `with_retry_policy` and
/// `with_max_response_bytes` to a provider with a `transport: Transport` field.
macro_rules! transport_settings {
    ($ty:ident) => {
        impl $ty {
            /// The timeout for one HTTP request, from connecting until the reply body is read
            /// (600 s by default). A request past it is a timeout, retried under the retry policy.
            ///
            /// ```
            /// use std::time::Duration;
            #[doc = concat!("use intent_core::provider::", stringify!($ty), ";")]
            ///
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_timeout(Duration::from_secs(30));")]
            /// assert_eq!(provider.timeout(), Duration::from_secs(30));
            /// ```
            pub fn with_timeout(mut self, timeout: ::std::time::Duration) -> Self {
                self.transport.set_timeout(timeout);
                self
            }

            /// The timeout for opening a connection (10 s by default).
            ///
            /// ```
            /// use std::time::Duration;
            #[doc = concat!("use intent_core::provider::", stringify!($ty), ";")]
            ///
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_connect_timeout(Duration::from_secs(2));")]
            /// # let _ = provider;
            /// ```
            pub fn with_connect_timeout(mut self, timeout: ::std::time::Duration) -> Self {
                self.transport.set_connect_timeout(timeout);
                self
            }

            /// How many times a transport fault is retried after the first try (2 by default).
            ///
            /// ```
            #[doc = concat!("use intent_core::provider::", stringify!($ty), ";")]
            ///
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_max_retries(5);")]
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
            #[doc = concat!("use intent_core::provider::{", stringify!($ty), ", RetryPolicy};")]
            ///
            /// let policy = RetryPolicy { initial_backoff: Duration::from_millis(100), ..RetryPolicy::default() };
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_retry_policy(policy);")]
            /// assert_eq!(provider.retry_policy(), policy);
            /// ```
            pub fn with_retry_policy(mut self, policy: $crate::provider::RetryPolicy) -> Self {
                self.transport.retry = policy;
                self
            }

            /// The largest reply body read, in bytes (16 MiB by default); a larger one is an error.
            ///
            /// ```
            #[doc = concat!("use intent_core::provider::", stringify!($ty), ";")]
            ///
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_max_response_bytes(1 << 20);")]
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
            #[doc = concat!("use intent_core::provider::", stringify!($ty), ";")]
            ///
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_idle_timeout(Duration::from_secs(30));")]
            /// assert_eq!(provider.idle_timeout(), Duration::from_secs(30));
            /// ```
            pub fn with_idle_timeout(mut self, timeout: ::std::time::Duration) -> Self {
                self.transport.idle_timeout = timeout;
                self
            }

            /// The largest event of a streamed reply, in bytes (4 MiB by default); a larger one
            /// stops the stream with an error. The whole stream is bounded by
            /// [`with_max_response_bytes`](Self::with_max_response_bytes).
            ///
            /// ```
            #[doc = concat!("use intent_core::provider::", stringify!($ty), ";")]
            ///
            #[doc = concat!("let provider = ", stringify!($ty), "::new(\"key\").with_max_event_bytes(1 << 20);")]
            /// # let _ = provider;
            /// ```
            pub fn with_max_event_bytes(mut self, bytes: usize) -> Self {
                self.transport.max_event_bytes = bytes;
                self
            }

            /// The longest wait for the next event of a streamed reply.
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(\"key\");")]
            /// assert_eq!(provider.idle_timeout().as_secs(), 120);
            /// ```
            pub fn idle_timeout(&self) -> ::std::time::Duration {
                self.transport.idle_timeout
            }

            /// The timeout for one HTTP request.
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(\"key\");")]
            /// assert_eq!(provider.timeout().as_secs(), 600);
            /// ```
            pub fn timeout(&self) -> ::std::time::Duration {
                self.transport.timeout()
            }

            /// The retry policy for transport faults.
            ///
            /// ```
            #[doc = concat!("let provider = intent_core::provider::", stringify!($ty), "::new(\"key\");")]
            /// assert_eq!(provider.retry_policy().max_retries, 2);
            /// ```
            pub fn retry_policy(&self) -> $crate::provider::RetryPolicy {
                self.transport.retry
            }
        }
    };
}

pub(crate) use transport_settings;

/// The base URL and model a provider reads from its environment variables, the base URL checked.
pub(crate) struct EnvEndpoint {
    /// The base URL variable's value, when set.
    pub(crate) base_url: Option<String>,
    /// The model variable's value, when set.
    pub(crate) model: Option<String>,
}

impl EnvEndpoint {
    /// Reads `base_var` and `model_var` with `var`; a base URL that is not http(s) is an error
    /// naming its variable.
    pub(crate) fn read(
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
    pub(crate) fn apply(self, base_url: &mut String, model: &mut String) {
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

/// Checks that `url` is an absolute http or https URL.
pub(crate) fn check_base_url(url: &str) -> Result<(), String> {
    match reqwest::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => Ok(()),
        Ok(parsed) => Err(format!(
            "the base URL must use http or https, not {}",
            parsed.scheme()
        )),
        Err(e) => Err(format!("the base URL is not a valid URL ({e})")),
    }
}

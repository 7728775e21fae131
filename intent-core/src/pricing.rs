//! What calls cost: a [`Pricing`] table you fill, and the cost of a result's attempts under it.
//!
//! The library ships no prices: they change, and differ by account and region. Fill a table from
//! your provider's price page, per provider (the name the client knows it by, as in
//! [`AttemptRecord::provider`]) and model, in US dollars per million tokens:
//!
//! ```
//! use intent_core::pricing::{Price, Pricing};
//! use intent_core::Usage;
//!
//! let pricing = Pricing::new()
//!     .with("openai", "gpt-4o-mini", Price::per_million(0.15, 0.60).with_cached_input(0.075).with_batch_discount(0.5))
//!     .with("anthropic", "claude-sonnet-4-5", Price::per_million(3.0, 15.0).with_cached_input(0.30));
//!
//! // A model reported with its snapshot date is priced as the model.
//! let price = pricing.price("openai", "gpt-4o-mini-2024-07-18").unwrap();
//! let usage = Usage { input_tokens: 2_000_000, cached_tokens: 1_000_000, output_tokens: 100_000, ..Usage::default() };
//! assert!((price.cost(&usage) - (0.15 + 0.075 + 0.06)).abs() < 1e-12);
//! assert!((price.for_batch().cost(&usage) - 0.1425).abs() < 1e-12);
//! ```
//!
//! # What is counted
//!
//! A call's cost is priced attempt by attempt, each at the provider and model that answered it
//! ([`AiResult::cost`](crate::AiResult::cost), [`Pricing::cost_of`]): a retry on another model or a
//! fallback to another provider is priced at its own rates. Input tokens served from the
//! provider's prompt cache (`cached_tokens`) are priced at the cached-input rate (the input rate
//! when none is set); the rest of the input at the input rate; output tokens, reasoning included,
//! at the output rate. A judge's call is part of its attempt's usage and is priced at that
//! attempt's model. A reply from this library's cache used no tokens and costs nothing. Anthropic's
//! prompt-cache writes are counted as ordinary input (the usage does not keep them apart).
//!
//! # Rounding
//!
//! Costs are `f64` dollars, not rounded: each attempt's cost is computed in `f64` and summed,
//! exact to about fifteen significant digits, far below a cent for any real bill. Round only to
//! show a figure (`format!("${cost:.4}")`).

use std::fmt;

use crate::result::{AiResult, AttemptRecord, Usage};

/// One model's prices, in US dollars per million tokens.
///
/// ```
/// use intent_core::pricing::Price;
/// use intent_core::Usage;
///
/// let price = Price::per_million(2.0, 8.0);
/// let usage = Usage { input_tokens: 1000, output_tokens: 500, ..Usage::default() };
/// assert!((price.cost(&usage) - 0.006).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    /// Dollars per million input tokens.
    pub input_per_million: f64,
    /// Dollars per million input tokens read from the provider's prompt cache; the input price
    /// when `None`.
    pub cached_input_per_million: Option<f64>,
    /// Dollars per million output tokens (reasoning tokens included).
    pub output_per_million: f64,
    /// The fraction taken off every rate for a batch job (0.5 for half price); 0 for none.
    pub batch_discount: f64,
}

impl Price {
    /// Input and output prices per million tokens; no cached-input price, no batch discount.
    pub fn per_million(input: f64, output: f64) -> Price {
        Price {
            input_per_million: input,
            cached_input_per_million: None,
            output_per_million: output,
            batch_discount: 0.0,
        }
    }

    /// The same price, with cached input tokens at `per_million`.
    pub fn with_cached_input(mut self, per_million: f64) -> Price {
        self.cached_input_per_million = Some(per_million);
        self
    }

    /// The same price, with `fraction` off for batch jobs (0.5 for half price).
    pub fn with_batch_discount(mut self, fraction: f64) -> Price {
        self.batch_discount = fraction;
        self
    }

    /// The price of the same model in a batch job: every rate less the batch discount.
    ///
    /// ```
    /// use intent_core::pricing::Price;
    ///
    /// let batch = Price::per_million(1.0, 4.0).with_batch_discount(0.5).for_batch();
    /// assert_eq!((batch.input_per_million, batch.output_per_million), (0.5, 2.0));
    /// ```
    pub fn for_batch(&self) -> Price {
        let keep = 1.0 - self.batch_discount;
        Price {
            input_per_million: self.input_per_million * keep,
            cached_input_per_million: self.cached_input_per_million.map(|p| p * keep),
            output_per_million: self.output_per_million * keep,
            batch_discount: 0.0,
        }
    }

    /// What `usage` costs at this price, in dollars (not rounded).
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_tokens.min(usage.input_tokens);
        let uncached = usage.input_tokens - cached;
        let cached_rate = self
            .cached_input_per_million
            .unwrap_or(self.input_per_million);
        (uncached as f64 * self.input_per_million
            + cached as f64 * cached_rate
            + usage.output_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }

    /// True when every rate is a finite, non-negative number and the discount a fraction.
    fn is_valid(&self) -> bool {
        let rate = |r: f64| r.is_finite() && r >= 0.0;
        rate(self.input_per_million)
            && self.cached_input_per_million.is_none_or(rate)
            && rate(self.output_per_million)
            && (0.0..=1.0).contains(&self.batch_discount)
    }
}

/// Prices by provider and model, filled by you. The provider `"*"` matches any provider.
///
/// ```
/// use intent_core::pricing::{Price, Pricing};
///
/// let pricing = Pricing::new()
///     .with("anthropic", "claude-haiku-4-5", Price::per_million(1.0, 5.0))
///     .with("*", "llama-3.1-8b-instruct", Price::per_million(0.02, 0.05));
/// assert!(pricing.price("anthropic", "claude-haiku-4-5-20251001").is_some());
/// assert!(pricing.price("local", "llama-3.1-8b-instruct").is_some());
/// assert!(pricing.price("openai", "claude-haiku-4-5").is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pricing {
    prices: Vec<(String, String, Price)>,
}

impl Pricing {
    /// An empty table.
    pub fn new() -> Pricing {
        Pricing::default()
    }

    /// The same table, with `price` for `model` of `provider` (replacing one set before).
    pub fn with(
        mut self,
        provider: impl Into<String>,
        model: impl Into<String>,
        price: Price,
    ) -> Pricing {
        self.set(provider, model, price);
        self
    }

    /// Sets `price` for `model` of `provider` (replacing one set before).
    pub fn set(&mut self, provider: impl Into<String>, model: impl Into<String>, price: Price) {
        let (provider, model) = (provider.into(), model.into());
        match self
            .prices
            .iter_mut()
            .find(|(p, m, _)| *p == provider && *m == model)
        {
            Some(entry) => entry.2 = price,
            None => self.prices.push((provider, model, price)),
        }
    }

    /// The number of prices in the table.
    pub fn len(&self) -> usize {
        self.prices.len()
    }

    /// True when the table has no price.
    pub fn is_empty(&self) -> bool {
        self.prices.is_empty()
    }

    /// The price of `model` as `provider` reported it: the entry for that provider and model,
    /// else for the model without a trailing snapshot date (`-2024-07-18`, `-20250929`), else the
    /// same under the provider `"*"`.
    pub fn price(&self, provider: &str, model: &str) -> Option<&Price> {
        let base = without_snapshot_date(model);
        [
            (provider, model),
            (provider, base),
            ("*", model),
            ("*", base),
        ]
        .into_iter()
        .find_map(|(provider, model)| {
            self.prices
                .iter()
                .find(|(p, m, _)| p == provider && m == model)
                .map(|(_, _, price)| price)
        })
    }

    /// The same table at batch prices: every price less its batch discount.
    pub fn for_batch(&self) -> Pricing {
        Pricing {
            prices: self
                .prices
                .iter()
                .map(|(provider, model, price)| {
                    (provider.clone(), model.clone(), price.for_batch())
                })
                .collect(),
        }
    }

    /// The cost of `attempts`, each at its own provider and model, in dollars (not rounded); an
    /// error naming the first model that used tokens and has no valid price. Works for any
    /// attempts: an [`AiResult`]'s, a collection result's, or your own selection.
    ///
    /// ```
    /// use intent_core::pricing::{Price, Pricing};
    /// use intent_core::{AttemptRecord, Usage};
    ///
    /// let mut attempt = AttemptRecord::new(1);
    /// attempt.provider = "openai".into();
    /// attempt.model = "gpt-4.1-mini".into();
    /// attempt.usage = Usage { input_tokens: 1_000_000, output_tokens: 0, ..Usage::default() };
    /// let pricing = Pricing::new().with("openai", "gpt-4.1-mini", Price::per_million(0.4, 1.6));
    /// assert_eq!(pricing.cost_of([&attempt]).unwrap(), 0.4);
    /// ```
    pub fn cost_of<'a>(
        &self,
        attempts: impl IntoIterator<Item = &'a AttemptRecord>,
    ) -> Result<f64, CostError> {
        let mut total = 0.0;
        for attempt in attempts {
            let usage = &attempt.usage;
            if usage.input_tokens == 0 && usage.output_tokens == 0 {
                continue;
            }
            total += self.checked(&attempt.provider, &attempt.model)?.cost(usage);
        }
        Ok(total)
    }

    /// The valid price of `model` of `provider`, or the error that names what is missing.
    fn checked(&self, provider: &str, model: &str) -> Result<&Price, CostError> {
        let price = self
            .price(provider, model)
            .ok_or_else(|| CostError::NoPrice {
                provider: provider.to_owned(),
                model: model.to_owned(),
            })?;
        if price.is_valid() {
            Ok(price)
        } else {
            Err(CostError::InvalidPrice {
                provider: provider.to_owned(),
                model: model.to_owned(),
            })
        }
    }

    /// The table's one price, for a [`Usage`] that names no model.
    pub(crate) fn only_price(&self) -> Result<&Price, CostError> {
        match self.prices.as_slice() {
            [(provider, model, _)] => self.checked(provider, model),
            _ => Err(CostError::NoModel {
                prices: self.prices.len(),
            }),
        }
    }
}

/// A trailing snapshot date cut off a model name: `gpt-4o-mini-2024-07-18` and
/// `claude-sonnet-4-5-20250929` are priced as `gpt-4o-mini` and `claude-sonnet-4-5`.
fn without_snapshot_date(model: &str) -> &str {
    let is_date = |tail: &str| {
        let b = tail.as_bytes();
        match b.len() {
            8 => b.iter().all(u8::is_ascii_digit),
            10 => b.iter().enumerate().all(|(i, c)| match i {
                4 | 7 => *c == b'-',
                _ => c.is_ascii_digit(),
            }),
            _ => false,
        }
    };
    for len in [10, 8] {
        if let Some(cut) = model.len().checked_sub(len + 1) {
            if model.as_bytes()[cut] == b'-'
                && model.is_char_boundary(cut + 1)
                && is_date(&model[cut + 1..])
            {
                return &model[..cut];
            }
        }
    }
    model
}

/// Why a cost could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CostError {
    /// A model that used tokens has no price in the table.
    NoPrice {
        /// The provider that answered.
        provider: String,
        /// The model it reported.
        model: String,
    },
    /// The table's price for a model is not a finite, non-negative number, or its batch
    /// discount is not between 0 and 1.
    InvalidPrice {
        /// The provider that answered.
        provider: String,
        /// The model it reported.
        model: String,
    },
    /// A [`Usage`] names no model, and the table does not have exactly one price to use.
    NoModel {
        /// The prices in the table.
        prices: usize,
    },
}

impl fmt::Display for CostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostError::NoPrice { provider, model } => write!(
                f,
                "the pricing table has no price for model \"{model}\" of provider \"{provider}\"; add one with Pricing::with(\"{provider}\", \"{model}\", ..)"
            ),
            CostError::InvalidPrice { provider, model } => write!(
                f,
                "the price of model \"{model}\" of provider \"{provider}\" is not valid: rates must be finite and at least 0, the batch discount between 0 and 1"
            ),
            CostError::NoModel { prices } => write!(
                f,
                "a Usage does not name its model, and the pricing table has {prices} prices, not one; price the result's attempts (AiResult::cost) or use Usage::cost_at"
            ),
        }
    }
}

impl std::error::Error for CostError {}

/// Costing is the price table's concern: the result types it prices know nothing of prices.
impl Usage {
    /// What this usage costs at `price`, in dollars (not rounded; see [`pricing`](crate::pricing)).
    ///
    /// ```
    /// use intent_core::pricing::Price;
    /// use intent_core::Usage;
    ///
    /// let usage = Usage { input_tokens: 1_000_000, output_tokens: 1_000_000, ..Usage::default() };
    /// assert_eq!(usage.cost_at(&Price::per_million(0.5, 1.5)), 2.0);
    /// ```
    pub fn cost_at(&self, price: &Price) -> f64 {
        price.cost(self)
    }

    /// What this usage costs under `pricing`, in dollars.
    ///
    /// A `Usage` sums tokens without naming the model that used them, so this prices it at the
    /// table's one price and is an error for a table of several: price an
    /// [`AiResult`](AiResult::cost), whose attempts each name their provider and model, or use
    /// [`cost_at`](Self::cost_at).
    ///
    /// ```
    /// use intent_core::pricing::{Price, Pricing};
    /// use intent_core::Usage;
    ///
    /// let pricing = Pricing::new().with("openai", "gpt-4.1", Price::per_million(2.0, 8.0));
    /// let usage = Usage { input_tokens: 500_000, output_tokens: 0, ..Usage::default() };
    /// assert_eq!(usage.cost(&pricing).unwrap(), 1.0);
    /// ```
    pub fn cost(&self, pricing: &Pricing) -> Result<f64, CostError> {
        Ok(pricing.only_price()?.cost(self))
    }
}

impl<T> AiResult<T> {
    /// What the call cost under `pricing`, in dollars (not rounded): each attempt priced at the
    /// provider and model that answered it, a cache hit at nothing. An error names the first
    /// model that used tokens and has no valid price. See [`pricing`](crate::pricing).
    ///
    /// ```
    /// use intent_core::prelude::*;
    /// use intent_core::pricing::{Price, Pricing};
    /// use intent_core::provider::AiResponse;
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let mut reply = AiResponse::new(r#"{"value": 3}"#, "gpt-4.1-mini-2025-04-14");
    /// reply.usage.input_tokens = 1_000_000;
    /// reply.usage.output_tokens = 250_000;
    /// let client = IntentClient::new(ScriptedProvider::new([reply]).with_name("openai"));
    /// let count = u32::ai(&client, "a b c", "Count the words.").await;
    /// let pricing = Pricing::new().with("openai", "gpt-4.1-mini", Price::per_million(0.4, 1.6));
    /// assert!((count.cost(&pricing).unwrap() - 0.8).abs() < 1e-12);
    /// # });
    /// ```
    pub fn cost(&self, pricing: &Pricing) -> Result<f64, CostError> {
        pricing.cost_of(self.attempts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_dates_are_cut_and_nothing_else() {
        assert_eq!(
            without_snapshot_date("gpt-4o-mini-2024-07-18"),
            "gpt-4o-mini"
        );
        assert_eq!(
            without_snapshot_date("claude-sonnet-4-5-20250929"),
            "claude-sonnet-4-5"
        );
        assert_eq!(without_snapshot_date("gpt-4o"), "gpt-4o");
        assert_eq!(without_snapshot_date("model-1234567"), "model-1234567");
        assert_eq!(without_snapshot_date("x-2024-7-180"), "x-2024-7-180");
        assert_eq!(without_snapshot_date("é-20250101"), "é");
        assert_eq!(without_snapshot_date("-20250101"), "");
        assert_eq!(without_snapshot_date("20250101"), "20250101");
    }

    #[test]
    fn an_exact_entry_wins_over_the_dateless_and_the_wildcard() {
        let pricing = Pricing::new()
            .with("*", "m", Price::per_million(9.0, 9.0))
            .with("p", "m", Price::per_million(1.0, 1.0))
            .with("p", "m-2025-01-01", Price::per_million(2.0, 2.0));
        assert_eq!(
            pricing
                .price("p", "m-2025-01-01")
                .unwrap()
                .input_per_million,
            2.0
        );
        assert_eq!(
            pricing
                .price("p", "m-2025-02-01")
                .unwrap()
                .input_per_million,
            1.0
        );
        assert_eq!(pricing.price("q", "m").unwrap().input_per_million, 9.0);
        assert_eq!(pricing.len(), 3);
    }

    #[test]
    fn invalid_prices_are_refused_not_summed() {
        let mut attempt = AttemptRecord::new(1);
        attempt.provider = "p".into();
        attempt.model = "m".into();
        attempt.usage.input_tokens = 10;
        for bad in [
            Price::per_million(f64::NAN, 1.0),
            Price::per_million(-1.0, 1.0),
            Price::per_million(1.0, 1.0).with_batch_discount(1.5),
            Price::per_million(1.0, 1.0).with_cached_input(f64::INFINITY),
        ] {
            let pricing = Pricing::new().with("p", "m", bad);
            assert_eq!(
                pricing.cost_of([&attempt]),
                Err(CostError::InvalidPrice {
                    provider: "p".into(),
                    model: "m".into()
                })
            );
        }
    }
}

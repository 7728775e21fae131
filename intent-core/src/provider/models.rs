//! One table of model families: which OpenAI, Anthropic and Gemini models reason, which refuse
//! sampling settings, which take a reasoning effort or a thinking budget, and how long a prefix
//! Anthropic caches. Every vendor's body asks it ([`family`]) before writing an option a family
//! is known to refuse, so that a setting we know a model refuses never costs a 400: it is left
//! out with a notice on the attempt's record, or refused before anything is sent (see
//! `capabilities` for what each provider does with each option).
//!
//! A model matches the first row whose prefix it begins with (after a `models/` prefix), that
//! holds the row's `with` text and none of its `unless` texts. A model no row matches (a local
//! model behind an OpenAI-compatible server, a family newer than this table) is sent every
//! option as asked: the server is the judge of what it does not know.
//!
//! Sources, per vendor:
//!
//! - OpenAI: the reasoning guide (platform.openai.com/docs/guides/reasoning: o-series and gpt-5
//!   models reason, take `reasoning_effort` / `reasoning.effort`, and refuse `temperature` and
//!   `top_p`); the 400 recorded from the live Responses API in the vendor fixture
//!   `openai-responses/reasoning-model-temperature-error.json` ("Unsupported parameter:
//!   'temperature' is not supported with this model."); pydantic-ai's `profiles/openai.py`
//!   (o-series and gpt-5 always reason, `-chat` variants do not; gpt-5.1 and later take sampling
//!   settings only with reasoning effort `none`, which this library does not send, and gpt-5.5
//!   answers at effort `medium` by default, as its cassette
//!   `test_openai_responses_gpt_5_5_drops_sampling_params_by_default.yaml` records).
//! - Anthropic: "Extended thinking" (docs.claude.com/en/docs/build-with-claude/extended-thinking:
//!   Claude 3.7 Sonnet and every Claude 4 model think; thinking is not compatible with
//!   `temperature`, and takes `top_p` only from 0.95 to 1); the `top_p` reference ("You should
//!   either alter temperature or top_p, but not both"), which Claude Opus 4.1, Sonnet 4.5, Haiku
//!   4.5 and later enforce with a 400 ("`temperature` and `top_p` cannot both be specified for
//!   this model", reported in BerriAI/litellm#15097 and cloud-apim/otoroshi-llm-extension#140);
//!   "Effort" (platform.claude.com/docs/en/build-with-claude/effort: `output_config.effort` on
//!   Claude Opus 4.5 and later, Sonnet 4.6 and later; pydantic-ai's cassette
//!   `test_anthropic_opus_46_features[effort].yaml`); "Prompt caching"
//!   (platform.claude.com/docs/en/build-with-claude/prompt-caching, as quoted in
//!   anthropics/anthropic-sdk-python#1194: 4096 tokens for Opus 4.6, Opus 4.5 and Haiku 4.5; 1024
//!   for Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4 and Sonnet 3.7; 2048 for Haiku 3.5 and Haiku 3;
//!   that issue observes 2048 for Sonnet 4.6, which is the floor kept here; 2048 for Opus 4.7,
//!   1024 for Opus 4.8 and Sonnet 5, 512 for Opus 5, as the same page later lists them).
//! - Gemini: "Gemini thinking" (ai.google.dev/gemini-api/docs/thinking: Gemini 2.5 takes
//!   `thinkingBudget`, 0 turns thinking off except on 2.5 Pro, which only works in thinking mode;
//!   Gemini 3 takes `thinkingLevel`, Gemini 3 Pro `low` or `high` only, Flash every level;
//!   `thinkingBudget` still accepted by Gemini 3; earlier models do not think); the vendor fixture
//!   `google-gemini/google-thinking-level-minimal-unsupported.json` (a level a model does not take
//!   is a 400).

use crate::request::ReasoningEffort;

/// Whose models a row describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Maker {
    OpenAi,
    Anthropic,
    Gemini,
}

/// What a family does with `temperature` and `top_p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sampling {
    /// Takes both.
    Any,
    /// Takes one or the other, not both.
    OneOf,
    /// Takes neither (a reasoning model at its default effort).
    Refused,
}

/// One family of models.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Family {
    pub(crate) maker: Maker,
    /// The family as people name it (`o-series`, `claude-haiku-4-5`).
    pub(crate) name: &'static str,
    /// A model is of the family when its name begins with one of these...
    pub(crate) prefixes: &'static [&'static str],
    /// ...holds this text, when there is one...
    pub(crate) with: Option<&'static str>,
    /// ...and none of these.
    pub(crate) unless: &'static [&'static str],
    pub(crate) sampling: Sampling,
    /// The reasoning efforts the family takes (none: it takes no effort).
    pub(crate) efforts: &'static [ReasoningEffort],
    /// Whether it takes a thinking budget.
    pub(crate) budget: bool,
    /// Whether a thinking budget of 0 (thinking off) is taken.
    pub(crate) thinking_off: bool,
    /// Anthropic: the shortest prefix, in tokens, that is cached (0: not an Anthropic model).
    pub(crate) min_cache_tokens: u32,
    /// Whether the model can call tools in a reply constrained to a response format (Gemini
    /// before 3 refuses a format beside function declarations: see
    /// [`Provider::tools_beside_format`](crate::provider::Provider::tools_beside_format)).
    pub(crate) tools_beside_format: bool,
}

const ALL_EFFORTS: &[ReasoningEffort] = &[
    ReasoningEffort::Low,
    ReasoningEffort::Medium,
    ReasoningEffort::High,
];
const NO_EFFORT: &[ReasoningEffort] = &[];

const fn openai(
    name: &'static str,
    prefixes: &'static [&'static str],
    with: Option<&'static str>,
    reasons: bool,
) -> Family {
    Family {
        maker: Maker::OpenAi,
        name,
        prefixes,
        with,
        unless: &[],
        sampling: if reasons {
            Sampling::Refused
        } else {
            Sampling::Any
        },
        efforts: if reasons { ALL_EFFORTS } else { NO_EFFORT },
        budget: false,
        thinking_off: false,
        min_cache_tokens: 0,
        tools_beside_format: true,
    }
}

const fn claude(
    prefix: &'static [&'static str],
    sampling: Sampling,
    effort: bool,
    thinks: bool,
    min_cache_tokens: u32,
) -> Family {
    Family {
        maker: Maker::Anthropic,
        name: prefix[0],
        prefixes: prefix,
        with: None,
        unless: &[],
        sampling,
        efforts: if effort { ALL_EFFORTS } else { NO_EFFORT },
        budget: thinks,
        thinking_off: true,
        min_cache_tokens,
        tools_beside_format: true,
    }
}

const fn gemini(
    name: &'static str,
    prefixes: &'static [&'static str],
    with: Option<&'static str>,
    efforts: &'static [ReasoningEffort],
    budget: bool,
    thinking_off: bool,
    tools_beside_format: bool,
) -> Family {
    Family {
        maker: Maker::Gemini,
        name,
        prefixes,
        with,
        unless: &[],
        sampling: Sampling::Any,
        efforts,
        budget,
        thinking_off,
        min_cache_tokens: 0,
        tools_beside_format,
    }
}

/// The families, the more particular before the more general.
pub(crate) static FAMILIES: &[Family] = &[
    // OpenAI.
    openai("o-series", &["o1", "o3", "o4"], None, true),
    openai("gpt-5 chat", &["gpt-5"], Some("-chat"), false),
    openai("gpt-5", &["gpt-5"], None, true),
    openai(
        "gpt-4 and earlier",
        &["gpt-4", "gpt-3.5", "chatgpt-4o"],
        None,
        false,
    ),
    // Anthropic.
    claude(&["claude-opus-5"], Sampling::OneOf, true, true, 512),
    claude(&["claude-sonnet-5"], Sampling::OneOf, true, true, 1024),
    claude(&["claude-opus-4-8"], Sampling::OneOf, true, true, 1024),
    claude(&["claude-opus-4-7"], Sampling::OneOf, true, true, 2048),
    claude(&["claude-opus-4-6"], Sampling::OneOf, true, true, 4096),
    claude(&["claude-opus-4-5"], Sampling::OneOf, true, true, 4096),
    claude(&["claude-sonnet-4-6"], Sampling::OneOf, true, true, 2048),
    claude(&["claude-sonnet-4-5"], Sampling::OneOf, false, true, 1024),
    claude(&["claude-haiku-4-5"], Sampling::OneOf, false, true, 4096),
    claude(&["claude-opus-4-1"], Sampling::OneOf, false, true, 1024),
    claude(
        &["claude-opus-4", "claude-sonnet-4"],
        Sampling::Any,
        false,
        true,
        1024,
    ),
    claude(&["claude-3-7-sonnet"], Sampling::Any, false, true, 1024),
    claude(
        &["claude-3-5-haiku", "claude-3-haiku"],
        Sampling::Any,
        false,
        false,
        2048,
    ),
    claude(
        &["claude-3-5-sonnet", "claude-3-opus"],
        Sampling::Any,
        false,
        false,
        1024,
    ),
    // Gemini. Gemini 3 combines structured output with function calling (ai.google.dev,
    // "Structured output": structured outputs with tools, Gemini 3 models); Gemini 2.5 and
    // earlier answer a response format beside function declarations with a 400, "Function
    // calling with a response mime type: 'application/json' is unsupported"
    // (googleapis/python-genai#867, symfony/ai#1777 on gemini-2.5-flash).
    gemini(
        "gemini-3 pro",
        &["gemini-3"],
        Some("-pro"),
        &[ReasoningEffort::Low, ReasoningEffort::High],
        true,
        false,
        true,
    ),
    gemini(
        "gemini-3",
        &["gemini-3"],
        None,
        ALL_EFFORTS,
        true,
        true,
        true,
    ),
    gemini(
        "gemini-2.5-pro",
        &["gemini-2.5-pro"],
        None,
        NO_EFFORT,
        true,
        false,
        false,
    ),
    gemini(
        "gemini-2.5",
        &["gemini-2.5"],
        None,
        NO_EFFORT,
        true,
        true,
        false,
    ),
    gemini(
        "gemini-2.0 and earlier",
        &["gemini-2.0", "gemini-1.5", "gemini-1.0"],
        None,
        NO_EFFORT,
        false,
        false,
        false,
    ),
];

impl Family {
    fn matches(&self, model: &str) -> bool {
        self.prefixes.iter().any(|p| model.starts_with(p))
            && self.with.is_none_or(|w| model.contains(w))
            && !self.unless.iter().any(|u| model.contains(u))
    }

    /// Whether the family takes `effort`.
    pub(crate) fn takes_effort(&self, effort: ReasoningEffort) -> bool {
        self.efforts.contains(&effort)
    }
}

/// The family of `model`, one of `maker`'s, when the table knows it.
///
/// ```ignore
/// assert_eq!(family(Maker::OpenAi, "o3-mini").unwrap().sampling, Sampling::Refused);
/// assert!(family(Maker::OpenAi, "qwen2.5").is_none());
/// ```
pub(crate) fn family(maker: Maker, model: &str) -> Option<&'static Family> {
    let model = model.trim();
    let model = model.strip_prefix("models/").unwrap_or(model);
    FAMILIES
        .iter()
        .find(|f| f.maker == maker && f.matches(model))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(maker: Maker, model: &str) -> &'static str {
        family(maker, model).map_or("unknown", |f| f.name)
    }

    #[test]
    fn models_find_their_family_and_the_more_particular_row_wins() {
        assert_eq!(of(Maker::OpenAi, "o3-mini"), "o-series");
        assert_eq!(of(Maker::OpenAi, "o4-mini-2025-04-16"), "o-series");
        assert_eq!(of(Maker::OpenAi, "gpt-5-mini"), "gpt-5");
        assert_eq!(of(Maker::OpenAi, "gpt-5.5"), "gpt-5");
        assert_eq!(of(Maker::OpenAi, "gpt-5-chat-latest"), "gpt-5 chat");
        assert_eq!(of(Maker::OpenAi, "gpt-4o-mini"), "gpt-4 and earlier");
        assert_eq!(of(Maker::OpenAi, "qwen2.5-coder"), "unknown");
        assert_eq!(
            of(Maker::Anthropic, "claude-opus-4-5-20251101"),
            "claude-opus-4-5"
        );
        assert_eq!(
            of(Maker::Anthropic, "claude-opus-4-20250514"),
            "claude-opus-4"
        );
        assert_eq!(of(Maker::Anthropic, "claude-haiku-4-5"), "claude-haiku-4-5");
        assert_eq!(
            of(Maker::Gemini, "models/gemini-3-pro-preview"),
            "gemini-3 pro"
        );
        assert_eq!(of(Maker::Gemini, "gemini-3.7-flash"), "gemini-3");
        assert_eq!(of(Maker::Gemini, "gemini-2.5-flash-lite"), "gemini-2.5");
        assert_eq!(of(Maker::Gemini, "gemini-2.5-pro"), "gemini-2.5-pro");
        // A vendor's rows never answer for another's models.
        assert_eq!(of(Maker::Anthropic, "gpt-5"), "unknown");
    }

    #[test]
    fn reasoning_models_refuse_sampling_and_take_an_effort() {
        for model in ["o1", "o3", "gpt-5-nano"] {
            let family = family(Maker::OpenAi, model).unwrap();
            assert_eq!(family.sampling, Sampling::Refused, "{model}");
            assert!(family.takes_effort(ReasoningEffort::High));
        }
        let gpt4 = family(Maker::OpenAi, "gpt-4.1").unwrap();
        assert_eq!(gpt4.sampling, Sampling::Any);
        assert!(!gpt4.takes_effort(ReasoningEffort::Low));
        let pro = family(Maker::Gemini, "gemini-3-pro").unwrap();
        assert!(
            pro.takes_effort(ReasoningEffort::Low) && !pro.takes_effort(ReasoningEffort::Medium)
        );
        assert!(
            !family(Maker::Gemini, "gemini-2.5-pro")
                .unwrap()
                .thinking_off
        );
    }
}

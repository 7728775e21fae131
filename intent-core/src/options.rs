//! Request and client options.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::request::ReasoningEffort;

/// A worked example: an input and the exact answer expected for it.
///
/// Write the output as the model should answer: plain text for a `String` result, the envelope
/// `{"value": ...}` for any other.
///
/// ```
/// use intent_core::IntentExample;
///
/// let example = IntentExample::new("2 apples and 3 pears", r#"{"value": 5}"#);
/// assert_eq!(example.output, r#"{"value": 5}"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IntentExample {
    /// The example's input, as the model would see it.
    pub input: String,
    /// The exact answer expected.
    pub output: String,
}

impl IntentExample {
    /// An example from its input and output text.
    pub fn new(input: impl Into<String>, output: impl Into<String>) -> Self {
        IntentExample {
            input: input.into(),
            output: output.into(),
        }
    }
}

/// The judge: a second model call that checks an answer carries out the intent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgeOptions {
    /// The provider to ask, by name; the answering provider when `None`.
    pub provider: Option<String>,
    /// The model to ask; the request's model when `None`.
    pub model: Option<String>,
    /// Extra criteria for the judge, in words.
    pub instructions: Option<String>,
}

/// Options for one request. Every field is optional; `Default` is a plain request.
///
/// A call takes its options from three places, field by field: its own setters and
/// `.options(..)` first, then its intent file's options, then the client's
/// [`default_options`](crate::IntentClientBuilder::default_options) (see [`merge`](Self::merge)).
///
/// ```
/// use intent_core::{AiRequestOptions, IntentExample};
///
/// let options = AiRequestOptions {
///     expected_output_description: Some("ISO 4217 currency codes".into()),
///     max_output_tokens: Some(512),
///     temperature: Some(0.0),
///     examples: vec![IntentExample::new("ten euros", r#"{"value": "EUR"}"#)],
///     ..AiRequestOptions::default()
/// };
/// assert!(options.model.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AiRequestOptions {
    /// What a good answer looks like, in prose, where the type alone is not enough.
    pub expected_output_description: Option<String>,
    /// Added to the system message after a blank line: the role, the audience, the house style.
    pub system_instructions: Option<String>,
    /// Worked examples, rendered in order and numbered from 1. A reply that copies an example's
    /// output for an input that is not that example's fails its attempt with an
    /// [`IssueKind::CopiedExample`](crate::IssueKind::CopiedExample) issue naming the example
    /// ("Example 1"), sent back like any other finding.
    pub examples: Vec<IntentExample>,
    /// The longest reply, in tokens, for each model call. A reply cut off there fails its
    /// attempt with an issue that states the limit and asks for a shorter answer; the limit is
    /// never raised on a retry, and a retry cut off with the same text as the attempt before it
    /// ends the call (raise the limit, or ask for less). The token budget may lower it.
    pub max_output_tokens: Option<u32>,
    /// The sampling temperature (0 to 2); none is sent when `None`.
    pub temperature: Option<f32>,
    /// The model to ask; it goes to the fallback too.
    pub model: Option<String>,
    /// How hard a reasoning model thinks (OpenAI `reasoning_effort`, Gemini `thinkingLevel`);
    /// none is sent when `None`.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// The most tokens a model may spend thinking before it answers (Anthropic extended thinking,
    /// Gemini `thinkingBudget`; 0 turns thinking off). With Anthropic, `max_output_tokens` stays
    /// the answer's own limit: the budget is added to it, and the temperature is not sent.
    pub thinking_budget: Option<u32>,
    /// The provider to ask, by name; naming one turns fallback off.
    pub provider: Option<String>,
    /// Where the attempts after a failed one go: a stronger provider or model of the client, asked
    /// with the failed attempt's findings (see [`Escalation`](crate::Escalation)); retries go
    /// where the first attempt went when `None`.
    pub escalation: Option<crate::Escalation>,
    /// Rule lines stated to the model after the result type's own, under "Rules for members of
    /// `<result>`", each written as the type's own are: "- `quantity` of each element of `lines`:
    /// at most 1000". They are stated, not checked: an intent catalog checks its rules itself (see
    /// `AiCall::validate_json`). Merging options adds rule lines up rather than replacing them.
    pub rule_lines: Vec<String>,
    /// A JSON schema for a `serde_json::Value` result, sent strict.
    pub output_schema: Option<Value>,
    /// Ask a judge whether the answer carries out the intent (off when `None`).
    pub judge: Option<JudgeOptions>,
    /// Overrides the client's `max_attempts` for this request.
    pub max_attempts: Option<u32>,
    /// Overrides the client's token budget for this request: input plus output tokens over every
    /// model call, the judge's included. Each attempt's `max_output_tokens` is capped by what the
    /// budget leaves (less the least its prompt is known to take), and an attempt that cannot fit
    /// is not made: the call ends with an issue giving the figures. Input tokens are only known
    /// from a reply, so the first prompt is not bounded: a budget smaller than the prompt ends
    /// the call after its first attempt, having spent that prompt and at most the budget's
    /// worth of output.
    pub max_total_tokens: Option<u64>,
    /// Overrides the client's wall-clock deadline for this request.
    pub deadline: Option<Duration>,
    /// Skip the cache for this request (neither read nor written).
    pub no_cache: bool,
    /// Ask the provider to cache the prompt's stable prefix (the system message, the schema), so
    /// that repeated calls with the same instructions pay the cached input rate: Anthropic gets
    /// `cache_control: {"type": "ephemeral"}` on its system block, OpenAI (both APIs) a
    /// `prompt_cache_key` made from that prefix, which keeps such calls on the same cache; Gemini
    /// caches implicitly and needs nothing sent. The tokens served from the cache are in
    /// [`Usage::cached_tokens`](crate::Usage::cached_tokens) whichever way they were cached.
    /// Off by default: Anthropic bills writing the cache at more than the plain input rate, so it
    /// pays off only for a prefix reused within the cache's lifetime (5 minutes), and only one long
    /// enough to be cached at all (1024 to 4096 tokens by model; a shorter one is silently not).
    pub prompt_caching: bool,
    /// The sampling seed, for replies that repeat (OpenAI Chat Completions `seed`, Gemini
    /// `generationConfig.seed`); none is sent when `None`. Anthropic and the OpenAI Responses API
    /// take no seed: a request with one is refused by them before anything is sent.
    pub seed: Option<u64>,
    /// Nucleus sampling: only the most likely tokens whose probabilities add up to `top_p` (0
    /// to 1) are drawn from (OpenAI `top_p`, Anthropic `top_p`, Gemini `topP`); none is sent
    /// when `None`. Some newer Anthropic models refuse `top_p` together with a temperature.
    pub top_p: Option<f32>,
    /// Stop sequences: the model stops before writing any of them (OpenAI Chat Completions `stop`,
    /// at most 4; Anthropic `stop_sequences`; Gemini `stopSequences`, at most 5). A reply stopped
    /// inside its JSON fails verification like any other. The OpenAI Responses API takes no stop
    /// sequences: a request with some is refused by it before anything is sent.
    pub stop: Vec<String>,
    /// Any other body field, for what this library does not model: each key is written at the top
    /// level of the request body of whichever provider is asked, replacing a field of the same
    /// name (for example `{"logit_bias": {...}}` or `{"service_tier": "flex"}`). Since a fallback
    /// of another kind may refuse another API's fields, name a `provider` when you set one.
    /// Part of the cache key only when set, so setting none leaves every key as it was.
    pub extra_body: Option<Map<String, Value>>,
    /// Which of the checks that question a plausible answer run (see [`AnswerChecks`]); all of
    /// them when `None`. Members declared to come from the input (`#[intent(from_input)]`) are
    /// checked whatever this says.
    pub answer_checks: Option<AnswerChecks>,
    /// Ask the provider for the log probabilities of the reply's tokens, and record on each
    /// attempt the probability of every enum and `bool` member's chosen value
    /// ([`AttemptRecord::confidence`](crate::AttemptRecord::confidence)), so that the unsure
    /// answers of a classifier can go to a person. OpenAI Chat Completions (and compatible
    /// servers: llama.cpp, vLLM) and the Responses API, and Gemini give them; a provider that
    /// has none (Anthropic) refuses the request before anything is sent, and a reply that came
    /// without them says so in its attempt's notices. Probabilities belong to a live reply: a call
    /// that asks for them neither reads nor writes the cache.
    pub logprobs: bool,
    /// The most tool calls a call may make, over all its rounds and attempts (8 when `None`):
    /// the model asking for more ends the call with an [`IssueKind::Limit`](crate::IssueKind::Limit)
    /// issue naming the limit. Matters only for a call with tools ([`AiCall::tool`](crate::AiCall::tool)).
    pub max_tool_calls: Option<u32>,
    /// How the typed answer is asked for ([`OutputMode`]); [`OutputMode::Native`] when `None`.
    pub output_mode: Option<OutputMode>,
}

/// How a call asks the model for its typed answer. Whichever the mode, the answer is read and
/// verified by the same reader, against the same type.
///
/// ```
/// use intent_core::{AiRequestOptions, OutputMode};
///
/// let options = AiRequestOptions { output_mode: Some(OutputMode::Tool), ..Default::default() };
/// assert_eq!(options.output_mode, Some(OutputMode::Tool));
/// assert_eq!(OutputMode::default(), OutputMode::Native);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum OutputMode {
    /// The provider's own structured output: a strict JSON schema where the type has one,
    /// else JSON-object mode (today's behaviour).
    #[default]
    Native,
    /// The answer is the arguments of one forced tool, `final_answer`, whose parameters are the
    /// answer's `{"value": ...}` envelope schema: for servers with tool calling but no schema
    /// mode. No `response_format` is sent.
    Tool,
    /// JSON in the reply's text, the schema written into the prompt; nothing asked of the
    /// provider's structured output at all.
    Prompted,
}

/// The checks that question an answer which reads, verifies and passes its rules, yet is likely
/// not the input's: each asks the model once per call, and takes the same answer again as honest,
/// noting the finding on that attempt's [`notices`](crate::AttemptRecord::notices) ("Taken as the
/// model's answer, given again after attempt 1 questioned it: ..."). All are on by default;
/// [`AnswerChecks::none`] turns them all off.
///
/// | check | questions | kind |
/// |---|---|---|
/// | `copied_examples` | an answer that is a worked example's output, carrying a value of that example's input the input lacks | [`IssueKind::CopiedExample`](crate::IssueKind::CopiedExample) |
/// | `sample_values` | a member answered with a sample its description names (`such as A-1192`, `e.g. 40`, `` `draft` ``) that the input does not contain | [`IssueKind::CopiedExample`](crate::IssueKind::CopiedExample) |
/// | `rule_bounds` | a number answered with its own rule's bound (`minimum`, `maximum`) that the input does not contain | [`IssueKind::CopiedRule`](crate::IssueKind::CopiedRule) |
/// | `empty_lists` | an empty list answer to an input that is not empty | [`IssueKind::Empty`](crate::IssueKind::Empty) |
///
/// Set it on a call ([`AiRequestOptions::answer_checks`]), on the client's
/// [`default_options`](crate::IntentClientBuilder::default_options), or in an intent file
/// (`answerChecks: { copiedExamples: false }`). A member that must come from the input
/// (`#[intent(from_input)]`) is not one of these: an answer the input does not hold is never
/// taken.
///
/// ```
/// use intent_core::{AiRequestOptions, AnswerChecks};
///
/// assert!(AnswerChecks::default().copied_examples);
/// assert!(!AnswerChecks::none().empty_lists);
/// let options = AiRequestOptions {
///     answer_checks: Some(AnswerChecks { rule_bounds: false, ..AnswerChecks::default() }),
///     ..AiRequestOptions::default()
/// };
/// assert!(!options.answer_checks.unwrap().rule_bounds);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnswerChecks {
    /// Question an answer that copies a worked example's output.
    pub copied_examples: bool,
    /// Question a member answered with a sample value its description names.
    pub sample_values: bool,
    /// Question a number answered with its own rule's bound.
    pub rule_bounds: bool,
    /// Question an empty list answer to an input that is not empty.
    pub empty_lists: bool,
}

impl AnswerChecks {
    /// Every check on (the default).
    ///
    /// ```
    /// assert_eq!(intent_core::AnswerChecks::all(), intent_core::AnswerChecks::default());
    /// ```
    pub const fn all() -> Self {
        AnswerChecks {
            copied_examples: true,
            sample_values: true,
            rule_bounds: true,
            empty_lists: true,
        }
    }

    /// Every check off: a plausible answer is taken as it is.
    ///
    /// ```
    /// assert!(!intent_core::AnswerChecks::none().sample_values);
    /// ```
    pub const fn none() -> Self {
        AnswerChecks {
            copied_examples: false,
            sample_values: false,
            rule_bounds: false,
            empty_lists: false,
        }
    }
}

impl Default for AnswerChecks {
    fn default() -> Self {
        AnswerChecks::all()
    }
}

impl AiRequestOptions {
    /// Lays `over` on these options, field by field: a field set in `over` (`Some`, a non-empty
    /// list, `no_cache`, `prompt_caching` or `logprobs` true) wins; an unset one keeps what was
    /// here. Rule lines add up, and
    /// `extra_body` merges key by key (`over`'s keys win). This is what
    /// [`AiCall::options`](crate::AiCall::options) does with the options it is given.
    ///
    /// ```
    /// use intent_core::AiRequestOptions;
    ///
    /// let mut options = AiRequestOptions { temperature: Some(0.0), model: Some("small".into()), ..Default::default() };
    /// options.merge(AiRequestOptions { model: Some("large".into()), ..Default::default() });
    /// assert_eq!(options.temperature, Some(0.0)); // unset in the second: kept
    /// assert_eq!(options.model.as_deref(), Some("large")); // set in the second: wins
    /// ```
    pub fn merge(&mut self, over: AiRequestOptions) {
        // Destructured in full, so a new field cannot be forgotten here.
        let AiRequestOptions {
            expected_output_description,
            system_instructions,
            examples,
            max_output_tokens,
            temperature,
            model,
            reasoning_effort,
            thinking_budget,
            provider,
            rule_lines,
            output_schema,
            judge,
            max_attempts,
            max_total_tokens,
            deadline,
            no_cache,
            seed,
            top_p,
            stop,
            extra_body,
            escalation,
            prompt_caching,
            answer_checks,
            logprobs,
            max_tool_calls,
            output_mode,
        } = over;
        fn set<T>(field: &mut Option<T>, over: Option<T>) {
            if over.is_some() {
                *field = over;
            }
        }
        set(
            &mut self.expected_output_description,
            expected_output_description,
        );
        set(&mut self.system_instructions, system_instructions);
        if !examples.is_empty() {
            self.examples = examples;
        }
        set(&mut self.max_output_tokens, max_output_tokens);
        set(&mut self.temperature, temperature);
        set(&mut self.model, model);
        set(&mut self.reasoning_effort, reasoning_effort);
        set(&mut self.thinking_budget, thinking_budget);
        set(&mut self.provider, provider);
        set(&mut self.escalation, escalation);
        self.prompt_caching |= prompt_caching;
        set(&mut self.answer_checks, answer_checks);
        self.logprobs |= logprobs;
        set(&mut self.max_tool_calls, max_tool_calls);
        set(&mut self.output_mode, output_mode);
        for line in rule_lines {
            if !self.rule_lines.contains(&line) {
                self.rule_lines.push(line);
            }
        }
        set(&mut self.output_schema, output_schema);
        set(&mut self.judge, judge);
        set(&mut self.max_attempts, max_attempts);
        set(&mut self.max_total_tokens, max_total_tokens);
        set(&mut self.deadline, deadline);
        self.no_cache |= no_cache;
        set(&mut self.seed, seed);
        set(&mut self.top_p, top_p);
        if !stop.is_empty() {
            self.stop = stop;
        }
        match (&mut self.extra_body, extra_body) {
            (Some(mine), Some(theirs)) => mine.extend(theirs),
            (mine, theirs @ Some(_)) => *mine = theirs,
            (_, None) => {}
        }
    }

    /// These options laid on `defaults`: what a call with these options runs with on a client
    /// whose default options are `defaults` (see [`merge`](Self::merge)).
    ///
    /// ```
    /// use intent_core::AiRequestOptions;
    ///
    /// let client_wide = AiRequestOptions { temperature: Some(0.0), max_output_tokens: Some(400), ..Default::default() };
    /// let call = AiRequestOptions { max_output_tokens: Some(50), ..Default::default() };
    /// let effective = call.over(&client_wide);
    /// assert_eq!((effective.temperature, effective.max_output_tokens), (Some(0.0), Some(50)));
    /// ```
    pub fn over(self, defaults: &AiRequestOptions) -> AiRequestOptions {
        let mut options = defaults.clone();
        options.merge(self);
        options
    }
}

/// Options for every call of a client.
///
/// ```
/// use intent_core::IntentClientOptions;
///
/// let options = IntentClientOptions { max_attempts: 2, ..IntentClientOptions::default() };
/// assert_eq!(options.max_input_chars, 200_000);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct IntentClientOptions {
    /// The longest serialized input, in characters; a longer input fails before any call.
    pub max_input_chars: usize,
    /// Attempts per call, the first included (at least 1).
    pub max_attempts: u32,
    /// A token budget per call (input plus output, over every call), when set; see
    /// [`AiRequestOptions::max_total_tokens`] for what it bounds.
    pub max_total_tokens: Option<u64>,
    /// A wall-clock deadline per call, when set.
    pub deadline: Option<Duration>,
}

impl Default for IntentClientOptions {
    fn default() -> Self {
        IntentClientOptions {
            max_input_chars: 200_000,
            max_attempts: 3,
            max_total_tokens: None,
            deadline: None,
        }
    }
}

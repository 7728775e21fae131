//! What a call returns: [`AiResult`], its [`ResultIssue`]s, [`AttemptRecord`]s and [`Usage`].

use std::fmt;
use std::ops::{Add, AddAssign};
use std::time::Duration;

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// Cut off at the token limit.
    Length,
    /// The model refused.
    Refusal,
    /// The provider's content filter stopped the reply.
    ContentFilter,
    /// The provider ended the reply abnormally, for a reason that is none of the above and is not
    /// a normal end (Gemini `OTHER`, `LANGUAGE`, `MALFORMED_FUNCTION_CALL`, ...), as it named it:
    /// the reply is not read, and the attempt fails with the reason named.
    Abnormal(String),
    /// Any other reason, as the provider named it.
    Other(String),
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IssueKind {
    /// The reply is not readable JSON (or is empty).
    Parse,
    /// The reply's JSON does not have the result's shape: a missing member, a wrong type, a null.
    Shape,
    /// A member rule (`minimum`, `max_length`, `pattern`, ...) failed.
    Rule,
    /// A `require` or `validate` check failed.
    Check,
    /// The reply was cut off at the token limit.
    Truncated,
    /// The model refused, or the provider's content filter stopped the reply.
    Refused,
    /// The judge found the answer does not carry out the intent.
    Judge,
    /// The judge itself failed (its verdict was unreadable or its provider failed).
    JudgeFailed,
    /// The provider failed (after its transport retries) and no fallback answered.
    Provider,
    /// The input was refused before any call (too long, not serializable).
    Input,
    /// The request could not be built (an invalid runtime schema).
    Request,
    /// A limit of the call was reached: attempts, token budget, deadline.
    Limit,
    /// An empty list answer to an input that is not empty: questioned once per call, then taken
    /// as honest.
    Empty,
    /// The reply is a worked example's output, copied for an input that is not that example's.
    CopiedExample,
    /// A member's answer is its own rule's bound (`minimum`, `maximum`), a number the input does
    /// not contain: questioned once per call, then taken as honest.
    CopiedRule,
    /// A member declared to come from the input (`#[intent(from_input)]`, `from_input: true` in
    /// an intent file) holds a value the input does not contain. Never taken as honest.
    NotInInput,
}

/// One finding about a reply or a call, written for the model to act on.
///
/// ```
/// use intent_core::{IssueKind, ResultIssue};
///
/// let issue = ResultIssue::at("/value/quantity", IssueKind::Rule, "Must be at most 1000; got 1500.");
/// assert_eq!(issue.to_string(), "/value/quantity: Must be at most 1000; got 1500.");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultIssue {
    /// What is wrong and what to do, in words a model can act on.
    pub message: String,
    /// The JSON pointer of what is wrong in the reply (`/value/lines/2/sku`), where it applies.
    pub path: Option<String>,
    /// What the finding is about.
    pub kind: IssueKind,
}

impl ResultIssue {
    /// An issue about the reply as a whole.
    pub fn new(kind: IssueKind, message: impl Into<String>) -> Self {
        ResultIssue {
            message: message.into(),
            path: None,
            kind,
        }
    }

    /// An issue at a JSON pointer of the reply.
    pub fn at(path: impl Into<String>, kind: IssueKind, message: impl Into<String>) -> Self {
        ResultIssue {
            message: message.into(),
            path: Some(path.into()),
            kind,
        }
    }
}

impl fmt::Display for ResultIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) if !path.is_empty() => write!(f, "{path}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Tokens and model calls, summed over every call a result needed.
///
/// ```
/// use intent_core::Usage;
///
/// let total = Usage { input_tokens: 10, output_tokens: 5, cached_tokens: 0, reasoning_tokens: 0, calls: 1 }
///     + Usage { input_tokens: 12, output_tokens: 40, cached_tokens: 8, reasoning_tokens: 36, calls: 1 };
/// assert_eq!(total.total_tokens(), 67);
/// assert_eq!(total.reasoning_tokens, 36);
/// assert_eq!(total.calls, 2);
/// ```
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Completion tokens, reasoning tokens included (they are billed as output).
    pub output_tokens: u64,
    /// Prompt tokens the provider served from its prompt cache.
    pub cached_tokens: u64,
    /// The part of `output_tokens` the model spent reasoning (OpenAI `reasoning_tokens`, Gemini
    /// `thoughtsTokenCount`); 0 when the provider does not report it (Anthropic counts thinking in
    /// `output_tokens` without a separate figure).
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Model calls made (a reply served from this library's cache is not a call).
    pub calls: u32,
}

impl Usage {
    /// The usage of one call whose `input` leaves out the tokens written to and read from the
    /// prompt cache, as Anthropic's Messages API and Bedrock's Converse API count them: the
    /// input here counts all three, and `cached_tokens` the reads. A count the reply left out
    /// (or wrote unreadably) is 0.
    pub(crate) fn one_call_with_cache_apart(
        input: Option<u64>,
        cache_write: Option<u64>,
        cache_read: Option<u64>,
        output: Option<u64>,
        reasoning: Option<u64>,
    ) -> Usage {
        let cache_read = cache_read.unwrap_or(0);
        Usage {
            input_tokens: input
                .unwrap_or(0)
                .saturating_add(cache_write.unwrap_or(0))
                .saturating_add(cache_read),
            output_tokens: output.unwrap_or(0),
            cached_tokens: cache_read,
            reasoning_tokens: reasoning.unwrap_or(0),
            calls: 1,
        }
    }

    /// Input plus output tokens.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(mut self, other: Usage) -> Usage {
        self += other;
        self
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(other.cached_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
        self.calls = self.calls.saturating_add(other.calls);
    }
}

/// One model call of a result: what came back and what was found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AttemptRecord {
    /// 1 for the first attempt.
    pub number: u32,
    /// The reply's text, exactly as received (empty when no reply came).
    pub raw_output: String,
    /// The findings on this attempt's reply (empty when it passed).
    pub issues: Vec<ResultIssue>,
    /// The name of the provider that answered.
    pub provider: String,
    /// The model that answered, as the provider reported it.
    pub model: String,
    /// This attempt's usage (the judge's call included).
    pub usage: Usage,
    /// Wall-clock time of the attempt, verification included.
    pub latency: Duration,
    /// True when the reply came from the cache, not from a model.
    pub from_cache: bool,
    /// Why the model stopped, when a reply came.
    pub finish_reason: Option<FinishReason>,
    /// The model's reasoning, kept apart from the answer: what the provider returned beside it
    /// (`AiResponse::reasoning`) and the `<think>`, `<thinking>` and `<reasoning>` blocks the
    /// reader set aside in the reply, joined by blank lines. It is never read as the answer and
    /// never shown to the model again on a retry.
    pub reasoning: Option<String>,
    /// What happened to the attempt on the way that did not fail it, for the model to read as for
    /// people: a strict schema the provider refused (the attempt sent again in JSON-object mode),
    /// an escalation to a stronger model.
    pub notices: Vec<ResultIssue>,
    /// The judge's verdict on this attempt's answer, when a judge ran (it runs only on an answer
    /// that passed every other check).
    pub judge: Option<JudgeRecord>,
    /// With [`AiRequestOptions::logprobs`](crate::AiRequestOptions::logprobs): the probability of
    /// each enum and `bool` member's chosen value in this attempt's reply, in the order the reply
    /// writes them (empty when the provider gave no log probabilities, or the reply holds no such
    /// member).
    pub confidence: Vec<MemberConfidence>,
    /// The tools the model called during this attempt, in order, over every round: each with
    /// its arguments as sent, what went back, and how long it took (empty for a call without
    /// tools).
    pub tool_calls: Vec<crate::toolbox::ToolCallRecord>,
}

/// How sure the model was of one enum or `bool` member of its answer: the probability of the
/// tokens that wrote the chosen value, from the provider's log probabilities.
///
/// A probability near 1 says the model hardly considered another value; a classification below,
/// say, 0.8 is one to route to a person.
///
/// ```
/// use intent_core::MemberConfidence;
///
/// let sure = MemberConfidence { path: "/value/intent".into(), value: "refund".into(), probability: 0.97 };
/// assert!(sure.probability > 0.5);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MemberConfidence {
    /// The member's JSON pointer in the reply (`/value/intent`, `/value/lines/0/urgent`).
    pub path: String,
    /// The chosen value, as the answer holds it (`"refund"`, `true`).
    pub value: serde_json::Value,
    /// The probability of the value's tokens, 0 to 1: the product of each token's probability.
    pub probability: f64,
}

/// What the judge said about one attempt's answer: its verdict, its problems, and what it cost.
///
/// ```
/// use intent_core::prelude::*;
/// use intent_core::JudgeOptions;
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
/// # rt.block_on(async {
/// let model = ScriptedProvider::new([
///     r#"{"value": "Bonjour"}"#,
///     r#"{"verdict": "fail", "problems": ["Translate into Spanish, not French."]}"#,
///     r#"{"value": "Hola"}"#,
///     r#"{"verdict": "pass", "problems": []}"#,
/// ]);
/// let client = IntentClient::new(model);
/// let hello = <Option<String>>::ai(&client, "Hello", "Translate into Spanish.").judge(JudgeOptions::default()).await;
/// let first = hello.attempts()[0].judge.as_ref().unwrap();
/// assert!(!first.passed);
/// assert_eq!(first.problems, ["Translate into Spanish, not French."]);
/// assert!(hello.attempts()[1].judge.as_ref().unwrap().passed);
/// # });
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JudgeRecord {
    /// True when the judge found that the answer carries out the intent.
    pub passed: bool,
    /// The problems the judge listed (empty when it passed the answer).
    pub problems: Vec<String>,
    /// Why the judge could not decide (its reply unreadable, its provider failed); `passed` is
    /// then false.
    pub error: Option<String>,
    /// The provider the judge asked.
    pub provider: String,
    /// The model that judged, as the provider reported it (empty when no reply came).
    pub model: String,
    /// The judge call's usage (also counted in the attempt's `usage`).
    pub usage: Usage,
}

impl AttemptRecord {
    /// An empty record for attempt `number`.
    pub fn new(number: u32) -> Self {
        AttemptRecord {
            number,
            raw_output: String::new(),
            issues: Vec::new(),
            provider: String::new(),
            model: String::new(),
            usage: Usage::default(),
            latency: Duration::ZERO,
            from_cache: false,
            finish_reason: None,
            reasoning: None,
            notices: Vec::new(),
            judge: None,
            confidence: Vec::new(),
            tool_calls: Vec::new(),
        }
    }

    /// True when the attempt's reply passed every check.
    pub fn passed(&self) -> bool {
        self.issues.is_empty() && !self.raw_output.is_empty()
    }
}

/// The outcome of a call: your value, or the issues that kept it from being one, and every attempt.
///
/// It never panics and is never a bare error.
///
/// ```
/// use intent_core::{AiResult, IssueKind, ResultIssue};
///
/// let ok = AiResult::from_value(7u32);
/// assert!(ok.is_success());
/// assert_eq!(ok.value(), Some(&7));
///
/// let failed: AiResult<u32> = AiResult::failure(vec![ResultIssue::new(IssueKind::Parse, "The reply was empty.")]);
/// assert!(!failed.is_success());
/// assert!(failed.into_result().is_err());
/// ```
#[derive(Debug, Clone)]
pub struct AiResult<T> {
    value: Option<T>,
    issues: Vec<ResultIssue>,
    attempts: Vec<AttemptRecord>,
    usage: Usage,
}

impl<T> AiResult<T> {
    /// A successful result with no attempts (for tests and adapters).
    pub fn from_value(value: T) -> Self {
        AiResult {
            value: Some(value),
            issues: Vec::new(),
            attempts: Vec::new(),
            usage: Usage::default(),
        }
    }

    /// A failed result with these issues and no attempts.
    pub fn failure(issues: Vec<ResultIssue>) -> Self {
        AiResult {
            value: None,
            issues,
            attempts: Vec::new(),
            usage: Usage::default(),
        }
    }

    /// A result from its parts; `usage` is recomputed from the attempts when `None`.
    pub fn from_parts(
        value: Option<T>,
        issues: Vec<ResultIssue>,
        attempts: Vec<AttemptRecord>,
        usage: Option<Usage>,
    ) -> Self {
        let usage = usage.unwrap_or_else(|| {
            attempts
                .iter()
                .fold(Usage::default(), |sum, a| sum + a.usage)
        });
        AiResult {
            value,
            issues,
            attempts,
            usage,
        }
    }

    /// True when the result holds a value.
    pub fn is_success(&self) -> bool {
        self.value.is_some()
    }

    /// The value, when the call succeeded.
    pub fn value(&self) -> Option<&T> {
        self.value.as_ref()
    }

    /// The value, when the call succeeded.
    pub fn into_value(self) -> Option<T> {
        self.value
    }

    /// The final findings: empty on success, at least one on failure.
    pub fn issues(&self) -> &[ResultIssue] {
        &self.issues
    }

    /// Every attempt, in order, with its raw output (the last invalid one included).
    pub fn attempts(&self) -> &[AttemptRecord] {
        &self.attempts
    }

    /// Tokens and calls summed over every attempt, judge call and fallback.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The result taken apart without copying: value, final issues, attempts, usage.
    pub(crate) fn into_parts(self) -> (Option<T>, Vec<ResultIssue>, Vec<AttemptRecord>, Usage) {
        (self.value, self.issues, self.attempts, self.usage)
    }

    /// The value, or the final issues (what [`into_result`](Self::into_result) turns into an error).
    pub(crate) fn into_value_or_issues(self) -> Result<T, Vec<ResultIssue>> {
        self.value.ok_or(self.issues)
    }

    /// Maps the value, keeping issues, attempts and usage.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> AiResult<U> {
        AiResult {
            value: self.value.map(f),
            issues: self.issues,
            attempts: self.attempts,
            usage: self.usage,
        }
    }
}

//! What a request's model settings become for one vendor and model: each sent as asked, left out
//! with a notice for the attempt's record, or refused before anything is sent, by the family
//! table (`models`). A vendor's body writes what [`Plan`] keeps, and its `notices` are the plan's:
//! the two are made by the one function, so what is sent and what the record says cannot differ.
//!
//! The rules (their sources are `models`'):
//!
//! | setting | left out with a notice | refused before sending |
//! |---|---|---|
//! | `temperature`, `top_p` | OpenAI reasoning models (o-series, gpt-5); Anthropic with `with_send_temperature(false)` (temperature) | Anthropic with thinking on (temperature; `top_p` below 0.95); both at once on Anthropic models that take one or the other |
//! | `reasoning_effort` | a family that takes none (gpt-4o, Claude before Opus 4.5, Gemini 2.5 and earlier) | a level the family does not take (Gemini 3 Pro: `low` or `high`) |
//! | `thinking_budget` | OpenAI (no such field); a family that does not think | 0 (thinking off) on a model that only thinks (Gemini 2.5 Pro, Gemini 3 Pro) |
//!
//! A model the table does not know is sent every setting as asked, but the OpenAI thinking
//! budget, which no OpenAI API has a field for.

use super::models::{family, Family, Maker, Sampling};
use super::{ProviderError, ProviderErrorKind};
use crate::request::{AiRequest, ReasoningEffort};
use crate::result::{IssueKind, ResultIssue};

/// The settings of one request as one vendor sends them, and what it says of the rest.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) temperature: Option<f32>,
    pub(crate) top_p: Option<f32>,
    pub(crate) reasoning_effort: Option<ReasoningEffort>,
    pub(crate) thinking_budget: Option<u32>,
    /// What was left out, and why, for the attempt's record (empty for a plain request: nothing
    /// is allocated).
    pub(crate) notices: Vec<ResultIssue>,
}

/// Who sends the request, and how the vendor is set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Asker<'a> {
    pub(crate) maker: Maker,
    /// The API's name in messages (`OpenAI Chat Completions`, `Anthropic Messages`).
    pub(crate) api: &'a str,
    pub(crate) provider: &'a str,
    pub(crate) model: &'a str,
    /// Anthropic: whether the temperature is sent at all (`with_send_temperature`).
    pub(crate) send_temperature: bool,
}

impl Asker<'_> {
    fn notice(&self, plan: &mut Plan, setting: &str, why: &str) {
        plan.notices.push(self.left_out(setting, why));
    }

    /// Leaves a setting out when the request sets it: `slot` emptied, and a notice of `why` for the
    /// record (`why` is written only then).
    fn leave_out<T>(
        &self,
        slot: &mut Option<T>,
        plan_notices: &mut Vec<ResultIssue>,
        setting: &str,
        why: impl FnOnce() -> String,
    ) {
        if slot.take().is_some() {
            plan_notices.push(self.left_out(setting, &why()));
        }
    }

    fn left_out(&self, setting: &str, why: &str) -> ResultIssue {
        let subject = self.subject(setting, "was not sent to");
        ResultIssue::new(IssueKind::Request, format!("{subject}: {why}."))
    }

    /// A setting sent that will not do what it asks, and why.
    fn warn(&self, plan: &mut Plan, setting: &str, why: &str) {
        let subject = self.subject(setting, "was sent to");
        let message = format!("{subject}, but {why}.");
        plan.notices
            .push(ResultIssue::new(IssueKind::Request, message));
    }

    fn refuse(&self, setting: &str, why: &str) -> ProviderError {
        let subject = self.subject(setting, "cannot be sent to");
        ProviderError::new(
            ProviderErrorKind::InvalidRequest,
            format!("{subject}: {why}; nothing was sent"),
        )
        .with_provider(self.provider)
    }

    /// The start every message of the plan shares: `` `top_p` was not sent to p (API, model m) ``.
    fn subject<'s>(&'s self, setting: &'s str, verb: &'static str) -> Subject<'s> {
        Subject {
            asker: self,
            setting,
            verb,
        }
    }
}

/// See [`Asker::subject`].
struct Subject<'a> {
    asker: &'a Asker<'a>,
    setting: &'a str,
    verb: &'static str,
}

impl std::fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Asker {
            provider,
            api,
            model,
            ..
        } = self.asker;
        write!(
            f,
            "`{}` {} {provider} ({api}, model {model})",
            self.setting, self.verb
        )
    }
}

/// The plan of `request` for `asker`, or the refusal of a setting the model cannot take.
pub(crate) fn plan(asker: Asker<'_>, request: &AiRequest) -> Result<Plan, ProviderError> {
    let mut plan = Plan {
        temperature: request.temperature,
        top_p: request.top_p,
        reasoning_effort: request.reasoning_effort,
        thinking_budget: request.thinking_budget,
        notices: Vec::new(),
    };
    if request.prompt_caching {
        caching(asker, request, &mut plan);
    }
    if plan.temperature.is_none()
        && plan.top_p.is_none()
        && plan.reasoning_effort.is_none()
        && plan.thinking_budget.is_none()
    {
        return Ok(plan);
    }
    let family = family(asker.maker, asker.model);
    match asker.maker {
        Maker::OpenAi => openai(asker, family, &mut plan),
        Maker::Anthropic => anthropic(asker, family, &mut plan)?,
        Maker::Gemini => gemini(asker, family, &mut plan)?,
    }
    Ok(plan)
}

/// Bytes a token, at the fewest: the prefix's length estimated from it counts more tokens than
/// most text holds, so a prefix that reaches a minimum is not said to fall short of it.
const BYTES_A_TOKEN: usize = 3;

/// The shortest prefix most Anthropic models cache, for a model the table does not know.
const USUAL_MIN_CACHE_TOKENS: u32 = 1024;

/// Prompt caching: Anthropic caches nothing of a prefix below the model's minimum, and says
/// nothing of it (the reply's cache counts stay 0): the record says it instead. Gemini caches by
/// itself, and is sent nothing.
fn caching(asker: Asker<'_>, request: &AiRequest, plan: &mut Plan) {
    match asker.maker {
        Maker::Anthropic => {
            let minimum = family(asker.maker, asker.model)
                .map_or(USUAL_MIN_CACHE_TOKENS, |f| f.min_cache_tokens);
            let (intent, _) = super::http::intent_and_input(&request.user);
            let bytes = request.system.len()
                + request.schema.as_ref().map_or(0, |s| s.json().len())
                + intent.len();
            let tokens = bytes.div_ceil(BYTES_A_TOKEN);
            if tokens < minimum as usize {
                let why = format!(
                    "the prompt's stable prefix (system message, schema and intent) is about {tokens} tokens, below the {minimum} the model caches at the least: Anthropic caches none of it"
                );
                asker.warn(plan, "prompt_caching", &why);
            }
        }
        Maker::Gemini => asker.notice(
            plan,
            "prompt_caching",
            "Gemini caches repeated prefixes by itself (implicit caching, Gemini 2.5 and later) and takes no field for it; the reply's cachedContentTokenCount says what it cached",
        ),
        Maker::OpenAi => {}
    }
}

fn openai(asker: Asker<'_>, family: Option<&Family>, plan: &mut Plan) {
    let notices = &mut plan.notices;
    if let Some(family) = family.filter(|f| f.sampling == Sampling::Refused) {
        let why = || {
            format!(
            "{} reasoning models refuse sampling settings (\"Unsupported parameter: 'temperature' is not supported with this model\"); the model's own sampling is used",
            family.name
        )
        };
        asker.leave_out(&mut plan.temperature, notices, "temperature", why);
        asker.leave_out(&mut plan.top_p, notices, "top_p", why);
    }
    if let Some(family) = family.filter(|f| f.efforts.is_empty()) {
        let why = || {
            format!(
                "{} models do not reason, and refuse a reasoning effort",
                family.name
            )
        };
        asker.leave_out(&mut plan.reasoning_effort, notices, "reasoning_effort", why);
    }
    asker.leave_out(&mut plan.thinking_budget, notices, "thinking_budget", || {
        "OpenAI's APIs take no thinking budget; set `reasoning_effort` to bound a reasoning model's thinking".into()
    });
}

/// Leaves out the thinking budget of a family that does not think, with its notice.
fn no_thinking(asker: Asker<'_>, family: &Family, plan: &mut Plan) {
    let why = || format!("{} models do not think", family.name);
    asker.leave_out(
        &mut plan.thinking_budget,
        &mut plan.notices,
        "thinking_budget",
        why,
    );
}

fn anthropic(
    asker: Asker<'_>,
    family: Option<&Family>,
    plan: &mut Plan,
) -> Result<(), ProviderError> {
    if let Some(family) = family.filter(|f| !f.budget) {
        no_thinking(asker, family, plan);
    }
    let thinks = plan.thinking_budget.is_some_and(|b| b > 0);
    if !asker.send_temperature {
        let why = || "the provider is set `with_send_temperature(false)`".into();
        asker.leave_out(&mut plan.temperature, &mut plan.notices, "temperature", why);
    }
    if thinks && plan.temperature.is_some() {
        return Err(asker.refuse(
            "temperature",
            "extended thinking is not compatible with a changed temperature; leave `temperature` unset, or `thinking_budget` unset or 0",
        ));
    }
    if let Some(top_p) = plan.top_p.filter(|p| thinks && *p < 0.95) {
        return Err(asker.refuse(
            "top_p",
            &format!("with extended thinking, top_p must be from 0.95 to 1; the request asks for {top_p}"),
        ));
    }
    if family.is_some_and(|f| f.sampling == Sampling::OneOf)
        && plan.temperature.is_some()
        && plan.top_p.is_some()
    {
        return Err(asker.refuse(
            "top_p",
            "the model takes `temperature` or `top_p`, not both (\"`temperature` and `top_p` cannot both be specified for this model\"); set one",
        ));
    }
    if let Some(family) = family.filter(|f| f.efforts.is_empty()) {
        let why = || {
            format!(
            "{} models take no effort (`output_config.effort` is for Claude Opus 4.5 and later); set `thinking_budget` to bound its thinking",
            family.name
        )
        };
        asker.leave_out(
            &mut plan.reasoning_effort,
            &mut plan.notices,
            "reasoning_effort",
            why,
        );
    }
    Ok(())
}

fn gemini(asker: Asker<'_>, family: Option<&Family>, plan: &mut Plan) -> Result<(), ProviderError> {
    let Some(family) = family else {
        return Ok(());
    };
    if let Some(effort) = plan.reasoning_effort {
        if family.efforts.is_empty() {
            plan.reasoning_effort = None;
            let why = if family.budget {
                format!("{} models take a thinking budget, not a level (`thinkingLevel` is Gemini 3's); set `thinking_budget`", family.name)
            } else {
                format!("{} models do not think", family.name)
            };
            asker.notice(plan, "reasoning_effort", &why);
        } else if !family.takes_effort(effort) && plan.thinking_budget.is_none() {
            let levels: Vec<&str> = family.efforts.iter().map(|e| e.as_str()).collect();
            return Err(asker.refuse(
                "reasoning_effort",
                &format!(
                    "{} models take thinking level {}; the request asks for {effort}",
                    family.name,
                    levels.join(" or ")
                ),
            ));
        }
    }
    match plan.thinking_budget {
        Some(_) if !family.budget => no_thinking(asker, family, plan),
        Some(0) if !family.thinking_off => {
            return Err(asker.refuse(
                "thinking_budget",
                &format!(
                    "{} models only work in thinking mode, so thinking cannot be turned off (0)",
                    family.name
                ),
            ));
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asker(maker: Maker, model: &str) -> Asker<'_> {
        Asker {
            maker,
            api: "API",
            provider: "p",
            model,
            send_temperature: true,
        }
    }

    fn with(change: impl FnOnce(&mut AiRequest)) -> AiRequest {
        let mut request = AiRequest::new("s", "u");
        change(&mut request);
        request
    }

    #[test]
    fn a_plain_request_is_sent_as_it_is_and_allocates_no_notice() {
        let plan = plan(asker(Maker::OpenAi, "o3"), &AiRequest::new("s", "u")).unwrap();
        assert!(plan.notices.is_empty() && plan.notices.capacity() == 0);
    }

    #[test]
    fn reasoning_models_are_sent_no_sampling_and_the_record_says_so() {
        let request = with(|r| {
            r.temperature = Some(0.0);
            r.top_p = Some(0.5);
            r.reasoning_effort = Some(ReasoningEffort::Low);
        });
        let kept = plan(asker(Maker::OpenAi, "o3-mini"), &request).unwrap();
        assert_eq!((kept.temperature, kept.top_p), (None, None));
        assert_eq!(kept.reasoning_effort, Some(ReasoningEffort::Low));
        assert_eq!(kept.notices.len(), 2);
        assert!(kept.notices[0]
            .message
            .starts_with("`temperature` was not sent to p (API, model o3-mini)"));
        let plain = plan(asker(Maker::OpenAi, "gpt-4o-mini"), &request).unwrap();
        assert_eq!(plain.temperature, Some(0.0));
        assert_eq!(plain.reasoning_effort, None);
        assert!(plain.notices[0].message.contains("reasoning_effort"));
        let local = plan(asker(Maker::OpenAi, "qwen2.5"), &request).unwrap();
        assert!(local.notices.is_empty() && local.temperature.is_some());
    }

    #[test]
    fn anthropic_refuses_what_its_models_refuse() {
        let thinking = with(|r| {
            r.temperature = Some(0.3);
            r.thinking_budget = Some(2048);
        });
        let error = plan(asker(Maker::Anthropic, "claude-sonnet-4-5"), &thinking).unwrap_err();
        assert!(
            error.message.contains("`temperature` cannot be sent"),
            "{}",
            error.message
        );
        let both = with(|r| {
            r.temperature = Some(0.3);
            r.top_p = Some(0.9);
        });
        assert!(plan(asker(Maker::Anthropic, "claude-haiku-4-5"), &both).is_err());
        assert!(plan(asker(Maker::Anthropic, "claude-3-7-sonnet-latest"), &both).is_ok());
        let mut quiet = asker(Maker::Anthropic, "claude-haiku-4-5");
        quiet.send_temperature = false;
        let kept = plan(quiet, &with(|r| r.temperature = Some(0.3))).unwrap();
        assert_eq!(kept.temperature, None);
        assert!(kept.notices[0]
            .message
            .contains("with_send_temperature(false)"));
    }

    #[test]
    fn gemini_takes_the_thinking_its_models_take() {
        let effort = with(|r| r.reasoning_effort = Some(ReasoningEffort::Medium));
        let flash = plan(asker(Maker::Gemini, "gemini-2.5-flash"), &effort).unwrap();
        assert_eq!(flash.reasoning_effort, None);
        assert!(flash.notices[0].message.contains("thinking budget"));
        assert!(plan(asker(Maker::Gemini, "gemini-3-pro-preview"), &effort).is_err());
        assert!(plan(asker(Maker::Gemini, "gemini-3-flash"), &effort)
            .unwrap()
            .notices
            .is_empty());
        let off = with(|r| r.thinking_budget = Some(0));
        assert!(plan(asker(Maker::Gemini, "gemini-2.5-pro"), &off).is_err());
        assert!(plan(asker(Maker::Gemini, "gemini-2.5-flash"), &off).is_ok());
    }
}

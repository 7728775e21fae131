//! The judge: a second model call that checks an answer carries out the intent on the input.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::client::IntentClient;
use crate::input::SerializedInput;
use crate::options::JudgeOptions;
use crate::provider::FinishReason;
use crate::request::{AiRequest, ResponseFormat, JUDGE_SCHEMA_NAME};
use crate::result::Usage;
use crate::send::send;

/// The judge's system prompt.
pub const JUDGE_PREAMBLE: &str = "You review an answer that another model gave. Decide whether the answer carries out the intent on the input faithfully and completely, using only the intent and the input. Do not judge style. Reply with the verdict as JSON only.";

/// The judge's strict schema: a verdict and a list of problems.
pub fn judge_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["pass", "fail"]},
            "problems": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["verdict", "problems"],
        "additionalProperties": false
    })
}

/// What the judge decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    Fail(Vec<String>),
    /// The judge itself failed: its reply was unreadable or its provider failed.
    Broken(String),
}

/// A judge call's outcome and cost.
pub(crate) struct Judgement {
    pub(crate) verdict: Verdict,
    pub(crate) usage: Usage,
}

#[derive(Deserialize)]
struct Reply {
    verdict: String,
    #[serde(default)]
    problems: Vec<String>,
}

pub(crate) struct JudgeCase<'a> {
    pub(crate) intent: &'a str,
    pub(crate) input: &'a SerializedInput,
    pub(crate) answer: &'a str,
    pub(crate) answered_by: &'a str,
    pub(crate) model: Option<&'a str>,
    pub(crate) max_output_tokens: Option<u32>,
}

/// The judge's request for an answer.
pub(crate) fn request(case: &JudgeCase<'_>, options: &JudgeOptions) -> AiRequest {
    let mut user = String::with_capacity(case.input.text.len() + case.answer.len() + 512);
    user.push_str("## Intent\n");
    user.push_str(case.intent.trim());
    user.push_str("\n\n## Input (");
    user.push_str(&case.input.label);
    user.push_str(")\n");
    user.push_str(&case.input.text);
    user.push_str("\n\n## Answer\n");
    user.push_str(case.answer);
    user.push_str("\n\n## Your task\nDoes the answer carry out the intent on the input? Reply with {\"verdict\": \"pass\" or \"fail\", \"problems\": [...]}. List each problem on its own, written so the author of the answer can fix it; leave the list empty when the verdict is pass.");
    if let Some(extra) = options
        .instructions
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        user.push_str("\nAlso check: ");
        user.push_str(extra);
    }
    let mut request = AiRequest::new(JUDGE_PREAMBLE, user)
        .with_format(ResponseFormat::JsonSchema, Some(judge_schema()));
    request.schema_name = JUDGE_SCHEMA_NAME.to_owned();
    request.model = options
        .model
        .clone()
        .or_else(|| case.model.map(str::to_owned));
    request.max_output_tokens = case.max_output_tokens.map(|t| t.max(256));
    request.temperature = Some(0.0);
    request
}

/// Asks the judge about an answer.
pub(crate) async fn judge(
    client: &IntentClient,
    case: JudgeCase<'_>,
    options: &JudgeOptions,
) -> Judgement {
    let request = request(&case, options);
    let provider = options.provider.as_deref().unwrap_or(case.answered_by);
    match send(client, &request, Some(provider)).await {
        Err(error) => Judgement {
            verdict: Verdict::Broken(format!("the judge's provider failed: {error}")),
            usage: Usage::default(),
        },
        Ok((_, response)) => Judgement {
            verdict: match response.finish_reason {
                FinishReason::Length => Verdict::Broken(
                    "the judge's reply was cut off at its token limit (raise max_output_tokens)"
                        .to_owned(),
                ),
                FinishReason::Refusal | FinishReason::ContentFilter => {
                    Verdict::Broken("the judge's model refused to review the answer".to_owned())
                }
                _ => parse(&response.text),
            },
            usage: response.usage,
        },
    }
}

/// Reads a verdict, leniently about fences and prose around the JSON object.
pub(crate) fn parse(text: &str) -> Verdict {
    let (Some(start), Some(end)) = (text.find('{'), text.rfind('}')) else {
        return Verdict::Broken(format!(
            "the judge's reply holds no JSON object: {}",
            clip(text)
        ));
    };
    if end < start {
        return Verdict::Broken(format!(
            "the judge's reply holds no JSON object: {}",
            clip(text)
        ));
    }
    match serde_json::from_str::<Reply>(&text[start..=end]) {
        Ok(reply) => match reply.verdict.trim().to_ascii_lowercase().as_str() {
            "pass" => Verdict::Pass,
            "fail" => {
                let problems: Vec<String> = reply
                    .problems
                    .into_iter()
                    .map(|p| p.trim().to_owned())
                    .filter(|p| !p.is_empty())
                    .collect();
                Verdict::Fail(problems)
            }
            other => Verdict::Broken(format!(
                "the judge's verdict is \"{}\", not \"pass\" or \"fail\"",
                clip(other)
            )),
        },
        Err(e) => Verdict::Broken(format!("the judge's reply is not a verdict ({e})")),
    }
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pass_fail_and_broken_verdicts() {
        assert_eq!(parse(r#"{"verdict":"pass","problems":[]}"#), Verdict::Pass);
        assert_eq!(
            parse("```json\n{\"verdict\": \"FAIL\", \"problems\": [\"Wrong SKU.\", \" \"]}\n```"),
            Verdict::Fail(vec!["Wrong SKU.".into()])
        );
        assert!(matches!(parse("looks fine"), Verdict::Broken(_)));
        assert!(matches!(
            parse(r#"{"verdict": "maybe"}"#),
            Verdict::Broken(_)
        ));
        assert!(matches!(parse("} {"), Verdict::Broken(_)));
    }
}

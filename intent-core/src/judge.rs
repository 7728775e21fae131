//! The judge: a second model call that checks an answer carries out the intent on the input.

use std::sync::{Arc, LazyLock};
use std::time::Instant;

use serde::Deserialize;
use serde_json::Value;

use crate::client::IntentClient;
use crate::input::SerializedInput;
use crate::intent::Intent;
use crate::observe::{self, JudgeOutcome};
use crate::options::JudgeOptions;
use crate::provider::FinishReason;
use crate::read;
use crate::request::{AiRequest, ResponseFormat, JUDGE_SCHEMA_NAME};
use crate::result::Usage;
use crate::send::send;
use crate::shape::{EnumRepr, EnumShape, Field, Node, NodeId, ShapeGraph, StructKind, StructShape};
use crate::shape::{TypeInfo, Variant, VariantKind};

/// The judge's system prompt.
pub const JUDGE_PREAMBLE: &str = "You review an answer that another model gave. Decide whether the answer carries out the intent on the input faithfully and completely, using only the intent and the input. Do not judge style. Reply with the verdict as JSON only.";

/// The judge's strict schema: a verdict and a list of problems, derived from the shape of the
/// reply it is read into.
pub fn judge_schema() -> Value {
    static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
        let info = Reply::type_info();
        info.graph()
            .strict_schema(info.root())
            .unwrap_or(Value::Null)
    });
    SCHEMA.clone()
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
    /// The provider asked.
    pub(crate) provider: String,
    /// The model that answered, as its provider reported it (empty when none did).
    pub(crate) model: String,
}

/// The judge's reply, read by the reader like any result: its shape gives the strict schema the
/// judge is sent, and the reader's rules find and check the verdict in the reply.
///
/// `Intent` is written out here rather than derived, because the derive is an optional feature of
/// this crate; the shape it builds is the one `#[derive(Intent)]` would.
#[derive(Debug, Deserialize)]
struct Reply {
    verdict: Decision,
    #[serde(default)]
    problems: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Decision {
    Pass,
    Fail,
}

impl Intent for Reply {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(std::any::type_name::<Self>(), |graph, _| {
            let verdict = Field::new("verdict", Decision::shape(graph));
            let mut problems = Field::new("problems", Vec::<String>::shape(graph));
            problems.required = false;
            Node::Struct(StructShape::new(
                "JudgeVerdict",
                StructKind::Named(vec![verdict, problems]),
            ))
        })
    }
}

impl Intent for Decision {
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        graph.named(std::any::type_name::<Self>(), |_, _| {
            Node::Enum(EnumShape::new(
                "JudgeDecision",
                EnumRepr::External,
                vec![
                    Variant::new("pass", VariantKind::Unit),
                    Variant::new("fail", VariantKind::Unit),
                ],
            ))
        })
    }
}

fn reply_info() -> Arc<TypeInfo> {
    Reply::type_info()
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
    crate::attachment::describe_attachments(&mut user, &case.input.attachments);
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
    request.attachments = case.input.attachments.clone();
    request
}

/// Asks the judge about an answer.
pub(crate) async fn judge(
    client: &IntentClient,
    case: JudgeCase<'_>,
    options: &JudgeOptions,
) -> Judgement {
    let started = Instant::now();
    let request = request(&case, options);
    let provider = options.provider.as_deref().unwrap_or(case.answered_by);
    observe::spans::judge_asked(request.model.as_deref().unwrap_or_default());
    let (judgement, answered) = match send(client, &request, Some(provider)).await {
        Err(error) => (
            Judgement {
                verdict: Verdict::Broken(format!("the judge's provider failed: {error}")),
                usage: Usage::default(),
                provider: provider.to_owned(),
                model: String::new(),
            },
            None,
        ),
        Ok((answered_by, response)) => (
            Judgement {
                provider: answered_by.clone(),
                model: response.model.clone(),
                verdict: match response.finish_reason {
                    FinishReason::Length => Verdict::Broken(
                        "the judge's reply was cut off at its token limit (raise max_output_tokens)"
                            .to_owned(),
                    ),
                    FinishReason::Refusal | FinishReason::ContentFilter => Verdict::Broken(
                        "the judge's model refused to review the answer".to_owned(),
                    ),
                    _ => parse(&response.text),
                },
                usage: response.usage,
            },
            Some((answered_by, response)),
        ),
    };
    observe::judged(
        answered
            .as_ref()
            .map(|(p, r)| (p.as_str(), r.model.as_str(), &r.finish_reason)),
        judgement.verdict.outcome(),
        judgement.usage,
        started.elapsed(),
    );
    judgement
}

impl Verdict {
    /// The verdict as the observers are told it.
    fn outcome(&self) -> JudgeOutcome<'_> {
        match self {
            Verdict::Pass => JudgeOutcome::Passed,
            Verdict::Fail(problems) => JudgeOutcome::Failed(problems),
            Verdict::Broken(why) => JudgeOutcome::Broken(why),
        }
    }
}

/// Reads a verdict with the reader: leniently about form (fences, prose, an envelope), strictly
/// about content (a verdict of "pass" or "fail", problems as text).
pub(crate) fn parse(text: &str) -> Verdict {
    match read::read_reply::<Reply>(&reply_info(), text) {
        Ok(Reply {
            verdict: Decision::Pass,
            ..
        }) => Verdict::Pass,
        Ok(Reply {
            verdict: Decision::Fail,
            problems,
        }) => Verdict::Fail(
            problems
                .into_iter()
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect(),
        ),
        Err(issues) => {
            let found: Vec<String> = issues.iter().map(ToString::to_string).collect();
            Verdict::Broken(format!(
                "the judge's reply is not a verdict: {}",
                clip(&found.join(" "))
            ))
        }
    }
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(400) {
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
        assert_eq!(
            parse("<think>It says {\"verdict\": \"fail\"}?</think>\nVerdict: {\"verdict\": \"pass\", \"problems\": []}"),
            Verdict::Pass
        );
        let Verdict::Broken(why) = parse(r#"{"verdict": "maybe", "problems": []}"#) else {
            panic!("a verdict of maybe was read");
        };
        assert!(
            why.contains("/value/verdict: Must be one of: pass, fail"),
            "{why}"
        );
        assert!(matches!(
            parse(r#"{"verdict": "pass", "problems": ["#),
            Verdict::Broken(why) if why.contains("cut off")
        ));
    }

    #[test]
    fn the_schema_is_the_strict_schema_of_the_reply_shape() {
        assert_eq!(
            judge_schema(),
            serde_json::json!({
                "type": "object",
                "properties": {
                    "verdict": {"type": "string", "enum": ["pass", "fail"]},
                    "problems": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["verdict", "problems"],
                "additionalProperties": false
            })
        );
    }
}

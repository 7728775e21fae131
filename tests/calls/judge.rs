//! The judge: a second opinion on answers that types cannot check.

use intent_core::prelude::*;
use intent_core::provider::AiResponse;
use intent_core::ResponseFormat;
use intent_core::{IssueKind, JudgeOptions, Usage};

fn judged() -> AiRequestOptions {
    AiRequestOptions {
        judge: Some(JudgeOptions::default()),
        ..AiRequestOptions::default()
    }
}

fn reply(text: &str, input: u64, output: u64) -> AiResponse {
    let mut response = AiResponse::new(text, "scripted");
    response.usage = Usage {
        input_tokens: input,
        output_tokens: output,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    response
}

#[tokio::test]
async fn judge_rejects_then_accepts_and_its_problems_reach_the_retry_prompt() {
    let model = ScriptedProvider::new([
        r#"{"value": ["Bonjour"]}"#,
        r#"{"verdict": "fail", "problems": ["The answer is French; the intent asks for German."]}"#,
        r#"{"value": ["Guten Tag"]}"#,
        r#"{"verdict": "pass", "problems": []}"#,
    ]);
    let client = IntentClient::new(model.clone());
    let result = Vec::<String>::ai(&client, "Good day", "Translate into German.")
        .options(judged())
        .await;
    assert_eq!(result.value(), Some(&vec!["Guten Tag".to_owned()]));
    assert_eq!(result.attempts().len(), 2);
    let first = &result.attempts()[0];
    assert_eq!(first.issues.len(), 1);
    assert_eq!(first.issues[0].kind, IssueKind::Judge);

    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[1].schema_name, "judge_verdict");
    assert_eq!(requests[1].format, ResponseFormat::JsonSchema);
    assert!(requests[1]
        .user
        .contains("## Answer\n{\"value\": [\"Bonjour\"]}"));
    assert!(requests[2].user.contains(
        "## Problems with the previous attempt\n- The answer is French; the intent asks for German."
    ));
    assert_eq!(result.usage().calls, 4);
}

#[tokio::test]
async fn a_broken_judge_is_reported_as_the_judge_failing_not_the_answer() {
    let model = ScriptedProvider::new([r#"{"value": 3}"#, "I think it is fine."]);
    let client = IntentClient::new(model.clone());
    let result = u32::ai(&client, "a b c", "Count the words.")
        .options(judged())
        .await;
    assert!(!result.is_success());
    assert_eq!(result.issues().len(), 1);
    assert_eq!(result.issues()[0].kind, IssueKind::JudgeFailed);
    assert!(result.issues()[0].message.contains("judge"));
    // No second answer was asked for: the answer was not at fault.
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn the_judge_can_name_its_own_provider_and_model() {
    let answerer = ScriptedProvider::new([r#"{"value": 3}"#]);
    let reviewer =
        ScriptedProvider::new([r#"{"verdict": "pass", "problems": []}"#]).with_name("reviewer");
    let client = IntentClient::builder()
        .provider(answerer.clone())
        .fallback(reviewer.clone())
        .build()
        .unwrap();
    let options = AiRequestOptions {
        judge: Some(JudgeOptions {
            provider: Some("reviewer".into()),
            model: Some("big-model".into()),
            instructions: Some("The count must include numbers.".into()),
        }),
        ..AiRequestOptions::default()
    };
    let result = u32::ai(&client, "a b c", "Count the words.")
        .options(options)
        .await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(answerer.requests().len(), 1);
    let judge_requests = reviewer.requests();
    assert_eq!(judge_requests.len(), 1);
    assert_eq!(judge_requests[0].model.as_deref(), Some("big-model"));
    assert!(judge_requests[0]
        .user
        .contains("Also check: The count must include numbers."));
}

#[tokio::test]
async fn usage_is_summed_over_three_attempts_and_a_judge_call() {
    let model = ScriptedProvider::new([
        reply("not json", 100, 10),
        reply(r#"{"value": "three"}"#, 120, 12),
        reply(r#"{"value": 3}"#, 140, 5),
        reply(r#"{"verdict": "pass", "problems": []}"#, 60, 8),
    ]);
    let client = IntentClient::new(model);
    let result = u32::ai(&client, "a b c", "Count the words.")
        .options(judged())
        .await;
    assert_eq!(result.value(), Some(&3));
    assert_eq!(
        result.usage(),
        Usage {
            input_tokens: 420,
            output_tokens: 35,
            cached_tokens: 0,
            reasoning_tokens: 0,
            calls: 4
        }
    );
    assert_eq!(
        result.attempts()[2].usage.calls,
        2,
        "the judge's call is in its attempt"
    );
    let summed = result
        .attempts()
        .iter()
        .fold(Usage::default(), |sum, a| sum + a.usage);
    assert_eq!(summed, result.usage());
}

#[tokio::test]
async fn each_attempt_records_the_judges_verdict_problems_usage_and_model() {
    let mut reviewer_reply = reply(
        r#"{"verdict": "fail", "problems": ["Count the numbers too."]}"#,
        30,
        8,
    );
    reviewer_reply.model = "judge-model-1".into();
    let model = ScriptedProvider::new([
        reply(r#"{"value": 3}"#, 10, 2),
        reviewer_reply,
        reply(r#"{"value": 4}"#, 12, 2),
        reply(r#"{"verdict": "pass", "problems": []}"#, 31, 4),
    ]);
    let client = IntentClient::new(model);
    let result = u32::ai(&client, "a b c 4", "Count the words.")
        .judge(JudgeOptions::default())
        .await;
    assert_eq!(result.value(), Some(&4));
    let first = result.attempts()[0].judge.as_ref().expect("a judge ran");
    assert!(!first.passed);
    assert_eq!(first.problems, ["Count the numbers too."]);
    assert_eq!(first.error, None);
    assert_eq!(first.provider, "scripted");
    assert_eq!(first.model, "judge-model-1");
    assert_eq!(
        (first.usage.input_tokens, first.usage.output_tokens),
        (30, 8)
    );
    let second = result.attempts()[1].judge.as_ref().expect("a judge ran");
    assert!(second.passed && second.problems.is_empty());
}

#[tokio::test]
async fn a_broken_judge_is_on_the_record_with_its_reason_and_no_judge_means_none() {
    let model = ScriptedProvider::new([r#"{"value": 3}"#, "I think it is fine."]);
    let client = IntentClient::new(model);
    let result = u32::ai(&client, "a b c", "Count the words.")
        .options(judged())
        .await;
    let record = result.attempts()[0].judge.as_ref().expect("a judge ran");
    assert!(!record.passed);
    assert!(
        record.error.as_deref().unwrap().contains("not a verdict"),
        "{record:?}"
    );

    // An answer that fails its own checks is not judged; a call without a judge records none.
    let model =
        ScriptedProvider::new(["not a number", r#"{"value": 3}"#, r#"{"verdict": "pass"}"#]);
    let client = IntentClient::new(model);
    let result = u32::ai(&client, "a b c", "Count the words.")
        .options(judged())
        .await;
    assert!(result.attempts()[0].judge.is_none());
    assert!(result.attempts()[1].judge.as_ref().unwrap().passed);
    let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 3}"#]));
    let plain = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(plain.attempts()[0].judge.is_none());
}

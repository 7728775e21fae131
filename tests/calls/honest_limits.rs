//! Limits that hold and say so: a reply cut off at the token limit and what the retry does, the
//! token budget capping each reply and ending a call before an attempt that cannot fit, and
//! attempts that fail before any provider answers naming the provider that would have been
//! asked.

use std::time::Duration;

use intent_core::prelude::*;
use intent_core::provider::ScriptedReply;
use intent_core::{IssueKind, Usage};

fn costing(reply: ScriptedReply, input_tokens: u64, output_tokens: u64) -> ScriptedReply {
    let mut response = match reply {
        ScriptedReply::Response(response) => response,
        other => return other,
    };
    response.usage = Usage {
        input_tokens,
        output_tokens,
        cached_tokens: 0,
        reasoning_tokens: 0,
        calls: 1,
    };
    response.into()
}

#[tokio::test]
async fn a_cut_reply_is_retried_with_the_limit_stated_and_a_shorter_answer_passes() {
    let model = ScriptedProvider::new([
        ScriptedReply::truncated(r#"{"value": "a very long answ"#),
        ScriptedReply::from(r#"{"value": "short"}"#),
    ]);
    let client = IntentClient::new(model.clone());
    let answer = <Option<String>>::ai(&client, "x", "Answer.")
        .max_output_tokens(8)
        .await;
    assert_eq!(answer.value(), Some(&Some("short".to_owned())));
    let requests = model.requests();
    // The limit is kept, never raised.
    assert_eq!(requests[1].max_output_tokens, Some(8));
    assert!(requests[1].user.contains(
        "The reply was cut off at the token limit (max_output_tokens = 8) after 27 characters. Give a complete answer that fits within 8 tokens"
    ), "{}", requests[1].user);
}

#[tokio::test]
async fn the_same_cut_reply_twice_ends_the_call_without_a_third_attempt() {
    let cut = r#"{"value": "the same long answ"#;
    let model = ScriptedProvider::new([
        ScriptedReply::truncated(cut),
        ScriptedReply::truncated(cut),
        ScriptedReply::from(r#"{"value": "never asked"}"#),
    ]);
    let client = IntentClient::new(model.clone());
    let answer = <Option<String>>::ai(&client, "x", "Answer.")
        .max_output_tokens(8)
        .await;
    assert!(!answer.is_success());
    assert_eq!(answer.attempts().len(), 2);
    assert_eq!(model.remaining(), 1, "no third request was sent");
    let last = answer.issues().last().unwrap();
    assert_eq!(last.kind, IssueKind::Limit);
    assert!(
        last.message
            .contains("Attempts 1 and 2 were cut off at the token limit with the same reply"),
        "{}",
        last.message
    );
    assert!(
        last.message.contains("Raise max_output_tokens"),
        "{}",
        last.message
    );
    assert_eq!(answer.issues()[0].kind, IssueKind::Truncated);
}

#[tokio::test]
async fn different_cut_replies_keep_retrying_within_max_attempts() {
    let model = ScriptedProvider::new([
        ScriptedReply::truncated(r#"{"value": "one long"#),
        ScriptedReply::truncated(r#"{"value": "two long"#),
        ScriptedReply::truncated(r#"{"value": "three long"#),
    ]);
    let client = IntentClient::new(model.clone());
    let answer = <Option<String>>::ai(&client, "x", "Answer.").await;
    assert_eq!(answer.attempts().len(), 3);
    assert!(answer
        .issues()
        .last()
        .unwrap()
        .message
        .contains("max_attempts (3)"));
}

#[tokio::test]
async fn the_token_budget_caps_each_replys_limit_by_what_remains() {
    let model = ScriptedProvider::new([
        costing(ScriptedReply::from("not a number"), 20, 10),
        costing(ScriptedReply::from(r#"{"value": 4}"#), 25, 3),
    ]);
    let client = IntentClient::new(model.clone());
    let four = u32::ai(&client, "four", "Read the number.")
        .max_output_tokens(500)
        .max_total_tokens(100)
        .await;
    assert_eq!(four.value(), Some(&4), "{:?}", four.issues());
    let requests = model.requests();
    // Nothing used yet: the whole budget, below the call's own limit.
    assert_eq!(requests[0].max_output_tokens, Some(100));
    // 30 used, and the next prompt takes at least the first one's 20.
    assert_eq!(requests[1].max_output_tokens, Some(50));
}

#[tokio::test]
async fn a_budget_smaller_than_the_prompt_ends_the_call_after_one_attempt() {
    // A budget of 50, a first attempt of 292 tokens: the first prompt cannot be bounded, but its
    // reply is capped at 50 and no second attempt is made.
    let model = ScriptedProvider::new([
        costing(ScriptedReply::from("not a number"), 250, 42),
        costing(ScriptedReply::from(r#"{"value": 4}"#), 250, 2),
    ]);
    let client = IntentClient::new(model.clone());
    let result = u32::ai(&client, "four", "Read the number.")
        .max_total_tokens(50)
        .await;
    assert!(!result.is_success());
    assert_eq!(result.attempts().len(), 1);
    assert_eq!(model.requests()[0].max_output_tokens, Some(50));
    let last = result.issues().last().unwrap();
    assert_eq!(last.kind, IssueKind::Limit);
    assert!(
        last.message.contains("max_total_tokens = 50"),
        "{}",
        last.message
    );
}

#[tokio::test]
async fn an_attempt_that_cannot_fit_is_not_made() {
    // 60 of 100 used; the next prompt takes at least 45: no room for a reply.
    let model = ScriptedProvider::new([
        costing(ScriptedReply::from("not a number"), 45, 15),
        costing(ScriptedReply::from(r#"{"value": 4}"#), 45, 2),
    ]);
    let client = IntentClient::new(model.clone());
    let result = u32::ai(&client, "four", "Read the number.")
        .max_total_tokens(100)
        .await;
    assert!(!result.is_success());
    assert_eq!(model.remaining(), 1, "the second attempt was not sent");
    let last = result.issues().last().unwrap();
    assert_eq!(
        last.message,
        "The call used 60 tokens of its token budget (max_total_tokens = 100), and the next attempt's prompt alone takes at least 45; no further attempt was made."
    );
    // The first attempt's own findings come first.
    assert_eq!(result.issues()[0].kind, IssueKind::Parse);
}

#[tokio::test]
async fn an_attempt_that_fails_before_any_reply_names_the_provider_it_would_have_asked() {
    let slow = ScriptedProvider::new([
        ScriptedReply::from(r#"{"value": 1}"#).after(Duration::from_secs(5))
    ])
    .with_name("primary-llm");
    let client = IntentClient::new(slow);
    let late = u32::ai(&client, "one", "Read the number.")
        .deadline(Duration::from_millis(20))
        .await;
    assert!(!late.is_success());
    assert_eq!(late.attempts()[0].provider, "primary-llm");

    let client = IntentClient::new(ScriptedProvider::new([r#"{"value": 1}"#]).with_name("only"));
    let unknown = u32::ai(&client, "one", "Read the number.")
        .provider("missing")
        .await;
    assert_eq!(unknown.attempts()[0].provider, "missing");
    assert!(unknown.issues()[0]
        .message
        .contains("no provider named \"missing\"; this client has: only"));
}

#[tokio::test]
async fn a_budget_of_zero_makes_no_attempt() {
    let model = ScriptedProvider::new([r#"{"value": 4}"#]);
    let client = IntentClient::new(model.clone());
    let result = u32::ai(&client, "four", "Read the number.")
        .max_total_tokens(0)
        .await;
    assert!(result.attempts().is_empty());
    assert_eq!(model.remaining(), 1);
    assert_eq!(
        result.issues()[0].message,
        "The token budget (max_total_tokens = 0) leaves no room for a reply; no attempt was made."
    );
}

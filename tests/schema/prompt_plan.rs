//! How a call is asked for: the response format and schema per target, and the wording rules of
//! each section of the user message.

use std::collections::{BTreeMap, HashMap};

use intent_core::__internals::prompt::{self, PREVIOUS_OUTPUT_LIMIT};
use intent_core::prelude::*;
use intent_core::prompt::SYSTEM_PREAMBLE;
use intent_core::schema::build_envelope_from_schema;
use intent_core::shape::TypeInfo;
use intent_core::{AiRequest, ResponseFormat};
use intent_core::{IssueKind, ResultIssue};
use intent_tests::strict_schema::assert_openai_strict;
use serde_json::{json, Value};

const JSON_TYPES: &str = "Use JSON types faithfully";

/// The first request of a call for `T` with `options`, and the call's result.
async fn first_request<T: Intent + Send + 'static>(
    reply: &str,
    options: AiRequestOptions,
) -> (AiRequest, AiResult<T>) {
    let model = ScriptedProvider::new([reply]);
    let client = IntentClient::new(model.clone());
    let result = T::ai(&client, "the input", "  Do the thing.  ")
        .options(options)
        .await;
    let request = model
        .requests()
        .into_iter()
        .next()
        .expect("a request was sent");
    (request, result)
}

fn plan_for<T: Intent>(options: &AiRequestOptions) -> prompt::PromptPlan {
    let input = intent_core::__internals::input::serialize("the input", 1000).unwrap();
    prompt::plan(&TypeInfo::of::<T>(), options, "Do the thing.", &input).unwrap()
}

#[tokio::test]
async fn a_string_is_asked_for_as_plain_text() {
    let (request, result) = first_request::<String>("done", AiRequestOptions::default()).await;
    assert_eq!(result.value().map(String::as_str), Some("done"));
    assert_eq!(request.format, ResponseFormat::Text);
    assert_eq!(request.schema, None);
    assert!(request
        .user
        .ends_with("## Output requirements\nPlain text only: no JSON, no markdown, no preamble."));
    assert!(!request.user.contains("{\"value\""));
}

#[tokio::test]
async fn a_strict_type_is_asked_for_with_its_envelope_schema() {
    let (request, _) =
        first_request::<Vec<u32>>(r#"{"value": [1]}"#, AiRequestOptions::default()).await;
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    assert_eq!(
        request.schema.as_deref(),
        <Vec<u32>>::strict_envelope_schema().as_ref()
    );
    assert_eq!(request.schema_name, "intent_output");
    assert!(request.user.contains(
        "## Output requirements\nReply with one JSON object {\"value\": <result>}, where <result> is List<uint>"
    ));
    assert!(!request.user.contains(JSON_TYPES));
    assert_openai_strict(request.schema.as_ref().unwrap());
}

#[tokio::test]
async fn an_optional_string_is_a_strict_json_target_not_text() {
    let (request, result) =
        first_request::<Option<String>>(r#"{"value": null}"#, AiRequestOptions::default()).await;
    assert!(result.is_success(), "{:?}", result.issues());
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    assert!(request.user.contains("where <result> is string?"));
}

#[tokio::test]
async fn a_map_falls_back_to_json_object_mode_and_says_use_json_types() {
    let (request, _) = first_request::<HashMap<String, u32>>(
        r#"{"value": {"a": 1}}"#,
        AiRequestOptions::default(),
    )
    .await;
    assert_eq!(request.format, ResponseFormat::JsonObject);
    assert_eq!(request.schema, None);
    assert!(request.user.contains(
        "where <result> is Dictionary<string, uint>\nUse JSON types faithfully: numbers as numbers"
    ));
    // OpenAI's JSON-object mode requires the word "JSON" in the messages.
    assert!(request.user.contains("JSON"));
    let (request, _) = first_request::<BTreeMap<String, Vec<bool>>>(
        r#"{"value": {}}"#,
        AiRequestOptions::default(),
    )
    .await;
    assert_eq!(request.format, ResponseFormat::JsonObject);
}

#[tokio::test]
async fn a_json_value_without_a_schema_is_any_json_value() {
    let (request, _) = first_request::<Value>(r#"{"value": 1}"#, AiRequestOptions::default()).await;
    assert_eq!(request.format, ResponseFormat::JsonObject);
    assert_eq!(request.schema, None);
    assert!(request
        .user
        .contains("where <result> is a JSON value\nUse JSON types faithfully"));
}

#[tokio::test]
async fn a_json_value_with_a_schema_is_sent_the_runtime_envelope() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}});
    let options = AiRequestOptions {
        output_schema: Some(schema.clone()),
        ..AiRequestOptions::default()
    };
    let (request, result) = first_request::<Value>(r#"{"value": {"n": 3}}"#, options).await;
    assert_eq!(result.value(), Some(&json!({"n": 3})));
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    assert_eq!(
        request.schema.as_deref(),
        Some(&build_envelope_from_schema(&schema).unwrap())
    );
    assert_eq!(request.schema_name, "intent_output");
    assert!(request
        .user
        .contains("where <result> is a JSON value that conforms to the provided JSON schema"));
    assert!(!request.user.contains(JSON_TYPES));
    assert_openai_strict(request.schema.as_ref().unwrap());
}

#[tokio::test]
async fn transform_sends_its_schema_and_keeps_it_under_other_options() {
    let model = ScriptedProvider::new([r#"{"value": {"sku": "A"}}"#]);
    let client = IntentClient::new(model.clone());
    let schema = json!({"type": "object", "properties": {"sku": {"type": "string"}}});
    let result = client
        .transform("x", "Extract.", schema.clone())
        .options(AiRequestOptions {
            max_output_tokens: Some(9),
            ..AiRequestOptions::default()
        })
        .await;
    assert!(result.is_success(), "{:?}", result.issues());
    let request = &model.requests()[0];
    assert_eq!(
        request.schema.as_deref(),
        Some(&build_envelope_from_schema(&schema).unwrap())
    );
    assert_eq!(request.max_output_tokens, Some(9));
}

#[tokio::test]
async fn an_invalid_runtime_schema_fails_before_any_call() {
    let model = ScriptedProvider::new([r#"{"value": 1}"#]);
    let client = IntentClient::new(model.clone());
    let result = client
        .transform("x", "Extract.", json!({"properties": {"a": {"$ref": 7}}}))
        .await;
    assert!(!result.is_success());
    assert_eq!(result.issues()[0].kind, IssueKind::Request);
    assert_eq!(
        result.issues()[0].message,
        "invalid output schema: `$ref` at `/properties/a` must be a string, not a number"
    );
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn an_output_schema_on_a_typed_result_fails_before_any_call() {
    let model = ScriptedProvider::new([r#"{"value": 1}"#]);
    let client = IntentClient::new(model.clone());
    let options = AiRequestOptions {
        output_schema: Some(json!({"type": "integer"})),
        ..AiRequestOptions::default()
    };
    let result = u32::ai(&client, "x", "Count.").options(options).await;
    assert_eq!(result.issues()[0].kind, IssueKind::Request);
    assert!(result.issues()[0]
        .message
        .contains("output_schema applies to serde_json::Value results only"));
    assert!(model.requests().is_empty());
}

#[test]
fn the_system_message_is_the_preamble_then_the_instructions_after_a_blank_line() {
    assert!(SYSTEM_PREAMBLE.contains("exactly"));
    assert!(SYSTEM_PREAMBLE.contains("Use only the input and the intent"));
    assert!(SYSTEM_PREAMBLE.contains("no preamble"));
    assert!(SYSTEM_PREAMBLE.contains("no markdown fences"));
    let plain = plan_for::<u32>(&AiRequestOptions::default()).request(None);
    assert_eq!(plain.system.as_str(), SYSTEM_PREAMBLE);
    let options = AiRequestOptions {
        system_instructions: Some("\n  Be terse.  ".into()),
        ..AiRequestOptions::default()
    };
    assert_eq!(
        *plan_for::<u32>(&options).request(None).system,
        format!("{SYSTEM_PREAMBLE}\n\nBe terse.")
    );
    let blank = AiRequestOptions {
        system_instructions: Some("  \n".into()),
        ..AiRequestOptions::default()
    };
    assert_eq!(
        plan_for::<u32>(&blank).request(None).system.as_str(),
        SYSTEM_PREAMBLE
    );
}

#[tokio::test]
async fn the_intent_is_trimmed_and_the_input_is_not() {
    let model = ScriptedProvider::new(["ok"]);
    let client = IntentClient::new(model.clone());
    let _ = String::ai(&client, "  spaced input \n", "\n\t Translate.  \n").await;
    let user = &model.requests()[0].user;
    assert!(user.starts_with(
        "## Intent\nTranslate.\n\n## Input (string)\n  spaced input \n\n\n## Output requirements\n"
    ));
}

#[test]
fn the_expected_output_description_closes_the_requirements() {
    for (plan, contract) in [
        (
            plan_for::<String> as fn(&AiRequestOptions) -> prompt::PromptPlan,
            "Plain text only: no JSON, no markdown, no preamble.",
        ),
        (plan_for::<HashMap<String, u8>>, "Use JSON types faithfully"),
    ] {
        let options = AiRequestOptions {
            expected_output_description: Some(" ISO 4217 codes. ".into()),
            ..AiRequestOptions::default()
        };
        let user = plan(&options).request(None).user;
        assert!(
            user.ends_with("\nAdditional output requirements: ISO 4217 codes."),
            "{user}"
        );
        assert!(user.contains(contract));
        let blank = AiRequestOptions {
            expected_output_description: Some(" ".into()),
            ..AiRequestOptions::default()
        };
        assert!(!plan(&blank)
            .request(None)
            .user
            .contains("Additional output requirements"));
    }
}

#[test]
fn examples_are_numbered_from_one_trimmed_and_one_blank_line_apart() {
    let options = AiRequestOptions {
        examples: vec![
            IntentExample::new(" a ", " {\"value\": 1} "),
            IntentExample::new("b\n", "{\"value\": 2}\n"),
            IntentExample::new("c", "{\"value\": 3}"),
        ],
        ..AiRequestOptions::default()
    };
    let user = plan_for::<u32>(&options).request(None).user;
    let examples = &user[user.find("\n\n## Examples\n").expect("an examples section")..];
    assert_eq!(
        examples,
        "\n\n## Examples\n\
         Example 1 input:\na\nExample 1 output:\n{\"value\": 1}\n\n\
         Example 2 input:\nb\nExample 2 output:\n{\"value\": 2}\n\n\
         Example 3 input:\nc\nExample 3 output:\n{\"value\": 3}\n\
         Apply the same judgement and format to the input above."
    );
    assert!(!plan_for::<u32>(&AiRequestOptions::default())
        .request(None)
        .user
        .contains("## Examples"));
}

#[test]
fn examples_come_before_the_retry_sections() {
    let options = AiRequestOptions {
        examples: vec![IntentExample::new("a", "{\"value\": 1}")],
        ..AiRequestOptions::default()
    };
    let mut previous = AttemptRecord::new(1);
    previous.raw_output = "oops".into();
    previous.issues = vec![ResultIssue::new(IssueKind::Parse, "Reply with JSON.")];
    let user = plan_for::<u32>(&options).request(Some(&previous)).user;
    assert!(user.contains(
        "Apply the same judgement and format to the input above.\n\n## Previous attempt\noops\n\n\
         ## Problems with the previous attempt\n- Reply with JSON.\n\
         Produce a corrected response that fixes every listed problem while still satisfying the intent."
    ));
    assert!(user.ends_with("while still satisfying the intent."));
}

fn previous_output_shown(raw: &str) -> String {
    let mut previous = AttemptRecord::new(1);
    previous.raw_output = raw.to_owned();
    previous.issues = vec![ResultIssue::new(IssueKind::Parse, "Bad.")];
    let user = plan_for::<u32>(&AiRequestOptions::default())
        .request(Some(&previous))
        .user;
    let start = user.find("## Previous attempt\n").unwrap() + "## Previous attempt\n".len();
    let end = user
        .find("\n\n## Problems with the previous attempt")
        .unwrap();
    user[start..end].to_owned()
}

#[test]
fn a_previous_output_up_to_the_limit_is_shown_whole() {
    assert_eq!(PREVIOUS_OUTPUT_LIMIT, 6000);
    let exact = "x".repeat(6000);
    assert_eq!(previous_output_shown(&exact), exact);
    let multi = "line one\n\n## Not a section\nline three";
    assert_eq!(previous_output_shown(multi), multi);
}

#[test]
fn a_longer_previous_output_is_cut_at_6000_characters_and_marked() {
    let raw = format!("{}{}", "ab".repeat(3000), "TAIL");
    assert_eq!(
        previous_output_shown(&raw),
        format!("{}\n[cut at 6000 of 6004 characters]", "ab".repeat(3000))
    );
    let wide = "日本".repeat(3500);
    let shown = previous_output_shown(&wide);
    assert_eq!(
        shown,
        format!("{}\n[cut at 6000 of 7000 characters]", "日本".repeat(3000))
    );
}

#[test]
fn an_empty_previous_output_is_named() {
    assert_eq!(previous_output_shown(""), "(an empty reply)");
    assert_eq!(previous_output_shown("  \n"), "(an empty reply)");
}

#[test]
fn each_issue_is_one_bullet_line_with_its_path() {
    let mut previous = AttemptRecord::new(1);
    previous.raw_output = "{}".into();
    previous.issues = vec![
        ResultIssue::at("/value/lines/2/sku", IssueKind::Shape, "Must be a string."),
        ResultIssue::new(IssueKind::Check, "Line one\nline two\r\n  line three"),
    ];
    let user = plan_for::<u32>(&AiRequestOptions::default())
        .request(Some(&previous))
        .user;
    assert!(user.ends_with(
        "## Problems with the previous attempt\n- /value/lines/2/sku: Must be a string.\n- Line one line two line three\n\
         Produce a corrected response that fixes every listed problem while still satisfying the intent."
    ));
}

#[tokio::test]
async fn each_retry_shows_only_the_attempt_before_it() {
    let model = ScriptedProvider::new(["first", "second", "third"]);
    let client = IntentClient::new(model.clone());
    let result = String::ai(&client, "x", "Say third.")
        .require(|s| s == "third", "Answer with the word third.")
        .await;
    assert_eq!(result.value().map(String::as_str), Some("third"));
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert!(!requests[0].user.contains("## Previous attempt"));
    assert!(requests[1].user.contains("## Previous attempt\nfirst\n\n## Problems with the previous attempt\n- Answer with the word third.\n"));
    assert!(requests[2].user.contains("## Previous attempt\nsecond\n\n"));
    assert!(!requests[2].user.contains("first"));
    assert_eq!(requests[2].user.matches("## Previous attempt").count(), 1);
}

#[tokio::test]
async fn a_reader_issue_goes_back_with_its_path() {
    let model = ScriptedProvider::new([r#"{"value": ["a", 2]}"#, r#"{"value": ["a", "b"]}"#]);
    let client = IntentClient::new(model.clone());
    let result = <Vec<String>>::ai(&client, "x", "List.").await;
    assert!(result.is_success(), "{:?}", result.issues());
    let first_issues = &result.attempts()[0].issues;
    assert!(!first_issues.is_empty());
    let retry = &model.requests()[1].user;
    assert!(retry.contains("## Previous attempt\n{\"value\": [\"a\", 2]}\n\n"));
    for issue in first_issues {
        assert!(
            retry.contains(&format!("\n- {issue}\n")),
            "{issue} missing from {retry}"
        );
        assert!(
            issue
                .path
                .as_deref()
                .is_some_and(|p| p.starts_with("/value")),
            "{issue:?}"
        );
    }
}

#[test]
fn every_request_of_a_plan_carries_its_settings() {
    let options = AiRequestOptions {
        max_output_tokens: Some(300),
        temperature: Some(1.5),
        model: Some("claude-sonnet-4-5".into()),
        ..AiRequestOptions::default()
    };
    let plan = plan_for::<bool>(&options);
    let mut previous = AttemptRecord::new(1);
    previous.issues = vec![ResultIssue::new(IssueKind::Parse, "Bad.")];
    for request in [plan.request(None), plan.request(Some(&previous))] {
        assert_eq!(request.max_output_tokens, Some(300));
        assert_eq!(request.temperature, Some(1.5));
        assert_eq!(request.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(request.schema_name, "intent_output");
        assert_eq!(request.format, ResponseFormat::JsonSchema);
    }
}

#[tokio::test]
async fn the_input_label_follows_the_input() {
    let model = ScriptedProvider::new([r#"{"value": 1}"#, r#"{"value": 1}"#]);
    let client = IntentClient::new(model.clone());
    let _ = u32::ai(&client, &json!({"a": 1}), "Count.").await;
    let _ = u32::ai(
        &client,
        &vec![chrono::NaiveDate::from_ymd_opt(2026, 3, 4).unwrap()],
        "Count.",
    )
    .await;
    let requests = model.requests();
    assert!(requests[0].user.contains("## Input (JSON)\n{\"a\":1}\n\n"));
    assert!(requests[1]
        .user
        .contains("## Input (List<DateOnly (yyyy-MM-dd)>)\n[\"2026-03-04\"]\n\n"));
}

#[test]
fn a_retry_lists_at_most_the_problem_limit_and_counts_the_rest() {
    assert_eq!(prompt::PREVIOUS_PROBLEMS_LIMIT, 50);
    let mut previous = AttemptRecord::new(1);
    previous.raw_output = "[300, 300]".into();
    previous.issues = (0..5000)
        .map(|i| {
            ResultIssue::at(
                format!("/value/{i}"),
                IssueKind::Shape,
                "Must be a whole number from 0 to 255 (byte); got 300.",
            )
        })
        .collect();
    let user = plan_for::<Vec<u8>>(&AiRequestOptions::default())
        .request(Some(&previous))
        .user;
    let problems = &user[user.find("## Problems with the previous attempt").unwrap()..];
    assert_eq!(problems.matches("\n- /value/").count(), 50);
    assert!(problems.contains("\n- /value/49: "));
    assert!(!problems.contains("/value/50:"));
    assert!(
        problems.contains("\n- 4950 more problems like these are not listed; fix every one.\n"),
        "{problems}"
    );
    assert!(user.ends_with("while still satisfying the intent."));
}

//! The whole cycle of a batch run, for both providers: submit, poll, read, verify, follow-up
//! rounds, splitting, per-element failures, cancellation and bad results.

use std::time::Duration;

use intent_core::collections::BatchOptions;
use intent_core::prelude::*;
use serde_json::json;

use intent_tests::batch_server::{
    first_section_elements, upper, Api, BatchServer, Behaviour, Outcome,
};

fn fast() -> BatchOptions {
    BatchOptions::new().poll_interval(Duration::from_millis(5))
}

fn client(api: Api, server: &BatchServer) -> IntentClient {
    let options = IntentClientOptions {
        max_attempts: 3,
        ..IntentClientOptions::default()
    };
    let builder = IntentClient::builder().options(options);
    let builder = match api {
        Api::OpenAi => builder.provider(
            OpenAiProvider::new("sk-batch-test")
                .with_base_url(server.base_url())
                .with_model("gpt-batch")
                .with_batch_api(true),
        ),
        Api::Anthropic => builder.provider(
            AnthropicProvider::new("sk-ant-batch-test")
                .with_base_url(server.base_url())
                .with_model("claude-batch")
                .with_batch_api(true),
        ),
    };
    builder.build().unwrap()
}

fn words(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("word{i}")).collect()
}

async fn whole_cycle(api: Api) {
    let server =
        BatchServer::start(api, Behaviour::default(), |_, m| Outcome::Text(upper(m))).await;
    let client = client(api, &server);
    let inputs = words(7);
    let result = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .chunk_size(3)
        .batch(fast())
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    assert_eq!(result.values()[6].as_deref(), Some("WORD6"));
    assert_eq!(result.chunks().len(), 3);
    assert!(result.chunks().iter().all(|c| c.attempts.len() == 1));
    assert_eq!(result.usage().calls, 3);
    assert_eq!(result.usage().input_tokens, 30);
    server.counts(|c| {
        assert_eq!(c.creates, 1);
        assert_eq!(c.requests, 3);
        assert_eq!(c.uploads, usize::from(api == Api::OpenAi));
    });
}

#[tokio::test]
async fn openai_batch_runs_the_whole_cycle_in_one_batch() {
    whole_cycle(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_batch_runs_the_whole_cycle_in_one_batch() {
    whole_cycle(Api::Anthropic).await;
}

/// The first answer to chunk 1 drops an element; the follow-up batch carries the finding.
async fn follow_up_round(api: Api) {
    let server = BatchServer::start(api, Behaviour::default(), |custom_id, message| {
        if custom_id == "chunk-1-attempt-1" {
            let first = &first_section_elements(message)[0];
            return Outcome::Text(
                json!({"value": [{"index": first.0, "value": first.1.to_uppercase()}]}).to_string(),
            );
        }
        Outcome::Text(upper(message))
    })
    .await;
    let client = client(api, &server);
    let reports = std::sync::Mutex::new(Vec::new());
    let result = client
        .map_each::<String>(&words(4), "Upper-case the word.")
        .chunk_size(2)
        .on_progress(|p| reports.lock().unwrap().push(p))
        .batch(fast())
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    let reports = reports.into_inner().unwrap();
    let done: Vec<usize> = reports.iter().map(|p| p.chunks_done).collect();
    assert_eq!(
        done,
        vec![0, 1, 2],
        "progress after each round: {reports:?}"
    );
    assert!(reports.last().unwrap().is_finished());
    let first = &result.chunks()[0];
    assert_eq!(first.attempts.len(), 2);
    assert!(!first.attempts[0].issues.is_empty());
    assert_eq!(result.chunks()[1].attempts.len(), 1);
    server.counts(|c| {
        assert_eq!(
            c.batch_sizes,
            vec![2, 1],
            "round 2 resubmits only the failed chunk"
        );
        let retry = &c.messages[2];
        assert!(retry.contains("## Previous attempt"), "{retry}");
        assert!(
            retry.contains("## Problems with the previous attempt"),
            "{retry}"
        );
    });
}

#[tokio::test]
async fn openai_chunks_failing_verification_go_into_a_follow_up_batch_with_their_findings() {
    follow_up_round(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_chunks_failing_verification_go_into_a_follow_up_batch_with_their_findings() {
    follow_up_round(Api::Anthropic).await;
}

#[tokio::test]
async fn a_chunk_failing_every_round_ends_at_max_attempts_with_its_findings() {
    let server = BatchServer::start(Api::OpenAi, Behaviour::default(), |_, _| {
        Outcome::Text(r#"{"value": []}"#.into())
    })
    .await;
    let client = client(Api::OpenAi, &server);
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .batch(fast())
        .await;
    assert!(!result.is_complete());
    assert_eq!(result.chunks()[0].attempts.len(), 3);
    assert!(result.chunks()[0]
        .issues
        .iter()
        .any(|i| i.message.contains("max_attempts (3)")));
    assert!(result.issues_for(1).count() > 0);
    server.counts(|c| assert_eq!(c.creates, 3));
}

#[tokio::test]
async fn a_job_past_the_batch_limit_is_split_into_several_batches() {
    let server = BatchServer::start(Api::OpenAi, Behaviour::default(), |_, m| {
        Outcome::Text(upper(m))
    })
    .await;
    let client = client(Api::OpenAi, &server);
    let result = client
        .map_each::<String>(&words(10), "Upper-case the word.")
        .chunk_size(2)
        .batch(fast().max_batch_requests(2))
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    server.counts(|c| {
        assert_eq!(c.batch_sizes, vec![2, 2, 1]);
        assert_eq!(c.uploads, 3);
    });
}

#[tokio::test]
async fn map_values_runs_in_a_batch_too() {
    let server = BatchServer::start(Api::Anthropic, Behaviour::default(), |_, message| {
        let mut answer = serde_json::Map::new();
        for key in ["a", "b"] {
            if message.contains(&format!("\"{key}\":")) {
                answer.insert(key.into(), json!(format!("{key}!")));
            }
        }
        Outcome::Text(json!({"value": answer}).to_string())
    })
    .await;
    let client = client(Api::Anthropic, &server);
    let map = indexmap::IndexMap::from([("a", "x"), ("b", "y")]);
    let result = client
        .map_values::<String, _, _>(&map, "Add an exclamation mark to the key.")
        .batch(fast())
        .await;
    let map: indexmap::IndexMap<&str, String> = result.into_map_result().unwrap();
    assert_eq!(map["b"], "b!");
}

async fn per_element_failures(api: Api) {
    // Chunk 1 errors, chunk 2 is missing, chunk 3 comes twice (the first is kept), chunk 4 passes;
    // the output also has a line for an unknown request and a line that is not JSON.
    let behaviour = Behaviour {
        junk_lines: true,
        fail_every_nth_look: 2,
        ..Behaviour::default()
    };
    let server = BatchServer::start(api, behaviour, |custom_id, message| match custom_id {
        "chunk-1-attempt-1" => Outcome::Error("the prompt is too long".into()),
        "chunk-2-attempt-1" => Outcome::Missing,
        "chunk-3-attempt-1" => Outcome::Twice(upper(message)),
        _ => Outcome::Text(upper(message)),
    })
    .await;
    let client = client(api, &server);
    let result = client
        .map_each::<String>(&words(4), "Upper-case the word.")
        .chunk_size(1)
        .batch(fast())
        .await;
    assert_eq!(result.values()[2].as_deref(), Some("WORD2"));
    assert_eq!(result.values()[3].as_deref(), Some("WORD3"));
    let errored = result.issues_for(0).next().unwrap();
    assert!(
        errored.message.contains("errored this request"),
        "{errored}"
    );
    assert!(
        errored.message.contains("the prompt is too long"),
        "{errored}"
    );
    let missing = result.issues_for(1).next().unwrap();
    assert!(
        missing
            .message
            .contains("no answer for this chunk's request"),
        "{missing}"
    );
    assert!(missing.message.contains("unknown custom_id"), "{missing}");
    assert!(missing.message.contains("not JSON"), "{missing}");
    server.counts(|c| {
        assert_eq!(c.creates, 1, "provider failures are not resubmitted");
        assert!(c.failed_looks > 0, "the server failed some looks");
    });
}

#[tokio::test]
async fn openai_errored_missing_and_repeated_results_are_reported_per_element() {
    per_element_failures(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_errored_missing_and_repeated_results_are_reported_per_element() {
    per_element_failures(Api::Anthropic).await;
}

async fn expiry(api: Api) {
    let behaviour = Behaviour {
        expire_keeping: Some(1),
        ..Behaviour::default()
    };
    let server = BatchServer::start(api, behaviour, |_, m| Outcome::Text(upper(m))).await;
    let client = client(api, &server);
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .chunk_size(1)
        .batch(fast())
        .await;
    assert_eq!(result.values()[0].as_deref(), Some("WORD0"));
    let expired = result.issues_for(1).next().unwrap();
    assert!(expired.message.contains("expired"), "{expired}");
}

#[tokio::test]
async fn openai_expired_requests_are_reported_and_finished_ones_kept() {
    expiry(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_expired_requests_are_reported_and_finished_ones_kept() {
    expiry(Api::Anthropic).await;
}

async fn cancellation(api: Api) {
    let behaviour = Behaviour {
        looks_to_end: u32::MAX,
        cancel_keeps: 1,
        ..Behaviour::default()
    };
    let server = BatchServer::start(api, behaviour, |_, m| Outcome::Text(upper(m))).await;
    let client = client(api, &server);
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .chunk_size(1)
        .batch(fast().wait_limit(Duration::from_millis(50)))
        .await;
    assert_eq!(
        result.values()[0].as_deref(),
        Some("WORD0"),
        "{:?}",
        result.issues()
    );
    let cancelled = result.issues_for(1).next().unwrap();
    assert!(cancelled.message.contains("cancelled"), "{cancelled}");
    server.counts(|c| assert_eq!(c.cancels, 1));
}

#[tokio::test]
async fn openai_wait_limit_without_a_state_file_cancels_and_keeps_what_was_answered() {
    cancellation(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_wait_limit_without_a_state_file_cancels_and_keeps_what_was_answered() {
    cancellation(Api::Anthropic).await;
}

#[tokio::test]
async fn a_provider_without_a_batch_api_is_refused_before_anything_is_sent() {
    let model = ScriptedProvider::new(["{}"]);
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .batch(fast())
        .await;
    assert_eq!(result.issues().len(), 2);
    assert!(result.issues()[0]
        .issue
        .message
        .contains("has no batch API"));
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn a_gemini_batch_run_is_refused_before_anything_is_sent() {
    let server = wiremock::MockServer::start().await;
    let client = IntentClient::new(GeminiProvider::new("AIza-test").with_base_url(server.uri()));
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .batch(fast())
        .await;
    assert_eq!(result.issues().len(), 2);
    let message = &result.issues()[0].issue.message;
    assert!(
        message.contains("\"gemini\" has no batch API")
            && message.contains("Gemini's batch mode is not supported")
            && message.contains("Nothing was submitted"),
        "{message}"
    );
    assert!(server.received_requests().await.unwrap().is_empty());
}

async fn retried_live(api: Api) {
    let behaviour = Behaviour {
        expire_keeping: Some(1),
        ..Behaviour::default()
    };
    let server = BatchServer::start(api, behaviour, |custom_id, message| match custom_id {
        "chunk-1-attempt-1" => Outcome::Error("overloaded".into()),
        _ => Outcome::Text(upper(message)),
    })
    .await;
    let client = client(api, &server);
    let result = client
        .map_each::<String>(&words(3), "Upper-case the word.")
        .chunk_size(1)
        .batch(fast().retry_live(true))
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    // Chunk 1 errored and chunks 2 and 3 expired; each was asked again live.
    let first = &result.chunks()[0];
    assert_eq!(first.attempts.len(), 2);
    assert!(first.attempts[0].issues[0].message.contains("overloaded"));
    assert_eq!(first.attempts[1].number, 2);
    server.counts(|c| {
        assert_eq!(c.creates, 1);
        assert_eq!(c.live_calls, 3);
    });
}

#[tokio::test]
async fn openai_unanswered_requests_are_retried_live_when_the_options_say_so() {
    retried_live(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_unanswered_requests_are_retried_live_when_the_options_say_so() {
    retried_live(Api::Anthropic).await;
}

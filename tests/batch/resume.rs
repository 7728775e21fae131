//! Resuming a batch job from its state file: after the process running it is killed, after a
//! creation reply is lost, and after the job ended; and refusing a state file of another job.

use std::process::Stdio;
use std::time::{Duration, Instant};

use intent_core::collections::BatchOptions;
use intent_core::prelude::*;

use intent_tests::batch_server::{upper, Api, BatchServer, Behaviour, Outcome};

fn worker(server: &BatchServer, state: &std::path::Path, n: usize) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_intent-batch-worker"));
    command
        .arg(server.base_url())
        .arg(state)
        .arg(n.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_killed_mid_batch_resumes_in_a_new_process_and_submits_nothing_twice() {
    let behaviour = Behaviour {
        looks_to_end: 25,
        ..Behaviour::default()
    };
    let server = BatchServer::start(Api::OpenAi, behaviour, |_, m| Outcome::Text(upper(m))).await;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("job.json");

    let mut first = worker(&server, &state, 5).spawn().unwrap();
    let started = Instant::now();
    // Kill it once the batch is created and being polled.
    while server.counts(|c| c.looks) < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the first process never polled"
        );
        assert!(
            first.try_wait().unwrap().is_none(),
            "the first process ended before it was killed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let saved = std::fs::read_to_string(&state).unwrap();
    assert!(saved.contains("\"id\": \"batch_"), "{saved}");
    server.counts(|c| {
        assert_eq!(c.creates, 1);
        assert!(c.looks < 25, "killed before the batch ended");
    });

    let second = tokio::task::spawn_blocking({
        let mut command = worker(&server, &state, 5);
        move || command.output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(
        second.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&second.stderr)
    );
    let values: Vec<Option<String>> = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(values[4].as_deref(), Some("WORD4"));
    server.counts(|c| {
        assert_eq!(c.uploads, 1, "the input file was uploaded once");
        assert_eq!(c.creates, 1, "the batch was created once");
        assert_eq!(c.requests, 3);
    });
}

fn client(server: &BatchServer) -> IntentClient {
    IntentClient::new(
        OpenAiProvider::new("sk-batch-test")
            .with_base_url(server.base_url())
            .with_model("gpt-batch")
            .with_batch_api(true),
    )
}

fn words(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("word{i}")).collect()
}

#[tokio::test]
async fn a_finished_job_is_read_again_and_another_jobs_state_file_is_refused() {
    let server = BatchServer::start(Api::OpenAi, Behaviour::default(), |_, m| {
        Outcome::Text(upper(m))
    })
    .await;
    let client = client(&server);
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("job.json");
    let options = BatchOptions::new()
        .poll_interval(Duration::from_millis(5))
        .state_file(&state);
    let inputs = words(3);
    let first = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .batch(options.clone())
        .await;
    assert!(first.is_complete(), "{:?}", first.issues());

    let again = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .batch(options.clone())
        .await;
    assert_eq!(again.values(), first.values());
    server.counts(|c| {
        assert_eq!(
            c.creates, 1,
            "a finished job is read again, not resubmitted"
        )
    });

    let other = client
        .map_each::<String>(&inputs, "Lower-case the word.")
        .batch(options.clone())
        .await;
    let refused = &other.issues()[0].issue.message;
    assert!(refused.contains("belongs to another job"), "{refused}");
    server.counts(|c| assert_eq!(c.creates, 1));

    std::fs::write(&state, "{ half a file").unwrap();
    let corrupt = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .batch(options)
        .await;
    assert!(corrupt.issues()[0]
        .issue
        .message
        .contains("is not a batch state file"));
    server.counts(|c| assert_eq!(c.creates, 1));
}

#[tokio::test]
async fn a_state_file_that_cannot_be_written_stops_the_job_before_it_submits() {
    let server = BatchServer::start(Api::OpenAi, Behaviour::default(), |_, m| {
        Outcome::Text(upper(m))
    })
    .await;
    let client = client(&server);
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("no-such-dir").join("job.json");
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .batch(BatchOptions::new().state_file(&state))
        .await;
    assert!(result.issues()[0]
        .issue
        .message
        .contains("could not be written"));
    server.counts(|c| assert_eq!((c.uploads, c.creates), (0, 0)));
}

async fn lost_creation_reply(api: Api) {
    let behaviour = Behaviour {
        lose_first_create_reply: true,
        ..Behaviour::default()
    };
    let server = BatchServer::start(api, behaviour, |_, m| Outcome::Text(upper(m))).await;
    let client = match api {
        Api::OpenAi => client(&server),
        Api::Anthropic => IntentClient::new(
            AnthropicProvider::new("sk-ant-batch-test")
                .with_base_url(server.base_url())
                .with_batch_api(true),
        ),
    };
    let result = client
        .map_each::<String>(&words(2), "Upper-case the word.")
        .batch(BatchOptions::new().poll_interval(Duration::from_millis(5)))
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    server.counts(|c| assert_eq!(c.creates, 1));
}

#[tokio::test]
async fn openai_a_lost_creation_reply_finds_the_batch_instead_of_creating_another() {
    lost_creation_reply(Api::OpenAi).await;
}

#[tokio::test]
async fn anthropic_a_lost_creation_reply_finds_the_batch_instead_of_creating_another() {
    lost_creation_reply(Api::Anthropic).await;
}

#[tokio::test]
async fn a_wait_limit_with_a_state_file_leaves_the_batch_running_for_a_later_run() {
    let behaviour = Behaviour {
        looks_to_end: 12,
        ..Behaviour::default()
    };
    let server = BatchServer::start(Api::OpenAi, behaviour, |_, m| Outcome::Text(upper(m))).await;
    let client = client(&server);
    let dir = tempfile::tempdir().unwrap();
    let options = BatchOptions::new()
        .poll_interval(Duration::from_millis(5))
        .state_file(dir.path().join("job.json"));
    let inputs = words(2);
    let early = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .batch(options.clone().wait_limit(Duration::from_millis(20)))
        .await;
    let left = &early.issues()[0].issue.message;
    assert!(left.contains("left running"), "{left}");
    server.counts(|c| assert_eq!(c.cancels, 0));
    let later = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .batch(options)
        .await;
    assert!(later.is_complete(), "{:?}", later.issues());
    server.counts(|c| assert_eq!(c.creates, 1));
}

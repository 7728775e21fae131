//! A process running one batch job with a state file, for the resume test: map_each over
//! `word0..word{N-1}` in chunks of 2 through the OpenAI-shaped batch server at `BASE_URL`,
//! printing the values as a JSON array and exiting non-zero when any element failed.
//!
//! `intent-batch-worker BASE_URL STATE_FILE N`

use std::process::ExitCode;
use std::time::Duration;

use intent_core::collections::BatchOptions;
use intent_core::prelude::*;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base_url, state_file, n] = args.as_slice() else {
        eprintln!("usage: intent-batch-worker BASE_URL STATE_FILE N");
        return ExitCode::from(2);
    };
    let Ok(n) = n.parse::<usize>() else {
        eprintln!("N is a number");
        return ExitCode::from(2);
    };
    let client = IntentClient::new(
        OpenAiProvider::new("sk-batch-worker")
            .with_base_url(base_url)
            .with_model("gpt-batch")
            .with_batch_api(true),
    );
    let inputs: Vec<String> = (0..n).map(|i| format!("word{i}")).collect();
    let result = client
        .map_each::<String>(&inputs, "Upper-case the word.")
        .chunk_size(2)
        .batch(
            BatchOptions::new()
                .poll_interval(Duration::from_millis(20))
                .state_file(state_file),
        )
        .await;
    for issue in result.issues() {
        eprintln!("{issue}");
    }
    let complete = result.is_complete();
    println!(
        "{}",
        serde_json::to_string(result.values()).unwrap_or_default()
    );
    if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

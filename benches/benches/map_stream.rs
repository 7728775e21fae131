//! `map_stream` over many small inputs from a generator, at bounded memory.
//!
//! Run with `cargo bench -p intent-bench --bench map_stream`. It runs itself twice, as two
//! processes (peak memory is per process): over 10,000 inputs and over 1,000,000, with the same
//! chunk size and concurrency, against an in-process provider that answers each chunk correctly
//! after a fixed latency. It prints each run's peak RSS (`VmHWM`), wall time and the ideal wall
//! time (chunks × latency ÷ concurrency), and fails when the larger run's peak RSS is more than
//! 1.5 times the smaller's.
//!
//! Then it measures the library's own work per element: `map_stream` over 100,000 inputs on a
//! current-thread runtime against the same provider answering at once (no latency, so the
//! process's CPU time is the stream's work, the chunks' prompts, the replies' reading and
//! verifying), less the provider's own reply building, timed apart on the same prompts; it
//! prints both, per element.
//!
//! `map_stream work` prints that figure alone; `map_stream INPUTS` runs once and prints `inputs peak_rss_kib wall_ms ideal_ms`.

use std::process::{Command, ExitCode};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use intent_bench::load::cpu_time;
use intent_bench::measure::median;
use intent_core::provider::{AiResponse, BoxFuture, Provider, ProviderError};
use intent_core::{AiRequest, IntentClient};

const CHUNK_SIZE: usize = 200;
const CONCURRENCY: usize = 16;
const LATENCY: Duration = Duration::from_millis(2);

/// Inputs of the work-per-element figure.
const WORK_INPUTS: u64 = 100_000;

/// Answers a chunk with each input number plus one, read from the chunk's input in the prompt,
/// after its latency (none: at once).
struct Increment {
    latency: Duration,
    /// The user messages answered, kept when present.
    prompts: Option<Arc<Mutex<Vec<String>>>>,
}

impl Provider for Increment {
    fn name(&self) -> &str {
        "increment"
    }

    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            if !self.latency.is_zero() {
                tokio::time::sleep(self.latency).await;
            }
            if let Some(prompts) = &self.prompts {
                if let Ok(mut prompts) = prompts.lock() {
                    prompts.push(request.user.to_string());
                }
            }
            Ok(AiResponse::new(answer(&request.user), "increment-1"))
        })
    }
}

/// The provider's reply to a chunk's user message.
fn answer(user: &str) -> String {
    let mut reply = String::with_capacity(CHUNK_SIZE * 32);
    reply.push_str("{\"value\":[");
    let mut rest = user;
    let mut first = true;
    while let Some(at) = rest.find("{\"index\":") {
        rest = &rest[at + 9..];
        let index_end = rest.find(',').unwrap_or(0);
        let index = &rest[..index_end];
        rest = &rest[index_end..];
        let Some(input_at) = rest.find("\"input\":") else {
            break;
        };
        rest = &rest[input_at + 8..];
        let input_end = rest.find('}').unwrap_or(0);
        let input: u64 = rest[..input_end].parse().unwrap_or(0);
        if !first {
            reply.push(',');
        }
        first = false;
        reply.push_str(&format!("{{\"index\":{index},\"value\":{}}}", input + 1));
    }
    reply.push_str("]}");
    reply
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// `map_stream` over `inputs` inputs through `client`, every value checked.
async fn stream_all(client: &IntentClient, inputs: u64) {
    let mut stream = client
        .map_stream::<u64, _>(futures::stream::iter(0..inputs), "Add one to the number.")
        .chunk_size(CHUNK_SIZE)
        .concurrency(CONCURRENCY);
    let mut expected = 0u64;
    while let Some((position, value)) = stream.next().await {
        assert_eq!(position as u64, expected);
        assert_eq!(value.expect("every element answers"), expected + 1);
        expected += 1;
    }
    assert_eq!(expected, inputs);
}

/// The library's work per element, in µs, and the provider's own within it: the median over
/// five runs of the CPU time of `map_stream` over `WORK_INPUTS` inputs against a provider that
/// answers at once, on a current-thread runtime (so nothing else runs), and of the provider's
/// reply building alone on the same prompts.
fn work_per_element() -> (f64, f64) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let recording = IntentClient::new(Increment {
        latency: Duration::ZERO,
        prompts: Some(Arc::clone(&prompts)),
    });
    runtime.block_on(stream_all(&recording, WORK_INPUTS));
    let prompts = std::mem::take(&mut *prompts.lock().expect("the prompts"));
    let client = IntentClient::new(Increment {
        latency: Duration::ZERO,
        prompts: None,
    });
    runtime.block_on(stream_all(&client, WORK_INPUTS));
    let (mut totals, mut providers) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let start = cpu_time();
        runtime.block_on(stream_all(&client, WORK_INPUTS));
        totals.push((cpu_time() - start).as_secs_f64());
        let start = cpu_time();
        for prompt in &prompts {
            std::hint::black_box(answer(std::hint::black_box(prompt)));
        }
        providers.push((cpu_time() - start).as_secs_f64());
    }
    let per_element = |times: &[f64]| median(times) * 1e6 / WORK_INPUTS as f64;
    (per_element(&totals), per_element(&providers))
}

/// Prints the work-per-element figure.
fn print_work() {
    let (total, provider) = work_per_element();
    println!(
        "work per element, {WORK_INPUTS} inputs, provider answering at once: {:.3} µs of the library's (CPU {total:.3} µs, of which the provider's reply building {provider:.3} µs; target ≤ 0.5 µs)",
        total - provider
    );
}

fn run_once(inputs: u64) -> ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let client = IntentClient::new(Increment {
            latency: LATENCY,
            prompts: None,
        });
        let started = Instant::now();
        stream_all(&client, inputs).await;
        let wall = started.elapsed();
        let chunks = inputs.div_ceil(CHUNK_SIZE as u64);
        let ideal = LATENCY * chunks.div_ceil(CONCURRENCY as u64) as u32;
        println!(
            "{inputs} {} {} {}",
            peak_rss_kib(),
            wall.as_millis(),
            ideal.as_millis()
        );
    });
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if let Some(inputs) = args.first().and_then(|a| a.parse::<u64>().ok()) {
        return run_once(inputs);
    }
    if args.first().map(String::as_str) == Some("work") {
        print_work();
        return ExitCode::SUCCESS;
    }
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let mut rows = Vec::new();
    for inputs in [10_000u64, 1_000_000] {
        let output = Command::new(&exe)
            .arg(inputs.to_string())
            .output()
            .expect("a run");
        if !output.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&output.stderr));
            return ExitCode::FAILURE;
        }
        let line = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        let figures: Vec<u64> = line.split(' ').filter_map(|n| n.parse().ok()).collect();
        rows.push(figures);
    }
    println!(
        "map_stream: chunk_size {CHUNK_SIZE}, concurrency {CONCURRENCY}, provider latency {} ms",
        LATENCY.as_millis()
    );
    println!("| inputs | peak RSS (MiB) | wall (ms) | ideal (ms) | inputs/s |");
    println!("|---:|---:|---:|---:|---:|");
    for row in &rows {
        let [inputs, rss, wall, ideal] = row[..] else {
            return ExitCode::FAILURE;
        };
        println!(
            "| {inputs} | {:.1} | {wall} | {ideal} | {:.0} |",
            rss as f64 / 1024.0,
            inputs as f64 / (wall.max(1) as f64 / 1000.0)
        );
    }
    let ratio = rows[1][1] as f64 / rows[0][1].max(1) as f64;
    println!("peak RSS, 1,000,000 vs 10,000 inputs: {ratio:.2}x (limit 1.5x)");
    print_work();
    if ratio > 1.5 {
        eprintln!("peak RSS grew {ratio:.2}x with the input's length");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

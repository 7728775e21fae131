//! The figures of the performance report, each measured side by side in one run: the library and
//! the code a user would write without it alternate in blocks, and the report gives the median of
//! the blocks' ratios, so a noisy neighbour slows both sides of a block alike.
//!
//! `cargo bench -p intent-bench --bench report` prints a Markdown table. The concurrency figures
//! come from a child process of this binary (a fresh process, so its peak memory is the call's own).

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use intent_bench::call::CallFixture;
use intent_bench::collection;
use intent_bench::measure::{human_bytes, median, proc_status_bytes, reset_peak_rss};
use intent_bench::prompt::{build_request, items_input, text_input};
use intent_bench::replies::{items_reply, Envelope};
use intent_bench::types::Item;
use intent_core::read::read_reply;
use intent_core::{AiRequestOptions, Intent};

const CHILD_ENV: &str = "INTENT_BENCH_COLLECTION_SERVER";
const ELEMENTS: usize = 2_000;
const CHUNK_SIZE: usize = 50;
const CONCURRENCY: usize = 8;
const DELAY: Duration = Duration::from_millis(50);

fn main() {
    if let Ok(url) = std::env::var(CHILD_ENV) {
        collection_child(&url);
        return;
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if !filters.is_empty() && !filters.iter().any(|f| "report".contains(f.as_str())) {
        return;
    }
    let mut rows = Vec::new();
    let round_trip = call_overhead(&mut rows);
    read_and_verify(&mut rows);
    prompt_building(&mut rows, round_trip);
    concurrency(&mut rows);
    println!("\n| Figure | Measured | Target | Met |\n|---|---|---|---|");
    for row in &rows {
        println!(
            "| {} | {} | {} | {} |",
            row.figure,
            row.measured,
            row.target,
            if row.met { "yes" } else { "**no**" }
        );
    }
}

struct Row {
    figure: String,
    measured: String,
    target: String,
    met: bool,
}

/// Times `reps` runs of `run`, in seconds per run.
fn per_run(reps: usize, mut run: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        run();
    }
    start.elapsed().as_secs_f64() / reps as f64
}

/// The median ratio `library / baseline` over `blocks` blocks of `reps` runs each, the order of
/// the two sides alternating from block to block; also the medians of each side's time per run.
fn side_by_side(
    blocks: usize,
    reps: usize,
    mut baseline: impl FnMut(),
    mut library: impl FnMut(),
) -> (f64, f64, f64) {
    let (mut ratios, mut base_times, mut lib_times) = (Vec::new(), Vec::new(), Vec::new());
    for block in 0..blocks {
        let (base, lib) = if block % 2 == 0 {
            let base = per_run(reps, &mut baseline);
            (base, per_run(reps, &mut library))
        } else {
            let lib = per_run(reps, &mut library);
            (per_run(reps, &mut baseline), lib)
        };
        ratios.push(lib / base);
        base_times.push(base);
        lib_times.push(lib);
    }
    (median(&ratios), median(&base_times), median(&lib_times))
}

/// Figure 1; returns the library's median round trip in seconds.
fn call_overhead(rows: &mut Vec<Row>) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let fixture = runtime.block_on(CallFixture::start());
    for _ in 0..200 {
        runtime.block_on(fixture.by_hand());
        runtime.block_on(fixture.library());
    }
    let (ratio, base, lib) = side_by_side(
        41,
        50,
        || {
            black_box(runtime.block_on(fixture.by_hand()));
        },
        || {
            black_box(runtime.block_on(fixture.library()));
        },
    );
    eprintln!(
        "call: by hand {:.1} µs, intent {:.1} µs, ratio {ratio:.3} ({} B reply)",
        base * 1e6,
        lib * 1e6,
        fixture.reply_bytes()
    );
    rows.push(Row {
        figure: format!(
            "1. Call overhead: `Order::ai` vs reqwest + serde_json, {} B reply (round trip {:.0} µs vs {:.0} µs)",
            fixture.reply_bytes(),
            lib * 1e6,
            base * 1e6
        ),
        measured: format!("{ratio:.2}x"),
        target: "≤ 1.10x".into(),
        met: ratio <= 1.10,
    });
    lib
}

/// Figure 2, at three sizes.
fn read_and_verify(rows: &mut Vec<Row>) {
    let info = <Vec<Item>>::type_info();
    let mut per_byte = Vec::new();
    for (label, bytes) in [("1 KB", 1 << 10), ("100 KB", 100 << 10), ("1 MB", 1 << 20)] {
        let (items, reply) = items_reply(bytes);
        let reps = ((4 << 20) / reply.len()).max(3);
        let (ratio, base, lib) = side_by_side(
            21,
            reps,
            || {
                let read: Envelope<Vec<Item>> = serde_json::from_str(black_box(&reply)).unwrap();
                assert_eq!(read.value.len(), items.len());
            },
            || {
                let read: Vec<Item> = read_reply(&info, black_box(&reply)).unwrap();
                assert_eq!(read.len(), items.len());
            },
        );
        let ns_per_byte = lib * 1e9 / reply.len() as f64;
        per_byte.push(ns_per_byte);
        eprintln!(
            "read {label}: serde_json {:.1} µs, intent {:.1} µs, ratio {ratio:.3}, {ns_per_byte:.2} ns/B",
            base * 1e6,
            lib * 1e6
        );
        rows.push(Row {
            figure: format!(
                "2. Read and verify, {label} ({} items; {ns_per_byte:.2} ns/byte)",
                items.len()
            ),
            measured: format!("{ratio:.2}x"),
            target: "≤ 2.0x".into(),
            met: ratio <= 2.0,
        });
    }
    let spread = per_byte.iter().cloned().fold(f64::MIN, f64::max)
        / per_byte.iter().cloned().fold(f64::MAX, f64::min);
    rows.push(Row {
        figure: format!(
            "2. Read and verify, linear in size: time per byte at 1 KB / 100 KB / 1 MB = {:.2} / {:.2} / {:.2} ns",
            per_byte[0], per_byte[1], per_byte[2]
        ),
        measured: format!("{spread:.2}x spread"),
        target: "linear (spread ≤ 1.5x)".into(),
        met: spread <= 1.5,
    });
}

/// Figure 3: building the request against the call's round trip.
fn prompt_building(rows: &mut Vec<Row>, round_trip: f64) {
    let options = AiRequestOptions::default();
    let text = text_input(100 << 10);
    let items = items_input(100 << 10);
    for (label, build) in [
        (
            "text",
            Box::new(|| drop(black_box(build_request(text.as_str(), &options)))) as Box<dyn Fn()>,
        ),
        (
            "JSON",
            Box::new(|| drop(black_box(build_request(&items, &options)))),
        ),
    ] {
        for _ in 0..20 {
            build();
        }
        let times: Vec<f64> = (0..41).map(|_| per_run(20, &build)).collect();
        let time = median(&times);
        let share = time / round_trip;
        eprintln!(
            "prompt {label}: {:.1} µs, {:.2}% of the round trip",
            time * 1e6,
            share * 100.0
        );
        rows.push(Row {
            figure: format!(
                "3. Prompt building, 50 members, 100 KB {label} input ({:.0} µs)",
                time * 1e6
            ),
            measured: format!("{:.2}% of the round trip", share * 100.0),
            target: "< 1%".into(),
            met: share < 0.01,
        });
    }
}

/// Figure 4: three child processes, each running `map_each` three times.
fn concurrency(rows: &mut Vec<Row>) {
    let server = collection::server(DELAY);
    let exe = std::env::current_exe().expect("this binary's path");
    let (mut walls, mut growths, mut peaks, mut data) = (Vec::new(), Vec::new(), Vec::new(), 0u64);
    for _ in 0..3 {
        let output = Command::new(&exe)
            .env(CHILD_ENV, server.url())
            .output()
            .expect("run the child");
        let text = String::from_utf8_lossy(&output.stdout);
        let Some(line) = text.lines().find(|l| l.starts_with("collection ")) else {
            eprintln!(
                "the concurrency child failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            return;
        };
        let numbers: Vec<f64> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|n| n.parse().ok())
            .collect();
        // wall ms of each run..., rss growth, peak rss, input + output bytes
        let (runs, rest) = numbers.split_at(numbers.len() - 3);
        walls.extend_from_slice(runs);
        growths.push(rest[0]);
        peaks.push(rest[1]);
        data = rest[2] as u64;
    }
    let chunks = ELEMENTS.div_ceil(CHUNK_SIZE);
    let ideal = chunks.div_ceil(CONCURRENCY) as f64 * DELAY.as_secs_f64() * 1e3;
    let wall = median(&walls);
    let ratio = wall / ideal;
    let growth = growths.iter().cloned().fold(0.0, f64::max);
    let peak = peaks.iter().cloned().fold(0.0, f64::max);
    let memory = growth / data as f64;
    eprintln!("concurrency: walls {walls:?} ms, ideal {ideal} ms; growth {growths:?}, data {data}");
    rows.push(Row {
        figure: format!(
            "4. `map_each`, {ELEMENTS} elements, chunks of {CHUNK_SIZE}, concurrency {CONCURRENCY}, 50 ms server: wall {wall:.0} ms vs ideal {ideal:.0} ms"
        ),
        measured: format!("{ratio:.2}x"),
        target: "≤ 1.15x".into(),
        met: ratio <= 1.15,
    });
    rows.push(Row {
        figure: format!(
            "4. `map_each` peak memory: RSS growth {} (process peak {}) vs input + output {}",
            human_bytes(growth as u64),
            human_bytes(peak as u64),
            human_bytes(data)
        ),
        measured: format!("{memory:.2}x"),
        target: "≤ 3x".into(),
        met: memory <= 3.0,
    });
}

/// The child: one cold run measured for memory and time, then two more for time. Prints
/// `collection <wall ms>... <rss growth> <peak rss> <input + output bytes>`.
fn collection_child(url: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let client = collection::client(url);
    let inputs = collection::notes(ELEMENTS);
    let input_bytes = serde_json::to_string(&inputs).map_or(0, |t| t.len());
    let mut walls = Vec::new();
    let reset = reset_peak_rss();
    let before = proc_status_bytes("VmRSS").unwrap_or(0);
    let start = Instant::now();
    let outputs = runtime.block_on(collection::run(&client, &inputs, CHUNK_SIZE, CONCURRENCY));
    walls.push(start.elapsed().as_secs_f64() * 1e3);
    let peak = proc_status_bytes("VmHWM").unwrap_or(0);
    let output_bytes = serde_json::to_string(&outputs).map_or(0, |t| t.len());
    assert_eq!(outputs.len(), ELEMENTS);
    drop(outputs);
    for _ in 0..2 {
        let start = Instant::now();
        let outputs = runtime.block_on(collection::run(&client, &inputs, CHUNK_SIZE, CONCURRENCY));
        walls.push(start.elapsed().as_secs_f64() * 1e3);
        assert_eq!(outputs.len(), ELEMENTS);
    }
    if !reset {
        eprintln!("the peak RSS could not be reset; the growth is measured from the process start");
    }
    let walls: Vec<String> = walls.iter().map(|w| format!("{w:.1}")).collect();
    println!(
        "collection {} {} {} {}",
        walls.join(" "),
        peak.saturating_sub(before),
        peak,
        input_bytes + output_bytes
    );
}

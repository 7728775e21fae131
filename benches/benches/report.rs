//! The figures of the performance report, each measured side by side in one run: the library and
//! the code a user would write without it alternate in blocks, and the report gives the median of
//! the blocks' ratios, so a noisy neighbour slows both sides of a block alike.
//!
//! `cargo bench -p intent-bench --bench report` prints a Markdown table. The concurrency figures
//! come from a child process of this binary (a fresh process, so its peak memory is the call's own);
//! the load figure's server is another child, so that this process's CPU time is the clients' own.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use intent_bench::call::CallFixture;
use intent_bench::collection;
use intent_bench::load::{cpu_time, LoadFixture};
use intent_bench::measure::{human_bytes, median, proc_status_bytes, reset_peak_rss};
use intent_bench::prompt::{build_request, items_input, text_input};
use intent_bench::replies::{items_reply, order_completion, Envelope};
use intent_bench::server::Server;
use intent_bench::types::Item;
use intent_core::__internals::{read_elements_in_pieces, read_partials_in_pieces};
use intent_core::read::read_reply;
use intent_core::{AiRequestOptions, Intent};

const CHILD_ENV: &str = "INTENT_BENCH_COLLECTION_SERVER";
const LOAD_SERVER_ENV: &str = "INTENT_BENCH_LOAD_SERVER";
const LOAD_CALLS: usize = 2_000;
const LOAD_CONCURRENCY: usize = 64;
const ELEMENTS: usize = 2_000;
const CHUNK_SIZE: usize = 50;
const CONCURRENCY: usize = 8;
const DELAY: Duration = Duration::from_millis(50);

fn main() {
    if let Ok(url) = std::env::var(CHILD_ENV) {
        collection_child(&url);
        return;
    }
    if std::env::var_os(LOAD_SERVER_ENV).is_some() {
        load_server_child();
        return;
    }
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    if filters.first().map(String::as_str) == Some("profile") {
        profile(&filters[1..]);
        return;
    }
    let streaming_only = filters.iter().any(|f| f == "streaming");
    if !streaming_only
        && !filters.is_empty()
        && !filters.iter().any(|f| "report".contains(f.as_str()))
    {
        return;
    }
    let mut rows = Vec::new();
    if streaming_only {
        streaming_read(&mut rows);
    } else {
        let body = call_overhead(&mut rows);
        read_and_verify(&mut rows);
        streaming_read(&mut rows);
        prompt_building(&mut rows);
        concurrency(&mut rows);
        load(&mut rows, body);
    }
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

/// Figure 1; returns the request body the library sends, for the load figure.
fn call_overhead(rows: &mut Vec<Row>) -> bytes::Bytes {
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
    fixture.body.clone()
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

/// Figure 2b: reading a 100-element list reply as it streams in 16-byte pieces (the scripted
/// model's size) against reading it whole: as an element stream reads it; as a stream of
/// partials whose consumer looks at every partial's JSON view (the view kept after every
/// piece), and at none (it waits for the result); and, for scale, building a
/// `serde_json::Value` of the same text.
fn streaming_read(rows: &mut Vec<Row>) {
    let info = <Vec<Item>>::type_info();
    let reply = list_reply();
    let whole = || {
        let read: Vec<Item> = read_reply(&info, black_box(&reply)).unwrap();
        assert_eq!(read.len(), 100);
    };
    let reps = 200;
    let (elements, _, lib) = side_by_side(21, reps, whole, || {
        let passed = read_elements_in_pieces::<Item>(info.clone(), black_box(&reply), 16);
        assert_eq!(passed, 100);
    });
    let (view, _, view_time) = side_by_side(21, reps / 4, whole, || {
        black_box(read_partials_in_pieces(
            info.clone(),
            black_box(&reply),
            16,
            true,
        ));
    });
    let (unread, _, unread_time) = side_by_side(21, reps, whole, || {
        black_box(read_partials_in_pieces(
            info.clone(),
            black_box(&reply),
            16,
            false,
        ));
    });
    let (tree, base, _) = side_by_side(21, reps, whole, || {
        black_box(serde_json::from_str::<serde_json::Value>(black_box(&reply)).unwrap());
    });
    eprintln!(
        "streaming: whole {:.1} µs, elements {:.1} µs ({elements:.3}), view {:.1} µs ({view:.3}), \
         partials unread {:.1} µs ({unread:.3}), JSON tree {tree:.3}",
        base * 1e6,
        lib * 1e6,
        view_time * 1e6,
        unread_time * 1e6
    );
    let size = format!("{:.1} KB", reply.len() as f64 / 1024.0);
    rows.push(Row {
        figure: format!(
            "2b. Streaming read, element stream: a 100-element list ({size}) in 16-byte pieces vs read whole"
        ),
        measured: format!("{elements:.2}x"),
        target: "≤ 1.5x".into(),
        met: elements <= 1.5,
    });
    rows.push(Row {
        figure: format!(
            "2b. Streaming read with the JSON view kept after every piece (a `serde_json::Value` of the same text alone: {tree:.2}x)"
        ),
        measured: format!("{view:.2}x"),
        target: "≤ 2.5x".into(),
        met: view <= 2.5,
    });
    rows.push(Row {
        figure: "2b. A stream of partials whose consumer looks at none (waits for the result)"
            .into(),
        measured: format!("{unread:.2}x"),
        target: "≤ 1.5x (the element stream's)".into(),
        met: unread <= 1.5,
    });
}

/// Figure 3: building the request against one `serde_json::to_string` of the same input.
fn prompt_building(rows: &mut Vec<Row>) {
    let options = AiRequestOptions::default();
    let text = text_input(100 << 10);
    let items = items_input(100 << 10);
    type Run<'a> = Box<dyn Fn() + 'a>;
    let cases: [(&str, Run, Run); 2] = [
        (
            "JSON",
            Box::new(|| drop(black_box(serde_json::to_string(black_box(&items))))),
            Box::new(|| drop(black_box(build_request(black_box(&items), &options)))),
        ),
        (
            "text",
            Box::new(|| drop(black_box(serde_json::to_string(black_box(text.as_str()))))),
            Box::new(|| drop(black_box(build_request(black_box(text.as_str()), &options)))),
        ),
    ];
    for (label, baseline, library) in cases {
        for _ in 0..10 {
            baseline();
            library();
        }
        let (ratio, base, lib) = side_by_side(21, 10, &baseline, &library);
        eprintln!(
            "prompt {label}: to_string {:.1} µs, request {:.1} µs, ratio {ratio:.3}",
            base * 1e6,
            lib * 1e6
        );
        rows.push(Row {
            figure: format!(
                "3. Prompt building, 50 members, 100 KB {label} input, vs one `serde_json::to_string` of it ({:.0} µs vs {:.0} µs)",
                lib * 1e6,
                base * 1e6
            ),
            measured: format!("{ratio:.2}x"),
            target: "≤ 2.0x".into(),
            met: ratio <= 2.0,
        });
    }
}

/// Figure 4: three child processes, each running `map_each` three times.
fn concurrency(rows: &mut Vec<Row>) {
    let server = collection::server(DELAY);
    let exe = std::env::current_exe().expect("this binary's path");
    let (mut walls, mut growths, mut peaks, mut firsts, mut data) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0u64);
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
        // wall ms of each run..., rss growth, peak rss, input + output bytes, first call's growth
        let (runs, rest) = numbers.split_at(numbers.len() - 4);
        walls.extend_from_slice(runs);
        growths.push(rest[0]);
        peaks.push(rest[1]);
        data = rest[2] as u64;
        firsts.push(rest[3]);
    }
    let chunks = ELEMENTS.div_ceil(CHUNK_SIZE);
    let ideal = chunks.div_ceil(CONCURRENCY) as f64 * DELAY.as_secs_f64() * 1e3;
    let wall = median(&walls);
    let ratio = wall / ideal;
    let growth = growths.iter().cloned().fold(0.0, f64::max);
    let peak = peaks.iter().cloned().fold(0.0, f64::max);
    let memory = growth / data as f64;
    let first = median(&firsts);
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
            "4. `map_each` peak memory: RSS growth {} (process peak {}) vs input + output {}; a process's first call also builds the HTTP client, once: {}",
            human_bytes(growth as u64),
            human_bytes(peak as u64),
            human_bytes(data),
            human_bytes(first as u64)
        ),
        measured: format!("{memory:.2}x"),
        target: "≤ 2.0x".into(),
        met: memory <= 2.0,
    });
}

/// The child: a three-element call that builds the HTTP client, measured for memory; then one run
/// measured for memory and time, and two more for time. Prints
/// `collection <wall ms>... <rss growth> <peak rss> <input + output bytes> <first call's growth>`.
fn collection_child(url: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let client = collection::client(url);
    let inputs = collection::notes(ELEMENTS);
    let input_bytes = serde_json::to_string(&inputs).map_or(0, |t| t.len());
    let mut walls = Vec::new();
    // A process's first call builds the HTTP client (its TLS roots, its connection pool): a cost
    // paid once, whatever the call, measured apart with a call of three elements.
    let reset = reset_peak_rss();
    let before_first = proc_status_bytes("VmRSS").unwrap_or(0);
    runtime.block_on(collection::run(
        &client,
        &collection::notes(3),
        CHUNK_SIZE,
        CONCURRENCY,
    ));
    let first_call = proc_status_bytes("VmHWM")
        .unwrap_or(0)
        .saturating_sub(before_first);
    reset_peak_rss();
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
        "collection {} {} {} {} {}",
        walls.join(" "),
        peak.saturating_sub(before),
        peak,
        input_bytes + output_bytes,
        first_call
    );
}

/// Figure 5: CPU per call under load. The server runs in a child process; this process runs
/// `LOAD_CALLS` calls at concurrency `LOAD_CONCURRENCY` through the library, then by hand (the
/// order alternating from round to round), and compares the CPU time each round used.
fn load(rows: &mut Vec<Row>, body: bytes::Bytes) {
    let Some((mut server, url)) = start_load_server() else {
        eprintln!("the load server did not start");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let fixture = LoadFixture::new(&url, body);
    let measure = |library: bool| {
        let start = cpu_time();
        runtime.block_on(fixture.run(LOAD_CALLS, LOAD_CONCURRENCY, library));
        (cpu_time() - start).as_secs_f64() / LOAD_CALLS as f64
    };
    // Warm both clients' connection pools.
    measure(true);
    measure(false);
    let (mut ratios, mut libs, mut hands) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..6 {
        let (lib, hand) = if round % 2 == 0 {
            let lib = measure(true);
            (lib, measure(false))
        } else {
            let hand = measure(false);
            (measure(true), hand)
        };
        ratios.push(lib / hand);
        libs.push(lib);
        hands.push(hand);
    }
    drop(server.stdin.take());
    let _ = server.wait();
    let (ratio, lib, hand) = (median(&ratios), median(&libs), median(&hands));
    eprintln!(
        "load: by hand {:.1} µs CPU per call, intent {:.1} µs, ratio {ratio:.3}",
        hand * 1e6,
        lib * 1e6
    );
    rows.push(Row {
        figure: format!(
            "5. CPU per call under load: {LOAD_CALLS} calls at concurrency {LOAD_CONCURRENCY}, loopback server in another process, `Order::ai` vs reqwest + serde_json ({:.1} µs vs {:.1} µs)",
            lib * 1e6,
            hand * 1e6
        ),
        measured: format!("{ratio:.2}x"),
        target: "≤ 1.3x".into(),
        met: ratio <= 1.3,
    });
}

/// `report profile WHAT CALLS`: only `CALLS` calls of one side of figure 1 or 5, after a warm-up,
/// against the load server in a child process, so that a profiler run on this process
/// (`valgrind --tool=callgrind`) counts the client's work alone. `WHAT` is `call` or `by-hand`
/// (one at a time, figure 1), `load` or `load-by-hand` (64 at a time on a multi-threaded
/// runtime, figure 5). Two runs with different `CALLS` give the cost of one call as their
/// difference over the difference in calls, without the process's start.
///
/// `WHAT` may also be one reading of figure 2b, run `CALLS` times in this process with no
/// server: `stream-whole` (the reply read whole), `stream-elements` (as an element stream reads
/// it), `stream-view` (a stream of partials, every partial's view looked at), `stream-unread`
/// (a stream of partials, none looked at); or a whole streamed call on the scripted model
/// (16-character pieces), each partial's JSON looked at (`streamed-call-look`) or not
/// (`streamed-call-unread`), or the same call awaited (`streamed-call-await`).
fn profile(args: &[String]) {
    let what = args.first().map_or("call", String::as_str);
    let calls: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(1_000);
    if let Some(consumer) = what.strip_prefix("streamed-call-") {
        profile_streamed_call(consumer, calls);
        return;
    }
    if let Some(reading) = what.strip_prefix("stream-") {
        profile_streaming(reading, calls);
        return;
    }
    let (mut server, url) = start_load_server().expect("the load server starts");
    let library = matches!(what, "call" | "load");
    let concurrency = if what.starts_with("load") {
        LOAD_CONCURRENCY
    } else {
        1
    };
    let runtime = if concurrency > 1 {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    }
    .expect("a runtime");
    // The body the library sends, learnt from an in-process server stopped before the profile.
    let body = runtime.block_on(CallFixture::start()).body;
    let fixture = LoadFixture::new(&url, body);
    // The warm-up: connections open, types' schemas and prompts built.
    runtime.block_on(fixture.run(2 * concurrency, concurrency, library));
    let started = Instant::now();
    runtime.block_on(fixture.run(calls, concurrency, library));
    eprintln!(
        "profile {what}: {calls} calls in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    drop(server.stdin.take());
    let _ = server.wait();
}

/// `report profile stream-READING CALLS`: one reading of figure 2b, `CALLS` times.
fn profile_streaming(reading: &str, calls: usize) {
    let info = <Vec<Item>>::type_info();
    let reply = list_reply();
    for _ in 0..calls {
        match reading {
            "whole" => drop(black_box(read_reply::<Vec<Item>>(&info, black_box(&reply)))),
            "elements" => {
                black_box(read_elements_in_pieces::<Item>(info.clone(), &reply, 16));
            }
            "view" | "unread" => {
                let look = reading == "view";
                black_box(read_partials_in_pieces(info.clone(), &reply, 16, look));
            }
            other => panic!("no streaming reading {other}"),
        }
    }
}

/// `report profile streamed-call-CONSUMER CALLS`: `CALLS` streamed calls of figure 2b's list on
/// the scripted model, read by one consumer.
fn profile_streamed_call(consumer: &str, calls: usize) {
    use futures::StreamExt as _;
    use intent_core::prelude::{IntentClient, ScriptedProvider, StreamEvent};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let reply = list_reply();
    let model = ScriptedProvider::new(Vec::<&str>::new()).with_stream_chunk_chars(16);
    let client = IntentClient::new(model.clone());
    runtime.block_on(async {
        for _ in 0..calls {
            model.push([reply.as_str()]);
            let call = <Vec<Item>>::ai(&client, "items", "List the items.");
            let items = match consumer {
                "await" => call.await.value().map(Vec::len),
                "look" | "unread" => {
                    let mut stream = call.stream();
                    let mut items = None;
                    while let Some(event) = stream.next().await {
                        match event {
                            StreamEvent::Partial(partial) if consumer == "look" => {
                                black_box(partial.json());
                            }
                            StreamEvent::Done(result) => items = result.value().map(Vec::len),
                            _ => {}
                        }
                    }
                    items
                }
                other => panic!("no consumer {other}"),
            };
            assert_eq!(items, Some(100));
        }
    });
}

/// The reply of figure 2b: a 100-element list in the envelope.
fn list_reply() -> String {
    let items: Vec<Item> = (0..100).map(intent_bench::replies::item).collect();
    serde_json::to_string(&Envelope { value: &items }).expect("JSON")
}

/// Starts the load figure's server (this binary again, in a child process): the child, whose
/// standard input stops it when closed, and its URL; `None` when it did not start.
fn start_load_server() -> Option<(std::process::Child, String)> {
    let exe = std::env::current_exe().ok()?;
    let mut server = Command::new(&exe)
        .env(LOAD_SERVER_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut url = String::new();
    let stdout = server.stdout.take()?;
    if BufReader::new(stdout).read_line(&mut url).is_err() || !url.starts_with("http") {
        let _ = server.kill();
        let _ = server.wait();
        return None;
    }
    Some((server, url.trim().to_owned()))
}

/// The load figure's server: answers every request with the order completion until its standard
/// input closes. Prints its URL first.
fn load_server_child() {
    let server = Server::fixed(order_completion());
    println!("{}", server.url());
    let _ = std::io::stdout().flush();
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

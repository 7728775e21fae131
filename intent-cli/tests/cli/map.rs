//! `intent map` (feature `map`), run as a user runs it against a server on 127.0.0.1 that
//! answers as OpenAI's Chat Completions does, working out each row's answer from the row: every
//! format in and out, failed rows kept with their issues, bad files refused before any call,
//! 100,000 rows in bounded memory, and a run killed mid-way and resumed from its state file.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::{intent, s, user_message, Ran};

const CATALOG: &str = "intents:
  - name: triage
    intent: Triage the support ticket.
    shape:
      type: object
      properties:
        topic: { type: string }
        urgent: { type: boolean }
        words: { type: integer, minimum: 0 }
      required: [topic, urgent, words]
  - name: title
    intent: Write a title for the ticket.
    shape: string
";

/// The rows the server was sent, by their `id` (or their body when there is no id).
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Value>>>);

impl Seen {
    fn ids(&self) -> Vec<i64> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|r| r["id"].as_i64().or_else(|| r["id"].as_str()?.parse().ok()))
            .collect()
    }
    fn rows(&self) -> Vec<Value> {
        self.0.lock().unwrap().clone()
    }
}

/// Answers each chunk of rows: a triage from the row's body (a ticket whose body says "broken"
/// always gets a negative word count, which the schema refuses), or a title.
struct Rows {
    seen: Seen,
    delay: Duration,
}

/// A chunk's rows, `{"index", "input"}` each: the last line of its `## Input` section.
fn chunk_rows(user: &str) -> Vec<Value> {
    let section = &user[..user.find("\n\n## Output requirements").unwrap()];
    serde_json::from_str(&section[section.rfind('\n').unwrap() + 1..]).unwrap()
}

fn row_answer(intent: &str, row: &Value) -> Value {
    let body = row["body"].as_str().unwrap_or_default();
    if intent.contains("Write a title") {
        return json!(format!(
            "About {}",
            body.split_whitespace().next().unwrap_or("nothing")
        ));
    }
    let words = body.split_whitespace().count() as i64;
    json!({
        "topic": if body.contains("charged") { "billing" } else { "other" },
        "urgent": body.contains("down"),
        "words": if body.contains("broken") { -1 } else { words },
    })
}

impl Respond for Rows {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let user = user_message(&body);
        let items = chunk_rows(user);
        let answers: Vec<Value> = items
            .iter()
            .map(|item| {
                self.seen.0.lock().unwrap().push(item["input"].clone());
                json!({"index": item["index"], "value": row_answer(user, &item["input"])})
            })
            .collect();
        ResponseTemplate::new(200)
            .set_delay(self.delay)
            .set_body_json(json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
                "choices": [{"index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": json!({"value": answers}).to_string()}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
            }))
    }
}

async fn server(delay: Duration) -> (MockServer, Seen) {
    let server = MockServer::start().await;
    let seen = Seen::default();
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Rows {
            seen: seen.clone(),
            delay,
        })
        .mount(&server)
        .await;
    (server, seen)
}

struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    fn new() -> Folder {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("intents.yaml"), CATALOG).unwrap();
        Folder { dir }
    }
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

async fn map(folder: &Folder, server: &MockServer, args: &[&str]) -> Ran {
    let catalog = folder.path("intents.yaml");
    let base = format!("{}/v1", server.uri());
    let mut all = vec!["map", s(&catalog)];
    all.extend_from_slice(args);
    intent(
        &all,
        &[("OPENAI_BASE_URL", &base), ("OPENAI_API_KEY", "sk-test")],
        None,
    )
    .await
}

fn tickets_csv() -> &'static str {
    "id,body\n\
     1,\"I was charged twice, please help\"\n\
     2,The site is down\n\
     3,Everything is broken\n\
     4,\n"
}

#[tokio::test]
async fn map_writes_a_csv_with_the_results_next_to_the_input_and_keeps_failed_rows_with_their_issues(
) {
    let folder = Folder::new();
    let (server, seen) = server(Duration::ZERO).await;
    std::fs::write(folder.path("tickets.csv"), tickets_csv()).unwrap();
    let out = folder.path("triaged.csv");
    let ran = map(
        &folder,
        &server,
        &[
            "triage",
            "--input",
            s(&folder.path("tickets.csv")),
            "--output",
            s(&out),
            "--price",
            "0.15,0.60",
        ],
    )
    .await
    .expect(1);
    let written = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines[0], "id,body,topic,urgent,words,triage_issues");
    assert_eq!(
        lines[1],
        "1,\"I was charged twice, please help\",billing,false,6,"
    );
    assert_eq!(lines[2], "2,The site is down,other,true,4,");
    assert!(
        lines[3].starts_with("3,Everything is broken,,,,"),
        "{}",
        lines[3]
    );
    assert!(lines[3].contains("/value/words"), "{}", lines[3]);
    // An empty cell is null: the row is sent with `"body": null`.
    assert_eq!(lines[4], "4,,other,false,0,");
    assert_eq!(lines.len(), 5);
    // Cells are text, exactly as written.
    assert!(seen
        .rows()
        .iter()
        .any(|r| r == &json!({"id": "2", "body": "The site is down"})));
    let summary = ran.stderr.lines().last().unwrap();
    assert!(summary.starts_with("triage: 4 rows → "), "{summary}");
    for part in ["3 with a value, 1 failed", "tokens", "$0.", " s"] {
        assert!(summary.contains(part), "{summary}");
    }
}

#[tokio::test]
async fn map_reads_and_writes_json_lines_and_sends_only_the_columns_asked_for() {
    let folder = Folder::new();
    let (server, seen) = server(Duration::ZERO).await;
    std::fs::write(
        folder.path("tickets.jsonl"),
        "{\"id\": 1, \"body\": \"printer jammed\", \"meta\": {\"lang\": \"en\"}}\n\n{\"id\": 2, \"body\": \"site down\", \"meta\": {\"lang\": \"de\"}}\n",
    )
    .unwrap();
    let out = folder.path("titled.jsonl");
    map(
        &folder,
        &server,
        &[
            "title",
            "-i",
            s(&folder.path("tickets.jsonl")),
            "-o",
            s(&out),
            "--columns",
            "body",
        ],
    )
    .await
    .expect(0);
    assert_eq!(
        seen.rows(),
        [
            json!({"body": "printer jammed"}),
            json!({"body": "site down"})
        ]
    );
    let lines: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[1],
        json!({"id": 2, "body": "site down", "meta": {"lang": "de"}, "title": "About site", "title_issues": null})
    );
    assert_eq!(lines.len(), 2);
}

#[tokio::test]
async fn bad_files_columns_and_outputs_are_refused_before_any_call() {
    let folder = Folder::new();
    let (server, seen) = server(Duration::ZERO).await;
    let out = folder.path("out.csv");
    let cases: Vec<(&str, Vec<u8>, Vec<&str>, &str)> = vec![
        (
            "ragged.csv",
            b"id,body\n1,ok\n2,too,many\n".to_vec(),
            vec![],
            "line 3",
        ),
        (
            "utf8.csv",
            b"id,body\n1,ok\n2,caf\xe9\n".to_vec(),
            vec![],
            "invalid UTF-8 data for line 3",
        ),
        (
            "fake.parquet",
            b"id,body\n1,ok\n".to_vec(),
            vec![],
            "is not a Parquet file",
        ),
        (
            "lines.jsonl",
            b"{\"id\": 1}\n[1, 2]\n".to_vec(),
            vec![],
            "line 2 is not a JSON object",
        ),
        (
            "good.csv",
            tickets_csv().as_bytes().to_vec(),
            vec!["--columns", "body,subject"],
            "`subject`, which",
        ),
    ];
    for (name, bytes, extra, message) in cases {
        std::fs::write(folder.path(name), bytes).unwrap();
        let input = folder.path(name);
        let mut args = vec!["triage", "--input", s(&input), "--output", s(&out)];
        args.extend(extra);
        let ran = map(&folder, &server, &args).await.expect(2);
        assert!(ran.stderr.contains(message), "{name}: {}", ran.stderr);
    }
    let nowhere = folder.path("missing/folder/out.csv");
    let ran = map(
        &folder,
        &server,
        &[
            "triage",
            "-i",
            s(&folder.path("good.csv")),
            "-o",
            s(&nowhere),
        ],
    )
    .await
    .expect(2);
    assert!(
        ran.stderr.contains("cannot be written") && ran.stderr.contains("nothing was sent"),
        "{}",
        ran.stderr
    );
    assert!(seen.rows().is_empty());
    assert!(!out.exists());
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(folder.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(left.is_empty());
}

/// A Parquet file of `rows` tickets with ids `0..rows`.
fn write_parquet(path: &Path, rows: usize) {
    let file = std::fs::File::create(path).unwrap();
    let schema = Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", arrow_schema::DataType::Int64, false),
        arrow_schema::Field::new("body", arrow_schema::DataType::Utf8, false),
    ]));
    let mut writer = ArrowWriter::try_new(file, schema.clone(), None).unwrap();
    for start in (0..rows).step_by(10_000) {
        let end = (start + 10_000).min(rows);
        let ids: Vec<i64> = (start as i64..end as i64).collect();
        let bodies: Vec<String> = (start..end)
            .map(|i| format!("ticket number {i} was charged twice"))
            .collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from(ids)) as ArrayRef,
                Arc::new(StringArray::from(bodies)),
            ],
        )
        .unwrap();
        writer.write(&batch).unwrap();
    }
    writer.close().unwrap();
}

/// The ids and word counts of a Parquet output, in order.
fn read_parquet(path: &Path) -> (Vec<i64>, Vec<Option<i64>>) {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let (mut ids, mut words) = (Vec::new(), Vec::new());
    for batch in reader {
        let batch = batch.unwrap();
        ids.extend(
            batch
                .column_by_name("id")
                .unwrap()
                .as_primitive::<Int64Type>()
                .values()
                .iter()
                .copied(),
        );
        let w = batch
            .column_by_name("words")
            .unwrap()
            .as_primitive::<Int64Type>();
        words.extend((0..w.len()).map(|i| (!w.is_null(i)).then(|| w.value(i))));
    }
    (ids, words)
}

/// The process's peak resident memory in kB, read from /proc while it runs.
async fn run_measured(mut command: tokio::process::Command) -> (std::process::ExitStatus, u64) {
    let mut child = command.spawn().unwrap();
    let pid = child.id().unwrap();
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            if let Some(kb) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn command(folder: &Folder, server: &MockServer, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_intent"));
    command
        .arg("map")
        .arg(folder.path("intents.yaml"))
        .args(args)
        .env_clear()
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .env("OPENAI_API_KEY", "sk-test")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

#[tokio::test]
async fn map_runs_100_000_parquet_rows_in_bounded_memory_with_every_row_written() {
    let folder = Folder::new();
    let (server, seen) = server(Duration::ZERO).await;
    let mut peaks = Vec::new();
    for rows in [10_000, 100_000] {
        let input = folder.path(&format!("tickets-{rows}.parquet"));
        write_parquet(&input, rows);
        let out = folder.path(&format!("triaged-{rows}.parquet"));
        let started = Instant::now();
        let (status, peak) = run_measured(command(
            &folder,
            &server,
            &[
                "triage",
                "-i",
                s(&input),
                "-o",
                s(&out),
                "--chunk-size",
                "250",
                "--concurrency",
                "4",
            ],
        ))
        .await;
        assert!(status.success(), "{status}");
        let (ids, words) = read_parquet(&out);
        assert_eq!(ids, (0..rows as i64).collect::<Vec<_>>());
        assert!(words.iter().all(|w| *w == Some(6)));
        eprintln!(
            "intent map: {rows} rows in {:.1} s, peak memory {} MB",
            started.elapsed().as_secs_f64(),
            peak / 1024
        );
        peaks.push(peak);
    }
    assert_eq!(seen.ids().len(), 110_000);
    // Ten times the rows, about the same memory: it is held to chunk size × concurrency.
    assert!(
        peaks[1] < peaks[0] + peaks[0] / 2,
        "peak memory {peaks:?} kB for 10,000 and 100,000 rows"
    );
    assert!(peaks[1] < 200 * 1024, "peak memory {} kB", peaks[1]);
}

/// Starts `command`, and kills it (as `kill -9` does) once `ready` holds.
async fn kill_when(mut command: tokio::process::Command, what: &str, ready: impl Fn() -> bool) {
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "not reached within a minute: {what}"
        );
        assert!(child.try_wait().unwrap().is_none(), "ended before: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    child.kill().await.unwrap();
}

#[tokio::test]
async fn a_run_killed_mid_way_resumes_from_its_state_file_without_sending_an_answered_row_again() {
    let folder = Folder::new();
    let (server, seen) = server(Duration::from_millis(40)).await;
    let rows = 3_000;
    let input = folder.path("tickets.parquet");
    write_parquet(&input, rows);
    let out = folder.path("triaged.parquet");
    let state = folder.path("triage.state");
    let args = [
        "triage",
        "-i",
        s(&input),
        "-o",
        s(&out),
        "--state",
        s(&state),
        "--chunk-size",
        "20",
        "--concurrency",
        "2",
    ];

    kill_when(
        command(&folder, &server, &args),
        "the first run recorded 600 rows",
        || std::fs::read_to_string(&state).map_or(0, |t| t.lines().count()) > 600,
    )
    .await;
    assert!(!out.exists(), "a killed run leaves no output");
    let recorded: Vec<i64> = std::fs::read_to_string(&state)
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()?.get("row")?.as_i64())
        .collect();
    let sent_before = seen.ids().len();

    let (status, _) = run_measured(command(&folder, &server, &args)).await;
    assert!(status.success(), "{status}");
    let (ids, words) = read_parquet(&out);
    assert_eq!(ids, (0..rows as i64).collect::<Vec<_>>());
    assert!(words.iter().all(|w| *w == Some(6)));
    assert!(
        !state.exists(),
        "the state file is removed when the output is written"
    );
    // The second run sent no row whose answer the first recorded, and every row it did not.
    let second: Vec<i64> = seen.ids()[sent_before..].to_vec();
    assert!(
        recorded.iter().all(|row| !second.contains(row)),
        "an answered row was sent again"
    );
    let mut all: Vec<i64> = recorded.clone();
    all.extend(&second);
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), rows);
    // Rows sent twice are only those in flight when the first run was killed.
    let twice = sent_before + second.len() - rows;
    assert!(twice <= 20 * 3, "{twice} rows were sent twice");
}

/// OpenAI's Batch API on 127.0.0.1, as `intent_core`'s batch client speaks it (files, batches,
/// status moving on with each look, results when a batch ends), answering each request as
/// [`Rows`] does and counting every row submitted.
#[derive(Default)]
struct BatchApi {
    files: Mutex<Vec<Vec<Value>>>,
    /// (input file, looks so far)
    batches: Mutex<Vec<(usize, u32)>>,
    submitted: Mutex<Vec<i64>>,
}

const LOOKS_TO_END: u32 = 25;

fn completion(content: String) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    })
}

fn answer_body(body: &Value) -> (Vec<i64>, String) {
    let user = user_message(body);
    let items = chunk_rows(user);
    let ids = items
        .iter()
        .filter_map(|i| i["input"]["id"].as_i64())
        .collect();
    let answers: Vec<Value> = items
        .iter()
        .map(|item| json!({"index": item["index"], "value": row_answer(user, &item["input"])}))
        .collect();
    (ids, json!({"value": answers}).to_string())
}

/// The server's side of [`BatchApi`], shared with the test.
struct BatchServer(Arc<BatchApi>);

impl Respond for BatchServer {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let api = &self.0;
        let route = request.url.path().trim_start_matches("/v1/").to_owned();
        let post = request.method == wiremock::http::Method::POST;
        let ok = |body: Value| ResponseTemplate::new(200).set_body_json(body);
        match (post, route.split('/').collect::<Vec<_>>().as_slice()) {
            (true, ["files"]) => {
                let text = String::from_utf8_lossy(&request.body);
                let lines: Vec<Value> = text
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .filter(|v| v.get("custom_id").is_some())
                    .collect();
                let mut files = api.files.lock().unwrap();
                files.push(lines);
                ok(
                    json!({"id": format!("file-{}", files.len() - 1), "object": "file", "purpose": "batch"}),
                )
            }
            (true, ["batches"]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap();
                let file: usize = body["input_file_id"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("file-")
                    .parse()
                    .unwrap();
                for line in &api.files.lock().unwrap()[file] {
                    api.submitted
                        .lock()
                        .unwrap()
                        .extend(answer_body(&line["body"]).0);
                }
                let mut batches = api.batches.lock().unwrap();
                batches.push((file, 0));
                ok(
                    json!({"id": format!("batch-{}", batches.len() - 1), "status": "validating", "input_file_id": format!("file-{file}")}),
                )
            }
            (false, ["batches"]) => {
                let batches = api.batches.lock().unwrap();
                let data: Vec<Value> = batches.iter().enumerate().rev().map(|(i, (file, _))| json!({"id": format!("batch-{i}"), "input_file_id": format!("file-{file}")})).collect();
                ok(json!({"data": data, "has_more": false}))
            }
            (false, ["batches", id]) => {
                let index: usize = id.trim_start_matches("batch-").parse().unwrap();
                let mut batches = api.batches.lock().unwrap();
                let (file, looks) = &mut batches[index];
                *looks += 1;
                let total = api.files.lock().unwrap()[*file].len() as u32;
                if *looks < LOOKS_TO_END {
                    ok(
                        json!({"id": id, "status": "in_progress", "request_counts": {"total": total, "completed": *looks, "failed": 0}}),
                    )
                } else {
                    ok(
                        json!({"id": id, "status": "completed", "output_file_id": format!("out-{file}"), "request_counts": {"total": total, "completed": total, "failed": 0}}),
                    )
                }
            }
            (false, ["files", id, "content"]) => {
                let file: usize = id.trim_start_matches("out-").parse().unwrap();
                let lines: Vec<String> = api.files.lock().unwrap()[file]
                    .iter()
                    .map(|line| {
                        let (_, content) = answer_body(&line["body"]);
                        json!({"id": "r", "custom_id": line["custom_id"], "response": {"status_code": 200, "request_id": "q", "body": completion(content)}, "error": null}).to_string()
                    })
                    .collect();
                ResponseTemplate::new(200).set_body_string(lines.join("\n"))
            }
            _ => ResponseTemplate::new(404)
                .set_body_json(json!({"error": {"message": format!("no route {route}")}})),
        }
    }
}

#[tokio::test]
async fn a_batch_run_killed_while_waiting_resumes_its_batch_and_submits_no_row_twice() {
    let folder = Folder::new();
    let server = MockServer::start().await;
    let api = Arc::new(BatchApi::default());
    Mock::given(wiremock::matchers::any())
        .respond_with(BatchServer(api.clone()))
        .mount(&server)
        .await;
    let rows = 2_000;
    let input = folder.path("tickets.parquet");
    write_parquet(&input, rows);
    let out = folder.path("triaged.csv");
    let state = folder.path("batch.state");
    let args = [
        "triage",
        "-i",
        s(&input),
        "-o",
        s(&out),
        "--batch",
        "--state",
        s(&state),
        "--poll-interval",
        "0.05",
        "--chunk-size",
        "100",
    ];

    kill_when(
        command(&folder, &server, &args),
        "the first run waited on its batch",
        || {
            api.batches
                .lock()
                .unwrap()
                .first()
                .is_some_and(|(_, looks)| *looks >= 3)
        },
    )
    .await;
    assert!(!out.exists());
    assert_eq!(api.submitted.lock().unwrap().len(), rows);

    let (status, _) = run_measured(command(&folder, &server, &args)).await;
    assert!(status.success(), "{status}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), rows + 1);
    assert!(written
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("0,ticket number 0 was charged twice,billing,false,6,"));
    // One batch, each row submitted once.
    assert_eq!(api.batches.lock().unwrap().len(), 1);
    let mut submitted = api.submitted.lock().unwrap().clone();
    submitted.sort_unstable();
    assert_eq!(submitted, (0..rows as i64).collect::<Vec<_>>());
}

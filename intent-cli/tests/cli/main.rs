//! The `intent` binary, run as a user runs it: each command, each bad input (with its message and
//! exit code, and never a panic or a backtrace), `intent test` recorded from a server on
//! 127.0.0.1 and replayed offline, and a committed recording of the real local model replayed.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

#[cfg(feature = "map")]
mod map;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn shop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/catalogs/shop")
}

fn sample() -> PathBuf {
    root().join("examples/catalog")
}

/// What a run of the binary printed and exited with.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn of(output: Output) -> Ran {
        let ran = Ran {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        // Whatever went wrong, the user sees a message, not a panic.
        for text in [&ran.stdout, &ran.stderr] {
            assert!(
                !text.contains("panicked")
                    && !text.contains("stack backtrace")
                    && !text.contains("RUST_BACKTRACE"),
                "{text}"
            );
        }
        ran
    }

    fn expect(self, code: i32) -> Ran {
        assert_eq!(
            self.code, code,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// Runs `intent ARGS` with only the environment `env` (and a backtrace asked for, to prove none
/// is shown), feeding `stdin`.
async fn intent(args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_intent"));
    command
        .args(args)
        .env_clear()
        .env("RUST_BACKTRACE", "1")
        .envs(env.iter().copied())
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = command.spawn().expect("the binary runs");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(text.as_bytes()).await.unwrap();
        drop(pipe);
    }
    Ran::of(child.wait_with_output().await.unwrap())
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The last user message of a chat completion request's body.
fn user_message(body: &Value) -> &str {
    body["messages"]
        .as_array()
        .and_then(|m| m.iter().rfind(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
}

/// Answers each chat completion by the first rule whose needle is in the user message.
struct ByContent(Vec<(&'static str, Value)>);

impl Respond for ByContent {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let user = user_message(&body);
        let content = self
            .0
            .iter()
            .find(|(needle, _)| user.contains(needle))
            .map(|(_, reply)| match reply {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            });
        match content {
            Some(content) => ResponseTemplate::new(200).set_body_json(json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
            })),
            None => ResponseTemplate::new(400).set_body_json(json!({"error": {"message": format!("no rule for {user}")}})),
        }
    }
}

/// A model for the shop catalog: right about the lamps, wrong about the tables, and never able
/// to order "whatever is cheapest".
async fn shop_model() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ByContent(vec![
            (
                "40 units of A-1192",
                json!({"value": {"sku": "A-1192", "quantity": 40}}),
            ),
            (
                "4 units of B-2",
                json!({"value": {"sku": "B-2", "quantity": 5}}),
            ),
            (
                "whatever is cheapest",
                json!({"value": {"sku": "cheap", "quantity": 0}}),
            ),
            (
                "money back for order 77",
                json!("The customer asks for a refund of order 77."),
            ),
            ("charged twice", json!({"value": ["billing", "refund"]})),
        ]))
        .mount(&server)
        .await;
    server
}

fn base_url(server: &MockServer) -> String {
    format!("{}/v1", server.uri())
}

#[tokio::test]
async fn help_shows_each_command_with_examples_and_the_exit_codes() {
    let top = intent(&["--help"], &[], None).await.expect(0);
    for needle in [
        "check",
        "run",
        "test",
        "Exit codes:",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
    ] {
        assert!(top.stdout.contains(needle), "{needle}: {}", top.stdout);
    }
    for command in ["check", "run", "test"] {
        let help = intent(&[command, "--help"], &[], None).await.expect(0);
        assert!(
            help.stdout.contains("Examples:\n  intent "),
            "{command}: {}",
            help.stdout
        );
        assert!(
            help.stdout.contains("Exit codes:"),
            "{command}: {}",
            help.stdout
        );
    }
    let unknown = intent(&["frobnicate"], &[], None).await.expect(2);
    assert!(
        unknown
            .stderr
            .contains("unrecognized subcommand 'frobnicate'"),
        "{}",
        unknown.stderr
    );
}

#[tokio::test]
async fn check_accepts_the_sample_catalog() {
    let ran = intent(&["check", s(&sample())], &[], None).await.expect(0);
    assert!(
        ran.stdout
            .ends_with("catalog: 3 intents, 4 tests, no error\n"),
        "{}",
        ran.stdout
    );
}

#[tokio::test]
async fn check_prints_every_error_with_file_intent_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.yaml"),
        "intents:\n  - name: title\n    intnet: Write a title.\n    shape: string\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.yaml"),
        "intents:\n  - name: count\n    intent: Count.\n    shape: { type: integer }\n    tests:\n      - input: a, b\n        expected: two\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("c.yaml"),
        "intents:\n  - name: fine\n    intent: Fine.\n    shape: string\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not an intent file").unwrap();
    let ran = intent(&["check", s(dir.path())], &[], None).await.expect(1);
    let a = dir.path().join("a.yaml");
    let b = dir.path().join("b.yaml");
    assert!(
        ran.stderr.contains(&format!(
            "error: {}:3: intent `title`: unknown field `intnet`",
            a.display()
        )),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(&format!(
            "error: {}:6: intent `count`: test `test 1`: the expected answer does not fit the shape: /value: \"two\" is not of type \"integer\"",
            b.display()
        )),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.ends_with(": 2 errors\n"), "{}", ran.stdout);

    // A typed intent's test is checked against its built-in type.
    std::fs::write(&a, "intents:\n  - name: title\n    intent: Write a title.\n    shape: List<string>\n    tests:\n      - input: x\n        expected: [1]\n").unwrap();
    std::fs::write(
        &b,
        "intents:\n  - name: fine\n    intent: Again.\n    shape: string\n",
    )
    .unwrap();
    let ran = intent(&["check", s(dir.path())], &[], None).await.expect(1);
    assert!(ran.stderr.contains("a.yaml:6: intent `title`: test `test 1`: the expected answer does not read as `List<string>`"), "{}", ran.stderr);
    // Names are unique across the files of a folder.
    assert!(
        ran.stderr
            .contains("intent `fine`: the name is already used by the intent at"),
        "{}",
        ran.stderr
    );
}

#[tokio::test]
async fn a_missing_path_or_a_folder_without_intent_files_is_a_load_error() {
    for command in [&["check"][..], &["run"], &["test"]] {
        let mut args = command.to_vec();
        args.push("no/such/intents");
        if args[0] == "run" {
            args.push("x");
        }
        let ran = intent(&args, &[], None).await.expect(3);
        assert!(
            ran.stderr
                .contains("no/such/intents: no such file or folder"),
            "{}",
            ran.stderr
        );
    }
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("README.md"), "# notes").unwrap();
    let ran = intent(&["test", s(empty.path())], &[], None)
        .await
        .expect(3);
    assert!(
        ran.stderr
            .contains("the folder has no .json, .yaml or .yml file"),
        "{}",
        ran.stderr
    );
    let broken = tempfile::tempdir().unwrap();
    std::fs::write(
        broken.path().join("x.yaml"),
        "intents:\n  - name: t\n    intent: T.\n    shape: string\n    tests:\n      - input: a\n",
    )
    .unwrap();
    let ran = intent(
        &["test", s(broken.path())],
        &[("OPENAI_API_KEY", "sk-unused")],
        None,
    )
    .await
    .expect(3);
    assert!(
        ran.stderr
            .contains("x.yaml:6: intent `t`: test `test 1`: the test does not say what it expects"),
        "{}",
        ran.stderr
    );
}

#[tokio::test]
async fn an_unknown_intent_lists_the_known_ones() {
    let ran = intent(
        &["run", s(&shop()), "order", "--input", "-"],
        &[],
        Some("x"),
    )
    .await
    .expect(2);
    assert!(
        ran.stderr.contains("no intent is named `order`;"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("has: order-line, purchase, summary, tags"),
        "{}",
        ran.stderr
    );
}

#[tokio::test]
async fn no_configured_provider_names_the_variables() {
    for args in [
        &["run", s(&shop()), "summary", "--input", "-"][..],
        &["test", s(&shop())],
    ] {
        let ran = intent(args, &[], Some("Where is my parcel?"))
            .await
            .expect(4);
        assert!(
            ran.stderr.contains("no provider is configured in the environment; set OPENAI_API_KEY or OPENAI_BASE_URL (openai), or ANTHROPIC_API_KEY (anthropic)"),
            "{}",
            ran.stderr
        );
    }
    let bad = intent(
        &["run", s(&shop()), "summary", "--input", "-"],
        &[("OPENAI_BASE_URL", "not a url")],
        Some("x"),
    )
    .await
    .expect(4);
    assert!(bad.stderr.contains("OPENAI_BASE_URL"), "{}", bad.stderr);
}

#[tokio::test]
async fn bad_input_is_a_usage_error_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let offline = [("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")];
    let run = |input: PathBuf, json: bool| {
        let shop = shop();
        async move {
            let mut args = vec![
                "run".to_owned(),
                s(&shop).to_owned(),
                "order-line".to_owned(),
                "--input".to_owned(),
                s(&input).to_owned(),
            ];
            if json {
                args.push("--input-json".to_owned());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            intent(&args, &offline, None).await.expect(2)
        }
    };
    let missing = run(dir.path().join("gone.txt"), false).await;
    assert!(
        missing.stderr.contains("gone.txt does not exist"),
        "{}",
        missing.stderr
    );
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "  \n").unwrap();
    assert!(run(empty, false)
        .await
        .stderr
        .contains("empty.txt) is empty"));
    let not_json = dir.path().join("order.json");
    std::fs::write(&not_json, "{\"sku\": ").unwrap();
    assert!(run(not_json, true)
        .await
        .stderr
        .contains("is not valid JSON (--input-json): EOF while parsing"));
    let binary = dir.path().join("blob.bin");
    std::fs::write(&binary, [0xff, 0xfe, 0x00]).unwrap();
    assert!(run(binary, false)
        .await
        .stderr
        .contains("is not UTF-8 text"));
    // Longer than the client's max_input_chars: refused before any call, nothing truncated.
    let long = dir.path().join("long.txt");
    std::fs::write(&long, "a".repeat(200_001)).unwrap();
    let refused = run(long, false).await;
    assert!(
        refused
            .stderr
            .contains("200001 characters, more than max_input_chars (200000); nothing was sent"),
        "{}",
        refused.stderr
    );
    // No input at all, with standard input closed: read as empty.
    let none = intent(&["run", s(&shop()), "summary"], &offline, Some(""))
        .await
        .expect(2);
    assert!(
        none.stderr.contains("standard input) is empty"),
        "{}",
        none.stderr
    );
}

#[tokio::test]
async fn an_intent_of_a_programs_own_type_cannot_run_here_and_says_why() {
    let ran = intent(
        &["run", s(&shop()), "purchase", "--input", "-"],
        &[("OPENAI_API_KEY", "sk-unused")],
        Some("x"),
    )
    .await
    .expect(2);
    assert!(
        ran.stderr.contains("intent `purchase`: its shape is the Rust type `PurchaseRequest`, which the command line cannot build; run it from the program that defines `PurchaseRequest`, or write its shape as a JSON Schema"),
        "{}",
        ran.stderr
    );
}

#[tokio::test]
async fn run_prints_the_value_and_reports_attempts_usage_and_time() {
    let model = shop_model().await;
    let env = [("OPENAI_BASE_URL", base_url(&model))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let ran = intent(
        &[
            "run",
            s(&shop()),
            "order-line",
            "--input",
            "-",
            "--temperature",
            "0",
        ],
        &env,
        Some("Please send 40 units of A-1192."),
    )
    .await
    .expect(0);
    assert_eq!(
        ran.stdout,
        "{\n  \"sku\": \"A-1192\",\n  \"quantity\": 40\n}\n"
    );
    assert!(
        ran.stderr
            .contains("attempt 1: passed · openai gpt-4o-mini-2024-07-18 · 110 tokens"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("order-line: 1 attempt · 110 tokens (100 in, 0 cached, 10 out)"),
        "{}",
        ran.stderr
    );
    let sent: Value =
        serde_json::from_slice(&model.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(sent["temperature"], 0.0);

    let text = intent(
        &["run", s(&shop()), "summary", "--input", "-"],
        &env,
        Some("I want my money back for order 77."),
    )
    .await
    .expect(0);
    assert_eq!(text.stdout, "The customer asks for a refund of order 77.\n");

    let dir = tempfile::tempdir().unwrap();
    let ticket = dir.path().join("ticket.json");
    std::fs::write(&ticket, r#"{"ticket": 12, "text": "I was charged twice."}"#).unwrap();
    let one_line = intent(
        &[
            "run",
            s(&shop()),
            "tags",
            "--input",
            s(&ticket),
            "--input-json",
            "--json",
        ],
        &env,
        None,
    )
    .await
    .expect(0);
    assert_eq!(one_line.stdout.lines().count(), 1);
    let report: Value = serde_json::from_str(&one_line.stdout).unwrap();
    assert_eq!(report["value"], json!(["billing", "refund"]));
    assert_eq!(report["attempts"][0]["provider"], "openai");
    assert_eq!(report["usage"]["calls"], 1);
    assert!(report["seconds"].as_f64().unwrap() >= 0.0);

    let failed = intent(
        &["run", s(&shop()), "order-line", "--input", "-", "--json"],
        &env,
        Some("Send me a few of whatever is cheapest."),
    )
    .await
    .expect(1);
    let report: Value = serde_json::from_str(&failed.stdout).unwrap();
    assert_eq!(report["value"], Value::Null);
    assert_eq!(report["attempts"].as_array().unwrap().len(), 3);
    assert!(
        report["issues"].to_string().contains("/value/quantity"),
        "{report}"
    );

    let unknown = intent(
        &[
            "run",
            s(&shop()),
            "summary",
            "--input",
            "-",
            "--provider",
            "anthropic",
        ],
        &env,
        Some("x"),
    )
    .await
    .expect(2);
    assert!(
        unknown
            .stderr
            .contains("no provider is named `anthropic`; the configured providers are: openai"),
        "{}",
        unknown.stderr
    );
}

/// The table's rows and the failures, without the times (which differ from run to run).
fn without_times(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("Ran "))
        .map(|l| match l.rfind("  ") {
            Some(at) if l.ends_with(" s") => l[..at].trim_end(),
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn test_records_from_a_server_then_replays_offline_with_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("shop.jsonl");
    let junit = dir.path().join("reports/junit.xml");
    let model = shop_model().await;
    let env = [
        ("OPENAI_BASE_URL", base_url(&model)),
        (
            "OPENAI_API_KEY",
            "sk-proj-recorded0123456789abcdef".to_owned(),
        ),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let recorded = intent(
        &[
            "test",
            s(&shop()),
            "--record",
            s(&cassette),
            "--junit",
            s(&junit),
            "--concurrency",
            "2",
        ],
        &env,
        None,
    )
    .await
    .expect(1);
    drop(model);
    let out = &recorded.stdout;
    assert!(
        out.starts_with("intent      passed  failed  skipped    tokens      time\n"),
        "{out}"
    );
    assert!(
        out.contains("\norder-line       2       1        0       550"),
        "{out}"
    );
    assert!(
        out.contains("\npurchase         0       0        1         0"),
        "{out}"
    );
    assert!(
        out.contains("\nsummary          1       0        0       110"),
        "{out}"
    );
    assert!(
        out.contains("\ntotal            4       1        1       770"),
        "{out}"
    );
    assert!(out.contains("order-line › four tables ("), "{out}");
    assert!(out.contains("orders.yaml:16)\n  - at /quantity: expected 4, got 5\n  answer: {\"sku\":\"B-2\",\"quantity\":5}"), "{out}");
    assert!(
        out.contains(
            "Skipped:\n  - intent `purchase`: its shape is the Rust type `PurchaseRequest`"
        ),
        "{out}"
    );
    assert!(out.ends_with("\n4 passed, 1 failed, 1 skipped\n"), "{out}");
    let text = std::fs::read_to_string(&cassette).unwrap();
    assert_eq!(
        text.lines().count(),
        7,
        "one line per exchange: 1 + 1 + 3 attempts + 1 + 1"
    );
    assert!(!text.contains("sk-proj-recorded0123456789abcdef"));

    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"intent\" tests=\"6\" failures=\"1\" errors=\"0\" skipped=\"1\""), "{xml}");
    assert!(
        xml.contains(
            "<testsuite name=\"order-line\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\""
        ),
        "{xml}"
    );
    assert!(
        xml.contains("<testcase name=\"four tables\" classname=\"order-line\""),
        "{xml}"
    );
    assert!(xml.contains("line=\"16\">\n      <failure message=\"at /quantity: expected 4, got 5\" type=\"expectation\">"), "{xml}");
    assert!(
        xml.contains(
            "<system-out>{&quot;sku&quot;:&quot;B-2&quot;,&quot;quantity&quot;:5}</system-out>"
        ),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<skipped message=\"intent `purchase`: its shape is the Rust type `PurchaseRequest`"
        ),
        "{xml}"
    );

    // Offline: no provider variable, no server.
    let replayed = intent(&["test", s(&shop()), "--replay", s(&cassette)], &[], None)
        .await
        .expect(1);
    assert_eq!(without_times(&replayed.stdout), without_times(out));

    let filtered = intent(
        &[
            "test",
            s(&shop()),
            "--replay",
            s(&cassette),
            "--filter",
            "forty",
        ],
        &[],
        None,
    )
    .await
    .expect(0);
    assert!(
        filtered.stdout.ends_with("\n1 passed, 0 failed\n"),
        "{}",
        filtered.stdout
    );
    let none = intent(
        &[
            "test",
            s(&shop()),
            "--replay",
            s(&cassette),
            "--filter",
            "zebra",
        ],
        &[],
        None,
    )
    .await
    .expect(2);
    assert!(none.stderr.contains("no test matches `zebra`; the intents with tests are: order-line, purchase, summary, tags"), "{}", none.stderr);
    // A changed option is a miss, named as such: the test errs, offline.
    let warmer = intent(
        &[
            "test",
            s(&shop()),
            "--replay",
            s(&cassette),
            "--filter",
            "a refund",
            "--temperature",
            "0.5",
        ],
        &[],
        None,
    )
    .await
    .expect(1);
    assert!(
        warmer.stdout.contains("  - error: openai: the cassette"),
        "{}",
        warmer.stdout
    );
    assert!(
        warmer.stdout.contains("differs in options: temperature"),
        "{}",
        warmer.stdout
    );
}

#[tokio::test]
async fn test_replays_the_committed_recording_of_the_real_model() {
    let cassette =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes/sample_catalog.jsonl");
    let ran = intent(
        &[
            "test",
            s(&sample()),
            "--replay",
            s(&cassette),
            "--temperature",
            "0",
        ],
        &[],
        None,
    )
    .await;
    let out = &ran.stdout;
    assert!(
        out.starts_with("intent         passed  failed    tokens      time\n"),
        "{out}"
    );
    for intent in ["ticket-title", "ticket-tags", "ticket-triage"] {
        assert!(out.contains(&format!("\n{intent} ")), "{out}");
    }
    // Every test was answered from the recording: none erred on a miss.
    assert!(!out.contains("- error:"), "{out}");
    let closing = out.lines().last().unwrap();
    let passed: usize = closing.split(" passed").next().unwrap().parse().unwrap();
    assert_eq!(
        ran.code,
        if closing.ends_with(" 0 failed") { 0 } else { 1 },
        "{out}"
    );
    assert!(passed <= 4 && closing.ends_with(" failed"), "{out}");
}

#[tokio::test]
async fn unusable_cassettes_report_files_and_arguments_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone.jsonl");
    let missing = intent(&["test", s(&shop()), "--replay", s(&gone)], &[], None)
        .await
        .expect(4);
    assert!(
        missing
            .stderr
            .contains("gone.jsonl does not exist; record it once"),
        "{}",
        missing.stderr
    );
    let both = intent(
        &[
            "test",
            s(&shop()),
            "--replay",
            "a.jsonl",
            "--record",
            "b.jsonl",
        ],
        &[],
        None,
    )
    .await
    .expect(2);
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.stderr
    );
    let zero = intent(&["test", s(&shop()), "--concurrency", "0"], &[], None)
        .await
        .expect(2);
    assert!(zero.stderr.contains("--concurrency"), "{}", zero.stderr);
    let hot = intent(
        &["run", s(&shop()), "summary", "--temperature", "7"],
        &[],
        None,
    )
    .await
    .expect(2);
    assert!(hot.stderr.contains("7 is outside 0 to 2"), "{}", hot.stderr);

    let model = shop_model().await;
    let url = base_url(&model);
    let report_is_a_folder = intent(
        &[
            "test",
            s(&shop()),
            "--filter",
            "forty",
            "--junit",
            s(dir.path()),
        ],
        &[("OPENAI_BASE_URL", url.as_str())],
        None,
    )
    .await
    .expect(4);
    assert!(
        report_is_a_folder.stderr.contains("the JUnit report"),
        "{}",
        report_is_a_folder.stderr
    );
    assert!(
        report_is_a_folder.stdout.ends_with("1 passed, 0 failed\n"),
        "the results are still printed"
    );
}

#[tokio::test]
async fn run_sends_each_attached_file_after_the_text_and_refuses_a_bad_one() {
    let model = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                "content": "{\"value\": {\"sku\": \"A-1192\", \"quantity\": 40}}"}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        })))
        .mount(&model)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let scan = dir.path().join("order.pdf");
    std::fs::write(&scan, b"%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n").unwrap();
    let env = [("OPENAI_BASE_URL", base_url(&model))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let ran = intent(
        &[
            "run",
            s(&shop()),
            "order-line",
            "--input",
            "-",
            "--attach",
            s(&scan),
        ],
        &env,
        Some("The order is attached."),
    )
    .await
    .expect(0);
    assert!(ran.stdout.contains("\"quantity\": 40"), "{}", ran.stdout);
    let received = model.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&received[0].body).unwrap();
    let content = &body["messages"][1]["content"];
    assert_eq!(content[0]["type"], "text");
    assert!(content[0]["text"]
        .as_str()
        .unwrap()
        .contains("1. application/pdf, 36 bytes, \"order.pdf\""));
    assert_eq!(content[1]["type"], "file");
    assert_eq!(content[1]["file"]["filename"], "order.pdf");
    assert!(content[1]["file"]["file_data"]
        .as_str()
        .unwrap()
        .starts_with("data:application/pdf;base64,JVBERi0xLjQK"));

    let empty = dir.path().join("empty.png");
    std::fs::write(&empty, b"").unwrap();
    for (bad, reason) in [
        (s(&empty), "empty (0 bytes)"),
        ("no/such/file.png", "cannot be read"),
        (s(dir.path()), "is a directory"),
    ] {
        let ran = intent(
            &[
                "run",
                s(&shop()),
                "order-line",
                "--input",
                "-",
                "--attach",
                bad,
            ],
            &env,
            Some("The order is attached."),
        )
        .await
        .expect(2);
        assert!(ran.stderr.contains(reason), "{bad}: {}", ran.stderr);
    }
    assert_eq!(
        model.received_requests().await.unwrap().len(),
        1,
        "nothing more was sent"
    );
}

#[cfg(not(feature = "map"))]
#[tokio::test]
async fn map_built_without_its_feature_says_how_to_get_it() {
    let ran = intent(
        &[
            "map", "intents", "triage", "--input", "t.csv", "--output", "o.csv",
        ],
        &[],
        None,
    )
    .await
    .expect(2);
    assert!(
        ran.stderr
            .contains("cargo install intent-cli --features map"),
        "{}",
        ran.stderr
    );
}

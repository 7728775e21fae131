//! The vendor fixtures: where they are, their manifest, and what each recording must yield once
//! read by this library, in the library's own terms.
//!
//! The fixtures are read where the repository's `../shared/corpora/vendor-fixtures/` puts them (or
//! where `INTENT_VENDOR_FIXTURES` says), never copied into the project. The manifest's `expected`
//! block (derived from the recordings by the corpus's own `compute_expected.py`) says what each
//! recording holds in the vendor's terms; [`Want::of`] turns it into what our provider must give,
//! by the mapping the README's provider table documents (usage fields, finish reasons, reasoning).

use std::path::PathBuf;
use std::sync::OnceLock;

use intent_core::provider::FinishReason;
use intent_core::Usage;
use serde_json::Value;

/// The variable that points the suite at another copy of the fixtures.
pub const DIR_VAR: &str = "INTENT_VENDOR_FIXTURES";

/// The fixtures' folder: `INTENT_VENDOR_FIXTURES`, else `../shared/corpora/vendor-fixtures` beside
/// the repository. Panics, naming the path, when it is not there.
pub fn dir() -> PathBuf {
    let dir = match std::env::var_os(DIR_VAR) {
        Some(dir) => PathBuf::from(dir),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpora/vendor-fixtures")
        }
    };
    assert!(
        dir.join("MANIFEST.json").is_file(),
        "the vendor fixtures are not at {}: the conformance suite reads the recorded vendor traffic \
         from ../shared/corpora/vendor-fixtures beside the repository (set {DIR_VAR} to read them \
         from elsewhere); .ci/run runs it with the corpus in place",
        dir.display()
    );
    dir
}

/// Which API a recording is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
}

impl Family {
    fn of(name: &str) -> Family {
        match name {
            "openai-chat" => Family::OpenAiChat,
            "openai-responses" => Family::OpenAiResponses,
            "anthropic-messages" => Family::Anthropic,
            "google-gemini" => Family::Gemini,
            other => panic!("the manifest names an unknown family {other:?}"),
        }
    }
}

/// One manifest entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub family: Family,
    pub file: String,
    pub stream: bool,
    pub vendor: String,
    pub model: Option<String>,
    pub bytes: u64,
    pub body_pointer: Option<String>,
    pub expected: Value,
}

/// Every manifest entry, read once.
pub fn manifest() -> &'static [Entry] {
    static MANIFEST: OnceLock<Vec<Entry>> = OnceLock::new();
    MANIFEST.get_or_init(|| {
        let path = dir().join("MANIFEST.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
        let entries: Vec<Value> = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not a JSON list: {e}", path.display()));
        entries.iter().map(entry).collect()
    })
}

fn entry(value: &Value) -> Entry {
    let text = |field: &str| value[field].as_str().map(str::to_owned);
    let file = text("file").expect("a manifest entry names its file");
    Entry {
        family: Family::of(value["family"].as_str().unwrap_or_default()),
        stream: value["kind"] == "stream-chunks",
        vendor: text("vendor").unwrap_or_default(),
        model: text("model"),
        bytes: value["bytes"].as_u64().unwrap_or(0),
        body_pointer: text("body_pointer"),
        expected: value["expected"].clone(),
        file,
    }
}

/// The manifest entry of `file`.
pub fn entry_of(file: &str) -> &'static Entry {
    manifest()
        .iter()
        .find(|e| e.file == file)
        .unwrap_or_else(|| panic!("{file} is not in {}/MANIFEST.json", dir().display()))
}

impl Entry {
    /// The recording's bytes, checked against the manifest's size.
    pub fn read(&self) -> Vec<u8> {
        let path = dir().join(&self.file);
        let bytes = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{} cannot be read: {e}", path.display()));
        assert_eq!(
            bytes.len() as u64,
            self.bytes,
            "{} is not the recording the manifest describes (its size differs)",
            path.display()
        );
        bytes
    }

    /// A recorded response body: the file, or the part of it at `body_pointer` (a capture
    /// envelope).
    pub fn response_body(&self) -> Value {
        let whole: Value = serde_json::from_slice(&self.read())
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", self.file));
        match &self.body_pointer {
            Some(pointer) => whole
                .pointer(pointer)
                .unwrap_or_else(|| panic!("{} has nothing at {pointer}", self.file))
                .clone(),
            None => whole,
        }
    }

    /// The JSON values of a stream recording, one a line, blank lines skipped.
    pub fn stream_events(&self) -> Vec<String> {
        let text = String::from_utf8(self.read())
            .unwrap_or_else(|e| panic!("{} is not UTF-8: {e}", self.file));
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The vendor's error, when the recording is one.
    pub fn error(&self) -> Option<&Value> {
        self.expected.get("error").filter(|e| !e.is_null())
    }
}

/// What a reply must be once read by our provider.
#[derive(Debug, Clone, PartialEq)]
pub struct Want {
    pub text: String,
    pub reasoning: Option<String>,
    pub usage: Usage,
    pub finish: FinishReason,
    /// The model the reply names; `None` when the recording names none.
    pub model: Option<String>,
    /// The tool calls the reply makes, as `(id, name, arguments)` (an id empty where the
    /// recording has none); `None` where they are not compared (one stream of several).
    pub tool_calls: Option<Vec<(String, String, Value)>>,
}

/// What a recorded error must be once read by our provider: the vendor's message, whole.
#[derive(Debug, Clone, PartialEq)]
pub struct WantError {
    pub message: String,
    /// The HTTP status to serve it with (the recordings keep none: Gemini's body carries it,
    /// the others are served as 400, or 429 for `insufficient_quota`).
    pub status: u16,
    /// The vendor's code or type, which our message names.
    pub kind: Option<String>,
}

impl WantError {
    pub fn of(error: &Value) -> WantError {
        let text = |field: &str| error[field].as_str().map(str::to_owned);
        let quota = text("code").as_deref() == Some("insufficient_quota")
            || text("type").as_deref() == Some("insufficient_quota");
        let status = match error["code"].as_u64() {
            Some(code) => u16::try_from(code).unwrap_or(400),
            None if quota => 429,
            None => 400,
        };
        WantError {
            message: text("message").expect("a recorded error has a message"),
            status,
            kind: text("type").or_else(|| text("status")),
        }
    }
}

/// The number at `pointer` in `value`, 0 when absent.
fn count(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

impl Want {
    /// What the recording of `entry` must yield, from its manifest `expected` block.
    pub fn of(entry: &Entry) -> Want {
        let expected = &entry.expected;
        Want::from_parts(
            entry.family,
            expected,
            &expected["usage"],
            entry.model.clone(),
        )
    }

    /// The same, for one reply of several (a recording of several streams): its usage alone.
    pub fn from_parts(
        family: Family,
        expected: &Value,
        usage: &Value,
        model: Option<String>,
    ) -> Want {
        let mut text = expected["text"].as_str().unwrap_or_default().to_owned();
        let finish = expected["finish"].as_str().unwrap_or_default();
        let (usage, finish, reasoning) = match family {
            Family::OpenAiChat => (
                chat_usage(usage),
                chat_finish(finish),
                expected["reasoning"].as_str().map(str::to_owned),
            ),
            Family::OpenAiResponses => {
                let (answer, commentary) = phased(expected);
                if let Some(answer) = answer {
                    text = answer;
                }
                let reasoning = [joined(&expected["reasoning_summary"]), commentary]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>();
                (
                    responses_usage(usage),
                    responses_finish(finish),
                    (!reasoning.is_empty()).then(|| reasoning.join("\n\n")),
                )
            }
            Family::Anthropic => (
                anthropic_usage(usage),
                anthropic_finish(finish),
                expected["thinking"].as_str().map(str::to_owned),
            ),
            Family::Gemini => (
                gemini_usage(usage),
                gemini_finish(finish),
                expected["thoughts"].as_str().map(str::to_owned),
            ),
        };
        Want {
            text,
            // As every provider reads it: blank reasoning is no reasoning.
            reasoning: reasoning.filter(|r| !r.trim().is_empty()),
            usage,
            finish,
            model,
            tool_calls: Some(want_calls(expected)),
        }
    }
}

/// The tool calls a recording's `expected` block lists, whichever vendor's names it uses
/// (`id` or `call_id`; `arguments`, `input` or `args`).
fn want_calls(expected: &Value) -> Vec<(String, String, Value)> {
    let calls = expected["tool_calls"].as_array().map(Vec::as_slice);
    calls
        .unwrap_or_default()
        .iter()
        .map(|call| {
            let id = call
                .get("id")
                .or_else(|| call.get("call_id"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            let arguments = ["arguments", "input", "args"]
                .iter()
                .find_map(|field| call.get(*field))
                .cloned()
                .unwrap_or(Value::Null);
            let name = call["name"].as_str().unwrap_or_default();
            (id.to_owned(), name.to_owned(), arguments)
        })
        .collect()
}

/// A Responses reply whose messages carry a `phase` (gpt-5.3-codex and later): the answer is the
/// `final_answer` messages' text alone; `commentary` messages are intermediate ("Labels an
/// `assistant` message as intermediate commentary (`commentary`) or the final answer
/// (`final_answer`)", `MessagePhase` in OpenAI's `openapi.yaml`), kept beside the answer with the
/// reasoning. `None` for the answer when the reply has no commentary.
fn phased(expected: &Value) -> (Option<String>, Option<String>) {
    let phases: Vec<&str> = expected["phases"]
        .as_array()
        .map(|p| p.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let parts: Vec<&str> = match expected["text_parts"].as_array() {
        Some(parts) => parts.iter().filter_map(Value::as_str).collect(),
        None => return (None, None),
    };
    if !phases.contains(&"commentary") || phases.len() != parts.len() {
        return (None, None);
    }
    let of = |phase: &str| -> Vec<&str> {
        parts
            .iter()
            .zip(&phases)
            .filter(|(_, p)| **p == phase)
            .map(|(text, _)| *text)
            .collect()
    };
    (
        Some(of("final_answer").concat()),
        Some(of("commentary").join("\n\n")),
    )
}

/// Reasoning summaries as one text: the parts set apart by a blank line.
fn joined(parts: &Value) -> Option<String> {
    let parts: Vec<&str> = parts.as_array()?.iter().filter_map(Value::as_str).collect();
    Some(parts.join("\n\n"))
}

/// Chat Completions: `prompt_tokens` (cached included), `completion_tokens` (reasoning included),
/// `prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens`. A server
/// whose `total_tokens` is prompt + completion + reasoning (xAI) counts the reasoning outside
/// `completion_tokens`; our output counts it in, as it is billed.
fn chat_usage(usage: &Value) -> Usage {
    let input = count(usage, "/prompt_tokens");
    let mut output = count(usage, "/completion_tokens");
    let reasoning = count(usage, "/completion_tokens_details/reasoning_tokens");
    if reasoning > 0 && count(usage, "/total_tokens") == input + output + reasoning {
        output += reasoning;
    }
    Usage {
        input_tokens: input,
        output_tokens: output,
        cached_tokens: count(usage, "/prompt_tokens_details/cached_tokens"),
        reasoning_tokens: reasoning,
        calls: 1,
    }
}

fn chat_finish(reason: &str) -> FinishReason {
    match reason {
        "stop" | "" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Responses: `input_tokens`, `output_tokens`, `input_tokens_details.cached_tokens`,
/// `output_tokens_details.reasoning_tokens`.
fn responses_usage(usage: &Value) -> Usage {
    Usage {
        input_tokens: count(usage, "/input_tokens"),
        output_tokens: count(usage, "/output_tokens"),
        cached_tokens: count(usage, "/input_tokens_details/cached_tokens"),
        reasoning_tokens: count(usage, "/output_tokens_details/reasoning_tokens"),
        calls: 1,
    }
}

/// The manifest's Responses finish is the final `status`, with `:reason` when incomplete.
fn responses_finish(status: &str) -> FinishReason {
    match status {
        "completed" | "" => FinishReason::Stop,
        "incomplete:max_output_tokens" => FinishReason::Length,
        "incomplete:content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Messages: input counts the cache writes and reads beside `input_tokens`; the cache reads are
/// the cached tokens; `output_tokens_details.thinking_tokens`, where the API reports it, is the
/// part of the output spent thinking.
fn anthropic_usage(usage: &Value) -> Usage {
    let read = count(usage, "/cache_read_input_tokens");
    Usage {
        input_tokens: count(usage, "/input_tokens")
            + count(usage, "/cache_creation_input_tokens")
            + read,
        output_tokens: count(usage, "/output_tokens"),
        cached_tokens: read,
        reasoning_tokens: count(usage, "/output_tokens_details/thinking_tokens"),
        calls: 1,
    }
}

fn anthropic_finish(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" | "" => FinishReason::Stop,
        "max_tokens" => FinishReason::Length,
        "refusal" => FinishReason::Refusal,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Gemini: the prompt (and tool-use prompt) as input, the candidates and the thoughts as output
/// (`thoughtsTokenCount` is outside `candidatesTokenCount`), `cachedContentTokenCount`, and the
/// thoughts as reasoning.
fn gemini_usage(usage: &Value) -> Usage {
    let thoughts = count(usage, "/thoughtsTokenCount");
    Usage {
        input_tokens: count(usage, "/promptTokenCount") + count(usage, "/toolUsePromptTokenCount"),
        output_tokens: count(usage, "/candidatesTokenCount") + thoughts,
        cached_tokens: count(usage, "/cachedContentTokenCount"),
        reasoning_tokens: thoughts,
        calls: 1,
    }
}

fn gemini_finish(reason: &str) -> FinishReason {
    match reason {
        "STOP" | "" => FinishReason::Stop,
        "MAX_TOKENS" => FinishReason::Length,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" => {
            FinishReason::ContentFilter
        }
        other => FinishReason::Abnormal(other.to_owned()),
    }
}

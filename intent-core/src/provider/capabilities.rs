//! One table of what each provider does with each option and feature: provider x API x option
//! -> how it is sent, or why it is left out (with a notice on the attempt's record) or refused
//! before sending. The README's provider table is written from it ([`markdown`]; a test fails
//! when the two differ, and `INTENT_BLESS=1` writes it again), and a test walks every cell
//! against a server on 127.0.0.1 (`tests/providers/capabilities.rs`): each option set on each
//! provider and API is on the wire where the table says, refused before sending, or noted.
//!
//! The table states; the vendors' bodies act (`openai/`, `anthropic/`, `gemini/`, `sampling`,
//! `plan`, `models`): the walk is what holds the two together. Each cell's wire facts have their
//! sources in the module that writes them.

use super::models::{Family, Maker, Sampling, FAMILIES};

/// A column: one provider's API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Chat Completions (and compatible servers).
    OpenAiChat,
    /// OpenAI's Responses API.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
    /// Amazon Bedrock's Converse API (`BedrockProvider`, feature `bedrock`).
    Bedrock,
    /// Gemini models on Google Vertex AI (`VertexProvider`, feature `vertex`): Gemini's body
    /// and reply at Vertex AI's endpoint.
    VertexGemini,
    /// Claude models on Google Vertex AI (`VertexProvider`, feature `vertex`): Anthropic's
    /// Messages body and reply through `rawPredict`.
    VertexClaude,
}

/// The APIs whose cells a row holds, in the README's order.
pub const OWN_APIS: [Api; 5] = [
    Api::OpenAiChat,
    Api::OpenAiResponses,
    Api::Anthropic,
    Api::Gemini,
    Api::Bedrock,
];

/// Every API the table speaks of: the README's columns, then Vertex AI's two, whose cells are
/// Gemini's and Anthropic's but where [`VERTEX_APART`] says otherwise.
pub const APIS: [Api; 7] = [
    Api::OpenAiChat,
    Api::OpenAiResponses,
    Api::Anthropic,
    Api::Gemini,
    Api::Bedrock,
    Api::VertexGemini,
    Api::VertexClaude,
];

impl Api {
    /// The column's heading.
    pub fn heading(self) -> &'static str {
        match self {
            Api::OpenAiChat => "OpenAI Chat Completions",
            Api::OpenAiResponses => "OpenAI Responses",
            Api::Anthropic => "Anthropic Messages",
            Api::Gemini => "Gemini `generateContent`",
            Api::Bedrock => "Amazon Bedrock Converse",
            Api::VertexGemini => "Gemini on Vertex AI",
            Api::VertexClaude => "Claude on Vertex AI",
        }
    }

    /// The API whose body and reply Vertex AI's column shares, or the API itself.
    pub fn own(self) -> Api {
        match self {
            Api::VertexGemini => Api::Gemini,
            Api::VertexClaude => Api::Anthropic,
            other => other,
        }
    }
}

/// What a row is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An [`AiRequestOptions`](crate::AiRequestOptions) field, by its name: walked on every API.
    Option(&'static str),
    /// A form of the request (a strict schema, a stream, a batch): walked on every API.
    Request(&'static str),
    /// What is read from the reply: checked by the conformance suite on recorded real replies.
    Reply(&'static str),
}

/// Where an option is sent: what the README shows, and the JSON pointer of the body field (or
/// the endpoint's tail) the walk looks for.
#[derive(Debug, Clone, Copy)]
pub struct Wire {
    /// As the README shows it.
    pub shown: &'static str,
    /// The body field's JSON pointer (`/generationConfig/temperature`), or, starting with `:`,
    /// `/v` or `/converse` ([`Wire::is_endpoint`]), the endpoint the request goes to.
    pub at: &'static str,
    /// The model the walk asks (one that takes the option), or the provider's default.
    pub model: Option<&'static str>,
}

impl Wire {
    /// Whether [`at`](Self::at) is the tail of the endpoint rather than a body field.
    ///
    /// ```ignore
    /// assert!(Wire { shown: "", at: ":streamGenerateContent?alt=sse", model: None }.is_endpoint());
    /// ```
    pub fn is_endpoint(&self) -> bool {
        self.at.starts_with(':') || self.at.starts_with("/v") || self.at.starts_with("/converse")
    }
}

/// What happens instead of sending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Left out, with a notice on the attempt's record naming the option.
    Noticed,
    /// Refused before anything is sent, with an error naming the option, the provider and the
    /// model.
    Refused,
}

/// When an option is not sent: what happens, when, and a model the walk shows it with.
#[derive(Debug, Clone, Copy)]
pub struct Unless {
    /// Left out with a notice, or refused.
    pub outcome: Outcome,
    /// When, in words (`for o-series and gpt-5 models, which refuse it`).
    pub when: &'static str,
    /// A model it happens with, for the walk; `None` when it happens with any model.
    pub model: Option<&'static str>,
}

/// One cell: sent (`wire`), and when it is not (`unless`).
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// Where it is sent, when it is.
    pub wire: Option<Wire>,
    /// When, and how, it is not.
    pub unless: Option<Unless>,
}

/// One row.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The option or feature.
    pub kind: Kind,
    /// One cell an API, in the order of [`OWN_APIS`].
    pub cells: [Cell; 5],
}

impl Row {
    /// The cell of `api`: Vertex AI's are Gemini's and Anthropic's but where [`VERTEX_APART`]
    /// says otherwise.
    pub fn cell(&self, api: Api) -> &Cell {
        if api != api.own() {
            if let Some((_, cell)) = VERTEX_APART.iter().find(|(kind, _)| *kind == self.kind) {
                return cell;
            }
        }
        &self.cells[OWN_APIS.iter().position(|a| *a == api.own()).unwrap_or(0)]
    }
}

/// Where Vertex AI differs from the vendor's own API, for Gemini and Claude models alike:
/// everything else is sent and read as Gemini's and Anthropic's columns say (the same bodies
/// and replies, `provider/cloud/vertex.rs`).
pub static VERTEX_APART: &[(Kind, Cell)] = &[(
    Kind::Request("batch run"),
    only(Refused, "this library has no Vertex AI batch prediction"),
)];

const fn sent(shown: &'static str, at: &'static str) -> Cell {
    Cell {
        wire: Some(Wire {
            shown,
            at,
            model: None,
        }),
        unless: None,
    }
}

const fn sent_to(shown: &'static str, at: &'static str, model: &'static str) -> Cell {
    Cell {
        wire: Some(Wire {
            shown,
            at,
            model: Some(model),
        }),
        unless: None,
    }
}

const fn only(outcome: Outcome, when: &'static str) -> Cell {
    Cell {
        wire: None,
        unless: Some(Unless {
            outcome,
            when,
            model: None,
        }),
    }
}

const fn read(shown: &'static str) -> Cell {
    Cell {
        wire: Some(Wire {
            shown,
            at: "",
            model: None,
        }),
        unless: None,
    }
}

impl Cell {
    const fn unless(
        mut self,
        outcome: Outcome,
        when: &'static str,
        model: Option<&'static str>,
    ) -> Cell {
        self.unless = Some(Unless {
            outcome,
            when,
            model,
        });
        self
    }
}

use Outcome::{Noticed, Refused};

/// A Claude model on Bedrock, which thinks.
const BEDROCK_CLAUDE: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";

const REASONING_MODELS: &str = "for o-series and gpt-5 models, which refuse sampling settings";

/// The table.
pub static TABLE: &[Row] = &[
    Row {
        kind: Kind::Option("max_output_tokens"),
        cells: [
            sent("`max_completion_tokens` (or `max_tokens`)", "/max_completion_tokens"),
            sent("`max_output_tokens`", "/max_output_tokens")
                .unless(Refused, "below 16", None),
            sent("`max_tokens` (always; 4096 by default)", "/max_tokens"),
            sent("`maxOutputTokens`", "/generationConfig/maxOutputTokens"),
            sent("`inferenceConfig.maxTokens` (with the thinking budget added)", "/inferenceConfig/maxTokens"),
        ],
    },
    Row {
        kind: Kind::Option("temperature"),
        cells: [
            sent("`temperature`", "/temperature").unless(Noticed, REASONING_MODELS, Some("o3-mini")),
            sent("`temperature`", "/temperature")
                .unless(Noticed, REASONING_MODELS, Some("gpt-5-mini")),
            sent("`temperature`", "/temperature").unless(
                Refused,
                "with thinking on; left out with a notice with `with_send_temperature(false)`",
                None,
            ),
            sent("`temperature`", "/generationConfig/temperature"),
            sent("`inferenceConfig.temperature`", "/inferenceConfig/temperature").unless(Refused, "with Claude's thinking on", Some(BEDROCK_CLAUDE)),
        ],
    },
    Row {
        kind: Kind::Option("top_p"),
        cells: [
            sent("`top_p`", "/top_p").unless(Noticed, REASONING_MODELS, Some("o3-mini")),
            sent("`top_p`", "/top_p").unless(Noticed, REASONING_MODELS, Some("gpt-5-mini")),
            sent("`top_p`", "/top_p").unless(
                Refused,
                "with `temperature` on Claude Opus 4.1, Sonnet 4.5, Haiku 4.5 and later (they take one), and below 0.95 with thinking",
                None,
            ),
            sent("`topP`", "/generationConfig/topP"),
            sent("`inferenceConfig.topP`", "/inferenceConfig/topP"),
        ],
    },
    Row {
        kind: Kind::Option("seed"),
        cells: [
            sent("`seed`", "/seed"),
            only(Refused, "the API has no seed"),
            only(Refused, "the API has no seed"),
            sent("`seed` (32-bit)", "/generationConfig/seed"),
            only(Refused, "Converse has no seed"),
        ],
    },
    Row {
        kind: Kind::Option("stop"),
        cells: [
            sent("`stop` (at most 4)", "/stop"),
            only(Refused, "the API has no stop sequences"),
            sent("`stop_sequences`", "/stop_sequences"),
            sent("`stopSequences` (at most 5)", "/generationConfig/stopSequences"),
            sent("`inferenceConfig.stopSequences`", "/inferenceConfig/stopSequences"),
        ],
    },
    Row {
        kind: Kind::Option("reasoning_effort"),
        cells: [
            sent_to("`reasoning_effort`", "/reasoning_effort", "o3-mini").unless(
                Noticed,
                "for models that do not reason (gpt-4o, gpt-4.1)",
                Some("gpt-4o-mini"),
            ),
            sent_to(
                "`reasoning.effort`, with `reasoning.summary: \"auto\"` so the summaries come back",
                "/reasoning/summary",
                "gpt-5-mini",
            )
            .unless(
                Noticed,
                "for models that do not reason (gpt-4o, gpt-4.1)",
                Some("gpt-4.1-mini"),
            ),
            sent_to("`output_config.effort`", "/output_config/effort", "claude-opus-4-6").unless(
                Noticed,
                "for models before Claude Opus 4.5 and Sonnet 4.6",
                Some("claude-sonnet-4-5"),
            ),
            sent_to(
                "`thinkingConfig.thinkingLevel` (Gemini 3; Gemini 3 Pro takes `low` or `high`, another level is refused)",
                "/generationConfig/thinkingConfig/thinkingLevel",
                "gemini-3-flash-preview",
            )
            .unless(
                Noticed,
                "for Gemini 2.5 and earlier, which take a thinking budget",
                Some("gemini-2.5-flash"),
            ),
            only(Refused, "Converse takes no effort; left out with a notice beside a `thinking_budget`, which is sent"),
        ],
    },
    Row {
        kind: Kind::Option("thinking_budget"),
        cells: [
            only(Noticed, "Chat Completions has no such field; set `reasoning_effort`"),
            only(Noticed, "the Responses API has no such field; set `reasoning_effort`"),
            sent_to(
                "`thinking.budget_tokens` (at least 1024), added to `max_tokens`; 0 sends `thinking.type: disabled`",
                "/thinking/budget_tokens",
                "claude-sonnet-4-5",
            )
            .unless(Noticed, "for models that do not think (Claude 3.5, Claude 3)", Some("claude-3-5-haiku-latest")),
            sent_to(
                "`thinkingConfig.thinkingBudget`, with `includeThoughts`; 0 turns thinking off (refused on Gemini 2.5 Pro and 3 Pro, which only think); wins over the effort",
                "/generationConfig/thinkingConfig/thinkingBudget",
                "gemini-2.5-flash",
            )
            .unless(Noticed, "for models that do not think (Gemini 2.0 and earlier)", Some("gemini-2.0-flash")),
            sent_to("`additionalModelRequestFields.thinking.budget_tokens` (at least 1024), added to `maxTokens`; 0 sends none", "/additionalModelRequestFields/thinking/budget_tokens", BEDROCK_CLAUDE).unless(Refused, "for models other than Claude", Some("amazon.nova-lite-v1:0")),
        ],
    },
    Row {
        kind: Kind::Option("prompt_caching"),
        cells: [
            sent("`prompt_cache_key` named after the stable prefix", "/prompt_cache_key"),
            sent("`prompt_cache_key` named after the stable prefix", "/prompt_cache_key"),
            sent(
                "`cache_control: {\"type\": \"ephemeral\"}` on the system block and on the intent's text, where the stable prefix ends; a notice when that prefix is below the model's minimum (1024 to 4096 tokens), which Anthropic does not cache",
                "/system/0/cache_control",
            ),
            only(Noticed, "Gemini caches repeated prefixes by itself and takes no field for it"),
            sent("a `cachePoint` after the system prompt; a notice when there is no system prompt, as nothing is then cached", "/system/1/cachePoint"),
        ],
    },
    Row {
        kind: Kind::Option("logprobs"),
        cells: [
            sent("`logprobs: true`", "/logprobs"),
            sent("`include: [\"message.output_text.logprobs\"]`", "/include"),
            only(Refused, "the API gives none"),
            sent("`responseLogprobs: true`", "/generationConfig/responseLogprobs"),
            only(Refused, "Converse gives none"),
        ],
    },
    Row {
        kind: Kind::Option("extra_body"),
        cells: [
            sent("each field over the body's own", "/extra_field"),
            sent("each field over the body's own", "/extra_field"),
            sent("each field over the body's own", "/extra_field"),
            sent("each field over the body's own", "/extra_field"),
            sent("each field over the body's own", "/extra_field"),
        ],
    },
    Row {
        kind: Kind::Request("strict schema"),
        cells: [
            sent("`response_format` `json_schema`, strict", "/response_format/json_schema/strict"),
            sent("`text.format` `json_schema`, strict", "/text/format/strict"),
            sent("`output_config.format`", "/output_config/format/schema"),
            sent("`responseJsonSchema`, in Gemini's dialect (a schema it cannot take is refused)", "/generationConfig/responseJsonSchema"),
            sent("one tool whose `inputSchema.json` is the schema, forced with `toolChoice`; refused with Claude's thinking", "/toolConfig/tools/0/toolSpec/inputSchema/json"),
        ],
    },
    Row {
        kind: Kind::Request("tools"),
        cells: [
            sent("`tools` of `function`s, strict, with `tool_choice`; `role: tool` results; at a server other than OpenAI's and Azure's (llama.cpp, vLLM, Ollama: `with_tools_beside_format`), the rounds go without `response_format` and an answer that does not read is asked for with it and `tool_choice: none`", "/tools/0/function/parameters"),
            sent("`tools` of `function`s, strict; `function_call_output` items; at another server, as Chat Completions", "/tools/0/parameters"),
            sent("`tools` with `input_schema`; `tool_result` blocks, thinking blocks kept", "/tools/0/input_schema"),
            sent("`tools.functionDeclarations` in Gemini's dialect; `functionResponse` parts; Gemini 2.5 and earlier, which refuse a JSON format beside them, get the rounds in plain text and an answer that does not read asked for with the format and no declarations", "/tools/0/functionDeclarations/0/parametersJsonSchema"),
            sent("`toolConfig.tools` of `toolSpec`s beside the schema's tool, `toolChoice` `auto`; `toolResult` blocks, the turn sent back with its signed reasoning; streamed calls joined from their `toolUse` input pieces", "/toolConfig/tools/0/toolSpec/inputSchema/json"),
        ],
    },
    Row {
        kind: Kind::Request("JSON object"),
        cells: [
            sent("`response_format` `json_object`", "/response_format/type"),
            sent("`text.format` `json_object`", "/text/format/type"),
            read("the prompt alone"),
            sent("`responseMimeType: application/json`", "/generationConfig/responseMimeType"),
            read("the prompt alone"),
        ],
    },
    Row {
        kind: Kind::Request("`.stream()`"),
        cells: [
            sent("`stream: true`, `stream_options.include_usage`; `data:` chunks", "/stream_options/include_usage"),
            sent("`stream: true`; its typed events (text and reasoning-summary deltas, `response.completed`)", "/stream"),
            sent("`stream: true`; its named events", "/stream"),
            sent("`:streamGenerateContent?alt=sse`; each event a chunk", ":streamGenerateContent?alt=sse"),
            sent("`/converse-stream`; its binary event stream (`application/vnd.amazon.eventstream`)", "/converse-stream"),
        ],
    },
    Row {
        kind: Kind::Request("batch run"),
        cells: [
            read("the Batch API (`/v1/batches`)"),
            read("the Batch API, with `/v1/responses` lines"),
            read("Message Batches"),
            only(Refused, "this library has no Gemini batch API"),
            only(Refused, "this library has no Bedrock batch inference"),
        ],
    },
    Row {
        kind: Kind::Reply("reasoning kept apart"),
        cells: [
            read("`reasoning_content` (llama.cpp, DeepSeek), `reasoning` (vLLM, Ollama)"),
            read("reasoning summaries, and `commentary`-phase messages"),
            read("`thinking` blocks"),
            read("thought parts"),
            read("`reasoningContent` blocks"),
        ],
    },
    Row {
        kind: Kind::Reply("`Usage::reasoning_tokens`"),
        cells: [
            read("`completion_tokens_details.reasoning_tokens` (added to output when the total leaves them out, as xAI's does)"),
            read("`output_tokens_details.reasoning_tokens`"),
            read("`output_tokens_details.thinking_tokens` (newer models; counted in output)"),
            read("`thoughtsTokenCount` (added to output)"),
            read("none: Converse does not count them apart"),
        ],
    },
    Row {
        kind: Kind::Reply("`Usage::cached_tokens`"),
        cells: [
            read("`prompt_tokens_details.cached_tokens`"),
            read("`input_tokens_details.cached_tokens`"),
            read("`cache_read_input_tokens`"),
            read("`cachedContentTokenCount`"),
            read("`cacheReadInputTokens` (the input counts `cacheWriteInputTokens` and the reads too)"),
        ],
    },
    Row {
        kind: Kind::Reply("schema step-down"),
        cells: [
            read("on `Invalid schema for response_format`"),
            read("on `Invalid schema for response_format`"),
            read("on `output_config.format.schema: ...`"),
            read("on `too many states`, a `response_json_schema` error, or a schema its dialect cannot take"),
            read("none: the schema goes as the forced tool's input schema"),
        ],
    },
    Row {
        kind: Kind::Reply("finish reasons"),
        cells: [
            read("`stop`, `length`, `content_filter`; a `refusal`"),
            read("`status`, `incomplete_details.reason`"),
            read("`end_turn`, `max_tokens`, `refusal`"),
            read("`STOP`, `MAX_TOKENS`, the filters; any other (`OTHER`, `LANGUAGE`, ...) fails the attempt"),
            read("`end_turn`, `stop_sequence`, `tool_use` of the answer tool, `max_tokens`, `model_context_window_exceeded`, `guardrail_intervened`, `content_filtered`"),
        ],
    },
];

/// A cell as the README shows it.
fn shown(cell: &Cell) -> String {
    let unless = cell.unless.map(|u| {
        let what = match u.outcome {
            Outcome::Noticed => "left out with a notice",
            Outcome::Refused => "refused before sending",
        };
        (what, u.when)
    });
    match (cell.wire, unless) {
        (Some(wire), None) => wire.shown.to_owned(),
        (Some(wire), Some((what, when))) => format!("{}; {what} {when}", wire.shown),
        (None, Some((what, when))) => format!("{what}: {when}"),
        (None, None) => String::new(),
    }
}

fn row_name(kind: Kind) -> String {
    match kind {
        Kind::Option(name) => format!("`{name}`"),
        Kind::Request(name) | Kind::Reply(name) => name.to_owned(),
    }
}

/// The README's provider table and model-family table, as Markdown.
///
/// ```ignore
/// assert!(markdown().starts_with("| Option | OpenAI Chat Completions |"));
/// ```
pub fn markdown() -> String {
    let mut out = String::from("| Option | ");
    out.push_str(&OWN_APIS.map(Api::heading).join(" | "));
    out.push_str(" | Vertex AI (Gemini / Claude models) |\n|---|---|---|---|---|---|---|\n");
    for row in TABLE {
        let mut cells: Vec<String> = row.cells.iter().map(shown).collect();
        cells.push(
            match VERTEX_APART.iter().find(|(kind, _)| *kind == row.kind) {
                Some((_, cell)) => shown(cell),
                None => "as Gemini / Anthropic".to_owned(),
            },
        );
        out.push_str(&format!(
            "| {} | {} |\n",
            row_name(row.kind),
            cells.join(" | ")
        ));
    }
    out.push_str(
        "\nThe model families the providers know (`provider/models.rs`, each row grounded in the \
         vendor's docs); a model of no row is sent every option as asked:\n\n",
    );
    out.push_str("| Family | Models | Reasons | `temperature`, `top_p` | `reasoning_effort` | `thinking_budget` | cached prefix at least |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for family in FAMILIES {
        out.push_str(&family_row(family));
    }
    out
}

fn family_row(family: &Family) -> String {
    let maker = match family.maker {
        Maker::OpenAi => "OpenAI",
        Maker::Anthropic => "Anthropic",
        Maker::Gemini => "Gemini",
    };
    let mut models = family
        .prefixes
        .iter()
        .map(|p| format!("`{p}*`"))
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(with) = family.with {
        models.push_str(&format!(" with `{with}`"));
    }
    let sampling = match family.sampling {
        Sampling::Any => "both",
        Sampling::OneOf => "one or the other",
        Sampling::Refused => "neither (left out)",
    };
    let efforts = if family.efforts.is_empty() {
        "no (left out)".to_owned()
    } else {
        family
            .efforts
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let budget = match (family.budget, family.thinking_off) {
        (false, _) => "no (left out)",
        (true, true) => "yes",
        (true, false) => "yes, not 0",
    };
    let cache = if family.min_cache_tokens == 0 {
        "".to_owned()
    } else {
        family.min_cache_tokens.to_string()
    };
    // Whether the family reasons whatever the request says: OpenAI's reasoning models, and the
    // Gemini models whose thinking cannot be turned off.
    let always = match family.maker {
        Maker::OpenAi => family.sampling == Sampling::Refused,
        Maker::Gemini => family.budget && !family.thinking_off,
        Maker::Anthropic => false,
    };
    let reasons = match (always, family.maker) {
        (true, _) => "always",
        (false, _) if family.efforts.is_empty() && !family.budget => "no",
        (false, Maker::Anthropic) => "when asked",
        (false, _) => "by default; can be turned off",
    };
    format!(
        "| {maker} {} | {models} | {reasons} | {sampling} | {efforts} | {budget} | {cache} |\n",
        family.name,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's generated part lies between these.
    const START: &str = "<!-- provider-table:start -->\n";
    const END: &str = "<!-- provider-table:end -->";

    #[test]
    fn the_readme_provider_table_is_the_codes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
        let readme = std::fs::read_to_string(&path).expect("the README is beside the crates");
        let (Some(start), Some(end)) = (readme.find(START), readme.find(END)) else {
            panic!("README.md has no {START:?} ... {END:?} section");
        };
        let written = &readme[start + START.len()..end];
        let table = markdown();
        if written != table {
            if std::env::var_os("INTENT_BLESS").is_some() {
                let updated = format!("{}{START}{table}{}", &readme[..start], &readme[end..]);
                std::fs::write(&path, updated).expect("README.md is writable");
                return;
            }
            panic!(
                "README.md's provider table differs from provider/capabilities.rs; \
                 INTENT_BLESS=1 cargo test -p intent-core --lib capabilities writes it again.\n\
                 written:\n{written}\ncode:\n{table}"
            );
        }
    }

    /// Every `AiRequestOptions` field is a row of the table, or one the providers never see
    /// (each named here with why): a new option fails to compile here until it is placed.
    #[test]
    fn every_option_a_provider_receives_has_a_row() {
        let crate::AiRequestOptions {
            max_output_tokens: _,
            temperature: _,
            model: _,
            reasoning_effort: _,
            thinking_budget: _,
            provider: _,
            escalation: _,
            rule_lines: _,
            output_schema: _,
            judge: _,
            max_attempts: _,
            max_total_tokens: _,
            deadline: _,
            no_cache: _,
            prompt_caching: _,
            seed: _,
            top_p: _,
            stop: _,
            extra_body: _,
            answer_checks: _,
            logprobs: _,
            expected_output_description: _,
            system_instructions: _,
            examples: _,
            max_tool_calls: _,
            output_mode: _,
        } = crate::AiRequestOptions::default();
        let sent = [
            "max_output_tokens",
            "temperature",
            "reasoning_effort",
            "thinking_budget",
            "prompt_caching",
            "seed",
            "top_p",
            "stop",
            "extra_body",
            "logprobs",
        ];
        // Not provider options: `model` and `provider` choose who is asked; `escalation`,
        // `max_attempts`, `max_total_tokens`, `deadline`, `no_cache`, `judge` and
        // `answer_checks` rule the attempts; `rule_lines`, `output_schema`,
        // `expected_output_description`, `system_instructions` and `examples` are the prompt's
        // text and the strict schema (the `strict schema` row); `max_tool_calls` bounds the
        // tool rounds, and `output_mode` becomes the strict schema, the `tools` row (a forced
        // `final_answer` tool) or the prompt's text.
        for name in sent {
            assert!(
                TABLE.iter().any(|r| r.kind == Kind::Option(name)),
                "`{name}` reaches the providers but has no row"
            );
        }
        for row in TABLE {
            if let Kind::Option(name) = row.kind {
                assert!(sent.contains(&name), "`{name}` has a row but is not listed");
            }
            for cell in &row.cells {
                assert!(
                    cell.wire.is_some() || cell.unless.is_some(),
                    "{:?}",
                    row.kind
                );
            }
        }
    }
}

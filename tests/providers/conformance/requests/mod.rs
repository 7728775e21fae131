//! Requests as the real APIs accept them: for every option of the README's provider table, the
//! body our provider builds (captured at a server on 127.0.0.1) compared field by field with the
//! fields of requests the real API accepted for the same feature.
//!
//! Each API has a table of [`Field`]s: a path in the body (`messages[].role`), the JSON type or
//! values it takes, and where that was seen accepted: a request recorded against the live API
//! (pydantic-ai's VCR cassettes, `tests/models/cassettes/` in pydantic/pydantic-ai, read where
//! they are published and never copied here; a vendor fixture whose reply echoes the request), or
//! the vendor's published reference (OpenAI's `openapi.yaml` in openai/openai-openapi; Google's
//! python-genai types; Anthropic's API reference). [`check_fields`] fails on a body field that is
//! in no table, or has another type: a field no recording or reference shows is a defect.
//!
//! An option that cannot reach the wire as the caller set it (a sampling setting a reasoning model
//! refuses, a thinking budget an API has no field for) has a case of its own: it must be refused
//! before sending (naming it) or noted on the attempt record, never dropped in silence
//! ([`told_or_sent`], [`refused_or_noticed`]).

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod openai;

use intent_core::prelude::*;
use intent_core::provider::{Provider, ProviderError};
use intent_core::AiRequest;
use serde_json::Value;

use super::replay::{Answer, ReplayServer};

/// Where a field was seen accepted.
#[derive(Debug, Clone, Copy)]
pub enum Seen {
    /// A request recorded against the live API, in pydantic-ai's cassettes (path under
    /// `tests/models/cassettes/`).
    Cassette(&'static str),
    /// A vendor fixture of `../shared/corpora/vendor-fixtures/` whose reply echoes the request.
    Echo(&'static str),
    /// The vendor's reference (OpenAI: a component of `openapi.yaml`).
    Reference(&'static str),
}

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Seen::Cassette(path) => write!(f, "pydantic-ai cassette {path}"),
            Seen::Echo(fixture) => write!(f, "vendor fixture {fixture}"),
            Seen::Reference(what) => write!(f, "reference: {what}"),
        }
    }
}

/// A body field: its path (`a.b`, `a[].b` for the members of a list), what it takes, and where it
/// was seen.
///
/// What it takes: `string`, `integer`, `number`, `boolean`, `object` (a value not looked into, such
/// as a schema), `array` (a list whose members are rows of their own, `path[]`), or the values it
/// takes, `a|b|c`; kinds a field may have are joined by ` or `.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub path: &'static str,
    pub takes: &'static str,
    pub seen: Seen,
}

/// Shorthand for a table row.
pub const fn field(path: &'static str, takes: &'static str, seen: Seen) -> Field {
    Field { path, takes, seen }
}

/// The differences between `body` and the fields of `table`: a field the table has not, or a
/// value it does not take.
pub fn field_defects(body: &Value, table: &[Field]) -> Vec<String> {
    let mut defects = Vec::new();
    walk(body, "", table, &mut defects);
    defects
}

/// Fails listing every field of `body` that `table` does not show.
pub fn check_fields(api: &str, body: &Value, table: &[Field]) {
    let defects = field_defects(body, table);
    assert!(
        defects.is_empty(),
        "{api}: the body has fields no recorded request or reference shows:\n  - {}\nbody: {body}",
        defects.join("\n  - ")
    );
}

fn walk(value: &Value, path: &str, table: &[Field], defects: &mut Vec<String>) {
    let row = table.iter().find(|f| f.path == path);
    match value {
        Value::Object(members) if row.is_none_or(|f| f.takes != "object") => {
            for (name, member) in members {
                let inner = if path.is_empty() {
                    name.clone()
                } else {
                    format!("{path}.{name}")
                };
                walk(member, &inner, table, defects);
            }
        }
        Value::Array(items) if row.is_none_or(|f| kinds(f.takes).any(|k| k == "array")) => {
            for item in items {
                walk(item, &format!("{path}[]"), table, defects);
            }
        }
        _ => match row {
            None => defects.push(format!(
                "`{path}` = {value}: no recorded request or reference has it"
            )),
            Some(field) if !kinds(field.takes).any(|kind| takes(kind, value)) => {
                defects.push(format!(
                    "`{path}` = {value}: the API takes {} there (seen: {})",
                    field.takes, field.seen
                ))
            }
            Some(_) => {}
        },
    }
}

/// The kinds a row's `takes` names.
fn kinds(takes: &str) -> impl Iterator<Item = &str> {
    takes.split(" or ")
}

/// Whether `value` is of the kind `takes` names.
fn takes(takes: &str, value: &Value) -> bool {
    match takes {
        "string" => value.is_string(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        values => value
            .as_str()
            .is_some_and(|v| values.split('|').any(|x| x == v)),
    }
}

/// What one request sent: its target (path and query) and its JSON body; `None` when nothing was
/// sent (the request was refused before sending), with the provider's error.
pub struct Sent {
    pub target: String,
    pub body: Value,
}

/// Sends `request` through `provider` (built for the server's base URL) and returns what reached
/// the server, or the error that kept anything from being sent. The server answers 400: only the
/// request is looked at.
pub async fn capture(
    provider: impl Fn(&str) -> Box<dyn Provider>,
    request: &AiRequest,
    stream: bool,
) -> Result<Sent, ProviderError> {
    let server = ReplayServer::start(|_, _| Answer::refusal("request captured".into())).await;
    let provider = provider(&server.base);
    let outcome = if stream {
        intent_core::provider::ReplyAssembler::collect(provider.stream(request)).await
    } else {
        provider.complete(request).await
    };
    let Some(sent) = server.received().into_iter().next() else {
        return Err(outcome.expect_err("no request was sent, yet a reply came"));
    };
    Ok(Sent {
        target: sent.target,
        body: serde_json::from_str(&sent.body).expect("the request body is JSON"),
    })
}

/// A plain request: a system message, a user message, a model.
pub fn request(model: &str) -> AiRequest {
    let mut request = AiRequest::new(
        "You are terse.",
        "## Intent\nCount.\n\n## Input (text)\n2 apples",
    );
    request.model = Some(model.to_owned());
    request
}

/// The same request with a strict schema.
pub fn strict(model: &str) -> AiRequest {
    request(model).with_format(
        intent_core::ResponseFormat::JsonSchema,
        Some(serde_json::json!({
            "type": "object",
            "properties": {"value": {"type": "integer"}},
            "required": ["value"],
            "additionalProperties": false
        })),
    )
}

/// The same request in JSON-object mode.
pub fn json_object(model: &str) -> AiRequest {
    request(model).with_format(intent_core::ResponseFormat::JsonObject, None)
}

/// Whether an option a provider cannot send was refused before sending (`refused`, naming it) or
/// noted on the attempt record, rather than dropped in silence: runs `u32::ai` through `client`
/// with `options` and reads the outcome.
pub fn refused_or_noticed(result: &AiResult<u32>, option: &str) -> bool {
    let names = |issue: &ResultIssue| issue.message.contains(option);
    result.issues().iter().any(names)
        || result
            .attempts()
            .iter()
            .any(|a| a.notices.iter().any(names) || a.issues.iter().any(names))
}

/// Fails unless `option` reached the wire of every request sent (`on_wire`), or the caller was told:
/// the call refused it before sending, or an attempt notes it.
pub fn told_or_sent(
    result: &AiResult<u32>,
    bodies: &[Value],
    option: &str,
    on_wire: impl Fn(&Value) -> bool,
) {
    let sent = !bodies.is_empty() && bodies.iter().all(on_wire);
    assert!(
        sent || refused_or_noticed(result, option),
        "`{option}` was dropped in silence: not on the wire, not refused, not noted; bodies sent: \
         {bodies:?}"
    );
}

#[test]
fn a_field_no_table_shows_is_named_with_its_path() {
    let table = [
        field("model", "string", Seen::Reference("test")),
        field("messages[].role", "system|user", Seen::Reference("test")),
        field("schema", "object", Seen::Reference("test")),
    ];
    let body = serde_json::json!({
        "model": "m",
        "messages": [{"role": "user"}, {"role": "tool", "name": "x"}],
        "schema": {"anything": [1]},
        "seed": 3
    });
    let defects = field_defects(&body, &table);
    assert_eq!(defects.len(), 3, "{defects:?}");
    assert!(
        defects[0].starts_with("`messages[].role` = \"tool\""),
        "{defects:?}"
    );
    assert!(defects[1].starts_with("`messages[].name`"), "{defects:?}");
    assert!(defects[2].starts_with("`seed` = 3"), "{defects:?}");
}

//! Verifying a value against a JSON Schema chosen at run time: the one verifier of
//! `client.transform`, of `map_each` and `map_values` with an `output_schema`, and of intent files
//! whose shape is a schema.
//!
//! A derived type is verified by its shape (the walker of this folder's `mod.rs`) and never
//! comes here; a runtime schema is compiled once per call (an intent file's once, when the file
//! is loaded) and every reply's value is checked against the **whole** schema, not the strict
//! copy sent to the provider: the provider's strict mode drops `pattern`, `minimum`, `format` and
//! the like, and holds nothing at all when the call runs in JSON-object mode (the schema
//! step-down, servers without structured output, the batch fallbacks). The checking is the
//! [`jsonschema`] crate's (drafts 4, 6, 7, 2019-09 and 2020-12, detected from `$schema`, 2020-12
//! when there is none), which is made for the job and passes the official test suite.
//!
//! - **Findings** are issues at their JSON pointers under `/value` (`/value/lines/2/sku`), at most
//!   [`MAX_FINDINGS`](crate::read::MAX_FINDINGS) of them and a count of the rest, as the
//!   reader bounds its own; a constraint (`minimum`, `pattern`, `enum`, `format`, ...) broken is
//!   [`IssueKind::Rule`], anything else [`IssueKind::Shape`].
//! - **Formats are asserted**: `date`, `time`, `date-time`, `duration`, `email`, `idn-email`,
//!   `hostname`, `idn-hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `iri`,
//!   `iri-reference`, `uuid`, `regex`, `json-pointer`, `relative-json-pointer` and
//!   `uri-template` (a JSON Schema validator only annotates formats unless asked, so
//!   `"format": "email"` would hold nothing). The formats an earlier draft leaves out (`uuid`
//!   and `duration` before 2019-09, `iri`, `iri-reference`, `idn-hostname` and
//!   `relative-json-pointer` before draft 7, `json-pointer`, `uri-reference` and `uri-template`
//!   before draft 6) are asserted as draft 2020-12 defines them whatever the draft, as a model
//!   is asked for them whatever the draft. Any other format is stated to the model and not
//!   checked.
//! - **Refused before sending**: a schema that breaks its meta-schema, a `pattern` that does not
//!   compile, and a `$ref` to another document. Remote documents are never fetched: a call's
//!   outcome must not hang on a third server, and no provider's strict mode takes such a `$ref`
//!   either; put the referenced schema under `$defs`. Each refusal names the keyword and its
//!   JSON pointer in the schema.
//! - **Stated in the prompt**: every constraint the strict copy drops (`minimum`, `maximum`,
//!   their exclusive forms, `multipleOf`, `minLength`, `maxLength`, `pattern`, `minItems`,
//!   `maxItems`, `uniqueItems`) and every `format`, one rule line per member as a derived type's
//!   ([`constraint_lines`](RuntimeSchema::constraint_lines)), through `properties`, `items`,
//!   `prefixItems`, `additionalProperties`, the combinators and local `$ref`s.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::num::NonZeroUsize;
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError};

use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use jsonschema::{Draft, Retrieve, Uri, Validator};
use lru::LruCache;
use serde_json::Value;

use crate::read::findings::Findings;
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{number, plural, rule_line, Seg};

/// How many compiled schemas [`RuntimeSchema::shared`] keeps.
const CACHED_SCHEMAS: NonZeroUsize = match NonZeroUsize::new(64) {
    Some(n) => n,
    None => NonZeroUsize::MIN,
};

/// How deep the schema is walked for constraints to state.
const MAX_STATED_DEPTH: usize = 32;

/// The most constraint lines stated for one schema: a schema of thousands of constrained members
/// is described by the schema itself, not by a page of rules.
const MAX_STATED_LINES: usize = 200;

/// The most schema nodes the statement walk visits: local `$ref`s shared by many members make a
/// walk that follows them grow with every path through them (exponentially, for a schema such as
/// Kubernetes' definitions), so the walk stops there; every constraint is checked all the same.
const MAX_STATED_STEPS: usize = 4096;

/// The longest value shown in a finding, in characters.
const MAX_SHOWN_CHARS: usize = 80;

/// A JSON Schema chosen at run time, compiled: it verifies a reply's value in full.
pub(crate) struct RuntimeSchema {
    source: Value,
    validator: Validator,
}

impl std::fmt::Debug for RuntimeSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeSchema")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// Refuses every `$ref` to another document (see the module docs).
struct NoRemoteDocuments;

impl Retrieve for NoRemoteDocuments {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "`$ref` names another document ({}), which is not fetched; put the schema it refers to under `$defs` and refer to it as `#/$defs/...`",
            uri.as_str()
        )
        .into())
    }
}

/// Why a runtime schema cannot be checked: where in the schema (a JSON pointer ending in the
/// keyword, empty for the root) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaFault {
    pub(crate) place: String,
    pub(crate) message: String,
}

impl std::fmt::Display for SchemaFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.place.is_empty() {
            write!(f, "the schema cannot be checked: {}", self.message)
        } else {
            write!(
                f,
                "the schema cannot be checked at `{}`: {}",
                self.place, self.message
            )
        }
    }
}

impl RuntimeSchema {
    /// Checks `schema` against its meta-schema and compiles it; the fault names the keyword and
    /// its JSON pointer in the schema.
    pub(crate) fn compile(schema: &Value) -> Result<RuntimeSchema, SchemaFault> {
        let draft = Draft::default().detect(schema);
        let mut options = jsonschema::options()
            .should_validate_formats(true)
            .should_ignore_unknown_formats(true)
            .with_retriever(NoRemoteDocuments);
        if draft < Draft::Draft201909 {
            for format in LATER_FORMATS {
                options = options.with_format(format, later_format(format));
            }
        }
        let validator = options.build(schema).map_err(|error| {
            let error = deepest(&error);
            let at = error.instance_path().as_str();
            let place = if at.is_empty() {
                error.schema_path().as_str().to_owned()
            } else {
                at.to_owned()
            };
            let message = shorter(&error.to_string(), &error.instance().to_string());
            SchemaFault { place, message }
        })?;
        Ok(RuntimeSchema {
            source: schema.clone(),
            validator,
        })
    }

    /// [`compile`](Self::compile), shared: a schema compiled for an earlier call (a program
    /// calls `transform` with one schema many times) is taken from a process-wide cache of the
    /// last [`CACHED_SCHEMAS`] compiled, found by a hash of the schema and compared whole. A
    /// schema that does not compile is not kept.
    pub(crate) fn shared(schema: &Value) -> Result<Arc<RuntimeSchema>, SchemaFault> {
        static CACHE: LazyLock<Mutex<LruCache<u64, Arc<RuntimeSchema>>>> =
            LazyLock::new(|| Mutex::new(LruCache::new(CACHED_SCHEMAS)));
        let key = {
            let mut hasher = std::hash::DefaultHasher::new();
            hash_value(schema, &mut hasher);
            hasher.finish()
        };
        let lock = || CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = lock().get(&key).filter(|c| c.source == *schema) {
            return Ok(Arc::clone(found));
        }
        // Compiled outside the lock: another call's schema need not wait for this one.
        let compiled = Arc::new(RuntimeSchema::compile(schema)?);
        lock().put(key, Arc::clone(&compiled));
        Ok(compiled)
    }

    /// The schema as it was given (an intent file's shape, as the file writes it).
    #[cfg(feature = "catalog")]
    pub(crate) fn source(&self) -> &Value {
        &self.source
    }

    /// Every way `value` (a reply's value, out of its envelope) breaks the schema, each at its
    /// pointer under `/value`: at most [`MAX_FINDINGS`](crate::read::MAX_FINDINGS) issues, the
    /// last counting the rest.
    pub(crate) fn check(&self, value: &Value) -> Vec<ResultIssue> {
        self.check_at(value, &format!("/{ENVELOPE_PROPERTY}"))
    }

    /// [`check`](Self::check), the pointers under `base` (`/value/3/value` for an element of a
    /// collection's reply).
    pub(crate) fn check_at(&self, value: &Value, base: &str) -> Vec<ResultIssue> {
        // The common case costs one pass and no allocation.
        if self.validator.is_valid(value) {
            return Vec::new();
        }
        let mut findings = Findings::new();
        for error in self.validator.iter_errors(value) {
            if findings.total() >= crate::read::MAX_FINDINGS {
                // Counted, not formatted: a reply may break the schema a million times.
                findings.count_more(1);
                continue;
            }
            let pointer = format!("{base}{}", error.instance_path().as_str());
            let message = sentence(&shorter(&error.to_string(), &error.instance().to_string()));
            findings.push(ResultIssue::at(pointer, kind_of(error.kind()), message));
        }
        findings.into_issues()
    }

    /// The schema's constraints that the strict copy drops, and its formats, as rule lines for
    /// the prompt (see the module docs).
    pub(crate) fn constraint_lines(&self) -> Vec<String> {
        self.constraint_lines_at(Vec::new())
    }

    /// [`constraint_lines`](Self::constraint_lines) for a value at `at` in the answer (each
    /// element's `value` of a `map_each` answer: its members are named from there).
    pub(crate) fn constraint_lines_at(&self, mut at: Vec<Seg>) -> Vec<String> {
        let mut walk = Statements {
            root: &self.source,
            out: Vec::new(),
            following: HashSet::new(),
            steps: 0,
        };
        walk.node(&self.source, &mut at, 0);
        walk.out
    }
}

/// Feeds `value` to `hasher`, members in their order (a schema written in another order is
/// another entry of the cache, never a wrong one: entries are compared whole).
fn hash_value(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(b) => (1u8, b).hash(hasher),
        Value::Number(n) => {
            (2u8, n.as_u64(), n.as_i64(), n.as_f64().map(f64::to_bits)).hash(hasher)
        }
        Value::String(s) => (3u8, s).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            items.iter().for_each(|item| hash_value(item, hasher));
        }
        Value::Object(members) => {
            (5u8, members.len()).hash(hasher);
            for (key, member) in members {
                key.hash(hasher);
                hash_value(member, hasher);
            }
        }
    }
}

/// The cause an `anyOf` or `oneOf` of the meta-schema hides (`items` is a schema or a list of
/// them): the error its branches found deepest in the schema, so a refusal names the keyword at
/// fault (a `pattern` three levels down), not the branch point.
fn deepest<'e>(error: &'e ValidationError<'static>) -> &'e ValidationError<'static> {
    let depth = |e: &ValidationError<'_>| e.instance_path().as_str().len();
    match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context
                .iter()
                .flatten()
                .map(deepest)
                .max_by_key(|e| depth(e))
                .filter(|e| depth(e) > depth(error))
                .unwrap_or(error)
        }
        _ => error,
    }
}

/// What a finding is about: a constraint broken, or the value's shape.
fn kind_of(kind: &ValidationErrorKind) -> IssueKind {
    match kind {
        ValidationErrorKind::Minimum { .. }
        | ValidationErrorKind::Maximum { .. }
        | ValidationErrorKind::ExclusiveMinimum { .. }
        | ValidationErrorKind::ExclusiveMaximum { .. }
        | ValidationErrorKind::MultipleOf { .. }
        | ValidationErrorKind::MinLength { .. }
        | ValidationErrorKind::MaxLength { .. }
        | ValidationErrorKind::Pattern { .. }
        | ValidationErrorKind::MinItems { .. }
        | ValidationErrorKind::MaxItems { .. }
        | ValidationErrorKind::UniqueItems
        | ValidationErrorKind::Enum { .. }
        | ValidationErrorKind::Constant { .. }
        | ValidationErrorKind::Format { .. } => IssueKind::Rule,
        _ => IssueKind::Shape,
    }
}

/// `message` with the value it quotes (`shown`, as JSON) cut to [`MAX_SHOWN_CHARS`] characters,
/// so a finding about a large value stays a line.
fn shorter(message: &str, shown: &str) -> String {
    match shown.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((cut, _)) if message.contains(shown) => {
            message.replacen(shown, &format!("{}…", &shown[..cut]), 1)
        }
        _ => message.to_owned(),
    }
}

/// The message as a sentence: a capital first, a full stop last.
fn sentence(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 1);
    let mut chars = message.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// The formats a model is asked for that drafts before 2019-09 leave out (or define otherwise):
/// asserted as draft 2020-12 defines them, whatever the schema's draft.
const LATER_FORMATS: [&str; 9] = [
    "duration",
    "uuid",
    "iri",
    "iri-reference",
    "json-pointer",
    "relative-json-pointer",
    "uri-reference",
    "uri-template",
    "idn-hostname",
];

/// The check of `format` (one of [`LATER_FORMATS`]) as draft 2020-12 makes it: the validator's
/// own, compiled once per process.
fn later_format(format: &'static str) -> impl Fn(&str) -> bool + Send + Sync + 'static {
    static CHECKS: OnceLock<Vec<(&'static str, Validator)>> = OnceLock::new();
    move |text| {
        let checks = CHECKS.get_or_init(|| {
            LATER_FORMATS
                .iter()
                .filter_map(|name| {
                    let schema = serde_json::json!({ "format": name });
                    let options = jsonschema::options()
                        .with_draft(Draft::Draft202012)
                        .should_validate_formats(true);
                    options.build(&schema).ok().map(|check| (*name, check))
                })
                .collect()
        });
        checks
            .iter()
            .find(|(name, _)| *name == format)
            .is_none_or(|(_, check)| check.is_valid(&Value::String(text.to_owned())))
    }
}

/// The walk that states a schema's constraints.
struct Statements<'s> {
    root: &'s Value,
    out: Vec<String>,
    /// The local references being followed, so a recursive schema is stated once.
    following: HashSet<&'s str>,
    /// Nodes visited so far ([`MAX_STATED_STEPS`]).
    steps: usize,
}

impl<'s> Statements<'s> {
    fn node(&mut self, node: &'s Value, path: &mut Vec<Seg>, depth: usize) {
        self.steps += 1;
        if depth > MAX_STATED_DEPTH
            || self.out.len() >= MAX_STATED_LINES
            || self.steps > MAX_STATED_STEPS
        {
            return;
        }
        let Value::Object(map) = node else {
            return;
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| self.root.pointer(pointer));
            if let Some(target) = target {
                if self.following.insert(reference) {
                    self.node(target, path, depth + 1);
                    self.following.remove(reference);
                }
            }
        }
        let words = statements(map);
        if !words.is_empty() {
            let nullable = match map.get("type") {
                Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
                _ => false,
            };
            let steps: Vec<_> = path.iter().map(Seg::step).collect();
            let line = rule_line(&steps, nullable, &words);
            if !self.out.contains(&line) {
                self.out.push(line);
            }
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (key, child) in properties {
                path.push(Seg::Member(key.clone()));
                self.node(child, path, depth + 1);
                path.pop();
            }
        }
        match map.get("items") {
            Some(Value::Array(items)) => self.indexed(items, path, depth),
            Some(items) => {
                path.push(Seg::Each);
                self.node(items, path, depth + 1);
                path.pop();
            }
            None => {}
        }
        if let Some(Value::Array(items)) = map.get("prefixItems") {
            self.indexed(items, path, depth);
        }
        if let Some(values @ Value::Object(_)) = map.get("additionalProperties") {
            path.push(Seg::EachValue);
            self.node(values, path, depth + 1);
            path.pop();
        }
        for combinator in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(combinator) {
                for branch in branches {
                    self.node(branch, path, depth + 1);
                }
            }
        }
    }

    fn indexed(&mut self, items: &'s [Value], path: &mut Vec<Seg>, depth: usize) {
        for (index, item) in items.iter().enumerate() {
            path.push(Seg::Index(index));
            self.node(item, path, depth + 1);
            path.pop();
        }
    }
}

/// The constraints of one schema node that the strict copy drops, and its format, in words (as
/// intent files have always stated them; prompts recorded with them keep their cache keys).
fn statements(map: &serde_json::Map<String, Value>) -> Vec<String> {
    let num = |key: &str| map.get(key).and_then(Value::as_f64);
    let count = |key: &str| map.get(key).and_then(Value::as_u64);
    let mut words = Vec::new();
    if let Some(v) = num("minimum") {
        words.push(format!("at least {}", number(v)));
    }
    if let Some(v) = num("exclusiveMinimum") {
        words.push(format!("greater than {}", number(v)));
    }
    if let Some(v) = num("maximum") {
        words.push(format!("at most {}", number(v)));
    }
    if let Some(v) = num("exclusiveMaximum") {
        words.push(format!("less than {}", number(v)));
    }
    if let Some(v) = num("multipleOf") {
        words.push(format!("a multiple of {}", number(v)));
    }
    if let Some(v) = count("minLength") {
        words.push(format!("at least {v} {}", plural(v, "character")));
    }
    if let Some(v) = count("maxLength") {
        words.push(format!("at most {v} {}", plural(v, "character")));
    }
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        // Stated as written: the validator has compiled it already.
        words.push(format!("matching the regular expression {pattern}"));
    }
    if let Some(v) = count("minItems") {
        words.push(format!("at least {v} {}", plural(v, "element")));
    }
    if let Some(v) = count("maxItems") {
        words.push(format!("at most {v} {}", plural(v, "element")));
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        words.push("no two elements equal".to_owned());
    }
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        words.push(format_words(format));
    }
    words
}

/// A format in words, with an example of its form where one helps.
fn format_words(format: &str) -> String {
    let words = match format {
        "date" => "a date written YYYY-MM-DD",
        "time" => "a time with its offset, written HH:MM:SSZ or HH:MM:SS+01:00",
        "date-time" => "a date and time with its offset, written YYYY-MM-DDTHH:MM:SSZ (RFC 3339)",
        "duration" => "an ISO 8601 duration such as P3DT4H or PT20M",
        "email" | "idn-email" => "an email address",
        "hostname" | "idn-hostname" => "a host name such as example.com",
        "ipv4" => "an IPv4 address such as 192.0.2.1",
        "ipv6" => "an IPv6 address such as 2001:db8::1",
        "uri" | "iri" => "an absolute URI such as https://example.com/a",
        "uri-reference" | "iri-reference" => "a URI or a relative reference",
        "uuid" => "a UUID written as 32 hexadecimal digits in groups 8-4-4-4-12",
        "regex" => "a regular expression",
        "json-pointer" => "a JSON pointer such as /a/0",
        "relative-json-pointer" => "a relative JSON pointer such as 1/a",
        "uri-template" => "a URI template (RFC 6570)",
        other => return format!("in the format `{other}`"),
    };
    words.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn findings_point_under_the_envelope_and_name_their_kind() {
        let schema = RuntimeSchema::compile(&json!({
            "type": "object",
            "properties": {"sku": {"type": "string", "pattern": "^[A-Z]-\\d+$"}, "n": {"type": "integer"}},
            "required": ["sku"]
        }))
        .unwrap();
        assert!(schema.check(&json!({"sku": "A-1", "n": 2})).is_empty());
        let issues = schema.check(&json!({"sku": "a1", "n": "2"}));
        let found: Vec<_> = issues
            .iter()
            .map(|i| (i.path.as_deref().unwrap_or(""), i.kind))
            .collect();
        assert_eq!(
            found,
            [
                ("/value/sku", IssueKind::Rule),
                ("/value/n", IssueKind::Shape)
            ]
        );
        assert!(issues[0].message.ends_with('.'));
        let missing = schema.check_at(&json!({}), "/value/3/value");
        assert_eq!(missing[0].path.as_deref(), Some("/value/3/value"));
    }

    #[test]
    fn findings_are_bounded_and_values_shown_short() {
        let schema =
            RuntimeSchema::compile(&json!({"type": "array", "items": {"type": "string"}})).unwrap();
        let many: Vec<u32> = (0..500).collect();
        let issues = schema.check(&json!(many));
        assert_eq!(issues.len(), crate::read::MAX_FINDINGS);
        assert!(issues
            .last()
            .unwrap()
            .message
            .contains("more findings are not listed"));
        let schema = RuntimeSchema::compile(&json!({"type": "string"})).unwrap();
        let long: Vec<String> = (0..200).map(|i| format!("item {i}")).collect();
        let issues = schema.check(&json!(long));
        assert!(
            issues[0].message.chars().count() < 200,
            "{}",
            issues[0].message
        );
    }

    #[test]
    fn formats_are_asserted_in_every_draft() {
        for draft in [
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-04/schema#",
        ] {
            for (format, good, bad) in [
                ("email", "a@example.com", "not an address"),
                ("date", "2026-11-15", "15/11/2026"),
                ("date-time", "2026-11-15T09:30:00Z", "2026-11-15 9:30"),
                ("uuid", "512e7f30-0c1a-4d2b-9f00-5a5a5a5a5a5a", "512e7f30"),
                ("duration", "P3DT4H", "3 days"),
                ("ipv4", "192.0.2.1", "192.0.2"),
            ] {
                let schema = RuntimeSchema::compile(
                    &json!({"$schema": draft, "type": "string", "format": format}),
                )
                .unwrap();
                assert!(
                    schema.check(&json!(good)).is_empty(),
                    "{draft} {format} {good}"
                );
                let issues = schema.check(&json!(bad));
                assert_eq!(issues.len(), 1, "{draft} {format} {bad}");
                assert_eq!(issues[0].kind, IssueKind::Rule);
            }
        }
        let unknown = RuntimeSchema::compile(&json!({"type": "string", "format": "sku"})).unwrap();
        assert!(unknown.check(&json!("anything")).is_empty());
    }

    #[test]
    fn formats_later_drafts_define_are_asserted_in_earlier_ones_too() {
        let check = |format: &str, text: &str| {
            let schema =
                json!({"$schema": "http://json-schema.org/draft-04/schema#", "format": format});
            RuntimeSchema::compile(&schema)
                .unwrap()
                .check(&json!(text))
                .is_empty()
        };
        for good in [
            "P1Y", "P1Y2M3D", "P2M", "P3D", "PT4H", "PT4H5M6S", "PT6S", "P1DT1M", "P2W",
        ] {
            assert!(check("duration", good), "{good}");
        }
        for bad in [
            "P", "PT", "1Y", "P1Y2D", "P1H", "PT1D", "P1W2D", "P-1D", "P1.5D", "PTH",
        ] {
            assert!(!check("duration", bad), "{bad}");
        }
        assert!(check("uuid", "00000000-0000-0000-0000-00000000000F"));
        assert!(!check("uuid", "00000000-0000-0000-0000-00000000000G"));
        assert!(check("iri", "https://example.com/ä"));
        assert!(!check("iri", "not-an-iri"));
        assert!(check("json-pointer", "/a/0"));
        assert!(!check("json-pointer", "a/0"));
        assert!(!check("uri-reference", "\\\\host"));
    }

    #[test]
    fn broken_schemas_are_refused_naming_the_place() {
        let bad_keyword =
            RuntimeSchema::compile(&json!({"properties": {"a": {"minimum": "one"}}})).unwrap_err();
        assert_eq!(bad_keyword.place, "/properties/a/minimum");
        // Behind the meta-schema's `anyOf` (a schema or a list of schemas), the pattern at fault.
        let hidden = RuntimeSchema::compile(&json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "items": {"properties": {"a": {"pattern": ".*\\{\\{.+}}.*"}}}
        }))
        .unwrap_err();
        assert_eq!(hidden.place, "/items/properties/a/pattern");
        let remote = RuntimeSchema::compile(&json!({"$ref": "http://example.com/other.json"}))
            .unwrap_err()
            .to_string();
        assert!(remote.contains("is not fetched"), "{remote}");
    }

    #[test]
    fn a_schema_is_compiled_once_for_every_call_with_it() {
        let schema =
            json!({"type": "object", "properties": {"n": {"minimum": 3}}, "required": ["n"]});
        let first = RuntimeSchema::shared(&schema).unwrap();
        let again = RuntimeSchema::shared(&schema.clone()).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let other =
            RuntimeSchema::shared(&json!({"type": "object", "properties": {"n": {"minimum": 4}}}))
                .unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert!(other.check(&json!({"n": 3})).len() == 1);
        assert!(RuntimeSchema::shared(&json!({"minimum": "one"})).is_err());
    }

    #[test]
    fn a_schema_of_shared_references_is_stated_in_bounded_time() {
        // Forty definitions, each with two members referring to the next: 2^40 paths.
        let defs: serde_json::Map<String, Value> = (0..40)
            .map(|i| {
                let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
                let node = json!({"type": "object", "properties": {"a": next, "b": next}});
                (format!("d{i}"), node)
            })
            .chain([("d40".to_owned(), json!({"type": "string", "minLength": 1}))])
            .collect();
        let schema = RuntimeSchema::compile(&json!({"$ref": "#/$defs/d0", "$defs": defs})).unwrap();
        let started = std::time::Instant::now();
        let lines = schema.constraint_lines();
        assert!(lines.len() <= MAX_STATED_LINES);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn dropped_constraints_and_formats_are_stated() {
        let schema = RuntimeSchema::compile(&json!({
            "type": "object",
            "properties": {
                "when": {"type": ["string", "null"], "format": "date"},
                "lines": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/line"}},
                "code": {"type": "string", "format": "sku-code"}
            },
            "$defs": {"line": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}, "next": {"$ref": "#/$defs/line"}}}}
        }))
        .unwrap();
        assert_eq!(
            schema.constraint_lines(),
            [
                "- `when`, when not null: a date written YYYY-MM-DD",
                "- `lines`: at least 1 element",
                "- `n` of each element of `lines`: at least 1",
                "- `code`: in the format `sku-code`",
            ]
        );
    }
}

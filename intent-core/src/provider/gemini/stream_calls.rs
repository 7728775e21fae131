//! Gemini's function calls in a stream, whole or with their arguments streamed.
//!
//! Wire facts relied on (the streams recorded from the live API and from Vertex AI in
//! `../shared/corpora/vendor-fixtures/google-gemini/`: `google-tool-call.chunks.txt`,
//! `google-stream-tool-call-arguments.chunks.txt`, `google-stream-no-args-tool-call.chunks.txt`,
//! `google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt`,
//! `google-vertex-stream-tool-call-arguments-nested.1.chunks.txt`; the Gemini API reference's
//! `FunctionCall` with `partialArgs` and `willContinue`, and its `PartialArg`):
//! - A part `{"functionCall": {"name", "args"}}` is a whole call; `args` may be absent (no
//!   arguments). Its `thoughtSignature`, when present, goes back with it on the next round.
//! - A part `{"functionCall": {"name", "willContinue": true}}` opens a call whose arguments come in
//!   the parts after it: `{"functionCall": {"partialArgs": [...], "willContinue": true}}`, each
//!   partial argument `{"jsonPath": "$.a.b[0]", "stringValue" | "numberValue" | "boolValue" |
//!   "nullValue", "willContinue"}`. A string value with `willContinue` is continued by the next
//!   partial argument of the same path (its pieces are joined; an empty piece ends it).
//! - The call closes at a `functionCall` part without `willContinue` (`{}`, or the last partial
//!   arguments), or, when the stream leaves that part out (recorded), at the end of the reply.
//!
//! Bounds: a path at most [`MAX_PATH_DEPTH`] steps deep, an array index at most
//! [`MAX_INDEX`] past the array's end is refused, so a hostile stream cannot make us allocate
//! without limit; arguments at most [`MAX_ARGUMENT_BYTES`] of text.

use serde_json::{json, Map, Value};

#[cfg(test)]
use crate::provider::ToolCall;
use crate::provider::{ProviderError, ProviderErrorKind};

/// The deepest path a partial argument may name.
const MAX_PATH_DEPTH: usize = 64;
/// How far past an array's end a partial argument's index may point (the gap is filled with null).
const MAX_INDEX: usize = 16;
/// The most text a streamed call's arguments may hold.
const MAX_ARGUMENT_BYTES: usize = 4 << 20;

/// The function calls of one streamed reply, as its parts arrive.
#[derive(Default)]
pub(super) struct StreamCalls {
    /// The calls closed so far, as the parts a reply sent whole would hold.
    parts: Vec<Value>,
    /// The call whose arguments are still coming.
    open: Option<OpenCall>,
}

struct OpenCall {
    name: String,
    id: Option<Value>,
    signature: Option<Value>,
    args: Value,
    /// The path of a string value still being written.
    continuing: Option<String>,
    bytes: usize,
}

impl StreamCalls {
    /// Reads `part` when it is a function call; false for any other part.
    pub(super) fn push(&mut self, part: &Value) -> Result<bool, ProviderError> {
        let Some(call) = part.get("functionCall") else {
            return Ok(false);
        };
        let continues = call.get("willContinue").and_then(Value::as_bool) == Some(true);
        if let Some(name) = call.get("name").and_then(Value::as_str) {
            self.close();
            if continues && call.get("args").is_none() {
                self.open = Some(OpenCall {
                    name: name.to_owned(),
                    id: call.get("id").cloned(),
                    signature: part.get("thoughtSignature").cloned(),
                    args: Value::Object(Map::new()),
                    continuing: None,
                    bytes: 0,
                });
            } else {
                self.parts.push(part.clone());
            }
            return Ok(true);
        }
        let Some(open) = self.open.as_mut() else {
            // A continuation with no call open: nothing it could belong to.
            return match call.get("partialArgs") {
                Some(_) => Err(broken(
                    "partial arguments came before any function call opened",
                )),
                None => Ok(true),
            };
        };
        if let Some(partial) = call.get("partialArgs") {
            let Some(partial) = partial.as_array() else {
                return Err(broken("a functionCall's partialArgs is not a list"));
            };
            for arg in partial {
                open.apply(arg)?;
            }
        }
        if !continues {
            self.close();
        }
        Ok(true)
    }

    /// The parts of every call, the open one closed (a stream may leave out its closing part).
    pub(super) fn finish(mut self) -> Vec<Value> {
        self.close();
        self.parts
    }

    fn close(&mut self) {
        if let Some(open) = self.open.take() {
            let mut call = json!({"name": open.name, "args": open.args});
            if let Some(id) = open.id {
                call["id"] = id;
            }
            let mut part = json!({ "functionCall": call });
            if let Some(signature) = open.signature {
                part["thoughtSignature"] = signature;
            }
            self.parts.push(part);
        }
    }
}

impl OpenCall {
    fn apply(&mut self, arg: &Value) -> Result<(), ProviderError> {
        let Some(path) = arg.get("jsonPath").and_then(Value::as_str) else {
            return Err(broken("a partial argument has no jsonPath"));
        };
        let continues = arg.get("willContinue").and_then(Value::as_bool) == Some(true);
        let (value, is_string) = if let Some(text) = arg.get("stringValue") {
            let Some(text) = text.as_str() else {
                return Err(broken("a partial argument's stringValue is not a string"));
            };
            (Value::from(text), true)
        } else if let Some(number) = arg.get("numberValue") {
            if !number.is_number() {
                return Err(broken("a partial argument's numberValue is not a number"));
            }
            (number.clone(), false)
        } else if let Some(flag) = arg.get("boolValue") {
            if !flag.is_boolean() {
                return Err(broken(
                    "a partial argument's boolValue is not true or false",
                ));
            }
            (flag.clone(), false)
        } else if arg.get("nullValue").is_some() {
            (Value::Null, false)
        } else {
            return Err(broken(&format!(
                "the partial argument at {path} carries no value this library reads"
            )));
        };
        self.bytes += path.len() + value.as_str().map_or(16, str::len);
        if self.bytes > MAX_ARGUMENT_BYTES {
            return Err(ProviderError::new(
                ProviderErrorKind::StreamBroken,
                format!("a streamed function call's arguments passed {MAX_ARGUMENT_BYTES} bytes"),
            ));
        }
        let joined = is_string && self.continuing.as_deref() == Some(path);
        let slot = slot(&mut self.args, path)?;
        match (joined, slot.as_str(), value.as_str()) {
            (true, Some(before), Some(more)) => *slot = Value::from(format!("{before}{more}")),
            _ => *slot = value,
        }
        self.continuing = (is_string && continues).then(|| path.to_owned());
        Ok(())
    }
}

/// The place `path` (`$.a.b[2]`, `$['a b']`) names in `args`, made where it is missing.
fn slot<'v>(args: &'v mut Value, path: &str) -> Result<&'v mut Value, ProviderError> {
    let bad = || {
        broken(&format!(
            "a partial argument's jsonPath {path:?} is not one this library reads"
        ))
    };
    let mut rest = path.strip_prefix('$').ok_or_else(bad)?;
    let mut at = args;
    let mut depth = 0;
    while !rest.is_empty() {
        depth += 1;
        if depth > MAX_PATH_DEPTH {
            return Err(broken(&format!(
                "a partial argument's jsonPath is more than {MAX_PATH_DEPTH} steps deep"
            )));
        }
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let (key, next) = after.split_at(end);
            if key.is_empty() {
                return Err(bad());
            }
            at = member(at, key).ok_or_else(bad)?;
            rest = next;
        } else if let Some(after) = rest.strip_prefix("['") {
            let end = after.find("']").ok_or_else(bad)?;
            at = member(at, &after[..end]).ok_or_else(bad)?;
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']').ok_or_else(bad)?;
            let index: usize = after[..end].parse().map_err(|_| bad())?;
            if at.is_null() {
                *at = Value::Array(Vec::new());
            }
            let Value::Array(items) = at else {
                return Err(bad());
            };
            if index >= items.len() + MAX_INDEX {
                return Err(broken(&format!(
                    "a partial argument's jsonPath {path:?} points more than {MAX_INDEX} places past its list's end"
                )));
            }
            if index >= items.len() {
                items.resize(index + 1, Value::Null);
            }
            at = &mut items[index];
            rest = &after[end + 1..];
        } else {
            return Err(bad());
        }
    }
    Ok(at)
}

/// The member `key` of `at` (an object, or null made one), made null when missing.
fn member<'v>(at: &'v mut Value, key: &str) -> Option<&'v mut Value> {
    if at.is_null() {
        *at = Value::Object(Map::new());
    }
    match at {
        Value::Object(members) => Some(members.entry(key).or_insert(Value::Null)),
        _ => None,
    }
}

fn broken(why: &str) -> ProviderError {
    ProviderError::new(
        ProviderErrorKind::StreamBroken,
        format!("the stream's function call cannot be read: {why}"),
    )
}

/// The calls of `parts`, as [`ToolCall`]s.
#[cfg(test)]
fn calls(parts: &[Value]) -> Vec<ToolCall> {
    super::tools::calls_of(parts).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(parts: &[Value]) -> Result<Vec<ToolCall>, ProviderError> {
        let mut calls_so_far = StreamCalls::default();
        for part in parts {
            calls_so_far.push(part)?;
        }
        Ok(calls(&calls_so_far.finish()))
    }

    #[test]
    fn streamed_arguments_are_joined_at_their_paths_and_the_call_closed() {
        let calls = read(&[
            json!({"functionCall": {"name": "cook", "willContinue": true}, "thoughtSignature": "sig"}),
            json!({"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.steps[0]", "stringValue": "Pre", "willContinue": true}], "willContinue": true}}),
            json!({"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.steps[0]", "stringValue": "heat."}], "willContinue": true}}),
            json!({"functionCall": {"partialArgs": [{"jsonPath": "$.recipe['serves']", "numberValue": 4}, {"jsonPath": "$.recipe.vegan", "boolValue": false}], "willContinue": true}}),
            json!({"functionCall": {}}),
            json!({"functionCall": {"name": "rate", "args": {"stars": 5}}}),
        ])
        .unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "cook");
        let args: Value = serde_json::from_str(&calls[0].arguments).unwrap();
        assert_eq!(
            args,
            json!({"recipe": {"steps": ["Preheat."], "serves": 4, "vegan": false}})
        );
        assert_eq!(calls[1].arguments, r#"{"stars":5}"#);
    }

    #[test]
    fn a_call_left_open_closes_at_the_end_of_the_reply() {
        let calls = read(&[
            json!({"functionCall": {"name": "write", "willContinue": true}}),
            json!({"functionCall": {"partialArgs": [{"jsonPath": "$.items[0].price", "numberValue": 0.5}], "willContinue": true}}),
        ])
        .unwrap();
        assert_eq!(calls[0].arguments, r#"{"items":[{"price":0.5}]}"#);
    }

    #[test]
    fn hostile_paths_and_values_are_clear_errors() {
        let open = json!({"functionCall": {"name": "f", "willContinue": true}});
        for bad in [
            json!({"jsonPath": "items[0]", "stringValue": "x"}),
            json!({"jsonPath": "$.items[99999999]", "stringValue": "x"}),
            json!({"jsonPath": "$.a[", "stringValue": "x"}),
            json!({"jsonPath": "$.a", "stringValue": 7}),
            json!({"jsonPath": "$.a"}),
            json!({"jsonPath": format!("${}", ".a".repeat(100)), "nullValue": null}),
        ] {
            let part =
                json!({"functionCall": {"partialArgs": [bad.clone()], "willContinue": true}});
            let error = read(&[open.clone(), part]).unwrap_err();
            assert_eq!(error.kind, ProviderErrorKind::StreamBroken, "{bad}");
        }
        let stray =
            json!({"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": "x"}]}});
        assert!(read(&[stray]).is_err());
    }
}

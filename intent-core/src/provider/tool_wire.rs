//! What the vendors' tool wires share: the rounds a request sends back, a call's arguments as the
//! object the vendors that take them back as JSON want (Anthropic's `input`, Gemini's `args`),
//! and a reply's calls with the model's turn kept whole for the next round.
//!
//! Each vendor's `tools.rs` holds its own wire facts and their sources; this module holds none.

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use crate::provider::{RequestTools, ToolCall, ToolRound};

/// The rounds of calls and results `tools` sends back, oldest first (none without tools).
pub(crate) fn rounds(tools: Option<&RequestTools>) -> &[ToolRound] {
    tools.map_or(&[][..], |t| &t.rounds[..])
}

/// How a vendor writes one round: the model's turn, then the results, as two messages.
pub(crate) type RoundMessages = fn(&ToolRound) -> [Value; 2];

/// A vendor's message list: the user's message, then the two messages `round` writes for each
/// round of `tools`, oldest round first.
pub(crate) struct Conversation<'a, U> {
    pub(crate) user: U,
    pub(crate) tools: Option<&'a RequestTools>,
    pub(crate) round: RoundMessages,
}

impl<U: Serialize> Serialize for Conversation<'_, U> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        seq.serialize_element(&self.user)?;
        for round in rounds(self.tools) {
            for message in (self.round)(round) {
                seq.serialize_element(&message)?;
            }
        }
        seq.end()
    }
}

/// The model's turn of `round` as the vendor is sent it again: the turn as it came when the
/// reply kept one, else rebuilt from the round's text (`text` writes its block) and calls (`call`
/// writes each).
pub(crate) fn turn_of(
    round: &ToolRound,
    text: impl Fn(&str) -> Value,
    call: impl Fn(&ToolCall) -> Value,
) -> Value {
    match &round.vendor_turn {
        Some(turn) => turn.clone(),
        None => Value::Array(
            (!round.text.is_empty())
                .then(|| text(&round.text))
                .into_iter()
                .chain(round.calls.iter().map(call))
                .collect(),
        ),
    }
}

/// A call's arguments as a JSON object: `{}` for none, or for text that is not an object.
pub(crate) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => value,
        _ => json!({}),
    }
}

/// A reply's `calls`, with the turn to send back when there are any: the reply's own `items`
/// (content blocks, parts), kept exactly as they came.
pub(crate) fn calls_and_turn(
    calls: Vec<ToolCall>,
    items: &[Value],
) -> (Vec<ToolCall>, Option<Box<Value>>) {
    let turn = (!calls.is_empty()).then(|| Box::new(Value::Array(items.to_vec())));
    (calls, turn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_are_not_an_object_go_back_as_an_empty_one() {
        assert_eq!(arguments_object(r#"{"id":7}"#), json!({"id": 7}));
        assert_eq!(arguments_object(""), json!({}));
        assert_eq!(arguments_object("[1]"), json!({}));
        assert_eq!(rounds(None).len(), 0);
    }

    #[test]
    fn a_turn_is_kept_only_when_the_reply_calls_a_tool() {
        let items = [json!({"text": "hi"})];
        assert_eq!(calls_and_turn(Vec::new(), &items).1, None);
        let (calls, turn) = calls_and_turn(vec![ToolCall::new("1", "t", "{}")], &items);
        assert_eq!(calls.len(), 1);
        assert_eq!(turn.as_deref(), Some(&json!([{"text": "hi"}])));
    }
}

//! Verifying a chunk's reply: the count, the indexes and their order (`map_each`) or the keys
//! (`map_values`), then each element read through the reader and checked on its own.
//!
//! Findings come in two forms: for the model, at paths in the chunk's reply (`/value/2/value/sku`),
//! and per element, at paths in the whole collection (`/7/sku`, `/A-1/sku`).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::call::Check;
use crate::intent::Intent;
use crate::read::{self, RuntimeSchema};
use crate::result::{IssueKind, ResultIssue};
use crate::schema::ENVELOPE_PROPERTY;
use crate::shape::{TargetKind, TypeInfo};
use crate::trust::{Grounded, Grounds};

use super::call::Mode;
use super::each::EachItem;

/// What a chunk's reply holds: the values per slot and the findings.
pub(crate) struct Verdict<O> {
    /// One per element of the chunk, in chunk order.
    pub(crate) values: Vec<Option<O>>,
    /// Findings for the model, at paths in the chunk's reply.
    pub(crate) model_issues: Vec<ResultIssue>,
    /// Findings per slot, at paths in the whole collection.
    pub(crate) slot_issues: Vec<(usize, ResultIssue)>,
}

impl<O> Verdict<O> {
    /// The finding that no part of the reply answers `slots`: for the model, at the reply's
    /// value, the `message` that lists them as `named`; and each slot's own issue.
    fn unanswered(
        &mut self,
        slots: &[usize],
        named: impl Fn(usize) -> String,
        message: impl FnOnce(&[String]) -> String,
        slot_issue: impl Fn(usize) -> ResultIssue,
    ) {
        let list: Vec<String> = slots.iter().map(|&slot| named(slot)).collect();
        self.model_issues
            .push(ResultIssue::at("/value", IssueKind::Shape, message(&list)));
        self.slot_issues
            .extend(slots.iter().map(|&slot| (slot, slot_issue(slot))));
    }

    fn new(slots: usize) -> Self {
        Verdict {
            values: (0..slots).map(|_| None).collect(),
            model_issues: Vec::new(),
            slot_issues: Vec::new(),
        }
    }

    /// A reply whose value has not the chunk's shape: `message` tells the model which.
    fn refused(message: impl Into<String>, slots: usize) -> Self {
        Verdict::failed(
            vec![ResultIssue::at("/value", IssueKind::Shape, message)],
            slots,
        )
    }

    fn failed(issues: Vec<ResultIssue>, slots: usize) -> Self {
        Verdict {
            model_issues: issues,
            ..Verdict::new(slots)
        }
    }

    /// Every value when the reply passed, or the findings for the model.
    pub(crate) fn into_outcome(self) -> Result<Vec<O>, Vec<ResultIssue>> {
        if self.model_issues.is_empty() && self.values.iter().all(Option::is_some) {
            return Ok(self.values.into_iter().flatten().collect());
        }
        if self.model_issues.is_empty() {
            return Err(vec![ResultIssue::at(
                "/value",
                IssueKind::Shape,
                "Some elements have no value. Answer every input element.",
            )]);
        }
        // One reply's findings, bounded as the reader bounds its own.
        Err(read::bounded_findings(self.model_issues))
    }

    fn element_issues(
        &mut self,
        slot: usize,
        model_path: &str,
        own_path: &str,
        issues: Vec<ResultIssue>,
    ) {
        for issue in issues {
            let sub = below_element(&issue);
            self.slot_issues.push((
                slot,
                ResultIssue::at(
                    format!("{own_path}{sub}"),
                    issue.kind,
                    issue.message.clone(),
                ),
            ));
            self.model_issues.push(ResultIssue::at(
                format!("{model_path}{sub}"),
                issue.kind,
                issue.message,
            ));
        }
    }
}

/// Where an element's finding points below the element (`/sku` for `/value/sku`), from its
/// path relative to the element.
pub(crate) fn below_element(issue: &ResultIssue) -> &str {
    issue
        .path
        .as_deref()
        .and_then(|p| p.strip_prefix("/value"))
        .unwrap_or("")
        .trim_end_matches(['/', '.'])
}

/// The grounds of one element's input, from its text in the chunk's input:
/// `{"index":3,"input":..}` (`map_each`) or `"key":..` (`map_values`).
pub(crate) fn element_grounds(text: &str, mode: Mode) -> Grounds {
    let parsed = match mode {
        Mode::Each => serde_json::from_str::<Value>(text)
            .ok()
            .and_then(|mut v| v.get_mut("input").map(Value::take)),
        Mode::Keyed => serde_json::from_str::<Value>(&format!("{{{text}}}"))
            .ok()
            .and_then(|v| v.as_object().and_then(|o| o.values().next().cloned())),
    };
    match parsed {
        Some(input) => Grounds::of_value(&input),
        None => Grounds::of_json_text(text),
    }
}

/// Reads one element's value into an `O` and runs the element checks on it.
pub(crate) struct ElementReader<'c, O> {
    info: Arc<TypeInfo>,
    checks: &'c [Check<'c, O>],
    /// The elements' runtime schema (`output_schema` on a collection of JSON values): each
    /// element is verified against it in full.
    schema: Option<Arc<RuntimeSchema>>,
}

impl<'c, O: Intent> ElementReader<'c, O> {
    pub(crate) fn new(checks: &'c [Check<'c, O>]) -> Self {
        ElementReader {
            info: O::type_info(),
            checks,
            schema: None,
        }
    }

    /// The members of `O` that must come from the element's input (found once per type).
    fn grounded(&self) -> Grounded<'_> {
        Grounded::of(&self.info)
    }

    /// True when some member of `O` must come from the element's input.
    pub(crate) fn is_grounded(&self) -> bool {
        !self.grounded().is_empty()
    }

    /// The reader, verifying each element against `schema` (when given) instead of reading it
    /// by the shape of a JSON value, which takes any JSON.
    pub(crate) fn with_schema(mut self, schema: Option<Arc<RuntimeSchema>>) -> Self {
        self.schema = schema;
        self
    }

    /// The value, or the findings at paths relative to the element (`/value/..`); `lossy` is
    /// what the chunk's reply says of its numbers (see [`read::Answer`]); `grounds` is the
    /// element's own input, which its grounded members must come from.
    pub(crate) fn read(
        &self,
        value: Value,
        lossy: &[u64],
        grounds: Option<&Grounds>,
    ) -> Result<O, Vec<ResultIssue>> {
        // The grounded members are looked up in the value before it is read (and consumed);
        // findings of the reading come first, as they would for any other element.
        let missing = match grounds {
            Some(grounds) => self.grounded().check(&value, grounds),
            None => Vec::new(),
        };
        if let Some(schema) = &self.schema {
            let issues = schema.check(&value);
            if !issues.is_empty() {
                return Err(issues);
            }
            let read = read::deserialize(value)?;
            if !missing.is_empty() {
                return Err(missing);
            }
            return self.check(read);
        }
        let read = read::read_value_with::<O>(&self.info, value, lossy)?;
        if !missing.is_empty() {
            return Err(missing);
        }
        self.check(read)
    }

    /// The value when it passes every element check, or the findings at `/value`.
    fn check(&self, read: O) -> Result<O, Vec<ResultIssue>> {
        let issues: Vec<ResultIssue> = self
            .checks
            .iter()
            .flat_map(|check| check(&read))
            .map(|message| ResultIssue::at("/value", IssueKind::Check, message))
            .collect();
        if issues.is_empty() {
            Ok(read)
        } else {
            Err(issues)
        }
    }
}

/// Parses a chunk's reply leniently into JSON, unwrapping the envelope.
fn parse(reply: &str) -> Result<read::Answer, Vec<ResultIssue>> {
    read::read_json(reply)
}

/// "N elements", with the right plural.
fn elements(n: usize) -> String {
    if n == 1 {
        "1 element".to_owned()
    } else {
        format!("{n} elements")
    }
}

/// Verifies a `map_each` chunk: a list of `{"index": i, "value": ..}` answering `indexes`, in order.
pub(crate) fn verify_each<O: Intent>(
    reader: &ElementReader<'_, O>,
    reply: &str,
    indexes: &[usize],
    grounds: &[Grounds],
) -> Verdict<O> {
    let n = indexes.len();
    // Grounded members are checked on each element's JSON, which the typed reading never has.
    if !reader.is_grounded() {
        if let Some(verdict) = verify_each_typed(reader, reply, indexes) {
            return verdict;
        }
    }
    let (value, lossy) = match parse(reply) {
        Ok(answer) => (answer.value, answer.lossy),
        Err(issues) => return Verdict::failed(issues, n),
    };
    let Value::Array(items) = value else {
        return Verdict::refused(
            format!("Return a JSON array of exactly {}, each {{\"index\": <input index>, \"value\": <result>}}, one per input element, in the same order.", elements(n)),
            n,
        );
    };
    let mut verdict = Verdict::new(n);
    if items.len() != n {
        verdict.model_issues.push(ResultIssue::at(
            "/value",
            IssueKind::Shape,
            format!(
                "Return exactly {}, one per input element, in the same order.",
                elements(n)
            ),
        ));
    }
    let slot_of: HashMap<usize, usize> = indexes.iter().enumerate().map(|(s, &i)| (i, s)).collect();
    let mut seen = vec![false; n];
    for (position, mut item) in items.into_iter().enumerate() {
        let path = format!("/value/{position}");
        let Some(index) = item.get("index") else {
            verdict.model_issues.push(ResultIssue::at(
                &path,
                IssueKind::Shape,
                "Each element must be an object {\"index\": <input index>, \"value\": <result>}.",
            ));
            continue;
        };
        let Some(index) = index.as_u64().and_then(|i| usize::try_from(i).ok()) else {
            verdict.model_issues.push(ResultIssue::at(
                format!("{path}/index"),
                IssueKind::Shape,
                "The index must be the integer index of an input element.",
            ));
            continue;
        };
        let Some(&slot) = slot_of.get(&index) else {
            verdict.model_issues.push(ResultIssue::at(
                format!("{path}/index"),
                IssueKind::Shape,
                format!("Index {index} is not an index of this input; use the indexes given in the input."),
            ));
            continue;
        };
        if std::mem::replace(&mut seen[slot], true) {
            verdict.model_issues.push(ResultIssue::at(
                format!("{path}/index"),
                IssueKind::Shape,
                format!(
                    "Index {index} appears more than once; return one element per input element."
                ),
            ));
            verdict.values[slot] = None;
            verdict.slot_issues.push((
                slot,
                ResultIssue::at(
                    format!("/{index}"),
                    IssueKind::Shape,
                    "The reply answered this index more than once.",
                ),
            ));
            continue;
        }
        if slot != position {
            let expected = match indexes.get(position) {
                Some(e) => format!("this position answers index {e}"),
                None => format!("the input has only {}", elements(n)),
            };
            verdict.model_issues.push(ResultIssue::at(
                format!("{path}/index"),
                IssueKind::Shape,
                format!("Index {index} is out of order: {expected}. Return the elements in the input's order."),
            ));
            verdict.slot_issues.push((
                slot,
                ResultIssue::at(
                    format!("/{index}"),
                    IssueKind::Shape,
                    "The reply answered this index out of order.",
                ),
            ));
            continue;
        }
        let Some(value) = item
            .as_object_mut()
            .and_then(|object| object.remove(ENVELOPE_PROPERTY))
        else {
            verdict.model_issues.push(ResultIssue::at(
                format!("{path}/value"),
                IssueKind::Shape,
                format!("The element for index {index} has no \"value\"."),
            ));
            verdict.slot_issues.push((
                slot,
                ResultIssue::at(
                    format!("/{index}"),
                    IssueKind::Shape,
                    "The reply gave no value for this index.",
                ),
            ));
            continue;
        };
        match reader.read(value, &lossy, grounds.get(slot)) {
            Ok(read) => verdict.values[slot] = Some(read),
            Err(issues) => {
                verdict.element_issues(slot, &format!("{path}/value"), &format!("/{index}"), issues)
            }
        }
    }
    let unanswered: Vec<usize> = (0..n).filter(|&s| !seen[s]).collect();
    if !unanswered.is_empty() {
        let message = |list: &[String]| {
            let plural = if list.len() == 1 { "" } else { "es" };
            format!("No element answers the index{plural} {}.", list.join(", "))
        };
        let named = |slot: usize| indexes[slot].to_string();
        verdict.unanswered(&unanswered, named, message, |slot| {
            ResultIssue::at(
                format!("/{}", indexes[slot]),
                IssueKind::Shape,
                "No element of the reply answers this index.",
            )
        });
    }
    verdict
}

/// The common case of [`verify_each`]: a reply that reads as a list of `{"index", "value"}` in
/// one pass, straight from its text, answering every index in order. `None` when it does not: the
/// element-by-element reading then finds and places each problem.
fn verify_each_typed<O: Intent>(
    reader: &ElementReader<'_, O>,
    reply: &str,
    indexes: &[usize],
) -> Option<Verdict<O>> {
    // A text result is trimmed and must not be empty, which the list's shape does not say; a
    // runtime schema verifies each element's JSON.
    if reader.info.target() == TargetKind::Text || reader.schema.is_some() {
        return None;
    }
    let info = TypeInfo::of::<Vec<EachItem<O>>>();
    let items = read::read_reply::<Vec<EachItem<O>>>(&info, reply).ok()?;
    if items.len() != indexes.len()
        || items
            .iter()
            .zip(indexes)
            .any(|(item, &index)| item.index != index)
    {
        return None;
    }
    let mut verdict = Verdict::new(indexes.len());
    for (slot, (item, &index)) in items.into_iter().zip(indexes).enumerate() {
        match reader.check(item.value) {
            Ok(read) => verdict.values[slot] = Some(read),
            Err(issues) => verdict.element_issues(
                slot,
                &format!("/value/{slot}/value"),
                &format!("/{index}"),
                issues,
            ),
        }
    }
    Some(verdict)
}

/// A key as compared for a near miss: lower case, without white space.
fn loose(key: &str) -> String {
    key.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Verifies a `map_values` chunk: one object with exactly `keys` as its members.
pub(crate) fn verify_keyed<O: Intent>(
    reader: &ElementReader<'_, O>,
    reply: &str,
    keys: &[&str],
    grounds: &[Grounds],
) -> Verdict<O> {
    let n = keys.len();
    let (value, lossy) = match parse(reply) {
        Ok(answer) => (answer.value, answer.lossy),
        Err(issues) => return Verdict::failed(issues, n),
    };
    let Value::Object(members) = value else {
        return Verdict::refused(
            "Return one JSON object with one member per input key, named exactly as the key.",
            n,
        );
    };
    let slot_of: HashMap<&str, usize> = keys.iter().enumerate().map(|(s, &k)| (k, s)).collect();
    // Near misses are matched only to a key that no other input key resembles.
    let mut loose_slot: HashMap<String, Option<usize>> = HashMap::with_capacity(n);
    for (slot, key) in keys.iter().enumerate() {
        loose_slot
            .entry(loose(key))
            .and_modify(|s| *s = None)
            .or_insert(Some(slot));
    }
    let mut verdict = Verdict::new(n);
    // Which input keys the reply spelled exactly, known before any member is read.
    let mut answered = vec![false; n];
    for key in members.keys() {
        if let Some(&slot) = slot_of.get(key.as_str()) {
            answered[slot] = true;
        }
    }
    let mut respelled = vec![false; n];
    for (key, value) in members {
        let model_path = read::join_pointer("/value", &key);
        if let Some(&slot) = slot_of.get(key.as_str()) {
            match reader.read(value, &lossy, grounds.get(slot)) {
                Ok(read) => verdict.values[slot] = Some(read),
                Err(issues) => {
                    verdict.element_issues(slot, &model_path, &read::join_pointer("", &key), issues)
                }
            }
            continue;
        }
        match loose_slot.get(&loose(&key)).copied().flatten() {
            Some(slot) if !answered[slot] => {
                respelled[slot] = true;
                verdict.model_issues.push(ResultIssue::at(
                    model_path,
                    IssueKind::Shape,
                    format!(
                        "The key \"{key}\" must be spelled exactly \"{}\", as in the input.",
                        keys[slot]
                    ),
                ));
                verdict.slot_issues.push((
                    slot,
                    ResultIssue::at(
                        read::join_pointer("", keys[slot]),
                        IssueKind::Shape,
                        format!("The reply spelled this key \"{key}\"."),
                    ),
                ));
            }
            _ => verdict.model_issues.push(ResultIssue::at(
                model_path,
                IssueKind::Shape,
                format!(
                    "Unexpected key \"{key}\": answer only the input's keys, each exactly once."
                ),
            )),
        }
    }
    let missing: Vec<usize> = (0..n).filter(|&s| !answered[s] && !respelled[s]).collect();
    if !missing.is_empty() {
        let message = |list: &[String]| {
            let plural = if list.len() == 1 { "" } else { "s" };
            format!(
                "Missing key{plural}: {}. Return one member for every input key, named exactly as in the input.",
                list.join(", ")
            )
        };
        let named = |slot: usize| format!("\"{}\"", keys[slot]);
        verdict.unanswered(&missing, named, message, |slot| {
            ResultIssue::at(
                read::join_pointer("", keys[slot]),
                IssueKind::Shape,
                "No member of the reply answers this key.",
            )
        });
    }
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPLY: &str = r#"{"value":[{"index":4,"value":1},{"index":5,"value":2}]}"#;

    #[test]
    fn a_well_formed_reply_and_a_loose_one_read_alike() {
        let reader = ElementReader::<u32>::new(&[]);
        let strict = verify_each(&reader, REPLY, &[4, 5], &[]);
        let loose = verify_each(
            &reader,
            "```json\n{\"value\": [{\"index\": 4, \"value\": \"1\"}, {\"index\": 5, \"value\": 2},]}\n```",
            &[4, 5],
            &[],
        );
        assert_eq!(strict.values, vec![Some(1), Some(2)]);
        assert!(strict.model_issues.is_empty());
        assert_eq!(loose.values, strict.values);
        assert!(loose.model_issues.is_empty());
    }

    #[test]
    fn an_element_failing_a_check_is_placed_at_its_index() {
        let checks: Vec<Check<'_, u32>> = vec![Box::new(|n: &u32| {
            if *n > 1 {
                vec!["Answer at most 1.".to_owned()]
            } else {
                Vec::new()
            }
        })];
        let reader = ElementReader::new(&checks);
        let verdict = verify_each(&reader, REPLY, &[4, 5], &[]);
        assert_eq!(verdict.values, vec![Some(1), None]);
        assert_eq!(verdict.model_issues.len(), 1);
        assert_eq!(
            verdict.model_issues[0].path.as_deref(),
            Some("/value/1/value")
        );
        assert_eq!(verdict.slot_issues.len(), 1);
        assert_eq!(verdict.slot_issues[0].0, 1);
        assert_eq!(verdict.slot_issues[0].1.path.as_deref(), Some("/5"));
    }

    /// The verdict on `reply` for the inputs 4 and 5, with no checks.
    fn each_of_4_and_5(reply: &str) -> Verdict<u32> {
        verify_each(&ElementReader::<u32>::new(&[]), reply, &[4, 5], &[])
    }

    #[test]
    fn no_element_integer_is_read_from_a_double_that_lost_its_fraction() {
        let verdict = each_of_4_and_5(
            r#"{"value":[{"index":4,"value":1.0000000000000000001},{"index":5,"value":2.0}]}"#,
        );
        assert_eq!(verdict.values, vec![None, Some(2)]);
        assert!(verdict.model_issues[0]
            .message
            .contains("more digits than a double holds"));
    }

    #[test]
    fn a_reply_out_of_order_is_read_element_by_element() {
        let verdict = each_of_4_and_5(r#"{"value":[{"index":5,"value":2},{"index":4,"value":1}]}"#);
        assert_eq!(verdict.values, vec![None, None]);
        assert!(verdict
            .model_issues
            .iter()
            .any(|i| i.message.contains("out of order")));
    }
}

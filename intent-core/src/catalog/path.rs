//! Rule paths: which members of the result a rule applies to.
//!
//! A path names members by their wire names, separated by dots: `customer.email`. `[]` after a
//! member (or alone at the start) means every element of that list: `lines[].quantity`, `[].sku`.
//! `*` means every value of a map: `prices.*`. `$` alone is the result itself.

use std::fmt;

use serde_json::Value;

use crate::read;
use crate::shape::MemberStep;

/// One step of a rule path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A named member of an object.
    Member(String),
    /// Every element of a list.
    Items,
    /// Every value of a map.
    Values,
}

impl Step {
    /// The steps of a path as the prompt's rule lines name them.
    pub(crate) fn member_steps(steps: &[Step]) -> Vec<MemberStep<'_>> {
        steps
            .iter()
            .map(|step| match step {
                Step::Member(name) => MemberStep::Member(name),
                Step::Items => MemberStep::Each,
                Step::Values => MemberStep::EachValue,
            })
            .collect()
    }
}

/// A parsed rule path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RulePath {
    source: String,
    steps: Vec<Step>,
}

impl RulePath {
    /// Parses a path, or says what is wrong with it.
    pub(crate) fn parse(source: &str) -> Result<RulePath, String> {
        let invalid = |why: &str| {
            format!(
                "rule path `{source}` is invalid: {why}; write members with dots and `[]` for every element of a list (`lines[].quantity`), `*` for every value of a map, or `$` for the result itself"
            )
        };
        let trimmed = source.trim();
        if trimmed == "$" {
            return Ok(RulePath {
                source: "$".to_owned(),
                steps: Vec::new(),
            });
        }
        if trimmed.is_empty() {
            return Err(invalid("it is empty"));
        }
        let mut steps = Vec::new();
        for (index, segment) in trimmed.split('.').enumerate() {
            let (name, mut brackets) = match segment.find('[') {
                Some(at) => (&segment[..at], &segment[at..]),
                None => (segment, ""),
            };
            match name {
                "" if index == 0 && !brackets.is_empty() => {}
                "" => return Err(invalid("it has an empty member name")),
                "*" => steps.push(Step::Values),
                _ if name.contains(']') || name.contains('*') => {
                    return Err(invalid(&format!("`{name}` is not a member name")))
                }
                _ => steps.push(Step::Member(name.to_owned())),
            }
            while !brackets.is_empty() {
                match brackets.strip_prefix("[]") {
                    Some(rest) => {
                        steps.push(Step::Items);
                        brackets = rest;
                    }
                    None => {
                        return Err(invalid(&format!(
                            "`{brackets}` is not `[]` (an index cannot be named)"
                        )))
                    }
                }
            }
        }
        Ok(RulePath {
            source: trimmed.to_owned(),
            steps,
        })
    }

    /// The steps, from the result down.
    pub(crate) fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The path as the prompt's rule lines write it: `<result>` for the result itself.
    pub(crate) fn display_name(&self) -> &str {
        if self.steps.is_empty() {
            "<result>"
        } else {
            &self.source
        }
    }

    /// Every value the path reaches in `root`, with its JSON pointer under `/value`.
    ///
    /// Members are matched by exact name first, then ignoring case (as replies are read). Absent
    /// members and `null`s are skipped: their presence is the shape's concern, not the rule's.
    pub(crate) fn select<'v>(&self, root: &'v Value) -> Vec<(String, &'v Value)> {
        let mut current = vec![(String::from("/value"), root)];
        for step in &self.steps {
            let mut next = Vec::with_capacity(current.len());
            for (pointer, value) in current {
                match (step, value) {
                    (Step::Member(name), Value::Object(map)) => {
                        let found = map
                            .get_key_value(name.as_str())
                            .or_else(|| map.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)));
                        if let Some((key, child)) = found {
                            next.push((read::join_pointer(&pointer, key), child));
                        }
                    }
                    (Step::Items, Value::Array(items)) => {
                        for (i, child) in items.iter().enumerate() {
                            next.push((format!("{pointer}/{i}"), child));
                        }
                    }
                    (Step::Values, Value::Object(map)) => {
                        for (key, child) in map {
                            next.push((read::join_pointer(&pointer, key), child));
                        }
                    }
                    _ => {}
                }
            }
            current = next;
        }
        current.retain(|(_, value)| !value.is_null());
        current
    }
}

impl fmt::Display for RulePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_members_items_and_maps() {
        let path = RulePath::parse("lines[].prices.*").unwrap();
        assert_eq!(
            path.steps(),
            &[
                Step::Member("lines".into()),
                Step::Items,
                Step::Member("prices".into()),
                Step::Values
            ]
        );
        assert_eq!(RulePath::parse("[].sku").unwrap().steps().len(), 2);
        assert!(RulePath::parse("$").unwrap().steps().is_empty());
        assert_eq!(
            RulePath::parse("matrix[][]").unwrap().steps(),
            &[Step::Member("matrix".into()), Step::Items, Step::Items]
        );
    }

    #[test]
    fn refuses_indexes_and_empty_members() {
        assert!(RulePath::parse("lines[0].sku")
            .unwrap_err()
            .contains("`[0]` is not `[]`"));
        assert!(RulePath::parse("a..b").is_err());
        assert!(RulePath::parse("").is_err());
        assert!(RulePath::parse("a]").is_err());
    }

    #[test]
    fn selects_every_reached_value_with_its_pointer() {
        let reply = json!({"lines": [{"Quantity": 2}, {"quantity": null}, {"quantity": 5}], "a/b": {"x": 1}});
        let path = RulePath::parse("lines[].quantity").unwrap();
        let found: Vec<String> = path.select(&reply).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            found,
            vec!["/value/lines/0/Quantity", "/value/lines/2/quantity"]
        );
        let escaped = RulePath::parse("*.x").unwrap();
        assert_eq!(escaped.select(&reply)[0].0, "/value/a~1b/x");
    }
}

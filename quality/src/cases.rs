//! The case set: a JSON file of cases, each naming a kind (a result type), an intent, an input and
//! the expected value (`null` where the input gives none).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// A case set as `cases.json` holds it.
///
/// ```
/// let set: intent_quality::CaseSet = serde_json::from_str(r#"{
///     "contains_members": ["street"],
///     "cases": [{"id": "v1", "kind": "severity", "intent": "Rate it.", "input": "typo", "expect": "Cosmetic"}]
/// }"#).unwrap();
/// assert_eq!(set.cases[0].kind, "severity");
/// ```
#[derive(Debug, Clone, Deserialize)]
pub struct CaseSet {
    /// Members whose expected text passes when the answer contains it.
    #[serde(default)]
    pub contains_members: Vec<String>,
    /// The cases, in order.
    pub cases: Vec<Case>,
}

/// One case.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// The case's id, as the results name it.
    pub id: String,
    /// The result type (see [`crate::KINDS`]).
    pub kind: String,
    /// What to do, in words.
    pub intent: String,
    /// The input text.
    pub input: String,
    /// The right answer.
    pub expect: Value,
}

impl CaseSet {
    /// Reads a case set from a file, refusing kinds the runner has no type for.
    pub fn load(path: &Path) -> Result<CaseSet, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the case file {}: {e}", path.display()))?;
        let set: CaseSet = serde_json::from_str(&text)
            .map_err(|e| format!("the case file {} is not a case set: {e}", path.display()))?;
        set.check()?;
        Ok(set)
    }

    /// Refuses a set with an unknown kind or a repeated id.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for case in &self.cases {
            if !crate::KINDS.contains(&case.kind.as_str()) {
                return Err(format!(
                    "case {} has the kind `{}`, which the runner has no type for; known kinds: {}",
                    case.id,
                    case.kind,
                    crate::KINDS.join(", ")
                ));
            }
            if !seen.insert(case.id.as_str()) {
                return Err(format!("the case id {} is used twice", case.id));
            }
        }
        Ok(())
    }
}

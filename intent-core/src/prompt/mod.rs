//! The prompt: one system message and one user message per attempt.
//!
//! The system message is [`SYSTEM_PREAMBLE`], then the request's `system_instructions` after a
//! blank line. The user message has these sections, in order, one blank line apart:
//!
//! ```text
//! ## Intent
//! <the trimmed intent>
//!
//! ## Input (<label>)
//! <the serialized input>
//!
//! ## Output requirements
//! <the contract: plain text, or the {"value": ...} envelope with the result's description>
//! <for JSON-object mode: Use JSON types faithfully: ...>
//! <the members' rules, when the result has any>
//! Additional output requirements: <expected_output_description, when set>
//!
//! ## Examples                                  (only when there are examples)
//! Example 1 input:
//! <trimmed>
//! Example 1 output:
//! <trimmed>
//!
//! Example 2 input:
//! ...
//! Apply the same judgement and format to the input above.
//!
//! ## Previous attempt                          (retries only)
//! <the previous raw output, cut at 6000 characters>
//!
//! ## Problems with the previous attempt        (retries only)
//! - <one line per issue: its path, then its message>
//! Produce a corrected response that fixes every listed problem while still satisfying the intent.
//! ```
//!
//! A previous output longer than 6000 characters is cut there and followed by
//! one line saying so (`[cut at 6000 of 7250 characters]`), so the model knows it sees only part;
//! an empty one is shown as `(an empty reply)`. An issue message that spans lines is put on one.
//! At most 50 issues are listed, so a reply with thousands of findings
//! cannot grow the next prompt without bound; one more bullet counts the rest.

//!
//! ```
//! use intent_core::prelude::*;
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
//! # rt.block_on(async {
//! let model = ScriptedProvider::new([r#"{"value": 3}"#]);
//! let client = IntentClient::new(model.clone());
//! let _ = u32::ai(&client, "a, b, c", "Count the letters.").await;
//! let sent = &model.requests()[0];
//! assert_eq!(sent.system.as_str(), intent_core::prompt::SYSTEM_PREAMBLE);
//! assert!(sent.user.starts_with("## Intent\nCount the letters.\n\n## Input (string)\na, b, c\n\n## Output requirements\n"));
//! # });
//! ```

pub(crate) mod plan;

pub(crate) use plan::{plan, PromptPlan};

/// The system prompt every request starts with.
///
/// ```
/// assert!(intent_core::prompt::SYSTEM_PREAMBLE.starts_with("You carry out the intent on the input"));
/// ```
pub const SYSTEM_PREAMBLE: &str = "You carry out the intent on the input exactly as asked. Use only the input and the intent; do not invent facts the input does not support. Answer with the result alone: no preamble, no explanation, no markdown fences.";

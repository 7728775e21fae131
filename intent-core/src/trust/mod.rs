//! Answers a user can trust: the checks on an answer that reads, verifies and passes its rules,
//! yet may not be the input's, and what a call tells about how sure the model was.
//!
//! - [`ground`]: where a value occurs in the input, the one comparison every check here uses
//!   (without case, white space and punctuation differences; a number as a number).
//! - [`grounded`]: members declared to come from the input (`#[intent(from_input)]`): a value the
//!   input does not hold is never taken.
//! - [`samples`]: sample values named in a member's description (`such as A-1192`), questioned
//!   once per call as a copied example is.
//! - [`confidence`]: the probability of each enum and `bool` member's chosen value, from the
//!   provider's log probabilities.
//! - [`best_effort`]: the last answer read as the caller's type, whatever checks it failed.
//!
//! The other policies that question a plausible answer once per call (copied examples, rule
//! bounds, empty lists) live with the attempt loop; [`AnswerChecks`](crate::AnswerChecks) turns
//! each off.

mod best_effort;
pub(crate) mod confidence;
pub(crate) mod ground;
pub(crate) mod grounded;
mod paths;
pub(crate) mod samples;

pub(crate) use ground::{contains_number, Grounds};
pub(crate) use grounded::Grounded;
pub(crate) use paths::{answer_values_at, At, ANSWER};
pub(crate) use samples::SamplePolicy;

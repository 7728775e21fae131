//! The reasoning of a reply, kept on its attempt's record: what the provider returned beside the
//! answer, and the reasoning blocks the reader sets aside in its text.

use crate::provider::AiResponse;
use crate::read::split_reasoning;

/// The reasoning of `response`: its [`AiResponse::reasoning`] first, then the contents of the
/// `<think>`, `<thinking>` and `<reasoning>` blocks of its text (the ones the reader skips), joined
/// by blank lines; `None` when it has neither.
pub(crate) fn reasoning_of(response: &AiResponse) -> Option<String> {
    let beside = response
        .reasoning
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let (_, in_text) = split_reasoning(&response.text);
    match (beside, in_text) {
        (None, None) => None,
        (Some(beside), None) => Some(beside.to_owned()),
        (None, Some(in_text)) => Some(in_text),
        (Some(beside), Some(in_text)) => Some(format!("{beside}\n\n{in_text}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(text: &str, reasoning: Option<&str>) -> AiResponse {
        let mut response = AiResponse::new(text, "m");
        response.reasoning = reasoning.map(str::to_owned);
        response
    }

    #[test]
    fn reasoning_comes_from_beside_the_answer_and_from_its_blocks() {
        assert_eq!(reasoning_of(&reply("{\"value\": 1}", None)), None);
        assert_eq!(
            reasoning_of(&reply("{\"value\": 1}", Some("  weighed it  "))).as_deref(),
            Some("weighed it")
        );
        assert_eq!(
            reasoning_of(&reply("<think>\nsum is 1\n</think>\n{\"value\": 1}", None)).as_deref(),
            Some("sum is 1")
        );
        assert_eq!(
            reasoning_of(&reply(
                "<thinking>first</thinking>{\"value\": 1}<reasoning>second</reasoning>",
                Some("summary")
            ))
            .as_deref(),
            Some("summary\n\nfirst\n\nsecond")
        );
        assert_eq!(reasoning_of(&reply("Paris", Some("   "))), None);
    }
}

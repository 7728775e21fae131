//! Tool rounds on a provider that cannot call tools under a response format
//! ([`Provider::tools_beside_format`] false: llama.cpp, vLLM and Ollama constrain a reply with a
//! grammar that leaves no room for a call; Gemini before 3 refuses the two together).
//!
//! A round that lets the model call tools is sent to such a provider without its format (and
//! without its schema), so the model may call a tool or answer in text; the prompt's output
//! requirements still describe the answer. The attempt then reads that text as its answer, and
//! when it does not read, asks once more with the format and no tool calls allowed
//! ([`ToolChoice::None`]), which this module leaves as it is. The reply is read and verified as
//! any other: only where the provider enforces the format changes, never what the library checks.
//!
//! The schema is not written into the prompt: the answer round enforces it where the text falls
//! short, and a prompt that ends in a schema draws a small model to answer at once instead of
//! calling the tools it was told of (the local Qwen2.5-Coder-0.5B answered with a made-up value
//! when the schema came after the tools' section, and called the tool without it).

use crate::provider::Provider;
use crate::request::AiRequest;
use crate::result::{IssueKind, ResultIssue};

/// `request` without its response format, for `provider`, when it lets the model call tools
/// under a format the provider cannot call them in; `None` when it goes as it is.
pub(super) fn without_format(provider: &dyn Provider, request: &AiRequest) -> Option<AiRequest> {
    // Asked first, so that a request to a provider that can is never copied.
    if request.tools.is_none() || provider.tools_beside_format(request) {
        return None;
    }
    request.with_tools_apart()
}

/// The notice on an attempt whose tool rounds went to `provider` without their format.
pub(super) fn notice(provider: &str) -> ResultIssue {
    ResultIssue::new(
        IssueKind::Request,
        format!(
            "The response format was left out of the requests that offered tools: {provider} cannot call tools in a reply constrained to a format. An answer that does not read is asked for once more with the format and no tool calls allowed; every answer is verified against the result type as usual."
        ),
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::provider::{OpenAiProvider, RequestTools, ToolChoice, ToolDefinition};
    use crate::request::ResponseFormat;

    fn offering(choice: ToolChoice) -> AiRequest {
        let mut request = AiRequest::new("system", "user");
        request.format = ResponseFormat::JsonSchema;
        request.schema = Some(serde_json::json!({"type": "object"}).into());
        let mut tools = RequestTools::new(vec![ToolDefinition::new(
            "lookup",
            "",
            serde_json::json!({"type": "object"}),
        )]);
        tools.choice = choice;
        request.tools = Some(Arc::new(tools));
        request
    }

    #[test]
    fn a_grammar_server_gets_the_rounds_that_may_call_tools_without_the_format() {
        let local = OpenAiProvider::new("").with_base_url("http://127.0.0.1:8080/v1");
        let apart = without_format(&local, &offering(ToolChoice::Auto)).unwrap();
        assert_eq!(apart.format, ResponseFormat::Text);
        assert!(apart.schema.is_none());
        assert_eq!(apart.user, offering(ToolChoice::Auto).user);
        // The answer round keeps its format; so does a request without tools or format.
        assert!(without_format(&local, &offering(ToolChoice::None)).is_none());
        let mut plain = offering(ToolChoice::Auto);
        plain.tools = None;
        assert!(without_format(&local, &plain).is_none());
    }

    #[test]
    fn a_server_that_calls_tools_under_a_format_gets_the_request_as_it_is() {
        let openai = OpenAiProvider::new("sk-test");
        assert!(without_format(&openai, &offering(ToolChoice::Auto)).is_none());
        let said = OpenAiProvider::new("")
            .with_base_url("http://127.0.0.1:8080/v1")
            .with_tools_beside_format(true);
        assert!(without_format(&said, &offering(ToolChoice::Auto)).is_none());
    }
}

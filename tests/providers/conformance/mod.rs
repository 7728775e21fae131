//! Conformance to real vendor traffic: every recording of `../shared/corpora/vendor-fixtures/`
//! (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini; recorded by vercel/ai's
//! maintainers against the live APIs) served from 127.0.0.1 and read by our providers through
//! their public API, one case per recording, named after it.
//!
//! Each case is in one of three lists:
//! - [`conforms`]: the recording reads exactly as recorded (text, reasoning, usage, finish reason,
//!   model, or the vendor's error message); `.ci/run` runs these.
//! - [`defects`]: it does not, because of a defect named in the case's `ignore` reason (the
//!   provider must change, not the case); when the provider is fixed, the case moves to
//!   [`conforms`].
//! - [`pending_tools`]: it holds tool calls the library cannot read yet (none today; every tool
//!   call recorded, whole or streamed, of the four APIs conforms).
//!
//! All are `#[ignore]`d, since they read the corpus beside the repository:
//! `cargo test -p intent-tests --test providers conformance:: -- --ignored` runs them (set
//! `INTENT_VENDOR_FIXTURES` to read the corpus from elsewhere), and
//! [`every_fixture_has_one_case`] checks that the lists hold every recording of the manifest once.
//! [`requests`] checks the other direction: the request bodies we build against requests the real
//! APIs accepted.

mod compare;
mod corpus;
pub mod replay;
pub(crate) mod requests;
mod run;
#[cfg(feature = "vertex")]
mod vertex;

/// One `#[tokio::test]` per recording, in modules named for why they are where they are; `$run`
/// is the check it runs and `FILES` lists the recordings with that reason.
macro_rules! cases {
    ($run:ident: $($group:ident = $why:literal { $($name:ident: $file:literal,)* })*) => {
        $(pub mod $group {
            $(
                #[tokio::test]
                #[ignore = $why]
                async fn $name() {
                    crate::conformance::run::$run($file).await;
                }
            )*
        })*
        /// The recordings of these cases, each with its reason.
        pub const FILES: &[(&str, &str)] = &[$($(($file, $why),)*)*];
    };
}

/// The recordings that read as recorded.
pub mod conforms {
    cases! { conforms:
        openai_chat = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            openai_text_json: "openai-chat/openai-text.json",
            openai_text_chunks: "openai-chat/openai-text.chunks.txt",
            reasoning_model_legacy_parameter_error_json: "openai-chat/reasoning-model-legacy-parameter-error.json",
            issue_8132_long_tool_call_id_json: "openai-chat/issue-8132-long-tool-call-id.json",
            openai_chat_cached_input_tokens_11178_json: "openai-chat/openai-chat-cached-input-tokens-11178.json",
            azure_model_router_1_chunks: "openai-chat/azure-model-router.1.chunks.txt",
            azure_deepseek_reasoning_1_json: "openai-chat/azure-deepseek-reasoning.1.json",
            azure_deepseek_reasoning_1_chunks: "openai-chat/azure-deepseek-reasoning.1.chunks.txt",
            deepseek_json_json: "openai-chat/deepseek-json.json",
            deepseek_reasoning_json: "openai-chat/deepseek-reasoning.json",
            qwen_plus_malformed_replayed_tool_arguments_error_json: "openai-chat/qwen-plus-malformed-replayed-tool-arguments-error.json",
            xai_text_json: "openai-chat/xai-text.json",
        }
        openai_responses = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            openai_reasoning_encrypted_content_1_json: "openai-responses/openai-reasoning-encrypted-content.1.json",
            openai_error_1_json: "openai-responses/openai-error.1.json",
            reasoning_model_temperature_error_json: "openai-responses/reasoning-model-temperature-error.json",
            azure_text_1_json: "openai-responses/azure-text.1.json",
            azure_reasoning_encrypted_content_1_json: "openai-responses/azure-reasoning-encrypted-content.1.json",
            openai_pdf_input_file_1_json: "openai-responses/openai-pdf-input-file.1.json",
            issue_6454_root_definitions_success_json: "openai-responses/issue-6454-root-definitions-success.json",
            issue_6454_nested_definitions_error_json: "openai-responses/issue-6454-nested-definitions-error.json",
            issue_11701_output_array_schema_1_json: "openai-responses/issue-11701-output-array-schema.1.json",
            openai_issue_17402_error_1_json: "openai-responses/openai-issue-17402-error.1.json",
            openai_issue_18537_error_1_json: "openai-responses/openai-issue-18537-error.1.json",
            openai_phase_1_chunks: "openai-responses/openai-phase.1.chunks.txt",
            openai_error_1_chunks: "openai-responses/openai-error.1.chunks.txt",
            github_copilot_id_rotation_1_chunks: "openai-responses/github-copilot-id-rotation.1.chunks.txt",
            azure_text_1_chunks: "openai-responses/azure-text.1.chunks.txt",
            openai_pdf_input_file_1_chunks: "openai-responses/openai-pdf-input-file.1.chunks.txt",
            openai_reasoning_encrypted_content_gpt_5_4_split_1_chunks: "openai-responses/openai-reasoning-encrypted-content-gpt-5-4-split.1.chunks.txt",
            openai_issue_11239_2_chunks: "openai-responses/openai-issue-11239.2.chunks.txt",
            issue_16021_openai_zod_patterns_live_chunks: "openai-responses/issue-16021-openai-zod-patterns-live.chunks.txt",
            openai_phase_1_json: "openai-responses/openai-phase.1.json",
        }
        anthropic = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            anthropic_text_chunks: "anthropic-messages/anthropic-text.chunks.txt",
            anthropic_text_json: "anthropic-messages/anthropic-text.json",
            anthropic_json_output_format_1_chunks: "anthropic-messages/anthropic-json-output-format.1.chunks.txt",
            anthropic_json_output_format_1_json: "anthropic-messages/anthropic-json-output-format.1.json",
            anthropic_clear_thinking_1_chunks: "anthropic-messages/anthropic-clear-thinking.1.chunks.txt",
            anthropic_clear_thinking_1_json: "anthropic-messages/anthropic-clear-thinking.1.json",
            anthropic_clear_tool_uses_1_chunks: "anthropic-messages/anthropic-clear-tool-uses.1.chunks.txt",
            anthropic_clear_tool_uses_1_json: "anthropic-messages/anthropic-clear-tool-uses.1.json",
            anthropic_message_delta_input_tokens_chunks: "anthropic-messages/anthropic-message-delta-input-tokens.chunks.txt",
            anthropic_issue_5942_cache_write_chunks: "anthropic-messages/anthropic-issue-5942-cache-write.chunks.txt",
            anthropic_issue_5942_cache_read_chunks: "anthropic-messages/anthropic-issue-5942-cache-read.chunks.txt",
            anthropic_issue_11855_follow_up_json: "anthropic-messages/anthropic-issue-11855-follow-up.json",
            anthropic_issue_17366_error_json: "anthropic-messages/anthropic-issue-17366-error.json",
            anthropic_parallel_provider_client_tools_error_json: "anthropic-messages/anthropic-parallel-provider-client-tools.error.json",
            anthropic_claude_opus_5_reasoning_high_1_json: "anthropic-messages/anthropic-claude-opus-5-reasoning-high.1.json",
            anthropic_claude_sonnet_5_reasoning_summarized_chunks: "anthropic-messages/anthropic-claude-sonnet-5-reasoning-summarized.chunks.txt",
            anthropic_claude_sonnet_5_reasoning_generic_chunks: "anthropic-messages/anthropic-claude-sonnet-5-reasoning-generic.chunks.txt",
        }
        gemini = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            google_text_json: "google-gemini/google-text.json",
            google_reasoning_json: "google-gemini/google-reasoning.json",
            google_reasoning_gemini3_json: "google-gemini/google-reasoning-gemini3.json",
            google_thinking_level_low_success_json: "google-gemini/google-thinking-level-low-success.json",
            google_thinking_level_minimal_unsupported_json: "google-gemini/google-thinking-level-minimal-unsupported.json",
            issue_8943_gemini_2_5_flash_error_json: "google-gemini/issue-8943-gemini-2.5-flash-error.json",
            google_response_schema_7689_json: "google-gemini/google-response-schema-7689.json",
            google_strict_forced_tool_choice_validated_json: "google-gemini/google-strict-forced-tool-choice-validated.json",
            google_text_chunks: "google-gemini/google-text.chunks.txt",
            google_reasoning_chunks: "google-gemini/google-reasoning.chunks.txt",
            google_reasoning_gemini3_chunks: "google-gemini/google-reasoning-gemini3.chunks.txt",
            gemma_4_output_usage_chunks: "google-gemini/gemma-4-output-usage.chunks.txt",
            issue_18073_empty_text_thought_signature_chunks: "google-gemini/issue-18073-empty-text-thought-signature.chunks.txt",
        }
        openai_chat_tools = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            deepseek_tool_call_json: "openai-chat/deepseek-tool-call.json",
            deepseek_tool_call_chunks: "openai-chat/deepseek-tool-call.chunks.txt",
            groq_tool_call_json: "openai-chat/groq-tool-call.json",
            groq_tool_call_chunks: "openai-chat/groq-tool-call.chunks.txt",
            qwen_plus_normalized_replayed_tool_arguments_success_json: "openai-chat/qwen-plus-normalized-replayed-tool-arguments-success.json",
        }
        openai_responses_tools = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            azure_tool_call_1_json: "openai-responses/azure-tool-call.1.json",
            issue_7082_o3_optional_tool_parameters_json: "openai-responses/issue-7082-o3-optional-tool-parameters.json",
        }
        anthropic_tools = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            anthropic_json_tool_1_chunks: "anthropic-messages/anthropic-json-tool.1.chunks.txt",
            anthropic_json_tool_1_json: "anthropic-messages/anthropic-json-tool.1.json",
            anthropic_json_other_tool_1_chunks: "anthropic-messages/anthropic-json-other-tool.1.chunks.txt",
            anthropic_json_other_tool_1_json: "anthropic-messages/anthropic-json-other-tool.1.json",
            anthropic_tool_no_args_chunks: "anthropic-messages/anthropic-tool-no-args.chunks.txt",
            anthropic_tool_no_args_json: "anthropic-messages/anthropic-tool-no-args.json",
            issue_10781_1_chunks: "anthropic-messages/issue-10781.1.chunks.txt",
            anthropic_issue_11674_empty_schema_forced_tool_call_1_chunks: "anthropic-messages/anthropic-issue-11674-empty-schema-forced-tool-call.1.chunks.txt",
            anthropic_issue_11719_quoted_tool_input_json: "anthropic-messages/anthropic-issue-11719-quoted-tool-input.json",
        }
        gemini_tools = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            google_tool_call_json: "google-gemini/google-tool-call.json",
            google_tool_call_gemini3_json: "google-gemini/google-tool-call-gemini3.json",
            google_strict_forced_tool_choice_any_json: "google-gemini/google-strict-forced-tool-choice-any.json",
        }
        xai_tool_streams = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            xai_tool_call_chunks: "openai-chat/xai-tool-call.chunks.txt",
        }
        openai_responses_tool_streams = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            openai_reasoning_encrypted_content_1_chunks: "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt",
            azure_tool_call_1_chunks: "openai-responses/azure-tool-call.1.chunks.txt",
            azure_reasoning_encrypted_content_1_chunks: "openai-responses/azure-reasoning-encrypted-content.1.chunks.txt",
            openai_issue_11239_1_chunks: "openai-responses/openai-issue-11239.1.chunks.txt",
        }
        gemini_tool_streams = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)" {
            google_tool_call_chunks: "google-gemini/google-tool-call.chunks.txt",
            google_tool_call_gemini3_chunks: "google-gemini/google-tool-call-gemini3.chunks.txt",
            google_stream_no_args_tool_call_chunks: "google-gemini/google-stream-no-args-tool-call.chunks.txt",
            google_stream_tool_call_arguments_chunks: "google-gemini/google-stream-tool-call-arguments.chunks.txt",
            google_stream_tool_call_array_arguments_missing_terminal_function_call_chunks: "google-gemini/google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
            google_vertex_stream_tool_call_arguments_nested_1_chunks: "google-gemini/google-vertex-stream-tool-call-arguments-nested.1.chunks.txt",
        }
    }
}

/// The recordings that do not, grouped by the defect that stops them: none today. A case moves
/// here, `#[ignore]`d with the defect, when a change of the provider or of the corpus breaks it.
pub mod defects {
    /// The recordings of these cases, each with its reason.
    pub const FILES: &[(&str, &str)] = &[];
}

/// The recordings that hold tool calls the library cannot read yet: none today.
pub mod pending_tools {
    /// The recordings of these cases, each with its reason.
    pub const FILES: &[(&str, &str)] = &[];
}

/// Every recording of the manifest has exactly one case; the ones `.ci/run` skips are listed with
/// why.
#[test]
#[ignore = "reads ../shared/corpora/vendor-fixtures (run by .ci/run)"]
fn every_fixture_has_one_case() {
    let mut cased: Vec<&str> = conforms::FILES.iter().map(|(file, _)| *file).collect();
    cased.extend(defects::FILES.iter().map(|(file, _)| *file));
    cased.extend(pending_tools::FILES.iter().map(|(file, _)| *file));
    let manifest: Vec<&str> = corpus::manifest().iter().map(|e| e.file.as_str()).collect();
    for file in &manifest {
        let cases = cased.iter().filter(|c| *c == file).count();
        assert_eq!(
            cases, 1,
            "{file} has {cases} cases; every recording has one"
        );
    }
    for file in &cased {
        assert!(manifest.contains(file), "{file} is not in the manifest");
    }
    println!(
        "{} recordings: {} conform, {} skipped",
        manifest.len(),
        conforms::FILES.len(),
        defects::FILES.len() + pending_tools::FILES.len()
    );
    for (file, why) in defects::FILES.iter().chain(pending_tools::FILES) {
        println!("skipped {file}: {why}");
    }
}

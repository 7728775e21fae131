//! A setter per request option, on [`AiCall`] and `CollectionCall`: the same methods, written
//! once. Each sets one field of the call's [`AiRequestOptions`], over what the client's defaults,
//! an intent file or `.options(..)` put there.

use crate::call::AiCall;

/// The setters, for a call type; `$make` is a doc-test expression that builds one from `client`.
macro_rules! option_setters {
    ($ty:ident [$($params:tt)*], $make:literal) => {
        impl<$($params)*> $ty<$($params)*> {
            #[doc = concat!(
                "Sets the sampling temperature (0 to 2).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".temperature(0.0);\n# drop(call);\n```"
            )]
            pub fn temperature(mut self, temperature: f32) -> Self {
                self.options.temperature = Some(temperature);
                self
            }

            #[doc = concat!(
                "Sets the longest reply, in tokens, for each model call.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".max_output_tokens(200);\n# drop(call);\n```"
            )]
            pub fn max_output_tokens(mut self, tokens: u32) -> Self {
                self.options.max_output_tokens = Some(tokens);
                self
            }

            #[doc = concat!(
                "Sets the model to ask; it goes to the fallback too.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".model(\"gpt-4o-mini\");\n# drop(call);\n```"
            )]
            pub fn model(mut self, model: impl Into<String>) -> Self {
                self.options.model = Some(model.into());
                self
            }

            #[doc = concat!(
                "Asks the provider of this name only: naming one turns fallback off.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".provider(\"scripted\");\n# drop(call);\n```"
            )]
            pub fn provider(mut self, provider: impl Into<String>) -> Self {
                self.options.provider = Some(provider.into());
                self
            }

            #[doc = concat!(
                "Sets the system instructions, added to the system message after a blank line.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".system_instructions(\"You work for a hardware shop.\");\n# drop(call);\n```"
            )]
            pub fn system_instructions(mut self, instructions: impl Into<String>) -> Self {
                self.options.system_instructions = Some(instructions.into());
                self
            }

            #[doc = concat!(
                "Says what a good answer looks like, in prose, where the type alone is not enough.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".expected_output_description(\"British spelling\");\n# drop(call);\n```"
            )]
            pub fn expected_output_description(mut self, description: impl Into<String>) -> Self {
                self.options.expected_output_description = Some(description.into());
                self
            }

            #[doc = concat!(
                "Adds a worked example after those already set (by the client's defaults, an intent \
                 file or an earlier call of this method).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".example(IntentExample::new(\"two\", r#\"{\"value\": 2}\"#));\n# drop(call);\n```"
            )]
            pub fn example(mut self, example: crate::options::IntentExample) -> Self {
                self.options.examples.push(example);
                self
            }

            #[doc = concat!(
                "Sets the attempts of this call (each chunk's, for a collection), the first included; \
                 at least 1.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".max_attempts(2);\n# drop(call);\n```"
            )]
            pub fn max_attempts(mut self, attempts: u32) -> Self {
                self.options.max_attempts = Some(attempts);
                self
            }

            #[doc = concat!(
                "Gives the model a tool it may call before it answers (repeatable: each call adds \
                 one). The model may call tools, several at once where the provider allows, over \
                 any number of rounds within `max_tool_calls` (each chunk's, for a collection); \
                 its typed answer is then read and verified as always. See [`crate::tool`].\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# use intent_core::tool::ToolError;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "#[derive(Intent, serde::Deserialize)]\n",
                "struct City { name: String }\n",
                "let weather = Tool::new(\"weather\", \"Today's weather in a city.\", |c: City| async move {\n",
                "    Ok::<_, ToolError>(format!(\"sunny in {}\", c.name))\n",
                "});\n",
                "let call = ", $make, ".tool(weather);\n# drop(call);\n```"
            )]
            pub fn tool(mut self, tool: crate::toolbox::Tool) -> Self {
                self.tools.push(tool);
                self
            }

            #[doc = concat!(
                "Sets the most tool calls the call may make, over all its rounds and attempts \
                 (each chunk's, for a collection; 8 by default): the model asking for more ends \
                 the call with an [`IssueKind::Limit`](crate::IssueKind::Limit) issue naming the \
                 limit.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".max_tool_calls(2);\n# drop(call);\n```"
            )]
            pub fn max_tool_calls(mut self, calls: u32) -> Self {
                self.options.max_tool_calls = Some(calls);
                self
            }

            #[doc = concat!(
                "Sets the call's wall-clock deadline (each chunk's, for a collection).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".deadline(std::time::Duration::from_secs(30));\n# drop(call);\n```"
            )]
            pub fn deadline(mut self, deadline: std::time::Duration) -> Self {
                self.options.deadline = Some(deadline);
                self
            }

            #[doc = concat!(
                "Sets the call's token budget, input plus output over every model call (each \
                 chunk's, for a collection); see [`AiRequestOptions::max_total_tokens`](crate::AiRequestOptions::max_total_tokens).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".max_total_tokens(2_000);\n# drop(call);\n```"
            )]
            pub fn max_total_tokens(mut self, tokens: u64) -> Self {
                self.options.max_total_tokens = Some(tokens);
                self
            }

            #[doc = concat!(
                "Sets the sampling seed (see [`AiRequestOptions::seed`](crate::AiRequestOptions::seed) \
                 for the providers that take one).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".seed(7);\n# drop(call);\n```"
            )]
            pub fn seed(mut self, seed: u64) -> Self {
                self.options.seed = Some(seed);
                self
            }

            #[doc = concat!(
                "Sets nucleus sampling's `top_p` (0 to 1).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".top_p(0.9);\n# drop(call);\n```"
            )]
            pub fn top_p(mut self, top_p: f32) -> Self {
                self.options.top_p = Some(top_p);
                self
            }

            #[doc = concat!(
                "Sets the stop sequences (see [`AiRequestOptions::stop`](crate::AiRequestOptions::stop)).\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".stop([\"\\n\\n\"]);\n# drop(call);\n```"
            )]
            pub fn stop<S: Into<String>>(mut self, sequences: impl IntoIterator<Item = S>) -> Self {
                self.options.stop = sequences.into_iter().map(Into::into).collect();
                self
            }

            #[doc = concat!(
                "Asks a judge whether each answer carries out the intent; its verdict is on each \
                 attempt's record.\n\n```\n",
                "# use intent_core::prelude::*;\n",
                "# let client = IntentClient::new(ScriptedProvider::new([\"{}\"]));\n",
                "let call = ", $make, ".judge(JudgeOptions::default());\n# drop(call);\n```"
            )]
            pub fn judge(mut self, judge: crate::options::JudgeOptions) -> Self {
                self.options.judge = Some(judge);
                self
            }
        }
    };
}

// The collection call's setters are made where it is defined, so that the call module does not
// import the collections.
pub(crate) use option_setters;

option_setters!(AiCall['a, T], "u32::ai(&client, \"three\", \"Read the number.\")");

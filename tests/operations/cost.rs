//! Costs: each attempt priced at the provider and model that answered it, over a retry, a
//! fallback, a cache hit and a real HTTP reply with cached tokens.

use intent_core::cache::MemoryCache;
use intent_core::prelude::*;
use intent_core::pricing::{CostError, Price, Pricing};
use intent_core::provider::{AiResponse, OpenAiProvider, ProviderError, ProviderErrorKind};
use intent_core::Usage;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn reply(text: &str, model: &str, input: u64, output: u64) -> AiResponse {
    let mut reply = AiResponse::new(text, model);
    reply.usage.input_tokens = input;
    reply.usage.output_tokens = output;
    reply
}

fn pricing() -> Pricing {
    Pricing::new()
        .with(
            "openai",
            "gpt-4o-mini",
            Price::per_million(0.15, 0.60).with_cached_input(0.075),
        )
        .with(
            "anthropic",
            "claude-haiku-4-5",
            Price::per_million(1.0, 5.0),
        )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[tokio::test]
async fn a_retried_call_costs_every_attempt_at_its_model() {
    let model = ScriptedProvider::new([
        reply(
            "{\"value\": \"three\"}",
            "gpt-4o-mini-2024-07-18",
            1_000_000,
            100_000,
        ),
        reply(
            "{\"value\": 3}",
            "gpt-4o-mini-2024-07-18",
            1_200_000,
            50_000,
        ),
    ])
    .with_name("openai");
    let client = IntentClient::new(model);
    let result = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(result.is_success());
    assert_eq!(result.attempts().len(), 2);
    // (1.0 M + 1.2 M) input at 0.15, (0.1 M + 0.05 M) output at 0.60.
    let cost = result.cost(&pricing()).unwrap();
    assert!(close(cost, 2.2 * 0.15 + 0.15 * 0.60), "{cost}");
}

#[tokio::test]
async fn a_fallback_is_priced_at_the_fallback_s_model() {
    let primary = ScriptedProvider::new([ProviderError::new(ProviderErrorKind::Server, "down")])
        .with_name("openai");
    let fallback = ScriptedProvider::new([reply(
        "{\"value\": 3}",
        "claude-haiku-4-5-20251001",
        2_000_000,
        200_000,
    )])
    .with_name("anthropic");
    let client = IntentClient::builder()
        .provider(primary)
        .fallback(fallback)
        .build()
        .unwrap();
    let result = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(result.is_success());
    assert!(close(result.cost(&pricing()).unwrap(), 2.0 + 1.0));
}

#[tokio::test]
async fn a_model_without_a_price_is_named_not_counted_as_free() {
    let client = IntentClient::new(
        ScriptedProvider::new([reply("{\"value\": 3}", "gpt-5", 10, 1)]).with_name("openai"),
    );
    let result = u32::ai(&client, "a b c", "Count the words.").await;
    let error = result.cost(&pricing()).unwrap_err();
    assert_eq!(
        error,
        CostError::NoPrice {
            provider: "openai".into(),
            model: "gpt-5".into()
        }
    );
    assert!(error.to_string().contains("\"gpt-5\""), "{error}");
}

#[tokio::test]
async fn a_cache_hit_costs_nothing() {
    let client = IntentClient::builder()
        .provider(
            ScriptedProvider::new([reply("{\"value\": 3}", "unpriced-model", 500, 5)])
                .with_name("openai"),
        )
        .cache(MemoryCache::new(16))
        .build()
        .unwrap();
    let first = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(
        first.cost(&pricing()).is_err(),
        "the model call is not priced"
    );
    let hit = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(hit.attempts()[0].from_cache);
    assert_eq!(hit.cost(&pricing()), Ok(0.0));
}

#[tokio::test]
async fn cached_input_tokens_from_the_wire_are_priced_at_the_cached_rate() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "c", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "{\"value\": 3}"}}],
            "usage": {"prompt_tokens": 4_000_000, "completion_tokens": 1_000_000, "total_tokens": 5_000_000,
                      "prompt_tokens_details": {"cached_tokens": 3_000_000}}
        })))
        .mount(&server)
        .await;
    let client = IntentClient::new(OpenAiProvider::new("sk-test").with_base_url(server.uri()));
    let result = u32::ai(&client, "a b c", "Count the words.").await;
    assert!(result.is_success(), "{:?}", result.issues());
    // 1 M uncached at 0.15, 3 M cached at 0.075, 1 M output at 0.60.
    let expected = 0.15 + 3.0 * 0.075 + 0.60;
    assert!(close(result.cost(&pricing()).unwrap(), expected));
    // At batch prices, half.
    let batch = Pricing::new().with(
        "openai",
        "gpt-4o-mini",
        Price::per_million(0.15, 0.60)
            .with_cached_input(0.075)
            .with_batch_discount(0.5),
    );
    assert!(close(
        result.cost(&batch.for_batch()).unwrap(),
        expected / 2.0
    ));
}

#[test]
fn a_usage_is_priced_at_a_one_price_table_and_refused_at_a_mixed_one() {
    let usage = Usage {
        input_tokens: 1_000_000,
        output_tokens: 1_000_000,
        ..Usage::default()
    };
    let one = Pricing::new().with("openai", "gpt-4.1", Price::per_million(2.0, 8.0));
    assert_eq!(usage.cost(&one), Ok(10.0));
    assert_eq!(usage.cost_at(&Price::per_million(2.0, 8.0)), 10.0);
    let error = usage.cost(&pricing()).unwrap_err();
    assert_eq!(error, CostError::NoModel { prices: 2 });
    assert!(error.to_string().contains("AiResult::cost"), "{error}");
}

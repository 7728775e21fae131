//! The call-overhead fixture: `Order::ai` through `OpenAiProvider` and a plain reqwest POST of the
//! same body, both against one local server returning the same 1 KB chat completion.

use bytes::Bytes;
use intent_core::provider::OpenAiProvider;
use intent_core::{Intent, IntentClient};

use crate::replies::{order_completion, Completion, Envelope};
use crate::server::Server;
use crate::types::Order;

/// What the model is asked; the same for every call.
pub const INTENT: &str = "Read the order from this email.";

/// The input sent; the same for every call.
pub const EMAIL: &str = "Hi, Dana Whitfield here. Please confirm order SO-2026-0042 (paid): \
    three brass desk lamps with linen shades, A-00000, A-00007 and A-00014.";

/// A server, a client of the library pointed at it, and a plain HTTP client with the body the
/// library sends.
pub struct CallFixture {
    /// The local server.
    pub server: Server,
    /// The library's client, through `OpenAiProvider`.
    pub client: IntentClient,
    /// A plain reqwest client.
    pub http: reqwest::Client,
    /// `{server}/v1/chat/completions`.
    pub endpoint: String,
    /// The request body the library sent, sent unchanged by the plain client.
    pub body: Bytes,
}

impl CallFixture {
    /// Starts the server and makes one call through the library to learn the body it sends.
    ///
    /// # Panics
    ///
    /// When the first call fails: the fixture is broken and nothing it measures would mean much.
    pub async fn start() -> CallFixture {
        let completion = order_completion();
        let server = Server::fixed(completion);
        let provider = OpenAiProvider::new("sk-bench")
            .with_base_url(format!("{}/v1", server.url()))
            .with_model("gpt-bench");
        let client = IntentClient::new(provider);
        let first = Order::ai(&client, EMAIL, INTENT).await;
        assert!(first.is_success(), "{:?}", first.issues());
        let body = server.last_request().expect("the server saw the request");
        CallFixture {
            endpoint: format!("{}/v1/chat/completions", server.url()),
            server,
            client,
            http: reqwest::Client::new(),
            body,
        }
    }

    /// One call through the library.
    pub async fn library(&self) -> Order {
        Order::ai(&self.client, EMAIL, INTENT)
            .await
            .into_result()
            .expect("the reply is a valid order")
    }

    /// The same exchange by hand: POST the body, read the completion and its content with serde.
    pub async fn by_hand(&self) -> Order {
        by_hand(&self.http, &self.endpoint, &self.body).await
    }

    /// The size of the server's reply.
    pub fn reply_bytes(&self) -> usize {
        order_completion().len()
    }
}

/// One exchange written without the library: POST `body` to `endpoint`, read the completion and
/// its content with serde.
///
/// # Panics
///
/// When the server does not answer with a chat completion holding an order.
pub async fn by_hand(http: &reqwest::Client, endpoint: &str, body: &Bytes) -> Order {
    let reply = http
        .post(endpoint)
        .bearer_auth("sk-bench")
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("the reply body");
    let completion: Completion = serde_json::from_str(&reply).expect("a chat completion");
    let content = &completion.choices[0].message.content;
    let order: Envelope<Order> = serde_json::from_str(content).expect("an order");
    order.value
}

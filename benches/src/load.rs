//! The load fixture: many calls at once, through the library and written by hand, against a server
//! in another process, so that the CPU time this process spends is the client's alone.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use intent_core::provider::OpenAiProvider;
use intent_core::{Intent, IntentClient};

use crate::call::{by_hand, EMAIL, INTENT};
use crate::types::Order;

/// Both clients, pointed at one server.
pub struct LoadFixture {
    client: IntentClient,
    http: reqwest::Client,
    endpoint: String,
    body: Bytes,
}

impl LoadFixture {
    /// Clients of the server at `server_url`; the hand-written one sends `body`, the request body
    /// the library sends for the same call.
    pub fn new(server_url: &str, body: Bytes) -> Arc<LoadFixture> {
        let provider = OpenAiProvider::new("sk-bench")
            .with_base_url(format!("{server_url}/v1"))
            .with_model("gpt-bench");
        Arc::new(LoadFixture {
            client: IntentClient::new(provider),
            http: reqwest::Client::new(),
            endpoint: format!("{server_url}/v1/chat/completions"),
            body,
        })
    }

    /// Makes `calls` calls, `concurrency` at a time, through the library or by hand.
    ///
    /// # Panics
    ///
    /// When a call fails: the server answers every one with the same order.
    pub async fn run(self: &Arc<Self>, calls: usize, concurrency: usize, library: bool) {
        let next = Arc::new(AtomicUsize::new(0));
        let workers: Vec<_> = (0..concurrency)
            .map(|_| {
                let fixture = Arc::clone(self);
                let next = Arc::clone(&next);
                tokio::spawn(async move {
                    while next.fetch_add(1, Ordering::Relaxed) < calls {
                        let order = if library {
                            Order::ai(&fixture.client, EMAIL, INTENT)
                                .await
                                .into_result()
                                .expect("the reply is a valid order")
                        } else {
                            by_hand(&fixture.http, &fixture.endpoint, &fixture.body).await
                        };
                        std::hint::black_box(order);
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.await.expect("a load worker");
        }
    }
}

/// The CPU time (user and system) this process has used.
pub fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `getrusage` fills the struct it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

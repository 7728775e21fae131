//! Streaming: what reading a reply as it arrives costs over reading it whole, and how soon the
//! first verified element of a 100-element list (a 19.5 KB reply) comes. The report's figure 2b
//! (`cargo bench -p intent-bench --bench report -- streaming`) gives the same comparisons as
//! ratios measured side by side.
//!
//! - `stream_read/read_whole`: `read_reply` of the whole reply (the non-streaming read).
//! - `stream_read/partial`: the partial reader over the same text in 16-character pieces (the
//!   scripted model's default), verifying each member as it closes and keeping the view.
//! - `stream_read/partials_looked_at`, `stream_read/partials_unread`: a stream of partials'
//!   views over the same pieces, every one looked at, and none (a consumer that waits for the
//!   result).
//! - `stream_read/value_tree`: `serde_json::from_str::<Value>` of the same text: what building
//!   a JSON tree of it costs at the least, next to which the partial reader's view is built.
//! - `stream_read/elements`: what an element stream reads: the partial reader copying each
//!   element's text (no view), then each element read into an `Item` as the final reading
//!   reads it.
//! - `stream_read/partial_then_read`: both, as a streamed call does (the partials, then the final
//!   reading that decides the result).
//! - `first_element/first`: `stream_elements` on the scripted model until the first element is
//!   out; `first_element/all`: until `Done`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use futures::StreamExt;
use intent_bench::replies::{item, Envelope};
use intent_bench::types::Item;
use intent_core::__internals::{read_elements_in_pieces, read_in_pieces, read_partials_in_pieces};
use intent_core::prelude::*;
use intent_core::read::read_reply;

/// The reply of a 100-element list.
fn list_reply() -> String {
    let items: Vec<Item> = (0..100).map(item).collect();
    serde_json::to_string(&Envelope { value: items }).expect("JSON")
}

fn stream_read(c: &mut Criterion) {
    let info = <Vec<Item>>::type_info();
    let reply = list_reply();
    let mut group = c.benchmark_group("stream_read");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .throughput(Throughput::Bytes(reply.len() as u64));
    group.bench_function("read_whole", |b| {
        b.iter(|| read_reply::<Vec<Item>>(&info, black_box(&reply)).unwrap())
    });
    group.bench_function("value_tree", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&reply)).unwrap())
    });
    group.bench_function("elements", |b| {
        b.iter(|| read_elements_in_pieces::<Item>(info.clone(), black_box(&reply), 16))
    });
    group.bench_function("partial", |b| {
        b.iter(|| read_in_pieces(info.clone(), black_box(&reply), 16))
    });
    for (name, look) in [("partials_looked_at", true), ("partials_unread", false)] {
        group.bench_function(name, |b| {
            b.iter(|| read_partials_in_pieces(info.clone(), black_box(&reply), 16, look))
        });
    }
    group.bench_function("partial_then_read", |b| {
        b.iter(|| {
            let views = read_in_pieces(info.clone(), black_box(&reply), 16);
            (views, read_reply::<Vec<Item>>(&info, &reply).unwrap())
        })
    });
    group.finish();
}

fn first_element(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let reply = list_reply();
    let model = ScriptedProvider::new(Vec::<&str>::new());
    let client = IntentClient::new(model.clone());
    let mut group = c.benchmark_group("first_element");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("first", |b| {
        b.to_async(&runtime).iter(|| async {
            model.push([reply.as_str()]);
            let mut elements =
                <Vec<Item>>::ai(&client, "items", "List the items.").stream_elements();
            loop {
                match elements.next().await {
                    Some(ElementEvent::Element(index, element)) => break (index, element),
                    Some(_) => {}
                    None => panic!("no element"),
                }
            }
        })
    });
    group.bench_function("all", |b| {
        b.to_async(&runtime).iter(|| async {
            model.push([reply.as_str()]);
            let result = <Vec<Item>>::ai(&client, "items", "List the items.")
                .stream_elements()
                .finish()
                .await;
            assert_eq!(result.value().map(Vec::len), Some(100));
            result
        })
    });
    group.finish();
}

criterion_group!(benches, stream_read, first_element);
criterion_main!(benches);

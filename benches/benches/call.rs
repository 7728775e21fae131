//! One call against a local server returning a fixed 1 KB chat completion: `Order::ai` through
//! `OpenAiProvider`, and the same exchange by hand (reqwest POST + `serde_json::from_str`).

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use intent_bench::call::CallFixture;

fn call_overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let fixture = runtime.block_on(CallFixture::start());
    let mut group = c.benchmark_group("call");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    group.bench_function("by_hand", |b| {
        b.to_async(&runtime).iter(|| fixture.by_hand())
    });
    group.bench_function("intent", |b| {
        b.to_async(&runtime).iter(|| fixture.library())
    });
    group.finish();
}

criterion_group!(benches, call_overhead);
criterion_main!(benches);

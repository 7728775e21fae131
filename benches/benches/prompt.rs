//! Building the request for a type of 50 members with a 100 KB input, as text and as JSON.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use intent_bench::prompt::{build_request, items_input, text_input};
use intent_core::AiRequestOptions;

fn prompt_building(c: &mut Criterion) {
    let options = AiRequestOptions::default();
    let text = text_input(100 << 10);
    let items = items_input(100 << 10);
    let mut group = c.benchmark_group("prompt");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("wide_50_members/text_100KB", |b| {
        b.iter(|| build_request(black_box(text.as_str()), &options))
    });
    group.bench_function("wide_50_members/json_100KB", |b| {
        b.iter(|| build_request(black_box(&items), &options))
    });
    group.finish();
}

criterion_group!(benches, prompt_building);
criterion_main!(benches);

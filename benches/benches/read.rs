//! Reading and verifying replies (a list of items) against `serde_json::from_str` into the same
//! type, at 1 KB, 100 KB and 1 MB.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use intent_bench::replies::{items_reply, Envelope};
use intent_bench::types::Item;
use intent_core::read::read_reply;
use intent_core::Intent;

fn read_and_verify(c: &mut Criterion) {
    let info = <Vec<Item>>::type_info();
    let mut group = c.benchmark_group("read");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for (label, bytes) in [("1KB", 1 << 10), ("100KB", 100 << 10), ("1MB", 1 << 20)] {
        let (items, reply) = items_reply(bytes);
        group.throughput(Throughput::Bytes(reply.len() as u64));
        group.bench_with_input(BenchmarkId::new("serde_json", label), &reply, |b, reply| {
            b.iter(|| {
                let read: Envelope<Vec<Item>> = serde_json::from_str(black_box(reply)).unwrap();
                assert_eq!(read.value.len(), items.len());
                read
            })
        });
        group.bench_with_input(BenchmarkId::new("intent", label), &reply, |b, reply| {
            b.iter(|| {
                let read: Vec<Item> = read_reply(&info, black_box(reply)).unwrap();
                assert_eq!(read.len(), items.len());
                read
            })
        });
    }
    group.finish();
}

criterion_group!(benches, read_and_verify);
criterion_main!(benches);

//! A timing of the reader against `serde_json::from_str` into the same type. Run it in release:
//! `cargo test --release -p intent-tests --test read_perf -- --ignored --nocapture`.

mod read_common;

use std::time::Instant;

use intent_core::read::read_reply;
use intent_core::Intent;
use read_common::*;

fn time(mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    for _ in 0..20 {
        f();
    }
    start.elapsed().as_secs_f64() / 20.0
}

#[test]
#[ignore = "a timing, not a check; run in release"]
fn reader_stays_near_serde_json() {
    // 20 000 purchase requests, each with a pattern, a length and a range rule to check.
    let items: Vec<String> = (0..20_000)
        .map(|i| {
            format!(
                r#"{{"contact": "Dana {i}", "sku": "A-{i}", "quantity": {}, "deliverBy": "2026-11-15"}}"#,
                1 + i % 900
            )
        })
        .collect();
    let body = format!("[{}]", items.join(", "));
    let reply = format!(r#"{{"value": {body}}}"#);
    let info = <Vec<PurchaseRequest>>::type_info();
    let base = time(|| {
        let read: Vec<PurchaseRequest> = serde_json::from_str(&body).unwrap();
        assert_eq!(read.len(), 20_000);
    });
    let reader = time(|| {
        let read: Vec<PurchaseRequest> = read_reply(&info, &reply).unwrap();
        assert_eq!(read.len(), 20_000);
    });
    let loose = reply.replace("\"sku\"", "\"SKU\"");
    let lenient = time(|| {
        let read: Vec<PurchaseRequest> = read_reply(&info, &loose).unwrap();
        assert_eq!(read.len(), 20_000);
    });
    println!(
        "{} bytes: serde_json {:.2} ms, reader {:.2} ms ({:.2}x), lenient path {:.2} ms ({:.2}x)",
        reply.len(),
        base * 1e3,
        reader * 1e3,
        reader / base,
        lenient * 1e3,
        lenient / base
    );
}

//! The benchmarks' fixtures do what the figures assume: both sides of a comparison get the same
//! answer, replies have the size asked for, and the concurrency server answers every element.

use std::time::Duration;

use intent_bench::call::CallFixture;
use intent_bench::collection;
use intent_bench::measure::{median, proc_status_bytes};
use intent_bench::prompt::{build_request, items_input, text_input};
use intent_bench::replies::{item, items_reply, order, Envelope};
use intent_bench::types::{Item, Wide, WIDE_MEMBERS};
use intent_core::read::read_reply;
use intent_core::{AiRequestOptions, Intent, ResponseFormat};

#[tokio::test]
async fn library_and_hand_written_call_read_the_same_order() {
    let fixture = CallFixture::start().await;
    let by_hand = fixture.by_hand().await;
    let library = fixture.library().await;
    assert_eq!(by_hand, library);
    assert_eq!(library, order(3));
    let size = fixture.reply_bytes();
    assert!((900..=1200).contains(&size), "reply of {size} bytes");
}

#[test]
fn item_replies_reach_their_size_and_read_back_under_both_readers() {
    for bytes in [1 << 10, 100 << 10] {
        let (items, reply) = items_reply(bytes);
        assert!(reply.len() >= bytes && reply.len() < bytes + 400);
        let by_serde: Envelope<Vec<Item>> = serde_json::from_str(&reply).unwrap();
        let by_reader: Vec<Item> = read_reply(&<Vec<Item>>::type_info(), &reply).unwrap();
        assert_eq!(by_serde.value, items);
        assert_eq!(by_reader, items);
    }
}

#[test]
fn wide_type_has_fifty_strict_members_and_its_request_carries_the_input() {
    assert_eq!(WIDE_MEMBERS, 50);
    assert!(Wide::is_strict_compatible());
    let sample = serde_json::to_string(&Envelope {
        value: Wide::sample(),
    })
    .unwrap();
    assert_eq!(
        read_reply::<Wide>(&Wide::type_info(), &sample).unwrap(),
        Wide::sample()
    );
    let text = text_input(100 << 10);
    assert_eq!(text.len(), 100 << 10);
    let request = build_request(text.as_str(), &AiRequestOptions::default());
    assert_eq!(request.format, ResponseFormat::JsonSchema);
    assert!(request.user.contains(&text));
    let items = items_input(100 << 10);
    let request = build_request(&items, &AiRequestOptions::default());
    assert!(request.user.len() > 100 << 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn collection_server_answers_every_element() {
    let server = collection::server(Duration::ZERO);
    let client = collection::client(&server.url());
    let inputs = collection::notes(120);
    let outputs = collection::run(&client, &inputs, 50, 3).await;
    let expected: Vec<Item> = (0..120).map(item).collect();
    assert_eq!(outputs, expected);
}

#[test]
fn median_and_proc_status_read_as_expected() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    assert_eq!(median(&[]), 0.0);
    if cfg!(target_os = "linux") {
        assert!(proc_status_bytes("VmRSS").unwrap() > 0);
        assert!(proc_status_bytes("VmHWM").unwrap() >= proc_status_bytes("VmRSS").unwrap() / 2);
    }
}

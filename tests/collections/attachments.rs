//! Collections whose elements carry attachments, on a scripted model: each chunk's request
//! carries exactly its elements' attachments, in element order, and its prompt names them; the
//! per-request attachment limits cut chunks further; an element over a limit is refused alone,
//! nothing sent for it; the cache key follows one element's bytes; values come back per element.

use futures::StreamExt;
use intent_core::cache::MemoryCache;
use intent_core::prelude::*;
use intent_core::{AiRequest, IssueKind};
use intent_tests::tests_png;
use serde::Serialize;
use serde_json::{json, Value};

/// A page of a scanned file: a title and the scan.
#[derive(Serialize)]
struct Page {
    title: String,
    scan: Attachment,
}

/// A whole PDF whose bytes say `n`, so each element's file differs.
fn pdf(n: usize) -> Attachment {
    Attachment::from_bytes(format!("%PDF-1.7\n% page {n}\n%%EOF\n").into_bytes()).unwrap()
}

fn png() -> Attachment {
    Attachment::from_bytes(tests_png()).unwrap()
}

/// Five pages: a PNG on the even ones, a PDF on the odd ones.
fn pages() -> Vec<Page> {
    (0..5)
        .map(|i: usize| Page {
            title: format!("page {i}"),
            scan: if i.is_multiple_of(2) { png() } else { pdf(i) },
        })
        .collect()
}

/// A reply answering `indexes` with `"doc <i>"`.
fn reply(indexes: &[usize]) -> String {
    let items: Vec<Value> = indexes
        .iter()
        .map(|i| json!({"index": i, "value": format!("doc {i}")}))
        .collect();
    json!({ "value": items }).to_string()
}

/// The bytes of each attachment a request carries, in order.
fn sent_bytes(request: &AiRequest) -> Vec<Vec<u8>> {
    request
        .attachments
        .iter()
        .map(|a| a.bytes().unwrap().to_vec())
        .collect()
}

fn page_bytes(i: usize) -> Vec<u8> {
    if i.is_multiple_of(2) {
        tests_png()
    } else {
        pdf(i).bytes().unwrap().to_vec()
    }
}

#[tokio::test]
async fn each_chunk_carries_its_elements_attachments_in_order_and_names_them() {
    let model = ScriptedProvider::new([reply(&[0, 1]), reply(&[2, 3]), reply(&[4])]);
    let client = IntentClient::new(model.clone());
    let pages = pages();
    let result = client
        .map_each::<String>(&pages, "Name the document on the page.")
        .chunk_size(2)
        .concurrency(1)
        .await;
    assert_eq!(
        result.values(),
        &[0, 1, 2, 3, 4].map(|i| Some(format!("doc {i}")))
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    for (request, chunk) in requests.iter().zip([vec![0, 1], vec![2, 3], vec![4]]) {
        let expected: Vec<Vec<u8>> = chunk.iter().map(|&i| page_bytes(i)).collect();
        assert_eq!(sent_bytes(request), expected, "chunk {chunk:?}");
        for (place, &i) in chunk.iter().enumerate() {
            let attachment = &request.attachments[place];
            let summary = format!(
                "{}, {} bytes",
                attachment.media_type(),
                attachment.size().unwrap()
            );
            // The element's text refers to its attachment by the element ...
            let reference = format!("<attachment 1 of element {i}: {summary}>");
            assert!(request.user.contains(&reference), "{}", request.user);
            // ... and the input section lists the request's attachments in the order sent.
            let listed = format!("\n{}. attachment 1 of element {i}: {summary}", place + 1);
            assert!(request.user.contains(&listed), "{}", request.user);
        }
    }
    // The whole first chunk's message, reviewed.
    intent_tests::golden::check("prompts/map_each_attachments.txt", &requests[0].user);
    // The bytes are the caller's, shared, never copied.
    let first = requests[0].attachments[0].bytes().unwrap();
    assert_eq!(
        first.as_ptr(),
        pages[0].scan.bytes().unwrap().as_ptr(),
        "the request shares the element's bytes"
    );
}

#[tokio::test]
async fn an_element_with_several_attachments_keeps_them_together_in_its_order() {
    #[derive(Serialize)]
    struct Claim {
        form: Attachment,
        receipts: Vec<Attachment>,
    }
    let claims = [
        Claim {
            form: pdf(10),
            receipts: vec![png(), pdf(11)],
        },
        Claim {
            form: pdf(20),
            receipts: vec![],
        },
    ];
    let model = ScriptedProvider::new([reply(&[0, 1])]);
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<String>(&claims, "Summarize the claim.")
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    let request = &model.requests()[0];
    assert_eq!(
        sent_bytes(request),
        vec![
            pdf(10).bytes().unwrap().to_vec(),
            tests_png(),
            pdf(11).bytes().unwrap().to_vec(),
            pdf(20).bytes().unwrap().to_vec(),
        ]
    );
    for line in [
        "\n1. attachment 1 of element 0: application/pdf",
        "\n2. attachment 2 of element 0: image/png",
        "\n3. attachment 3 of element 0: application/pdf",
        "\n4. attachment 1 of element 1: application/pdf",
    ] {
        assert!(request.user.contains(line), "{line} in {}", request.user);
    }
    assert!(request
        .user
        .contains("\"receipts\":[\"<attachment 2 of element 0: image/png"));
}

#[tokio::test]
async fn the_per_request_count_limit_cuts_chunks_further() {
    // 60 images per element: two elements would pass the 100 attachments one request may carry.
    let inputs: Vec<Vec<Attachment>> = (0..5).map(|_| vec![png(); 60]).collect();
    let model = ScriptedProvider::new((0..5).map(|i| reply(&[i])));
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<String>(&inputs, "Count the images.")
        .chunk_size(2)
        .concurrency(1)
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    let requests = model.requests();
    assert_eq!(requests.len(), 5, "one element per chunk");
    assert!(requests.iter().all(|r| r.attachments.len() == 60));
    assert_eq!(
        result
            .chunks()
            .iter()
            .map(|c| c.positions.clone())
            .collect::<Vec<_>>(),
        (0..5).map(|i| vec![i]).collect::<Vec<_>>()
    );
}

/// A whole PDF of `size` bytes.
fn big_pdf(size: usize) -> Attachment {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.resize(size - 6, b' ');
    bytes.extend_from_slice(b"%%EOF\n");
    Attachment::from_bytes(bytes).unwrap()
}

#[tokio::test]
async fn the_per_request_size_limit_cuts_chunks_further() {
    // 10 MB each, 13.3 MB as base64: two fit within the 32 MB a request may carry, three do not.
    let file = big_pdf(10 * 1024 * 1024);
    let inputs: Vec<Attachment> = (0..5).map(|_| file.clone()).collect();
    let model = ScriptedProvider::new([reply(&[0, 1]), reply(&[2, 3]), reply(&[4])]);
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<String>(&inputs, "Name the document.")
        .chunk_size(4)
        .concurrency(1)
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    let sizes: Vec<usize> = model
        .requests()
        .iter()
        .map(|r| r.attachments.len())
        .collect();
    assert_eq!(sizes, vec![2, 2, 1]);
}

#[tokio::test]
async fn an_element_over_a_limit_is_refused_alone_and_the_others_run() {
    // 4 MB of PNG is 5.3 MB as base64, over the 5 MB per image a request may carry.
    let mut big = tests_png();
    let iend = big.split_off(big.len() - 12);
    big.resize(4 * 1024 * 1024, 0);
    big.extend_from_slice(&iend);
    let big = Attachment::new(big, "image/png");
    let inputs = [png(), big, png()];
    let model = ScriptedProvider::new([reply(&[0, 2])]);
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<String>(&inputs, "Describe the image.")
        .await;
    assert_eq!(
        result.values(),
        &[Some("doc 0".to_owned()), None, Some("doc 2".to_owned())]
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].attachments.len(),
        2,
        "nothing sent for element 1"
    );
    assert!(!requests[0].user.contains("element 1"));
    assert_eq!(result.issues().len(), 1);
    let issue = &result.issues()[0];
    assert_eq!(issue.position, 1);
    assert_eq!(issue.issue.kind, IssueKind::Input);
    assert!(
        issue
            .issue
            .message
            .contains("more than the limit of 5242880 bytes per image"),
        "{}",
        issue.issue.message
    );
    assert!(issue.issue.message.contains("nothing was sent for it"));
}

#[tokio::test]
async fn an_element_with_a_bad_attachment_is_refused_alone() {
    let cut = Attachment::new(b"%PDF-1.7\n1 0 obj".to_vec(), "application/pdf");
    let inputs = [cut, pdf(1), pdf(2)];
    let model = ScriptedProvider::new([reply(&[1, 2])]);
    let client = IntentClient::new(model.clone());
    let result = client
        .map_each::<String>(&inputs, "Name the document.")
        .await;
    assert_eq!(result.values()[0], None);
    assert!(result.values()[1].is_some() && result.values()[2].is_some());
    let request = &model.requests()[0];
    assert_eq!(request.attachments.len(), 2);
    // The refused first element does not take the input's label with it.
    assert!(
        request
            .user
            .contains("## Input (List<Element>\n where Element { ulong index; string input })"),
        "{}",
        request.user
    );
    let issue = &result.issues()[0];
    assert_eq!(issue.position, 0);
    let message = &issue.issue.message;
    assert!(
        message.contains("attachment 1 is refused") && message.contains("%%EOF"),
        "{message}"
    );
}

#[tokio::test]
async fn the_cache_key_follows_one_elements_bytes() {
    let model = ScriptedProvider::new([reply(&[0, 1]), reply(&[0, 1])]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .cache(MemoryCache::new(16))
        .build()
        .unwrap();
    let run = |inputs: Vec<Attachment>| {
        let client = &client;
        async move {
            client
                .map_each::<String>(&inputs, "Name the document.")
                .await
        }
    };
    assert!(run(vec![pdf(0), pdf(1)]).await.is_complete());
    let again = run(vec![pdf(0), pdf(1)]).await;
    assert!(
        again.chunks()[0].attempts[0].from_cache,
        "equal bytes hit the cache"
    );
    assert_eq!(model.requests().len(), 1);
    // Same sizes, same text, one byte different in element 1's file: a new request.
    let changed = run(vec![pdf(0), pdf(2)]).await;
    assert!(!changed.chunks()[0].attempts[0].from_cache);
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn map_values_names_each_attachment_by_its_key() {
    let model = ScriptedProvider::new([json!({"value": {"a": "doc a", "b": "doc b"}}).to_string()]);
    let client = IntentClient::new(model.clone());
    let files = indexmap::IndexMap::from([("a", pdf(1)), ("b", png())]);
    let result = client
        .map_values::<String, _, _>(&files, "Name the document.")
        .await;
    assert!(result.is_complete(), "{:?}", result.issues());
    let request = &model.requests()[0];
    assert_eq!(request.attachments.len(), 2);
    assert!(request
        .user
        .contains("\n1. attachment 1 of key \"a\": application/pdf"));
    assert!(request
        .user
        .contains("\n2. attachment 1 of key \"b\": image/png"));
}

#[tokio::test]
async fn map_stream_carries_each_chunks_attachments() {
    let model = ScriptedProvider::new([reply(&[0, 1]), reply(&[0, 1]), reply(&[0])]);
    let client = IntentClient::new(model.clone());
    let inputs = futures::stream::iter(pages());
    let items: Vec<_> = client
        .map_stream::<String, _>(inputs, "Name the document on the page.")
        .chunk_size(2)
        .concurrency(1)
        .collect()
        .await;
    let values: Vec<(usize, String)> = items
        .into_iter()
        .map(|(position, value)| (position, value.unwrap()))
        .collect();
    assert_eq!(
        values,
        vec![
            (0, "doc 0".to_owned()),
            (1, "doc 1".to_owned()),
            (2, "doc 0".to_owned()),
            (3, "doc 1".to_owned()),
            (4, "doc 0".to_owned()),
        ]
    );
    let requests = model.requests();
    let expected = [vec![0, 1], vec![2, 3], vec![4]];
    for (request, chunk) in requests.iter().zip(expected) {
        let bytes: Vec<Vec<u8>> = chunk.iter().map(|&i| page_bytes(i)).collect();
        assert_eq!(sent_bytes(request), bytes);
    }
}

//! Attachments through a call: how the prompt's input section lists them, an attachment as the
//! input itself or as a member of it, the bytes shared by every attempt, the cache key, the
//! cassette, and each bad input refused before anything is sent.

use intent_core::cache::CacheKey;
use intent_core::prelude::*;
use intent_core::testing::RecordingProvider;
use intent_core::AiRequest;
use intent_tests::tests_png;
use serde::Serialize;

const PDF: &[u8] = b"%PDF-1.4\n1 0 obj\n<< >>\nendobj\n%%EOF\n";

fn png() -> Attachment {
    Attachment::from_bytes(tests_png()).unwrap()
}

#[tokio::test]
async fn the_input_section_lists_the_attachments_in_order() {
    let model = ScriptedProvider::new(["Two pages."]);
    let client = IntentClient::new(model.clone());
    let remote = Attachment::url("https://example.com/terms.pdf").unwrap();
    let summary = String::ai(&client, "The scans are attached.", "Summarize the scans.")
        .attach(png().with_filename("page-1.png"))
        .attach(remote)
        .await;
    assert_eq!(summary.value().map(String::as_str), Some("Two pages."));
    let sent = &model.requests()[0];
    assert!(
        sent.user.contains("## Input (string)\nThe scans are attached.\n\nAttachments, sent with this message in this order:\n1. image/png, 70 bytes, \"page-1.png\"\n2. application/pdf at https://example.com/terms.pdf\n\n## Output requirements\n"),
        "{}",
        sent.user
    );
    assert_eq!(sent.attachments.len(), 2);
    assert_eq!(sent.attachments[0].filename(), Some("page-1.png"));
    assert_eq!(
        sent.attachments[1].source_url(),
        Some("https://example.com/terms.pdf")
    );
}

#[tokio::test]
async fn an_attachment_can_be_the_input_itself() {
    let model = ScriptedProvider::new([r#"{"value": 12.5}"#]);
    let client = IntentClient::new(model.clone());
    let receipt = png();
    let total = f64::ai(&client, &receipt, "Read the receipt's total.").await;
    assert_eq!(total.value(), Some(&12.5));
    let sent = &model.requests()[0];
    assert!(
        sent.user.contains("## Input (attachment)\n<attachment 1: image/png, 70 bytes>\n\nAttachments, sent with this message in this order:\n1. image/png, 70 bytes\n\n"),
        "{}",
        sent.user
    );
    assert_eq!(sent.attachments, vec![receipt]);
}

#[derive(Serialize)]
struct Claim {
    claimant: &'static str,
    receipt: Attachment,
    invoice: Attachment,
}

#[tokio::test]
async fn attachments_inside_the_input_come_first_then_those_attached() {
    let model = ScriptedProvider::new(["ok"]);
    let client = IntentClient::new(model.clone());
    let claim = Claim {
        claimant: "Dana",
        receipt: png(),
        invoice: Attachment::new(PDF.to_vec(), "application/pdf"),
    };
    let photo = png().with_filename("photo.png");
    let _ = String::ai(&client, &claim, "Check the claim.")
        .attach(photo)
        .await;
    let sent = &model.requests()[0];
    assert!(
        sent.user.contains(r#"{"claimant":"Dana","receipt":"<attachment 1: image/png, 70 bytes>","invoice":"<attachment 2: application/pdf, 36 bytes>"}"#),
        "{}",
        sent.user
    );
    let types: Vec<&str> = sent
        .attachments
        .iter()
        .map(Attachment::media_type)
        .collect();
    assert_eq!(types, ["image/png", "application/pdf", "image/png"]);
    assert!(sent.user.contains("3. image/png, 70 bytes, \"photo.png\""));
}

#[tokio::test]
async fn every_attempt_shares_the_same_bytes() {
    let model = ScriptedProvider::new(["not a number", r#"{"value": 3}"#]);
    let client = IntentClient::new(model.clone());
    let scan = png();
    let count = u32::ai(&client, "See the scan.", "Count the items.")
        .attach(scan.clone())
        .await;
    assert_eq!(count.value(), Some(&3));
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    let pointer = |request: &AiRequest| request.attachments[0].bytes().unwrap().as_ptr();
    assert_eq!(pointer(&requests[0]), scan.bytes().unwrap().as_ptr());
    assert_eq!(pointer(&requests[1]), scan.bytes().unwrap().as_ptr());
    assert!(requests[1]
        .user
        .contains("Attachments, sent with this message in this order:\n1. image/png"));
}

#[test]
fn the_cache_key_changes_with_the_bytes_and_the_url_but_not_with_a_copy() {
    let key = |attachments: Vec<Attachment>| {
        let mut request = AiRequest::new("s", "u");
        request.attachments = attachments;
        CacheKey::for_request("openai", "gpt-4o-mini", &request)
    };
    let plain = key(Vec::new());
    assert_eq!(
        plain,
        CacheKey::for_request("openai", "gpt-4o-mini", &AiRequest::new("s", "u"))
    );
    let one = key(vec![png()]);
    assert_ne!(one, plain);
    assert_eq!(
        one,
        key(vec![Attachment::from_bytes(tests_png()).unwrap()]),
        "equal bytes, equal key"
    );
    let mut other = tests_png();
    other[20] ^= 1;
    assert_ne!(one, key(vec![Attachment::new(other, "image/png")]));
    assert_ne!(
        one,
        key(vec![png().with_detail(intent_core::ImageDetail::Low)])
    );
    assert_ne!(key(vec![png(), png()]), one);
    let a = key(vec![Attachment::url("https://example.com/a.png").unwrap()]);
    assert_ne!(
        a,
        key(vec![Attachment::url("https://example.com/b.png").unwrap()])
    );
}

#[tokio::test]
async fn a_cached_reply_is_not_served_for_other_bytes() {
    let model = ScriptedProvider::new(["first", "second"]);
    let client = IntentClient::builder()
        .provider(model.clone())
        .cache(intent_core::cache::MemoryCache::new(16))
        .build()
        .unwrap();
    let ask = |attachment: Attachment| {
        String::ai(&client, "See the image.", "Describe the image.").attach(attachment)
    };
    assert_eq!(ask(png()).await.value().map(String::as_str), Some("first"));
    assert_eq!(
        ask(png()).await.value().map(String::as_str),
        Some("first"),
        "the same bytes hit the cache"
    );
    let mut other = tests_png();
    other[20] ^= 1;
    let other = Attachment::new(other, "image/png");
    assert_eq!(ask(other).await.value().map(String::as_str), Some("second"));
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_cassette_records_what_was_attached_but_never_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cassette.jsonl");
    let recorder = RecordingProvider::new(ScriptedProvider::new(["ok"]), &path).unwrap();
    let client = IntentClient::new(recorder);
    let signed = Attachment::url("https://example.com/terms.pdf?X-Amz-Signature=s3cr3t").unwrap();
    let _ = String::ai(&client, "See.", "Describe.")
        .attach(Attachment::new(PDF.to_vec(), "application/pdf").with_filename("a.pdf"))
        .attach(signed)
        .await;
    let text = std::fs::read_to_string(&path).unwrap();
    let line: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let recorded = &line["request"]["attachments"];
    assert_eq!(recorded[0]["media_type"], "application/pdf");
    assert_eq!(recorded[0]["size"], 36);
    assert_eq!(recorded[0]["filename"], "a.pdf");
    assert_eq!(recorded[0]["sha256"].as_str().map(str::len), Some(64));
    assert_eq!(recorded[1]["url"], "https://example.com/terms.pdf");
    assert!(!text.contains("s3cr3t"), "a URL's query is not written");
    assert!(
        !text.contains("JVBERi0xLjQ"),
        "the bytes (as base64) are not written"
    );
    assert!(!text.contains("%PDF-1.4"), "the bytes are not written");
}

#[tokio::test]
async fn a_request_debug_shows_media_type_and_size_never_the_bytes() {
    let mut request = AiRequest::new("s", "u");
    request.attachments = vec![png().with_filename("r.png")];
    let debug = format!("{request:?}");
    assert!(
        debug.contains(r#"Attachment { media_type: "image/png", size: 70, filename: "r.png" }"#),
        "{debug}"
    );
    assert!(!debug.contains("137, 80"), "{debug}");
}

// ---- Bad input: refused before anything is sent ------------------------------------------------

#[test]
fn from_bytes_refuses_empty_unknown_and_cut_short_files() {
    let message = |bytes: Vec<u8>| Attachment::from_bytes(bytes).unwrap_err().to_string();
    assert!(message(Vec::new()).contains("empty (0 bytes)"));
    assert!(message(b"just text".to_vec())
        .contains("none of the known signatures (PNG, JPEG, GIF, WebP, PDF)"));
    let mut cut = tests_png();
    cut.truncate(40);
    let cut = message(cut);
    assert!(
        cut.contains("cut short or damaged: a PNG file ends with its IEND chunk"),
        "{cut}"
    );
    assert!(cut.contains("image/png, 40 bytes"), "{cut}");
    assert!(message(b"%PDF-1.7\n1 0 obj".to_vec()).contains("a PDF file ends with %%EOF"));
    assert!(message(vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0]).contains("EOI marker"));
    assert!(message(b"%PDF".to_vec()).contains("none of the known signatures"));
    assert!(message(b"x".to_vec()).ends_with("nothing was sent"));
}

#[tokio::test]
async fn each_bad_attachment_fails_the_call_before_sending() {
    let cases: Vec<(Attachment, &str)> = vec![
        (Attachment::new(Vec::new(), "image/png"), "is empty"),
        (
            Attachment::new(b"hello".to_vec(), "image/jpeg"),
            "labelled image/jpeg but its bytes do not start with that format's signature",
        ),
        (
            Attachment::new(tests_png()[..30].to_vec(), "image/png"),
            "cut short",
        ),
        (
            Attachment::new(tests_png(), "application/pdf"),
            "labelled application/pdf but its bytes are image/png",
        ),
    ];
    for (attachment, expected) in cases {
        let model = ScriptedProvider::new(["never"]);
        let client = IntentClient::new(model.clone());
        let result = String::ai(&client, "x", "Read it.")
            .attach(attachment)
            .await;
        assert!(!result.is_success());
        assert!(
            model.requests().is_empty(),
            "nothing is sent for {expected}"
        );
        let issue = &result.issues()[0];
        assert_eq!(issue.kind, IssueKind::Input);
        assert!(
            issue.message.contains(expected),
            "{expected}: {}",
            issue.message
        );
    }
}

#[test]
fn from_path_refuses_a_missing_path_a_directory_and_a_200_mb_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.png");
    let message = Attachment::from_path(&missing).unwrap_err().to_string();
    assert!(message.contains("missing.png cannot be read"), "{message}");

    let message = Attachment::from_path(dir.path()).unwrap_err().to_string();
    assert!(message.contains("is a directory"), "{message}");

    // A sparse file: 200 MB long, not written, and refused before it is read.
    let huge = dir.path().join("huge.pdf");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(200 * 1024 * 1024)
        .unwrap();
    let message = Attachment::from_path(&huge).unwrap_err().to_string();
    assert!(message.contains("has 209715200 bytes, more than the 104857600 bytes an attachment may have (Attachment::MAX_BYTES)"), "{message}");

    let empty = dir.path().join("empty.png");
    std::fs::write(&empty, b"").unwrap();
    let message = Attachment::from_path(&empty).unwrap_err().to_string();
    assert!(
        message.contains("empty.png") && message.contains("empty (0 bytes)"),
        "{message}"
    );

    let cut = dir.path().join("cut.png");
    std::fs::write(&cut, &tests_png()[..50]).unwrap();
    let message = Attachment::from_path(&cut).unwrap_err().to_string();
    assert!(
        message.contains("cut.png") && message.contains("cut short"),
        "{message}"
    );

    let whole = dir.path().join("receipt.png");
    std::fs::write(&whole, tests_png()).unwrap();
    let attachment = Attachment::from_path(&whole).unwrap();
    assert_eq!(
        (attachment.media_type(), attachment.filename()),
        ("image/png", Some("receipt.png"))
    );
}

#[test]
fn url_refuses_what_is_not_http_or_https() {
    for url in [
        "file:///etc/passwd",
        "ftp://example.com/a.png",
        "example.com/a.png",
        "https://",
        "javascript:alert(1)",
        "data:image/png;base64,AAAA",
        "https://example.com/a b.png",
    ] {
        let error = Attachment::url(url).unwrap_err().to_string();
        assert!(
            error.contains("not an http:// or https:// URL") || error.contains("whitespace"),
            "{url}: {error}"
        );
        assert!(
            Attachment::url_with_type(url, "image/png").is_err(),
            "{url}"
        );
    }
    assert!(Attachment::url("https://example.com/a.png").is_ok());
    assert!(Attachment::url("HTTP://example.com/a.JPG").is_ok());
}

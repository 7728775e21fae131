//! Attachments on the wire, against servers on 127.0.0.1: the exact content parts each provider
//! API is sent (an image from bytes, an image from a URL, a PDF, several in order, with and
//! without a strict schema), each provider's refusals of kinds and sources it cannot take and of
//! its limits (nothing reaches the server), and a fallback that carries the attachments.

use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use intent_core::prelude::*;
use intent_core::provider::{OpenAiApi, Provider, ProviderErrorKind};
use intent_core::ImageDetail;
use intent_core::{AiRequest, ResponseFormat};
use intent_tests::tests_png;
use serde_json::{json, Value};
use wiremock::MockServer;

use intent_tests::wire::{answering, body_of, failing_then, quick_retries, sent};

const PDF: &[u8] = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n";

fn png() -> Attachment {
    Attachment::from_bytes(tests_png()).unwrap()
}

fn png_b64() -> String {
    STANDARD.encode(tests_png())
}

fn pdf() -> Attachment {
    Attachment::from_bytes(PDF.to_vec())
        .unwrap()
        .with_filename("invoice.pdf")
}

fn request_with(attachments: Vec<Attachment>) -> AiRequest {
    let mut request = AiRequest::new("You are terse.", "Read the receipt.");
    request.attachments = attachments;
    request
}

fn strict_request_with(attachments: Vec<Attachment>) -> AiRequest {
    let schema = json!({"type": "object", "properties": {"value": {"type": "number"}}, "required": ["value"], "additionalProperties": false});
    let mut request =
        request_with(attachments).with_format(ResponseFormat::JsonSchema, Some(schema));
    request.max_output_tokens = Some(64);
    request
}

/// An attachment of `size` bytes that claims `media_type`: the providers check sizes and kinds,
/// not content (the call checks content before anything reaches a provider).
fn sized(size: usize, media_type: &str) -> Attachment {
    Attachment::new(vec![0u8; size], media_type)
}

fn chat_reply(text: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 3, "total_tokens": 303}
    })
}

fn responses_reply(text: &str) -> Value {
    json!({
        "id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5-mini",
        "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": 300, "output_tokens": 3, "total_tokens": 303}
    })
}

fn anthropic_reply(text: &str) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 300, "output_tokens": 3}
    })
}

fn gemini_reply(text: &str) -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 300, "candidatesTokenCount": 3, "totalTokenCount": 303},
        "modelVersion": "gemini-2.5-flash-001"
    })
}

fn chat(server: &MockServer) -> OpenAiProvider {
    OpenAiProvider::new("sk-test")
        .with_base_url(format!("{}/v1", server.uri()))
        .with_retry_policy(quick_retries(1))
        .with_timeout(Duration::from_secs(5))
}

fn responses(server: &MockServer) -> OpenAiProvider {
    chat(server).with_api(OpenAiApi::Responses)
}

fn anthropic(server: &MockServer) -> AnthropicProvider {
    AnthropicProvider::new("sk-ant-test")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(1))
        .with_timeout(Duration::from_secs(5))
}

fn gemini(server: &MockServer) -> GeminiProvider {
    GeminiProvider::new("AIza-test")
        .with_base_url(server.uri())
        .with_retry_policy(quick_retries(1))
        .with_timeout(Duration::from_secs(5))
}

/// The body `provider` sends for `request`.
async fn body_sent(provider: &dyn Provider, server: &MockServer, request: &AiRequest) -> Value {
    provider
        .complete(request)
        .await
        .expect("the request is sent");
    let requests = sent(server).await;
    assert_eq!(requests.len(), 1);
    body_of(&requests[0])
}

/// The refusal of `request` by `provider`, checking that nothing reached the server.
async fn refusal(provider: &dyn Provider, server: &MockServer, request: &AiRequest) -> String {
    let error = provider
        .complete(request)
        .await
        .expect_err("the request is refused");
    assert_eq!(error.kind, ProviderErrorKind::InvalidRequest);
    assert!(!error.kind.is_retryable());
    assert!(sent(server).await.is_empty(), "nothing is sent: {error}");
    let message = error.to_string();
    assert!(message.contains("nothing was sent"), "{message}");
    message
}

// ---- OpenAI Chat Completions -----------------------------------------------------------------

#[tokio::test]
async fn chat_sends_the_text_then_an_image_as_a_data_url() {
    let server = answering(chat_reply("12.5")).await;
    let body = body_sent(&chat(&server), &server, &request_with(vec![png()])).await;
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are terse."})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": [
            {"type": "text", "text": "Read the receipt."},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", png_b64())}}
        ]})
    );
}

#[tokio::test]
async fn chat_sends_several_attachments_in_order_with_a_strict_schema() {
    let server = answering(chat_reply(r#"{"value": 12.5}"#)).await;
    let remote = Attachment::url("https://example.com/r/receipt.jpg?sig=abc")
        .unwrap()
        .with_detail(ImageDetail::High);
    let request = strict_request_with(vec![png().with_detail(ImageDetail::Low), remote, pdf()]);
    let body = body_sent(&chat(&server), &server, &request).await;
    assert_eq!(
        body["messages"][1]["content"],
        json!([
            {"type": "text", "text": "Read the receipt."},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", png_b64()), "detail": "low"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/r/receipt.jpg?sig=abc", "detail": "high"}},
            {"type": "file", "file": {"filename": "invoice.pdf", "file_data": format!("data:application/pdf;base64,{}", STANDARD.encode(PDF))}}
        ])
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["strict"], true);
}

#[tokio::test]
async fn chat_without_attachments_still_sends_the_message_as_text() {
    let server = answering(chat_reply("hi")).await;
    let body = body_sent(&chat(&server), &server, &request_with(Vec::new())).await;
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Read the receipt."})
    );
}

#[tokio::test]
async fn chat_names_an_unnamed_pdf() {
    let server = answering(chat_reply("ok")).await;
    let unnamed = Attachment::from_bytes(PDF.to_vec()).unwrap();
    let body = body_sent(&chat(&server), &server, &request_with(vec![png(), unnamed])).await;
    assert_eq!(
        body["messages"][1]["content"][2]["file"]["filename"],
        "attachment-2.pdf"
    );
}

#[tokio::test]
async fn chat_refuses_a_pdf_by_url_before_sending() {
    let server = answering(chat_reply("ok")).await;
    let remote = Attachment::url("https://example.com/terms.pdf").unwrap();
    let message = refusal(&chat(&server), &server, &request_with(vec![png(), remote])).await;
    assert!(message.contains("OpenAI Chat Completions cannot fetch attachment 2 (application/pdf at https://example.com/terms.pdf)"), "{message}");
    assert!(
        message.contains("openai"),
        "the provider is named: {message}"
    );
}

#[tokio::test]
async fn chat_refuses_an_image_over_20_mb_and_a_kind_it_cannot_take() {
    let server = answering(chat_reply("ok")).await;
    let big = sized(20 * 1024 * 1024 + 1, "image/png");
    let message = refusal(&chat(&server), &server, &request_with(vec![big])).await;
    assert!(
        message.contains("attachment 1 (image/png, 20971521 bytes)"),
        "{message}"
    );
    assert!(
        message.contains("limit of 20971520 bytes per image"),
        "{message}"
    );

    let heic = sized(10, "image/heic");
    let message = refusal(&chat(&server), &server, &request_with(vec![heic])).await;
    assert!(
        message.contains("cannot take attachment 1 (image/heic, 10 bytes)"),
        "{message}"
    );
    let text = sized(10, "text/plain");
    let message = refusal(&chat(&server), &server, &request_with(vec![text])).await;
    assert!(message.contains("text/plain"), "{message}");
}

#[tokio::test]
async fn chat_refuses_more_than_500_attachments_and_more_than_50_mb_in_all() {
    let server = answering(chat_reply("ok")).await;
    let many = vec![png(); 501];
    let message = refusal(&chat(&server), &server, &request_with(many)).await;
    assert!(message.contains("at most 500 attachments"), "{message}");
    assert!(message.contains("has 501"), "{message}");

    let three = vec![sized(18 * 1024 * 1024, "image/png"); 3];
    let message = refusal(&chat(&server), &server, &request_with(three)).await;
    assert!(
        message.contains("limit of 52428800 bytes per request"),
        "{message}"
    );
}

// ---- OpenAI Responses ------------------------------------------------------------------------

#[tokio::test]
async fn responses_sends_input_text_then_input_image_and_input_file() {
    let server = answering(responses_reply("ok")).await;
    let remote_pdf = Attachment::url("https://example.com/terms.pdf").unwrap();
    let request = strict_request_with(vec![png(), pdf(), remote_pdf]);
    let body = body_sent(&responses(&server), &server, &request).await;
    assert_eq!(
        body["input"][0],
        json!({"role": "user", "content": [
            {"type": "input_text", "text": "Read the receipt."},
            {"type": "input_image", "image_url": format!("data:image/png;base64,{}", png_b64()), "detail": "auto"},
            {"type": "input_file", "filename": "invoice.pdf", "file_data": format!("data:application/pdf;base64,{}", STANDARD.encode(PDF))},
            {"type": "input_file", "file_url": "https://example.com/terms.pdf"}
        ]})
    );
    assert_eq!(body["text"]["format"]["type"], "json_schema");
}

#[tokio::test]
async fn responses_refuses_an_image_over_its_limit() {
    let server = answering(responses_reply("ok")).await;
    let big = sized(20 * 1024 * 1024 + 1, "image/jpeg");
    let message = refusal(&responses(&server), &server, &request_with(vec![big])).await;
    assert!(message.contains("OpenAI Responses"), "{message}");
    assert!(message.contains("per image"), "{message}");
}

// ---- Anthropic -------------------------------------------------------------------------------

#[tokio::test]
async fn anthropic_sends_image_and_document_blocks_before_the_text() {
    let server = answering(anthropic_reply(r#"{"value": 12.5}"#)).await;
    let remote = Attachment::url("https://example.com/receipt.webp").unwrap();
    let request = strict_request_with(vec![png(), remote, pdf()]);
    let body = body_sent(&anthropic(&server), &server, &request).await;
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_b64()}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/receipt.webp"}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": STANDARD.encode(PDF)}, "title": "invoice.pdf"},
            {"type": "text", "text": "Read the receipt."}
        ]}])
    );
    assert_eq!(body["output_config"]["format"]["type"], "json_schema");
}

#[tokio::test]
async fn anthropic_sends_a_pdf_by_url_as_a_document_and_text_alone_as_a_string() {
    let server = answering(anthropic_reply("ok")).await;
    let remote = Attachment::url("https://example.com/terms.pdf").unwrap();
    let body = body_sent(&anthropic(&server), &server, &request_with(vec![remote])).await;
    assert_eq!(
        body["messages"][0]["content"][0],
        json!({"type": "document", "source": {"type": "url", "url": "https://example.com/terms.pdf"}})
    );

    let server = answering(anthropic_reply("ok")).await;
    let body = body_sent(&anthropic(&server), &server, &request_with(Vec::new())).await;
    assert_eq!(body["messages"][0]["content"], "Read the receipt.");
}

#[tokio::test]
async fn anthropic_measures_its_5_mb_image_limit_on_the_base64_data() {
    let server = answering(anthropic_reply("ok")).await;
    // 4 MB of bytes are 5.33 MB of base64: over the limit, though the file is under it.
    let image = sized(4 * 1024 * 1024, "image/jpeg");
    let message = refusal(&anthropic(&server), &server, &request_with(vec![image])).await;
    assert!(
        message.contains("attachment 1 (image/jpeg, 4194304 bytes)"),
        "{message}"
    );
    assert!(message.contains("5592408 bytes as base64"), "{message}");
    assert!(
        message.contains("Anthropic Messages's limit of 5242880 bytes per image"),
        "{message}"
    );
    assert!(message.contains("anthropic"), "{message}");
}

#[tokio::test]
async fn anthropic_refuses_over_32_mb_per_request_over_100_images_and_a_heic() {
    let server = answering(anthropic_reply("ok")).await;
    let pdfs = vec![sized(13 * 1024 * 1024, "application/pdf"); 2];
    let message = refusal(&anthropic(&server), &server, &request_with(pdfs)).await;
    assert!(
        message.contains("limit of 33554432 bytes per request"),
        "{message}"
    );

    let message = refusal(
        &anthropic(&server),
        &server,
        &request_with(vec![png(); 101]),
    )
    .await;
    assert!(message.contains("at most 100 attachments"), "{message}");

    let heic = sized(10, "image/heic");
    let message = refusal(&anthropic(&server), &server, &request_with(vec![heic])).await;
    assert!(
        message.contains("cannot take attachment 1 (image/heic"),
        "{message}"
    );
}

// ---- Gemini ----------------------------------------------------------------------------------

#[tokio::test]
async fn gemini_sends_inline_data_parts_before_the_text() {
    let server = answering(gemini_reply(r#"{"value": 12.5}"#)).await;
    let uploaded = Attachment::url_with_type(
        "https://generativelanguage.googleapis.com/v1beta/files/abc-123",
        "application/pdf",
    )
    .unwrap();
    let request = strict_request_with(vec![png(), pdf(), uploaded]);
    let body = body_sent(&gemini(&server), &server, &request).await;
    assert_eq!(
        body["contents"],
        json!([{"role": "user", "parts": [
            {"inlineData": {"mimeType": "image/png", "data": png_b64()}},
            {"inlineData": {"mimeType": "application/pdf", "data": STANDARD.encode(PDF)}},
            {"fileData": {"mimeType": "application/pdf", "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc-123"}},
            {"text": "Read the receipt."}
        ]}])
    );
    assert_eq!(
        body["systemInstruction"],
        json!({"parts": [{"text": "You are terse."}]})
    );
    assert_eq!(
        body["generationConfig"]["responseMimeType"],
        "application/json"
    );
}

#[tokio::test]
async fn gemini_refuses_an_outside_url_and_a_gif() {
    let server = answering(gemini_reply("ok")).await;
    let remote = Attachment::url("https://example.com/receipt.png").unwrap();
    let message = refusal(&gemini(&server), &server, &request_with(vec![remote])).await;
    assert!(message.contains("Gemini generateContent cannot fetch attachment 1 (image/png at https://example.com/receipt.png)"), "{message}");
    assert!(message.contains("Files API"), "{message}");

    let gif = Attachment::from_bytes(b"GIF89a\x01\0\x01\0\0\0\0;".to_vec()).unwrap();
    let message = refusal(&gemini(&server), &server, &request_with(vec![gif])).await;
    assert!(
        message.contains("cannot take attachment 1 (image/gif, 14 bytes)"),
        "{message}"
    );
    assert!(message.contains("gemini"), "{message}");
}

#[tokio::test]
async fn gemini_refuses_a_pdf_over_50_mb_of_base64() {
    let server = answering(gemini_reply("ok")).await;
    let big = sized(38 * 1024 * 1024, "application/pdf");
    let message = refusal(&gemini(&server), &server, &request_with(vec![big])).await;
    assert!(
        message.contains("limit of 52428800 bytes per PDF"),
        "{message}"
    );
}

// ---- Through a client ------------------------------------------------------------------------

#[tokio::test]
async fn a_fallback_gets_the_same_attachments_when_the_primary_fails() {
    let primary = failing_then(
        vec![wiremock::ResponseTemplate::new(503); 4],
        chat_reply("never"),
    )
    .await;
    let fallback = answering(anthropic_reply(r#"{"value": 12.5}"#)).await;
    let client = IntentClient::builder()
        .provider(chat(&primary))
        .fallback(anthropic(&fallback))
        .build()
        .unwrap();
    let total = f64::ai(
        &client,
        "The receipt is attached.",
        "Read the receipt's total.",
    )
    .attach(png())
    .attach(pdf())
    .await;
    assert_eq!(total.value(), Some(&12.5), "{:?}", total.issues());
    assert_eq!(total.attempts()[0].provider, "anthropic");

    let first = body_of(&sent(&primary).await[0]);
    let content = &first["messages"][1]["content"];
    assert_eq!(
        content[1]["image_url"]["url"],
        format!("data:image/png;base64,{}", png_b64())
    );
    assert_eq!(content[2]["file"]["filename"], "invoice.pdf");
    let user = content[0]["text"].as_str().unwrap();
    assert!(
        user.contains("Attachments, sent with this message in this order:\n1. image/png, 70 bytes\n2. application/pdf, 59 bytes, \"invoice.pdf\"\n\n## Output requirements"),
        "{user}"
    );

    let second = body_of(&sent(&fallback).await[0]);
    let blocks = &second["messages"][0]["content"];
    assert_eq!(blocks[0]["source"]["data"], png_b64());
    assert_eq!(blocks[1]["type"], "document");
    assert_eq!(
        blocks[2]["text"].as_str(),
        Some(user),
        "the same message follows"
    );
}

#[tokio::test]
async fn a_provider_that_refuses_an_attachment_falls_back_to_one_that_takes_it() {
    let gemini_server = answering(gemini_reply("never")).await;
    let anthropic_server = answering(anthropic_reply("a red pixel")).await;
    let client = IntentClient::builder()
        .provider(gemini(&gemini_server))
        .fallback(anthropic(&anthropic_server))
        .build()
        .unwrap();
    let gif = Attachment::from_bytes(b"GIF89a\x01\0\x01\0\0\0\0;".to_vec()).unwrap();
    let text = String::ai(&client, "See the image.", "Describe the image.")
        .attach(gif)
        .await;
    assert_eq!(text.value().map(String::as_str), Some("a red pixel"));
    assert!(
        sent(&gemini_server).await.is_empty(),
        "Gemini was sent nothing"
    );
    assert_eq!(sent(&anthropic_server).await.len(), 1);
}

#[tokio::test]
async fn a_refusal_by_every_provider_fails_the_call_naming_the_rule() {
    let server = answering(chat_reply("never")).await;
    let client = IntentClient::new(chat(&server));
    let remote = Attachment::url("https://example.com/terms.pdf").unwrap();
    let result = String::ai(&client, "See the terms.", "Summarize the terms.")
        .attach(remote)
        .await;
    assert!(!result.is_success());
    let issues: Vec<String> = result.issues().iter().map(|i| i.message.clone()).collect();
    assert!(
        issues.iter().any(|m| m.contains(
            "cannot fetch attachment 1 (application/pdf at https://example.com/terms.pdf)"
        )),
        "{issues:?}"
    );
    assert!(sent(&server).await.is_empty());
}

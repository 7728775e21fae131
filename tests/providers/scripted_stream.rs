//! Streaming without a server: the scripted provider's pieces, and the default `Provider::stream`
//! that every provider gets from `complete`.

use std::time::{Duration, Instant};

use futures::StreamExt;
use intent_core::provider::{
    AiResponse, BoxFuture, FinishReason, Provider, ProviderError, ProviderErrorKind,
    ReplyAssembler, ScriptedProvider, ScriptedReply, StreamEnd, StreamPiece,
};
use intent_core::{AiRequest, Usage};

fn request() -> AiRequest {
    AiRequest::new("system", "user")
}

async fn pieces(provider: &dyn Provider) -> Vec<Result<StreamPiece, ProviderError>> {
    let request = request();
    provider.stream(&request).collect().await
}

fn texts(pieces: &[Result<StreamPiece, ProviderError>]) -> Vec<&str> {
    pieces
        .iter()
        .filter_map(|p| p.as_ref().ok().and_then(StreamPiece::as_text))
        .collect()
}

#[tokio::test]
async fn scripted_replies_stream_in_pieces_of_16_characters_never_splitting_one() {
    let text = "{\"value\": \"Grüße aus Köln — 日本 🙂 and more\"}";
    let model = ScriptedProvider::new([text]);
    let pieces = pieces(&model).await;
    let texts = texts(&pieces);
    assert!(texts[..texts.len() - 1]
        .iter()
        .all(|t| t.chars().count() == 16));
    assert!(texts.last().unwrap().chars().count() <= 16);
    assert_eq!(texts.concat(), text);
    assert_eq!(
        pieces.last().unwrap().as_ref().unwrap(),
        &StreamPiece::End(StreamEnd::new(
            FinishReason::Stop,
            Usage {
                calls: 1,
                ..Usage::default()
            },
            ScriptedProvider::MODEL
        ))
    );
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn the_piece_size_is_set_and_the_reply_rebuilds_exactly() {
    let mut truncated = AiResponse::new("日本語のテキスト", "m");
    truncated.finish_reason = FinishReason::Length;
    truncated.usage.output_tokens = 9;
    let replies = [
        ScriptedReply::from(truncated.clone()),
        ScriptedReply::refusal("No."),
    ];
    for chunk in [0, 1, 3, 100] {
        let model = ScriptedProvider::new(replies.clone()).with_stream_chunk_chars(chunk);
        let request = request();
        let first = pieces(&model).await;
        assert!(texts(&first)
            .iter()
            .all(|t| t.chars().count() <= chunk.max(1)));
        let mut rebuilt = ReplyAssembler::new();
        first.into_iter().for_each(|p| rebuilt.push(p.unwrap()));
        assert_eq!(rebuilt.finish().unwrap(), truncated, "chunk {chunk}");
        let refusal = ReplyAssembler::collect(model.stream(&request))
            .await
            .unwrap();
        assert_eq!(refusal.finish_reason, FinishReason::Refusal);
        assert_eq!(refusal.refusal.as_deref(), Some("No."));
    }
}

#[tokio::test]
async fn scripted_errors_delays_broken_streams_and_an_empty_script() {
    let model = ScriptedProvider::new([
        ScriptedReply::from(ProviderError::http(503, "busy")),
        ScriptedReply::from("late").after(Duration::from_millis(100)),
        ScriptedReply::broken_stream("{\"value\": [1, 2, 3, 4, 5, 6, 7, 8"),
    ])
    .with_name("script");
    let first = pieces(&model).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].as_ref().unwrap_err().status, Some(503));

    let started = Instant::now();
    let late = pieces(&model).await;
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert_eq!(texts(&late), ["late"]);

    let broken = pieces(&model).await;
    assert_eq!(
        texts(&broken).concat(),
        "{\"value\": [1, 2, 3, 4, 5, 6, 7, 8"
    );
    let error = broken.last().unwrap().as_ref().unwrap_err();
    assert_eq!(error.kind, ProviderErrorKind::StreamBroken);
    assert_eq!(error.provider, "script");
    assert_eq!(
        error.message,
        "the scripted stream broke after 33 characters"
    );

    let exhausted = pieces(&model).await;
    assert_eq!(
        exhausted[0].as_ref().unwrap_err().kind,
        ProviderErrorKind::ScriptExhausted
    );
    assert_eq!(model.requests().len(), 4);
}

/// A provider with only `complete`.
struct Echo;

impl Provider for Echo {
    fn name(&self) -> &str {
        "echo"
    }

    fn complete<'a>(
        &'a self,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            if request.user.is_empty() {
                return Err(ProviderError::http(400, "empty"));
            }
            let mut reply = AiResponse::new(request.user.as_str(), "echo-1");
            reply.refusal = Some(String::new());
            Ok(reply)
        })
    }
}

#[tokio::test]
async fn every_provider_streams_by_default_and_the_reply_is_the_same() {
    let request = request();
    let streamed = ReplyAssembler::collect(Echo.stream(&request))
        .await
        .unwrap();
    assert_eq!(streamed, Echo.complete(&request).await.unwrap());
    let pieces = pieces(&Echo).await;
    assert_eq!(pieces.len(), 3, "{pieces:?}");
    assert_eq!(texts(&pieces), ["user"]);

    let empty = AiRequest::new("system", "");
    let error = ReplyAssembler::collect(Echo.stream(&empty))
        .await
        .unwrap_err();
    assert_eq!(error.status, Some(400));
    // Through an `Arc`, as a client holds it.
    let shared: std::sync::Arc<dyn Provider> = std::sync::Arc::new(Echo);
    assert_eq!(
        ReplyAssembler::collect(shared.stream(&request))
            .await
            .unwrap()
            .text,
        "user"
    );
}

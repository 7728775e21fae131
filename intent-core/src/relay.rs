//! Relaying a call's reply as it arrives: the seam between the attempt loop, which runs a
//! streamed call exactly as an awaited one, and the stream that shows it.
//!
//! A call run with a [`Relay`] asks each provider through [`Streamed`], which reads the
//! provider's [`PieceStream`](crate::provider::PieceStream), hands each text piece to the relay
//! and rebuilds the same [`AiResponse`] that `complete` gives; the loop tells the relay when a
//! provider is asked anew (a fallback, or the next attempt) and when an attempt failed.

use futures::StreamExt as _;

use crate::provider::{
    AiResponse, BoxFuture, Provider, ProviderError, ReplyAssembler, StreamPiece,
};
use crate::request::AiRequest;
use crate::result::AttemptRecord;
use crate::send::Ask;

/// What a streamed call tells whoever shows it.
pub(crate) trait Relay: Send + Sync {
    /// A provider is asked, or a cached reply replayed: what came before is not this reply.
    fn restart(&self);
    /// The next piece of the reply's text.
    fn text(&self, piece: &str);
    /// An attempt failed with `record`; the next one starts.
    fn retry(&self, record: &AttemptRecord);
}

/// Asks a provider for its reply streamed, relaying its text as it comes.
pub(crate) struct Streamed<'r>(pub(crate) &'r dyn Relay);

impl Ask for Streamed<'_> {
    fn ask<'a>(
        &'a self,
        provider: &'a dyn Provider,
        request: &'a AiRequest,
    ) -> BoxFuture<'a, Result<AiResponse, ProviderError>> {
        Box::pin(async move {
            self.0.restart();
            let mut pieces = provider.stream(request);
            let mut reply = ReplyAssembler::new();
            while let Some(piece) = pieces.next().await {
                let piece = piece?;
                if let StreamPiece::Text(text) = &piece {
                    self.0.text(text);
                }
                reply.push(piece);
            }
            reply.finish()
        })
    }
}

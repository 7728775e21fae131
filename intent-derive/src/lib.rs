//! `#[derive(Intent)]`.
use proc_macro::TokenStream;

/// Derives `intent_core::Intent`.
#[proc_macro_derive(Intent, attributes(intent))]
pub fn derive_intent(_input: TokenStream) -> TokenStream {
    TokenStream::new()
}

//! `#[derive(Intent)]`: see the macro's documentation, re-exported as `intent_core::Intent`.

mod ast;
mod case;
mod check;
mod expand;
mod serde_attr;
mod types;

use proc_macro::TokenStream;

/// Derives `intent_core::Intent`. DOCS_PLACEHOLDER
#[proc_macro_derive(Intent, attributes(intent))]
pub fn derive_intent(input: TokenStream) -> TokenStream {
    expand::derive(syn::parse_macro_input!(input as syn::DeriveInput)).into()
}

//! Tests of the expansion's output as tokens.

use proc_macro2::{TokenStream, TokenTree};
use syn::parse_quote;

fn mentions(tokens: TokenStream, word: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == word,
        TokenTree::Group(g) => mentions(g.stream(), word),
        _ => false,
    })
}

/// With `#[intent(crate = ...)]`, no generated path names `intent_core`: a crate that only
/// depends on a re-export of it derives all the same, whatever the type uses.
#[test]
fn every_generated_path_goes_through_the_crate_attribute() {
    let inputs: Vec<syn::DeriveInput> = vec![
        parse_quote! {
            /// An order.
            #[intent(crate = "my_reexport::core_api", strict)]
            #[serde(rename_all = "camelCase")]
            struct Order<T> {
                #[intent(minimum = 1, maximum = 10)]
                quantity: u32,
                #[intent(pattern = "^[A-Z]$", max_length = 3)]
                sku: String,
                items: Vec<T>,
                #[serde(deserialize_with = "x")]
                #[intent(as = "String")]
                code: String,
            }
        },
        parse_quote! {
            #[intent(crate = "my_reexport::core_api")]
            #[serde(tag = "kind")]
            enum Event { Open { at: String }, #[serde(other)] Other }
        },
        // With errors: the stub impl and the free checks use the crate path too.
        parse_quote! {
            #[intent(crate = "my_reexport::core_api")]
            struct Broken(#[intent(min_length = 1)] String, u8);
        },
        parse_quote! {
            #[intent(crate = "my_reexport::core_api", unknown_key)]
            struct Unread { a: u8 }
        },
    ];
    for input in inputs {
        let name = input.ident.to_string();
        let out = crate::expand::derive(input);
        assert!(mentions(out.clone(), "core_api"), "{name}: {out}");
        assert!(!mentions(out.clone(), "intent_core"), "{name}: {out}");
    }
    let plain: syn::DeriveInput = parse_quote!(
        struct Plain {
            a: u8,
        }
    );
    assert!(mentions(crate::expand::derive(plain), "intent_core"));
}

//! What the derive can tell about a member's type from its syntax alone. Whether a type is a map,
//! `serde_json::Value` or anything else is never decided here, from a name that could be any type:
//! the generated code asks the type's own `Intent` impl (see `checks`).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Ident, Type};

/// The span of the first identifier in `ty` for which `pred` holds.
pub fn find_ident(ty: &Type, pred: &dyn Fn(&Ident) -> bool) -> Option<Span> {
    fn walk(tokens: TokenStream, pred: &dyn Fn(&Ident) -> bool) -> Option<Span> {
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if pred(&ident) => return Some(ident.span()),
                TokenTree::Group(group) => {
                    if let Some(span) = walk(group.stream(), pred) {
                        return Some(span);
                    }
                }
                _ => {}
            }
        }
        None
    }
    walk(ty.to_token_stream(), pred)
}

/// The span of `Self` or of the type's own name inside `ty`: a direct self-reference.
///
/// This is the one decision taken by name: a recursive type's strict hint cannot be asked of the
/// compiler (the constant would depend on itself), so a member naming the type itself is taken
/// for a self-reference. A member of another type that happens to share the name (`other::Node`
/// in `Node`) is therefore not strict; nothing wrong is ever accepted.
pub fn self_reference(ty: &Type, own: &Ident) -> Option<Span> {
    find_ident(ty, &|ident| ident == own || ident == "Self")
}

/// True when `ty` names any of `params` (the container's generic parameters) or `Self`: an
/// assertion about it can only be checked once the type is known.
pub fn is_generic(ty: &Type, params: &[Ident]) -> bool {
    find_ident(ty, &|ident| {
        ident == "Self" || params.iter().any(|p| p == ident)
    })
    .is_some()
}

/// The type as written, for messages: `HashMap<String, u32>`.
pub fn display(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(text.len());
    for (i, piece) in text.split(' ').enumerate() {
        let glue = matches!(piece, "<" | ">" | "," | "::" | "]" | ")" | ";")
            || out.ends_with(['<', '(', '[', '&'])
            || out.ends_with("::");
        if i > 0 && !glue {
            out.push(' ');
        }
        out.push_str(piece);
    }
    out
}

/// The spans of the first and the last token of `ty`, to point at all of it: a `const`
/// assertion's error covers its panic's call, from the first token to the closing parenthesis.
pub fn ends(ty: &Type) -> (Span, Span) {
    let mut tokens = ty.to_token_stream().into_iter();
    let first = tokens.next().map_or_else(|| ty.span(), |t| t.span());
    let last = tokens.last().map_or(first, |t| match t {
        TokenTree::Group(g) => g.span_close(),
        other => other.span(),
    });
    (first, last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn finds_self_references() {
        let own: Ident = parse_quote!(Tree);
        assert!(self_reference(&parse_quote!(Vec<Tree>), &own).is_some());
        assert!(self_reference(&parse_quote!(Option<Box<Self>>), &own).is_some());
        assert!(self_reference(&parse_quote!(Vec<Leaf>), &own).is_none());
    }

    #[test]
    fn tells_generic_members_from_concrete_ones() {
        let params: Vec<Ident> = vec![parse_quote!(T)];
        assert!(is_generic(&parse_quote!(Vec<T>), &params));
        assert!(is_generic(&parse_quote!(Option<Box<Self>>), &params));
        assert!(!is_generic(&parse_quote!(Vec<Target>), &params));
    }

    #[test]
    fn displays_types_as_written_outside_a_macro() {
        assert_eq!(
            display(&parse_quote!(std::collections::HashMap<String, Vec<(u8, u8)>>)),
            "std::collections::HashMap<String, Vec<(u8, u8)>>"
        );
        assert_eq!(display(&parse_quote!([&str; 2])), "[&str; 2]");
    }
}

//! What the derive can tell about a member's type from its syntax alone.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{GenericArgument, Ident, PathArguments, Type};

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
pub fn self_reference(ty: &Type, own: &Ident) -> Option<Span> {
    find_ident(ty, &|ident| ident == own || ident == "Self")
}

/// The part of `ty` that is never strict-compatible, as far as its syntax tells, with what it is.
pub fn never_strict(ty: &Type) -> Option<(Span, &'static str)> {
    match ty {
        Type::Tuple(tuple) if !tuple.elems.is_empty() => Some((tuple.span(), "a tuple")),
        Type::Path(path) => {
            if let Some(found) = path.qself.as_ref().and_then(|q| never_strict(&q.ty)) {
                return Some(found);
            }
            let last = path.path.segments.last()?;
            let what = match last.ident.to_string().as_str() {
                "HashMap" | "BTreeMap" | "IndexMap" => Some("a map"),
                "Value" => Some("`serde_json::Value`"),
                "Map" => Some("`serde_json::Map`"),
                _ => None,
            };
            if let Some(what) = what {
                return Some((path.span(), what));
            }
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            args.args.iter().find_map(|arg| match arg {
                GenericArgument::Type(inner) => never_strict(inner),
                _ => None,
            })
        }
        Type::Array(a) => never_strict(&a.elem),
        Type::Slice(s) => never_strict(&s.elem),
        Type::Reference(r) => never_strict(&r.elem),
        Type::Paren(p) => never_strict(&p.elem),
        Type::Group(g) => never_strict(&g.elem),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn finds_maps_values_and_tuples_inside_containers() {
        let cases: Vec<(Type, Option<&str>)> = vec![
            (parse_quote!(Vec<HashMap<String, u8>>), Some("a map")),
            (
                parse_quote!(Option<serde_json::Value>),
                Some("`serde_json::Value`"),
            ),
            (parse_quote!(Box<[(u8, u8)]>), Some("a tuple")),
            (
                parse_quote!(serde_json::Map<String, Value>),
                Some("`serde_json::Map`"),
            ),
            (parse_quote!(Vec<Option<String>>), None),
            (parse_quote!(()), None),
        ];
        for (ty, expected) in cases {
            assert_eq!(never_strict(&ty).map(|(_, w)| w), expected);
        }
    }

    #[test]
    fn finds_self_references() {
        let own: Ident = parse_quote!(Tree);
        assert!(self_reference(&parse_quote!(Vec<Tree>), &own).is_some());
        assert!(self_reference(&parse_quote!(Option<Box<Self>>), &own).is_some());
        assert!(self_reference(&parse_quote!(Vec<Leaf>), &own).is_none());
    }
}

//! The `#[serde(...)]` attributes that decide a type's JSON form.
//!
//! Only what changes the deserialized form is read; every other serde attribute is skipped. A
//! malformed serde attribute is left for serde's own derive to report, so the user sees one error.
//! Each item's attributes are parsed once, as darling forwards them (see `ast`).

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, LitStr, Token, Type};

use crate::case::RenameRule;

/// Container attributes: `rename_all`, `tag`, `untagged`, `transparent`, `default`, ...
#[derive(Default)]
pub struct SerdeContainer {
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    pub transparent: bool,
    pub default: bool,
    /// `from = "T"` or `try_from = "T"`: the type is read as `T`.
    pub from: Option<Type>,
}

/// Variant attributes.
#[derive(Default)]
pub struct SerdeVariant {
    pub rename: Option<String>,
    pub aliases: Vec<String>,
    pub skip: bool,
    pub rename_all: Option<RenameRule>,
    /// `#[serde(untagged)]` on one variant.
    pub untagged: Option<Span>,
    /// `with` or `deserialize_with` on the variant.
    pub custom: Option<Span>,
    /// `#[serde(other)]`: an unknown tag reads as this (unit) variant.
    pub other: bool,
}

/// Field attributes.
#[derive(Default)]
pub struct SerdeField {
    pub rename: Option<String>,
    pub aliases: Vec<String>,
    pub skip: bool,
    pub default: bool,
    pub flatten: bool,
    /// `with` or `deserialize_with` on the field.
    pub custom: Option<Span>,
}

fn each_serde_meta(
    attrs: &[Attribute],
    mut f: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<()>,
) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        // Errors are serde's to report.
        let _ = attr.parse_nested_meta(|meta| {
            let name = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            f(&name, &meta)
        });
    }
}

/// Consumes the value of a meta item whose meaning does not matter here.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

fn string(meta: &ParseNestedMeta) -> syn::Result<String> {
    Ok(meta.value()?.parse::<LitStr>()?.value())
}

/// `name = "x"` or `name(deserialize = "x", serialize = "y")`: the deserialize side.
fn de_string(meta: &ParseNestedMeta) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        return string(meta).map(Some);
    }
    let mut out = None;
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("deserialize") {
            out = Some(string(&inner)?);
            Ok(())
        } else {
            skip_value(&inner)
        }
    })?;
    Ok(out)
}

fn de_rule(meta: &ParseNestedMeta) -> syn::Result<Option<RenameRule>> {
    Ok(de_string(meta)?.and_then(|s| RenameRule::parse(&s)))
}

impl SerdeContainer {
    pub fn parse(attrs: &[Attribute]) -> SerdeContainer {
        let mut out = SerdeContainer::default();
        each_serde_meta(attrs, |name, meta| {
            match name {
                "rename_all" => out.rename_all = de_rule(meta)?.or(out.rename_all),
                "rename_all_fields" => {
                    out.rename_all_fields = de_rule(meta)?.or(out.rename_all_fields)
                }
                "tag" => out.tag = Some(string(meta)?),
                "content" => out.content = Some(string(meta)?),
                "untagged" => out.untagged = true,
                "transparent" => out.transparent = true,
                "default" => {
                    skip_value(meta)?;
                    out.default = true;
                }
                "from" | "try_from" => {
                    out.from = Some(meta.value()?.parse::<LitStr>()?.parse::<Type>()?)
                }
                _ => skip_value(meta)?,
            }
            Ok(())
        });
        out
    }
}

impl SerdeVariant {
    pub fn parse(attrs: &[Attribute]) -> SerdeVariant {
        let mut out = SerdeVariant::default();
        each_serde_meta(attrs, |name, meta| {
            match name {
                "rename" => out.rename = de_string(meta)?.or(out.rename.take()),
                "alias" => out.aliases.push(string(meta)?),
                "skip" | "skip_deserializing" => out.skip = true,
                "rename_all" => out.rename_all = de_rule(meta)?.or(out.rename_all),
                "untagged" => out.untagged = Some(meta.path.span()),
                "other" => out.other = true,
                "with" | "deserialize_with" => {
                    out.custom = Some(meta.path.span());
                    skip_value(meta)?;
                }
                _ => skip_value(meta)?,
            }
            Ok(())
        });
        out
    }
}

impl SerdeField {
    pub fn parse(attrs: &[Attribute]) -> SerdeField {
        let mut out = SerdeField::default();
        each_serde_meta(attrs, |name, meta| {
            match name {
                "rename" => out.rename = de_string(meta)?.or(out.rename.take()),
                "alias" => out.aliases.push(string(meta)?),
                "skip" | "skip_deserializing" => out.skip = true,
                "default" => {
                    skip_value(meta)?;
                    out.default = true;
                }
                "flatten" => out.flatten = true,
                "with" | "deserialize_with" => {
                    out.custom = Some(meta.path.span());
                    skip_value(meta)?;
                }
                _ => skip_value(meta)?,
            }
            Ok(())
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn reads_deserialize_side_of_rename() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[serde(rename(serialize = "out", deserialize = "in"), alias = "other")]),
            parse_quote!(#[serde(default = "make", skip_serializing_if = "Option::is_none")]),
        ];
        let field = SerdeField::parse(&attrs);
        assert_eq!(field.rename.as_deref(), Some("in"));
        assert_eq!(field.aliases, vec!["other".to_owned()]);
        assert!(field.default);
        assert!(!field.skip);
    }

    #[test]
    fn reads_container_representation() {
        let attrs: Vec<Attribute> = vec![parse_quote!(
            #[serde(tag = "t", content = "c", rename_all = "snake_case", deny_unknown_fields, bound(deserialize = "T: X"))]
        )];
        let c = SerdeContainer::parse(&attrs);
        assert_eq!(c.tag.as_deref(), Some("t"));
        assert_eq!(c.content.as_deref(), Some("c"));
        assert_eq!(c.rename_all, Some(RenameRule::Snake));
    }

    #[test]
    fn ignores_other_attributes() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[doc = "x"]),
            parse_quote!(#[serde(with = "m")]),
        ];
        let f = SerdeField::parse(&attrs);
        assert!(f.custom.is_some());
    }
}

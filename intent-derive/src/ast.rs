//! The input of the derive, read once: `#[intent(...)]` attributes by darling, and the forwarded
//! `#[serde(...)]` attributes and doc comments parsed as they are read, so later stages never
//! parse an attribute again.

use darling::util::{Flag, SpannedValue};
use darling::{ast, FromDeriveInput, FromField, FromMeta, FromVariant};
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{parse_quote, Attribute, Expr, Generics, Ident, Lit, UnOp};

use crate::case::RenameRule;
use crate::serde_attr::{SerdeContainer, SerdeField, SerdeVariant};

/// The derived type.
#[derive(FromDeriveInput)]
#[darling(
    attributes(intent),
    forward_attrs(doc, serde),
    supports(struct_any, enum_any)
)]
pub struct Container {
    pub ident: syn::Ident,
    pub vis: syn::Visibility,
    pub generics: syn::Generics,
    pub data: ast::Data<IntentVariant, IntentField>,
    /// The doc comment and the serde attributes.
    #[darling(with = container_attrs)]
    pub attrs: Forwarded<SerdeContainer>,
    /// `#[intent(description = "...")]`: replaces the doc comment.
    pub description: Option<SpannedValue<String>>,
    /// `#[intent(strict)]`: the type must be strict-compatible.
    pub strict: Flag,
    /// `#[intent(partial)]`: generate `NamePartial`, the answer so far while it streams.
    pub partial: Flag,
    /// `#[intent(crate = "path")]`: where `intent_core` is, for a crate that re-exports it.
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
}

/// One variant of a derived enum.
#[derive(FromVariant)]
#[darling(attributes(intent), forward_attrs(doc, serde))]
pub struct IntentVariant {
    pub ident: syn::Ident,
    pub fields: ast::Fields<IntentField>,
    #[darling(with = variant_attrs)]
    pub attrs: Forwarded<SerdeVariant>,
    pub description: Option<SpannedValue<String>>,
}

/// One field of a struct or variant, with its rules.
#[derive(FromField)]
#[darling(attributes(intent), forward_attrs(doc, serde))]
pub struct IntentField {
    pub ident: Option<syn::Ident>,
    pub vis: syn::Visibility,
    pub ty: syn::Type,
    #[darling(with = field_attrs)]
    pub attrs: Forwarded<SerdeField>,
    pub description: Option<SpannedValue<String>>,
    /// `#[intent(as = "String")]`: the type the field is read as from JSON.
    #[darling(rename = "as")]
    pub as_type: Option<SpannedValue<syn::Type>>,
    pub minimum: Option<SpannedValue<Number>>,
    pub maximum: Option<SpannedValue<Number>>,
    pub exclusive_minimum: Option<SpannedValue<Number>>,
    pub exclusive_maximum: Option<SpannedValue<Number>>,
    pub multiple_of: Option<SpannedValue<Number>>,
    pub min_length: Option<SpannedValue<u64>>,
    pub max_length: Option<SpannedValue<u64>>,
    pub pattern: Option<SpannedValue<String>>,
    pub min_items: Option<SpannedValue<u64>>,
    pub max_items: Option<SpannedValue<u64>>,
    pub unique_items: Flag,
}

/// The attributes darling forwards, parsed: the doc comment and what serde's say.
pub struct Forwarded<S> {
    pub doc: Option<String>,
    pub serde: S,
}

fn container_attrs(attrs: Vec<Attribute>) -> darling::Result<Forwarded<SerdeContainer>> {
    Ok(Forwarded {
        doc: doc_comment(&attrs),
        serde: SerdeContainer::parse(&attrs),
    })
}

fn variant_attrs(attrs: Vec<Attribute>) -> darling::Result<Forwarded<SerdeVariant>> {
    Ok(Forwarded {
        doc: doc_comment(&attrs),
        serde: SerdeVariant::parse(&attrs),
    })
}

fn field_attrs(attrs: Vec<Attribute>) -> darling::Result<Forwarded<SerdeField>> {
    Ok(Forwarded {
        doc: doc_comment(&attrs),
        serde: SerdeField::parse(&attrs),
    })
}

impl Container {
    /// The serde container attributes.
    pub fn serde(&self) -> &SerdeContainer {
        &self.attrs.serde
    }

    /// The path every generated item goes through: `#[intent(crate)]`, else `::intent_core`.
    pub fn krate(&self) -> TokenStream {
        match &self.krate {
            Some(path) => path.to_token_stream(),
            None => default_krate(),
        }
    }

    /// The type's description: `#[intent(description)]`, else its doc comment.
    pub fn doc(&self) -> Option<String> {
        description(self.description.as_ref(), &self.attrs.doc)
    }
}

impl IntentVariant {
    pub fn serde(&self) -> &SerdeVariant {
        &self.attrs.serde
    }

    pub fn doc(&self) -> Option<String> {
        description(self.description.as_ref(), &self.attrs.doc)
    }
}

impl IntentField {
    pub fn serde(&self) -> &SerdeField {
        &self.attrs.serde
    }

    pub fn doc(&self) -> Option<String> {
        description(self.description.as_ref(), &self.attrs.doc)
    }

    /// The type whose shape describes the field: `as` when given, else the declared type.
    pub fn wire_type(&self) -> &syn::Type {
        self.as_type.as_ref().map_or(&self.ty, |t| &**t)
    }
}

/// `::intent_core`, the path of the runtime crate when no `#[intent(crate)]` names another.
pub fn default_krate() -> TokenStream {
    quote::quote!(::intent_core)
}

/// The `#[intent(crate = "...")]` path of an input darling could not read (for the stub impl that
/// goes with its errors), else `::intent_core`. Any error here is already among darling's.
pub fn krate_of_unread(attrs: &[Attribute]) -> TokenStream {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("intent")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let path: syn::LitStr = meta.value()?.parse()?;
                found = path.parse::<syn::Path>().ok();
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<Expr>()?;
            }
            Ok(())
        });
    }
    found.map_or_else(default_krate, |p| p.to_token_stream())
}

/// A finite number in a rule: `1`, `-5`, `0.5`.
#[derive(Debug, Clone, Copy)]
pub struct Number(pub f64);

impl FromMeta for Number {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(lit) => Self::from_value(&lit.lit),
            Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
                Self::from_expr(&unary.expr).map(|n| Number(-n.0))
            }
            Expr::Group(group) => Self::from_expr(&group.expr),
            _ => Err(
                darling::Error::custom("expected a number, such as `1`, `-5` or `0.5`")
                    .with_span(expr),
            ),
        }
    }

    fn from_value(lit: &Lit) -> darling::Result<Self> {
        let parsed = match lit {
            Lit::Int(int) => int.base10_parse::<f64>(),
            Lit::Float(float) => float.base10_parse::<f64>(),
            _ => {
                return Err(
                    darling::Error::custom("expected a number, such as `1`, `-5` or `0.5`")
                        .with_span(lit),
                )
            }
        };
        match parsed {
            Ok(v) if v.is_finite() => Ok(Number(v)),
            Ok(_) => Err(darling::Error::custom("the number must be finite").with_span(lit)),
            Err(e) => Err(darling::Error::from(e)),
        }
    }
}

/// The doc comment in `attrs`, one leading space removed from each line, or `None` when empty.
fn doc_comment(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                let line = s.value();
                lines.push(line.strip_prefix(' ').unwrap_or(&line).to_owned());
            }
        }
    }
    let doc = strip_intra_doc_links(&lines.join("\n"));
    let doc = doc.trim();
    (!doc.is_empty()).then(|| doc.to_owned())
}

/// Rustdoc's intra-doc links `[`Order`]` read as `` `Order` `` in a prompt.
fn strip_intra_doc_links(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(start) = rest.find("[`") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after[1..].find('`').map(|end| end + 2) {
            Some(end)
                if after[end..].starts_with(']')
                    && !after[end + 1..].starts_with('(')
                    && !after[end + 1..].starts_with('[') =>
            {
                out.push_str(&after[..end]);
                rest = &after[end + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The description of an item: `#[intent(description)]` if given, else its doc comment.
fn description(attr: Option<&SpannedValue<String>>, doc: &Option<String>) -> Option<String> {
    match attr {
        Some(d) => {
            let d = d.trim();
            (!d.is_empty()).then(|| d.to_owned())
        }
        None => doc.clone(),
    }
}

/// `Intent` bounds on every type parameter.
pub(crate) fn bounded(generics: &Generics, krate: &TokenStream) -> Generics {
    let mut generics = generics.clone();
    let params: Vec<Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    let clause = generics.make_where_clause();
    for param in params {
        clause.predicates.push(parse_quote!(#param: #krate::Intent));
    }
    generics
}

/// A named member's wire name: its `rename`, else its name under the `rename_all` rule.
pub(crate) fn wire_name(field: &IntentField, rule: Option<RenameRule>) -> String {
    let base = field
        .ident
        .as_ref()
        .map(|i| i.unraw().to_string())
        .unwrap_or_default();
    field.serde().rename.clone().unwrap_or_else(|| match rule {
        Some(rule) => rule.apply_to_field(&base),
        None => base,
    })
}

#[cfg(test)]
mod tests {
    use super::strip_intra_doc_links;

    #[test]
    fn intra_doc_links_lose_their_brackets() {
        assert_eq!(
            strip_intra_doc_links("See [`Person`] and [`a::B`]."),
            "See `Person` and `a::B`."
        );
        assert_eq!(
            strip_intra_doc_links("[`x`](http://e) [`y`][z] [a]"),
            "[`x`](http://e) [`y`][z] [a]"
        );
        assert_eq!(strip_intra_doc_links("unclosed [`x"), "unclosed [`x");
    }
}

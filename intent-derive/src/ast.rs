//! The input of the derive: `#[intent(...)]` attributes read by darling, `#[serde(...)]` attributes
//! and doc comments read alongside.

use darling::util::{Flag, SpannedValue};
use darling::{ast, FromDeriveInput, FromField, FromMeta, FromVariant};
use syn::{Attribute, Expr, Lit, UnOp};

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
    pub generics: syn::Generics,
    pub data: ast::Data<IntentVariant, IntentField>,
    pub attrs: Vec<Attribute>,
    /// `#[intent(description = "...")]`: replaces the doc comment.
    pub description: Option<SpannedValue<String>>,
    /// `#[intent(strict)]`: the type must be strict-compatible.
    pub strict: Flag,
}

/// One variant of a derived enum.
#[derive(FromVariant)]
#[darling(attributes(intent), forward_attrs(doc, serde))]
pub struct IntentVariant {
    pub ident: syn::Ident,
    pub fields: ast::Fields<IntentField>,
    pub attrs: Vec<Attribute>,
    pub description: Option<SpannedValue<String>>,
}

/// One field of a struct or variant, with its rules.
#[derive(FromField)]
#[darling(attributes(intent), forward_attrs(doc, serde))]
pub struct IntentField {
    pub ident: Option<syn::Ident>,
    pub ty: syn::Type,
    pub attrs: Vec<Attribute>,
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

impl IntentField {
    /// The type whose shape describes the field: `as` when given, else the declared type.
    pub fn wire_type(&self) -> &syn::Type {
        self.as_type.as_ref().map_or(&self.ty, |t| &**t)
    }
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
pub fn doc_comment(attrs: &[Attribute]) -> Option<String> {
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
pub fn description(attr: Option<&SpannedValue<String>>, attrs: &[Attribute]) -> Option<String> {
    match attr {
        Some(d) => {
            let d = d.trim();
            (!d.is_empty()).then(|| d.to_owned())
        }
        None => doc_comment(attrs),
    }
}

impl Container {
    pub fn serde(&self) -> SerdeContainer {
        SerdeContainer::parse(&self.attrs)
    }
}

impl IntentVariant {
    pub fn serde(&self) -> SerdeVariant {
        SerdeVariant::parse(&self.attrs)
    }
}

impl IntentField {
    pub fn serde(&self) -> SerdeField {
        SerdeField::parse(&self.attrs)
    }
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

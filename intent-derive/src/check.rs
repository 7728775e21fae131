//! What can be refused from the input's syntax alone, before any code is generated: unions, forms
//! serde gives no knowable JSON form, rules where they have nowhere to go, invalid patterns, and
//! under `#[intent(strict)]` the forms no strict schema expresses. Every error is collected, so the
//! user sees all of them at once.
//!
//! What depends on a member's type (does a rule fit it, is it strict-compatible) or on the rule
//! table (which rules conflict) is asserted in `const` items the expansion generates: the compiler
//! resolves the type and evaluates the one table `intent_core` holds (see `rules`).

use syn::spanned::Spanned;

use crate::ast::{Container, IntentField, IntentVariant};
use crate::rules::set_rules;
use crate::types;

/// All the errors in the derive's input.
pub fn check(input: &Container) -> Vec<syn::Error> {
    let serde = input.serde();
    let mut errors = Vec::new();
    let strict = input.strict.is_present();
    if input.from_input.is_present() {
        let named = matches!(&input.data, darling::ast::Data::Struct(fields)
            if fields.style == darling::ast::Style::Struct && !serde.transparent);
        if !named {
            errors.push(syn::Error::new(
                input.from_input.span(),
                "`from_input` on a type applies to structs with named members (their text \
                 members must come from the input); put it on the members instead",
            ));
        }
    }
    match &input.data {
        darling::ast::Data::Struct(fields) => {
            let live = fields.iter().filter(|f| !f.serde().skip).count();
            if strict
                && fields.style == darling::ast::Style::Tuple
                && fields.len() > 1
                && live > 1
                && !serde.transparent
                && serde.from.is_none()
            {
                errors.push(syn::Error::new_spanned(
                    &input.ident,
                    "`#[intent(strict)]`: a tuple struct is a JSON array of fixed length, which \
                     strict schemas cannot express; use named fields, or remove `#[intent(strict)]`",
                ));
            }
            for field in fields.iter() {
                check_field(input, field, strict && serde.from.is_none(), &mut errors);
            }
        }
        darling::ast::Data::Enum(variants) => {
            for variant in variants {
                check_variant(input, variant, strict && serde.from.is_none(), &mut errors);
            }
        }
    }
    errors
}

fn check_variant(
    input: &Container,
    variant: &IntentVariant,
    strict: bool,
    errors: &mut Vec<syn::Error>,
) {
    let serde = variant.serde();
    if serde.skip {
        return;
    }
    if let Some(span) = serde.untagged {
        errors.push(syn::Error::new(
            span,
            "`#[derive(Intent)]` does not support `#[serde(untagged)]` on a single variant: the \
             enum would have two representations at once; put `#[serde(untagged)]` on the enum, \
             or implement `Intent` by hand",
        ));
    }
    if let Some(span) = serde.custom {
        errors.push(syn::Error::new(
            span,
            "`#[derive(Intent)]` cannot know the wire form of a variant read by a custom \
             deserializer; move `with`/`deserialize_with` to the variant's field and add \
             `#[intent(as = \"...\")]` there, naming the type it reads from JSON",
        ));
    }
    if strict && variant.fields.style == darling::ast::Style::Tuple && variant.fields.len() > 1 {
        errors.push(syn::Error::new_spanned(
            &variant.ident,
            "`#[intent(strict)]`: a tuple variant is a JSON array of fixed length, which strict \
             schemas cannot express; use named fields, or remove `#[intent(strict)]`",
        ));
    }
    for field in variant.fields.iter() {
        check_field(input, field, strict, errors);
    }
}

fn check_field(input: &Container, field: &IntentField, strict: bool, errors: &mut Vec<syn::Error>) {
    let serde = field.serde();
    if serde.skip {
        return;
    }
    if let (Some(span), None) = (serde.custom, &field.as_type) {
        errors.push(syn::Error::new(
            span,
            "a member read by a custom deserializer (`with`/`deserialize_with`) has no wire form \
             `#[derive(Intent)]` can know; add `#[intent(as = \"...\")]` naming the type it reads \
             from JSON, such as `#[intent(as = \"String\")]`",
        ));
    }
    let rules = set_rules(field);
    if field.ident.is_none() {
        if let Some(rule) = rules.first() {
            let (name, span) = (rule.name, rule.span);
            errors.push(syn::Error::new(
                span,
                format!(
                    "`{name}` applies to named members only: a rule has nowhere to go on an \
                     unnamed field; use a struct with named fields"
                ),
            ));
        }
        if field.from_input.is_present() {
            errors.push(syn::Error::new(
                field.from_input.span(),
                "`from_input` applies to named members only; use a struct with named fields",
            ));
        }
        if let Some(d) = &field.description {
            errors.push(syn::Error::new(
                d.span(),
                "`description` applies to named members, variants and types; describe the \
                 variant or the type instead",
            ));
        }
    }
    if let Some(pattern) = &field.pattern {
        if let Err(e) = regex_syntax::Parser::new().parse(pattern) {
            let (kind, offset) = match &e {
                regex_syntax::Error::Parse(e) => (e.kind().to_string(), e.span().start.offset),
                regex_syntax::Error::Translate(e) => (e.kind().to_string(), e.span().start.offset),
                other => (other.to_string(), 0),
            };
            errors.push(syn::Error::new(
                pattern.span(),
                format!("invalid regular expression in `pattern`: {kind} (at byte {offset})"),
            ));
        }
    }
    if strict {
        let ty = field.wire_type();
        if let Some(span) = types::self_reference(ty, &input.ident) {
            errors.push(syn::Error::new(
                span,
                "`#[intent(strict)]`: this member refers to the type itself; a recursive type has \
                 no finite strict schema; remove `#[intent(strict)]` or the self-reference",
            ));
        }
    }
}

/// The error for a union.
pub fn union_error(token: &syn::token::Union) -> syn::Error {
    syn::Error::new(
        token.span(),
        "`#[derive(Intent)]` does not support unions: serde gives them no JSON form; use a struct \
         or an enum",
    )
}

//! Rules across attributes, checked before any code is generated. Every error is collected, so
//! the user sees all of them at once.

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::ast::{Container, IntentField, IntentVariant};
use crate::serde_attr::SerdeContainer;
use crate::types;

/// The kind of member a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    Number,
    Text,
    Items,
}

impl RuleKind {
    pub fn noun(self) -> &'static str {
        match self {
            RuleKind::Number => "numbers",
            RuleKind::Text => "text",
            RuleKind::Items => "lists",
        }
    }
}

/// The rules set on a field: `(name, kind, span)` in a fixed order.
pub fn set_rules(field: &IntentField) -> Vec<(&'static str, RuleKind, Span)> {
    let mut out = Vec::new();
    let mut push = |name, kind, span: Option<Span>| {
        if let Some(span) = span {
            out.push((name, kind, span));
        }
    };
    push(
        "minimum",
        RuleKind::Number,
        field.minimum.as_ref().map(|v| v.span()),
    );
    push(
        "maximum",
        RuleKind::Number,
        field.maximum.as_ref().map(|v| v.span()),
    );
    push(
        "exclusive_minimum",
        RuleKind::Number,
        field.exclusive_minimum.as_ref().map(|v| v.span()),
    );
    push(
        "exclusive_maximum",
        RuleKind::Number,
        field.exclusive_maximum.as_ref().map(|v| v.span()),
    );
    push(
        "multiple_of",
        RuleKind::Number,
        field.multiple_of.as_ref().map(|v| v.span()),
    );
    push(
        "min_length",
        RuleKind::Text,
        field.min_length.as_ref().map(|v| v.span()),
    );
    push(
        "max_length",
        RuleKind::Text,
        field.max_length.as_ref().map(|v| v.span()),
    );
    push(
        "pattern",
        RuleKind::Text,
        field.pattern.as_ref().map(|v| v.span()),
    );
    push(
        "min_items",
        RuleKind::Items,
        field.min_items.as_ref().map(|v| v.span()),
    );
    push(
        "max_items",
        RuleKind::Items,
        field.max_items.as_ref().map(|v| v.span()),
    );
    push(
        "unique_items",
        RuleKind::Items,
        field
            .unique_items
            .is_present()
            .then(|| field.unique_items.span()),
    );
    out
}

/// All the errors in the derive's input.
pub fn check(input: &Container, serde: &SerdeContainer) -> Vec<syn::Error> {
    let mut errors = Vec::new();
    let strict = input.strict.is_present();
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
        if let Some((name, _, span)) = rules.first() {
            errors.push(syn::Error::new(
                *span,
                format!(
                    "`{name}` applies to named members only: a rule has nowhere to go on an \
                     unnamed field; use a struct with named fields"
                ),
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
    if let Some((first, first_kind, _)) = rules.first() {
        if let Some((other, other_kind, span)) = rules.iter().find(|r| r.1 != *first_kind) {
            errors.push(syn::Error::new(
                *span,
                format!(
                    "conflicting rules: `{first}` applies to {} and `{other}` to {}; a member takes \
                     rules of one kind only",
                    first_kind.noun(),
                    other_kind.noun()
                ),
            ));
        }
    }
    check_ranges(field, errors);
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
        } else if let Some((span, what)) = types::never_strict(ty) {
            errors.push(syn::Error::new(
                span,
                format!(
                    "`#[intent(strict)]`: this member is {what}, which strict schemas cannot \
                     express; remove `#[intent(strict)]`, skip the member with \
                     `#[serde(skip)]`, or give it a struct type"
                ),
            ));
        }
    }
}

fn check_ranges(field: &IntentField, errors: &mut Vec<syn::Error>) {
    let mut err = |span: Span, msg: String| errors.push(syn::Error::new(span, msg));
    let num = |v: &Option<darling::util::SpannedValue<crate::ast::Number>>| {
        v.as_ref().map(|v| (v.0, v.span()))
    };
    let (min, max) = (num(&field.minimum), num(&field.maximum));
    let (xmin, xmax) = (num(&field.exclusive_minimum), num(&field.exclusive_maximum));
    if let (Some(_), Some((_, span))) = (min, xmin) {
        err(
            span,
            "conflicting rules: `minimum` and `exclusive_minimum` both bound the number from \
             below; keep one"
                .into(),
        );
    }
    if let (Some(_), Some((_, span))) = (max, xmax) {
        err(
            span,
            "conflicting rules: `maximum` and `exclusive_maximum` both bound the number from \
             above; keep one"
                .into(),
        );
    }
    let pairs = [
        (min, "minimum", max, "maximum", false),
        (min, "minimum", xmax, "exclusive_maximum", true),
        (xmin, "exclusive_minimum", max, "maximum", true),
        (xmin, "exclusive_minimum", xmax, "exclusive_maximum", true),
    ];
    for (low, low_name, high, high_name, exclusive) in pairs {
        if let (Some((lo, span)), Some((hi, _))) = (low, high) {
            if lo > hi || (exclusive && lo >= hi) {
                err(
                    span,
                    format!(
                        "conflicting rules: `{low_name}` ({lo}) and `{high_name}` ({hi}) leave no \
                         number that satisfies both"
                    ),
                );
            }
        }
    }
    if let Some((m, span)) = num(&field.multiple_of) {
        if m <= 0.0 {
            err(
                span,
                format!("`multiple_of` must be greater than 0, not {m}"),
            );
        }
    }
    let count = |v: &Option<darling::util::SpannedValue<u64>>| v.as_ref().map(|v| (**v, v.span()));
    let lengths = [
        (
            count(&field.min_length),
            count(&field.max_length),
            "min_length",
            "max_length",
        ),
        (
            count(&field.min_items),
            count(&field.max_items),
            "min_items",
            "max_items",
        ),
    ];
    for (low, high, low_name, high_name) in lengths {
        if let (Some((lo, span)), Some((hi, _))) = (low, high) {
            if lo > hi {
                err(
                    span,
                    format!("conflicting rules: `{low_name}` ({lo}) is greater than `{high_name}` ({hi})"),
                );
            }
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

//! A field's rules: the `Rules` value the shape carries, and the `const` assertions that ask
//! `intent_core`'s rule table whether the rules fit the member's type and each other.
//!
//! The derive holds no copy of the table. For `#[intent(max_length = 80)] quantity: u32` it
//! generates
//!
//! ```text
//! const _: () = if let Some(m) = rule_table::misfit(RuleKind::MaxLength,
//!     <u32 as Intent>::__RULE_TARGET, RuleNaming::Attribute) { panic!("{}", m) };
//! ```
//!
//! spanned at the attribute's value, so the build fails there with the table's own words; the
//! catalog calls the same functions when it loads an intent file.

use darling::util::SpannedValue;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{quote, quote_spanned};

use crate::ast::IntentField;

/// One rule set on a field.
pub struct SetRule {
    /// The attribute's name: `max_length`.
    pub name: &'static str,
    /// The `RuleKind` variant in `intent_core`'s rule table: `MaxLength`.
    kind: &'static str,
    /// Where the rule's value is written.
    pub span: Span,
    value: Value,
}

#[derive(Clone, Copy)]
enum Value {
    Number(f64),
    Count(u64),
    Other,
}

/// The rules set on `field`, in the table's order.
pub fn set_rules(field: &IntentField) -> Vec<SetRule> {
    let mut out = Vec::new();
    let numbers = [
        ("minimum", "Minimum", &field.minimum),
        ("maximum", "Maximum", &field.maximum),
        (
            "exclusive_minimum",
            "ExclusiveMinimum",
            &field.exclusive_minimum,
        ),
        (
            "exclusive_maximum",
            "ExclusiveMaximum",
            &field.exclusive_maximum,
        ),
        ("multiple_of", "MultipleOf", &field.multiple_of),
    ];
    for (name, kind, value) in numbers {
        if let Some(v) = value {
            out.push(SetRule {
                name,
                kind,
                span: v.span(),
                value: Value::Number(v.0),
            });
        }
    }
    let count = |name, kind, value: &Option<SpannedValue<u64>>| {
        value.as_ref().map(|v| SetRule {
            name,
            kind,
            span: v.span(),
            value: Value::Count(**v),
        })
    };
    out.extend(count("min_length", "MinLength", &field.min_length));
    out.extend(count("max_length", "MaxLength", &field.max_length));
    if let Some(p) = &field.pattern {
        out.push(SetRule {
            name: "pattern",
            kind: "Pattern",
            span: p.span(),
            value: Value::Other,
        });
    }
    out.extend(count("min_items", "MinItems", &field.min_items));
    out.extend(count("max_items", "MaxItems", &field.max_items));
    if field.unique_items.is_present() {
        out.push(SetRule {
            name: "unique_items",
            kind: "UniqueItems",
            span: field.unique_items.span(),
            value: Value::Other,
        });
    }
    out
}

/// Paths into the runtime crate's rule table.
struct Table<'k> {
    krate: &'k TokenStream,
}

impl Table<'_> {
    fn kind(&self, rule: &SetRule) -> TokenStream {
        let krate = self.krate;
        let kind = Ident::new(rule.kind, Span::call_site());
        quote!(#krate::__private::rule_table::RuleKind::#kind)
    }

    /// `const` body: fails the build at `span` with the table's message when `refusal` is `Some`.
    fn assert(&self, span: Span, refusal: TokenStream) -> TokenStream {
        quote_spanned! {span=>
            if let ::core::option::Option::Some(__intent_refusal) = #refusal {
                ::core::panic!("{}", __intent_refusal);
            }
        }
    }
}

/// The assertions that `field`'s rules fit each other, whatever its type: no two rules the table
/// refuses together, a range some number fits, lengths and counts in order, a positive
/// `multiple_of`. Each is the body of one `const` item.
pub fn combination_checks(field: &IntentField, krate: &TokenStream) -> Vec<TokenStream> {
    let rules = set_rules(field);
    let table = Table { krate };
    let naming = quote!(#krate::__private::rule_table::RuleNaming::Attribute);
    let mut checks = Vec::new();
    // The first conflicting pair is reported, at the later rule.
    let mut pairs = Vec::new();
    for (i, b) in rules.iter().enumerate() {
        for a in &rules[..i] {
            let (ka, kb) = (table.kind(a), table.kind(b));
            let refusal = quote!(#krate::__private::rule_table::conflict(#ka, #kb, #naming));
            pairs.push(table.assert(b.span, refusal));
        }
    }
    if !pairs.is_empty() {
        checks.push(quote!(#(#pairs)*));
    }
    let find = |name: &str| rules.iter().find(|r| r.name == name);
    for low in ["minimum", "exclusive_minimum"] {
        for high in ["maximum", "exclusive_maximum"] {
            if let (Some(l), Some(h)) = (find(low), find(high)) {
                if let (Value::Number(lo), Value::Number(hi)) = (l.value, h.value) {
                    let (kl, kh) = (table.kind(l), table.kind(h));
                    let (lo, hi) = (Literal::f64_suffixed(lo), Literal::f64_suffixed(hi));
                    let refusal = quote!(#krate::__private::rule_table::range_conflict(
                        #kl, #lo, #kh, #hi, #naming
                    ));
                    checks.push(table.assert(l.span, refusal));
                }
            }
        }
    }
    for (low, high) in [("min_length", "max_length"), ("min_items", "max_items")] {
        if let (Some(l), Some(h)) = (find(low), find(high)) {
            if let (Value::Count(min), Value::Count(max)) = (l.value, h.value) {
                let (kl, kh) = (table.kind(l), table.kind(h));
                let (min, max) = (Literal::u64_suffixed(min), Literal::u64_suffixed(max));
                let refusal = quote!(#krate::__private::rule_table::count_conflict(
                    #kl, #min, #kh, #max, #naming
                ));
                checks.push(table.assert(l.span, refusal));
            }
        }
    }
    if let Some(step) = find("multiple_of") {
        if let Value::Number(v) = step.value {
            let v = Literal::f64_suffixed(v);
            let refusal = quote!(#krate::__private::rule_table::multiple_of_refusal(#v, #naming));
            checks.push(table.assert(step.span, refusal));
        }
    }
    checks
}

/// The assertion that `field`'s rules fit the member's type `ty`, spanned at the first rule (when
/// the rules conflict among themselves, a combination check reports that instead), or `None`
/// without rules.
pub fn fit_check(field: &IntentField, ty: &syn::Type, krate: &TokenStream) -> Option<TokenStream> {
    let rules = set_rules(field);
    let first = rules.first()?;
    let table = Table { krate };
    let kinds = rules.iter().map(|r| table.kind(r));
    let refusal = quote! {
        #krate::__private::rule_table::misfit_among(
            &[#(#kinds),*],
            <#ty as #krate::Intent>::__RULE_TARGET,
            #krate::__private::rule_table::RuleNaming::Attribute,
        )
    };
    Some(table.assert(first.span, refusal))
}

/// The assertion that a member marked `#[intent(from_input)]` is text (its type's
/// `__FROM_INPUT`), spanned at the attribute, or `None` without the attribute.
pub fn from_input_check(
    field: &IntentField,
    ty: &syn::Type,
    krate: &TokenStream,
) -> Option<TokenStream> {
    if !field.from_input.is_present() {
        return None;
    }
    let span = field.from_input.span();
    Some(quote_spanned! {span=>
        if !<#ty as #krate::Intent>::__FROM_INPUT {
            ::core::panic!("{}", #krate::__private::rule_table::FROM_INPUT_MISFIT);
        }
    })
}

/// `let __intent_rules = Rules { .. }` for a field; `whole_type` when the struct itself is
/// `#[intent(from_input)]` (its text members come from the input).
pub fn rules_value(field: &IntentField, krate: &TokenStream, whole_type: bool) -> TokenStream {
    let mut sets = Vec::new();
    let numbers = [
        ("minimum", &field.minimum),
        ("maximum", &field.maximum),
        ("exclusive_minimum", &field.exclusive_minimum),
        ("exclusive_maximum", &field.exclusive_maximum),
        ("multiple_of", &field.multiple_of),
    ];
    for (name, value) in numbers {
        if let Some(v) = value {
            let member = Ident::new(name, Span::call_site());
            let lit = Literal::f64_suffixed(v.0);
            sets.push(quote!(__intent_rules.#member = ::core::option::Option::Some(#lit);));
        }
    }
    let counts = [
        ("min_length", &field.min_length),
        ("max_length", &field.max_length),
        ("min_items", &field.min_items),
        ("max_items", &field.max_items),
    ];
    for (name, value) in counts {
        if let Some(v) = value {
            let member = Ident::new(name, Span::call_site());
            let lit = Literal::u64_suffixed(**v);
            sets.push(quote!(__intent_rules.#member = ::core::option::Option::Some(#lit);));
        }
    }
    if let Some(pattern) = &field.pattern {
        let src = pattern.as_str();
        // Checked at compile time; a pattern the regex engine still refuses (a size limit) is
        // dropped rather than panicking.
        sets.push(quote! {
            __intent_rules.pattern =
                #krate::__private::shape::Pattern::cached(#src).ok();
        });
    }
    if field.unique_items.is_present() {
        sets.push(quote!(__intent_rules.unique_items = true;));
    }
    if field.from_input.is_present() {
        sets.push(quote!(__intent_rules.from_input = true;));
    } else if whole_type {
        let ty = field.wire_type();
        sets.push(quote!(__intent_rules.from_input = <#ty as #krate::Intent>::__FROM_INPUT;));
    }
    if sets.is_empty() {
        quote!(let __intent_rules = #krate::__private::shape::Rules::default();)
    } else {
        quote! {
            let mut __intent_rules = #krate::__private::shape::Rules::default();
            #(#sets)*
        }
    }
}

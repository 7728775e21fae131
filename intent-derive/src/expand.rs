//! The generated `impl Intent`: a function that registers the type's shape in a `ShapeGraph`, the
//! compile-time hints, and the const assertions that turn misuse into spanned build errors.
//!
//! Every path into the runtime crate goes through `krate` (`::intent_core`, or the path of
//! `#[intent(crate = "...")]`), so a crate that re-exports `intent_core` can derive without
//! depending on it by name.

use darling::ast::{Data, Fields, Style};
use darling::FromDeriveInput;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Generics, Ident, Type};

use crate::ast::{bounded, krate_of_unread, wire_name, Container, IntentField, IntentVariant};
use crate::case::RenameRule;
use crate::check;
use crate::partial;
use crate::rules;
use crate::types;

/// The whole derive: parse, check, expand. On errors: the errors, the const assertions that do
/// not depend on a generic type (so rule conflicts show in the same build), and a stub impl.
pub fn derive(input: syn::DeriveInput) -> TokenStream {
    if let syn::Data::Union(data) = &input.data {
        return check::union_error(&data.union_token).to_compile_error();
    }
    let container = match Container::from_derive_input(&input) {
        Ok(c) => c,
        Err(e) => {
            let krate = krate_of_unread(&input.attrs);
            return with_stub(&input.ident, &input.generics, &krate, e.write_errors());
        }
    };
    let krate = container.krate();
    let mut errors = check::check(&container);
    errors.extend(partial::check(&container));
    let mut expander = Expander {
        input: &container,
        krate: &krate,
        params: generic_params(&container.generics),
        checks: Vec::new(),
    };
    let expanded = expander.expand();
    if errors.is_empty() {
        let partial = partial::expand(&container, &krate);
        return quote!(#expanded #partial);
    }
    let errors = errors.iter().map(syn::Error::to_compile_error);
    let free = expander
        .checks
        .iter()
        .filter(|c| !c.generic)
        .map(|c| &c.body);
    with_stub(
        &input.ident,
        &input.generics,
        &krate,
        quote!(#(#errors)* #(const _: () = { #free };)*),
    )
}

/// The names of the type and const parameters.
fn generic_params(generics: &Generics) -> Vec<Ident> {
    generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.clone()),
            syn::GenericParam::Const(c) => Some(c.ident.clone()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// The errors, with an impl that lets the rest of the crate type-check (never run: the build
/// fails on the errors).
fn with_stub(
    ident: &Ident,
    generics: &Generics,
    krate: &TokenStream,
    errors: TokenStream,
) -> TokenStream {
    let generics = bounded(generics, krate);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #errors
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #krate::Intent for #ident #ty_generics #where_clause {
                fn shape(
                    __intent_graph: &mut #krate::__private::shape::ShapeGraph,
                ) -> #krate::__private::shape::NodeId {
                    __intent_graph.scalar(#krate::__private::shape::Scalar::Json)
                }
            }
        };
    }
}

/// One const assertion: its body, and whether it names a generic parameter (then it is checked
/// per instantiation, through an inherent constant the `shape` function uses).
struct Check {
    body: TokenStream,
    generic: bool,
}

/// How a member is named in messages: "member `sku`", "field 0 of variant `Pair`".
fn member_label(field: &IntentField, index: usize, variant: Option<&Ident>) -> String {
    let own = match &field.ident {
        Some(ident) => format!("member `{}`", ident.unraw()),
        None => format!("field {index}"),
    };
    match variant {
        Some(v) => format!("{own} of variant `{}`", v.unraw()),
        None => own,
    }
}

struct Expander<'a> {
    input: &'a Container,
    /// The runtime crate's path.
    krate: &'a TokenStream,
    /// The container's type and const parameters.
    params: Vec<Ident>,
    /// The const assertions, each spanned at what it checks.
    checks: Vec<Check>,
}

impl Expander<'_> {
    fn cow(&self, s: &str) -> TokenStream {
        let krate = self.krate;
        quote!(#krate::__private::Cow::Borrowed(#s))
    }

    fn doc_tokens(&self, doc: Option<String>) -> TokenStream {
        match doc {
            Some(d) => {
                let d = self.cow(&d);
                quote!(::core::option::Option::Some(#d))
            }
            None => quote!(::core::option::Option::None),
        }
    }

    fn shape_path(&self, item: &str) -> TokenStream {
        let krate = self.krate;
        let item = Ident::new(item, Span::call_site());
        quote!(#krate::__private::shape::#item)
    }

    fn expand(&mut self) -> TokenStream {
        let input = self.input;
        let krate = self.krate;
        let ident = &input.ident;
        let generics = bounded(&input.generics, krate);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

        let (shape_body, hint, target) = match &input.serde().from {
            Some(from) => {
                if input.strict.is_present() {
                    let what = format!(
                        "the type it is read as (`#[serde(from)]`), `{}`,",
                        types::display(from)
                    );
                    self.strict_check(from, &what);
                }
                (
                    quote!(<#from as #krate::Intent>::shape(__intent_graph)),
                    quote!(#krate::__private::strict_hint::<#from>()),
                    quote!(<#from as #krate::Intent>::__RULE_TARGET),
                )
            }
            None => {
                let (node, hint, target) = match &input.data {
                    Data::Struct(fields) => self.struct_node(fields),
                    Data::Enum(variants) => self.enum_node(variants),
                };
                let name = self.name();
                (
                    quote! {
                        __intent_graph.named(
                            #krate::__private::type_name::<Self>(),
                            |__intent_graph, _| {
                                let __intent_name: #krate::__private::Cow<'static, str> = #name;
                                #node
                            },
                        )
                    },
                    hint,
                    target,
                )
            }
        };

        // One constant per check, so every failing check is reported.
        let free = self.checks.iter().filter(|c| !c.generic).map(|c| &c.body);
        let generic: Vec<&TokenStream> = self
            .checks
            .iter()
            .filter(|c| c.generic)
            .map(|c| &c.body)
            .collect();
        let (inherent_checks, use_checks) = if generic.is_empty() {
            (quote!(), quote!())
        } else {
            let names: Vec<Ident> = (0..generic.len())
                .map(|i| quote::format_ident!("__INTENT_CHECK_{}", i))
                .collect();
            (
                quote! {
                    #[automatically_derived]
                    impl #impl_generics #ident #ty_generics #where_clause {
                        #(
                            #[doc(hidden)]
                            const #names: () = { #generic };
                        )*
                    }
                },
                quote!(#(let () = Self::#names;)*),
            )
        };
        let node_id = self.shape_path("NodeId");
        let graph = self.shape_path("ShapeGraph");
        let rule_target = self.shape_path("RuleTarget");

        quote! {
            const _: () = {
                #(const _: () = { #free };)*
                #inherent_checks
                #[automatically_derived]
                impl #impl_generics #krate::Intent for #ident #ty_generics #where_clause {
                    const __STRICT_HINT: bool = #hint;
                    const __RULE_TARGET: #rule_target = #target;
                    fn shape(__intent_graph: &mut #graph) -> #node_id {
                        #use_checks
                        #shape_body
                    }
                }
            };
        }
    }

    /// The type's label: `Order`, or `Page<Order>` built from the arguments' labels at run time.
    fn name(&self) -> TokenStream {
        let krate = self.krate;
        let ident = self.input.ident.unraw().to_string();
        let args: Vec<TokenStream> = self
            .input
            .generics
            .params
            .iter()
            .filter_map(|param| match param {
                syn::GenericParam::Type(t) => {
                    let t = &t.ident;
                    Some(quote! {{
                        let __intent_arg = <#t as #krate::Intent>::shape(__intent_graph);
                        __intent_graph.label(__intent_arg)
                    }})
                }
                syn::GenericParam::Const(c) => {
                    let c = &c.ident;
                    Some(quote!(::std::string::ToString::to_string(&#c)))
                }
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        if args.is_empty() {
            return self.cow(&ident);
        }
        let open = format!("{ident}<");
        quote! {{
            let mut __intent_label = ::std::string::String::from(#open);
            #(
                if !__intent_label.ends_with('<') {
                    __intent_label.push_str(", ");
                }
                __intent_label.push_str(&#args);
            )*
            __intent_label.push('>');
            #krate::__private::Cow::Owned(__intent_label)
        }}
    }

    /// The node of a struct, its strict hint and its rule target.
    fn struct_node(
        &mut self,
        fields: &Fields<IntentField>,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let krate = self.krate;
        let doc = self.doc_tokens(self.input.doc());
        let serde = self.input.serde();
        let live: Vec<(usize, &IntentField)> = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.serde().skip)
            .collect();
        let other = quote!(#krate::__private::shape::RuleTarget::Other);
        let struct_kind = self.shape_path("StructKind");
        let (kind, hint, target) = if serde.transparent
            || (fields.style == Style::Tuple && fields.len() == 1 && live.len() == 1)
        {
            match live.first() {
                Some(&(index, field)) => {
                    let ty = field.wire_type();
                    let shape = self.member_shape(field, &member_label(field, index, None));
                    (
                        quote!(#struct_kind::Newtype(#shape)),
                        self.hint_of(field),
                        quote!(<#ty as #krate::Intent>::__RULE_TARGET),
                    )
                }
                // serde refuses a transparent struct without a field; it reports the error.
                None => (quote!(#struct_kind::Unit), quote!(true), other),
            }
        } else {
            match fields.style {
                Style::Unit => (quote!(#struct_kind::Unit), quote!(true), other),
                Style::Tuple => {
                    let shapes: Vec<TokenStream> = live
                        .iter()
                        .map(|&(i, f)| self.member_shape(f, &member_label(f, i, None)))
                        .collect();
                    (
                        quote!(#struct_kind::Tuple(::std::vec![#(#shapes),*])),
                        quote!(false),
                        other,
                    )
                }
                Style::Struct => {
                    let rule = serde.rename_all;
                    let members: Vec<TokenStream> = live
                        .iter()
                        .map(|&(i, f)| self.named_field(f, i, None, rule, serde.default))
                        .collect();
                    let hint = self.hints(live.iter().map(|&(_, f)| f));
                    (
                        quote!(#struct_kind::Named(::std::vec![#(#members),*])),
                        hint,
                        other,
                    )
                }
            }
        };
        let (node, shape) = (self.shape_path("Node"), self.shape_path("StructShape"));
        let node = quote! {
            #node::Struct({
                let mut __intent_shape = #shape::new(__intent_name, #kind);
                __intent_shape.doc = #doc;
                __intent_shape
            })
        };
        (node, hint, target)
    }

    /// The node of an enum, its strict hint and its rule target.
    fn enum_node(&mut self, variants: &[IntentVariant]) -> (TokenStream, TokenStream, TokenStream) {
        let krate = self.krate;
        let doc = self.doc_tokens(self.input.doc());
        let serde = self.input.serde();
        let repr_path = self.shape_path("EnumRepr");
        let repr = match (&serde.tag, &serde.content) {
            _ if serde.untagged => quote!(#repr_path::Untagged),
            (Some(tag), Some(content)) => {
                let (tag, content) = (self.cow(tag), self.cow(content));
                quote!(#repr_path::Adjacent { tag: #tag, content: #content })
            }
            (Some(tag), None) => {
                let tag = self.cow(tag);
                quote!(#repr_path::Internal { tag: #tag })
            }
            (None, _) => quote!(#repr_path::External),
        };
        let variant_kind = self.shape_path("VariantKind");
        let variant_path = self.shape_path("Variant");
        let mut hints = Vec::new();
        let mut out = Vec::new();
        let mut unit_only = true;
        for variant in variants {
            let vserde = variant.serde();
            if vserde.skip {
                continue;
            }
            let base = variant.ident.unraw().to_string();
            let name = vserde
                .rename
                .clone()
                .unwrap_or_else(|| match serde.rename_all {
                    Some(rule) => rule.apply_to_variant(&base),
                    None => base,
                });
            let name = self.cow(&name);
            let aliases: Vec<TokenStream> = vserde.aliases.iter().map(|a| self.cow(a)).collect();
            let vdoc = self.doc_tokens(variant.doc());
            let live: Vec<(usize, &IntentField)> = variant
                .fields
                .iter()
                .enumerate()
                .filter(|(_, f)| !f.serde().skip)
                .collect();
            let vident = Some(&variant.ident);
            let kind = match variant.fields.style {
                Style::Unit => quote!(#variant_kind::Unit),
                Style::Tuple if variant.fields.len() == 1 => match live.first() {
                    Some(&(i, field)) => {
                        hints.push(self.hint_of(field));
                        let shape = self.member_shape(field, &member_label(field, i, vident));
                        quote!(#variant_kind::Newtype(#shape))
                    }
                    None => quote!(#variant_kind::Unit),
                },
                Style::Tuple => {
                    hints.push(quote!(false));
                    let shapes: Vec<TokenStream> = live
                        .iter()
                        .map(|&(i, f)| self.member_shape(f, &member_label(f, i, vident)))
                        .collect();
                    quote!(#variant_kind::Tuple(::std::vec![#(#shapes),*]))
                }
                Style::Struct => {
                    let rule = vserde.rename_all.or(serde.rename_all_fields);
                    hints.push(self.hints(live.iter().map(|&(_, f)| f)));
                    let members: Vec<TokenStream> = live
                        .iter()
                        .map(|&(i, f)| self.named_field(f, i, vident, rule, false))
                        .collect();
                    quote!(#variant_kind::Struct(::std::vec![#(#members),*]))
                }
            };
            unit_only &= variant.fields.style == Style::Unit
                || (variant.fields.style == Style::Tuple && live.is_empty());
            let other = vserde.other;
            out.push(quote! {{
                let mut __intent_variant = #variant_path::new(#name, #kind);
                __intent_variant.aliases = ::std::vec![#(#aliases),*];
                __intent_variant.doc = #vdoc;
                __intent_variant.other = #other;
                __intent_variant
            }});
        }
        let hint = if hints.is_empty() {
            quote!(true)
        } else {
            quote!(#(#hints)&*)
        };
        let (node, shape) = (self.shape_path("Node"), self.shape_path("EnumShape"));
        let node = quote! {
            #node::Enum({
                let mut __intent_shape =
                    #shape::new(__intent_name, #repr, ::std::vec![#(#out),*]);
                __intent_shape.doc = #doc;
                __intent_shape
            })
        };
        // A string enum takes text rules, as the catalog's rule table says (`rule_target`).
        let target = if unit_only && serde.tag.is_none() && !serde.untagged {
            quote!(#krate::__private::shape::RuleTarget::Text)
        } else {
            quote!(#krate::__private::shape::RuleTarget::Other)
        };
        (node, hint, target)
    }

    /// The conjunction of the members' hints.
    fn hints<'f>(&mut self, fields: impl Iterator<Item = &'f IntentField>) -> TokenStream {
        let hints: Vec<TokenStream> = fields.map(|f| self.hint_of(f)).collect();
        if hints.is_empty() {
            quote!(true)
        } else {
            quote!(#(#hints)&*)
        }
    }

    /// A member's strict hint: false when it names the type itself (so a recursive type's hint is
    /// no const-evaluation cycle), else its type's hint.
    fn hint_of(&self, field: &IntentField) -> TokenStream {
        let krate = self.krate;
        let ty = field.wire_type();
        if types::self_reference(ty, &self.input.ident).is_some() {
            quote!(false)
        } else {
            quote!(#krate::__private::strict_hint::<#ty>())
        }
    }

    fn push_check(&mut self, ty: Option<&Type>, body: TokenStream) {
        let generic = ty.is_some_and(|ty| types::is_generic(ty, &self.params));
        self.checks.push(Check { body, generic });
    }

    /// The member's shape, registering it (and the rule and strictness checks of the member).
    fn member_shape(&mut self, field: &IntentField, label: &str) -> TokenStream {
        let krate = self.krate;
        let ty = field.wire_type();
        if self.input.strict.is_present() {
            let what = format!("{label}, of type `{}`,", types::display(ty));
            self.strict_check(ty, &what);
        }
        if let Some(check) = rules::fit_check(field, ty, krate) {
            self.push_check(Some(ty), check);
        }
        for check in rules::combination_checks(field, krate) {
            self.push_check(None, check);
        }
        quote_spanned!(ty.span()=> <#ty as #krate::Intent>::shape(__intent_graph))
    }

    /// `#[intent(strict)]`: the member's type (`what`, for the message) must have a true strict
    /// hint. The compiler resolves the type, so a user type named `Value` or `HashMap` is judged
    /// by its own impl, never by its name.
    fn strict_check(&mut self, ty: &Type, what: &str) {
        if types::self_reference(ty, &self.input.ident).is_some() {
            return; // reported by `check`
        }
        let krate = self.krate;
        let message = format!(
            "`#[intent(strict)]`: {what} is not strict-compatible: it is, or holds, a map, \
             `serde_json::Value`, a tuple or a recursive type, which strict schemas cannot \
             express; remove `#[intent(strict)]`, skip the member with `#[serde(skip)]`, or \
             change its type"
        );
        // The panic's call spans the whole type: its path at the first token, its arguments'
        // parenthesis at the last.
        let (first, last) = types::ends(ty);
        let mut args =
            proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, quote!("{}", #message));
        args.set_span(last);
        let body = quote_spanned! {first=>
            if !<#ty as #krate::Intent>::__STRICT_HINT {
                ::core::panic! #args;
            }
        };
        self.push_check(Some(ty), body);
    }

    /// A named member: `Field::new(name, ty)` with its aliases, requiredness, flattening, doc and
    /// rules set.
    fn named_field(
        &mut self,
        field: &IntentField,
        index: usize,
        variant: Option<&Ident>,
        rule: Option<RenameRule>,
        container_default: bool,
    ) -> TokenStream {
        let krate = self.krate;
        let serde = field.serde();
        let name = self.cow(&wire_name(field, rule));
        let aliases: Vec<TokenStream> = serde.aliases.iter().map(|a| self.cow(a)).collect();
        let shape = self.member_shape(field, &member_label(field, index, variant));
        let node = self.shape_path("Node");
        // serde reads a missing member as its default, or as `None` when its type reads `null` as
        // an option does, unless a custom deserializer reads it.
        let required = if serde.default || container_default {
            quote!(false)
        } else if serde.custom.is_some() {
            quote!(true)
        } else {
            quote!(!::core::matches!(__intent_graph.node(__intent_ty), #node::Option(_)))
        };
        let flatten = serde.flatten;
        let doc = self.doc_tokens(field.doc());
        let rules = rules::rules_value(field, krate);
        let field_path = self.shape_path("Field");
        quote! {{
            let __intent_ty = #shape;
            #rules
            let mut __intent_field = #field_path::new(#name, __intent_ty);
            __intent_field.aliases = ::std::vec![#(#aliases),*];
            __intent_field.required = #required;
            __intent_field.flatten = #flatten;
            __intent_field.doc = #doc;
            __intent_field.rules = __intent_rules;
            __intent_field
        }}
    }
}

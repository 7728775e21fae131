//! The generated `impl Intent`: a function that registers the type's shape in a `ShapeGraph`, the
//! compile-time hints, and the const assertions that turn misuse into spanned build errors.

use darling::ast::{Data, Fields, Style};
use darling::FromDeriveInput;
use proc_macro2::{Literal, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{parse_quote, Generics, Ident, Type};

use crate::ast::{description, Container, IntentField, IntentVariant};
use crate::case::RenameRule;
use crate::check::{self, set_rules, RuleKind};
use crate::serde_attr::SerdeContainer;
use crate::types;

/// The whole derive: parse, check, expand; on any error, the errors and a stub impl.
pub fn derive(input: syn::DeriveInput) -> TokenStream {
    if let syn::Data::Union(data) = &input.data {
        return check::union_error(&data.union_token).to_compile_error();
    }
    let container = match Container::from_derive_input(&input) {
        Ok(c) => c,
        Err(e) => return with_stub(&input.ident, &input.generics, e.write_errors()),
    };
    let serde = container.serde();
    let errors = check::check(&container, &serde);
    if !errors.is_empty() {
        let errors = errors.iter().map(syn::Error::to_compile_error);
        return with_stub(&input.ident, &input.generics, quote!(#(#errors)*));
    }
    Expander {
        input: &container,
        serde: &serde,
        checks: Vec::new(),
    }
    .expand()
}

/// `Intent` bounds on every type parameter.
fn bounded(generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    let params: Vec<Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    let clause = generics.make_where_clause();
    for param in params {
        clause
            .predicates
            .push(parse_quote!(#param: ::intent_core::Intent));
    }
    generics
}

/// The errors, with an impl that lets the rest of the crate type-check (never run: the build
/// fails on the errors).
fn with_stub(ident: &Ident, generics: &Generics, errors: TokenStream) -> TokenStream {
    let generics = bounded(generics);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #errors
        const _: () = {
            #[automatically_derived]
            impl #impl_generics ::intent_core::Intent for #ident #ty_generics #where_clause {
                fn shape(
                    __intent_graph: &mut ::intent_core::__private::shape::ShapeGraph,
                ) -> ::intent_core::__private::shape::NodeId {
                    __intent_graph.scalar(::intent_core::__private::shape::Scalar::Json)
                }
            }
        };
    }
}

fn cow(s: &str) -> TokenStream {
    quote!(::intent_core::__private::Cow::Borrowed(#s))
}

fn doc_tokens(doc: Option<String>) -> TokenStream {
    match doc {
        Some(d) => {
            let d = cow(&d);
            quote!(::core::option::Option::Some(#d))
        }
        None => quote!(::core::option::Option::None),
    }
}

struct Expander<'a> {
    input: &'a Container,
    serde: &'a SerdeContainer,
    /// Const assertions: `if !cond { panic!(..) }`, each spanned at what it checks.
    checks: Vec<TokenStream>,
}

impl Expander<'_> {
    fn expand(mut self) -> TokenStream {
        let input = self.input;
        let ident = &input.ident;
        let generics = bounded(&input.generics);
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

        let (shape_body, hint, target) = match &self.serde.from {
            Some(from) => {
                if input.strict.is_present() {
                    self.strict_check(from);
                }
                (
                    quote!(<#from as ::intent_core::Intent>::shape(__intent_graph)),
                    quote!(::intent_core::__private::strict_hint::<#from>()),
                    quote!(<#from as ::intent_core::Intent>::__RULE_TARGET),
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
                            ::intent_core::__private::type_name::<Self>(),
                            |__intent_graph, _| {
                                let __intent_name: ::intent_core::__private::Cow<'static, str> = #name;
                                #node
                            },
                        )
                    },
                    hint,
                    target,
                )
            }
        };

        let checks = &self.checks;
        let (free_checks, inherent_checks, use_checks) = if checks.is_empty() {
            (quote!(), quote!(), quote!())
        } else if input.generics.params.is_empty() {
            // One constant per check, so every failing check is reported.
            (quote!(#(const _: () = { #checks };)*), quote!(), quote!())
        } else {
            let names: Vec<Ident> = (0..checks.len())
                .map(|i| quote::format_ident!("__INTENT_CHECK_{}", i))
                .collect();
            (
                quote!(),
                quote! {
                    #[automatically_derived]
                    impl #impl_generics #ident #ty_generics #where_clause {
                        #(
                            #[doc(hidden)]
                            const #names: () = { #checks };
                        )*
                    }
                },
                quote!(#(let () = Self::#names;)*),
            )
        };

        quote! {
            const _: () = {
                #free_checks
                #inherent_checks
                #[automatically_derived]
                impl #impl_generics ::intent_core::Intent for #ident #ty_generics #where_clause {
                    const __STRICT_HINT: bool = #hint;
                    const __RULE_TARGET: ::intent_core::__private::shape::RuleTarget = #target;
                    fn shape(
                        __intent_graph: &mut ::intent_core::__private::shape::ShapeGraph,
                    ) -> ::intent_core::__private::shape::NodeId {
                        #use_checks
                        #shape_body
                    }
                }
            };
        }
    }

    /// The type's label: `Order`, or `Page<Order>` built from the arguments' labels at run time.
    fn name(&self) -> TokenStream {
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
                        let __intent_arg = <#t as ::intent_core::Intent>::shape(__intent_graph);
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
            return cow(&ident);
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
            ::intent_core::__private::Cow::Owned(__intent_label)
        }}
    }

    fn doc(&self) -> TokenStream {
        doc_tokens(description(
            self.input.description.as_ref(),
            &self.input.attrs,
        ))
    }

    /// The node of a struct, its strict hint and its rule target.
    fn struct_node(
        &mut self,
        fields: &Fields<IntentField>,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let doc = self.doc();
        let live: Vec<&IntentField> = fields.iter().filter(|f| !f.serde().skip).collect();
        let other = quote!(::intent_core::__private::shape::RuleTarget::Other);
        let (kind, hint, target) = if self.serde.transparent
            || (fields.style == Style::Tuple && fields.len() == 1 && live.len() == 1)
        {
            match live.first() {
                Some(field) => {
                    let ty = field.wire_type();
                    let shape = self.member_shape(field);
                    (
                        quote!(::intent_core::__private::shape::StructKind::Newtype(#shape)),
                        self.hint_of(field),
                        quote!(<#ty as ::intent_core::Intent>::__RULE_TARGET),
                    )
                }
                // serde refuses a transparent struct without a field; it reports the error.
                None => (
                    quote!(::intent_core::__private::shape::StructKind::Unit),
                    quote!(true),
                    other,
                ),
            }
        } else {
            match fields.style {
                Style::Unit => (
                    quote!(::intent_core::__private::shape::StructKind::Unit),
                    quote!(true),
                    other,
                ),
                Style::Tuple => {
                    let shapes: Vec<TokenStream> =
                        live.iter().map(|f| self.member_shape(f)).collect();
                    (
                        quote!(::intent_core::__private::shape::StructKind::Tuple(
                            ::std::vec![#(#shapes),*]
                        )),
                        quote!(false),
                        other,
                    )
                }
                Style::Struct => {
                    let rule = self.serde.rename_all;
                    let members: Vec<TokenStream> = live
                        .iter()
                        .map(|f| self.named_field(f, rule, self.serde.default))
                        .collect();
                    let hint = self.hints(live.iter().copied());
                    (
                        quote!(::intent_core::__private::shape::StructKind::Named(
                            ::std::vec![#(#members),*]
                        )),
                        hint,
                        other,
                    )
                }
            }
        };
        let node = quote! {
            ::intent_core::__private::shape::Node::Struct(::intent_core::__private::shape::StructShape {
                name: __intent_name,
                doc: #doc,
                kind: #kind,
            })
        };
        (node, hint, target)
    }

    /// The node of an enum, its strict hint and its rule target.
    fn enum_node(&mut self, variants: &[IntentVariant]) -> (TokenStream, TokenStream, TokenStream) {
        let doc = self.doc();
        let serde = self.serde;
        let repr = match (&serde.tag, &serde.content) {
            _ if serde.untagged => quote!(::intent_core::__private::shape::EnumRepr::Untagged),
            (Some(tag), Some(content)) => {
                let (tag, content) = (cow(tag), cow(content));
                quote!(::intent_core::__private::shape::EnumRepr::Adjacent { tag: #tag, content: #content })
            }
            (Some(tag), None) => {
                let tag = cow(tag);
                quote!(::intent_core::__private::shape::EnumRepr::Internal { tag: #tag })
            }
            (None, _) => quote!(::intent_core::__private::shape::EnumRepr::External),
        };
        let mut hints = Vec::new();
        let mut out = Vec::new();
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
            let name = cow(&name);
            let aliases = vserde.aliases.iter().map(|a| cow(a));
            let vdoc = doc_tokens(description(variant.description.as_ref(), &variant.attrs));
            let live: Vec<&IntentField> =
                variant.fields.iter().filter(|f| !f.serde().skip).collect();
            let kind = match variant.fields.style {
                Style::Unit => quote!(::intent_core::__private::shape::VariantKind::Unit),
                Style::Tuple if variant.fields.len() == 1 => match live.first() {
                    Some(field) => {
                        hints.push(self.hint_of(field));
                        let shape = self.member_shape(field);
                        quote!(::intent_core::__private::shape::VariantKind::Newtype(#shape))
                    }
                    None => quote!(::intent_core::__private::shape::VariantKind::Unit),
                },
                Style::Tuple => {
                    hints.push(quote!(false));
                    let shapes: Vec<TokenStream> =
                        live.iter().map(|f| self.member_shape(f)).collect();
                    quote!(::intent_core::__private::shape::VariantKind::Tuple(
                        ::std::vec![#(#shapes),*]
                    ))
                }
                Style::Struct => {
                    let rule = vserde.rename_all.or(serde.rename_all_fields);
                    hints.push(self.hints(live.iter().copied()));
                    let members: Vec<TokenStream> = live
                        .iter()
                        .map(|f| self.named_field(f, rule, false))
                        .collect();
                    quote!(::intent_core::__private::shape::VariantKind::Struct(
                        ::std::vec![#(#members),*]
                    ))
                }
            };
            out.push(quote! {
                ::intent_core::__private::shape::Variant {
                    name: #name,
                    aliases: ::std::vec![#(#aliases),*],
                    doc: #vdoc,
                    kind: #kind,
                }
            });
        }
        let hint = if hints.is_empty() {
            quote!(true)
        } else {
            quote!(#(#hints)&*)
        };
        let node = quote! {
            ::intent_core::__private::shape::Node::Enum(::intent_core::__private::shape::EnumShape {
                name: __intent_name,
                doc: #doc,
                repr: #repr,
                variants: ::std::vec![#(#out),*],
            })
        };
        (
            node,
            hint,
            quote!(::intent_core::__private::shape::RuleTarget::Other),
        )
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
        let ty = field.wire_type();
        if types::self_reference(ty, &self.input.ident).is_some() {
            quote!(false)
        } else {
            quote!(::intent_core::__private::strict_hint::<#ty>())
        }
    }

    /// The member's shape, registering it (and the rule and strictness checks of the member).
    fn member_shape(&mut self, field: &IntentField) -> TokenStream {
        let ty = field.wire_type();
        if self.input.strict.is_present() {
            self.strict_check(ty);
        }
        if let Some((_, kind, span)) = set_rules(field).first() {
            self.rule_check(ty, *kind, *span);
        }
        quote_spanned!(ty.span()=> <#ty as ::intent_core::Intent>::shape(__intent_graph))
    }

    /// `#[intent(strict)]`: the member's type must have a true strict hint.
    fn strict_check(&mut self, ty: &Type) {
        if types::self_reference(ty, &self.input.ident).is_some() {
            return; // reported by `check`
        }
        self.checks.push(quote_spanned! {ty.span()=>
            if !<#ty as ::intent_core::Intent>::__STRICT_HINT {
                ::core::panic!("`#[intent(strict)]`: this member's type is not strict-compatible \
                    (it is or contains a map, `serde_json::Value`, a tuple or a recursive type); \
                    remove `#[intent(strict)]`, skip the member with `#[serde(skip)]`, or change its type");
            }
        });
    }

    fn rule_check(&mut self, ty: &Type, kind: RuleKind, span: Span) {
        let (target, message) = match kind {
            RuleKind::Number => (
                quote!(Number),
                "`minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum` and `multiple_of` \
                 apply to numbers (integers, floats, `Decimal`, and `Option`s of them), and this \
                 member is not a number; text rules (`min_length`, `max_length`, `pattern`) apply \
                 to strings, item rules (`min_items`, `max_items`, `unique_items`) to lists and sets",
            ),
            RuleKind::Text => (
                quote!(Text),
                "`min_length`, `max_length` and `pattern` apply to text (`String`, `char`, and \
                 `Option`s of them), and this member is not text; number rules (`minimum`, \
                 `maximum`, ...) apply to numbers, item rules (`min_items`, `max_items`, \
                 `unique_items`) to lists and sets",
            ),
            RuleKind::Items => (
                quote!(Items),
                "`min_items`, `max_items` and `unique_items` apply to lists and sets (`Vec`, \
                 `VecDeque`, `HashSet`, arrays, and `Option`s of them), and this member is not a \
                 list; number rules (`minimum`, ...) apply to numbers, text rules (`min_length`, \
                 `max_length`, `pattern`) to strings",
            ),
        };
        self.checks.push(quote_spanned! {span=>
            if !<#ty as ::intent_core::Intent>::__RULE_TARGET
                .is(::intent_core::__private::shape::RuleTarget::#target)
            {
                ::core::panic!(#message);
            }
        });
    }

    /// A named member: `Field { name, aliases, ty, required, flatten, doc, rules }`.
    fn named_field(
        &mut self,
        field: &IntentField,
        rule: Option<RenameRule>,
        container_default: bool,
    ) -> TokenStream {
        let serde = field.serde();
        let base = field
            .ident
            .as_ref()
            .map(|i| i.unraw().to_string())
            .unwrap_or_default();
        let name = serde.rename.clone().unwrap_or_else(|| match rule {
            Some(rule) => rule.apply_to_field(&base),
            None => base,
        });
        let name = cow(&name);
        let aliases = serde.aliases.iter().map(|a| cow(a));
        let shape = self.member_shape(field);
        // serde reads a missing member as its default, or as `None` when its type reads `null` as
        // an option does, unless a custom deserializer reads it.
        let required = if serde.default || container_default {
            quote!(false)
        } else if serde.custom.is_some() {
            quote!(true)
        } else {
            quote!(!::core::matches!(
                __intent_graph.node(__intent_ty),
                ::intent_core::__private::shape::Node::Option(_)
            ))
        };
        let flatten = serde.flatten;
        let doc = doc_tokens(description(field.description.as_ref(), &field.attrs));
        let rules = rules_tokens(field);
        quote! {{
            let __intent_ty = #shape;
            #rules
            ::intent_core::__private::shape::Field {
                name: #name,
                aliases: ::std::vec![#(#aliases),*],
                ty: __intent_ty,
                required: #required,
                flatten: #flatten,
                doc: #doc,
                rules: __intent_rules,
            }
        }}
    }
}

/// `let __intent_rules = Rules { .. }` for a field.
fn rules_tokens(field: &IntentField) -> TokenStream {
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
                ::intent_core::__private::shape::Pattern::cached(#src).ok();
        });
    }
    if field.unique_items.is_present() {
        sets.push(quote!(__intent_rules.unique_items = true;));
    }
    if sets.is_empty() {
        quote!(let __intent_rules = ::intent_core::__private::shape::Rules::default();)
    } else {
        quote! {
            let mut __intent_rules = ::intent_core::__private::shape::Rules::default();
            #(#sets)*
        }
    }
}

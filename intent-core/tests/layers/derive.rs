//! The derive's side of the layout: its modules import one way too, and the runtime's
//! `__private` module holds what the derive's generated code names and nothing else (what the
//! tests and benchmarks check on its own is behind the `__internals` feature).

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;

use super::{read_sources, use_leaves, Graph};

#[test]
fn the_derive_has_no_import_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../intent-derive/src");
    let graph = Graph::build(&read_sources(&src));
    assert!(
        graph.edges_between(&[], "expand", "ast"),
        "expected `expand` to import `ast`; the derive's sources are not being read"
    );
    assert_eq!(graph.cycles(), Vec::<(String, Vec<String>)>::new());
}

#[test]
fn the_private_module_holds_only_what_the_derive_names() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs");
    let lib = std::fs::read_to_string(&core).expect("intent-core's lib.rs");
    let offered = private_names(&syn::parse_file(&lib).expect("lib.rs parses"));
    assert!(
        offered.contains("shape::ShapeGraph"),
        "expected `__private::shape::ShapeGraph` in {offered:?}; lib.rs is not being read"
    );

    let derive = Path::new(env!("CARGO_MANIFEST_DIR")).join("../intent-derive/src");
    let named = derive_names(read_sources(&derive).values().map(String::as_str));
    let unused: Vec<&String> = offered.difference(&named).collect();
    assert!(
        unused.is_empty(),
        "`__private` offers what no generated code names (move it behind `__internals`, or \
         remove it): {unused:?}"
    );
}

/// The names under `__private`, as `name` or `module::name`.
fn private_names(lib: &syn::File) -> BTreeSet<String> {
    fn walk(items: &[syn::Item], prefix: &str, names: &mut BTreeSet<String>) {
        for item in items {
            match item {
                syn::Item::Use(u) => {
                    for (name, _) in use_leaves(&u.tree, Vec::new()) {
                        names.insert(format!("{prefix}{name}"));
                    }
                }
                syn::Item::Fn(f) => {
                    names.insert(format!("{prefix}{}", f.sig.ident));
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        walk(inner, &format!("{prefix}{}::", m.ident), names);
                    }
                }
                _ => {}
            }
        }
    }
    let mut names = BTreeSet::new();
    for item in &lib.items {
        if let syn::Item::Mod(m) = item {
            if m.ident == "__private" {
                let (_, inner) = m.content.as_ref().expect("`__private` is an inline module");
                walk(inner, "", &mut names);
            }
        }
    }
    names
}

/// What the derive's sources name under `__private`: `__private::x`, `__private::m::x`, and the
/// shape types its `shape_path("X")` helper names.
fn derive_names<'s>(sources: impl Iterator<Item = &'s str>) -> BTreeSet<String> {
    let path = Regex::new(r"__private::(\w+)(?:::(\w+))?").expect("a valid pattern");
    let helper = Regex::new(r#"shape_path\("(\w+)"\)"#).expect("a valid pattern");
    let mut names = BTreeSet::new();
    for text in sources {
        for found in path.captures_iter(text) {
            let first = &found[1];
            match found.get(2) {
                Some(second) if first.chars().next().is_some_and(char::is_lowercase) => {
                    names.insert(format!("{first}::{}", second.as_str()));
                }
                _ => {
                    names.insert(first.to_owned());
                }
            }
        }
        for found in helper.captures_iter(text) {
            names.insert(format!("shape::{}", &found[1]));
        }
    }
    names
}

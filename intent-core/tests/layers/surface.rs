//! The public surface: every item a user can name, at every path they can name it, listed from
//! the sources and compared with the list in `ARCHITECTURE.md` (between the `surface` markers),
//! so that a name is added to or taken from the public API only on purpose. `INTENT_BLESS=1`
//! writes the list anew; the diff is then reviewed with the change.
//!
//! An item is public when it is `pub` in a module reachable from the crate root through `pub`
//! modules, or re-exported there by a `pub use`; `#[doc(hidden)]` items and modules (the derive's
//! `__private`, the tests' `__internals`) and `#[cfg(test)]` ones are not. Each line is the item's
//! kind and path, with the features it needs.
//!
//! Every item has one path: the only second paths allowed are the prelude's (a convenience
//! import, by design) and those in [`ALIASES`], each for its reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{anchored, module_of_file, read_sources, use_leaves, ModPath};

/// Second paths the contract fixes: (the alias, the path that defines it, why).
const ALIASES: &[(&str, &str, &str)] = &[
    (
        "intent_core::provider::AiRequest",
        "intent_core::AiRequest",
        "DESIGN §2: `AiRequest` is at the root and also under `provider`, for provider authors",
    ),
    (
        "intent_core::provider::ResponseFormat",
        "intent_core::ResponseFormat",
        "DESIGN §2: `ResponseFormat` is at the root and also under `provider`, for provider authors",
    ),
];

/// The markers of the list in `ARCHITECTURE.md`.
const START: &str = "<!-- surface:start -->";
const END: &str = "<!-- surface:end -->";

#[test]
fn the_public_surface_is_the_committed_list_with_one_path_per_item() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let surface = Surface::read(&read_sources(&src));

    // The listing is really built: a few names every version of the crate has.
    for line in [
        "trait intent_core::Intent",
        "struct intent_core::IntentClient",
        "fn intent_core::read::read_reply",
        "const intent_core::schema::ENVELOPE_PROPERTY",
    ] {
        assert!(
            surface.lines().iter().any(|l| l == line),
            "expected `{line}` in the public surface; the sources are not being read"
        );
    }

    let listed = surface.lines().join("\n");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{} is missing ({e}); it holds the committed public surface",
            file.display()
        )
    });
    let (Some(start), Some(end)) = (text.find(START), text.find(END)) else {
        panic!(
            "{} has no `{START}` ... `{END}` block for the public surface",
            file.display()
        );
    };
    let block = format!("{START}\n```text\n{listed}\n```\n");
    let committed = &text[start..end];
    if std::env::var_os("INTENT_BLESS").is_some_and(|v| v == "1") {
        let written = format!("{}{block}{}", &text[..start], &text[end..]);
        std::fs::write(&file, written).expect("ARCHITECTURE.md is writable");
    } else if committed != block {
        let old: BTreeSet<&str> = committed.lines().collect();
        let new: BTreeSet<&str> = block.lines().collect();
        panic!(
            "the public surface changed; if on purpose, run with INTENT_BLESS=1 and review \
             ARCHITECTURE.md.\nadded: {:#?}\nremoved: {:#?}",
            new.difference(&old).collect::<Vec<_>>(),
            old.difference(&new).collect::<Vec<_>>()
        );
    }

    let doubles = surface.second_paths();
    assert!(
        doubles.is_empty(),
        "items reachable at more than one path (keep one, or add the second to ALIASES with its \
         reason): {doubles:#?}"
    );
}

#[test]
fn the_surface_follows_reexports_and_leaves_out_hidden_and_private_items() {
    let sources = BTreeMap::from([
        (
            "lib.rs".to_owned(),
            "mod inner; pub mod open; #[doc(hidden)] pub mod __private { pub use crate::inner::Hidden; }
             pub use inner::Thing; pub use open::Again;
             pub mod prelude { pub use crate::Thing; }"
                .to_owned(),
        ),
        (
            "inner.rs".to_owned(),
            "pub struct Thing; pub struct Hidden; pub(crate) fn internal() {}".to_owned(),
        ),
        (
            "open/mod.rs".to_owned(),
            "pub struct Again; #[cfg(feature = \"x\")] pub fn featured() {} #[doc(hidden)] pub fn hidden() {}
             #[cfg(test)] pub fn only_tests() {}"
                .to_owned(),
        ),
    ]);
    let surface = Surface::read(&sources);
    assert_eq!(
        surface.lines(),
        [
            "struct intent_core::Again",
            "struct intent_core::Thing",
            "mod intent_core::open",
            "struct intent_core::open::Again",
            "fn intent_core::open::featured  [feature x]",
            "mod intent_core::prelude",
            "struct intent_core::prelude::Thing",
        ]
    );
    assert_eq!(
        surface.second_paths(),
        BTreeMap::from([(
            "intent_core::Again".to_owned(),
            vec!["intent_core::open::Again".to_owned()]
        )])
    );
}

/// What a public path names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    /// An item defined in the crate: its module and name.
    Item(ModPath, String),
    /// A module of the crate.
    Module(ModPath),
    /// Something of another crate (`intent_derive::Intent`).
    External(String),
}

/// One module's attributes and contents.
#[derive(Default)]
struct Module {
    /// Declared `pub` and not `#[doc(hidden)]` or `#[cfg(test)]`.
    open: bool,
    /// The features it needs, its parents' included.
    features: Vec<String>,
    /// Its public items: name, kind, features.
    items: Vec<(String, &'static str, Vec<String>)>,
    /// Its `use`s: the name bound, the path, the features, whether it is public.
    uses: Vec<(String, Vec<String>, Vec<String>, bool)>,
    /// Its child modules (file or inline).
    children: BTreeSet<String>,
}

/// The crate's modules and what they make public.
struct Surface {
    modules: BTreeMap<ModPath, Module>,
    /// Every public path: (kind, path, features) -> target.
    paths: BTreeMap<(String, &'static str, Vec<String>), Target>,
}

impl Surface {
    fn read(sources: &BTreeMap<String, String>) -> Surface {
        let mut files = BTreeMap::new();
        for (file, text) in sources {
            let ast = syn::parse_file(text).unwrap_or_else(|e| panic!("cannot parse {file}: {e}"));
            files.insert(module_of_file(file), ast.items);
        }
        let mut modules = BTreeMap::new();
        let root_items = files.get(&Vec::new()).map_or(&[][..], Vec::as_slice);
        gather(
            &files,
            &mut modules,
            Vec::new(),
            root_items,
            true,
            Vec::new(),
        );
        let mut surface = Surface {
            modules,
            paths: BTreeMap::new(),
        };
        surface.list(Vec::new(), "intent_core".to_owned(), 0);
        surface
    }

    /// Lists the public paths of the module `at`, reached as `shown`.
    fn list(&mut self, at: ModPath, shown: String, depth: usize) {
        if depth > 8 {
            return;
        }
        let module = &self.modules[&at];
        let mut found = Vec::new();
        for (name, kind, features) in &module.items {
            found.push((
                format!("{shown}::{name}"),
                *kind,
                features.clone(),
                Target::Item(at.clone(), name.clone()),
            ));
        }
        for (name, path, features, _) in module.uses.iter().filter(|u| u.3) {
            let target = self.resolve(&at, path, 0);
            let kind = self.kind_of(&target);
            found.push((format!("{shown}::{name}"), kind, features.clone(), target));
        }
        let children: Vec<String> = module
            .children
            .iter()
            .filter(|c| {
                let mut child = at.clone();
                child.push((*c).clone());
                self.modules[&child].open
            })
            .cloned()
            .collect();
        for child in children {
            let mut path = at.clone();
            path.push(child.clone());
            let features = self.modules[&path].features.clone();
            found.push((
                format!("{shown}::{child}"),
                "mod",
                features,
                Target::Module(path.clone()),
            ));
            self.list(path, format!("{shown}::{child}"), depth + 1);
        }
        for (path, kind, features, target) in found {
            if let (Target::Module(module), false) = (
                &target,
                path.ends_with(&format!("::{}", target_name(&target))),
            ) {
                // A module re-exported under another name: its items are reachable under it too.
                self.list(module.clone(), path.clone(), depth + 1);
            }
            self.paths.insert((path, kind, features), target);
        }
    }

    /// What `path`, written in module `at`, names.
    fn resolve(&self, at: &ModPath, path: &[String], hops: usize) -> Target {
        let absolute: Vec<String> = match (anchored(at, path), path[0].as_str()) {
            (Some(absolute), _) => absolute,
            (None, first) if self.modules[at].children.contains(first) => {
                at.iter().chain(path).cloned().collect()
            }
            (None, first) if first != "intent_core" && hops == 0 && !self.declares(at, first) => {
                return Target::External(path.join("::"));
            }
            (None, _) => at.iter().chain(path).cloned().collect(),
        };
        let depth = (0..=absolute.len())
            .rev()
            .find(|&k| self.modules.contains_key(&absolute[..k]))
            .unwrap_or(0);
        let (module, rest) = (absolute[..depth].to_vec(), &absolute[depth..]);
        let Some(name) = rest.first() else {
            return Target::Module(module);
        };
        if hops < 8 && rest.len() == 1 {
            if let Some((_, target, _, _)) = self.modules[&module]
                .uses
                .iter()
                .find(|(bound, _, _, _)| bound == name)
            {
                return self.resolve(&module, target, hops + 1);
            }
        }
        Target::Item(module, rest.join("::"))
    }

    /// Whether module `at` defines or imports `name` itself.
    fn declares(&self, at: &ModPath, name: &str) -> bool {
        let module = &self.modules[at];
        module.items.iter().any(|(n, _, _)| n == name)
            || module.uses.iter().any(|(n, _, _, _)| n == name)
            || module.children.contains(name)
    }

    /// The kind of what `target` names.
    fn kind_of(&self, target: &Target) -> &'static str {
        match target {
            Target::Module(_) => "mod",
            Target::External(path) if path.starts_with("intent_derive::") => "derive",
            Target::External(_) => "use",
            Target::Item(module, name) => self
                .modules
                .get(module)
                .and_then(|m| m.items.iter().find(|(n, _, _)| n == name))
                .map(|(_, kind, _)| *kind)
                .unwrap_or("item"),
        }
    }

    /// The listing, one line per public path: `kind path`, then the features it needs.
    fn lines(&self) -> Vec<String> {
        self.paths
            .keys()
            .map(|(path, kind, features)| {
                if features.is_empty() {
                    format!("{kind} {path}")
                } else {
                    format!("{kind} {path}  [feature {}]", features.join(", "))
                }
            })
            .collect()
    }

    /// The items reachable at more than one path, the prelude's and [`ALIASES`] aside: the first
    /// path, then the others.
    fn second_paths(&self) -> BTreeMap<String, Vec<String>> {
        let mut by_target: BTreeMap<(&Target, &str), Vec<&str>> = BTreeMap::new();
        for ((path, kind, _), target) in &self.paths {
            if path.starts_with("intent_core::prelude::")
                || ALIASES.iter().any(|(alias, _, _)| alias == path)
            {
                continue;
            }
            by_target.entry((target, kind)).or_default().push(path);
        }
        by_target
            .into_values()
            .filter(|paths| paths.len() > 1)
            .map(|mut paths| {
                paths.sort_by_key(|p| (p.matches("::").count(), *p));
                let first = paths.remove(0).to_owned();
                (first, paths.into_iter().map(str::to_owned).collect())
            })
            .collect()
    }
}

/// The last segment of what `target` names.
fn target_name(target: &Target) -> String {
    match target {
        Target::Item(_, name) => name.clone(),
        Target::Module(path) => path.last().cloned().unwrap_or_default(),
        Target::External(path) => path.rsplit("::").next().unwrap_or_default().to_owned(),
    }
}

/// Records module `at` (with `items`, as written in `files`) and its children in `modules`.
fn gather(
    files: &BTreeMap<ModPath, Vec<syn::Item>>,
    modules: &mut BTreeMap<ModPath, Module>,
    at: ModPath,
    items: &[syn::Item],
    open: bool,
    features: Vec<String>,
) {
    let mut module = Module {
        open,
        features: features.clone(),
        ..Module::default()
    };
    let mut children = Vec::new();
    for item in items {
        let (attrs, vis) = match attrs_and_vis(item) {
            Some(found) => found,
            None => continue,
        };
        if is_test_only(attrs) {
            continue;
        }
        let mut item_features = features.clone();
        item_features.extend(features_of(attrs));
        item_features.sort();
        item_features.dedup();
        let public = matches!(vis, syn::Visibility::Public(_)) && !is_hidden(attrs);
        match item {
            syn::Item::Mod(m) => {
                let name = m.ident.to_string();
                module.children.insert(name.clone());
                let mut path = at.clone();
                path.push(name);
                let inner = match &m.content {
                    Some((_, inner)) => inner.as_slice(),
                    None => files.get(&path).map_or(&[][..], Vec::as_slice),
                };
                children.push((path, inner, open && public, item_features));
            }
            syn::Item::Use(u) => {
                for (name, path) in use_leaves(&u.tree, Vec::new()) {
                    if !name.is_empty() && name != "_" {
                        module
                            .uses
                            .push((name, path, item_features.clone(), public));
                    }
                }
            }
            _ => {
                if let (true, Some((name, kind))) = (public, name_and_kind(item)) {
                    module.items.push((name, kind, item_features));
                }
            }
        }
    }
    modules.insert(at, module);
    for (path, inner, open, features) in children {
        gather(files, modules, path, inner, open, features);
    }
}

fn attrs_and_vis(item: &syn::Item) -> Option<(&[syn::Attribute], &syn::Visibility)> {
    Some(match item {
        syn::Item::Const(i) => (&i.attrs, &i.vis),
        syn::Item::Enum(i) => (&i.attrs, &i.vis),
        syn::Item::Fn(i) => (&i.attrs, &i.vis),
        syn::Item::Mod(i) => (&i.attrs, &i.vis),
        syn::Item::Static(i) => (&i.attrs, &i.vis),
        syn::Item::Struct(i) => (&i.attrs, &i.vis),
        syn::Item::Trait(i) => (&i.attrs, &i.vis),
        syn::Item::Type(i) => (&i.attrs, &i.vis),
        syn::Item::Union(i) => (&i.attrs, &i.vis),
        syn::Item::Use(i) => (&i.attrs, &i.vis),
        _ => return None,
    })
}

fn name_and_kind(item: &syn::Item) -> Option<(String, &'static str)> {
    Some(match item {
        syn::Item::Const(i) => (i.ident.to_string(), "const"),
        syn::Item::Enum(i) => (i.ident.to_string(), "enum"),
        syn::Item::Fn(i) => (i.sig.ident.to_string(), "fn"),
        syn::Item::Static(i) => (i.ident.to_string(), "static"),
        syn::Item::Struct(i) => (i.ident.to_string(), "struct"),
        syn::Item::Trait(i) => (i.ident.to_string(), "trait"),
        syn::Item::Type(i) => (i.ident.to_string(), "type"),
        syn::Item::Union(i) => (i.ident.to_string(), "union"),
        _ => return None,
    })
}

/// `#[doc(hidden)]`.
fn is_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && a.parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "hidden")
    })
}

/// `#[cfg(test)]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

/// The features a `#[cfg(feature = "..")]` (or an `any`/`all` of them) names.
fn features_of(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut features = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
        let tokens = attr
            .meta
            .require_list()
            .map(|l| l.tokens.to_string())
            .unwrap_or_default();
        let mut rest = tokens.as_str();
        while let Some(at) = rest.find("feature = \"") {
            rest = &rest[at + "feature = \"".len()..];
            if let Some(end) = rest.find('"') {
                features.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    features
}

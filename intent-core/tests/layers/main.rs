//! The layout, held by tests: layers that point one way, one shape per vendor folder, a
//! `__private` module that serves the derive alone, and a public surface that changes only on
//! purpose.
//!
//! - here: the crate's import graph has no cycle (below);
//! - `derive`: nor has the derive's, and `__private` holds only what generated code names;
//! - `vendors`: every vendor folder under `provider/` has the same files;
//! - `surface`: the public items, each at one path, are the list in `ARCHITECTURE.md`.
//!
//! The import graph: every source file under `src/` is parsed; every path it names (`use` trees,
//! paths in types and expressions, and `crate::`/`super::`/`self::` paths inside macro calls) is
//! resolved to the file module that defines it, root re-exports followed (`crate::IntentError` is
//! `error`). Then, at every level of the module tree (the crate's top-level modules, each folder
//! module's children), the modules must form no import cycle: a module's whole subtree counts as
//! one node for its siblings.
//!
//! `cargo test -p intent-core --test layers -- --nocapture` prints the top-level modules in
//! layers, each importing only from the layers before it.

mod derive;
mod surface;
mod vendors;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path from the crate root: `[]` for `lib.rs`, `["read", "skim"]` for `read/skim.rs`.
type ModPath = Vec<String>;

/// Cycles not yet broken, each as (the parent module, the siblings in the cycle). Each entry must
/// still exist: remove it when its cycle is broken.
const KNOWN_CYCLES: &[(&str, &[&str])] = &[];

#[test]
fn the_import_graph_has_no_cycle_at_any_level() {
    let sources = read_sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let graph = Graph::build(&sources);

    // The graph is really built: a few edges every version of the crate has.
    for (from, to) in [
        ("attempt", "prompt"),
        ("provider", "error"),
        ("read", "shape"),
    ] {
        assert!(
            graph.edges_between(&[], from, to),
            "expected `{from}` to import `{to}`; the graph is not being read"
        );
    }

    eprintln!("top-level modules, in layers (each imports only from the layers before it):");
    for (level, modules) in graph.layers(&[]).iter().enumerate() {
        eprintln!("  {level}: {}", modules.join(", "));
    }

    let found: BTreeSet<(String, Vec<String>)> = graph.cycles().into_iter().collect();
    let known: BTreeSet<(String, Vec<String>)> = KNOWN_CYCLES
        .iter()
        .map(|(parent, members)| {
            let mut members: Vec<String> = members.iter().map(|m| m.to_string()).collect();
            members.sort();
            (parent.to_string(), members)
        })
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    assert!(
        new.is_empty(),
        "import cycles (parent module, siblings that import each other): {new:?}"
    );
    let stale: Vec<_> = known.difference(&found).collect();
    assert!(
        stale.is_empty(),
        "these cycles are broken now; remove them from KNOWN_CYCLES: {stale:?}"
    );
}

#[test]
fn the_checker_finds_cycles_through_uses_paths_macros_and_reexports() {
    let sources = BTreeMap::from([
        (
            "lib.rs".to_owned(),
            "mod a; mod b; mod c; mod d; pub use d::Thing;".to_owned(),
        ),
        // a -> b through a use tree.
        ("a.rs".to_owned(), "use crate::{b::{self, X}};".to_owned()),
        // b -> a only inside a macro call.
        (
            "b.rs".to_owned(),
            "pub struct X; fn f() -> String { format!(\"{}\", crate::a::NAME) }".to_owned(),
        ),
        // c -> d through a root re-export; d -> c through a path in an expression.
        ("c.rs".to_owned(), "fn f(_: crate::Thing) {}".to_owned()),
        (
            "d/mod.rs".to_owned(),
            "mod e; pub struct Thing; fn g() { crate::c::f(Thing) }".to_owned(),
        ),
        // A child naming its parent is no cycle among siblings.
        ("d/e.rs".to_owned(), "use super::Thing;".to_owned()),
    ]);
    let graph = Graph::build(&sources);
    let cycles = graph.cycles();
    assert_eq!(
        cycles,
        vec![
            (String::new(), vec!["a".to_owned(), "b".to_owned()]),
            (String::new(), vec!["c".to_owned(), "d".to_owned()]),
        ]
    );
}

/// Every `.rs` file under `dir`, by its path relative to `dir` (`read/skim.rs`).
fn read_sources(dir: &Path) -> BTreeMap<String, String> {
    let mut sources = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", folder.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(dir).expect("under src");
                let name = relative.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                sources.insert(name, text);
            }
        }
    }
    sources
}

/// `read/skim.rs` is `["read", "skim"]`; `read/mod.rs` is `["read"]`; `lib.rs` is `[]`.
fn module_of_file(file: &str) -> ModPath {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Which file module imports which.
struct Graph {
    files: BTreeSet<ModPath>,
    edges: BTreeSet<(ModPath, ModPath)>,
}

impl Graph {
    fn build(sources: &BTreeMap<String, String>) -> Graph {
        let mut parsed = BTreeMap::new();
        for (file, text) in sources {
            let ast = syn::parse_file(text).unwrap_or_else(|e| panic!("cannot parse {file}: {e}"));
            parsed.insert(module_of_file(file), ast);
        }
        let files: BTreeSet<ModPath> = parsed.keys().cloned().collect();

        let mut modules = files.clone();
        let mut references = Vec::new();
        let mut reexports = BTreeMap::new();
        for (module, ast) in &parsed {
            let mut collector = Collector {
                current: module.clone(),
                inline: Vec::new(),
                references: Vec::new(),
            };
            collector.visit_file(ast);
            modules.extend(collector.inline);
            references.extend(collector.references);
            if module.is_empty() {
                for item in &ast.items {
                    if let syn::Item::Use(item) = item {
                        for (name, path) in use_leaves(&item.tree, Vec::new()) {
                            reexports.insert(name, path);
                        }
                    }
                }
            }
        }
        let resolver = Resolver {
            files: &files,
            modules: &modules,
            reexports: &reexports,
        };
        let mut edges = BTreeSet::new();
        for (from, path) in references {
            let Some(target) = resolver.resolve(&from, &path) else {
                continue;
            };
            let from = resolver.file_of(&from);
            if from != target {
                edges.insert((from, target));
            }
        }
        Graph { files, edges }
    }

    /// The direct children of `parent` among the file modules.
    fn children(&self, parent: &[String]) -> BTreeSet<String> {
        self.files
            .iter()
            .filter(|m| m.len() > parent.len() && m.starts_with(parent))
            .map(|m| m[parent.len()].clone())
            .collect()
    }

    /// The imports among `parent`'s children, each child standing for its whole subtree.
    fn sibling_edges(&self, parent: &[String]) -> BTreeMap<String, BTreeSet<String>> {
        let depth = parent.len();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in &self.edges {
            let (Some(a), Some(b)) = (from.get(depth), to.get(depth)) else {
                continue;
            };
            if from.starts_with(parent) && to.starts_with(parent) && a != b {
                edges.entry(a.clone()).or_default().insert(b.clone());
            }
        }
        edges
    }

    fn edges_between(&self, parent: &[String], from: &str, to: &str) -> bool {
        self.sibling_edges(parent)
            .get(from)
            .is_some_and(|targets| targets.contains(to))
    }

    /// Every import cycle, as (the parent module joined with `::`, the siblings in it, sorted).
    fn cycles(&self) -> Vec<(String, Vec<String>)> {
        let mut parents: BTreeSet<ModPath> = BTreeSet::new();
        for module in &self.files {
            for depth in 0..module.len() {
                parents.insert(module[..depth].to_vec());
            }
        }
        let mut cycles = Vec::new();
        for parent in parents {
            let nodes = self.children(&parent);
            let edges = self.sibling_edges(&parent);
            for component in strongly_connected(&nodes, &edges) {
                if component.len() > 1 {
                    cycles.push((parent.join("::"), component));
                }
            }
        }
        cycles.sort();
        cycles
    }

    /// `parent`'s children in layers: each imports only from earlier layers (when there is no cycle).
    fn layers(&self, parent: &[String]) -> Vec<Vec<String>> {
        let edges = self.sibling_edges(parent);
        let mut left = self.children(parent);
        let mut placed: BTreeSet<String> = BTreeSet::new();
        let mut layers = Vec::new();
        while !left.is_empty() {
            let layer: Vec<String> = left
                .iter()
                .filter(|m| {
                    edges
                        .get(*m)
                        .is_none_or(|targets| targets.iter().all(|t| placed.contains(t)))
                })
                .cloned()
                .collect();
            if layer.is_empty() {
                layers.push(left.into_iter().collect());
                break;
            }
            for module in &layer {
                left.remove(module);
                placed.insert(module.clone());
            }
            layers.push(layer);
        }
        layers
    }
}

/// Tarjan's strongly connected components of a small graph.
fn strongly_connected(
    nodes: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<Vec<String>> {
    struct State<'g> {
        edges: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<String>>,
    }
    fn visit<'g>(state: &mut State<'g>, node: &'g str) {
        let index = state.index.len();
        state.index.insert(node, index);
        state.low.insert(node, index);
        state.stack.push(node);
        state.on_stack.insert(node);
        let edges = state.edges;
        for next in edges.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.push(member.to_owned());
                if member == node {
                    break;
                }
            }
            component.sort();
            state.components.push(component);
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in nodes {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.components
}

/// The leaves of a `use` tree: (the name it binds, the full path it names).
fn use_leaves(tree: &syn::UseTree, prefix: Vec<String>) -> Vec<(String, Vec<String>)> {
    let with = |name: &syn::Ident| {
        let mut path = prefix.clone();
        path.push(name.to_string());
        path
    };
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, with(&p.ident)),
        syn::UseTree::Name(n) if n.ident == "self" => {
            let name = prefix.last().cloned().unwrap_or_default();
            vec![(name, prefix)]
        }
        syn::UseTree::Name(n) => vec![(n.ident.to_string(), with(&n.ident))],
        syn::UseTree::Rename(r) if r.ident == "self" => vec![(r.rename.to_string(), prefix)],
        syn::UseTree::Rename(r) => vec![(r.rename.to_string(), with(&r.ident))],
        syn::UseTree::Glob(_) => vec![(String::new(), prefix)],
        syn::UseTree::Group(g) => g
            .items
            .iter()
            .flat_map(|item| use_leaves(item, prefix.clone()))
            .collect(),
    }
}

/// Gathers, for one file, every path it names and the inline modules it declares.
struct Collector {
    /// The module being visited: the file's, then any inline module inside it.
    current: ModPath,
    inline: Vec<ModPath>,
    /// (the module the path is written in, the path's segments).
    references: Vec<(ModPath, Vec<String>)>,
}

impl Collector {
    fn record(&mut self, segments: Vec<String>) {
        if !segments.is_empty() {
            self.references.push((self.current.clone(), segments));
        }
    }

    /// `crate::a::b`, `super::x`, `self::y` and `intent_core::z` sequences in a macro's tokens.
    fn scan_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(group) => self.scan_tokens(group.stream()),
                TokenTree::Ident(ident)
                    if ["crate", "super", "self", "intent_core"]
                        .contains(&ident.to_string().as_str()) =>
                {
                    let mut segments = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
                        (tokens.get(j), tokens.get(j + 1))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        let Some(TokenTree::Ident(next)) = tokens.get(j + 2) else {
                            break;
                        };
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.record(segments);
                    }
                    i = j.max(i + 1) - 1;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_none() {
            return;
        }
        self.current.push(item.ident.to_string());
        self.inline.push(self.current.clone());
        syn::visit::visit_item_mod(self, item);
        self.current.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        for (_, path) in use_leaves(&item.tree, Vec::new()) {
            self.record(path);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.record(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.scan_tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// `path`, written in module `at`, from the crate root, when it starts at `crate`, `self` or
/// `super`.
fn anchored(at: &ModPath, path: &[String]) -> Option<Vec<String>> {
    Some(match path.first()?.as_str() {
        "crate" => path[1..].to_vec(),
        "self" => at.iter().chain(&path[1..]).cloned().collect(),
        "super" => {
            let mut base = at.clone();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            base
        }
        _ => return None,
    })
}

/// Resolves written paths to the file modules that define what they name.
struct Resolver<'g> {
    files: &'g BTreeSet<ModPath>,
    /// File modules and inline modules.
    modules: &'g BTreeSet<ModPath>,
    /// The crate root's `use` names and the paths they stand for.
    reexports: &'g BTreeMap<String, Vec<String>>,
}

impl Resolver<'_> {
    /// The file module that `path`, written in module `at`, names; `None` for other crates, local
    /// items and the crate root itself.
    fn resolve(&self, at: &ModPath, path: &[String]) -> Option<ModPath> {
        let absolute = match anchored(at, path) {
            Some(absolute) => absolute,
            None if path[0] == "intent_core" => path[1..].to_vec(),
            None => {
                let mut child = at.clone();
                child.push(path[0].clone());
                if !self.modules.contains(&child) {
                    return None;
                }
                at.iter().chain(path).cloned().collect()
            }
        };
        self.module_named(absolute, 0)
    }

    /// The file module that an absolute path falls in, following the root's re-exports.
    fn module_named(&self, absolute: Vec<String>, hops: usize) -> Option<ModPath> {
        let depth = (0..=absolute.len())
            .rev()
            .find(|&k| self.modules.contains(&absolute[..k].to_vec()))
            .unwrap_or(0);
        if depth == 0 {
            let target = self.reexports.get(absolute.first()?)?;
            if hops > 4 {
                return None;
            }
            let mut followed: Vec<String> = match target.first().map(String::as_str) {
                Some("crate" | "self") => target[1..].to_vec(),
                _ => target.clone(),
            };
            followed.extend(absolute[1..].iter().cloned());
            return self.module_named(followed, hops + 1);
        }
        Some(self.file_of(&absolute[..depth].to_vec()))
    }

    /// The file module an (inline or file) module is written in.
    fn file_of(&self, module: &ModPath) -> ModPath {
        (0..=module.len())
            .rev()
            .map(|k| module[..k].to_vec())
            .find(|prefix| self.files.contains(prefix))
            .unwrap_or_default()
    }
}

//! One shape per vendor folder: every folder under `src/provider/` whose `mod.rs` implements
//! `Vendor` holds the same files, each with the same meaning (see `provider/http/mod.rs`), and
//! names no other vendor's folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::read_sources;

/// The files a vendor folder may hold, and what each is for.
const FILES: &[(&str, &str)] = &[
    (
        "mod.rs",
        "the vendor's type implementing Vendor, its settings, new and from_env",
    ),
    (
        "wire.rs",
        "the request body and the reply, for a vendor with one API",
    ),
    ("chat.rs", "OpenAI's Chat Completions request and reply"),
    ("responses.rs", "OpenAI's Responses request and reply"),
    (
        "parts.rs",
        "attachments as the vendor's content parts, and its attachment limits",
    ),
    ("events.rs", "the decoder of the vendor's streamed events"),
    ("batch.rs", "the vendor's batch API (VendorBatch)"),
    ("dialect.rs", "the JSON Schema dialect the vendor takes"),
    (
        "tools.rs",
        "tool calling: the tools offered, the rounds sent back, the calls a reply makes",
    ),
];

/// The files that write one API's request and reply: `wire.rs`, or one file per API.
const API_FILES: &[&str] = &["wire.rs", "chat.rs", "responses.rs"];

#[test]
fn every_vendor_folder_has_the_same_shape() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources = read_sources(&src);
    let folders = vendor_folders(&sources);
    assert!(
        ["openai", "anthropic", "gemini"]
            .iter()
            .all(|v| folders.contains_key(*v)),
        "expected the openai, anthropic and gemini folders among {:?}; the sources are not being \
         read",
        folders.keys().collect::<Vec<_>>()
    );
    let mut problems = Vec::new();
    for (vendor, files) in &folders {
        problems.extend(shape_problems(vendor, files, folders.keys()));
    }
    assert!(
        problems.is_empty(),
        "vendor folders out of shape:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_shape_check_finds_a_folder_out_of_shape() {
    let files = BTreeMap::from([
        (
            "mod.rs".to_owned(),
            "impl Vendor for Odd {\n    type Events = NoEvents;\n}\nuse super::openai::thing;"
                .to_owned(),
        ),
        ("stream.rs".to_owned(), String::new()),
        ("events.rs".to_owned(), String::new()),
    ]);
    let vendors = ["odd".to_owned(), "openai".to_owned()];
    let problems = shape_problems("odd", &files, vendors.iter());
    let expected = [
        "odd/stream.rs",
        "odd has no parts.rs",
        "odd has neither wire.rs nor one file per API",
        "odd has events.rs but its Vendor impl says `type Events = NoEvents`",
        "odd has no `pub type ...Provider = HttpProvider<...>`",
        "odd/mod.rs names the openai folder",
    ];
    for fragment in expected {
        assert!(
            problems.iter().any(|p| p.contains(fragment)),
            "expected a problem about {fragment:?} in {problems:#?}"
        );
    }
}

/// The vendor folders under `provider/`, each with its files' sources by file name.
fn vendor_folders(
    sources: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut folders: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (path, text) in sources {
        let parts: Vec<&str> = path.split('/').collect();
        if let ["provider", folder, file] = parts[..] {
            folders
                .entry(folder.to_owned())
                .or_default()
                .insert(file.to_owned(), text.clone());
        }
    }
    folders.retain(|_, files| {
        files
            .get("mod.rs")
            .is_some_and(|text| text.lines().any(|l| l.starts_with("impl Vendor for ")))
    });
    folders
}

/// What is wrong with the folder of `vendor`, holding `files`, among `vendors`.
fn shape_problems<'v>(
    vendor: &str,
    files: &BTreeMap<String, String>,
    vendors: impl Iterator<Item = &'v String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let known: BTreeSet<&str> = FILES.iter().map(|(name, _)| *name).collect();
    for file in files.keys() {
        if !known.contains(file.as_str()) {
            problems.push(format!(
                "{vendor}/{file}: not one of a vendor folder's files ({})",
                FILES
                    .iter()
                    .map(|(name, what)| format!("{name}: {what}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    if !files.contains_key("parts.rs") {
        problems.push(format!("{vendor} has no parts.rs"));
    }
    let api_files = API_FILES.iter().filter(|f| files.contains_key(**f)).count();
    let one_api = files.contains_key("wire.rs") && api_files == 1;
    let per_api = !files.contains_key("wire.rs") && api_files >= 2;
    if !(one_api || per_api) {
        problems.push(format!(
            "{vendor} has neither wire.rs nor one file per API (it has {api_files} of {API_FILES:?})"
        ));
    }
    let module = files.get("mod.rs").map(String::as_str).unwrap_or_default();
    let whole = module
        .lines()
        .any(|l| l.trim() == "type Events = NoEvents;");
    match (files.contains_key("events.rs"), whole) {
        (true, true) => problems.push(format!(
            "{vendor} has events.rs but its Vendor impl says `type Events = NoEvents`"
        )),
        (false, false) => problems.push(format!(
            "{vendor} streams events but has no events.rs for their decoder"
        )),
        _ => {}
    }
    let batch = files
        .values()
        .any(|text| text.lines().any(|l| l.starts_with("impl VendorBatch for ")));
    if batch != files.contains_key("batch.rs") {
        problems.push(format!(
            "{vendor}: batch.rs and `impl VendorBatch` go together (batch.rs: {}, impl: {batch})",
            files.contains_key("batch.rs")
        ));
    }
    if !module.contains("Provider = HttpProvider<") {
        problems.push(format!(
            "{vendor} has no `pub type ...Provider = HttpProvider<...>` in mod.rs"
        ));
    }
    for other in vendors.filter(|other| other.as_str() != vendor) {
        for (file, text) in files {
            let named = [
                format!("super::{other}::"),
                format!("super::{other};"),
                format!("provider::{other}::"),
                format!("super::super::{other}"),
            ];
            if named.iter().any(|n| text.contains(n.as_str())) {
                problems.push(format!(
                    "{vendor}/{file} names the {other} folder: what two vendors share lives beside \
                     them in provider/, not in one of them"
                ));
            }
        }
    }
    problems
}

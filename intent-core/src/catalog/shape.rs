//! What a compiled intent answers with: a Rust type, by its label, or a JSON Schema. Shared by the
//! intent and its tests.

use super::schema::SchemaShape;

/// The label of `String`: an intent with this shape is answered in plain text.
pub(crate) const TEXT_SHAPE: &str = "string";

/// An intent's shape, as compiled from its file.
#[derive(Debug)]
pub(crate) enum Shape {
    /// A Rust type, by the label its description starts with.
    Named(String),
    /// A JSON Schema, checked and ready to validate replies.
    Schema(Box<SchemaShape>),
}

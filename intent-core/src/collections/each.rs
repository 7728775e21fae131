//! The element of a `map_each` chunk's answer, `{"index": i, "value": ..}`, as a type: its shape is
//! what the model is asked for, and a well-formed reply is read straight into a list of it.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::intent::Intent;
use crate::shape::{Field, IntKind, Node, NodeId, Scalar, ShapeGraph, StructKind, StructShape};

/// One element of a `map_each` answer: the index of the input element it answers, and its value.
#[derive(Debug, Deserialize)]
#[serde(bound = "O: DeserializeOwned")]
pub(crate) struct EachItem<O> {
    pub(crate) index: usize,
    pub(crate) value: O,
}

impl<O: Intent> Intent for EachItem<O> {
    const __STRICT_HINT: bool = O::__STRICT_HINT;

    /// `ElementResult { ulong index; O value }`.
    fn shape(graph: &mut ShapeGraph) -> NodeId {
        let value = O::shape(graph);
        let index = graph.scalar(Scalar::Int(IntKind::Usize));
        let mut index_field = Field::new("index", index);
        index_field.doc = Some("The index of the input element this answers.".into());
        let mut value_field = Field::new("value", value);
        value_field.doc = Some("The result for that input element.".into());
        graph.add(Node::Struct(StructShape {
            name: "ElementResult".into(),
            doc: Some("The result for one input element.".into()),
            kind: StructKind::Named(vec![index_field, value_field]),
        }))
    }
}

use intent_core::Intent;
use serde::Deserialize;

/// A type read by hand: it implements `Intent` but not `HasPartial`.
#[derive(Deserialize)]
struct Custom(String);

impl Intent for Custom {
    fn shape(
        graph: &mut intent_core::__private::shape::ShapeGraph,
    ) -> intent_core::__private::shape::NodeId {
        <String as Intent>::shape(graph)
    }
}

#[derive(Deserialize, Intent)]
#[intent(partial)]
struct Order {
    custom: Custom,
}

fn main() {}

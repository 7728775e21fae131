//! `#[serde(other)]` on a unit variant: any tag naming no variant reads as it, on the fast path and
//! the lenient one alike, and the description tells the model so.

use intent_core::read::read_reply;
use intent_core::Intent;
use serde::Deserialize;

/// The state of a ticket.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Intent)]
enum Status {
    Open,
    Closed,
    /// Any state this program does not know.
    #[serde(other)]
    Unknown,
}

#[derive(Debug, PartialEq, Deserialize, Intent)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    Opened {
        by: String,
    },
    Closed,
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize, Intent)]
struct Ticket {
    status: Status,
    history: Vec<Event>,
    counts: std::collections::BTreeMap<Status, u32>,
}

fn read<T: Intent>(reply: &str) -> T {
    read_reply::<T>(&T::type_info(), reply).unwrap_or_else(|issues| panic!("{reply}: {issues:?}"))
}

#[test]
fn an_unknown_tag_reads_as_the_other_variant_in_every_representation() {
    assert_eq!(read::<Status>(r#"{"value": "Pending"}"#), Status::Unknown);
    assert_eq!(read::<Status>(r#"{"value": "Closed"}"#), Status::Closed);
    // Another case of a known name is that variant, not `other` (the lenient reader's rule).
    assert_eq!(read::<Status>(r#"{"value": "closed"}"#), Status::Closed);
    assert_eq!(read::<Status>(r#"{"value": " Open "}"#), Status::Open);
    assert_eq!(
        read::<Event>(r#"{"value": {"type": "reopened", "by": "x"}}"#),
        Event::Other
    );
    assert_eq!(
        read::<Event>(r#"{"value": {"type": "opened", "by": "Dana"}}"#),
        Event::Opened { by: "Dana".into() }
    );
    // Inside a struct, in a list and as map keys; a lenient reply (a trailing comma) too.
    let ticket = read::<Ticket>(
        r#"{"value": {"status": "Escalated", "history": [{"type": "closed"}, {"type": "moved"}],
            "counts": {"Open": 1, "Merged": 2, "Split": 3},}}"#,
    );
    assert_eq!(ticket.status, Status::Unknown);
    assert_eq!(ticket.history, vec![Event::Closed, Event::Other]);
    assert_eq!(ticket.counts.get(&Status::Open), Some(&1));
    // serde reads both unknown keys as `Unknown`; the later one wins, as serde decides.
    assert_eq!(ticket.counts.get(&Status::Unknown), Some(&3));
}

#[test]
fn a_number_is_still_no_variant_name() {
    let issues = read_reply::<Status>(&Status::type_info(), r#"{"value": 1}"#).unwrap_err();
    assert!(
        issues[0].message.contains("numbers are not accepted"),
        "{issues:?}"
    );
}

#[test]
fn the_description_names_the_other_variant_as_the_one_for_anything_else() {
    assert_eq!(
        Status::describe(),
        "Status\n where Status /* The state of a ticket. */ is one of: Open, Closed, Unknown (when \
         no other fits)"
    );
    assert!(
        Event::describe().contains(r#"{ "type": "other" } (when no other fits)"#),
        "{}",
        Event::describe()
    );
    // The strict schema lists the names, the other variant's among them.
    let schema = Status::strict_envelope_schema().unwrap();
    assert_eq!(
        schema["properties"]["value"]["enum"],
        serde_json::json!(["Open", "Closed", "Unknown"])
    );
}

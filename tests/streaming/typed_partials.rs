//! Typed partials (`#[intent(partial)]`, `Partial::value`) on the scripted model: at every chunk
//! size, every partial agrees with the final value, the last equals it, a retry starts from
//! empty, a member that fails its checks never shows, and renamed members read.

use futures::StreamExt;
use intent_core::prelude::*;
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
pub enum Priority {
    Low,
    High,
}

/// Where a shipment goes.
#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
#[intent(partial)]
pub struct Address {
    pub street: String,
    pub city: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
#[intent(partial)]
pub struct Parcel {
    pub label: String,
    #[intent(maximum = 100)]
    pub kg: u32,
}

/// Without `#[intent(partial)]`: complete or nothing. Both members may be missing, so an
/// unfinished object would read as one if the typed reader did not know it is open.
#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
pub struct Carrier {
    pub name: Option<String>,
    pub code: Option<String>,
}

/// A shipment read from a message.
#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
#[serde(rename_all = "camelCase")]
#[intent(partial)]
pub struct Shipment {
    #[serde(rename = "ref")]
    pub reference: String,
    #[serde(alias = "weight")]
    pub total_weight: u32,
    pub priority: Priority,
    pub destination: Address,
    pub parcels: Vec<Parcel>,
    pub note: Option<String>,
    pub carrier: Carrier,
}

const SHIPMENT: &str = r#"{"value": {"ref": "SH-20931", "totalWeight": 42, "priority": "high",
  "destination": {"street": "12 Quay Road", "city": "Leith"},
  "parcels": [{"label": "frames", "kg": 30}, {"label": "glass panes", "kg": 12}],
  "note": null, "carrier": {"name": "Northline", "code": "NL-7"}}}"#;

fn shipment() -> Shipment {
    Shipment {
        reference: "SH-20931".into(),
        total_weight: 42,
        priority: Priority::High,
        destination: Address {
            street: "12 Quay Road".into(),
            city: "Leith".into(),
        },
        parcels: vec![
            Parcel {
                label: "frames".into(),
                kg: 30,
            },
            Parcel {
                label: "glass panes".into(),
                kg: 12,
            },
        ],
        note: None,
        carrier: Carrier {
            name: Some("Northline".into()),
            code: Some("NL-7".into()),
        },
    }
}

/// The final value as its partial, written out by hand.
fn shipment_partial() -> ShipmentPartial {
    ShipmentPartial {
        reference: Some("SH-20931".into()),
        total_weight: Some(42),
        priority: Some(Priority::High),
        destination: Some(AddressPartial {
            street: Some("12 Quay Road".into()),
            city: Some("Leith".into()),
        }),
        parcels: Some(vec![
            ParcelPartial {
                label: Some("frames".into()),
                kg: Some(30),
            },
            ParcelPartial {
                label: Some("glass panes".into()),
                kg: Some(12),
            },
        ]),
        note: Some(None),
        carrier: Some(shipment().carrier),
    }
}

fn prefix(shown: &Option<String>, of: &str, what: &str) {
    if let Some(shown) = shown {
        assert!(
            of.starts_with(shown.as_str()),
            "{what}: {shown:?} is not a prefix of {of:?}"
        );
    }
}

/// Every member shown agrees with `done`: text a prefix, everything else equal.
fn agrees(partial: &ShipmentPartial, done: &Shipment) {
    prefix(&partial.reference, &done.reference, "ref");
    if let Some(weight) = partial.total_weight {
        assert_eq!(weight, done.total_weight);
    }
    if let Some(priority) = &partial.priority {
        assert_eq!(priority, &done.priority);
    }
    if let Some(destination) = &partial.destination {
        prefix(&destination.street, &done.destination.street, "street");
        prefix(&destination.city, &done.destination.city, "city");
    }
    if let Some(parcels) = &partial.parcels {
        assert!(parcels.len() <= done.parcels.len());
        for (shown, parcel) in parcels.iter().zip(&done.parcels) {
            prefix(&shown.label, &parcel.label, "label");
            if let Some(kg) = shown.kg {
                assert_eq!(kg, parcel.kg);
            }
        }
    }
    match &partial.note {
        Some(Some(note)) => prefix(
            &Some(note.clone()),
            done.note.as_deref().unwrap_or(""),
            "note",
        ),
        Some(None) => assert_eq!(done.note, None),
        None => {}
    }
    if let Some(carrier) = &partial.carrier {
        assert_eq!(carrier, &done.carrier);
    }
}

/// The partials of one streamed call, each with whether it started over, and the result.
async fn stream_shipment(model: ScriptedProvider) -> (Vec<Partial<Shipment>>, AiResult<Shipment>) {
    let client = IntentClient::new(model);
    let mut stream = Shipment::ai(&client, "message", "Read the shipment.").stream();
    let mut partials = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            StreamEvent::Partial(partial) => partials.push(partial),
            StreamEvent::Done(result) => return (partials, result),
            _ => {}
        }
    }
    panic!("the stream ended without Done");
}

#[tokio::test]
async fn typed_partials_agree_with_the_final_value_at_every_chunk_size() {
    let done = shipment();
    let chars = SHIPMENT.chars().count();
    for chunk in 1..=chars {
        let model = ScriptedProvider::new([SHIPMENT]).with_stream_chunk_chars(chunk);
        let (partials, result) = stream_shipment(model).await;
        assert_eq!(
            result.value(),
            Some(&done),
            "chunk {chunk}: {:?}",
            result.issues()
        );
        let mut parcels = 0;
        let mut last = None;
        for partial in &partials {
            let Some(typed) = partial.value() else {
                continue;
            };
            agrees(&typed, &done);
            let now = typed.parcels.as_ref().map_or(0, Vec::len);
            assert!(
                now >= parcels,
                "chunk {chunk}: the parcels shrank from {parcels} to {now}"
            );
            parcels = now;
            last = Some(typed);
        }
        assert_eq!(last, Some(shipment_partial()), "chunk {chunk}");
    }
}

#[tokio::test]
async fn a_growing_answer_shows_its_members_as_they_come() {
    let model = ScriptedProvider::new([SHIPMENT]).with_stream_chunk_chars(1);
    let (partials, _) = stream_shipment(model).await;
    let typed: Vec<ShipmentPartial> = partials.iter().filter_map(Partial::value).collect();
    // The reference grows one character at a time, the weight never shows a part of 42.
    assert!(typed.iter().any(|p| p.reference.as_deref() == Some("SH-2")));
    assert!(typed
        .iter()
        .all(|p| matches!(p.total_weight, None | Some(42))));
    // A nested partial struct with its street written and its city not yet.
    assert!(typed.iter().any(|p| p
        .destination
        .as_ref()
        .is_some_and(|d| d.street.is_some() && d.city.is_none())));
    // The list with its first element only, that element's label partly written.
    assert!(typed
        .iter()
        .any(|p| p.parcels.as_ref().is_some_and(|v| v.len() == 1
            && v[0].label.as_deref() == Some("fra")
            && v[0].kg.is_none())));
}

#[tokio::test]
async fn a_nested_type_without_partial_shows_only_once_complete() {
    let model = ScriptedProvider::new([SHIPMENT]).with_stream_chunk_chars(1);
    let (partials, _) = stream_shipment(model).await;
    let mut open_seen = false;
    for partial in &partials {
        let shown_in_json = partial.json().get("carrier").is_some();
        let typed = partial.value().and_then(|p| p.carrier);
        if shown_in_json && typed.is_none() {
            open_seen = true;
        }
        if let Some(carrier) = typed {
            assert_eq!(carrier, shipment().carrier);
        }
    }
    assert!(
        open_seen,
        "the carrier's object showed in the JSON while it was being written"
    );
}

#[tokio::test]
async fn a_retry_starts_the_typed_partial_from_empty() {
    // The first reply's second parcel weighs more than the maximum: the attempt fails.
    let bad = SHIPMENT
        .replace("SH-20931", "OLD-77")
        .replace("\"kg\": 12", "\"kg\": 500");
    for chunk in [1, 3, 16] {
        let model = ScriptedProvider::new([bad.as_str(), SHIPMENT]).with_stream_chunk_chars(chunk);
        let (partials, result) = stream_shipment(model).await;
        assert_eq!(result.value(), Some(&shipment()));
        let restart = partials
            .iter()
            .position(|p| p.attempt() == 2)
            .expect("a partial of the second attempt");
        assert!(partials[restart].is_restart());
        let first = partials[restart].value().unwrap_or_default();
        assert!(
            first.parcels.is_none() && first.destination.is_none(),
            "chunk {chunk}: the second attempt started with {first:?}"
        );
        for partial in &partials[..restart] {
            let typed = partial.value().unwrap_or_default();
            // The parcel that fails its maximum never shows.
            for parcel in typed.parcels.iter().flatten() {
                assert_ne!(parcel.kg, Some(500), "chunk {chunk}");
            }
        }
        for partial in &partials[restart..] {
            let typed = partial.value().unwrap_or_default();
            assert!(!typed.reference.unwrap_or_default().starts_with("OLD"));
            agrees(&partial.value().unwrap_or_default(), &shipment());
        }
    }
}

#[tokio::test]
async fn members_that_fail_their_checks_never_appear() {
    let bad = SHIPMENT
        .replace("\"high\"", "\"urgent\"")
        .replace("42", "\"forty-two\"")
        .replace("\"kg\": 30", "\"kg\": -3");
    let model = ScriptedProvider::new([bad.as_str(), SHIPMENT]).with_stream_chunk_chars(2);
    let (partials, result) = stream_shipment(model).await;
    assert!(result.is_success());
    let first: Vec<ShipmentPartial> = partials
        .iter()
        .filter(|p| p.attempt() == 1)
        .filter_map(Partial::value)
        .collect();
    assert!(!first.is_empty());
    for typed in &first {
        assert_eq!(typed.priority, None);
        assert_eq!(typed.total_weight, None);
        // The first parcel shows while open, never with its weight, and nothing after it.
        let parcels = typed.parcels.as_deref().unwrap_or_default();
        assert!(parcels.len() <= 1, "{typed:?}");
        assert!(parcels.iter().all(|p| p.kg.is_none()), "{typed:?}");
    }
    // Once the list closed with a failed element, the whole list is left out.
    let last = first.last().unwrap();
    assert_eq!(last.parcels, None, "{last:?}");
    // What passed did show.
    assert!(first.iter().any(|p| p.carrier == Some(shipment().carrier)));
}

#[tokio::test]
async fn renamed_and_aliased_members_read_under_their_wire_names() {
    // `weight` is an alias of `totalWeight`; names in another case read too.
    let reply = SHIPMENT
        .replace("\"totalWeight\"", "\"weight\"")
        .replace("\"ref\"", "\"REF\"");
    let model = ScriptedProvider::new([reply]).with_stream_chunk_chars(5);
    let (partials, result) = stream_shipment(model).await;
    assert_eq!(result.value(), Some(&shipment()));
    let last = partials.last().and_then(Partial::value);
    assert_eq!(last, Some(shipment_partial()));
}

#[tokio::test]
async fn a_list_answer_reads_as_its_elements_so_far() {
    let reply = r#"{"value": [{"label": "frames", "kg": 30}, {"label": "glass", "kg": 12}]}"#;
    let model = ScriptedProvider::new([reply]).with_stream_chunk_chars(1);
    let client = IntentClient::new(model);
    let mut stream = <Vec<Parcel>>::ai(&client, "two parcels", "List the parcels.").stream();
    let mut lengths = Vec::new();
    let mut last = None;
    while let Some(event) = stream.next().await {
        if let StreamEvent::Partial(partial) = event {
            let parcels: Vec<ParcelPartial> = partial.value().expect("a list");
            lengths.push(parcels.len());
            last = Some(parcels);
        }
    }
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
    assert!(lengths.contains(&1));
    assert_eq!(
        last,
        Some(vec![
            ParcelPartial {
                label: Some("frames".into()),
                kg: Some(30)
            },
            ParcelPartial {
                label: Some("glass".into()),
                kg: Some(12)
            },
        ])
    );
}

#[tokio::test]
async fn a_text_answer_reads_as_the_text_so_far() {
    let model =
        ScriptedProvider::new(["Dear Dana, your order ships today."]).with_stream_chunk_chars(6);
    let client = IntentClient::new(model);
    let mut stream = String::ai(&client, "order", "Write the notice.").stream();
    let mut texts = Vec::new();
    while let Some(event) = stream.next().await {
        if let StreamEvent::Partial(partial) = event {
            texts.push(partial.value().expect("text"));
        }
    }
    assert_eq!(texts.first().map(String::as_str), Some("Dear D"));
    assert_eq!(
        texts.last().map(String::as_str),
        Some("Dear Dana, your order ships today.")
    );
}

/// Members held in a nested object of the wire form's own level, and a member not read at all.
#[derive(Debug, Clone, PartialEq, Deserialize, Intent)]
#[serde(rename_all = "kebab-case")]
#[intent(partial)]
pub struct Contact {
    pub full_name: String,
    #[serde(flatten)]
    pub address: Address,
    #[serde(skip)]
    pub internal_id: u64,
}

#[tokio::test]
async fn flattened_members_read_from_the_same_object_and_skipped_ones_are_absent() {
    // Bare and enveloped: the flattened member has no member called `value`, so `{"value": ..}`
    // is the envelope for the partial view as for the final reading.
    let bare = r#"{"full-name": "Dana Ortiz", "street": "12 Quay Road", "city": "Leith"}"#;
    let enveloped = format!(r#"{{"value": {bare}}}"#);
    for reply in [bare, enveloped.as_str()] {
        let model = ScriptedProvider::new([reply]).with_stream_chunk_chars(4);
        let client = IntentClient::new(model);
        let mut stream = Contact::ai(&client, "card", "Read the contact.").stream();
        let mut last = None;
        while let Some(event) = stream.next().await {
            match event {
                StreamEvent::Partial(partial) => {
                    assert!(partial.json().get("value").is_none(), "{}", partial.json());
                    last = partial.value();
                }
                StreamEvent::Done(result) => {
                    assert!(result.is_success(), "{:?}", result.issues())
                }
                _ => {}
            }
        }
        // `ContactPartial` has no `internal_id`: constructing it names every member it has.
        let expected = ContactPartial {
            full_name: Some("Dana Ortiz".into()),
            address: Some(AddressPartial {
                street: Some("12 Quay Road".into()),
                city: Some("Leith".into()),
            }),
        };
        assert_eq!(last, Some(expected), "{reply}");
    }
}

//! The derive and the catalog read one rule table: every (rule, member type) pair is accepted or
//! refused alike, and the two former disagreements (`pattern` on a `Uuid`, `minimum` with
//! `exclusive_minimum`) are settled the same way on both sides.
#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use intent_core::__internals::rule_table::{fits, RuleKind, RuleNaming};
use intent_core::catalog::Catalog;
use intent_core::prelude::*;
use intent_core::read::read_reply;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, Intent)]
enum Level {
    Low,
    High,
}

#[derive(Debug, Deserialize, Intent)]
#[serde(tag = "kind")]
enum Tagged {
    Low,
    High,
}

#[derive(Debug, Deserialize, Intent)]
struct Point {
    x: i32,
}

#[derive(Debug, Deserialize, Intent)]
struct Sku(String);

#[derive(Debug, Deserialize, Intent)]
#[serde(transparent)]
struct Count {
    n: u32,
}

/// A value of each rule as an intent file writes it.
fn keyword_value(rule: RuleKind) -> Value {
    match rule {
        RuleKind::Minimum | RuleKind::MinLength | RuleKind::MinItems => json!(1),
        RuleKind::Maximum | RuleKind::MaxLength | RuleKind::MaxItems => json!(5),
        RuleKind::ExclusiveMinimum => json!(0),
        RuleKind::ExclusiveMaximum => json!(10),
        RuleKind::MultipleOf => json!(1),
        RuleKind::Pattern => json!("^a"),
        RuleKind::UniqueItems => json!(true),
        RuleKind::Allowed => json!([1]),
    }
}

/// For every rule, whether the catalog accepts it on a `T` equals the table's verdict on
/// `<T as Intent>::__RULE_TARGET`, which is what the derive's generated assertion evaluates.
fn walk<T: Intent>(checked: &mut usize) {
    let info = T::type_info();
    let label = info.graph().label(info.root());
    let target = <T as Intent>::__RULE_TARGET;
    for rule in RuleKind::ALL {
        let keyword = rule.name(RuleNaming::Keyword);
        let file = json!({"intents": [{
            "name": "probe",
            "intent": "Probe.",
            "shape": label,
            "rules": {"$": {keyword: keyword_value(rule)}}
        }]});
        let catalog = Catalog::parse("probe.json", &file.to_string())
            .unwrap_or_else(|e| panic!("{keyword} on {label}: the file does not load: {e}"));
        let catalog_accepts = catalog.check::<T>("probe");
        assert_eq!(
            catalog_accepts.is_ok(),
            fits(rule, target),
            "{keyword} on `{label}` ({}): the catalog says {catalog_accepts:?}, the table (and so \
             the derive) says {}",
            std::any::type_name::<T>(),
            fits(rule, target)
        );
        *checked += 1;
    }
}

#[test]
fn every_rule_on_every_kind_of_member_is_judged_alike_by_the_table_and_the_catalog() {
    let mut checked = 0;
    // Numbers.
    walk::<u8>(&mut checked);
    walk::<i64>(&mut checked);
    walk::<f64>(&mut checked);
    walk::<rust_decimal::Decimal>(&mut checked);
    walk::<Option<u32>>(&mut checked);
    walk::<Count>(&mut checked);
    // Text: whatever is a JSON string.
    walk::<String>(&mut checked);
    walk::<char>(&mut checked);
    walk::<chrono::NaiveDate>(&mut checked);
    walk::<chrono::NaiveTime>(&mut checked);
    walk::<chrono::NaiveDateTime>(&mut checked);
    walk::<chrono::DateTime<chrono::Utc>>(&mut checked);
    walk::<uuid::Uuid>(&mut checked);
    walk::<url::Url>(&mut checked);
    walk::<Level>(&mut checked);
    walk::<Sku>(&mut checked);
    walk::<Box<String>>(&mut checked);
    // Lists.
    walk::<Vec<u8>>(&mut checked);
    walk::<VecDeque<String>>(&mut checked);
    walk::<BTreeSet<u8>>(&mut checked);
    walk::<HashSet<String>>(&mut checked);
    walk::<[u8; 2]>(&mut checked);
    walk::<Option<Vec<Point>>>(&mut checked);
    // Nothing but `enum`.
    walk::<bool>(&mut checked);
    walk::<()>(&mut checked);
    walk::<HashMap<String, u8>>(&mut checked);
    walk::<(u8, String)>(&mut checked);
    walk::<Point>(&mut checked);
    walk::<Tagged>(&mut checked);
    walk::<Value>(&mut checked);
    walk::<serde_json::Map<String, Value>>(&mut checked);
    assert_eq!(checked, 31 * RuleKind::ALL.len());
}

/// A `Uuid` is text on the wire: `pattern` fits it in a derived type and in an intent file, and
/// is checked on the reply in both.
#[derive(Debug, Deserialize, Intent)]
struct Ticket {
    #[intent(pattern = "^[0-9a-f]{8}-[0-9a-f]{4}-4")]
    id: uuid::Uuid,
}

#[test]
fn a_pattern_on_a_uuid_is_accepted_and_checked_by_the_derive_and_the_catalog() {
    let v1 = r#"{"value": {"id": "6fa459ea-ee8a-1ca4-894e-db77e160355e"}}"#;
    let v4 = r#"{"value": {"id": "4f8b2c1e-6a3d-4b7e-9c2f-1a2b3c4d5e6f"}}"#;
    let issues = read_reply::<Ticket>(&Ticket::type_info(), v1).unwrap_err();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].path.as_deref(), Some("/value/id"));
    assert!(
        issues[0].message.contains("regular expression"),
        "{issues:?}"
    );
    assert!(read_reply::<Ticket>(&Ticket::type_info(), v4).is_ok());

    let catalog = Catalog::parse(
        "tickets.yaml",
        "intents:\n  - name: ticket-id\n    intent: Read the ticket's id.\n    shape: Guid\n    \
         rules:\n      $: { pattern: \"^[0-9a-f]{8}-[0-9a-f]{4}-4\" }\n",
    )
    .unwrap();
    catalog.check::<uuid::Uuid>("ticket-id").unwrap();
    let model = ScriptedProvider::new([
        r#"{"value": "6fa459ea-ee8a-1ca4-894e-db77e160355e"}"#,
        r#"{"value": "4f8b2c1e-6a3d-4b7e-9c2f-1a2b3c4d5e6f"}"#,
    ]);
    let client = IntentClient::new(model);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let id = rt.block_on(async {
        catalog
            .run::<uuid::Uuid>(&client, "ticket-id", "ticket 4f8b...")
            .await
    });
    assert_eq!(id.attempts().len(), 2);
    assert_eq!(
        id.attempts()[0].issues[0].path.as_deref(),
        Some("/value"),
        "{:?}",
        id.attempts()[0].issues
    );
    assert_eq!(
        id.into_result().unwrap().to_string(),
        "4f8b2c1e-6a3d-4b7e-9c2f-1a2b3c4d5e6f"
    );
}

/// The derive refuses `minimum` with `exclusive_minimum` (`ui/bounds_on_one_side.rs`); an intent
/// file is refused at load with the same words, its keyword names aside.
#[test]
fn an_inclusive_and_an_exclusive_lower_bound_are_refused_by_the_catalog_as_by_the_derive() {
    let error = Catalog::parse(
        "prices.yaml",
        "intents:\n  - name: price\n    intent: Read the price.\n    shape: double\n    \
         rules:\n      $: { minimum: 0, exclusiveMinimum: 0 }\n",
    )
    .unwrap_err();
    assert!(
        error.to_string().contains(
            "rule `$`: conflicting rules: `minimum` and `exclusiveMinimum` both bound the number \
             from below; keep one"
        ),
        "{error}"
    );
}

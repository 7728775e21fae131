//! The result types of the case sets, each three times: plain (the members alone), ruled (the
//! member rules and docs a careful user would add, samples in docs included) and grounded (the
//! ruled types with the members copied from the input marked `from_input`). The ruled types carry
//! the rules the development set's `rules` table lists.

use chrono::NaiveDate;
use intent_core::Intent;
use serde::{Deserialize, Serialize};

/// The kinds the runner has a type for.
pub const KINDS: &[&str] = &["shipment", "meeting", "severity", "expense", "job", "order"];

/// The types without rules or docs.
// Doc comments on these types would reach the prompt: the plain types have none on purpose.
#[allow(missing_docs)]
pub mod plain {
    use super::*;

    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Shipment {
        pub recipient: String,
        pub street: String,
        pub city: String,
        pub postcode: Option<String>,
        pub country: String,
    }

    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Meeting {
        pub topic: String,
        pub date: NaiveDate,
        pub start_time: Option<String>,
        pub attendees: Vec<String>,
    }

    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub enum Severity {
        Cosmetic,
        Minor,
        Major,
        Critical,
    }

    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Expense {
        pub item: String,
        pub amount: f64,
        pub currency: String,
    }

    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Job {
        pub title: String,
        pub remote: bool,
        pub salary_min: Option<u32>,
        pub salary_max: Option<u32>,
    }

    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Order {
        pub contact: String,
        pub sku: String,
        pub quantity: u32,
    }
}

/// The same types with the rules and docs a careful user would add.
// Doc comments reach the prompt: members whose name says it all have none.
#[allow(missing_docs)]
pub mod ruled {
    use super::*;

    /// A shipping address.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Shipment {
        /// The person the parcel goes to.
        pub recipient: String,
        /// The street and house number.
        pub street: String,
        pub city: String,
        /// The postal code, when the input gives one.
        #[intent(pattern = "^[A-Z0-9 -]{3,10}$")]
        pub postcode: Option<String>,
        /// The country's name.
        #[intent(min_length = 2)]
        pub country: String,
    }

    /// A meeting.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Meeting {
        /// What the meeting is about.
        pub topic: String,
        pub date: NaiveDate,
        /// The start time (HH:mm), when the input gives one.
        #[intent(pattern = "^[0-2][0-9]:[0-5][0-9]$")]
        pub start_time: Option<String>,
        /// Everyone who attends, by name.
        #[intent(min_items = 1)]
        pub attendees: Vec<String>,
    }

    /// How bad a reported problem is.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub enum Severity {
        /// Looks wrong, works.
        Cosmetic,
        /// A small problem with a workaround.
        Minor,
        /// A feature does not work.
        Major,
        /// Data loss, security, or an outage.
        Critical,
    }

    /// One expense.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Expense {
        /// What was paid for.
        pub item: String,
        /// The amount paid.
        #[intent(exclusive_minimum = 0)]
        pub amount: f64,
        /// The currency as its ISO 4217 code.
        #[intent(pattern = "^[A-Z]{3}$")]
        pub currency: String,
    }

    /// A job posting.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Job {
        /// The job title.
        pub title: String,
        /// Whether the job can be done remotely.
        pub remote: bool,
        /// The lowest yearly salary offered, when the posting gives one.
        #[intent(minimum = 1)]
        pub salary_min: Option<u32>,
        /// The highest yearly salary offered, when the posting gives one.
        #[intent(minimum = 1)]
        pub salary_max: Option<u32>,
    }

    /// A purchase order read from an email.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Order {
        /// The customer's first name, such as Sam.
        pub contact: String,
        /// The product code, such as A-1192.
        #[intent(pattern = "^[A-Z]-\\d+$")]
        pub sku: String,
        /// How many units, for example 12.
        #[intent(minimum = 1)]
        pub quantity: u32,
    }
}

/// The ruled types with the members a reader copies from the input marked `from_input`: a value
/// the input does not hold is then never a success. The severity has no such member; its ruled
/// type is asked.
#[allow(missing_docs)]
pub mod grounded {
    use super::*;

    /// A shipping address.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[intent(from_input)]
    pub struct Shipment {
        /// The person the parcel goes to.
        pub recipient: String,
        /// The street and house number.
        pub street: String,
        pub city: String,
        /// The postal code, when the input gives one.
        #[intent(pattern = "^[A-Z0-9 -]{3,10}$")]
        pub postcode: Option<String>,
        /// The country's name.
        #[intent(min_length = 2)]
        pub country: String,
    }

    /// A meeting.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Meeting {
        /// What the meeting is about.
        pub topic: String,
        pub date: NaiveDate,
        /// The start time (HH:mm), when the input gives one.
        #[intent(pattern = "^[0-2][0-9]:[0-5][0-9]$")]
        pub start_time: Option<String>,
        /// Everyone who attends, by name.
        #[intent(min_items = 1, from_input)]
        pub attendees: Vec<String>,
    }

    /// One expense.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Expense {
        /// What was paid for.
        #[intent(from_input)]
        pub item: String,
        /// The amount paid.
        #[intent(exclusive_minimum = 0)]
        pub amount: f64,
        /// The currency as its ISO 4217 code.
        #[intent(pattern = "^[A-Z]{3}$")]
        pub currency: String,
    }

    /// A job posting.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    #[serde(rename_all = "camelCase")]
    pub struct Job {
        /// The job title.
        #[intent(from_input)]
        pub title: String,
        /// Whether the job can be done remotely.
        pub remote: bool,
        /// The lowest yearly salary offered, when the posting gives one.
        #[intent(minimum = 1)]
        pub salary_min: Option<u32>,
        /// The highest yearly salary offered, when the posting gives one.
        #[intent(minimum = 1)]
        pub salary_max: Option<u32>,
    }

    /// A purchase order read from an email.
    #[derive(Debug, Serialize, Deserialize, Intent)]
    pub struct Order {
        /// The customer's first name, such as Sam.
        #[intent(from_input)]
        pub contact: String,
        /// The product code, such as A-1192.
        #[intent(pattern = "^[A-Z]-\\d+$", from_input)]
        pub sku: String,
        /// How many units, for example 12.
        #[intent(minimum = 1)]
        pub quantity: u32,
    }
}

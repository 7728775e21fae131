//! The result types measured: an `Order` of `Item`s (nested structs, a list, an enum, an `Option`,
//! strings and numbers) and `Wide`, a struct of 50 members.

use intent_core::Intent;
use serde::{Deserialize, Serialize};

/// An item's stock status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Intent)]
pub enum Status {
    /// On sale.
    Active,
    /// Waiting for stock.
    Backordered,
    /// No longer sold.
    Discontinued,
}

/// A weighted tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Intent)]
pub struct Tag {
    /// The tag.
    pub name: String,
    /// Its weight.
    pub weight: f64,
}

/// A catalogue item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Intent)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Its number.
    pub id: u64,
    /// Its stock-keeping unit.
    pub sku: String,
    /// Its title.
    pub title: String,
    /// Its unit price.
    pub unit_price: f64,
    /// How many are in stock.
    pub quantity: u32,
    /// Its status.
    pub status: Status,
    /// A remark, when there is one.
    pub note: Option<String>,
    /// Its tags.
    pub tags: Vec<Tag>,
}

/// An order: a strict struct with a list of items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Intent)]
pub struct Order {
    /// The order number.
    pub number: String,
    /// Who ordered.
    pub customer: String,
    /// Whether it is paid.
    pub paid: bool,
    /// The items ordered.
    pub items: Vec<Item>,
}

/// Declares `Wide` and a sample value from one list of members.
macro_rules! wide {
    ($($name:ident: $ty:ty = $sample:expr,)*) => {
        /// A struct of 50 members of mixed types.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Intent)]
        #[allow(missing_docs)]
        pub struct Wide {
            $(pub $name: $ty,)*
        }


        impl Wide {
            /// A value with every member set.
            pub fn sample() -> Wide {
                Wide { $($name: $sample,)* }
            }
        }

        /// The number of members of [`Wide`].
        pub const WIDE_MEMBERS: usize = [$(stringify!($name),)*].len();
    };
}

wide! {
    name: String = "Dana".into(),
    email: String = "dana@example.com".into(),
    phone: Option<String> = None,
    street: String = "1 Main St".into(),
    city: String = "Springfield".into(),
    postcode: String = "12345".into(),
    country: String = "US".into(),
    age: u8 = 41,
    height_cm: f32 = 172.5,
    weight_kg: Option<f32> = Some(70.0),
    score: f64 = 0.93,
    rank: u32 = 7,
    visits: u64 = 1204,
    balance: i64 = -40,
    active: bool = true,
    verified: bool = false,
    status: Status = Status::Active,
    previous_status: Option<Status> = None,
    tags: Vec<Tag> = vec![],
    aliases: Vec<String> = vec!["D".into()],
    notes: Option<String> = None,
    company: String = "Acme".into(),
    title: String = "Buyer".into(),
    department: Option<String> = Some("Purchasing".into()),
    manager: Option<String> = None,
    budget: f64 = 12000.0,
    currency: String = "USD".into(),
    orders: u32 = 12,
    returns: u32 = 1,
    last_order: Option<String> = Some("A-1192".into()),
    favourite_sku: Option<String> = None,
    discount: f32 = 0.05,
    credit_limit: f64 = 5000.0,
    overdue: bool = false,
    invoices: Vec<u32> = vec![1, 2, 3],
    language: String = "en".into(),
    timezone: String = "UTC".into(),
    newsletter: bool = true,
    referrals: u16 = 2,
    segment: String = "retail".into(),
    region: String = "north".into(),
    channel: String = "web".into(),
    device: Option<String> = None,
    browser: Option<String> = None,
    rating: Option<u8> = Some(5),
    complaints: u32 = 0,
    lifetime_value: f64 = 90210.5,
    loyalty_tier: String = "gold".into(),
    first_item: Option<Item> = None,
    last_item: Option<Item> = None,
}

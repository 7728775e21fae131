//! Typed partials: the answer so far of a streamed call read as a value of the caller's own
//! types, every member optional.
//!
//! [`Partial::json`] is the answer so far as JSON. [`Partial::value`] reads it as
//! `T::Partial`, the type [`HasPartial`] names for `T`: for a struct deriving `Intent` with
//! `#[intent(partial)]`, the generated `NamePartial` (every member an `Option` of its own
//! partial type); for the library's types:
//!
//! | type | its partial | while being written |
//! |---|---|---|
//! | `String` and the other text types | `String` | the text so far |
//! | numbers, `bool`, `char`, `()`, dates, `Uuid`, `Url`, `Decimal` | the type itself | nothing until complete |
//! | `Option<T>` | `Option<T::Partial>` | `Some(None)` once the model wrote `null` |
//! | `Vec<T>`, `VecDeque<T>`, `LinkedList<T>`, `Box<[T]>` | `Vec<T::Partial>` | the elements so far, as partials |
//! | `Box<T>`, `Arc<T>`, `Rc<T>` | the same pointer to `T::Partial` | as `T` |
//! | sets, maps, arrays, tuples, `serde_json::Value` | the type itself | nothing until complete |
//! | a derived type without `#[intent(partial)]` (structs, enums) | the type itself | nothing until complete |
//!
//! Only what the final reading would accept is ever shown: a member appears once it closed and
//! passed its checks (the partial reader's view, [`Partial::json`]), except text still being
//! written, which appears as the text so far. A value that is "complete or nothing" (a number,
//! an enum, a struct without `#[intent(partial)]`) is read only once the reader has seen it
//! close: [`Partial`] carries the way down to the one value still being written, and
//! [`PartialView::is_complete`] is false only along it. Reading never fails and never panics:
//! a member whose JSON does not (yet) read as its type is `None`.
//!
//! The trade-off: `#[intent(partial)]` is opt-in because it generates a second type and an
//! impl per struct (more code to compile), and because a partial of a type is a different type
//! (`Option` everywhere) that a program must name; the JSON view costs nothing extra and serves
//! every type. A struct without it gets only a two-line "complete or nothing" impl.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::rc::Rc;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Partial;
use crate::read::partial::Seg;

/// A type whose answer so far can be read as a value of its own: [`Partial::value`].
///
/// `#[derive(Intent)]` implements it for every type it derives: with `#[intent(partial)]` on a
/// struct with named fields, as the generated `NamePartial` struct (every member an `Option` of
/// its member's partial type); without it, as the type itself, read only once complete. The
/// library implements it for the types it implements [`Intent`](crate::Intent) for.
///
/// ```
/// use intent_core::stream::{HasPartial, PartialView};
/// use serde_json::json;
///
/// let answer = json!(["Ada", "Grace"]);
/// let view = PartialView::complete(&answer);
/// assert_eq!(<Vec<String>>::read_partial(view), Some(vec!["Ada".to_owned(), "Grace".to_owned()]));
/// assert_eq!(<u32>::read_partial(view), None); // not a number
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no partial, so a `#[intent(partial)]` struct cannot hold it",
    label = "no partial for this member",
    note = "derive `Intent` for `{Self}` (its partial is then itself, once complete; with \
            `#[intent(partial)]`, its own `...Partial` struct), or implement \
            `intent_core::stream::HasPartial` for it"
)]
pub trait HasPartial {
    /// What the answer so far reads as.
    type Partial;

    /// Reads `view` as this type's partial; `None` when it does not (yet) read as one. Never
    /// panics, never returns a value the final reading would refuse, except text still being
    /// written.
    fn read_partial(view: PartialView<'_>) -> Option<Self::Partial>;
}

/// A value in the answer so far, and whether it may still be being written.
///
/// ```
/// use intent_core::stream::PartialView;
/// use serde_json::json;
///
/// let answer = json!({"name": "Ada", "age": 36});
/// let view = PartialView::complete(&answer);
/// assert!(view.is_complete());
/// assert_eq!(view.member("age").and_then(|age| age.read::<u8>()), Some(36));
/// assert!(view.member("email").is_none());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct PartialView<'a> {
    value: &'a Value,
    /// `None`: complete. `Some(way)`: open, with the way down to its open member.
    open: Option<&'a [Seg]>,
}

impl<'a> PartialView<'a> {
    /// A view of a value known to be complete (a whole reply, a test's value).
    ///
    /// ```
    /// # use intent_core::stream::PartialView;
    /// let value = serde_json::json!(true);
    /// assert_eq!(PartialView::complete(&value).read::<bool>(), Some(true));
    /// ```
    pub fn complete(value: &'a Value) -> Self {
        PartialView { value, open: None }
    }

    pub(crate) fn of(value: &'a Value, open: Option<&'a [Seg]>) -> Self {
        PartialView { value, open }
    }

    /// The JSON so far.
    ///
    /// ```
    /// # use intent_core::stream::PartialView;
    /// let value = serde_json::json!("so far");
    /// assert_eq!(PartialView::complete(&value).json(), "so far");
    /// ```
    pub fn json(&self) -> &'a Value {
        self.value
    }

    /// False while the value may still change: the container or string being written, and the
    /// containers around it.
    ///
    /// ```
    /// # use intent_core::stream::PartialView;
    /// let value = serde_json::json!(null);
    /// assert!(PartialView::complete(&value).is_complete());
    /// ```
    pub fn is_complete(&self) -> bool {
        self.open.is_none()
    }

    /// The member `name` of an object (its wire name), if present.
    ///
    /// ```
    /// # use intent_core::stream::PartialView;
    /// let value = serde_json::json!({"sku": "A-1"});
    /// let view = PartialView::complete(&value);
    /// assert_eq!(view.member("sku").map(|m| m.json().clone()), Some(serde_json::json!("A-1")));
    /// ```
    pub fn member(&self, name: &str) -> Option<PartialView<'a>> {
        let value = self.value.as_object()?.get(name)?;
        let open = self.open.and_then(|way| match way.split_first() {
            Some((Seg::Key(key), rest)) if key == name => Some(rest),
            _ => None,
        });
        Some(PartialView { value, open })
    }

    /// The elements of a list, in order; none for anything else.
    ///
    /// ```
    /// # use intent_core::stream::PartialView;
    /// let value = serde_json::json!([1, 2]);
    /// assert_eq!(PartialView::complete(&value).elements().count(), 2);
    /// ```
    pub fn elements(&self) -> impl Iterator<Item = PartialView<'a>> + 'a {
        let open = self.open;
        let items = self.value.as_array().map_or(&[][..], Vec::as_slice);
        items.iter().enumerate().map(move |(index, value)| {
            let open = open.and_then(|way| match way.split_first() {
                Some((Seg::Index(i), rest)) if *i == index => Some(rest),
                _ => None,
            });
            PartialView { value, open }
        })
    }

    /// The value read as `T` once complete; `None` while it may still change or when it does
    /// not read as `T`.
    ///
    /// ```
    /// # use intent_core::stream::PartialView;
    /// let value = serde_json::json!(40);
    /// assert_eq!(PartialView::complete(&value).read::<u32>(), Some(40));
    /// assert_eq!(PartialView::complete(&value).read::<String>(), None);
    /// ```
    pub fn read<T: DeserializeOwned>(&self) -> Option<T> {
        if self.open.is_some() {
            return None;
        }
        T::deserialize(self.value).ok()
    }
}

impl<T: HasPartial> Partial<T> {
    /// The answer so far read as `T`'s partial (see [`HasPartial`]): for a struct deriving
    /// `Intent` with `#[intent(partial)]`, its `NamePartial`, every member that has closed and
    /// passed its checks set, text being written as the text so far. `None` while the answer
    /// does not read as one yet.
    ///
    /// ```
    /// use futures::StreamExt;
    /// use intent_core::prelude::*;
    /// use serde::Deserialize;
    ///
    /// #[derive(Debug, Deserialize, Intent)]
    /// #[intent(partial)]
    /// struct Person {
    ///     name: String,
    ///     age: u8,
    /// }
    ///
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    /// # rt.block_on(async {
    /// let model = ScriptedProvider::new([r#"{"value": {"name": "Ada Lovelace", "age": 36}}"#])
    ///     .with_stream_chunk_chars(8);
    /// let client = IntentClient::new(model);
    /// let mut stream = Person::ai(&client, "Ada, 36", "Read the person.").stream();
    /// let mut last = PersonPartial::default();
    /// while let Some(event) = stream.next().await {
    ///     if let StreamEvent::Partial(partial) = event {
    ///         let person: PersonPartial = partial.value().unwrap_or_default();
    ///         if let Some(age) = person.age {
    ///             assert_eq!(age, 36); // never 3 on its way to 36
    ///         }
    ///         last = person;
    ///     }
    /// }
    /// assert_eq!(last.name.as_deref(), Some("Ada Lovelace"));
    /// assert_eq!(last.age, Some(36));
    /// # });
    /// ```
    pub fn value(&self) -> Option<T::Partial> {
        let open = self.open();
        T::read_partial(PartialView::of(self.json(), open.as_deref()))
    }
}

/// Complete or nothing: the type itself, once its value closed. For the derive's types without
/// `#[intent(partial)]`.
#[doc(hidden)]
pub fn read_complete<T: DeserializeOwned>(view: PartialView<'_>) -> Option<T> {
    view.read()
}

macro_rules! complete {
    ($($ty:ty),* $(,)?) => {$(
        impl HasPartial for $ty {
            type Partial = $ty;
            fn read_partial(view: PartialView<'_>) -> Option<Self> {
                view.read()
            }
        }
    )*};
}

complete!(
    bool,
    char,
    (),
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize
);
complete!(f32, f64, Value, serde_json::Map<String, Value>);

macro_rules! text {
    ($($ty:ty),* $(,)?) => {$(
        impl HasPartial for $ty {
            type Partial = String;
            fn read_partial(view: PartialView<'_>) -> Option<String> {
                view.json().as_str().map(str::to_owned)
            }
        }
    )*};
}

text!(
    String,
    Box<str>,
    Arc<str>,
    Rc<str>,
    std::borrow::Cow<'static, str>
);

impl<T: HasPartial> HasPartial for Option<T> {
    type Partial = Option<T::Partial>;
    fn read_partial(view: PartialView<'_>) -> Option<Self::Partial> {
        if view.json().is_null() {
            return view.is_complete().then_some(None);
        }
        T::read_partial(view).map(Some)
    }
}

macro_rules! pointer {
    ($($ty:ident),*) => {$(
        impl<T: HasPartial> HasPartial for $ty<T> {
            type Partial = $ty<T::Partial>;
            fn read_partial(view: PartialView<'_>) -> Option<Self::Partial> {
                T::read_partial(view).map($ty::new)
            }
        }
    )*};
}
pointer!(Box, Arc, Rc);

/// The elements so far, as partials, up to the first that does not read yet (so no element is
/// shown at another's index).
fn elements<T: HasPartial>(view: PartialView<'_>) -> Option<Vec<T::Partial>> {
    view.json().as_array()?;
    Some(view.elements().map_while(T::read_partial).collect())
}

macro_rules! list {
    ($($ty:ty),*) => {$(
        impl<T: HasPartial> HasPartial for $ty {
            type Partial = Vec<T::Partial>;
            fn read_partial(view: PartialView<'_>) -> Option<Self::Partial> {
                elements::<T>(view)
            }
        }
    )*};
}
list!(Vec<T>, VecDeque<T>, LinkedList<T>, Box<[T]>);

impl<T: DeserializeOwned + Ord> HasPartial for BTreeSet<T> {
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

impl<T: DeserializeOwned + Eq + Hash, S: BuildHasher + Default> HasPartial for HashSet<T, S> {
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

impl<T: DeserializeOwned + Eq + Hash, S: BuildHasher + Default> HasPartial
    for indexmap::IndexSet<T, S>
{
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

impl<T, const N: usize> HasPartial for [T; N]
where
    [T; N]: DeserializeOwned,
{
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

impl<K: DeserializeOwned + Eq + Hash, V: DeserializeOwned, S: BuildHasher + Default> HasPartial
    for HashMap<K, V, S>
{
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

impl<K: DeserializeOwned + Ord, V: DeserializeOwned> HasPartial for BTreeMap<K, V> {
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

impl<K: DeserializeOwned + Eq + Hash, V: DeserializeOwned, S: BuildHasher + Default> HasPartial
    for indexmap::IndexMap<K, V, S>
{
    type Partial = Self;
    fn read_partial(view: PartialView<'_>) -> Option<Self> {
        view.read()
    }
}

macro_rules! tuple {
    ($(($($name:ident),+))*) => {$(
        impl<$($name: DeserializeOwned),+> HasPartial for ($($name,)+) {
            type Partial = Self;
            fn read_partial(view: PartialView<'_>) -> Option<Self> {
                view.read()
            }
        }
    )*};
}
crate::impls::for_tuples!(tuple);

#[cfg(feature = "chrono")]
complete!(
    chrono::NaiveDate,
    chrono::NaiveTime,
    chrono::NaiveDateTime,
    chrono::DateTime<chrono::Utc>,
    chrono::DateTime<chrono::FixedOffset>,
    chrono::DateTime<chrono::Local>,
);

#[cfg(feature = "uuid")]
complete!(uuid::Uuid);

#[cfg(feature = "url")]
complete!(url::Url);

#[cfg(feature = "decimal")]
complete!(rust_decimal::Decimal);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn open<'a>(value: &'a Value, way: &'a [Seg]) -> PartialView<'a> {
        PartialView::of(value, Some(way))
    }

    #[test]
    fn only_the_way_down_is_open() {
        let value = json!({"a": [1, {"b": "x"}], "c": 2});
        let way = [Seg::Key("a".into()), Seg::Index(1)];
        let view = open(&value, &way);
        assert!(!view.is_complete());
        assert!(view.member("c").unwrap().is_complete());
        let a = view.member("a").unwrap();
        assert!(!a.is_complete());
        let items: Vec<bool> = a.elements().map(|e| e.is_complete()).collect();
        assert_eq!(items, [true, false]);
        let b = a.elements().nth(1).unwrap().member("b").unwrap();
        assert!(b.is_complete());
    }

    #[test]
    fn a_value_being_written_reads_only_as_text() {
        let value = json!({"n": "12", "list": [1, 2]});
        let way = [Seg::Key("n".into())];
        let view = open(&value, &way);
        let n = view.member("n").unwrap();
        assert_eq!(String::read_partial(n), Some("12".to_owned()));
        assert_eq!(<u32>::read_partial(n), None);
        assert_eq!(<Option<u32>>::read_partial(n), None);
        // A list open at its end: the elements so far, up to the one being written.
        let list = json!([{"x": 1}, {"x": 2}]);
        let way = [Seg::Index(1)];
        let read = <Vec<HashMap<String, u32>>>::read_partial(open(&list, &way));
        assert_eq!(read.map(|v| v.len()), Some(1));
    }

    #[test]
    fn null_is_none_only_once_written() {
        let value = json!(null);
        assert_eq!(
            <Option<u8>>::read_partial(PartialView::complete(&value)),
            Some(None)
        );
        assert_eq!(<Option<u8>>::read_partial(open(&value, &[])), None);
        assert_eq!(<u8>::read_partial(PartialView::complete(&value)), None);
    }

    #[test]
    fn what_does_not_read_is_none() {
        let value = json!({"a": -1, "b": 1.5, "c": "x"});
        let view = PartialView::complete(&value);
        assert_eq!(view.member("a").and_then(<u8>::read_partial), None);
        assert_eq!(view.member("b").and_then(<u32>::read_partial), None);
        assert_eq!(<Vec<u8>>::read_partial(view), None);
        assert_eq!(<String>::read_partial(view), None);
        assert!(view.member("zzz").is_none());
        assert_eq!(view.elements().count(), 0);
    }
}

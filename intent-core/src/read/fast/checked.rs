//! A checking proxy over a serde `Deserializer`: the type's own `Deserialize` reads the text, and
//! every value it visits is first checked against its place in the shape.
//!
//! [`Checked`] forwards each `deserialize_*` call to the inner deserializer with a [`Check`]
//! visitor, which checks the value it is handed (a string where the shape takes text, an integer
//! in range, `null` only where the shape allows it, a member's rules) before passing it on to the
//! type's visitor. Objects, arrays and enums are handed on through wrappers that check each member
//! name, give each value its own place in the shape, and check counts and required members once
//! the type's visitor is done. Any failed check is a `de::Error` (see [`refuse`]), which sends the
//! reply to the lenient path.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

use crate::shape::{Field, NodeId, Variant, VariantKind};

use super::super::verify::rules::Seen;
use super::place::{refuse, Elements, Place};

/// A deserializer whose values are checked against their place in the shape.
pub(super) struct Checked<'g, D> {
    inner: D,
    place: Place<'g>,
}

/// A seed reading a `T` checked against its place in the shape.
pub(super) fn seed<T>(place: Place<'_>) -> CheckedSeed<'_, PhantomData<T>> {
    CheckedSeed {
        seed: PhantomData,
        place,
    }
}

impl<'g, D> Checked<'g, D> {
    fn split<V>(self, visitor: V) -> (D, Check<'g, V>) {
        (
            self.inner,
            Check {
                visitor,
                at: At::Node(self.place),
            },
        )
    }
}

/// Forwards `deserialize_*` methods to the inner deserializer with the wrapped visitor.
macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(
                self,
                $($arg: $ty,)*
                visitor: V,
            ) -> Result<V::Value, Self::Error> {
                let (inner, wrapped) = self.split(visitor);
                inner.$method($($arg,)* wrapped)
            }
        )*
    };
}

/// Forwards every `deserialize_*` method but `ignored_any`.
macro_rules! forward_all_but_ignored {
    () => {
        forward! {
            deserialize_any();
            deserialize_bool();
            deserialize_i8();
            deserialize_i16();
            deserialize_i32();
            deserialize_i64();
            deserialize_i128();
            deserialize_u8();
            deserialize_u16();
            deserialize_u32();
            deserialize_u64();
            deserialize_u128();
            deserialize_f32();
            deserialize_f64();
            deserialize_char();
            deserialize_str();
            deserialize_string();
            deserialize_bytes();
            deserialize_byte_buf();
            deserialize_option();
            deserialize_unit();
            deserialize_unit_struct(name: &'static str);
            deserialize_newtype_struct(name: &'static str);
            deserialize_seq();
            deserialize_tuple(len: usize);
            deserialize_tuple_struct(name: &'static str, len: usize);
            deserialize_map();
            deserialize_struct(name: &'static str, fields: &'static [&'static str]);
            deserialize_enum(name: &'static str, variants: &'static [&'static str]);
            deserialize_identifier();
        }
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    forward_all_but_ignored!();

    /// A value the type skips is still checked, read as anything.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let (inner, check) = self.split(IgnoredAny);
        inner.deserialize_any(check)?;
        visitor.visit_unit()
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A seed whose value is read through [`Checked`].
pub(super) struct CheckedSeed<'g, S> {
    seed: S,
    place: Place<'g>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CheckedSeed<'_, S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Checked {
            inner: d,
            place: self.place,
        })
    }
}

/// What a visited value must be: a value at a node, or the content of a tuple or struct variant.
#[derive(Clone, Copy)]
enum At<'g> {
    Node(Place<'g>),
    Items(Place<'g>, &'g [NodeId]),
    Fields(Place<'g>, &'g [Field]),
}

impl<'g> At<'g> {
    fn node<E: de::Error>(self) -> Result<Place<'g>, E> {
        match self {
            At::Node(place) => Ok(place),
            _ => Err(refuse()),
        }
    }
}

/// The type's visitor, handed each value only once the value passes its checks.
struct Check<'g, V> {
    visitor: V,
    at: At<'g>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Check<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.at.node()?.bool()?;
        self.visitor.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.at.node()?.number(v as f64, Some(i128::from(v)))?;
        self.visitor.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.at.node()?.number(v as f64, Some(i128::from(v)))?;
        self.visitor.visit_u64(v)
    }

    // Integers beyond 64 bits are left to the lenient path, which refuses them: both paths have
    // one outcome.
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        let v = i64::try_from(v).map_err(|_| refuse::<E>())?;
        self.visit_i64(v)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        let v = u64::try_from(v).map_err(|_| refuse::<E>())?;
        self.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.at.node()?.number(v, None)?;
        self.visitor.visit_f64(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.at.node()?.text(v)?;
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.at.node()?.text(v)?;
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.at.node()?.text(&v)?;
        self.visitor.visit_string(v)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.at.node()?.null()?;
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.at.node()?.null()?;
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let place = self.at.node()?.some();
        self.visitor.visit_some(Checked { inner: d, place })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let place = self.at.node()?.newtype();
        self.visitor
            .visit_newtype_struct(Checked { inner: d, place })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let (place, elements, node) = match self.at {
            At::Node(place) => (place, place.elements()?, true),
            At::Items(place, items) => (place, Elements::Fixed(items), false),
            At::Fields(..) => return Err(refuse()),
        };
        let mut checked = CheckedSeq {
            inner: seq,
            place,
            elements,
            count: 0,
            done: false,
        };
        let value = self.visitor.visit_seq(&mut checked)?;
        if !checked.done && checked.inner.next_element::<IgnoredAny>()?.is_some() {
            return Err(refuse());
        }
        let expected = match elements {
            Elements::Each(_, n) => n,
            Elements::Fixed(items) => Some(items.len()),
        };
        if expected.is_some_and(|n| n != checked.count) {
            return Err(refuse());
        }
        if node {
            place.rules_pass(Seen::Items(checked.count))?;
        }
        Ok(value)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let (place, fields) = match self.at {
            At::Node(place) => (place, place.fields()?),
            At::Fields(place, fields) => (place, fields),
            At::Items(..) => return Err(refuse()),
        };
        let mut checked = CheckedMap {
            inner: map,
            place,
            fields,
            seen: Marks::new(fields.len()),
            pending: None,
            pending_hint: 0,
            done: false,
        };
        let value = self.visitor.visit_map(&mut checked)?;
        checked.finish()?;
        Ok(value)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let place = self.at.node()?;
        let variants = place.variants()?;
        self.visitor.visit_enum(CheckedEnum {
            inner: data,
            place,
            variants,
        })
    }
}

/// An array's elements, each read at its node and counted.
struct CheckedSeq<'g, A> {
    inner: A,
    place: Place<'g>,
    elements: Elements<'g>,
    count: usize,
    done: bool,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let id = match self.elements {
            Elements::Each(id, _) => id,
            Elements::Fixed(items) => match items.get(self.count) {
                Some(id) => *id,
                None => {
                    // More elements asked for than the shape has: there must be none.
                    if self.inner.next_element::<IgnoredAny>()?.is_some() {
                        return Err(refuse());
                    }
                    self.done = true;
                    return Ok(None);
                }
            },
        };
        let place = self.place.at(id, None);
        match self.inner.next_element_seed(CheckedSeed { seed, place })? {
            Some(value) => {
                self.count += 1;
                Ok(Some(value))
            }
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// Which members of an object have been seen.
enum Marks {
    Few(u128),
    Many(Vec<bool>),
}

impl Marks {
    fn new(len: usize) -> Marks {
        if len <= 128 {
            Marks::Few(0)
        } else {
            Marks::Many(vec![false; len])
        }
    }

    /// Marks member `index`; false when it was already marked.
    fn mark(&mut self, index: usize) -> bool {
        match self {
            Marks::Few(bits) => {
                let bit = 1u128 << index;
                let fresh = *bits & bit == 0;
                *bits |= bit;
                fresh
            }
            Marks::Many(seen) => !std::mem::replace(&mut seen[index], true),
        }
    }

    fn has(&self, index: usize) -> bool {
        match self {
            Marks::Few(bits) => *bits & (1u128 << index) != 0,
            Marks::Many(seen) => seen[index],
        }
    }
}

/// An object's members: each name checked, each value read at its member's node and rules.
struct CheckedMap<'g, A> {
    inner: A,
    place: Place<'g>,
    fields: &'g [Field],
    seen: Marks,
    pending: Option<usize>,
    pending_hint: usize,
    done: bool,
}

impl<'de, A: MapAccess<'de>> CheckedMap<'_, A> {
    /// Checks the members the type's visitor left unread, then that every required one was given.
    fn finish(&mut self) -> Result<(), A::Error> {
        if self.pending.is_some() {
            return Err(refuse());
        }
        while !self.done {
            if self.next_key::<IgnoredAny>()?.is_some() {
                self.next_value::<IgnoredAny>()?;
            }
        }
        let missing = self
            .fields
            .iter()
            .enumerate()
            .any(|(index, field)| field.required && !self.seen.has(index));
        if missing {
            return Err(refuse());
        }
        Ok(())
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CheckedMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let names = Names::Fields(self.fields);
        // Members usually come in declaration order: the one after the last is tried first.
        let hint = self.pending_hint;
        match self.inner.next_key_seed(NameSeed { seed, names, hint })? {
            Some((key, index)) => {
                if !self.seen.mark(index) {
                    return Err(refuse());
                }
                self.pending = Some(index);
                self.pending_hint = index + 1;
                Ok(Some(key))
            }
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        let index = self.pending.take().ok_or_else(refuse)?;
        let place = self.place.field(&self.fields[index]);
        self.inner.next_value_seed(CheckedSeed { seed, place })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

/// An externally tagged enum: the variant's name checked, its content read at the variant's nodes.
struct CheckedEnum<'g, A> {
    inner: A,
    place: Place<'g>,
    variants: &'g [Variant],
}

impl<'de, 'g, A: EnumAccess<'de>> EnumAccess<'de> for CheckedEnum<'g, A> {
    type Error = A::Error;
    type Variant = CheckedVariant<'g, A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let names = Names::Variants(self.variants);
        let hint = 0;
        let ((value, index), variant) = self.inner.variant_seed(NameSeed { seed, names, hint })?;
        Ok((
            value,
            CheckedVariant {
                inner: variant,
                place: self.place,
                kind: &self.variants[index].kind,
            },
        ))
    }
}

/// A variant's content, read as the shape's variant says.
struct CheckedVariant<'g, A> {
    inner: A,
    place: Place<'g>,
    kind: &'g VariantKind,
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for CheckedVariant<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        match self.kind {
            VariantKind::Unit => self.inner.unit_variant(),
            _ => Err(refuse()),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        match self.kind {
            VariantKind::Newtype(inner) => {
                let place = self.place.at(*inner, None);
                self.inner.newtype_variant_seed(CheckedSeed { seed, place })
            }
            _ => Err(refuse()),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        match self.kind {
            VariantKind::Tuple(items) => {
                let at = At::Items(self.place, items);
                self.inner.tuple_variant(len, Check { visitor, at })
            }
            _ => Err(refuse()),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        match self.kind {
            VariantKind::Struct(shape_fields) => {
                let at = At::Fields(self.place, shape_fields);
                self.inner.struct_variant(fields, Check { visitor, at })
            }
            _ => Err(refuse()),
        }
    }
}

/// The names a member or variant may be written with.
#[derive(Clone, Copy)]
enum Names<'g> {
    Fields(&'g [Field]),
    Variants(&'g [Variant]),
}

impl Names<'_> {
    /// The index of the member or variant written exactly as `name` (or an alias); the one at
    /// `hint` is tried first.
    fn find<E: de::Error>(self, name: &str, hint: usize) -> Result<usize, E> {
        let at_hint = match self {
            Names::Fields(fields) => fields.get(hint).is_some_and(|f| f.name == name),
            Names::Variants(variants) => variants.get(hint).is_some_and(|v| v.name == name),
        };
        if at_hint {
            return Ok(hint);
        }
        let found = match self {
            Names::Fields(fields) => fields
                .iter()
                .position(|f| f.name == name || f.aliases.iter().any(|a| a == name)),
            // A name no variant has is the `#[serde(other)]` variant's, as serde reads it.
            Names::Variants(variants) => variants
                .iter()
                .position(|v| v.name == name || v.aliases.iter().any(|a| a == name))
                .or_else(|| {
                    let other = super::super::verify::enums::other_taking(variants, name)?;
                    variants.iter().position(|v| std::ptr::eq(v, other))
                }),
        };
        found.ok_or_else(refuse)
    }
}

/// A member or variant name read by the type's own seed, and the index it names.
struct NameSeed<'g, S> {
    seed: S,
    names: Names<'g>,
    hint: usize,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for NameSeed<'_, S> {
    type Value = (S::Value, usize);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(S::Value, usize), D::Error> {
        let mut index = None;
        let value = self.seed.deserialize(NameDe {
            inner: d,
            names: self.names,
            hint: self.hint,
            index: &mut index,
        })?;
        Ok((value, index.ok_or_else(refuse)?))
    }
}

/// A deserializer for a name: the name must be one of `names`; its index goes to `index`.
struct NameDe<'g, 'a, D> {
    inner: D,
    names: Names<'g>,
    hint: usize,
    index: &'a mut Option<usize>,
}

impl<'g, 'a, D> NameDe<'g, 'a, D> {
    fn split<V>(self, visitor: V) -> (D, NameCheck<'g, 'a, V>) {
        (
            self.inner,
            NameCheck {
                visitor,
                names: self.names,
                hint: self.hint,
                index: self.index,
            },
        )
    }
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for NameDe<'_, '_, D> {
    type Error = D::Error;

    forward_all_but_ignored!();
    forward! {
        deserialize_ignored_any();
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The type's name visitor, handed the name once it is found among the names.
struct NameCheck<'g, 'a, V> {
    visitor: V,
    names: Names<'g>,
    hint: usize,
    index: &'a mut Option<usize>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for NameCheck<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        *self.index = Some(self.names.find(v, self.hint)?);
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        *self.index = Some(self.names.find(v, self.hint)?);
        self.visitor.visit_borrowed_str(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        *self.index = Some(self.names.find(&v, self.hint)?);
        self.visitor.visit_string(v)
    }
}

//! A request body with the request's `extra_body` fields, written in one pass: the body's own
//! fields that an extra field names are left out, and the extra fields follow, so an extra field
//! replaces a field of the same name and adds any other. Nothing is serialized twice and no JSON
//! is read back: the body's serializer is wrapped so that it writes into the same map as the extra
//! fields.
//!
//! Written by hand because serde has no way to merge two values' fields, and `#[serde(flatten)]`
//! would write a replaced field twice.

use serde::ser::{Error as _, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::{Map, Value};

/// `body` (a struct or map) with the `extra` fields over its own.
pub(crate) struct WithExtra<'a, B> {
    pub(crate) body: &'a B,
    pub(crate) extra: &'a Map<String, Value>,
}

impl<B: Serialize> Serialize for WithExtra<'_, B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.body.serialize(Overlay {
            inner: serializer,
            extra: self.extra,
        })
    }
}

/// The body's serializer: a struct or a map becomes a map that leaves out the extra fields'
/// names and ends with the extra fields; anything else is refused.
struct Overlay<'a, S> {
    inner: S,
    extra: &'a Map<String, Value>,
}

/// The refusal of a body that is not a JSON object.
fn not_an_object<E: serde::ser::Error>() -> E {
    E::custom("the request body is not a JSON object, so it cannot take extra_body fields")
}

/// Serializer methods that refuse what they are given: of a value, or with `-> Compound`, of a
/// compound that is not a map.
macro_rules! refuse {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self $(, _: $arg)*) -> Result<Self::Ok, Self::Error> {
            Err(not_an_object())
        })*
    };
    ($($method:ident($($arg:ty),*) -> $compound:ident),* $(,)?) => {
        $(fn $method(self $(, _: $arg)*) -> Result<Self::$compound, Self::Error> {
            Err(not_an_object())
        })*
    };
}

impl<'a, S: Serializer> Serializer for Overlay<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = OverlayMap<'a, S::SerializeMap>;
    type SerializeStruct = OverlayMap<'a, S::SerializeMap>;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    refuse! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_u64(u64), serialize_f32(f32), serialize_f64(f64), serialize_char(char),
        serialize_str(&str), serialize_bytes(&[u8]), serialize_none(), serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    }

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<S::Ok, S::Error> {
        Err(not_an_object())
    }

    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(not_an_object())
    }

    refuse! {
        serialize_seq(Option<usize>) -> SerializeSeq,
        serialize_tuple(usize) -> SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> SerializeTupleVariant,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> SerializeStructVariant,
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        Ok(OverlayMap {
            map: self.inner.serialize_map(None)?,
            extra: self.extra,
            skip_value: false,
        })
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.serialize_map(None)
    }
}

/// The body's map: its fields but those the extra fields name, then the extra fields.
struct OverlayMap<'a, M> {
    map: M,
    extra: &'a Map<String, Value>,
    /// The key just written was left out: so is its value.
    skip_value: bool,
}

impl<M: SerializeMap> OverlayMap<'_, M> {
    /// Whether the extra fields name `key`.
    fn replaced<K: ?Sized + Serialize>(&self, key: &K) -> Result<bool, M::Error> {
        match key.serialize(serde_json::value::Serializer) {
            Ok(Value::String(name)) => Ok(self.extra.contains_key(&name)),
            _ => Err(M::Error::custom(
                "a request body field name is not a string",
            )),
        }
    }

    fn finish(mut self) -> Result<M::Ok, M::Error> {
        for (key, value) in self.extra {
            self.map.serialize_entry(key, value)?;
        }
        self.map.end()
    }
}

impl<M: SerializeMap> SerializeMap for OverlayMap<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_key<K: ?Sized + Serialize>(&mut self, key: &K) -> Result<(), M::Error> {
        self.skip_value = self.replaced(key)?;
        if self.skip_value {
            return Ok(());
        }
        self.map.serialize_key(key)
    }

    fn serialize_value<V: ?Sized + Serialize>(&mut self, value: &V) -> Result<(), M::Error> {
        if std::mem::take(&mut self.skip_value) {
            return Ok(());
        }
        self.map.serialize_value(value)
    }

    fn serialize_entry<K: ?Sized + Serialize, V: ?Sized + Serialize>(
        &mut self,
        key: &K,
        value: &V,
    ) -> Result<(), M::Error> {
        if self.replaced(key)? {
            return Ok(());
        }
        self.map.serialize_entry(key, value)
    }

    fn end(self) -> Result<M::Ok, M::Error> {
        self.finish()
    }
}

impl<M: SerializeMap> SerializeStruct for OverlayMap<'_, M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_field<V: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &V,
    ) -> Result<(), M::Error> {
        if self.extra.contains_key(key) {
            return Ok(());
        }
        self.map.serialize_entry(key, value)
    }

    fn end(self) -> Result<M::Ok, M::Error> {
        self.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Serialize)]
    struct Body<'a> {
        model: &'a str,
        messages: [u8; 0],
        #[serde(flatten)]
        sampling: Sampling,
    }

    #[derive(serde::Serialize)]
    struct Sampling {
        seed: u32,
    }

    fn extra(fields: Value) -> Map<String, Value> {
        fields.as_object().unwrap().clone()
    }

    #[test]
    fn extra_body_fields_replace_and_add_top_level_fields() {
        let body = Body {
            model: "m",
            messages: [],
            sampling: Sampling { seed: 7 },
        };
        let extra = extra(json!({"service_tier": "flex", "model": "other", "seed": 1}));
        let written = serde_json::to_string(&WithExtra {
            body: &body,
            extra: &extra,
        })
        .unwrap();
        let out: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            out,
            json!({"model": "other", "messages": [], "seed": 1, "service_tier": "flex"})
        );
        // Each field once: a replaced one is not written twice.
        assert_eq!(written.matches("\"model\"").count(), 1, "{written}");
        assert_eq!(written.matches("\"seed\"").count(), 1, "{written}");
    }

    #[test]
    fn a_map_body_takes_extra_fields_too_and_other_bodies_are_refused() {
        let body = json!({"b": 1, "a": 2});
        let extra = extra(json!({"a": 3}));
        let out = serde_json::to_value(WithExtra {
            body: &body,
            extra: &extra,
        })
        .unwrap();
        assert_eq!(out, json!({"b": 1, "a": 3}));
        let error = serde_json::to_string(&WithExtra {
            body: &[1, 2],
            extra: &extra,
        })
        .unwrap_err();
        assert!(error.to_string().contains("not a JSON object"), "{error}");
    }
}

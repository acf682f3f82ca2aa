//! Enums and literals: the allowed values, with string members found by their keys, and the run
//! over a value (the member it equals, or in lax mode the member it coerces to).

use serde_json::Value;

use super::keys::StrKey;
use crate::validate::coerce::{self, CoercionRule};
use crate::validate::compile::NodeId;
use crate::validate::equal::{json_equal, json_hash, str_hash, Positions};
use crate::validate::error::{Clip, ErrorCode, Problem};
use crate::validate::number;
use crate::validate::sink::Sink;
use crate::validate::walk::Run;

/// An enum's members, with the keys of its string members, so that a string is matched without
/// reading any member's bytes (unless both are longer than 16 bytes). A long enum also has an
/// index by hash: scanning it for each value made a call of n values against an enum of n
/// members cost n².
#[derive(Clone, Debug)]
pub(crate) struct EnumCheck {
    pub values: Vec<Value>,
    /// The key of each string member, with its index in `values`.
    strings: Vec<(StrKey, usize)>,
    /// For an enum of more than [`Self::SCANNED`] members: the members' positions by hash
    /// (boxed, so that a node stays one cache line).
    index: Option<Box<Positions>>,
}

impl EnumCheck {
    /// The most members an enum is scanned for a value (the usual enum: scanning keys is faster
    /// than hashing the value).
    pub(crate) const SCANNED: usize = 32;

    pub(crate) fn new(values: Vec<Value>) -> EnumCheck {
        let strings = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_str().map(|s| (StrKey::new(s), i)))
            .collect();
        let index = (values.len() > Self::SCANNED).then(|| {
            let mut index = Positions::with_capacity(values.len());
            for (i, v) in values.iter().enumerate() {
                index.insert(v, i, |j| &values[j]);
            }
            Box::new(index)
        });
        EnumCheck {
            values,
            strings,
            index,
        }
    }

    /// The member of a long enum with hash `hash` that `is` says is the one.
    #[cold]
    fn indexed(&self, index: &Positions, hash: u64, is: impl Fn(&Value) -> bool) -> Option<&Value> {
        let i = index.find_hashed(hash, |i| is(&self.values[i]))?;
        self.values.get(i)
    }

    /// Whether every member is a string (the usual enum): no other value can match.
    #[inline(always)]
    pub(crate) fn only_strings(&self) -> bool {
        self.strings.len() == self.values.len()
    }

    /// The member equal to `value` (numbers by value, as JSON Schema's `enum` compares): the one
    /// statement of what an enum accepts.
    #[inline(always)]
    pub(crate) fn member(&self, value: &Value) -> Option<&Value> {
        match value {
            Value::String(s) => self.find_str(s),
            _ if self.only_strings() => None,
            _ => match &self.index {
                Some(index) => self.indexed(index, json_hash(value), |m| json_equal(m, value)),
                None => self.values.iter().find(|m| json_equal(m, value)),
            },
        }
    }

    /// The member equal to the string `s` (strings equal only strings, byte for byte).
    #[inline(always)]
    pub(crate) fn find_str(&self, s: &str) -> Option<&Value> {
        if let Some(index) = &self.index {
            return self.indexed(index, str_hash(s), |m| m.as_str() == Some(s));
        }
        let key = StrKey::new(s);
        for &(k, i) in &self.strings {
            if k == key && (key.is_whole() || self.values[i].as_str() == Some(s)) {
                return self.values.get(i);
            }
        }
        None
    }

    /// Normalizes an accepted value to the member it equals, as declared (`2.0` to `2`).
    pub(crate) fn normalize(&self, value: &mut Value) {
        if let Some(m) = self.member(value) {
            if m != value {
                *value = m.clone();
            }
        }
    }
}

/// Normalizes a value that equals the literal `c` to the literal as declared.
pub(crate) fn normalize_const(c: &Value, value: &mut Value) {
    if *c != *value && json_equal(c, value) {
        *value = c.clone();
    }
}

impl<S: Sink> Run<'_, S> {
    /// Enums and literals: the member `value` equals (`exact`, found by the kind); in lax
    /// mode, then the value coerced to the type of each allowed value.
    pub(in crate::validate) fn one_of(
        &mut self,
        id: NodeId,
        exact: Option<&Value>,
        allowed: &[Value],
        value: &Value,
    ) -> Option<Value> {
        if let Some(m) = exact {
            return self.out(|| m.clone());
        }
        if S::LAX {
            for m in allowed {
                if let Some((v, rule)) = coerce_like(m, value) {
                    if json_equal(&v, m) {
                        return Some(self.coerced(rule, value, m.clone()));
                    }
                }
            }
        }
        // The whole string, when the error shows only its head (the suggestion reads it all).
        let long = match value {
            Value::String(s) if Clip::clips(s) => Some(s.clone()),
            _ => None,
        };
        self.fail(
            id,
            ErrorCode::NotAllowed,
            value,
            Problem::NotAllowed { long },
        );
        None
    }
}

/// A scalar coerced to the JSON type of `like` (lax rules), if a rule applies.
fn coerce_like(like: &Value, value: &Value) -> Option<(Value, CoercionRule)> {
    match (like, value) {
        (Value::Number(n), Value::String(s)) if number::is_integer(n) => {
            coerce::integer_from_str(s)
                .ok()
                .map(|n| (Value::Number(n), CoercionRule::IntegerFromString))
        }
        (Value::Number(_), Value::String(s)) => coerce::number_from_str(s)
            .ok()
            .map(|n| (Value::Number(n), CoercionRule::NumberFromString)),
        (Value::String(_), Value::Number(n)) => Some((
            Value::String(coerce::string_from_number(n)),
            CoercionRule::StringFromNumber,
        )),
        (Value::Bool(_), Value::String(s)) => coerce::boolean_from_str(s)
            .ok()
            .map(|b| (Value::Bool(b), CoercionRule::BooleanFromString)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys of strings of at most 16 bytes are equal exactly when the strings are, on every
    /// length and every differing byte; enum lookups by key agree with `==` on longer ones too.
    #[test]
    fn str_keys_decide_short_strings() {
        let base: String = "abcdefghijklmnopqrstuvwxyz".into();
        for n in 0..=16 {
            let a = &base[..n];
            assert_eq!(StrKey::new(a), StrKey::new(a));
            assert_ne!(StrKey::new(a), StrKey::new(&base[..n + 1]));
            for i in 0..n {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'-';
                let b = String::from_utf8(b).unwrap_or_default();
                assert_ne!(StrKey::new(a), StrKey::new(&b), "{a} vs {b}");
            }
        }
        let long = "a-very-long-enum-member-name";
        // Same length, first and last eight bytes: only the comparison of the bytes tells.
        let twin = "a-very-long-XXXX-member-name";
        assert_eq!(StrKey::new(long), StrKey::new(twin));
        let e = EnumCheck::new(vec![
            Value::from(long),
            Value::from(1),
            Value::from("short"),
        ]);
        assert_eq!(e.find_str(long), Some(&Value::from(long)));
        assert_eq!(e.find_str(twin), None);
        assert_eq!(e.find_str("short"), Some(&Value::from("short")));
        assert!(!e.only_strings());
        assert!(EnumCheck::new(vec![Value::from("a")]).only_strings());
    }
}

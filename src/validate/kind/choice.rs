//! Enums and literals: the allowed values, with string members found by their keys.

use serde_json::Value;

use super::keys::StrKey;
use crate::validate::walk::json_equal;

/// An enum's members, with the keys of its string members, so that a string is matched without
/// reading any member's bytes (unless both are longer than 16 bytes).
#[derive(Clone, Debug)]
pub(crate) struct EnumCheck {
    pub values: Vec<Value>,
    /// The key of each string member, with its index in `values`.
    strings: Vec<(StrKey, usize)>,
}

impl EnumCheck {
    pub(crate) fn new(values: Vec<Value>) -> EnumCheck {
        let strings = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_str().map(|s| (StrKey::new(s), i)))
            .collect();
        EnumCheck { values, strings }
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
            _ => self.values.iter().find(|m| json_equal(m, value)),
        }
    }

    /// The member equal to the string `s` (strings equal only strings, byte for byte).
    #[inline(always)]
    pub(crate) fn find_str(&self, s: &str) -> Option<&Value> {
        let key = StrKey::new(s);
        for &(k, i) in &self.strings {
            if k == key && (key.is_whole() || self.values[i].as_str() == Some(s)) {
                return self.values.get(i);
            }
        }
        None
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

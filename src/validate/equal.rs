//! Equality of JSON values as JSON Schema defines it (numbers by value, objects regardless of
//! key order), a hash consistent with it, and the search for equal items that `@unique`,
//! enums and constants rely on.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use serde_json::Value;

use super::compile::same_str;
use super::number;

/// JSON equality as JSON Schema defines it: numbers by value (1 equals 1.0), objects regardless
/// of key order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number::equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// A hash consistent with [`json_equal`].
pub(crate) fn json_hash(v: &Value) -> u64 {
    let mut h = DefaultHasher::new();
    match v {
        Value::Null => 0u8.hash(&mut h),
        Value::Bool(b) => (1u8, b).hash(&mut h),
        Value::Number(n) => (2u8, number::hash_key(n)).hash(&mut h),
        Value::String(s) => return str_hash(s),
        Value::Array(items) => {
            4u8.hash(&mut h);
            for i in items {
                json_hash(i).hash(&mut h);
            }
        }
        Value::Object(map) => {
            5u8.hash(&mut h);
            // Order-independent: a sum of per-entry hashes.
            let mut sum = 0u64;
            for (k, v) in map {
                let mut e = DefaultHasher::new();
                k.hash(&mut e);
                json_hash(v).hash(&mut e);
                sum = sum.wrapping_add(e.finish());
            }
            sum.hash(&mut h);
        }
    }
    h.finish()
}

/// [`json_hash`] of a string value, from the string alone.
pub(crate) fn str_hash(s: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (3u8, s).hash(&mut h);
    h.finish()
}

/// The first pair of equal items, `(earlier, later)` (the earliest `later`), in linear expected
/// time; short arrays are compared pairwise, which allocates nothing. The shortest arrays (most
/// `@unique` arrays sent: a few tags) are decided inline, without the call.
#[inline(always)]
pub(crate) fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    match items {
        [] | [_] => None,
        [Value::String(a), Value::String(b)] => same_str(a, b).then_some((0, 1)),
        _ => first_duplicate_scan(items),
    }
}

/// [`first_duplicate`] of arrays of any length.
#[inline(never)]
fn first_duplicate_scan(items: &[Value]) -> Option<(usize, usize)> {
    if items.len() <= 16 {
        for (i, item) in items.iter().enumerate() {
            let earlier = &items[..i];
            let found = match item {
                // Strings equal only strings, byte for byte.
                Value::String(s) => earlier
                    .iter()
                    .position(|x| matches!(x, Value::String(t) if same_str(t, s))),
                // Numbers equal only numbers, by value.
                Value::Number(n) => earlier
                    .iter()
                    .position(|x| matches!(x, Value::Number(m) if number::equal(m, n))),
                _ => earlier.iter().position(|x| json_equal(x, item)),
            };
            if let Some(j) = found {
                return Some((j, i));
            }
        }
        return None;
    }
    let mut seen = Positions::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if let Some(j) = seen.insert(item, i, |j| &items[j]) {
            return Some((j, i));
        }
    }
    None
}

/// Positions of values by [`json_hash`]: a value's equal among many found in expected constant
/// time, where a scan of them all for each would be quadratic. The values stay where they are
/// (a list being built, the members of an enum); `value_at` reads the value at a position.
#[derive(Clone, Debug)]
pub(crate) struct Positions(HashMap<u64, Vec<usize>>);

impl Positions {
    pub(crate) fn with_capacity(n: usize) -> Positions {
        Positions(HashMap::with_capacity(n))
    }

    /// The first position recorded whose value equals `value`.
    pub(crate) fn find<'v>(
        &self,
        value: &Value,
        value_at: impl Fn(usize) -> &'v Value,
    ) -> Option<usize> {
        self.find_hashed(json_hash(value), |i| json_equal(value_at(i), value))
    }

    /// The first position recorded under `hash` (a [`json_hash`], or a [`str_hash`] made
    /// without building the value) that `is` accepts.
    pub(crate) fn find_hashed(&self, hash: u64, is: impl Fn(usize) -> bool) -> Option<usize> {
        self.0.get(&hash)?.iter().copied().find(|&i| is(i))
    }

    /// Records `value` at position `i`, unless an equal value is recorded: then gives that
    /// value's position and records nothing.
    pub(crate) fn insert<'v>(
        &mut self,
        value: &Value,
        i: usize,
        value_at: impl Fn(usize) -> &'v Value,
    ) -> Option<usize> {
        let bucket = self.0.entry(json_hash(value)).or_default();
        if let Some(&j) = bucket.iter().find(|&&j| json_equal(value_at(j), value)) {
            return Some(j);
        }
        bucket.push(i);
        None
    }
}

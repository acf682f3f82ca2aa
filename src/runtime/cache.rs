//! The result cache of `@cache` tools: bounded in entries and in bytes, least recently used
//! first out, entries aging on the runtime's clock.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::validate::json_len;

/// The bounds of a runtime's result cache ([`Runtime::with_cache_limits`]): both hold at once,
/// and the least recently used entries are dropped to keep them. A result larger than `bytes`
/// on its own is not stored.
///
/// [`Runtime::with_cache_limits`]: super::Runtime::with_cache_limits
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLimits {
    /// The most entries kept (0: nothing is cached).
    pub entries: usize,
    /// The most bytes kept: each entry counts its key (the tool's name and the canonical
    /// arguments) and its result, both as compact JSON.
    pub bytes: usize,
}

impl Default for CacheLimits {
    /// 1024 entries and 16 MiB.
    fn default() -> Self {
        CacheLimits {
            entries: 1024,
            bytes: 16 << 20,
        }
    }
}

/// The cache: shared by every call of a runtime.
#[derive(Debug, Default)]
pub(crate) struct ResultCache {
    limits: CacheLimits,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<Arc<str>, Entry>,
    /// The keys by the time of their last use, oldest first.
    order: BTreeMap<u64, Arc<str>>,
    /// The next time of use.
    tick: u64,
    /// The bytes the entries count.
    bytes: usize,
}

#[derive(Debug)]
struct Entry {
    value: Value,
    expires: Option<Instant>,
    bytes: usize,
    used: u64,
}

impl ResultCache {
    pub(crate) fn new(limits: CacheLimits) -> ResultCache {
        ResultCache {
            limits,
            state: Mutex::default(),
        }
    }

    pub(crate) fn limits(&self) -> CacheLimits {
        self.limits
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The result stored under `key`, if it has not expired at `now`; using it makes it the
    /// most recently used. An expired entry is dropped.
    pub(crate) fn get(&self, key: &str, now: Instant) -> Option<Value> {
        let mut state = self.state();
        let (expired, used) = {
            let entry = state.entries.get(key)?;
            (entry.expires.is_some_and(|at| now >= at), entry.used)
        };
        if expired {
            state.remove(key);
            return None;
        }
        let tick = state.tick;
        state.tick += 1;
        let shared = state.order.remove(&used)?;
        state.order.insert(tick, shared);
        let entry = state.entries.get_mut(key)?;
        entry.used = tick;
        Some(entry.value.clone())
    }

    /// Stores `value` under `key` until `ttl` after `now`, dropping the least recently used
    /// entries to stay within the limits.
    pub(crate) fn put(&self, key: String, value: Value, now: Instant, ttl: Duration) {
        let bytes = key.len().saturating_add(json_len(&value));
        if self.limits.entries == 0 || bytes > self.limits.bytes {
            return;
        }
        let mut state = self.state();
        state.remove(key.as_str());
        let key: Arc<str> = key.into();
        let used = state.tick;
        state.tick += 1;
        state.order.insert(used, Arc::clone(&key));
        state.bytes = state.bytes.saturating_add(bytes);
        state.entries.insert(
            key,
            Entry {
                value,
                expires: now.checked_add(ttl),
                bytes,
                used,
            },
        );
        while state.entries.len() > self.limits.entries || state.bytes > self.limits.bytes {
            let Some((_, oldest)) = state.order.pop_first() else {
                break;
            };
            state.remove(&oldest);
        }
    }

    /// How many entries are stored.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.state().entries.len()
    }
}

impl State {
    fn remove(&mut self, key: &str) {
        if let Some(entry) = self.entries.remove(key) {
            self.order.remove(&entry.used);
            self.bytes = self.bytes.saturating_sub(entry.bytes);
        }
    }
}

/// The key of a call: the tool's name, then its normalized arguments as canonical JSON
/// (object keys sorted, no spaces), so that the same arguments in any key order share it.
pub(crate) fn key(tool: &str, arguments: &Value) -> String {
    let mut out = String::with_capacity(tool.len() + 64);
    out.push_str(tool);
    out.push('\n');
    canonical(arguments, &mut out);
    out
}

/// `value` as compact JSON with the keys of every object sorted. Arguments reach it validated,
/// so their depth is within the validator's limits.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&map[k], out);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_do_not_depend_on_the_order_of_object_keys() {
        let a = json!({"b": [1, {"y": 2, "x": "q\""}], "a": null});
        let b = json!({"a": null, "b": [1, {"x": "q\"", "y": 2}]});
        assert_eq!(key("t", &a), key("t", &b));
        assert_eq!(
            key("t", &a),
            "t\n{\"a\":null,\"b\":[1,{\"x\":\"q\\\"\",\"y\":2}]}"
        );
        assert_ne!(key("t", &a), key("u", &a));
    }

    #[test]
    fn entries_expire_after_their_ttl() {
        let cache = ResultCache::new(CacheLimits::default());
        let now = Instant::now();
        let ttl = Duration::from_secs(60);
        cache.put("k".into(), json!(1), now, ttl);
        assert_eq!(
            cache.get("k", now + ttl - Duration::from_nanos(1)),
            Some(json!(1))
        );
        assert_eq!(cache.get("k", now + ttl), None);
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn the_least_recently_used_entry_goes_first() {
        let cache = ResultCache::new(CacheLimits {
            entries: 2,
            bytes: 1 << 20,
        });
        let now = Instant::now();
        let ttl = Duration::from_secs(60);
        cache.put("a".into(), json!(1), now, ttl);
        cache.put("b".into(), json!(2), now, ttl);
        cache.get("a", now);
        cache.put("c".into(), json!(3), now, ttl);
        assert_eq!(cache.get("b", now), None);
        assert_eq!(cache.get("a", now), Some(json!(1)));
        assert_eq!(cache.get("c", now), Some(json!(3)));
    }

    #[test]
    fn the_bytes_are_bounded_and_a_result_too_large_is_not_stored() {
        // Each entry: a one-byte key and a ten-byte string result.
        let cache = ResultCache::new(CacheLimits {
            entries: 100,
            bytes: 25,
        });
        let now = Instant::now();
        let ttl = Duration::from_secs(60);
        for k in ["a", "b", "c"] {
            cache.put(k.into(), json!("12345678"), now, ttl);
        }
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("a", now), None);
        cache.put("d".into(), json!("x".repeat(100)), now, ttl);
        assert_eq!(cache.get("d", now), None);
        assert_eq!(cache.len(), 2);
        // Replacing an entry does not count it twice.
        cache.put("c".into(), json!("87654321"), now, ttl);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("b", now), Some(json!("12345678")));
    }
}

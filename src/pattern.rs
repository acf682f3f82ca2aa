//! `@pattern`: compiled once per process, matched on every call.
//!
//! A pattern means what the `regex` crate's default syntax says (Unicode on, unanchored search,
//! linear time). Building one costs far more than parsing the rest of a tool (a Unicode class
//! such as `[^@ ]` compiles to a large UTF-8 automaton), so each pattern text is built once per
//! process and shared by the checker and every validator: a small cache keyed by the pattern
//! text, emptied when it reaches 64 entries. Errors are not cached.
//!
//! Matching is on the validator's hot path, where the patterns are short and so are the strings
//! (an email, an issue key). `Regex::is_match` spends a few hundred instructions a call choosing
//! and preparing its engine before it reads the first byte, so a pattern whose fully built DFA
//! stays small also gets one (the same `regex-automata` machinery the `regex` crate uses, from
//! the same syntax), and matching reads the string through it byte by byte. Patterns whose DFA
//! would be large, or that the DFA cannot express (a Unicode word boundary), use the regex.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::primitives::StateID;
use regex_automata::Input;

/// The most memory a pattern's DFA may take; larger ones are not built.
const DFA_SIZE_LIMIT: usize = 256 * 1024;
/// The most memory building a DFA may use before it gives up.
const DETERMINIZE_SIZE_LIMIT: usize = 2 * 1024 * 1024;
/// How many compiled patterns the cache keeps before it is emptied.
const CAPACITY: usize = 64;
/// DFAs with at most this many states are also laid out as a [`Table`].
const TABLE_STATES: usize = 64;

/// A compiled `@pattern`. Cheap to clone (the compiled parts are shared), and two words: the
/// table most matches use, and the rest behind one pointer.
#[derive(Clone, Debug)]
pub struct Pattern {
    table: Option<Arc<Table>>,
    general: Arc<General>,
}

/// The parts of a pattern that matches without a [`Table`] use.
#[derive(Debug)]
struct General {
    regex: regex::Regex,
    dfa: Option<dense::DFA<Vec<u32>>>,
}

impl Pattern {
    /// The pattern compiled, from the process-wide cache when it was compiled before.
    pub fn new(pattern: &str) -> Result<Pattern, regex::Error> {
        static CACHE: OnceLock<Mutex<HashMap<String, Pattern>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        // A panic while the lock was held cannot leave the map half-updated: recover it.
        if let Some(p) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(pattern) {
            return Ok(p.clone());
        }
        let compiled = Pattern::build(pattern)?;
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= CAPACITY {
            map.clear();
        }
        map.insert(pattern.to_string(), compiled.clone());
        Ok(compiled)
    }

    /// Compiles without the cache: the regex decides whether the pattern is valid; the DFA is
    /// built only for a valid pattern, and left out when it would be too large.
    fn build(pattern: &str) -> Result<Pattern, regex::Error> {
        let regex = regex::Regex::new(pattern)?;
        let dfa = dense::Builder::new()
            .configure(
                dense::DFA::config()
                    .start_kind(StartKind::Unanchored)
                    .dfa_size_limit(Some(DFA_SIZE_LIMIT))
                    .determinize_size_limit(Some(DETERMINIZE_SIZE_LIMIT)),
            )
            .build(pattern)
            .ok();
        let table = dfa.as_ref().and_then(Table::new).map(Arc::new);
        Ok(Pattern {
            table,
            general: Arc::new(General { regex, dfa }),
        })
    }

    /// The pattern's text.
    pub fn as_str(&self) -> &str {
        self.general.regex.as_str()
    }

    /// Whether the pattern matches somewhere in `s` (unanchored, as JSON Schema's `pattern`).
    #[inline]
    pub fn is_match(&self, s: &str) -> bool {
        if let Some(table) = &self.table {
            if let Some(matched) = table.is_match(s) {
                return matched;
            }
        }
        self.general.is_match(s)
    }

    /// Whether the pattern has a DFA (for tests).
    #[cfg(test)]
    fn has_dfa(&self) -> bool {
        self.general.dfa.is_some()
    }
}

impl General {
    /// [`Pattern::is_match`] without the table (or when the table could not decide).
    #[inline(never)]
    fn is_match(&self, s: &str) -> bool {
        self.dfa
            .as_ref()
            .and_then(|dfa| dfa_match(dfa, s))
            .unwrap_or_else(|| self.regex.is_match(s))
    }
}

/// A small DFA laid out for the shortest loop: a row of 256 next states (one byte each) for
/// every state, states numbered from [`FIRST`], and the special states the search stops at
/// folded into three numbers below it (every match state is one [`MATCH`], since the first match
/// decides). Reading a byte is one load from the current row; the general DFA loop also maps the
/// byte to its class and checks the state for every kind of special.
#[derive(Debug)]
struct Table {
    /// `next[state * 256 + byte]`; the rows of the special states are never read.
    next: Vec<u8>,
    /// Whether the end of the text after each state makes a match.
    eoi: Vec<bool>,
    start: u8,
}

const DEAD: u8 = 0;
const MATCH: u8 = 1;
const QUIT: u8 = 2;
const FIRST: u8 = 3;

impl Table {
    /// The table of `dfa`, or `None` when it has more than [`TABLE_STATES`] states reachable
    /// from its start (or starts in a special state).
    fn new(dfa: &dense::DFA<Vec<u32>>) -> Option<Table> {
        // Every search starts at the start of the text, so one start state serves them all.
        let start = dfa.start_state_forward(&Input::new("")).ok()?;
        let mut ids: HashMap<StateID, u8> = HashMap::new();
        let mut order: Vec<StateID> = Vec::new();
        let start = Table::number(dfa, start, &mut ids, &mut order)?;
        if start < FIRST {
            return None;
        }
        let mut next = vec![DEAD; usize::from(FIRST) * 256];
        let mut eoi = vec![false; usize::from(FIRST)];
        let mut done = 0;
        while let Some(&id) = order.get(done) {
            for b in 0..=255u8 {
                next.push(Table::number(
                    dfa,
                    dfa.next_state(id, b),
                    &mut ids,
                    &mut order,
                )?);
            }
            eoi.push(dfa.is_match_state(dfa.next_eoi_state(id)));
            done += 1;
        }
        Some(Table { next, eoi, start })
    }

    /// The number of state `id`, given the next free one when it is new.
    fn number(
        dfa: &dense::DFA<Vec<u32>>,
        id: StateID,
        ids: &mut HashMap<StateID, u8>,
        order: &mut Vec<StateID>,
    ) -> Option<u8> {
        if dfa.is_match_state(id) {
            return Some(MATCH);
        }
        if dfa.is_dead_state(id) {
            return Some(DEAD);
        }
        if dfa.is_quit_state(id) {
            return Some(QUIT);
        }
        if let Some(&n) = ids.get(&id) {
            return Some(n);
        }
        if order.len() >= TABLE_STATES {
            return None;
        }
        let n = FIRST + u8::try_from(order.len()).ok()?;
        ids.insert(id, n);
        order.push(id);
        Some(n)
    }

    /// As [`dfa_match`].
    #[inline]
    fn is_match(&self, s: &str) -> Option<bool> {
        let mut state = self.start;
        for &b in s.as_bytes() {
            state = self.next[usize::from(state) << 8 | usize::from(b)];
            if state < FIRST {
                return match state {
                    MATCH => Some(true),
                    DEAD => Some(false),
                    _ => None,
                };
            }
        }
        Some(self.eoi[usize::from(state)])
    }
}

/// Runs the DFA over `s`; `None` when it cannot decide (a quit state, which these DFAs are not
/// built with, or a start state it cannot compute), so that the regex decides.
#[inline]
fn dfa_match(dfa: &dense::DFA<Vec<u32>>, s: &str) -> Option<bool> {
    let mut state = dfa.start_state_forward(&Input::new(s)).ok()?;
    for &b in s.as_bytes() {
        state = dfa.next_state(state, b);
        if dfa.is_special_state(state) {
            // Match states come one byte late: a match ended before this byte.
            if dfa.is_match_state(state) {
                return Some(true);
            }
            if dfa.is_dead_state(state) {
                return Some(false);
            }
            if dfa.is_quit_state(state) {
                return None;
            }
        }
    }
    Some(dfa.is_match_state(dfa.next_eoi_state(state)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_shared_and_errors_reported_every_time() {
        let first = Pattern::new("^[^@ ]+@[^@ ]+$").expect("valid");
        let again = Pattern::new("^[^@ ]+@[^@ ]+$").expect("valid");
        assert!(first.is_match("a@b") && again.is_match("a@b"));
        assert!(!again.is_match("a b"));
        assert_eq!(again.as_str(), "^[^@ ]+@[^@ ]+$");
        // Unanchored, as JSON Schema's `pattern`.
        assert!(Pattern::new("b+").expect("valid").is_match("abbc"));
        for _ in 0..2 {
            assert!(Pattern::new("(").is_err());
            assert!(Pattern::new("(?=a)").is_err());
        }
        // More distinct patterns than the cache holds: every one still compiles and matches.
        for i in 0..200 {
            let re = Pattern::new(&format!("^x{i}$")).expect("valid");
            assert!(re.is_match(&format!("x{i}")));
            assert!(!re.is_match(&format!("x{i}y")));
        }
        assert!(Pattern::new("^[^@ ]+@[^@ ]+$")
            .expect("valid")
            .is_match("é@ü"));
    }

    #[test]
    fn small_patterns_get_a_dfa_and_others_fall_back() {
        assert!(Pattern::new("^[^@ ]+@[^@ ]+$").expect("valid").has_dfa());
        assert!(Pattern::new("^[A-Z]{2,10}-[0-9]+$")
            .expect("valid")
            .has_dfa());
        // A Unicode word boundary is beyond a DFA; a huge counted repetition beyond its limit.
        let word = Pattern::new(r"\bcat\b").expect("valid");
        assert!(!word.has_dfa());
        assert!(word.is_match("a cat sat") && !word.is_match("concatenate"));
        let big = Pattern::new(r"^\w{50}$").expect("valid");
        assert!(!big.has_dfa());
        assert!(big.is_match(&"é".repeat(50)) && !big.is_match(&"é".repeat(49)));
    }

    /// The DFA and the regex agree on every string of a set chosen to hit anchors, Unicode
    /// classes, empty matches, alternations and line anchors.
    #[test]
    fn the_dfa_agrees_with_the_regex() {
        let patterns = [
            "^[^@ ]+@[^@ ]+$",
            "^[A-Z]{2,10}-[0-9]+$",
            "b+",
            "",
            "^$",
            "^a|b$",
            "(?m)^x$",
            r"\d{3}",
            r"^\p{Lu}\p{Ll}*$",
            "(?i)straße",
            "a.c",
            r"^[\u{1F600}-\u{1F64F}]+$",
            "^(foo|foobar)$",
            "colou?r",
        ];
        let strings = [
            "",
            "a",
            "a@b",
            "a b@c",
            "é@ü",
            "AB-12",
            "ab-12",
            "ABCDEFGHIJK-1",
            "abbc",
            "x",
            "y\nx\nz",
            "x\n",
            "123",
            "12a3",
            "Émile",
            "émile",
            "STRASSE",
            "STRAßE",
            "a\nc",
            "abc",
            "😀😃",
            "😀a",
            "foobar",
            "foo",
            "color",
            "colour",
            "colr",
            "\u{0}",
            "a@",
            "@b",
        ];
        for p in patterns {
            let pattern = Pattern::new(p).expect("valid");
            let dfa = pattern.general.dfa.as_ref().expect("a DFA");
            let regex = regex::Regex::new(p).expect("valid");
            for s in strings {
                let want = regex.is_match(s);
                assert_eq!(pattern.is_match(s), want, "/{p}/ on {s:?}");
                // Both DFA loops, whichever the pattern uses.
                assert_eq!(dfa_match(dfa, s), Some(want), "/{p}/ on {s:?}, DFA");
                if let Some(table) = &pattern.table {
                    assert_eq!(table.is_match(s), Some(want), "/{p}/ on {s:?}, table");
                }
            }
        }
        // The email pattern of the benchmarks is small enough for a table.
        assert!(Pattern::new("^[^@ ]+@[^@ ]+$")
            .expect("valid")
            .table
            .is_some());
    }
}

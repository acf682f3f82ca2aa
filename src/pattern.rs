//! `@pattern`: compiled once per process, matched on every call.
//!
//! A pattern is written in the syntax of the `regex` crate (linear time, unanchored search) and
//! means what ECMA-262 says, because that is how every JSON Schema validator reads the emitted
//! `pattern`: strict mode and the schema must agree. Where the two differ on the same spelling,
//! the pattern is parsed ([`regex_syntax::ast`]) and rewritten before it is compiled ([`ecma`]):
//! `\d`, `\w`, `\s` and their negations become ECMA-262's sets (ASCII digits, ASCII word
//! characters, ECMA whitespace and line terminators), inside and outside brackets; `\b` and `\B`
//! are ASCII word boundaries; `.` stops at every ECMA line terminator; `\cX` is a control character
//! and `[\b]` a backspace. Lookaround and backreferences stay rejected, as the `regex` crate
//! rejects them.
//!
//! Building one costs far more than parsing the rest of a tool (a Unicode class such as `[^@ ]`
//! compiles to a large UTF-8 automaton, and a counted repetition such as `.{3000}` to thousands
//! of copies of one), so the patterns of a module are compiled under a budget ([`Patterns`]): the
//! memory they hold, each distinct text counted once, is at most [`MAX_PATTERN_MEMORY`], and
//! building stops with an error past it. Without it, 256 patterns of nine bytes each held a
//! gigabyte. The memory a pattern's searches keep (a lazy DFA's states, built while matching and
//! kept for the next match, in each thread) is bounded for each pattern in proportion to its
//! regex, and counted in the same budget. Each text is built once per process and shared by the
//! checker and every validator: a cache keyed by the pattern text, emptied when the memory of
//! its patterns would pass twice that budget. Errors are not cached.
//!
//! Matching is on the validator's hot path, where the patterns are short and so are the strings
//! (an email, an issue key). A regex spends a few hundred instructions a call choosing and
//! preparing its engine before it reads the first byte, so a pattern whose fully built DFA stays
//! small also gets one (the same `regex-automata` machinery the `regex` crate uses, from the same
//! rewritten syntax), and matching reads the string through it byte by byte. Patterns whose DFA
//! would be large, or that hold a `\B` (an ASCII non-boundary also holds between the bytes of one
//! character, which only the regex knows to skip), use the regex. The DFA only makes matching
//! faster, so the work of trying one is bounded apart: each try in proportion to the regex's own
//! size, and all the tries of a module by [`DFA_WORK`], past which patterns use the regex alone.

use std::collections::HashMap;
use std::sync::Arc;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::primitives::StateID;
use regex_automata::Input;
use regex_syntax::ast::{
    self, Assertion, AssertionKind, Ast, ClassBracketed, ClassPerl, ClassPerlKind, ClassSet,
    ClassSetItem, ClassSetRange, ClassSetUnion, Flag, Flags, FlagsItem, FlagsItemKind, Group,
    GroupKind, HexLiteralKind, Literal, LiteralKind, Span,
};

/// The most memory the compiled patterns of one module (in the checker) or of one validator may
/// hold, each distinct pattern text counted once, with what their searches keep (in each thread
/// that matches them); past it the build stops with an error.
pub const MAX_PATTERN_MEMORY: usize = 32 << 20;
/// The most memory one pattern's regex may take while it is built (the `regex` crate's default).
const NFA_SIZE_LIMIT: usize = 10 << 20;
/// The most memory one pattern's lazy DFA keeps per thread while matching (the `regex` crate's
/// default), each way (a search may run one forward and one backward).
const HYBRID_CACHE: usize = 2 << 20;
/// The least: each pattern matched by its regex gets the memory of that regex for its lazy DFA,
/// within these two. A larger regex has larger states to keep; a small one does not need the
/// `regex` crate's two mebibytes, with which 1,000 small patterns kept 723 MB after one hostile
/// call of 4 MB (BENCHMARKS.md, round 23).
const HYBRID_CACHE_FLOOR: usize = 64 << 10;
/// The most memory a pattern's DFA may take; larger ones are not built.
const DFA_SIZE_LIMIT: usize = 256 * 1024;
/// The most memory building a DFA may use before it gives up.
const DETERMINIZE_SIZE_LIMIT: usize = 2 * 1024 * 1024;
/// A DFA try may use this many times the memory of the pattern's regex (at least
/// [`DFA_TRY_FLOOR`]): building a DFA takes time in proportion to the memory it uses, so a try
/// costs at most a fixed multiple of building the regex. The DFAs measured when this was chosen
/// (Unicode classes, emails, dates, issue keys, the corpus's patterns) took at most about three
/// times.
const DFA_TRY_FACTOR: usize = 8;
/// The memory any DFA try may use, however small the regex (a literal's regex holds a few bytes).
const DFA_TRY_FLOOR: usize = 16 << 10;
/// The memory all the DFA tries of one module (or validator) may use together; later patterns
/// match with their regex alone. Several hundred Unicode-class patterns fit.
const DFA_WORK: usize = 64 << 20;
/// The longest pattern (as written, in bytes) whose DFA is tried. The memory limits above bound the
/// DFA's size, not the time spent reaching them: each state costs work in proportion to the
/// pattern, so a long pattern of many `.*` spent seconds before giving up (2.6 KB: 6.6 billion
/// instructions). Patterns on the hot path are short; longer ones use the regex.
const DFA_MAX_PATTERN: usize = 256;
/// The most memory the process-wide cache holds before it is emptied.
const CACHE_MEMORY: usize = 2 * MAX_PATTERN_MEMORY;
/// DFAs with at most this many states are also laid out as a [`Table`].
const TABLE_STATES: usize = 64;

/// A compiled `@pattern`. Cheap to clone (the compiled parts are shared), and two words: the
/// table most matches use, and the rest behind one pointer.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    table: Option<Arc<Table>>,
    general: Arc<General>,
}

/// The parts of a pattern that matches without a [`Table`] use.
#[derive(Debug)]
struct General {
    /// The pattern as written.
    source: Box<str>,
    /// The ECMA-262 reading of the pattern ([`ecma`]), built as the `regex` crate builds it.
    regex: meta::Regex,
    dfa: Option<dense::DFA<Vec<u32>>>,
}

/// Why a pattern was not compiled.
#[derive(Debug)]
pub(crate) enum BuildError {
    /// It is not a valid pattern, or its regex alone passes the size limit.
    Invalid(regex::Error),
    /// Compiling it would bring the memory of the module's patterns past
    /// [`MAX_PATTERN_MEMORY`]; `held` is what they would hold with it (or what had been spent
    /// when the budget ran out before it).
    OverBudget { held: usize },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Invalid(e) => e.fmt(f),
            BuildError::OverBudget { held } => write!(
                f,
                "the patterns compile to more than {} MiB ({} MiB with this one)",
                MAX_PATTERN_MEMORY >> 20,
                held.div_ceil(1 << 20)
            ),
        }
    }
}

/// The patterns of one module (or of one validator), compiled under its budgets: each distinct
/// text once, the memory they hold at most [`MAX_PATTERN_MEMORY`], the work spent trying DFAs at
/// most [`DFA_WORK`].
#[derive(Debug)]
pub(crate) struct Patterns {
    compiled: HashMap<Box<str>, Pattern>,
    /// Memory the compiled patterns hold, plus the size limit for each one that passed it.
    held: usize,
    /// Memory the DFA tries may still use.
    dfa_work: usize,
}

impl Default for Patterns {
    fn default() -> Patterns {
        Patterns {
            compiled: HashMap::new(),
            held: 0,
            dfa_work: DFA_WORK,
        }
    }
}

impl Patterns {
    /// `pattern` compiled: the one compiled before when the module has it already, else from
    /// the process-wide cache, else built.
    pub(crate) fn compile(&mut self, pattern: &str) -> Result<Pattern, BuildError> {
        if let Some(p) = self.compiled.get(pattern) {
            return Ok(p.clone());
        }
        if self.held > MAX_PATTERN_MEMORY {
            return Err(BuildError::OverBudget { held: self.held });
        }
        let compiled = match cache::get(pattern) {
            Some(p) => p,
            None => {
                let built = Pattern::build(pattern, &mut self.dfa_work);
                if let Err(regex::Error::CompiledTooBig(limit)) = &built {
                    // The work of reaching the limit was spent: it counts against the budget.
                    self.held = self.held.saturating_add(*limit);
                }
                let built = built.map_err(BuildError::Invalid)?;
                cache::put(pattern, &built);
                built
            }
        };
        self.held = self.held.saturating_add(compiled.memory_usage());
        if self.held > MAX_PATTERN_MEMORY {
            return Err(BuildError::OverBudget { held: self.held });
        }
        self.compiled.insert(pattern.into(), compiled.clone());
        Ok(compiled)
    }
}

/// The process-wide cache of compiled patterns, by text.
mod cache {
    use super::{Pattern, CACHE_MEMORY};
    use std::collections::HashMap;
    use std::sync::{Mutex, MutexGuard, OnceLock};

    #[derive(Default)]
    struct Cache {
        map: HashMap<String, Pattern>,
        held: usize,
    }

    fn lock() -> MutexGuard<'static, Cache> {
        static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
        // A panic while the lock was held cannot leave the map half-updated: recover it.
        CACHE
            .get_or_init(Mutex::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn get(pattern: &str) -> Option<Pattern> {
        lock().map.get(pattern).cloned()
    }

    pub(super) fn put(pattern: &str, compiled: &Pattern) {
        let size = compiled.memory_usage();
        let mut cache = lock();
        if cache.held + size > CACHE_MEMORY {
            cache.map.clear();
            cache.held = 0;
        }
        if size <= CACHE_MEMORY
            && cache
                .map
                .insert(pattern.to_string(), compiled.clone())
                .is_none()
        {
            cache.held += size;
        }
    }
}

impl Pattern {
    /// `pattern` compiled under a budget of its own (for tests).
    #[cfg(test)]
    fn new(pattern: &str) -> Result<Pattern, BuildError> {
        Patterns::default().compile(pattern)
    }

    /// Compiles `pattern`: the regex decides whether it is valid; a DFA is tried only for a
    /// valid pattern that is short enough, with the memory `dfa_work` still allows (and charged
    /// against it), and left out when it would be too large.
    fn build(pattern: &str, dfa_work: &mut usize) -> Result<Pattern, regex::Error> {
        let ecma = ecma(pattern)?;
        let regex = regex(&ecma.text, HYBRID_CACHE_FLOOR).map_err(|e| {
            // Report a syntax error on the pattern as written when it has one there.
            regex_syntax::Parser::new()
                .parse(pattern)
                .err()
                .map_or(e, |e| regex::Error::Syntax(e.to_string()))
        })?;
        let allowance =
            (DFA_TRY_FACTOR * regex.memory_usage()).clamp(DFA_TRY_FLOOR, DETERMINIZE_SIZE_LIMIT);
        let dfa = if ecma.splits || pattern.len() > DFA_MAX_PATTERN || allowance > *dfa_work {
            None
        } else {
            *dfa_work -= allowance;
            dense::Builder::new()
                .configure(
                    dense::DFA::config()
                        .start_kind(StartKind::Unanchored)
                        .dfa_size_limit(Some(allowance.min(DFA_SIZE_LIMIT)))
                        .determinize_size_limit(Some(allowance)),
                )
                .build(&ecma.text)
                .ok()
        };
        let table = dfa.as_ref().and_then(Table::new).map(Arc::new);
        // Matched by its regex: built again when its states deserve more room.
        let cache = hybrid_cache(regex.memory_usage());
        let regex = if dfa.is_none() && cache > HYBRID_CACHE_FLOOR {
            self::regex(&ecma.text, cache)?
        } else {
            regex
        };
        // The cache is known again from the regex (`General::search`): its size does not count.
        debug_assert_eq!(hybrid_cache(regex.memory_usage()), cache);
        Ok(Pattern {
            table,
            general: Arc::new(General {
                source: pattern.into(),
                regex,
                dfa,
            }),
        })
    }

    /// The pattern's text, as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.general.source
    }

    /// The heap memory the compiled pattern holds, in bytes, with what its searches may keep in
    /// one thread.
    pub(crate) fn memory_usage(&self) -> usize {
        let general = &self.general;
        let table = self
            .table
            .as_ref()
            .map_or(0, |t| t.next.len() + t.eoi.len());
        general.source.len()
            + general.regex.memory_usage()
            + general.dfa.as_ref().map_or(0, |d| d.memory_usage())
            + general.search()
            + table
    }

    /// Whether the pattern matches somewhere in `s` (unanchored, as JSON Schema's `pattern`).
    #[inline]
    pub(crate) fn is_match(&self, s: &str) -> bool {
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

/// `text` built as `regex::Regex::new` builds it (the same engine and settings, but for groups),
/// with its errors in the `regex` crate's words: that crate's `Regex` does not say how much
/// memory it holds. Groups capture nothing, since only whether the pattern matches is asked: a
/// search that tracks them needs memory for every group at every state of the regex, the square
/// of its length.
fn regex(text: &str, hybrid_cache: usize) -> Result<meta::Regex, regex::Error> {
    let config = meta::Config::new()
        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
        .hybrid_cache_capacity(hybrid_cache)
        // Its visited set takes up to 256 KiB a pattern; the engine it stands in for when the
        // lazy DFA gives up (the PikeVM) needs memory in proportion to the regex.
        .backtrack(false)
        .which_captures(WhichCaptures::Implicit)
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(true);
    meta::Builder::new()
        .configure(config)
        .syntax(regex_automata::util::syntax::Config::new().utf8(true))
        .build(text)
        .map_err(|e| match (e.size_limit(), e.syntax_error()) {
            (Some(limit), _) => regex::Error::CompiledTooBig(limit),
            (None, Some(syntax)) => regex::Error::Syntax(syntax.to_string()),
            (None, None) => regex::Error::Syntax(e.to_string()),
        })
}

/// The lazy DFA's cache for a regex of `regex` bytes: as much again, within
/// [`HYBRID_CACHE_FLOOR`] and [`HYBRID_CACHE`].
fn hybrid_cache(regex: usize) -> usize {
    regex.clamp(HYBRID_CACHE_FLOOR, HYBRID_CACHE)
}

/// The most memory a search of a regex of `regex` bytes keeps, its lazy DFA given `hybrid_cache`
/// bytes each way: the two lazy DFAs, and the other engines' caches (the PikeVM's sets, a
/// one-pass DFA's slots), counted as much as the regex (the tests search six shapes of
/// pattern over long hostile texts and find each one's caches within the sum).
fn kept_by_searches(regex: usize, hybrid_cache: usize) -> usize {
    2 * hybrid_cache + regex
}

impl General {
    /// The most memory the regex's searches keep in one thread: none when the DFA matches
    /// instead ([`kept_by_searches`]).
    fn search(&self) -> usize {
        match self.dfa {
            Some(_) => 0,
            None => {
                let regex = self.regex.memory_usage();
                kept_by_searches(regex, hybrid_cache(regex))
            }
        }
    }

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

// ---------------------------------------------------------------------------------------------
// ECMA-262 meaning

/// ECMA-262 `\s`: WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP and the other Unicode space
/// separators, Zs) and LineTerminator (LF, CR, LS, PS). The regex crate's `\s` is Unicode
/// White_Space, which holds U+0085 and not U+FEFF.
const SPACE: &[(char, char)] = &[
    ('\t', '\r'),
    (' ', ' '),
    ('\u{A0}', '\u{A0}'),
    ('\u{1680}', '\u{1680}'),
    ('\u{2000}', '\u{200A}'),
    ('\u{2028}', '\u{2029}'),
    ('\u{202F}', '\u{202F}'),
    ('\u{205F}', '\u{205F}'),
    ('\u{3000}', '\u{3000}'),
    ('\u{FEFF}', '\u{FEFF}'),
];
/// ECMA-262 `\d`.
const DIGIT: &[(char, char)] = &[('0', '9')];
/// ECMA-262 `\w`. Under `(?i)` the regex crate folds this class to add U+017F and U+212A (which
/// fold to `s` and `k`), as ECMA-262 does for `\w` with the `u` and `i` flags.
const WORD: &[(char, char)] = &[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')];
/// The line terminators, which ECMA-262's `.` does not match (the regex crate's stops at `\n`
/// only).
const LINE_TERMINATORS: &[(char, char)] = &[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')];
/// The most `\cX` and `[\b]` escapes one pattern may hold: each is found by a parse.
const ECMA_ESCAPES: usize = 64;

/// A pattern rewritten to mean in the regex crate what it means in ECMA-262.
#[derive(Debug)]
struct Ecma {
    /// The rewritten pattern, in the regex crate's syntax.
    text: String,
    /// Whether it holds an ASCII `\B`, which also holds between the bytes of one character.
    splits: bool,
}

/// Parses `pattern` and rewrites what ECMA-262 reads differently from the regex crate (see the
/// module's documentation). The rewrite works on the syntax tree, so escapes and classes keep
/// their structure: `\\d` stays a backslash and a `d`, and `[\d-x]` is whatever the parser makes
/// of it. Errors are the regex crate's, on the pattern as written.
fn ecma(pattern: &str) -> Result<Ecma, regex::Error> {
    let mut text = std::borrow::Cow::Borrowed(pattern);
    let mut fixed = 0;
    let mut ast = loop {
        let error = match ast::parse::Parser::new().parse(&text) {
            Ok(ast) => break ast,
            Err(e) => e,
        };
        // Two ECMA-262 escapes the regex crate does not know, found where the parser stops:
        // `\cX` (a control character) and `[\b]` (a backspace).
        let span = error.span();
        let (start, end) = (span.start.offset, span.end.offset);
        let escape = &text[start..end];
        let letter = text[end..].chars().next().filter(char::is_ascii_alphabetic);
        let replacement = match (error.kind(), escape, letter) {
            (ast::ErrorKind::EscapeUnrecognized, r"\c", Some(l)) => {
                Some((end + 1, format!(r"\x{{{:02X}}}", u32::from(l) % 32)))
            }
            (ast::ErrorKind::ClassEscapeInvalid, r"\b", _) => Some((end, r"\x{08}".to_string())),
            _ => None,
        };
        match replacement {
            Some((end, with)) if fixed < ECMA_ESCAPES => {
                fixed += 1;
                text.to_mut().replace_range(start..end, &with);
            }
            _ => {
                return Err(regex::Error::Syntax(
                    regex_syntax::Error::from(error).to_string(),
                ))
            }
        }
    };
    let mut splits = false;
    rewrite(&mut ast, &mut false, &mut splits);
    let mut out = String::with_capacity(text.len() + 16);
    ast::print::Printer::new()
        .print(&ast, &mut out)
        .map_err(|e| regex::Error::Syntax(e.to_string()))?;
    Ok(Ecma { text: out, splits })
}

/// Rewrites `ast` in place; `dot_all` is whether the `s` flag is on where it starts (flags set
/// inside a group end with it, as the regex crate reads them).
fn rewrite(ast: &mut Ast, dot_all: &mut bool, splits: &mut bool) {
    let replacement = match ast {
        Ast::Flags(set) => {
            if let Some(on) = set.flags.flag_state(Flag::DotMatchesNewLine) {
                *dot_all = on;
            }
            None
        }
        Ast::Dot(span) if !*dot_all => Some(Ast::ClassBracketed(Box::new(class(
            **span,
            true,
            LINE_TERMINATORS,
        )))),
        Ast::ClassPerl(perl) => Some(Ast::ClassBracketed(Box::new(perl_class(perl)))),
        Ast::ClassBracketed(bracketed) => {
            rewrite_set(&mut bracketed.kind);
            None
        }
        Ast::Assertion(assertion) => ascii_boundary(assertion, splits),
        Ast::Repetition(repetition) => {
            rewrite(&mut repetition.ast, dot_all, splits);
            None
        }
        Ast::Group(group) => {
            let mut inner = group
                .flags()
                .and_then(|f| f.flag_state(Flag::DotMatchesNewLine))
                .unwrap_or(*dot_all);
            rewrite(&mut group.ast, &mut inner, splits);
            None
        }
        Ast::Alternation(alternation) => {
            for a in &mut alternation.asts {
                rewrite(a, dot_all, splits);
            }
            None
        }
        Ast::Concat(concat) => {
            for a in &mut concat.asts {
                rewrite(a, dot_all, splits);
            }
            None
        }
        Ast::Empty(_) | Ast::Literal(_) | Ast::Dot(_) | Ast::ClassUnicode(_) => None,
    };
    if let Some(new) = replacement {
        *ast = new;
    }
}

/// Rewrites the Perl classes inside brackets (`[\d_]`, `[^\s,]`) as nested classes.
fn rewrite_set(set: &mut ClassSet) {
    match set {
        ClassSet::Item(item) => rewrite_item(item),
        ClassSet::BinaryOp(op) => {
            rewrite_set(&mut op.lhs);
            rewrite_set(&mut op.rhs);
        }
    }
}

fn rewrite_item(item: &mut ClassSetItem) {
    match item {
        ClassSetItem::Perl(perl) => {
            let nested = ClassSetItem::Bracketed(Box::new(perl_class(perl)));
            *item = nested;
        }
        ClassSetItem::Bracketed(bracketed) => rewrite_set(&mut bracketed.kind),
        ClassSetItem::Union(union) => {
            for i in &mut union.items {
                rewrite_item(i);
            }
        }
        ClassSetItem::Empty(_)
        | ClassSetItem::Literal(_)
        | ClassSetItem::Range(_)
        | ClassSetItem::Ascii(_)
        | ClassSetItem::Unicode(_) => {}
    }
}

/// ECMA-262's set for `\d`, `\w`, `\s` or a negation.
fn perl_class(perl: &ClassPerl) -> ClassBracketed {
    let ranges = match perl.kind {
        ClassPerlKind::Digit => DIGIT,
        ClassPerlKind::Word => WORD,
        ClassPerlKind::Space => SPACE,
    };
    class(perl.span, perl.negated, ranges)
}

/// A bracketed class of `ranges`, every character written as `\x{…}`.
fn class(span: Span, negated: bool, ranges: &[(char, char)]) -> ClassBracketed {
    let literal = |c| Literal {
        span,
        kind: LiteralKind::HexBrace(HexLiteralKind::X),
        c,
    };
    let items = ranges
        .iter()
        .map(|&(start, end)| {
            if start == end {
                ClassSetItem::Literal(literal(start))
            } else {
                ClassSetItem::Range(ClassSetRange {
                    span,
                    start: literal(start),
                    end: literal(end),
                })
            }
        })
        .collect();
    ClassBracketed {
        span,
        negated,
        kind: ClassSet::Item(ClassSetItem::Union(ClassSetUnion { span, items })),
    }
}

/// A word-boundary assertion made ASCII (`(?-u:\b)`), as ECMA-262's `\b` and `\B`; the regex
/// crate's extensions `\b{start}`, `\b{end}`, `\<` and `\>` follow, so that "word" means one
/// thing in a pattern. `None` for the other assertions.
fn ascii_boundary(assertion: &Assertion, splits: &mut bool) -> Option<Ast> {
    match assertion.kind {
        AssertionKind::WordBoundary
        | AssertionKind::WordBoundaryStart
        | AssertionKind::WordBoundaryEnd
        | AssertionKind::WordBoundaryStartAngle
        | AssertionKind::WordBoundaryEndAngle => {}
        AssertionKind::NotWordBoundary => *splits = true,
        AssertionKind::StartLine
        | AssertionKind::EndLine
        | AssertionKind::StartText
        | AssertionKind::EndText
        | AssertionKind::WordBoundaryStartHalf
        | AssertionKind::WordBoundaryEndHalf => return None,
    }
    let span = assertion.span;
    let item = |kind| FlagsItem { span, kind };
    Some(Ast::Group(Box::new(Group {
        span,
        kind: GroupKind::NonCapturing(Flags {
            span,
            items: vec![
                item(FlagsItemKind::Negation),
                item(FlagsItemKind::Flag(Flag::Unicode)),
            ],
        }),
        ast: Box::new(Ast::Assertion(Box::new(assertion.clone()))),
    })))
}

// Shared with the tests and benchmarks under `tests/` and `benches/`.
#[cfg(test)]
#[path = "../tests/support/random_text.rs"]
#[allow(unreachable_pub)]
mod random_text;

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

    /// Each spelling that ECMA-262 and the regex crate read differently, with strings on which
    /// they disagree; every verdict is ECMA-262's (with the `u` flag, as JSON Schema asks).
    #[test]
    fn patterns_mean_what_ecma_262_says() {
        let cases: &[(&str, &str, bool)] = &[
            (r"^\d+$", "123", true),
            (r"^\d+$", "\u{663}", false),
            (r"^\d+$", "\u{FF13}", false),
            (r"^\D$", "\u{663}", true),
            (r"^\w+$", "abc_09", true),
            (r"^\w$", "é", false),
            (r"^\W$", "é", true),
            (r"^\s$", "\u{FEFF}", true),
            (r"^\s$", "\u{A0}", true),
            (r"^\s$", "\u{2028}", true),
            (r"^\s$", "\u{3000}", true),
            (r"^\s$", "\u{85}", false),
            (r"^\S$", "\u{85}", true),
            (r"^\S$", "\u{FEFF}", false),
            // Inside brackets, negated or not, beside ranges and a literal `-`.
            (r"^[\d]$", "\u{663}", false),
            (r"^[^\d]$", "\u{663}", true),
            (r"^[\w-]+$", "a-b", true),
            (r"^[\w-]+$", "é", false),
            (r"^[\s\d]+$", "1 \u{3000}2", true),
            (r"^[^\s]$", "\u{FEFF}", false),
            (r"^[^\W]$", "é", false),
            // Word boundaries are ASCII.
            (r"a\b", "aé", true),
            (r"\Bé", "aé", false),
            (r"\bé", "aé", true),
            (r"\B", "aéa", false),
            (r"\B", "é", true),
            // `.` stops at every line terminator, except in dot-all mode.
            (r"^.$", "\r", false),
            (r"^.$", "\u{2028}", false),
            (r"^.$", "\u{85}", true),
            (r"(?s)^.$", "\r", true),
            (r"^(?s:.)$", "\n", true),
            (r"^(?s:a)(.)$", "a\r", false),
            // Escaped backslashes stay literal.
            (r"^\\d$", r"\d", true),
            (r"^\\d$", "1", false),
            (r"^\\cC$", r"\cC", true),
            // ECMA-262 escapes the regex crate lacks.
            (r"^\cC$", "\u{3}", true),
            (r"^\cc$", "\u{3}", true),
            (r"^[\cA-\cZ]+$", "\u{5}\u{1A}", true),
            (r"^[\b]$", "\u{8}", true),
            // Case-insensitive: ECMA-262's `\w` with the `i` and `u` flags adds U+017F and U+212A.
            (r"(?i)^\w$", "\u{17F}", true),
            (r"(?i)^\w$", "\u{212A}", true),
            (r"(?i)^\W$", "\u{17F}", false),
            (r"(?i)^\w$", "É", false),
            (r"(?i)^\d$", "\u{663}", false),
        ];
        for &(p, s, want) in cases {
            let pattern = Pattern::new(p).unwrap_or_else(|e| panic!("/{p}/: {e}"));
            assert_eq!(pattern.is_match(s), want, "/{p}/ on {s:?}");
            assert_eq!(pattern.general.is_match(s), want, "/{p}/ on {s:?}, general");
            assert_eq!(
                pattern.general.regex.is_match(s),
                want,
                "/{p}/ on {s:?}, regex"
            );
            assert_eq!(pattern.as_str(), p);
        }
        for p in [
            r"(?=a)",
            r"(a)\1",
            r"[\B]",
            r"\c1",
            r"\c",
            "[",
            r"^\p{Nope}$",
        ] {
            assert!(Pattern::new(p).is_err(), "/{p}/ is accepted");
        }
        // Errors are reported on the pattern as written.
        let e = Pattern::new(r"\d(?=a)").unwrap_err().to_string();
        assert!(e.contains(r"\d(?=a)"), "{e}");
    }

    #[test]
    fn small_patterns_get_a_dfa_and_others_fall_back() {
        assert!(Pattern::new("^[^@ ]+@[^@ ]+$").expect("valid").has_dfa());
        assert!(Pattern::new("^[A-Z]{2,10}-[0-9]+$")
            .expect("valid")
            .has_dfa());
        // ECMA-262's word boundary is ASCII, which a DFA handles; its negation can hold inside
        // a character, which only the regex skips; a huge counted repetition is beyond the limit.
        let word = Pattern::new(r"\bcat\b").expect("valid");
        assert!(word.has_dfa());
        assert!(word.is_match("a cat sat") && !word.is_match("concatenate"));
        assert!(word.is_match("écat"));
        let inside = Pattern::new(r"\B").expect("valid");
        assert!(!inside.has_dfa());
        assert!(!inside.is_match("aéa") && inside.is_match("é") && !inside.is_match("a"));
        let big = Pattern::new(r"^\p{L}{50}$").expect("valid");
        assert!(!big.has_dfa());
        assert!(big.is_match(&"é".repeat(50)) && !big.is_match(&"é".repeat(49)));
        // A long pattern is not determinized at all: the fuzzer's 2.6 KB pattern of `.*`,
        // literals and `|` spent seconds reaching the size limit. At the length limit it is.
        let alternatives = |n: usize| vec!["x*.*k"; n].join("|");
        assert!(Pattern::new(&alternatives(DFA_MAX_PATTERN / 6))
            .expect("valid")
            .has_dfa());
        let long = alternatives(DFA_MAX_PATTERN / 6 + 1);
        let long = Pattern::new(&long).expect("valid");
        assert!(!long.has_dfa());
        assert!(long.is_match("xk") && !long.is_match("x"));
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
            let regex = regex::Regex::new(&ecma(p).expect("valid").text).expect("valid");
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

    #[test]
    fn a_spent_budget_compiles_nothing_more() {
        let mut patterns = Patterns::default();
        let mut compiled = 0;
        let error = loop {
            match patterns.compile(&format!("^spent{compiled}.{{500}}$")) {
                Ok(_) => compiled += 1,
                Err(e) => break e,
            }
        };
        assert!(matches!(error, BuildError::OverBudget { .. }), "{error}");
        assert!(error.to_string().contains("more than 32 MiB"), "{error}");
        // About 700 KiB each, and three times that for what their searches may keep.
        assert!((8..=20).contains(&compiled), "{compiled} patterns");
        // A pattern not seen before is refused without being built...
        let fresh = "^never built.{10}$";
        assert!(matches!(
            patterns.compile(fresh),
            Err(BuildError::OverBudget { .. })
        ));
        assert!(cache::get(fresh).is_none());
        // ...and one compiled before is given again.
        assert!(patterns.compile("^spent0.{500}$").is_ok());
    }

    /// The memory a search needs beside the regex (its cache) and the regex's own, for a
    /// pattern of `classes` Unicode classes (enough make it too large for the lazy DFA, so the
    /// slowest engine runs) and `groups` groups.
    fn search_memory(classes: usize, groups: usize) -> (usize, usize) {
        let text = format!("^searched[^@ ]{{{classes}}}{}$", "(a)".repeat(groups));
        let pattern = Pattern::new(&text).expect("valid");
        let regex = &pattern.general.regex;
        let mut cache = regex.create_cache();
        let haystack = "searched".to_string() + &"é".repeat(classes) + &"a".repeat(groups) + "!";
        assert!(regex
            .search_with(&mut cache, &Input::new(&haystack))
            .is_none());
        assert!(!pattern.is_match(&haystack));
        (cache.memory_usage(), regex.memory_usage())
    }

    #[test]
    fn searches_need_memory_in_proportion_to_the_pattern() {
        // Only whether a pattern matches is asked, so its groups capture nothing: tracking them
        // took memory for every group at every state of the search, 390 MB for a 53 KB pattern.
        let (few, regex) = search_memory(3000, 10);
        let (many, _) = search_memory(3000, 80);
        assert!(
            many < few + few / 10,
            "{few} -> {many} bytes for 8 times the groups"
        );
        assert!(
            many < regex + HYBRID_CACHE,
            "{many} bytes for a regex of {regex}"
        );
    }

    /// Long texts drawn from `alphabet`, the same for every run.
    fn hostile_texts(alphabet: &[char]) -> Vec<String> {
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        [10, 100, 1_000, 10_000, 100_000]
            .iter()
            .flat_map(|&len| std::iter::repeat_n(len, 3))
            .map(|len| random_text::random_text(len, alphabet, &mut seed))
            .collect()
    }

    #[test]
    fn searches_keep_no_more_than_their_pattern_is_charged() {
        // Patterns matched by their regex (no DFA): one whose states explode, Unicode classes
        // of several sizes, a `\B`, a long alternation, groups; each over long texts of the
        // characters it reads, searched as `is_match` searches (the first match decides) and
        // for the whole match (which runs backwards too).
        // Longer than the patterns whose DFA is tried.
        let alternation = format!(
            "^(?:{})+$",
            (0..40)
                .map(|i| format!("ab{i}c-{}", i * 7))
                .collect::<Vec<_>>()
                .join("|")
        );
        assert!(alternation.len() > DFA_MAX_PATTERN);
        let shapes: [(&str, &[char]); 6] = [
            ("(a|b)*a(a|b){30}", &['a', 'b']),
            ("^[\\p{L}\\s]{1,50}$", &['a', 'é', 'ж', ' ', '中']),
            (
                "(\\p{L}|\\d)*\\p{Lu}(\\p{L}|\\d){12}!",
                &['a', 'é', 'Ж', '1', '中', 'B', '!'],
            ),
            ("\\Bq(a|b)*a(a|b){12}", &['a', 'b', 'q', ' ']),
            (&alternation, &['a', 'b', 'c', '-', '1', '2']),
            ("^((a)|(b)|(ab)|(ba))*\\B(c){3}$", &['a', 'b', 'c']),
        ];
        for (text, alphabet) in shapes {
            let pattern = Pattern::new(text).expect("valid");
            assert!(!pattern.has_dfa(), "{text} has a DFA");
            let general = &pattern.general;
            let mut cache = general.regex.create_cache();
            for hay in hostile_texts(alphabet) {
                let input = Input::new(&hay);
                let first = general
                    .regex
                    .search_half_with(&mut cache, &input.clone().earliest(true));
                let whole = general.regex.search_with(&mut cache, &input);
                assert_eq!(first.is_some(), whole.is_some(), "{text}");
                assert_eq!(pattern.is_match(&hay), whole.is_some(), "{text}");
            }
            let kept = cache.memory_usage();
            assert!(
                kept <= general.search(),
                "{text}: searches kept {kept} bytes, charged {}",
                general.search()
            );
            assert!(
                pattern.memory_usage() >= general.regex.memory_usage() + general.search(),
                "{text}"
            );
        }
    }

    #[test]
    fn dfa_tries_are_bounded_and_optional() {
        // A try costs at least the floor, at most a multiple of the regex.
        let mut patterns = Patterns::default();
        let exploding = "^tries(a|b)*a(a|b){30}$";
        let pattern = patterns.compile(exploding).expect("valid");
        assert!(!pattern.has_dfa());
        let spent = DFA_WORK - patterns.dfa_work;
        let regex = pattern.general.regex.memory_usage();
        assert!(spent >= DFA_TRY_FLOOR, "{spent}");
        // Its regex holds a few KiB, so the try is allowed a few tens (it used to be 2 MiB).
        assert!(spent <= 64 << 10, "{spent} for a regex of {regex}");
        // With the work spent, a pattern that would get a DFA matches with its regex alone.
        let mut spent = Patterns {
            dfa_work: DFA_TRY_FLOOR - 1,
            ..Patterns::default()
        };
        let email = spent.compile("^tries[^@ ]+@[^@ ]+$").expect("valid");
        assert!(!email.has_dfa());
        assert!(email.is_match("triesa@b") && !email.is_match("triesa b"));
        assert!(Pattern::new("^tries-fresh[^@ ]+@[^@ ]+$")
            .expect("valid")
            .has_dfa());
    }
}

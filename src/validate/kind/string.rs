//! Strings: lengths in code points, `@pattern` (unanchored, ECMA-262 classes) and `@format`
//! when formats are asserted; the fast check, which rules a string breaks, and the run over a
//! value (its problems, and lax mode's coercion from a number).

use std::borrow::Cow;

use serde_json::Value;

use crate::model::Format;
use crate::pattern::Pattern;
use crate::validate::coerce::{self, CoercionRule};
use crate::validate::compile::NodeId;
use crate::validate::error::{Clip, ErrorCode, Problem};
use crate::validate::format;
use crate::validate::sink::Sink;
use crate::validate::walk::Run;

#[derive(Clone, Debug)]
pub(crate) struct StringCheck {
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    /// `@format`, when the validator asserts formats.
    pub format: Option<Format>,
}

impl StringCheck {
    /// Whether `s` keeps the lengths (in code points), the pattern (unanchored) and the
    /// format.
    #[inline(always)]
    pub(crate) fn accepts(&self, s: &str) -> bool {
        // A string has between a quarter of its bytes and all of them as characters: count
        // them only when that range straddles a bound.
        let bytes = s.len() as u64;
        let fewest = bytes.div_ceil(4);
        let min_unsure = self.min_length.is_some_and(|m| fewest < m);
        let max_unsure = self.max_length.is_some_and(|m| bytes > m);
        if min_unsure || max_unsure {
            let len = s.chars().count() as u64;
            if self.too_short(len) || self.too_long(len) {
                return false;
            }
        }
        self.matches(s) && self.formatted(s)
    }

    #[inline(always)]
    fn too_short(&self, len: u64) -> bool {
        self.min_length.is_some_and(|m| len < m)
    }

    #[inline(always)]
    fn too_long(&self, len: u64) -> bool {
        self.max_length.is_some_and(|m| len > m)
    }

    #[inline(always)]
    fn matches(&self, s: &str) -> bool {
        self.pattern.as_ref().is_none_or(|re| re.is_match(s))
    }

    #[inline(always)]
    fn formatted(&self, s: &str) -> bool {
        self.format.is_none_or(|f| format::is_valid(f, s))
    }

    /// Calls `broken` with each rule `s` breaks, in order (none when [`StringCheck::accepts`]
    /// accepts it).
    #[inline(always)]
    pub(crate) fn each_broken(&self, s: &str, mut broken: impl FnMut(StringRule)) {
        if self.min_length.is_some() || self.max_length.is_some() {
            let len = s.chars().count() as u64;
            if self.too_short(len) {
                broken(StringRule::TooShort { len });
            }
            if self.too_long(len) {
                broken(StringRule::TooLong { len });
            }
        }
        if !self.matches(s) {
            broken(StringRule::Pattern);
        }
        if !self.formatted(s) {
            broken(StringRule::Format);
        }
    }
}

/// A rule a string breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StringRule {
    /// Fewer characters than `@min_length`; `len` is how many it has.
    TooShort {
        len: u64,
    },
    /// More characters than `@max_length`.
    TooLong {
        len: u64,
    },
    Pattern,
    Format,
}

impl StringRule {
    /// The error code and the problem of string `s`, which breaks the rule.
    pub(crate) fn problem(self, s: &str) -> (ErrorCode, Problem) {
        match self {
            StringRule::TooShort { len } => (ErrorCode::TooShort, Problem::TooShort { len }),
            StringRule::TooLong { len } => (ErrorCode::TooLong, Problem::TooLong { len }),
            StringRule::Pattern => (
                ErrorCode::PatternMismatch,
                Problem::Pattern { s: Clip::new(s) },
            ),
            StringRule::Format => (
                ErrorCode::FormatMismatch,
                Problem::Format { s: Clip::new(s) },
            ),
        }
    }
}

impl<S: Sink> Run<'_, S> {
    /// A `string` node's run over `value`: the string, or its problems; in lax mode a number
    /// is coerced to its text.
    pub(in crate::validate) fn string(
        &mut self,
        id: NodeId,
        check: &StringCheck,
        value: &Value,
    ) -> Option<Value> {
        let (s, from_number) = match value {
            Value::String(s) => (Cow::Borrowed(s.as_str()), false),
            Value::Number(n) if S::LAX => (Cow::Owned(coerce::string_from_number(n)), true),
            _ => {
                self.wrong_type(id, "string", value);
                return None;
            }
        };
        if !self.string_rules(id, check, &s, value) {
            return None;
        }
        if from_number {
            let out = Value::String(s.into_owned());
            Some(self.coerced(CoercionRule::StringFromNumber, value, out))
        } else {
            self.out(|| Value::String(s.into_owned()))
        }
    }

    /// Whether `s` keeps every rule of `c`; each rule it breaks is a problem.
    fn string_rules(&mut self, id: NodeId, c: &StringCheck, s: &str, value: &Value) -> bool {
        if c.accepts(s) {
            return true;
        }
        let before = self.errors.len();
        c.each_broken(s, |rule| {
            let (code, problem) = rule.problem(s);
            self.fail(id, code, value, problem);
        });
        self.errors.len() == before
    }
}

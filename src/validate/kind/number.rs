//! Numbers and integers: the compiled bounds, the fast check, which rules a number breaks, and
//! the run over a value of either kind (its problems, and lax mode's coercion from a string).
//!
//! A new numeric constraint is a field of [`NumberBounds`] (read in [`NumberCheck::new`]) and a
//! [`NumberRule`] (its error code, its bound in [`NumberCheck::bound`], its comparison in
//! [`NumberCheck::each_broken`]); its words, for the model and for an author, are in
//! `message.rs`.

use serde_json::{Number, Value};

use crate::model::{NumberRules, Spanned};
use crate::validate::coerce::{self, CoercionRule};
use crate::validate::compile::NodeId;
use crate::validate::error::{ErrorCode, Problem};
use crate::validate::number;
use crate::validate::sink::Sink;
use crate::validate::walk::Run;

/// Which number rule a number broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumberRule {
    Minimum,
    ExclusiveMinimum,
    Maximum,
    ExclusiveMaximum,
    MultipleOf,
}

impl NumberRule {
    /// The error code of a number that breaks the rule.
    pub(crate) fn code(self) -> ErrorCode {
        match self {
            NumberRule::Minimum | NumberRule::ExclusiveMinimum => ErrorCode::BelowMinimum,
            NumberRule::Maximum | NumberRule::ExclusiveMaximum => ErrorCode::AboveMaximum,
            NumberRule::MultipleOf => ErrorCode::NotMultiple,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct NumberCheck {
    /// The bounds as doubles, when every bound is exactly a double (the usual case): a number
    /// that is exactly a double is then checked with four float comparisons.
    pub fast: Option<FastBounds>,
    /// The bounds and the multiple as written.
    pub exact: Box<NumberBounds>,
}

/// Bounds as exact doubles; an absent bound is an infinity that every finite number passes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FastBounds {
    pub minimum: f64,
    pub maximum: f64,
    pub exclusive_minimum: f64,
    pub exclusive_maximum: f64,
    /// Whether there is a `@multiple_of` (in [`NumberCheck::exact`]) to check too.
    pub multiple: bool,
}

impl FastBounds {
    /// Whether the double `f` is within the bounds (exact doubles compare exactly).
    #[inline(always)]
    fn contains(&self, f: f64) -> bool {
        f >= self.minimum
            && f <= self.maximum
            && f > self.exclusive_minimum
            && f < self.exclusive_maximum
    }
}

#[derive(Clone, Debug)]
pub(crate) struct NumberBounds {
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub multiple_of: Option<Number>,
}

impl NumberCheck {
    /// The check of a number or integer type with `rules`.
    pub(crate) fn new(r: &NumberRules) -> NumberCheck {
        let v = |b: &Option<Spanned<Number>>| b.as_ref().map(|b| b.value.clone());
        let exact = NumberBounds {
            minimum: v(&r.minimum),
            maximum: v(&r.maximum),
            exclusive_minimum: v(&r.exclusive_minimum),
            exclusive_maximum: v(&r.exclusive_maximum),
            multiple_of: v(&r.multiple_of),
        };
        let f = |b: &Option<Number>, absent: f64| match b {
            None => Some(absent),
            Some(n) => number::exact_f64(n),
        };
        let fast = (|| {
            Some(FastBounds {
                minimum: f(&exact.minimum, f64::NEG_INFINITY)?,
                maximum: f(&exact.maximum, f64::INFINITY)?,
                exclusive_minimum: f(&exact.exclusive_minimum, f64::NEG_INFINITY)?,
                exclusive_maximum: f(&exact.exclusive_maximum, f64::INFINITY)?,
                multiple: exact.multiple_of.is_some(),
            })
        })();
        NumberCheck {
            fast,
            exact: Box::new(exact),
        }
    }

    /// The bound (or the multiple) of `rule`, when the type has one.
    #[inline(always)]
    pub(crate) fn bound(&self, rule: NumberRule) -> Option<&Number> {
        let b = &self.exact;
        match rule {
            NumberRule::Minimum => b.minimum.as_ref(),
            NumberRule::ExclusiveMinimum => b.exclusive_minimum.as_ref(),
            NumberRule::Maximum => b.maximum.as_ref(),
            NumberRule::ExclusiveMaximum => b.exclusive_maximum.as_ref(),
            NumberRule::MultipleOf => b.multiple_of.as_ref(),
        }
    }

    /// Calls `broken` with each rule `n` breaks, in order (compared exactly): the one
    /// statement of each rule.
    #[inline(always)]
    pub(crate) fn each_broken(&self, n: &Number, mut broken: impl FnMut(NumberRule)) {
        use std::cmp::Ordering::*;
        let b = &self.exact;
        let cmp = |bound: &Option<Number>, fails: fn(std::cmp::Ordering) -> bool| {
            bound.as_ref().is_some_and(|m| fails(number::cmp(n, m)))
        };
        if cmp(&b.minimum, |o| o == Less) {
            broken(NumberRule::Minimum);
        }
        if cmp(&b.exclusive_minimum, |o| o != Greater) {
            broken(NumberRule::ExclusiveMinimum);
        }
        if cmp(&b.maximum, |o| o == Greater) {
            broken(NumberRule::Maximum);
        }
        if cmp(&b.exclusive_maximum, |o| o != Less) {
            broken(NumberRule::ExclusiveMaximum);
        }
        if self.breaks_multiple(n) {
            broken(NumberRule::MultipleOf);
        }
    }

    #[inline(always)]
    fn breaks_multiple(&self, n: &Number) -> bool {
        (self.exact.multiple_of.as_ref()).is_some_and(|m| !number::is_multiple_of(n, m))
    }

    /// Whether `n` keeps the bounds and the multiple. A number that is exactly a double is
    /// compared with the bounds as doubles when they are exact too (the usual case, four float
    /// comparisons); others rule by rule.
    #[inline(always)]
    pub(crate) fn accepts(&self, n: &Number) -> bool {
        if let (Some(b), Some(f)) = (&self.fast, number::exact_f64(n)) {
            return b.contains(f) && (!b.multiple || !self.breaks_multiple(n));
        }
        let mut ok = true;
        self.each_broken(n, |_| ok = false);
        ok
    }

    /// Whether the number that is exactly the double `f` keeps the bounds, when they decide
    /// alone (they are exact doubles and there is no multiple); `false` when they do not.
    #[inline(always)]
    pub(crate) fn accepts_plain(&self, f: f64) -> bool {
        self.fast
            .as_ref()
            .is_some_and(|b| !b.multiple && b.contains(f))
    }
}

impl<S: Sink> Run<'_, S> {
    /// An `integer` node's run over `value`: the integer (normalized: `2.0` is `2`), or its
    /// problems; in lax mode a string that reads as one is coerced.
    pub(in crate::validate) fn integer(
        &mut self,
        id: NodeId,
        check: &NumberCheck,
        value: &Value,
    ) -> Option<Value> {
        self.numeric(id, check, value, true)
    }

    /// A `number` node's run over `value`: the number, or its problems; in lax mode a string
    /// that reads as one is coerced.
    pub(in crate::validate) fn number(
        &mut self,
        id: NodeId,
        check: &NumberCheck,
        value: &Value,
    ) -> Option<Value> {
        self.numeric(id, check, value, false)
    }

    /// [`Run::integer`] (`integer`) or [`Run::number`]: the two differ only in which numbers
    /// are of the kind, which string reading coerces, and the integer's normal form.
    #[inline(always)]
    fn numeric(
        &mut self,
        id: NodeId,
        check: &NumberCheck,
        value: &Value,
        integer: bool,
    ) -> Option<Value> {
        let (want, rule) = if integer {
            ("integer", CoercionRule::IntegerFromString)
        } else {
            ("number", CoercionRule::NumberFromString)
        };
        let (n, from_string) = match value {
            Value::Number(n) if !integer || number::is_integer(n) => (n.clone(), false),
            Value::String(s) if S::LAX => {
                let read = if integer {
                    coerce::integer_from_str(s)
                } else {
                    coerce::number_from_str(s)
                };
                match read {
                    Ok(n) => (n, true),
                    Err(why) => {
                        self.not_coercible(id, want, value, why);
                        return None;
                    }
                }
            }
            _ => {
                self.wrong_type(id, want, value);
                return None;
            }
        };
        let n = if integer {
            number::normalize_integer(&n).unwrap_or(n)
        } else {
            n
        };
        if !self.number_rules(id, check, &n, value) {
            return None;
        }
        let out = Value::Number(n);
        Some(if from_string {
            self.coerced(rule, value, out)
        } else {
            out
        })
    }

    /// Whether `n` keeps every rule of `c`; each rule it breaks is a problem.
    fn number_rules(&mut self, id: NodeId, c: &NumberCheck, n: &Number, value: &Value) -> bool {
        if c.accepts(n) {
            return true;
        }
        let before = self.errors.len();
        c.each_broken(n, |rule| {
            let problem = Problem::Number { rule, n: n.clone() };
            self.fail(id, rule.code(), value, problem);
        });
        self.errors.len() == before
    }
}

//! The relation behind `diff`'s verdicts: does a new type accept every value an old one accepts?
//!
//! Decided structurally over the model's types, each side in its own module: named types are
//! followed, and a pair of types met again below itself is assumed to hold (the greatest
//! solution, sound because values are finite), so recursive types terminate. A pair of named
//! types decided without leaning on a pair still under way is remembered, so a type used at many
//! places is compared once per question, not once per path to it. Literals and enums
//! are sets of values, each checked against the new type by the validator's own rules
//! ([`crate::validate::first_violation`]). Where the relation cannot tell exactly (a changed
//! pattern, an old type that only a union's members together cover, a changed `@multiple_of`),
//! it answers no, and says that it could not decide.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use serde_json::{Number, Value};

use crate::model::{
    Additional, ArrayTy, Field, Formats, KeyRules, Module, NumberBound, NumberRules, ObjectTy,
    Spanned, StringRules, TupleTy, Ty,
};
use crate::validate::{cmp_numbers, first_violations, is_multiple_of};

/// The type every value has, for open objects and open tuples.
static ANY: Ty = Ty::Any;
static TRUE: Value = Value::Bool(true);
static FALSE: Value = Value::Bool(false);
static NULL: Value = Value::Null;

/// How many comparisons one question may take before the answer is "cannot decide".
const MAX_STEPS: usize = 100_000;

/// How deep comparisons may nest (types inside types, named or not) before the answer is "cannot
/// decide": each level takes a few stack frames, and a chain of thousands of named types, which
/// the checker allows when they are recursive (each is emitted once), would overflow the stack.
/// On a 2 MiB thread (a library caller's spawned thread), a debug build fits 1,000 levels and not
/// 2,000; real types nest a few dozen.
const MAX_NESTED_COMPARISONS: usize = 500;

/// Why the new type does not accept every old value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Why {
    /// What narrowed, in words.
    pub(crate) message: String,
    /// `false` when the relation could not decide and answered no to be safe.
    pub(crate) exact: bool,
}

impl Why {
    fn exactly(message: impl Into<String>) -> Why {
        Why {
            message: message.into(),
            exact: true,
        }
    }

    fn undecided(message: impl Into<String>) -> Why {
        Why {
            message: message.into(),
            exact: false,
        }
    }

    /// The message, with the note that the verdict errs on the safe side when it does.
    pub(crate) fn text(&self) -> String {
        if self.exact {
            self.message.clone()
        } else {
            format!(
                "{} (not decided exactly; reported as breaking)",
                self.message
            )
        }
    }

    /// The same reason, found inside the value at `at` (a path relative to the type compared).
    fn within(mut self, at: &str) -> Why {
        if !at.is_empty() {
            self.message = format!("at {at}: {}", self.message);
        }
        self
    }
}

/// One side of a comparison: the module its types live in, and whether `@format` is asserted.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Side<'a> {
    pub(crate) module: &'a Module,
    pub(crate) formats: Formats,
}

/// A comparison of types of `old` with types of `new`.
pub(crate) struct Relation<'a> {
    old: Side<'a>,
    new: Side<'a>,
    /// Pairs of named types' bodies (by address) assumed to hold while their comparison is under
    /// way, each with its depth among them.
    assumed: HashMap<Pair, usize>,
    /// The shallowest depth of an assumed pair that the comparison under way leaned on.
    leaned_on: usize,
    /// Pairs decided for good: refused, or shown to hold leaning on no pair still under way.
    decided: HashMap<Pair, Result<(), Why>>,
    /// Pairs shown to hold while leaning on pairs still under way, true for as long as those
    /// pairs stand: each with its place in `shown`, in the order they were shown.
    provisional: HashMap<Pair, usize>,
    shown: Vec<Pair>,
    /// The shallowest depth the pairs of `shown` leaned on, by runs: each run from its start to
    /// the next one's (the pairs shown inside one comparison lean on what it leaned on).
    runs: Vec<(usize, usize)>,
    steps: usize,
    /// How many comparisons are under way, one inside the other.
    depth: usize,
}

/// Two types by address: an old one and a new one.
type Pair = (usize, usize);

fn address(ty: &Ty) -> usize {
    std::ptr::from_ref(ty) as usize
}

/// `/properties/name`, escaped as a JSON pointer.
pub(crate) fn property(name: &str) -> String {
    format!(
        "/properties/{}",
        crate::validate::error::escape_pointer(name)
    )
}

impl<'a> Relation<'a> {
    pub(crate) fn new(old: Side<'a>, new: Side<'a>) -> Relation<'a> {
        Relation {
            old,
            new,
            assumed: HashMap::new(),
            leaned_on: usize::MAX,
            decided: HashMap::new(),
            provisional: HashMap::new(),
            shown: Vec::new(),
            runs: Vec::new(),
            steps: 0,
            depth: 0,
        }
    }

    /// `Ok` when every value `old` accepts, `new` accepts too.
    pub(crate) fn covers(&mut self, old: &'a Ty, new: &'a Ty) -> Result<(), Why> {
        self.steps += 1;
        if self.steps > MAX_STEPS || self.depth >= MAX_NESTED_COMPARISONS {
            return Err(Why::undecided("the types are too large to compare"));
        }
        self.depth += 1;
        let verdict = self.covers_one(old, new);
        self.depth -= 1;
        verdict
    }

    fn covers_one(&mut self, old: &'a Ty, new: &'a Ty) -> Result<(), Why> {
        if matches!(old, Ty::Ref(_)) || matches!(new, Ty::Ref(_)) {
            return self.covers_named(old, new);
        }
        match old {
            Ty::Never => Ok(()),
            Ty::Null => self.value_covered(&NULL, new),
            Ty::Boolean => self.values_covered(&[&TRUE, &FALSE], new),
            Ty::Const(v) => self.value_covered(v, new),
            Ty::Enum(members) => {
                let values: Vec<&Value> = members.iter().map(|m| &m.value).collect();
                self.values_covered(&values, new)
            }
            Ty::Nullable(inner) => {
                self.value_covered(&NULL, new)?;
                self.covers(inner, new)
            }
            Ty::AnyOf(members) => members.iter().try_for_each(|m| self.covers(m, new)),
            _ => self.covers_by_new(old, new),
        }
    }

    /// Either side is a named type: compare what they stand for, assuming the pair holds
    /// while it is being compared.
    ///
    /// Verdicts are kept, so that a type met along many paths is compared once:
    /// - a refusal for good, since assumptions only ever answer yes;
    /// - a yes that leaned on no pair above this one for good (it rests at most on assumptions
    ///   made inside its own comparison, which the greatest solution grants), with every yes
    ///   shown inside it;
    /// - any other yes for as long as the pairs it leaned on stand: when one of them is refused,
    ///   every yes shown since that pair was assumed is forgotten.
    fn covers_named(&mut self, old: &'a Ty, new: &'a Ty) -> Result<(), Why> {
        let (old, new) = (self.old.module.resolve(old), self.new.module.resolve(new));
        let key = (address(old), address(new));
        if let Some(verdict) = self.decided.get(&key) {
            return verdict.clone();
        }
        let leaned = match self.provisional.get(&key) {
            Some(&at) => Some(self.run_of(at)),
            None => self.assumed.get(&key).copied(),
        };
        if let Some(depth) = leaned {
            self.leaned_on = self.leaned_on.min(depth);
            return Ok(());
        }
        let depth = self.assumed.len();
        self.assumed.insert(key, depth);
        let above = std::mem::replace(&mut self.leaned_on, usize::MAX);
        let mark = self.shown.len();
        let verdict = self.covers(old, new);
        self.assumed.remove(&key);
        while self.runs.last().is_some_and(|&(start, _)| start >= mark) {
            self.runs.pop();
        }
        if verdict.is_err() || self.leaned_on >= depth {
            for pair in self.shown.drain(mark..) {
                self.provisional.remove(&pair);
                if verdict.is_ok() {
                    self.decided.insert(pair, Ok(()));
                }
            }
            self.decided.insert(key, verdict.clone());
            self.leaned_on = above;
        } else {
            // Still leaning on a pair above: this yes and those shown inside it stand with it.
            self.provisional.insert(key, self.shown.len());
            self.shown.push(key);
            self.runs.push((mark, self.leaned_on));
            self.leaned_on = above.min(self.leaned_on);
        }
        verdict
    }

    /// The shallowest depth the pair at `at` in `shown` leaned on.
    fn run_of(&self, at: usize) -> usize {
        // Every pair shown is in a run; were one not, depth 0 would be the cautious answer.
        let run = self.runs.partition_point(|&(start, _)| start <= at);
        run.checked_sub(1).map_or(0, |r| self.runs[r].1)
    }

    /// `old` is one kind of type (not a literal, enum, union or nullable): what the new type is
    /// decides.
    fn covers_by_new(&mut self, old: &'a Ty, new: &'a Ty) -> Result<(), Why> {
        match new {
            Ty::Any => Ok(()),
            Ty::Nullable(inner) => self.covers(old, inner),
            Ty::AnyOf(members) => self.covers_by_member(old, members),
            _ => self.covers_same_kind(old, new),
        }
    }

    /// Some member of the new union must accept every old value on its own.
    fn covers_by_member(&mut self, old: &'a Ty, members: &'a [Ty]) -> Result<(), Why> {
        let mut alike = 0;
        for m in members {
            if self.covers(old, m).is_ok() {
                return Ok(());
            }
            let kind = self.new.module.resolve(m).kind_name();
            if kind == old.kind_name() || matches!(self.new.module.resolve(m), Ty::AnyOf(_)) {
                alike += 1;
            }
        }
        let message = format!(
            "no member of the union accepts every {} value it accepted",
            old.kind_name()
        );
        // Several members of the same kind may share the old values between them.
        if alike > 1 {
            Err(Why::undecided(message))
        } else {
            Err(Why::exactly(message))
        }
    }

    fn covers_same_kind(&mut self, old: &'a Ty, new: &'a Ty) -> Result<(), Why> {
        match (old, new) {
            (Ty::Integer(a), Ty::Integer(b)) | (Ty::Integer(a), Ty::Number(b)) => {
                numbers(a, b, true)
            }
            (Ty::Number(a), Ty::Number(b)) => numbers(a, b, false),
            (Ty::Number(_), Ty::Integer(_)) => Err(Why::exactly(
                "number narrowed to integer: a fractional number is rejected",
            )),
            (Ty::String(a), Ty::String(b)) => self.strings(a, b),
            (Ty::Array(_) | Ty::Tuple(_), Ty::Array(_) | Ty::Tuple(_)) => {
                self.sequences(&Seq::of(old), &Seq::of(new))
            }
            (Ty::Object(a), Ty::Object(b)) => self.objects(a, b),
            (Ty::Integer(r), Ty::Const(_) | Ty::Enum(_))
                if r.minimum.is_some() && r.maximum.is_some() =>
            {
                Err(Why::undecided(
                    "a range of integers narrowed to a set of values",
                ))
            }
            (_, Ty::Const(_) | Ty::Enum(_)) => Err(Why::exactly(format!(
                "{} narrowed to a set of values",
                old.kind_name()
            ))),
            (_, Ty::Never) => Err(Why::exactly("no value is accepted any more")),
            _ => Err(Why::exactly(format!(
                "type changed from {} to {}",
                old.kind_name(),
                new.kind_name()
            ))),
        }
    }

    /// Whether the new type accepts one value, by the validator's rules.
    fn value_covered(&mut self, value: &Value, new: &Ty) -> Result<(), Why> {
        self.values_covered(&[value], new)
    }

    /// Whether the new type accepts each of `values`, by the validator's rules (`new` compiled
    /// once for all of them); the first it rejects says why not.
    fn values_covered(&mut self, values: &[&Value], new: &Ty) -> Result<(), Why> {
        let problems = first_violations(self.new.module, values.iter().map(|v| (new, *v)));
        for (value, problem) in values.iter().zip(problems) {
            match problem {
                None => {}
                // The check asserts formats; a side that only annotates them may still accept it.
                Some(_)
                    if self.new.formats == Formats::Annotate
                        && has_format(self.new.module, new) =>
                {
                    return Err(Why::undecided(format!("the value {value} may be rejected")))
                }
                Some(problem) => {
                    return Err(Why::exactly(format!(
                        "the value {value} is rejected: {problem}"
                    )))
                }
            }
        }
        Ok(())
    }

    fn strings(&self, old: &StringRules, new: &StringRules) -> Result<(), Why> {
        let old_min = old.min_length.as_ref().map_or(0, |m| m.value);
        if let Some(min) = &new.min_length {
            if min.value > old_min {
                return Err(Why::exactly(format!(
                    "min_length raised from {old_min} to {}",
                    min.value
                )));
            }
        }
        if let Some(max) = &new.max_length {
            match &old.max_length {
                None => return Err(Why::exactly(format!("max_length {} added", max.value))),
                Some(o) if max.value < o.value => {
                    return Err(Why::exactly(format!(
                        "max_length lowered from {} to {}",
                        o.value, max.value
                    )))
                }
                Some(_) => {}
            }
        }
        if let Some(pattern) = &new.pattern {
            match &old.pattern {
                None => return Err(Why::exactly(format!("pattern `{}` added", pattern.value))),
                Some(o) if o.value != pattern.value => {
                    return Err(Why::undecided(format!(
                        "pattern changed from `{}` to `{}`",
                        o.value, pattern.value
                    )))
                }
                Some(_) => {}
            }
        }
        let asserted = |side: Side<'_>, rules: &StringRules| {
            rules
                .format
                .as_ref()
                .filter(|_| side.formats == Formats::Assert)
                .map(|f| f.value)
        };
        if let Some(format) = asserted(self.new, new) {
            if asserted(self.old, old) != Some(format) {
                return Err(Why::exactly(format!(
                    "format `{}` now asserted",
                    format.as_str()
                )));
            }
        }
        Ok(())
    }

    fn sequences(&mut self, old: &Seq<'a>, new: &Seq<'a>) -> Result<(), Why> {
        if new.min > old.min {
            return Err(Why::exactly(format!(
                "min_items raised from {} to {}",
                old.min, new.min
            )));
        }
        if let Some(max) = new.max {
            match old.max {
                Some(o) if max >= o => {}
                Some(o) => {
                    return Err(Why::exactly(format!("max_items lowered from {o} to {max}")))
                }
                None => return Err(Why::exactly(format!("max_items {max} added"))),
            }
        }
        if new.unique && !old.unique && old.max.is_none_or(|m| m > 1) {
            return Err(Why::exactly("unique items now required"));
        }
        // Past both lists of positional items, each side repeats its rest: one position more
        // stands for all of them.
        let positions = old.items.len().max(new.items.len()) + 1;
        for i in 0..positions {
            if old.max.is_some_and(|m| i as u64 >= m) {
                break;
            }
            let Some(old_item) = old.item(i) else { break };
            let at = if i < new.items.len() {
                format!("/prefixItems/{i}")
            } else {
                "/items".to_string()
            };
            match new.item(i) {
                Some(new_item) => self.covers(old_item, new_item).map_err(|w| w.within(&at))?,
                None if matches!(old_item, Ty::Never) => {}
                None => {
                    return Err(Why::exactly(format!(
                        "an item at position {i} is no longer accepted"
                    )))
                }
            }
        }
        Ok(())
    }

    /// Every old object is a new one: the new object's required keys are required before, each
    /// old key's values are accepted under the same key, and what the old object took under
    /// other keys the new one takes too.
    pub(crate) fn objects(&mut self, old: &'a ObjectTy, new: &'a ObjectTy) -> Result<(), Why> {
        let (old_fields, new_fields) = (old.index(), new.index());
        for f in new.fields.iter().filter(|f| f.required) {
            required_field(old_fields.get(&f.name), f)?;
        }
        for f in &old.fields {
            match new_fields.get(&f.name) {
                Some(n) => self
                    .covers(&f.ty, &n.ty)
                    .map_err(|w| w.within(&property(&f.name)))?,
                None => self.removed_field(f, &new.additional)?,
            }
        }
        for f in new
            .fields
            .iter()
            .filter(|f| old_fields.get(&f.name).is_none())
        {
            self.added_field(f, &old.additional)?;
        }
        key_rules(&old.rules, &new.rules)?;
        self.other_keys(&old.additional, &new.additional)
    }

    /// A field the new object no longer declares: its values must fit what other keys take.
    pub(crate) fn removed_field(
        &mut self,
        old: &'a Field,
        other: &'a Additional,
    ) -> Result<(), Why> {
        match other {
            Additional::Open => Ok(()),
            Additional::Schema(t) => self
                .covers(&old.ty, t)
                .map_err(|w| w.within(&property(&old.name))),
            // A key of type `never` is never sent.
            Additional::Closed if matches!(old.ty, Ty::Never) => Ok(()),
            Additional::Closed => Err(Why::exactly(format!(
                "field `{}` removed from a closed object: a call that sends it is rejected",
                old.name
            ))),
        }
    }

    /// A field only the new object declares: what the old object took under other keys must
    /// fit its type (whether it is required is [`required_field`]'s question).
    pub(crate) fn added_field(
        &mut self,
        new: &'a Field,
        old_other: &'a Additional,
    ) -> Result<(), Why> {
        let before: &'a Ty = match old_other {
            Additional::Closed => return Ok(()),
            Additional::Open => &ANY,
            Additional::Schema(t) => t,
        };
        self.covers(before, &new.ty)
            .map_err(|w| w.within(&property(&new.name)))
    }

    /// What keys other than the fields take: the new object must take what the old one did.
    pub(crate) fn other_keys(
        &mut self,
        old: &'a Additional,
        new: &'a Additional,
    ) -> Result<(), Why> {
        let before: &'a Ty = match old {
            Additional::Closed => return Ok(()),
            Additional::Open => &ANY,
            Additional::Schema(t) => t,
        };
        match new {
            Additional::Open => Ok(()),
            Additional::Schema(t) => self
                .covers(before, t)
                .map_err(|w| w.within("/additionalProperties")),
            Additional::Closed => Err(Why::exactly("other keys are no longer accepted")),
        }
    }
}

/// A field the new object requires must be required in the old one (`old`: the old object's
/// field of that name, if it has one).
pub(crate) fn required_field(old: Option<&Field>, new: &Field) -> Result<(), Why> {
    match old {
        _ if !new.required => Ok(()),
        Some(o) if o.required => Ok(()),
        Some(_) => Err(Why::exactly(format!("`{}` is now required", new.name))),
        None => Err(Why::exactly(format!("required field `{}` added", new.name))),
    }
}

/// Whether a type (or a type inside it, through named types) says `@format`.
fn has_format(module: &Module, ty: &Ty) -> bool {
    let mut todo = vec![ty];
    let mut seen = HashSet::new();
    while let Some(ty) = todo.pop() {
        match ty {
            Ty::String(r) if r.format.is_some() => return true,
            Ty::Ref(id) if seen.insert(*id) => todo.extend(module.types.get(id.0).map(|n| &n.ty)),
            Ty::Nullable(inner) => todo.push(inner),
            Ty::AnyOf(members) => todo.extend(members),
            Ty::Array(a) => todo.push(&a.items),
            Ty::Tuple(t) => {
                todo.extend(&t.items);
                if let Additional::Schema(r) = &t.rest {
                    todo.push(r);
                }
            }
            Ty::Object(o) => {
                todo.extend(o.fields.iter().map(|f| &f.ty));
                if let Additional::Schema(r) = &o.additional {
                    todo.push(r);
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether `new` lets through every number `old` does, on the side where `outward` is the
/// direction of a looser bound.
fn bound_covers(old: NumberBound<'_>, new: NumberBound<'_>, outward: Ordering) -> bool {
    match cmp_numbers(&new.value.value, &old.value.value) {
        Ordering::Equal => !new.exclusive || old.exclusive,
        o => o == outward,
    }
}

fn value(n: &Option<crate::model::Spanned<Number>>) -> Option<&Number> {
    n.as_ref().map(|s| &s.value)
}

fn numbers(old: &NumberRules, new: &NumberRules, old_integer: bool) -> Result<(), Why> {
    match (old.lower(), new.lower()) {
        (_, None) => {}
        (None, Some(n)) => return Err(Why::exactly(format!("minimum {n} added"))),
        (Some(o), Some(n)) if !bound_covers(o, n, Ordering::Less) => {
            return Err(Why::exactly(format!("minimum raised from {o} to {n}")))
        }
        _ => {}
    }
    match (old.upper(), new.upper()) {
        (_, None) => {}
        (None, Some(n)) => return Err(Why::exactly(format!("maximum {n} added"))),
        (Some(o), Some(n)) if !bound_covers(o, n, Ordering::Greater) => {
            return Err(Why::exactly(format!("maximum lowered from {o} to {n}")))
        }
        _ => {}
    }
    if let Some(m) = value(&new.multiple_of) {
        let one = Number::from(1);
        let divides = match value(&old.multiple_of) {
            Some(o) => is_multiple_of(o, m),
            None => old_integer && is_multiple_of(&one, m),
        };
        if !divides {
            return Err(Why::undecided(format!("multiple_of {m} added or changed")));
        }
    }
    Ok(())
}

/// An array or a tuple, read alike: positional items, then what the rest may hold.
struct Seq<'a> {
    items: &'a [Ty],
    rest: Option<&'a Ty>,
    min: u64,
    max: Option<u64>,
    unique: bool,
}

impl<'a> Seq<'a> {
    fn of(ty: &'a Ty) -> Seq<'a> {
        match ty {
            Ty::Array(a) => Seq::array(a),
            Ty::Tuple(t) => Seq::tuple(t),
            _ => Seq {
                items: &[],
                rest: None,
                min: 0,
                max: Some(0),
                unique: false,
            },
        }
    }

    fn array(a: &'a ArrayTy) -> Seq<'a> {
        Seq {
            items: &[],
            rest: Some(&a.items),
            min: a.min_items.as_ref().map_or(0, |m| m.value),
            max: a.max_items.as_ref().map(|m| m.value),
            unique: a.unique.as_ref().is_some_and(|u| u.value),
        }
    }

    fn tuple(t: &'a TupleTy) -> Seq<'a> {
        Seq {
            items: &t.items,
            rest: match &t.rest {
                Additional::Closed => None,
                Additional::Open => Some(&ANY),
                Additional::Schema(r) => Some(r),
            },
            min: t.min_len(),
            max: t.max_len(),
            unique: t.unique.as_ref().is_some_and(|u| u.value),
        }
    }

    fn item(&self, index: usize) -> Option<&'a Ty> {
        self.items.get(index).or(self.rest)
    }
}

/// The new rules across keys hold for every old object: each new group is an old one, and the
/// key counts are no tighter. A new rule the old ones imply otherwise is not looked for.
pub(crate) fn key_rules(old: &KeyRules, new: &KeyRules) -> Result<(), Why> {
    let count = |r: &Option<Spanned<u64>>| r.as_ref().map(|n| n.value);
    let min_ok = count(&new.min_properties).unwrap_or(0) <= count(&old.min_properties).unwrap_or(0);
    let max_ok = match (count(&old.max_properties), count(&new.max_properties)) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(o), Some(n)) => n >= o,
    };
    if !min_ok || !max_ok {
        return Err(Why::exactly(
            "the number of keys allowed narrowed (`@min_properties`, `@max_properties`)",
        ));
    }
    let added = new
        .groups
        .iter()
        .find(|g| !old.groups.iter().any(|o| o.value == g.value));
    match added {
        None => Ok(()),
        Some(g) => Err(Why::undecided(format!(
            "rule `@{}({})` added",
            g.value.attribute(),
            g.value.fields().collect::<Vec<_>>().join(", ")
        ))),
    }
}

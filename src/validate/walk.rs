//! Running a compiled program over a value: the full run, which collects every problem and
//! builds the normalized arguments, the fast accept/reject check, which builds nothing, and the
//! normalization of an accepted value (dispatched to each kind's own).

use std::marker::PhantomData;

use serde_json::Value;

use super::coerce::{self, Coercion, CoercionRule};
use super::compile::{Extra, Node, NodeId, Program};
use super::equal::{first_duplicate, json_equal};
use super::error::{escape_pointer, ErrorCode, Problem, Shown, ValidationError};
use super::kind::choice;
use super::kind::object::ObjectCheck;
use super::number;
use super::sink::Sink;

/// How deep `value` nests, if deeper than `max`: the pointer of the first place too deep.
pub(crate) fn too_deep(value: &Value, max: usize) -> Option<String> {
    let mut stack: Vec<(&Value, usize, String)> = vec![(value, 0, String::new())];
    while let Some((v, depth, path)) = stack.pop() {
        let children: Box<dyn Iterator<Item = (String, &Value)>> = match v {
            Value::Array(items) => {
                Box::new(items.iter().enumerate().map(|(i, x)| (i.to_string(), x)))
            }
            Value::Object(map) => {
                Box::new(map.iter().map(|(k, x)| (escape_pointer(k).into_owned(), x)))
            }
            _ => continue,
        };
        if depth + 1 > max {
            return Some(path);
        }
        // Pushed last to first, so that the first place too deep in document order (where
        // the text's reader stops) is found first.
        let containers: Vec<(String, &Value)> = children
            .filter(|(_, child)| matches!(child, Value::Array(_) | Value::Object(_)))
            .collect();
        for (seg, child) in containers.into_iter().rev() {
            stack.push((child, depth + 1, format!("{path}/{seg}")));
        }
    }
    None
}

/// Whether `value` nests deeper than `max` (the fast check's version: no allocation).
pub(crate) fn exceeds_depth(value: &Value, max: usize) -> bool {
    match value {
        Value::Array(items) => max == 0 || items.iter().any(|v| exceeds_depth(v, max - 1)),
        Value::Object(map) => max == 0 || map.values().any(|v| exceeds_depth(v, max - 1)),
        _ => false,
    }
}

/// Appends `/i` to a path without the formatting machinery.
fn push_index(path: &mut String, mut i: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    path.push('/');
    for &d in &digits[at..] {
        path.push(char::from(d));
    }
}

/// One run over a value, of the kind `S` (see [`super::sink`]).
pub(crate) struct Run<'p, S: Sink> {
    prog: &'p Program,
    pub errors: Vec<ValidationError>,
    pub coercions: Vec<Coercion>,
    path: String,
    /// How many containers deep the walk is.
    level: usize,
    /// Whether the run started at a value inside the arguments (its paths start there): its
    /// empty path is then not the arguments' root.
    nested: bool,
    sink: PhantomData<S>,
}

/// Down to this many levels, a run that only collects strict problems first asks the fast
/// check about each object and walks only the objects it rejects (most of an invalid call is
/// valid). Deeper down it walks everything, so that no value is checked more than this many
/// times over.
const SKIP_VALID_LEVELS: usize = 8;

impl<'p, S: Sink> Run<'p, S> {
    pub(super) fn new(prog: &'p Program) -> Self {
        Run {
            path: String::with_capacity(64),
            ..Run::at_value(prog, Vec::new())
        }
    }

    /// A run over one value, whose paths start at it, recording its coercions after
    /// `coercions`.
    pub(super) fn at_value(prog: &'p Program, coercions: Vec<Coercion>) -> Self {
        Run {
            prog,
            errors: Vec::new(),
            coercions,
            path: String::new(),
            level: 0,
            nested: false,
            sink: PhantomData,
        }
    }

    /// The same run started at a value inside the arguments, `nested` deep or not: what it
    /// finds at its start is not at the arguments' root.
    pub(super) fn nested(mut self, nested: bool) -> Self {
        self.nested = nested;
        self
    }

    /// Walks `value` against node `id` from the start: the normalized value when it is valid
    /// (`Value::Null` in its place when the run builds nothing), the problems, the coercions.
    pub(super) fn finish(
        mut self,
        id: NodeId,
        value: &Value,
    ) -> (Option<Value>, Vec<ValidationError>, Vec<Coercion>) {
        let out = self.walk(id, value);
        (out, self.errors, self.coercions)
    }

    /// A run of another kind at the same place, with nothing found yet.
    pub(super) fn fresh<T: Sink>(&self) -> Run<'p, T> {
        Run {
            prog: self.prog,
            errors: Vec::new(),
            coercions: Vec::new(),
            path: self.path.clone(),
            level: self.level,
            nested: self.nested,
            sink: PhantomData,
        }
    }

    /// `f` run by a run of kind `T` that carries on from this one: same place, and what it
    /// finds is this run's.
    pub(super) fn as_sink<T: Sink, R>(&mut self, f: impl FnOnce(&mut Run<'p, T>) -> R) -> R {
        let mut other = Run {
            prog: self.prog,
            errors: std::mem::take(&mut self.errors),
            coercions: std::mem::take(&mut self.coercions),
            path: std::mem::take(&mut self.path),
            level: self.level,
            nested: self.nested,
            sink: PhantomData,
        };
        let r = f(&mut other);
        self.errors = other.errors;
        self.coercions = other.coercions;
        self.path = other.path;
        r
    }

    /// Whether the run only collects problems, so that values the fast check accepts can be
    /// skipped (down to [`SKIP_VALID_LEVELS`]). Lax mode coerces only what strict mode rejects,
    /// so a value the strict check accepts has no problem and no coercion in either mode.
    fn skips_valid(&self) -> bool {
        !S::BUILD
    }

    /// Whether an object's fields that the fast check accepts can be skipped (see
    /// [`Run::skips_valid`]), without extending the path.
    pub(super) fn skips_valid_fields(&self) -> bool {
        self.skips_valid() && self.level < SKIP_VALID_LEVELS
    }

    /// The program the run is over.
    pub(super) fn prog(&self) -> &'p Program {
        self.prog
    }

    /// Whether the run is at the arguments themselves (the empty path).
    pub(super) fn at_root(&self) -> bool {
        self.path.is_empty() && !self.nested
    }

    /// The output for a valid value: built by `f` when the run builds values.
    pub(super) fn out(&self, f: impl FnOnce() -> Value) -> Option<Value> {
        Some(if S::BUILD { f() } else { Value::Null })
    }

    /// A problem found by node `id` in `value`, at the run's path: typed data, worded when asked
    /// for (by [`super::message`], for the model or for the author of a definition).
    #[inline(always)]
    pub(super) fn fail(&mut self, id: NodeId, code: ErrorCode, value: &Value, problem: Problem) {
        let path = self.path.clone();
        // A missing field's value is `null` (see `v_null`), shown as nothing.
        let error = ValidationError::found(path, code, self.prog, id, Shown::new(value), problem);
        self.errors.push(error);
    }

    pub(super) fn wrong_type(&mut self, id: NodeId, want: &'static str, value: &Value) {
        let problem = Problem::WrongType {
            want,
            root_object: self.at_root() && want == "object",
            hint: hint(want, value),
        };
        self.fail(id, ErrorCode::WrongType, value, problem);
    }

    /// Records that lax mode read `from` as `to`, at the run's path; `to`.
    pub(super) fn coerced(&mut self, rule: CoercionRule, from: &Value, to: Value) -> Value {
        self.record_coercion(rule, from, Some(to.clone()));
        to
    }

    /// Records a coercion at the run's path (`to` is `None` when the value was dropped).
    pub(super) fn record_coercion(&mut self, rule: CoercionRule, from: &Value, to: Option<Value>) {
        self.coercions.push(Coercion {
            path: self.path.clone(),
            rule,
            from: from.clone(),
            to,
        });
    }

    pub(super) fn with_segment<T>(&mut self, seg: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.path.len();
        self.path.push('/');
        self.path.push_str(seg);
        self.level += 1;
        let r = f(self);
        self.level -= 1;
        self.path.truncate(len);
        r
    }

    pub(super) fn with_index<T>(&mut self, i: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        let len = self.path.len();
        push_index(&mut self.path, i);
        self.level += 1;
        let r = f(self);
        self.level -= 1;
        self.path.truncate(len);
        r
    }

    /// Validates `value` against node `id`; the normalized value when it (and everything in it)
    /// is valid (`Value::Null` in its place when the run builds no values).
    pub(super) fn walk(&mut self, id: NodeId, value: &Value) -> Option<Value> {
        let prog = self.prog;
        // Strict mode's problems are exactly what the fast check rejects, so a value it
        // accepts has none. (The arguments themselves were checked by the caller; their depth
        // is within the limit.)
        if self.skips_valid()
            && (1..=SKIP_VALID_LEVELS).contains(&self.level)
            && checked_first(value)
            && accepts(prog, id, value)
        {
            return Some(Value::Null);
        }
        self.walk_node(id, value)
    }

    /// [`Run::walk`] without asking the fast check first: for a value it rejected, or one it
    /// was just asked about (a named type's or a nullable type's inner node sees the same value).
    pub(super) fn walk_node(&mut self, id: NodeId, value: &Value) -> Option<Value> {
        let prog = self.prog;
        match &prog.nodes[id] {
            Node::Any => self.out(|| value.clone()),
            Node::Never => {
                self.fail(id, ErrorCode::NotAllowed, value, Problem::Never);
                None
            }
            Node::Ref(target) => self.walk_node(*target, value),
            Node::Null => {
                if value.is_null() {
                    Some(Value::Null)
                } else {
                    self.wrong_type(id, "null", value);
                    None
                }
            }
            Node::Boolean => match value {
                Value::Bool(_) => self.out(|| value.clone()),
                Value::String(s) if S::LAX => match coerce::boolean_from_str(s) {
                    Ok(b) => {
                        Some(self.coerced(CoercionRule::BooleanFromString, value, Value::Bool(b)))
                    }
                    Err(why) => {
                        self.not_coercible(id, "boolean", value, why);
                        None
                    }
                },
                _ => {
                    self.wrong_type(id, "boolean", value);
                    None
                }
            },
            Node::Integer(check) => self.integer(id, check, value),
            Node::Number(check) => self.number(id, check, value),
            Node::String(check) => self.string(id, check, value),
            Node::Const(c) => {
                let exact = json_equal(c, value).then_some(&**c);
                self.one_of(id, exact, std::slice::from_ref(&**c), value)
            }
            Node::Enum(e) => self.one_of(id, e.member(value), &e.values, value),
            Node::Nullable(inner) => {
                if value.is_null() {
                    Some(Value::Null)
                } else {
                    self.walk_node(*inner, value)
                }
            }
            Node::AnyOf(u) => self.any_of(id, u, value),
            Node::Array(check) => self.array(id, check, value),
            Node::Object(check) => self.object(id, check, value),
        }
    }

    pub(super) fn not_coercible(
        &mut self,
        id: NodeId,
        want: &'static str,
        value: &Value,
        why: &'static str,
    ) {
        let problem = Problem::NotCoercible { want, why };
        self.fail(id, ErrorCode::NotCoercible, value, problem);
    }
}

/// `null`, where a problem is about no value (a missing field).
pub(super) fn v_null() -> &'static Value {
    static NULL: Value = Value::Null;
    &NULL
}

/// A hint for a value of the wrong JSON type that shows what the model probably meant.
fn hint(want: &str, value: &Value) -> Option<&'static str> {
    match (want, value) {
        ("integer", Value::Number(n)) if number::is_inexact_integer(n) => Some(
            "beyond ±2^53 an integer must be written as digits alone (no fraction, no exponent) \
             within -9223372036854775808 to 18446744073709551615; this one may have been \
             rounded when read, so it cannot be kept exactly",
        ),
        ("integer", Value::String(s)) if coerce::integer_from_str(s).is_ok() => {
            Some("write the number without quotes")
        }
        ("number", Value::String(s)) if coerce::number_from_str(s).is_ok() => {
            Some("write the number without quotes")
        }
        ("boolean", Value::String(s)) if coerce::boolean_from_str(s).is_ok() => {
            Some("write true or false without quotes")
        }
        ("string", Value::Number(_)) => Some("put the value in double quotes"),
        ("array", Value::String(s)) if s.trim_start().starts_with('[') => {
            Some("send the array itself, not JSON text inside a string")
        }
        ("object" | "map", Value::String(s)) if s.trim_start().starts_with('{') => {
            Some("send the object itself, not JSON text inside a string")
        }
        ("array", v) if !v.is_array() && !v.is_null() => {
            Some("wrap the value in [ ] to send a list")
        }
        _ => None,
    }
}

/// Whether a strict run that collects problems asks the fast check about `value` before walking
/// it: objects, and arrays other than [`walked_item_by_item`] ones. A scalar's walk costs what
/// its check does.
fn checked_first(value: &Value) -> bool {
    matches!(value, Value::Object(_) | Value::Array(_)) && !walked_item_by_item(value)
}

/// An array of containers: its walk checks each item first, so checking the whole array too
/// would only save the walk's small cost per item when it is valid, and repeat the check of the
/// items before the first invalid one when it is not.
pub(super) fn walked_item_by_item(value: &Value) -> bool {
    matches!(value, Value::Array(items)
        if matches!(items.first(), Some(Value::Array(_) | Value::Object(_))))
}

/// The fast check: whether the value is valid in strict mode, building nothing.
pub(crate) fn accepts(prog: &Program, id: NodeId, value: &Value) -> bool {
    check::<false>(prog, id, value, usize::MAX, &mut true)
}

/// [`accepts`], and the value nests no deeper than `depth` levels (checked on the way, so the
/// value is walked once).
#[inline(always)]
pub(crate) fn accepts_within(prog: &Program, id: NodeId, value: &Value, depth: usize) -> bool {
    check_root::<false>(prog, id, value, depth, &mut true)
}

/// [`accepts_within`], and (second) whether [`normalize`] (filling defaults) would leave the
/// value as it is, so that it can be returned without a copy; one pass.
#[inline(always)]
pub(crate) fn accepts_normal(
    prog: &Program,
    id: NodeId,
    value: &Value,
    depth: usize,
) -> (bool, bool) {
    let mut normal = true;
    let ok = check_root::<true>(prog, id, value, depth, &mut normal);
    (ok, ok && normal)
}

/// Whether a container nests deeper than `depth` levels (scalars never do).
fn too_deep_for(value: &Value, depth: usize) -> bool {
    matches!(value, Value::Array(_) | Value::Object(_)) && exceeds_depth(value, depth)
}

/// [`check`] of a tool's arguments: an object at the root (as the arguments of every tool
/// are) is checked here, without the match over node kinds of [`check_node`], whose frame
/// costs a small call more than its object check does.
#[inline(always)]
fn check_root<const NORMAL: bool>(
    prog: &Program,
    id: NodeId,
    value: &Value,
    depth: usize,
    normal: &mut bool,
) -> bool {
    match &prog.nodes[id] {
        Node::Object(c) => check_object::<NORMAL>(prog, c, value, depth, normal),
        node => check_node::<NORMAL>(prog, node, value, depth, normal),
    }
}

/// The fast check. With `NORMAL`, also clears `normal` when [`normalize`] would change the
/// value (its result is then meaningless when the value is rejected).
///
/// The fast check is one match over the node kinds that composes the kinds' own predicates
/// (`accepts`, `too_few`, `field_from`, `hold`, …, in `kind/`), rather than one function per
/// kind file: split that way (each arm a function marked to be inlined), the same code
/// compiled to 3–6% more instructions on the strict check of the BFCL and small sets. Objects
/// are the exception: [`check_object`] is entered from the root and from [`check_child`]
/// without this match (10% fewer instructions on BFCL's calls, which are mostly one flat
/// object).
fn check<const NORMAL: bool>(
    prog: &Program,
    id: NodeId,
    value: &Value,
    depth: usize,
    normal: &mut bool,
) -> bool {
    check_node::<NORMAL>(prog, &prog.nodes[id], value, depth, normal)
}

/// [`check`] of a node already looked up.
fn check_node<const NORMAL: bool>(
    prog: &Program,
    node: &Node,
    value: &Value,
    depth: usize,
    normal: &mut bool,
) -> bool {
    match node {
        Node::Any => !too_deep_for(value, depth),
        Node::Never => false,
        Node::Ref(t) => check::<NORMAL>(prog, *t, value, depth, normal),
        Node::Null => value.is_null(),
        Node::Boolean => value.is_boolean(),
        Node::Integer(c) => match value {
            Value::Number(n) if number::is_integer(n) && c.accepts(n) => {
                if NORMAL && !(n.is_i64() || n.is_u64()) && number::normalize_integer(n).is_some() {
                    *normal = false;
                }
                true
            }
            _ => false,
        },
        Node::Number(c) => matches!(value, Value::Number(n) if c.accepts(n)),
        Node::String(c) => matches!(value, Value::String(s) if c.accepts(s)),
        Node::Const(c) => {
            if !json_equal(c, value) || too_deep_for(value, depth) {
                return false;
            }
            if NORMAL && **c != *value {
                *normal = false;
            }
            true
        }
        Node::Enum(e) => match e.member(value) {
            // Equal strings are identical: nothing to normalize.
            Some(_) if value.is_string() => true,
            Some(m) if !too_deep_for(value, depth) => {
                if NORMAL && m != value {
                    *normal = false;
                }
                true
            }
            _ => false,
        },
        Node::Nullable(inner) => {
            value.is_null() || check::<NORMAL>(prog, *inner, value, depth, normal)
        }
        Node::AnyOf(u) => {
            // Normalizing follows the first member that accepts.
            let before = *normal;
            u.candidates(value, false).any(|m| {
                *normal = before;
                check::<NORMAL>(prog, m, value, depth, normal)
            })
        }
        Node::Array(c) => {
            let Value::Array(items) = value else {
                return false;
            };
            let Some(inner) = depth.checked_sub(1) else {
                return false;
            };
            let len = items.len() as u64;
            !c.too_few(len)
                && !c.too_many(len)
                && if c.prefix.is_empty() {
                    items.iter().all(|i| {
                        c.items_leaf.accepts(i)
                            || check_child::<NORMAL>(prog, c.items, i, inner, normal)
                    })
                } else {
                    items
                        .iter()
                        .enumerate()
                        .all(|(n, i)| check_child::<NORMAL>(prog, c.item(n), i, inner, normal))
                }
                && (!c.unique || first_duplicate(items).is_none())
        }
        Node::Object(c) => check_inner_object::<NORMAL>(prog, c, value, depth, normal),
    }
}

/// [`check_object`] of an object below the root, in a frame of its own: reached from a field
/// or an item through [`check_child`] without [`check_node`]'s match (and its larger frame).
#[inline(never)]
fn check_inner_object<const NORMAL: bool>(
    prog: &Program,
    c: &ObjectCheck,
    value: &Value,
    depth: usize,
    normal: &mut bool,
) -> bool {
    check_object::<NORMAL>(prog, c, value, depth, normal)
}

/// [`check_node`] of an object node: the required fields counted in one pass over the keys
/// sent, each value checked by its field (a scalar by the field's leaf, without a call).
/// Inlined into [`check_root`], for the arguments, and into [`check_inner_object`].
#[inline(always)]
fn check_object<const NORMAL: bool>(
    prog: &Program,
    c: &ObjectCheck,
    value: &Value,
    depth: usize,
    normal: &mut bool,
) -> bool {
    let Value::Object(map) = value else {
        return false;
    };
    let Some(inner) = depth.checked_sub(1) else {
        return false;
    };
    // The count of keys first (`ObjectCheck::may_hold`): most calls that miss an argument send
    // only required ones, and a model that adds a key often gives every argument too.
    if !c.may_hold(map.len()) {
        return miscounted_keys();
    }
    // One pass over the keys sent (a map holds each key once, so counting the required
    // fields seen tells whether all are there). Keys usually come in declaration order,
    // so the search starts after the last field found.
    let mut required = 0;
    let mut next = 0;
    let mut present = 0u64;
    let mut extras = false;
    for (k, v) in map {
        match c.field_from(k, next) {
            Some((i, f)) => {
                if NORMAL {
                    // Declared keys out of order, or after another key: reordered.
                    if i < next || extras {
                        *normal = false;
                    }
                    if i < 64 {
                        present |= 1 << i;
                    }
                }
                next = i + 1;
                if !f.leaf.accepts(v) && !check_child::<NORMAL>(prog, f.node(), v, inner, normal) {
                    return false;
                }
                required += usize::from(f.required);
            }
            None => {
                extras = true;
                match &c.extra {
                    Extra::Open => {
                        if too_deep_for(v, inner) {
                            return false;
                        }
                    }
                    Extra::Closed => return false,
                    Extra::Schema(node) => {
                        if !check::<NORMAL>(prog, *node, v, inner, normal) {
                            return false;
                        }
                    }
                }
            }
        }
    }
    if NORMAL && (c.fields.len() > 64 || present & c.defaults != c.defaults) {
        // A default to fill in (or too many fields to tell cheaply).
        *normal = false;
    }
    required == c.required()
        && c.rules().is_none_or(|rules| {
            let given = |i: usize| c.fields.get(i).is_some_and(|f| map.contains_key(&*f.name));
            rules.hold(map.len() as u64, given)
        })
}

/// The fast check's verdict on an object whose count of keys shows a required field missing
/// or a key undeclared: apart, so that the test costs valid objects one comparison.
#[cold]
#[inline(never)]
fn miscounted_keys() -> bool {
    false
}

/// [`check`] of a child: strings, booleans and numbers (most values) are checked here, without
/// the call.
#[inline(always)]
pub(super) fn check_child<const NORMAL: bool>(
    prog: &Program,
    id: NodeId,
    value: &Value,
    depth: usize,
    normal: &mut bool,
) -> bool {
    let node = &prog.nodes[id];
    match (node, value) {
        (Node::String(c), Value::String(s)) => c.accepts(s),
        (Node::Number(c), Value::Number(n)) => c.accepts(n),
        (Node::Boolean, Value::Bool(_)) => true,
        (Node::Integer(c), Value::Number(n)) if n.is_i64() || n.is_u64() => c.accepts(n),
        // Equal strings are identical: nothing to normalize.
        (Node::Enum(e), Value::String(s)) => e.find_str(s).is_some(),
        (Node::Object(c), _) => check_inner_object::<NORMAL>(prog, c, value, depth, normal),
        _ => check_node::<NORMAL>(prog, node, value, depth, normal),
    }
}

/// Normalizes, in place, a value that [`accepts`] accepted: declared keys in declaration order
/// (other keys after, as they came), absent defaults filled in (when `fill`), integral numbers
/// of integer fields as integers, enum and literal values as declared. The result is the one
/// [`Run::walk`] returns for the same value, in either mode: lax mode only coerces what strict
/// mode rejects. Nothing is copied except defaults, and an object whose keys already come in
/// declaration order is not rebuilt.
pub(crate) fn normalize(prog: &Program, id: NodeId, value: &mut Value, fill: bool) {
    match (&prog.nodes[id], value) {
        (Node::Ref(t), v) => normalize(prog, *t, v, fill),
        (Node::Integer(_), Value::Number(n)) => {
            if let Some(i) = number::normalize_integer(n) {
                *n = i;
            }
        }
        (Node::Const(c), v) => choice::normalize_const(c, v),
        (Node::Enum(e), v) => e.normalize(v),
        (Node::Nullable(_), Value::Null) => {}
        (Node::Nullable(inner), v) => normalize(prog, *inner, v, fill),
        (Node::AnyOf(u), v) => u.normalize(prog, v, fill),
        (Node::Array(c), Value::Array(items)) => c.normalize(prog, prog.fills[id], items, fill),
        (Node::Object(c), Value::Object(map)) => c.normalize(prog, map, fill),
        _ => {}
    }
}

/// [`normalize`] of a copy: the normalized form of a value that [`accepts`] accepted, built
/// from the borrowed value. Arrays and objects are normalized by their kinds
/// ([`super::kind::array::ArrayCheck::normalized`],
/// [`super::kind::object::ObjectCheck::normalized`]); other values are copied, then
/// normalized in place.
pub(crate) fn normalized(prog: &Program, id: NodeId, value: &Value) -> Value {
    match (&prog.nodes[id], value) {
        (Node::Ref(t), v) => normalized(prog, *t, v),
        (Node::Nullable(inner), v) if !v.is_null() => normalized(prog, *inner, v),
        (Node::Array(c), Value::Array(items)) => c.normalized(prog, prog.fills[id], items),
        (Node::Object(c), Value::Object(map)) => c.normalized(prog, map),
        (_, v) => {
            let mut copy = v.clone();
            normalize(prog, id, &mut copy, true);
            copy
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validate::compile::Compiler;
    use crate::validate::sink::{Build, LaxBuild};

    /// The fast path's normalization gives exactly what the full run returns, on valid values.
    #[test]
    fn normalize_matches_the_full_run() {
        let source = r#"
            enum E { a b }
            type P { x: integer, y?: E = "a" }
            /// T.
            tool t {
              i: integer
              n?: number
              e?: E = "b"
              lit?: 1 | "one"
              u?: P[] @unique
              s?: string[] @unique
              m?: map<integer>
              o?: P | null
              any?: any
              open?: { k: string, ... }
            }
        "#;
        let module = crate::compile(source).unwrap().module;
        let tool = module.tool("t").unwrap();
        let mut compiler = Compiler::new(&module);
        let root = compiler.object(&tool.params);
        let prog = compiler.finish();
        let values = [
            json!({"i": 1}),
            json!({"i": 2.0, "n": 2.0, "lit": 1.0}),
            json!({"u": [{"x": 1}, {"x": 1, "y": "b"}], "i": 3}),
            json!({"u": [{"x": 1}, {"x": 2, "y": "a"}], "i": 3}),
            json!({"u": [{"x": 1}, {"x": 1, "y": "a"}], "i": 3}),
            json!({"s": ["a", "b"], "m": {"z": 1.0, "a": 2}, "i": 0, "o": null}),
            json!({"o": {"y": "b", "x": 5.0}, "any": {"q": [1.0]}, "i": -1}),
            json!({"open": {"z": 1, "k": "v", "a": 2}, "e": "a", "i": 7}),
            json!({"i": 7, "e": "a", "open": {"k": "v", "a": 2}, "u": [{"y": "b", "x": 1}]}),
            json!({"i": 7, "lit": "one", "s": ["x"], "o": {"x": 1}}),
            json!({"i": 1, "e": "a"}),
            json!({"i": 1, "e": "a", "u": [{"x": 1, "y": "b"}], "o": {"x": 2, "y": "a"}}),
            json!({"i": 1, "e": "a", "o": {"y": "a", "x": 2}}),
            json!({"i": 1, "e": "a", "lit": 1.0}),
            json!({"e": "a", "i": 1}),
            json!({"i": 1, "e": "a", "m": {"b": 2.0}}),
            json!({"i": 1, "e": "a", "open": {"k": "v", "z": 1}, "any": [1.0]}),
        ];
        for v in values {
            assert!(accepts(&prog, root, &v), "{v}");
            // The one-pass check says "already normal" exactly when normalizing changes nothing.
            let (ok, normal) = accepts_normal(&prog, root, &v, usize::MAX);
            let mut normalized = v.clone();
            normalize(&prog, root, &mut normalized, true);
            // The copy built from the borrowed value is the same, key order included.
            let built = super::normalized(&prog, root, &v);
            assert_eq!(
                serde_json::to_string(&built).unwrap(),
                serde_json::to_string(&normalized).unwrap(),
                "{v}"
            );
            let same =
                serde_json::to_string(&normalized).unwrap() == serde_json::to_string(&v).unwrap();
            assert!(ok, "{v}");
            assert_eq!(normal, same, "{v}");
            let strict = {
                let mut run = Run::<Build>::new(&prog);
                let walked = run.walk(root, &v);
                assert!(run.errors.is_empty() && run.coercions.is_empty(), "{v}");
                walked
            };
            let lax = {
                let mut run = Run::<LaxBuild>::new(&prog);
                let walked = run.walk(root, &v);
                assert!(run.errors.is_empty() && run.coercions.is_empty(), "{v}");
                walked
            };
            for walked in [strict, lax] {
                let mut normalized = v.clone();
                normalize(&prog, root, &mut normalized, true);
                assert_eq!(walked.as_ref(), Some(&normalized), "{v}");
                // Same key order too.
                assert_eq!(
                    serde_json::to_string(&walked).unwrap(),
                    serde_json::to_string(&normalized).unwrap()
                );
            }
        }
    }
}

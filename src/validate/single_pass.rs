//! The single pass over argument text: a serde [`DeserializeSeed`] driven by the compiled
//! program reads the text with serde_json's `Deserializer`, checks every value against its node
//! while it is read, coerces in lax mode, and builds the arguments as they were sent (keys in the
//! order they came). When that is not their normalized form (a declared key out of order, a
//! default to fill in, `2.0` for an integer), the value is normalized once at the end by
//! [`walk::normalize`], the one place for that rule.
//!
//! Text is read once, valid or not. In strict mode, the pass records each problem where it
//! finds it and checks on ([`Read::Found`]): a value a node rejects gets the problems that the
//! run that collects them finds in that value alone, a missing field and an unknown key get
//! their object's problem, and a container that breaks a rule of its own (a count, uniqueness,
//! a rule across keys) gets the problems of that run over the whole container. Each object puts
//! its problems in that run's order, so errors read exactly as on the full path. In lax mode,
//! a problem no coercion mends stops the checks: the rest is read as it is, and the whole value
//! as sent goes to the run that collects every problem ([`Read::Invalid`]), with what the pass
//! coerced before the problem put back as it was sent (it keeps each original part beside its
//! coercion). Only what the pass cannot carry on from leaves the call to the full path
//! ([`Read::Unsure`]): text that is not JSON, a duplicate key, and nesting too deep. What it
//! accepts, it returns exactly as the full path would: the same normalized value and the same
//! coercions, in the same order.
//!
//! Numbers come from the same deserializer as the full path's reader, through the same
//! conversions (an integer beyond `u64` and `-0` read as doubles), so they keep their meaning.
//! Unions, enum and literal values other than strings, and `@unique` arrays whose items may get
//! defaults are read as plain values first and then judged by the full path's check and
//! normalization, since their verdict or their output needs the whole value; `any` values are
//! read as they are.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::coerce::{Coercion, CoercionRule};

use super::compile::{Extra, FieldCheck, Leaf, Node, NodeId, ObjectCheck, Program};
use super::equal;
use super::error::{
    escape_pointer, last_key, pointer_mut, split_last, Present, Shown, ValidationError,
};
use super::kind::object;
use super::number;
use super::reader::Plain;
use super::sink::{Collect, LaxBuild};
use super::walk;

/// The pass nests at most this deep, whatever the limits allow: deeper text (rejected by the
/// default limit anyway) goes to the full path's reader, so the pass never needs more stack
/// than that reader.
pub(crate) const DEPTH_CAP: usize = 256;

/// What the pass made of a text.
pub(crate) enum Read {
    /// Valid: the normalized arguments and the coercions applied (lax mode only).
    Valid(Value, Vec<Coercion>),
    /// Invalid: the value as sent, read whole (every key, every item), for the run that
    /// collects the problems, so that the text is read once.
    Invalid(Value),
    /// Invalid, with every problem, found while reading (strict mode): the problems of each
    /// value as the run that collects them finds them, in that run's order.
    Found(Vec<ValidationError>),
    /// The full path must decide: text that is not JSON, a duplicate key, or nesting too deep.
    Unsure,
}

/// Reads and checks `text` against node `root`, in one pass.
#[inline]
pub(crate) fn validate(
    prog: &Program,
    root: NodeId,
    text: &str,
    max_depth: usize,
    lax: bool,
) -> Read {
    read(prog, root, text, max_depth, lax, true)
}

/// Whether `text` is valid in strict mode: the pass stops at the first problem.
#[inline]
pub(crate) fn is_valid(prog: &Program, root: NodeId, text: &str, max_depth: usize) -> bool {
    matches!(
        read(prog, root, text, max_depth, false, false),
        Read::Valid(..)
    )
}

#[inline]
fn read(
    prog: &Program,
    root: NodeId,
    text: &str,
    max_depth: usize,
    lax: bool,
    salvage: bool,
) -> Read {
    let mut pass = Pass {
        prog,
        max_depth: max_depth.min(DEPTH_CAP),
        lax,
        coercions: Vec::new(),
        normal: true,
        root_defaults: None,
        salvage,
        keep: salvage,
        collect: salvage && !lax,
        errors: Vec::new(),
        deep: false,
        failed: false,
        originals: Vec::new(),
        lost: false,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    // The pass counts depth itself and stops at `max_depth`.
    de.disable_recursion_limit();
    let value = Typed {
        leaf: Leaf::Other,
        pass: &mut pass,
        id: root,
        depth: 0,
        absent_if_null: false,
    }
    .deserialize(&mut de);
    let Ok(Some(mut value)) = value else {
        return Read::Unsure;
    };
    if de.end().is_err() {
        return Read::Unsure;
    }
    if pass.failed {
        // What lax mode coerced before the problem is put back as it was sent: the run that
        // collects the problems records the coercions itself.
        if pass.deep {
            flip_all(pass.originals.iter_mut().map(|o| &mut o.path));
        }
        if pass.lost || !restore(&mut value, pass.originals) {
            return Read::Unsure;
        }
        return Read::Invalid(value);
    }
    if !pass.errors.is_empty() {
        if pass.deep {
            flip_all(pass.errors.iter_mut().map(|e| &mut e.path));
        }
        return Read::Found(pass.errors);
    }
    // (A caller that only asks whether the text is valid has no use for the value.)
    if salvage {
        if !pass.normal {
            walk::normalize(prog, root, &mut value, true);
        } else if let (Some((c, given)), Value::Object(map)) = (pass.root_defaults, &mut value) {
            c.fill_defaults(map, given);
        }
    }
    if pass.deep {
        flip_all(pass.coercions.iter_mut().map(|c| &mut c.path));
    }
    Read::Valid(value, pass.coercions)
}

/// Turns a JSON pointer into the form the pass keeps its paths in while reading, and back:
/// the segments innermost first (`/a/b` is `/b/a`; a path of one segment is the same in both).
/// A container adds its own segment at the end, in time for that segment alone, however deep
/// the record lies (prepending copied the whole path at every level: a record `d` deep cost
/// `d²`).
/// Whether it turned anything (a path of two segments or more).
fn flip(path: &mut String) -> bool {
    if !path.bytes().skip(1).any(|b| b == b'/') {
        return false;
    }
    // Reversed, the bytes hold the segments in the other order, each reversed and followed by
    // its `/`: each segment is turned back, and the last `/` goes to the front.
    let mut bytes = std::mem::take(path).into_bytes();
    bytes.reverse();
    bytes.split_mut(|&b| b == b'/').for_each(<[u8]>::reverse);
    bytes.rotate_right(1);
    *path = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    true
}

/// [`flip`] on each path.
#[cold]
#[inline(never)]
fn flip_all<'a>(paths: impl Iterator<Item = &'a mut String>) -> bool {
    paths.fold(false, |flipped, path| flip(path) | flipped)
}

/// Adds `segment` to `path` as its outermost, as the pass keeps paths ([`flip`]); whether the
/// path has two segments or more now.
fn add_outer(path: &mut String, segment: &str) -> bool {
    if path.is_empty() {
        *path = pointer_to(segment);
        return false;
    }
    path.reserve(1 + segment.len());
    path.push('/');
    path.push_str(segment);
    true
}

/// `/segment`: a path of one segment, the same as the pass keeps it ([`flip`]).
fn pointer_to(segment: &str) -> String {
    let mut path = String::with_capacity(1 + segment.len());
    path.push('/');
    path.push_str(segment);
    path
}

/// A part of the value as it was sent, where lax mode changed it.
struct Original {
    /// A JSON pointer to the value replaced, or to the key left out.
    path: String,
    /// The index of the coercion recorded with it (its paths are prefixed with the coercion's).
    coercion: usize,
    sent: Sent,
}

enum Sent {
    /// The value as sent, replaced by its coerced form.
    Value(Value),
    /// A key whose `null` was read as absent, and its place among the object's keys.
    Null { key: String, at: usize },
}

/// Puts back what lax mode changed, in the order it was recorded (a key left out goes back to
/// its place among the keys sent before it). `false` if a path no longer leads anywhere, which
/// the pass never records.
#[cold]
#[inline(never)]
fn restore(value: &mut Value, originals: Vec<Original>) -> bool {
    for o in originals {
        let path = match o.sent {
            Sent::Value(_) => &o.path[..],
            // The object the key was left out of.
            Sent::Null { .. } => split_last(&o.path).0,
        };
        let Some(target) = pointer_mut(value, path) else {
            return false;
        };
        match (o.sent, target) {
            (Sent::Value(v), target) => *target = v,
            (Sent::Null { key, at }, Value::Object(map)) if at <= map.len() => {
                map.shift_insert(at, key, Value::Null);
            }
            _ => return false,
        }
    }
    true
}

/// The error that stops the pass; never shown (the full path reports the problem).
fn reject<E: de::Error>() -> E {
    E::custom("left to the full validation")
}

/// What every seed of one pass shares.
struct Pass<'p> {
    prog: &'p Program,
    max_depth: usize,
    lax: bool,
    /// The coercions applied so far. Paths are relative to the container being read, kept
    /// inside out ([`flip`]): each container adds its own segment on the way back up, so
    /// nothing is spent on paths while no coercion happens.
    coercions: Vec<Coercion>,
    /// Whether the value read so far is normalized as it was sent (declared keys in order,
    /// every default given, integers and enum values as declared); when not, the whole value is
    /// normalized once at the end ([`walk::normalize`], the one place for that rule).
    normal: bool,
    /// The arguments object's check and the fields it was given (at most 64), when that object
    /// is normalized but for defaults to fill in: they are filled in at the end, without the
    /// walk that normalizes the whole value (which fills them in itself when it runs).
    root_defaults: Option<(&'p ObjectCheck, u64)>,
    /// Whether a strict problem lets the pass read on and return the value as sent
    /// ([`Read::Invalid`]) rather than stop at once ([`Read::Unsure`]), for a caller that only
    /// asks whether the text is valid.
    salvage: bool,
    /// Whether the pass builds the value it reads. A caller that only asks whether the text is
    /// valid has no use for it: objects, arrays, keys and strings are then only checked, not
    /// copied (but for the items of a `@unique` array, which are compared).
    keep: bool,
    /// Whether the pass records each problem where it finds it and checks on (strict mode,
    /// salvaging): a value a node rejects gets the problems the run that collects them finds
    /// in it, a missing field or an unknown key its problem from its object, and a container
    /// that breaks a rule of its own (a count, uniqueness, a rule across keys) the problems of
    /// that run over the whole container.
    collect: bool,
    /// The problems found so far, when collecting; paths are relative to the container being
    /// read and kept inside out, like the coercions'.
    errors: Vec<ValidationError>,
    /// Whether a path recorded has two segments or more, so that the paths are turned back
    /// into pointers at the end ([`flip`]).
    deep: bool,
    /// Whether the pass found a problem that no coercion mends: the rest is read as it is (no
    /// more checks), so that the run that collects the problems gets the whole value without
    /// reading the text again.
    failed: bool,
    /// The parts of the value as they were sent where lax mode replaced them (a coerced value,
    /// a `null` read as absent), with paths relative to the container being read, like the
    /// coercions: put back when a problem sends the value as sent to the run that collects
    /// the problems.
    originals: Vec<Original>,
    /// Whether lax mode replaced a part without recording it (never expected: a value strict
    /// mode rejects and lax mode accepts was coerced); such a value cannot be put back.
    lost: bool,
}

impl Pass<'_> {
    /// A value the pass read whole: the full path's check, then its normalization; in lax mode,
    /// the full run (which coerces) when the check fails.
    #[cold]
    #[inline(never)]
    fn judge<E: de::Error>(&mut self, id: NodeId, value: Value, depth: usize) -> Result<Value, E> {
        let (valid, normal) = walk::accepts_normal(self.prog, id, &value, usize::MAX);
        if valid {
            self.normal &= normal;
            return Ok(value);
        }
        self.coerce(id, value, depth)
    }

    /// A value strict mode rejects: in lax mode, the full run over it ([`Pass::lax_coerce`]);
    /// in strict mode, a problem ([`Pass::fail`]).
    #[inline]
    fn coerce<E: de::Error>(&mut self, id: NodeId, value: Value, depth: usize) -> Result<Value, E> {
        if self.lax {
            self.lax_coerce(id, value, depth)
        } else {
            self.fail(id, value, depth)
        }
    }

    /// A value strict mode rejects, in lax mode: the full run over it, kept when it succeeds
    /// (with its coercions, whose paths are relative to the value, and the value as sent among
    /// the originals); otherwise, as in strict mode, a problem ([`Pass::fail`]).
    #[cold]
    #[inline(never)]
    fn lax_coerce<E: de::Error>(
        &mut self,
        id: NodeId,
        value: Value,
        depth: usize,
    ) -> Result<Value, E> {
        // The run records its coercions after the pass's, at paths relative to the value.
        let before = self.coercions.len();
        let run = walk::Run::<LaxBuild>::at_value(self.prog, std::mem::take(&mut self.coercions));
        let (out, errors, coercions) = run.finish(id, &value);
        self.coercions = coercions;
        self.deep |= flip_all(self.coercions[before..].iter_mut().map(|c| &mut c.path));
        match out {
            Some(v) if errors.is_empty() => {
                // Strict mode rejected the value, so lax mode coerced something in it.
                if self.coercions.len() > before {
                    self.originals.push(Original {
                        path: String::new(),
                        coercion: before,
                        sent: Sent::Value(value),
                    });
                } else {
                    self.lost = true;
                }
                Ok(v)
            }
            _ => {
                self.coercions.truncate(before);
                self.fail(id, value, depth)
            }
        }
    }

    /// A value node `id` rejects (in a container at `depth`), kept as it was sent: when
    /// collecting, its problems are recorded and the pass checks on; otherwise it reads on
    /// without checking.
    #[cold]
    #[inline(never)]
    fn fail<E: de::Error>(&mut self, id: NodeId, value: Value, depth: usize) -> Result<Value, E> {
        if !self.salvage {
            return Err(reject());
        }
        if self.collect {
            self.found(id, &value, depth);
        } else {
            self.failed = true;
        }
        Ok(value)
    }

    /// Records the problems of `value`, which node `id` rejects (in a container at `depth`),
    /// as the run that collects them finds them, at paths relative to the value. Should that
    /// run find none (never expected), the pass reads on without checking, and the whole value
    /// goes to that run.
    #[cold]
    #[inline(never)]
    fn found(&mut self, id: NodeId, value: &Value, depth: usize) {
        let before = self.errors.len();
        let mut run = walk::Run::<Collect>::at_value(self.prog, Vec::new()).nested(depth > 0);
        run.errors = std::mem::take(&mut self.errors);
        (_, self.errors, _) = run.finish(id, value);
        if self.errors.len() == before {
            self.failed = true;
        }
        // (Only the problems inside a container have paths of their own.)
        if matches!(value, Value::Array(_) | Value::Object(_)) {
            self.deep |= flip_all(self.errors[before..].iter_mut().map(|e| &mut e.path));
        }
    }

    /// A string the node accepts, as the value holds it: copied from the text when the pass
    /// builds the value, a placeholder when it does not ([`Pass::keep`]).
    #[inline]
    fn text(&self, s: &str) -> Value {
        if self.keep {
            Value::String(s.to_owned())
        } else {
            Value::Null
        }
    }

    /// A container breaks a rule of its own (a count, uniqueness, a missing field, an unknown
    /// key, a rule across keys), which no coercion mends: it is kept as it was sent and the
    /// pass reads on. `true` when collecting: the container then records the problem itself.
    #[cold]
    #[inline(never)]
    fn broken<E: de::Error>(&mut self) -> Result<bool, E> {
        if !self.salvage {
            return Err(reject());
        }
        if self.collect {
            return Ok(true);
        }
        self.failed = true;
        Ok(false)
    }

    /// After a problem with value `v` of field `f`: one about `null` sent for an optional
    /// field that does not take it says to leave the key out (as the run that collects the
    /// problems says).
    #[cold]
    #[inline(never)]
    fn omits_null(&mut self, f: &FieldCheck, v: &Value) {
        if f.omits_null(v) {
            if let Some(e) = self.errors.last_mut() {
                e.set_omit_null();
            }
        }
    }

    /// An object's problems in the order of the run that collects them: each declared field's
    /// (its value's, or its absence), then each other key's, as they were sent. `recorded`
    /// holds where the object's problems start and the order of those recorded while reading;
    /// `unknown` tells whether the object has keys it does not declare, and which of the first
    /// 64 keys of `out` they are.
    #[cold]
    #[inline(never)]
    fn object_errors(
        &mut self,
        object: Object<'_>,
        out: &Map<String, Value>,
        seen: &Bits,
        recorded: (usize, Order),
        unknown: (bool, u64),
    ) {
        let Object {
            node,
            check: c,
            root,
        } = object;
        let (start, mut order) = recorded;
        let prog = self.prog;
        let error = |path: String, (code, problem), got: &Value| {
            ValidationError::found(path, code, prog, node, Shown::new(got), problem)
        };
        for (i, f) in c.fields.iter().enumerate() {
            if f.required && !seen.get(i) {
                let path = pointer_to(&f.texts.pointer);
                self.errors
                    .push(error(path, object::missing(i, root), walk::v_null()));
                order.place(i);
            }
        }
        let n = c.fields.len();
        if let (true, unknown) = unknown {
            let mut present = None;
            for (j, (key, got)) in out.iter().enumerate() {
                let is_unknown = match j {
                    0..64 => unknown & (1 << j) != 0,
                    _ => c.lookup(key).is_none(),
                };
                if !is_unknown {
                    continue;
                }
                let present = present.get_or_insert_with(|| seen.present(n)).clone();
                let path = pointer_to(&escape_pointer(key));
                let problem = object::unknown(root, present);
                self.errors.push(error(path, problem, got));
                // (Any place among the other keys: they come after the fields, in order.)
                order.place(n);
            }
        }
        if !order.unordered {
            return;
        }
        // Keys sent out of their declared order, with problems: each problem's place, from
        // the key its path starts with (its last segment, as the pass keeps paths).
        let place = |e: &ValidationError| {
            let key = last_key(&e.path);
            c.lookup(&key).unwrap_or_else(|| {
                let mut others = out.keys().filter(|k| c.lookup(k).is_none());
                n + others.position(|k| *k == key).unwrap_or(0)
            })
        };
        let mut all: Vec<(usize, ValidationError)> =
            self.errors.drain(start..).map(|e| (place(&e), e)).collect();
        all.sort_by_key(|&(at, _)| at);
        self.errors.extend(all.into_iter().map(|(_, e)| e));
    }

    /// Adds `segment` to the paths of the problems recorded since `since`, as their outermost
    /// ([`flip`]).
    #[cold]
    #[inline(never)]
    fn prefix_errors(&mut self, since: usize, segment: &str) {
        for e in &mut self.errors[since..] {
            self.deep |= add_outer(&mut e.path, segment);
        }
    }

    /// How many coercions (lax mode) or problems (when collecting) the pass has recorded: one
    /// count for both, since a pass records only one of them.
    #[inline]
    fn recorded(&self) -> usize {
        self.coercions.len() + self.errors.len()
    }

    /// Adds `segment`, as their outermost, to the paths of what the pass recorded since
    /// `since` ([`Pass::recorded`]).
    #[cold]
    #[inline(never)]
    fn prefix(&mut self, since: usize, segment: &str) {
        if self.collect {
            debug_assert!(self.coercions.is_empty());
            self.prefix_errors(since, segment);
        } else {
            debug_assert!(self.errors.is_empty());
            self.prefix_coercions(since, segment);
        }
    }

    /// Adds `segment`, as their outermost, to the paths of the coercions recorded since
    /// `since`, and of the originals recorded with them (each has a coercion of its own, so
    /// they are the last originals, and their coercions come at `since` or later).
    fn prefix_coercions(&mut self, since: usize, segment: &str) {
        let originals = self.originals.iter_mut().rev();
        let paths = self.coercions[since..]
            .iter_mut()
            .map(|c| &mut c.path)
            .chain(
                originals
                    .take_while(|o| o.coercion >= since)
                    .map(|o| &mut o.path),
            );
        for path in paths {
            self.deep |= add_outer(path, segment);
        }
    }

    /// The reader of a value as it is, in a container at `depth`.
    fn plain(&self, depth: usize) -> Plain {
        Plain {
            depth,
            max_depth: self.max_depth,
        }
    }

    fn enter<E: de::Error>(&self, depth: usize) -> Result<usize, E> {
        if depth >= self.max_depth {
            return Err(reject());
        }
        Ok(depth + 1)
    }
}

/// Reads one value of node `id`. `None` only when `absent_if_null` and the value is `null` (lax
/// mode reads `null` for an optional field that does not take it as "absent").
struct Typed<'a, 'p> {
    pass: &'a mut Pass<'p>,
    id: NodeId,
    /// What the node is, when its use recorded it (`Leaf::Other` otherwise): a value of a
    /// plain scalar's JSON type is taken without reading the node.
    leaf: Leaf,
    /// The depth of the container that holds the value (0 for the arguments object).
    depth: usize,
    absent_if_null: bool,
}

impl<'de> DeserializeSeed<'de> for Typed<'_, '_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        if self.pass.failed {
            return self.pass.plain(self.depth).deserialize(d).map(Some);
        }
        if self.leaf != Leaf::Other {
            return d.deserialize_any(LeafVisitor(self));
        }
        let prog = self.pass.prog;
        // The usual node (a scalar, an enum, an object) is read piece by piece as it is.
        if !matches!(
            prog.nodes[self.id],
            Node::Any | Node::AnyOf(_) | Node::Ref(_) | Node::Nullable(_) | Node::Array(_)
        ) {
            let id = self.id;
            return d.deserialize_any(self.visitor(id, false));
        }
        let (node, nullable) = resolve(prog, self.id);
        let whole = match &prog.nodes[node] {
            Node::Any => {
                // Anything fits (nested no deeper than the limit): nothing to check or change.
                let value = self.pass.plain(self.depth).deserialize(d)?;
                return Ok(Some(value));
            }
            Node::AnyOf(_) | Node::Ref(_) | Node::Nullable(_) => true,
            // Tuples are read whole and judged by the full check.
            Node::Array(c) => !c.prefix.is_empty() || (c.unique && prog.fills[c.items]),
            _ => false,
        };
        if whole {
            let value = self.pass.plain(self.depth).deserialize(d)?;
            if self.absent_if_null && value.is_null() {
                return Ok(None);
            }
            return self.pass.judge(self.id, value, self.depth).map(Some);
        }
        d.deserialize_any(self.visitor(node, nullable))
    }
}

impl<'a, 'p> Typed<'a, 'p> {
    /// The visitor that reads the value piece by piece as node `node`, which the node asked for
    /// resolves to (`nullable` when a wrapper on the way allowed `null`).
    fn visitor(self, node: NodeId, nullable: bool) -> NodeVisitor<'a, 'p> {
        NodeVisitor {
            pass: self.pass,
            id: self.id,
            node,
            nullable,
            depth: self.depth,
            absent_if_null: self.absent_if_null,
        }
    }

    /// The visitor for a [`Leaf`], whose node (through references) is a scalar one.
    fn scalar_visitor(self) -> NodeVisitor<'a, 'p> {
        let (node, nullable) = resolve(self.pass.prog, self.id);
        self.visitor(node, nullable)
    }
}

/// Through references and nullable wrappers from node `id` to the node that says what to read,
/// and whether a wrapper allowed `null`. The compiler cuts every cycle of these, so the walk
/// ends; the bound is a second guard.
fn resolve(prog: &Program, id: NodeId) -> (NodeId, bool) {
    let mut node = id;
    let mut nullable = false;
    for _ in 0..=prog.nodes.len() {
        match &prog.nodes[node] {
            Node::Ref(t) => node = *t,
            Node::Nullable(t) => {
                nullable = true;
                node = *t;
            }
            _ => break,
        }
    }
    (node, nullable)
}

/// Reads a value for a plain scalar node ([`Leaf`]): a value of its JSON type is valid as it
/// is, so the node (in the cache only if the tool was used lately) is not read; anything else
/// is left to the node's visitor.
struct LeafVisitor<'a, 'p>(Typed<'a, 'p>);

impl<'a, 'p> LeafVisitor<'a, 'p> {
    /// `value` when the leaf accepts it ([`Leaf::accepts`], the rule the fast check uses);
    /// otherwise what the node's visitor makes of the token (`read`).
    fn take<E>(
        self,
        value: Value,
        read: impl FnOnce(NodeVisitor<'a, 'p>) -> Result<Option<Value>, E>,
    ) -> Result<Option<Value>, E> {
        if self.0.leaf.accepts(&value) {
            Ok(Some(value))
        } else {
            read(self.0.scalar_visitor())
        }
    }
}

impl<'de> Visitor<'de> for LeafVisitor<'_, '_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        self.0.scalar_visitor().visit_unit()
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Value>, E> {
        self.0.scalar_visitor().visit_none()
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<Value>, E> {
        self.take(Value::Bool(v), |n| n.visit_bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Value>, E> {
        self.take(Value::Number(v.into()), |n| n.visit_i64(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Value>, E> {
        self.take(Value::Number(v.into()), |n| n.visit_u64(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<Value>, E> {
        // A double is an integer field's only when its node says so (`2.0` is an integer).
        match Number::from_f64(v) {
            Some(n) => self.take(Value::Number(n), |x| x.visit_f64(v)),
            None => self.0.scalar_visitor().visit_f64(v),
        }
    }

    // Strings are not built before the leaf is asked: as [`Leaf::accepts`] says, a string
    // leaf takes any string and no other leaf takes one.
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Value>, E> {
        match self.0.leaf {
            Leaf::String => Ok(Some(self.0.pass.text(v))),
            _ => self.0.scalar_visitor().visit_str(v),
        }
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Option<Value>, E> {
        match self.0.leaf {
            Leaf::String => Ok(Some(Value::String(v))),
            _ => self.0.scalar_visitor().visit_string(v),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<Value>, A::Error> {
        self.0.scalar_visitor().visit_seq(seq)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Value>, A::Error> {
        self.0.scalar_visitor().visit_map(map)
    }
}

/// Integers up to this magnitude are exact doubles.
const EXACT: u64 = 1 << 53;

/// The visitor of a node that is read piece by piece: scalars, arrays, objects.
struct NodeVisitor<'a, 'p> {
    pass: &'a mut Pass<'p>,
    /// The node asked for (what a lax run starts from).
    id: NodeId,
    /// The node it resolves to.
    node: NodeId,
    nullable: bool,
    depth: usize,
    absent_if_null: bool,
}

impl NodeVisitor<'_, '_> {
    /// A scalar the node does not accept as it is (or an enum or literal value, judged whole).
    #[cold]
    #[inline(never)]
    fn mismatch<E: de::Error>(self, value: Value) -> Result<Option<Value>, E> {
        if matches!(
            self.pass.prog.nodes[self.node],
            Node::Const(_) | Node::Enum(_)
        ) {
            return self.pass.judge(self.id, value, self.depth).map(Some);
        }
        self.pass.coerce(self.id, value, self.depth).map(Some)
    }

    fn number<E: de::Error>(self, n: Number) -> Result<Option<Value>, E> {
        match &self.pass.prog.nodes[self.node] {
            Node::Integer(c) if number::is_integer(&n) => {
                if c.accepts(&n) {
                    // `2.0` is the integer 2, written so when normalized.
                    if number::normalize_integer(&n).is_some() {
                        self.pass.normal = false;
                    }
                    return Ok(Some(Value::Number(n)));
                }
                self.mismatch(Value::Number(n))
            }
            Node::Number(c) if c.accepts(&n) => Ok(Some(Value::Number(n))),
            _ => self.mismatch(Value::Number(n)),
        }
    }

    /// Whether a number that is exactly the double `f` is valid as it is: the usual integer or
    /// number field, with bounds that are exact doubles and no multiple to check. (Integers
    /// only for integer fields: the callers see to that.)
    #[inline]
    fn plain_ok(&self, f: f64) -> bool {
        match &self.pass.prog.nodes[self.node] {
            Node::Integer(c) | Node::Number(c) => c.accepts_plain(f),
            _ => false,
        }
    }

    fn string<E: de::Error>(self, s: &str) -> Result<Option<Value>, E> {
        match &self.pass.prog.nodes[self.node] {
            Node::String(c) if c.accepts(s) => Ok(Some(self.pass.text(s))),
            // The usual enum value: a string equal to a member is that member, copied from the
            // text (in the cache) rather than from the member (which may not be).
            Node::Enum(members) if members.find_str(s).is_some() => Ok(Some(self.pass.text(s))),
            Node::Const(m) if m.as_str() == Some(s) => Ok(Some(self.pass.text(s))),
            _ => self.mismatch(Value::String(s.to_owned())),
        }
    }
}

impl<'de> Visitor<'de> for NodeVisitor<'_, '_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        if self.absent_if_null {
            return Ok(None);
        }
        match self.pass.prog.nodes[self.node] {
            _ if self.nullable => Ok(Some(Value::Null)),
            Node::Null => Ok(Some(Value::Null)),
            Node::Const(_) | Node::Enum(_) => {
                self.pass.judge(self.id, Value::Null, self.depth).map(Some)
            }
            // No rule coerces null; an optional field's null is handled by its object.
            _ => self.pass.fail(self.id, Value::Null, self.depth).map(Some),
        }
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Value>, E> {
        self.visit_unit()
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Option<Value>, E> {
        match self.pass.prog.nodes[self.node] {
            Node::Boolean => Ok(Some(Value::Bool(v))),
            _ => self.mismatch(Value::Bool(v)),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<Value>, E> {
        if v.unsigned_abs() <= EXACT && self.plain_ok(v as f64) {
            return Ok(Some(Value::Number(v.into())));
        }
        self.number(Number::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<Value>, E> {
        if v <= EXACT && self.plain_ok(v as f64) {
            return Ok(Some(Value::Number(v.into())));
        }
        self.number(Number::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<Value>, E> {
        match Number::from_f64(v) {
            // A double is exactly itself: a number field checks it as it is.
            Some(n)
                if matches!(self.pass.prog.nodes[self.node], Node::Number(_))
                    && self.plain_ok(v) =>
            {
                Ok(Some(Value::Number(n)))
            }
            Some(n) => self.number(n),
            None => Err(reject()),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<Value>, E> {
        self.string(v)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Option<Value>, E> {
        match &self.pass.prog.nodes[self.node] {
            Node::String(c) if c.accepts(&v) => Ok(Some(Value::String(v))),
            _ => self.string(&v),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let prog = self.pass.prog;
        let c = match &prog.nodes[self.node] {
            Node::Array(c) => c,
            Node::Const(_) | Node::Enum(_) => {
                let value = self.pass.plain(self.depth).visit_seq(seq)?;
                return self.pass.judge(self.id, value, self.depth).map(Some);
            }
            _ => {
                let value = self.pass.plain(self.depth).visit_seq(seq)?;
                return self.pass.coerce(self.id, value, self.depth).map(Some);
            }
        };
        let depth = self.pass.enter(self.depth)?;
        let mut items = Vec::new();
        // The items are kept when the value is built, and to be compared when they must be
        // unique; otherwise they are only counted.
        let keep = self.pass.keep;
        self.pass.keep |= c.unique;
        let mut count = 0usize;
        // When collecting: where the array's problems start, and whether it breaks a rule of
        // its own (its problems are then those of the run over the whole array).
        let start = self.pass.errors.len();
        let mut whole = false;
        loop {
            let since = self.pass.recorded();
            let item = seq.next_element_seed(Typed {
                pass: &mut *self.pass,
                id: c.items,
                leaf: c.items_leaf,
                depth,
                absent_if_null: false,
            })?;
            match item {
                Some(Some(v)) => {
                    if self.pass.recorded() > since {
                        self.pass.prefix(since, &count.to_string());
                    }
                    count += 1;
                    if self.pass.keep {
                        items.push(v);
                    }
                    if !whole && c.too_many(count as u64) && !self.pass.failed {
                        whole = self.pass.broken()?;
                    }
                }
                Some(None) => return Err(reject()),
                None => break,
            }
        }
        self.pass.keep = keep;
        if !self.pass.failed
            && !whole
            && (c.too_few(count as u64) || (c.unique && equal::first_duplicate(&items).is_some()))
        {
            // The items are as sent (coerced): no default is filled in below (see `Typed`), so
            // they are equal exactly when the items as normalized are.
            whole = self.pass.broken()?;
        }
        let value = Value::Array(items);
        if whole && !self.pass.failed {
            self.pass.errors.truncate(start);
            self.pass.found(self.id, &value, self.depth);
        }
        Ok(Some(value))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let prog = self.pass.prog;
        let c = match &prog.nodes[self.node] {
            Node::Object(c) => c,
            Node::Const(_) | Node::Enum(_) => {
                let value = self.pass.plain(self.depth).visit_map(map)?;
                return self.pass.judge(self.id, value, self.depth).map(Some);
            }
            _ => {
                let value = self.pass.plain(self.depth).visit_map(map)?;
                return self.pass.coerce(self.id, value, self.depth).map(Some);
            }
        };
        let depth = self.pass.enter(self.depth)?;
        let lax = self.pass.lax;
        let n = c.fields.len();
        // The keys go into the output as they were sent; when they are not in the normalized
        // order, or a default is to be filled in, the pass's value is normalized at the end.
        // Sized for the usual small object and one key more: a key the object does not
        // declare is a common slip, or an open object's extra, and growing the map for it
        // copies every entry into a new allocation and rebuilds the hash table. A larger
        // object grows. (Entries are 112 bytes: eight keep the first allocation within the
        // sizes allocators serve fastest.)
        let keep = self.pass.keep;
        let mut out = if keep {
            Map::with_capacity((n + 1).min(8))
        } else {
            // Only the keys the object does not declare go in, to tell a repeated one.
            Map::new()
        };
        // Declared keys sent (for duplicates and required fields), and fields given a value
        // (not a `null` read as absent).
        let mut seen = Bits::new(n);
        let mut given = Bits::new(n);
        // How many required fields were sent.
        let mut required = 0;
        // Fields before `next` have been passed.
        let mut next = 0;
        // How many other keys were sent.
        let mut extras = 0usize;
        let start = self.pass.recorded();
        // The coercions of each key (lax mode), by the key's place (declaration order, then
        // other keys as they came), when there are any: the full run lists them in that order.
        let mut groups: Vec<(usize, usize, usize)> = Vec::new();
        // When collecting, the place of the last key with problems, and whether an earlier
        // one had a later place: the full run lists the problems in the order of the places.
        let mut order = Order::default();
        // How many keys lax mode left out, their `null` read as absent.
        let mut nulls = 0;
        // When collecting, the keys the object does not declare: whether there are any, and
        // which of the first 64 in `out` they are.
        let mut unknown = (false, 0u64);
        // Whether the object breaks a rule across its keys, when collecting.
        let mut whole = false;
        while let Some(key) = map.next_key_seed(KeySeed {
            check: c,
            hint: next,
            keep,
        })? {
            let since = self.pass.recorded();
            match key {
                Key::Field(i, key) => {
                    let f = &c.fields[i];
                    if seen.get(i) {
                        return Err(reject());
                    }
                    seen.set(i);
                    required += usize::from(f.required);
                    // Declared keys out of order, or after another key: reordered.
                    if i < next || extras > 0 {
                        self.pass.normal = false;
                    }
                    next = next.max(i + 1);
                    let value = map.next_value_seed(Typed {
                        pass: &mut *self.pass,
                        id: f.node(),
                        leaf: f.leaf,
                        depth,
                        absent_if_null: f.null_is_absent(lax),
                    })?;
                    match value {
                        Some(v) => {
                            given.set(i);
                            if keep {
                                out.insert(key, v);
                            }
                        }
                        None => {
                            // The default, if any, is filled in by the normalization.
                            self.pass.normal = false;
                            self.pass.originals.push(Original {
                                path: String::new(),
                                coercion: self.pass.coercions.len(),
                                sent: Sent::Null {
                                    key,
                                    at: out.len() + nulls,
                                },
                            });
                            nulls += 1;
                            self.pass.coercions.push(Coercion {
                                path: String::new(),
                                rule: CoercionRule::NullAsAbsent,
                                from: Value::Null,
                                to: f.default.as_deref().cloned(),
                            });
                        }
                    }
                    if self.pass.recorded() > since {
                        self.pass.prefix(since, &f.texts.pointer);
                        if !self.pass.collect {
                            groups.push((i, since, self.pass.recorded()));
                        } else if let Some(v) = out.values().next_back() {
                            self.pass.omits_null(f, v);
                            order.place(i);
                        }
                    }
                }
                Key::Extra(k) => {
                    let at = n + extras;
                    extras += 1;
                    let index = out.len();
                    let slot = match out.entry(k) {
                        serde_json::map::Entry::Vacant(e) => e,
                        serde_json::map::Entry::Occupied(_) => return Err(reject()),
                    };
                    let value = match &c.extra {
                        Extra::Open => map.next_value_seed(self.pass.plain(depth))?,
                        Extra::Closed => {
                            if !self.pass.failed && self.pass.broken()? {
                                unknown.0 = true;
                                if index < 64 {
                                    unknown.1 |= 1 << index;
                                }
                            }
                            map.next_value_seed(self.pass.plain(depth))?
                        }
                        Extra::Schema(node) => map
                            .next_value_seed(Typed {
                                pass: &mut *self.pass,
                                id: *node,
                                leaf: Leaf::Other,
                                depth,
                                absent_if_null: false,
                            })?
                            .ok_or_else(reject)?,
                    };
                    if self.pass.recorded() > since {
                        self.pass.prefix(since, &escape_pointer(slot.key()));
                        if self.pass.collect {
                            order.place(at);
                        } else {
                            groups.push((at, since, self.pass.recorded()));
                        }
                    }
                    slot.insert(value);
                }
            }
        }
        if groups.windows(2).any(|w| w[0].0 > w[1].0) {
            groups.sort_by_key(|g| g.0);
            let recorded = self.pass.coercions.split_off(start);
            for &(_, from, to) in &groups {
                self.pass
                    .coercions
                    .extend_from_slice(&recorded[from - start..to - start]);
            }
        }
        if self.pass.failed {
            // The problems are the full run's to find.
            return Ok(Some(Value::Object(out)));
        }
        if let Some(rules) = c.rules() {
            let count = (0..n).filter(|&i| given.get(i)).count() + extras;
            if !rules.hold(count as u64, |i| given.get(i)) {
                whole = self.pass.broken()?;
            }
        }
        let missing = required < c.required() && self.pass.broken()?;
        if whole {
            // Every problem of the object, as the run over the whole object finds them.
            let value = Value::Object(out);
            self.pass.errors.truncate(start);
            self.pass.found(self.id, &value, self.depth);
            return Ok(Some(value));
        }
        if missing || unknown.0 || order.unordered {
            let object = Object {
                node: self.node,
                check: c,
                root: self.depth == 0,
            };
            self.pass
                .object_errors(object, &out, &seen, (start, order), unknown);
        }
        // Too many fields to tell cheaply whether a default is to be filled in; or a default
        // to fill in (the arguments' own, in order, are filled in at the end, see `read`).
        if n > 64 {
            self.pass.normal = false;
        } else if c.defaults & !given.low != 0 {
            if self.depth == 0 {
                self.pass.root_defaults = Some((c, given.low));
            } else {
                self.pass.normal = false;
            }
        }
        Ok(Some(Value::Object(out)))
    }
}

/// The order of an object's problems as the pass finds them: the place of the last key with
/// problems, and whether a key came after one with a later place.
#[derive(Default, Clone, Copy)]
struct Order {
    last: usize,
    unordered: bool,
}

impl Order {
    fn place(&mut self, at: usize) {
        self.unordered |= at < self.last;
        self.last = at;
    }
}

/// An object whose problems the pass words: its node, its check, and whether it is the
/// arguments themselves.
struct Object<'c> {
    node: NodeId,
    check: &'c ObjectCheck,
    root: bool,
}

/// A set of field indices, without allocating for objects of up to 64 fields.
struct Bits {
    /// Fields `0..64`.
    low: u64,
    /// Fields from 64 on, 64 to a word (empty for smaller objects).
    high: Vec<u64>,
}

impl Bits {
    #[inline]
    fn new(n: usize) -> Self {
        Bits {
            low: 0,
            high: if n > 64 {
                vec![0; (n - 64).div_ceil(64)]
            } else {
                Vec::new()
            },
        }
    }

    #[inline]
    fn get(&self, i: usize) -> bool {
        if i < 64 {
            self.low >> i & 1 != 0
        } else {
            self.high
                .get((i - 64) / 64)
                .is_some_and(|w| w >> (i % 64) & 1 != 0)
        }
    }

    /// The set as an error keeps it, for an object of `n` fields.
    fn present(&self, n: usize) -> Present {
        if n <= 64 {
            Present::Small(self.low)
        } else {
            Present::new(n, |i| self.get(i))
        }
    }

    #[inline]
    fn set(&mut self, i: usize) {
        if i < 64 {
            self.low |= 1 << i;
        } else if let Some(w) = self.high.get_mut((i - 64) / 64) {
            *w |= 1 << (i % 64);
        }
    }
}

/// An object key: the index of a declared field, or another key, with the key as it goes into
/// the output (made from the text, which is in the cache, rather than from the field's name,
/// which may not be).
enum Key {
    Field(usize, String),
    Extra(String),
}

/// Reads a key and looks it up (borrowed from the text when it has no escapes), trying the
/// field after the last one found first: keys usually come in declaration order.
struct KeySeed<'c> {
    check: &'c ObjectCheck,
    hint: usize,
    /// Whether a declared key is copied for the output ([`Pass::keep`]).
    keep: bool,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(match self.check.lookup_from(v, self.hint) {
            Some(i) if !self.keep => Key::Field(i, String::new()),
            Some(i) => Key::Field(i, v.to_owned()),
            None => Key::Extra(v.to_owned()),
        })
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Key, E> {
        Ok(match self.check.lookup_from(&v, self.hint) {
            Some(i) => Key::Field(i, v),
            None => Key::Extra(v),
        })
    }
}

//! Unions (`A | B`): a value is valid when one member takes it. The run tries the members in
//! order and keeps the first that accepts; when none does, it reports the errors of the member
//! the value was meant for (the one a tag names, or the only one of the value's JSON type), or
//! one `no-match`.

use serde_json::Value;

use crate::validate::coerce;
use crate::validate::compile::{Node, NodeId, Program};
use crate::validate::error::{ErrorCode, Problem};
use crate::validate::sink::Sink;
use crate::validate::walk::{self, accepts, Run};

/// A union's members, in order, and the field that tells them apart, if one does.
#[derive(Clone, Debug, Default)]
pub(crate) struct UnionCheck {
    pub members: Box<[NodeId]>,
    /// Boxed, so that a node stays one cache line.
    pub tagged: Option<Box<Tagged>>,
}

/// A union whose members an object's field names (see [`crate::model::Module::discriminator`]).
#[derive(Clone, Debug)]
pub(crate) struct Tagged {
    /// The field that holds the tag.
    pub key: Box<str>,
    /// Each tag and the member it picks, sorted by tag.
    pub members: Box<[(Box<str>, NodeId)]>,
    /// An open object node that requires the tag field, of any tag: it words an unknown or
    /// missing tag.
    pub tags: NodeId,
}

impl Tagged {
    /// The only member that can take `value`, or `None` when no member can: every member is
    /// an object that requires the tag field to be its own string, and no coercion turns a
    /// string into another string. In lax mode's second try (`coercing`) a number tag may be
    /// coerced to the string of its digits.
    fn member(&self, value: &Value, coercing: bool) -> Option<NodeId> {
        let number;
        let tag = match value.as_object()?.get(&*self.key)? {
            Value::String(s) => s.as_str(),
            Value::Number(n) if coercing => {
                number = coerce::string_from_number(n);
                number.as_str()
            }
            _ => return None,
        };
        self.pick(tag)
    }

    /// The member tag `tag` picks.
    fn pick(&self, tag: &str) -> Option<NodeId> {
        let i = self
            .members
            .binary_search_by(|(t, _)| (**t).cmp(tag))
            .ok()?;
        Some(self.members[i].1)
    }
}

impl UnionCheck {
    /// The members that may take `value`, in order: all of them, or in a union told apart by a
    /// field, the one its tag picks (`coercing`: for lax mode's second try). Trying every
    /// member of a long tagged union made each value cost the length of the union.
    #[inline]
    pub(crate) fn candidates(&self, value: &Value, coercing: bool) -> Candidates<'_> {
        match &self.tagged {
            Some(tagged) => Candidates::One(tagged.member(value, coercing)),
            None => Candidates::All(self.members.iter()),
        }
    }

    /// Normalizes an accepted value as the first member that accepts it normalizes it (the
    /// member the full run picks).
    pub(crate) fn normalize(&self, prog: &Program, value: &mut Value, fill: bool) {
        let first = self
            .candidates(value, false)
            .find(|&m| accepts(prog, m, value));
        if let Some(m) = first {
            walk::normalize(prog, m, value, fill);
        }
    }
}

/// The members [`UnionCheck::candidates`] yields.
pub(crate) enum Candidates<'u> {
    All(std::slice::Iter<'u, NodeId>),
    One(Option<NodeId>),
}

impl Iterator for Candidates<'_> {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        match self {
            Candidates::All(members) => members.next().copied(),
            Candidates::One(member) => member.take(),
        }
    }
}

impl<'p, S: Sink> Run<'p, S> {
    /// The first of `members` that a run of kind `T` accepts `value` as, with its coercions
    /// kept; the members' problems are not.
    fn first_member<T: Sink>(
        &mut self,
        members: impl Iterator<Item = NodeId>,
        value: &Value,
    ) -> Option<Value> {
        for m in members {
            let mut trial: Run<'p, T> = self.fresh();
            if let Some(v) = trial.walk(m, value) {
                if trial.errors.is_empty() {
                    self.coercions.extend(trial.coercions);
                    return Some(v);
                }
            }
        }
        None
    }

    /// A union's run over `value`: the first member that takes it (in lax mode, first without
    /// coercion); when none does, the errors of the member the value was most likely meant for,
    /// or one `no-match`.
    pub(in crate::validate) fn any_of(
        &mut self,
        id: NodeId,
        union: &UnionCheck,
        value: &Value,
    ) -> Option<Value> {
        // A strict run that builds nothing only needs to know whether a member accepts the
        // value (the fast check is exactly that); the members' problems are not reported.
        let prog = self.prog();
        if !S::BUILD && !S::LAX {
            if union
                .candidates(value, false)
                .any(|m| accepts(prog, m, value))
            {
                return Some(Value::Null);
            }
        } else {
            // Without coercion first, so that lax mode prefers a member the value already fits.
            // A member takes the value without coercion exactly when the fast check accepts it,
            // so only such a member is walked (walking each in turn made an invalid value cost
            // a full run per member).
            let exact = union
                .candidates(value, false)
                .filter(|&m| accepts(prog, m, value));
            if let Some(v) = self.first_member::<S::Exact>(exact, value) {
                return Some(v);
            }
            if S::LAX {
                let coercing = union.candidates(value, true);
                if let Some(v) = self.first_member::<S::Coercing>(coercing, value) {
                    return Some(v);
                }
            }
        }
        // A union told apart by a field: the member the tag picks has the useful errors, and a
        // missing or unknown tag is the error, with the tags listed.
        if let (Some(tagged), Value::Object(_)) = (union.tagged.as_deref(), value) {
            let errors_before = self.errors.len();
            match tagged.member(value, false) {
                Some(member) => {
                    self.walk(member, value);
                }
                None => {
                    self.walk(tagged.tags, value);
                }
            }
            if self.errors.len() > errors_before {
                return None;
            }
        }
        // When exactly one member has the value's JSON type, its errors are the useful ones.
        let mut same_kind = union
            .members
            .iter()
            .copied()
            .filter(|&m| node_kind_matches(self.prog(), m, value));
        if let (Some(only), None) = (same_kind.next(), same_kind.next()) {
            let errors_before = self.errors.len();
            self.walk(only, value);
            if self.errors.len() > errors_before {
                return None;
            }
        }
        self.fail(id, ErrorCode::NoMatch, value, Problem::NoMatch);
        None
    }
}

/// Whether `value` has the JSON type node `id` is about (for picking a union member to blame).
fn node_kind_matches(prog: &Program, id: NodeId, value: &Value) -> bool {
    match (&prog.nodes[id], value) {
        (Node::Ref(t), _) => node_kind_matches(prog, *t, value),
        (Node::Integer(_) | Node::Number(_), Value::Number(_))
        | (Node::String(_), Value::String(_))
        | (Node::Boolean, Value::Bool(_))
        | (Node::Null, Value::Null)
        | (Node::Array(_), Value::Array(_))
        | (Node::Object(_), Value::Object(_)) => true,
        (Node::Nullable(inner), _) => node_kind_matches(prog, *inner, value),
        _ => false,
    }
}

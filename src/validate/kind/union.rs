//! Unions (`A | B`): a value is valid when one member takes it. The run tries the members in
//! order and keeps the first that accepts; when none does, it reports the errors of the member
//! the value was meant for (the one a tag names, or the only one of the value's JSON type), or
//! one `no-match`.

use serde_json::Value;

use crate::validate::compile::{Node, NodeId, Program};
use crate::validate::error::{ErrorCode, Problem};
use crate::validate::sink::Sink;
use crate::validate::walk::{self, accepts, Run};

/// Normalizes an accepted value as the first member that accepts it normalizes it (the member
/// the full run picks).
pub(crate) fn normalize(prog: &Program, members: &[NodeId], value: &mut Value, fill: bool) {
    if let Some(&m) = members.iter().find(|&&m| accepts(prog, m, value)) {
        walk::normalize(prog, m, value, fill);
    }
}

impl<'p, S: Sink> Run<'p, S> {
    /// The first of `members` that a run of kind `T` accepts `value` as, with its coercions
    /// kept; the members' problems are not.
    fn first_member<T: Sink>(&mut self, members: &[NodeId], value: &Value) -> Option<Value> {
        for &m in members {
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
        members: &[NodeId],
        value: &Value,
    ) -> Option<Value> {
        // A strict run that builds nothing only needs to know whether a member accepts the
        // value (the fast check is exactly that); the members' problems are not reported.
        if !S::BUILD && !S::LAX {
            if members.iter().any(|&m| accepts(self.prog(), m, value)) {
                return Some(Value::Null);
            }
        } else {
            // Without coercion first, so that lax mode prefers a member the value already fits.
            if let Some(v) = self.first_member::<S::Exact>(members, value) {
                return Some(v);
            }
            if S::LAX {
                if let Some(v) = self.first_member::<S::Coercing>(members, value) {
                    return Some(v);
                }
            }
        }
        // A union told apart by a field: the member the tag picks has the useful errors, and a
        // missing or unknown tag is the error, with the tags listed.
        if let (Some(tagged), Value::Object(map)) = (self.prog().tagged(id), value) {
            let tag = map.get(&*tagged.key);
            let errors_before = self.errors.len();
            let picked = tag.and_then(Value::as_str).and_then(|t| {
                tagged
                    .members
                    .iter()
                    .find(|(name, _)| &**name == t)
                    .map(|(_, m)| *m)
            });
            match picked {
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
        let mut same_kind = members
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

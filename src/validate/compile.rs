//! Compiling a tool's parameters into a flat, immutable graph of checks: numbers and lengths
//! read once, regexes built once, object keys indexed, named types shared (recursive types point
//! back into the graph).
//!
//! The nodes' compiled forms live by kind in `kind/` (numbers, strings, enums and literals,
//! arrays and tuples, objects and maps); this file holds the graph and the compiler.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::model::*;
use crate::pattern::Patterns;

pub(crate) use super::kind::array::ArrayCheck;
pub(crate) use super::kind::choice::EnumCheck;
pub(crate) use super::kind::keys::same_str;
pub(crate) use super::kind::number::NumberCheck;
pub(crate) use super::kind::object::{
    Aside, Extra, FieldCheck, FieldTexts, KeyGroupCheck, KeyRulesCheck, ObjectCheck,
};
pub(crate) use super::kind::string::StringCheck;
pub(crate) use super::kind::union::{Tagged, UnionCheck};
use super::message;

/// An index into [`Program::nodes`].
pub(crate) type NodeId = usize;

/// A compiled type: one cache line (what a check reads of a node is in the node; what is large
/// or rarely read is behind a pointer), aligned so that a node never straddles two.
#[derive(Clone, Debug)]
#[repr(align(64))]
pub(crate) enum Node {
    Any,
    /// No value (`never`).
    Never,
    Null,
    Boolean,
    Integer(NumberCheck),
    Number(NumberCheck),
    String(StringCheck),
    Const(Box<Value>),
    Enum(EnumCheck),
    Array(ArrayCheck),
    Object(ObjectCheck),
    Nullable(NodeId),
    AnyOf(UnionCheck),
    /// Another node (a named type); always points at a node that is not a `Ref`.
    Ref(NodeId),
}

/// A node that is a scalar type without constraints (`string`, `boolean`, `integer`,
/// `number`), recorded where it is used so that the fast check accepts a value of that kind
/// without looking the node up. `Other` for every other node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leaf {
    Other,
    String,
    Boolean,
    Integer,
    Number,
}

impl Leaf {
    /// Whether `value` is certainly valid for the node; `false` means "ask the node".
    #[inline(always)]
    pub(crate) fn accepts(self, value: &Value) -> bool {
        match (self, value) {
            (Leaf::String, Value::String(_))
            | (Leaf::Boolean, Value::Bool(_))
            | (Leaf::Number, Value::Number(_)) => true,
            // Integral doubles (`2.0`) are integers too; the node decides those.
            (Leaf::Integer, Value::Number(n)) => n.is_i64() || n.is_u64(),
            _ => false,
        }
    }
}

/// The compiled graph and the texts messages use: immutable, and shared by the validator and
/// the errors it returns. A validator holds it by value, so that its nodes are one pointer away
/// (a call for a tool whose program is cold in the cache pays a miss for each pointer it follows
/// before it reaches the nodes).
// In this order (what checks read first), for the validator's layout.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct Program {
    pub nodes: Arc<[Node]>,
    /// Whether normalizing a value of each node may fill in a default (an object with a
    /// defaulted field is reachable from it), computed once when compiling.
    pub fills: Arc<[bool]>,
    /// What each node expects, in words (`integer 1..14`).
    pub expected: Arc<[String]>,
}

impl Program {
    /// Leaves `@format` an annotation: no string is checked against its format any more.
    pub(crate) fn drop_formats(&mut self) {
        for node in Arc::make_mut(&mut self.nodes).iter_mut() {
            if let Node::String(c) = node {
                c.format = None;
            }
        }
    }
}

/// A pattern that does not compile (the checker reports these; a model built by hand may have
/// them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern.
    pub pattern: String,
    /// The regex crate's complaint.
    pub reason: String,
}

pub(crate) struct Compiler<'m> {
    module: &'m Module,
    /// The nodes compiled so far, and what each expects in words.
    nodes: Vec<Node>,
    expected: Vec<String>,
    /// The node of each named type met so far, by [`TypeId`].
    named: Vec<Option<NodeId>>,
    /// Named types met whose bodies are not compiled yet: each one's node, and its id.
    pending: Vec<(NodeId, TypeId)>,
    pub errors: Vec<PatternError>,
    /// The patterns compiled so far, under the budget of one validator.
    patterns: Patterns,
    /// Whether the texts messages use are written (see [`Compiler::without_texts`]).
    texts: bool,
    /// Whether `@format` is checked (see [`Compiler::formats`]).
    formats: Formats,
}

impl<'m> Compiler<'m> {
    pub(super) fn new(module: &'m Module) -> Self {
        Compiler {
            module,
            nodes: Vec::new(),
            expected: Vec::new(),
            named: vec![None; module.types.len()],
            pending: Vec::new(),
            errors: Vec::new(),
            patterns: Patterns::default(),
            texts: true,
            formats: Formats::Assert,
        }
    }

    /// The same compiler, checking `@format` or leaving it an annotation.
    pub(super) fn formats(mut self, formats: Formats) -> Self {
        self.formats = formats;
        self
    }

    /// A compiler that leaves the texts of messages empty: for a program that only gives a
    /// verdict ([`super::walk::accepts`]), never an error.
    pub(super) fn without_texts(module: &'m Module) -> Self {
        Compiler {
            texts: false,
            ..Compiler::new(module)
        }
    }

    /// What `ty` is called in messages (empty when this compiler writes no texts).
    fn text(&self, ty: &Ty) -> String {
        if self.texts {
            message::type_text(self.module, ty)
        } else {
            String::new()
        }
    }

    pub(super) fn finish(mut self) -> Program {
        self.break_empty_cycles();
        set_leaves(&mut self.nodes);
        Program {
            fills: fills(&self.nodes).into(),
            nodes: self.nodes.into(),
            expected: self.expected.into(),
        }
    }

    fn push(&mut self, node: Node, expected: String) -> NodeId {
        self.nodes.push(node);
        self.expected.push(expected);
        self.nodes.len() - 1
    }

    /// Compiles a tool's parameters, and every named type they use.
    pub(super) fn object(&mut self, o: &ObjectTy) -> NodeId {
        let expected = if o.is_map() { "map" } else { "object" };
        let id = self.push(Node::Any, expected.into());
        let node = self.object_node(o);
        self.nodes[id] = node;
        self.compile_pending();
        id
    }

    /// Compiles `ty`, and every named type it uses.
    pub(super) fn ty(&mut self, ty: &Ty) -> NodeId {
        let id = self.node(ty);
        self.compile_pending();
        id
    }

    /// Compiles the bodies of the named types met so far, and of those they meet in turn. Each
    /// body is compiled on its own, so the compiler's recursion follows one type's nesting
    /// (bounded by the syntax), never a chain of named types: a chain of thousands, each
    /// recursive, passes the checker (each is emitted once) and overflowed the stack here.
    fn compile_pending(&mut self) {
        while let Some((slot, id)) = self.pending.pop() {
            let body = self.node(&self.module.types[id.0].ty);
            self.nodes[slot] = Node::Ref(body);
        }
    }

    fn object_node(&mut self, o: &ObjectTy) -> Node {
        let mut fields = Vec::with_capacity(o.fields.len());
        let indexed = o.fields.len() > ObjectCheck::SCAN_FIELDS;
        let mut index = HashMap::with_capacity(if indexed { o.fields.len() } else { 0 });
        for f in &o.fields {
            let node = self.node(&f.ty);
            // The node's own text is the field type's text, except for a named type, whose node
            // is called by its name (an enum's text lists its values).
            let type_text = match f.ty {
                Ty::Ref(_) => self.text(&f.ty),
                _ => self.expected[node].clone(),
            };
            if indexed {
                index.insert(f.name.clone(), fields.len());
            }
            let texts = FieldTexts {
                pointer: super::error::escape_pointer(&f.name).into_owned(),
                type_text,
                description: f.description.clone(),
            };
            fields.push(FieldCheck::new(
                &f.name,
                node,
                texts,
                f.default.clone(),
                f.required,
                self.module.accepts_null(&f.ty),
            ));
        }
        let extra = match &o.additional {
            Additional::Closed => Extra::Closed,
            Additional::Open => Extra::Open,
            Additional::Schema(t) => Extra::Schema(self.node(t)),
        };
        let aside = Aside {
            index: indexed.then_some(index),
            rules: key_rules(&o.rules, &fields),
        };
        let aside = (aside.index.is_some() || aside.rules.is_some()).then(|| Box::new(aside));
        Node::Object(ObjectCheck::new(fields.into(), aside, extra))
    }

    /// The node of `ty`, with the named types it meets left for [`Compiler::compile_pending`].
    fn node(&mut self, ty: &Ty) -> NodeId {
        let expected = self.text(ty);
        let node = match ty {
            Ty::Any => Node::Any,
            Ty::Never => Node::Never,
            Ty::Null => Node::Null,
            Ty::Boolean => Node::Boolean,
            Ty::Integer(r) => Node::Integer(NumberCheck::new(r)),
            Ty::Number(r) => Node::Number(NumberCheck::new(r)),
            Ty::String(r) => {
                let pattern =
                    r.pattern
                        .as_ref()
                        .and_then(|p| match self.patterns.compile(&p.value) {
                            Ok(re) => Some(re),
                            Err(e) => {
                                self.errors.push(PatternError {
                                    pattern: p.value.clone(),
                                    reason: e.to_string(),
                                });
                                None
                            }
                        });
                Node::String(StringCheck {
                    min_length: r.min_length.as_ref().map(|s| s.value),
                    max_length: r.max_length.as_ref().map(|s| s.value),
                    pattern,
                    format: r
                        .format
                        .as_ref()
                        .map(|f| f.value)
                        .filter(|_| self.formats == Formats::Assert),
                })
            }
            Ty::Const(v) => Node::Const(Box::new(v.clone())),
            Ty::Enum(members) => Node::Enum(EnumCheck::new(
                members.iter().map(|m| m.value.clone()).collect(),
            )),
            Ty::Array(a) => {
                let id = self.push(Node::Any, expected);
                let items = self.node(&a.items);
                self.nodes[id] = Node::Array(ArrayCheck {
                    prefix: Box::default(),
                    items,
                    min_items: a.min_items.as_ref().map_or(0, |s| s.value),
                    max_items: a.max_items.as_ref().map(|s| s.value),
                    unique: a.unique.as_ref().is_some_and(|u| u.value),
                    items_leaf: Leaf::Other,
                });
                return id;
            }
            Ty::Tuple(t) => {
                let id = self.push(Node::Any, expected);
                let prefix: Box<[NodeId]> = t.items.iter().map(|i| self.node(i)).collect();
                let items = match &t.rest {
                    // `max_items` below stops extra items, with one error for all of them.
                    Additional::Closed => self.push(Node::Any, "any".into()),
                    Additional::Open => self.push(Node::Any, "any".into()),
                    Additional::Schema(r) => self.node(r),
                };
                let min = t.min_len();
                self.nodes[id] = Node::Array(ArrayCheck {
                    prefix,
                    items,
                    min_items: min,
                    max_items: t.max_len(),
                    unique: t.unique.as_ref().is_some_and(|u| u.value),
                    items_leaf: Leaf::Other,
                });
                return id;
            }
            Ty::Object(o) => {
                let id = self.push(Node::Any, expected);
                let node = self.object_node(o);
                self.nodes[id] = node;
                return id;
            }
            Ty::Ref(tid) => return self.named(*tid),
            Ty::Nullable(inner) => {
                let id = self.push(Node::Any, expected);
                let inner = self.node(inner);
                self.nodes[id] = Node::Nullable(inner);
                return id;
            }
            Ty::AnyOf(members) => {
                let id = self.push(Node::Any, expected);
                let nodes = self.members(members);
                let mut tagged = None;
                if let Some((key, tags)) = self.module.discriminator(members) {
                    let all = Ty::Enum(
                        tags.iter()
                            .map(|t| crate::model::EnumMember {
                                value: Value::from(*t),
                                description: None,
                            })
                            .collect(),
                    );
                    // An open object that requires the tag field, of any tag: checked against
                    // it, a value without the tag is missing it and a wrong tag is not one of
                    // them, each worded as everywhere else.
                    let tag_only = crate::model::ObjectTy {
                        fields: vec![crate::model::Field {
                            name: key.to_string(),
                            description: None,
                            required: true,
                            ty: all,
                            default: None,
                            examples: Vec::new(),
                            deprecated: false,
                            span: Default::default(),
                        }],
                        additional: crate::model::Additional::Open,
                        rules: crate::model::KeyRules::default(),
                    };
                    let tags_node = self.node(&Ty::Object(Box::new(tag_only)));
                    let mut members: Vec<(Box<str>, NodeId)> = tags
                        .iter()
                        .map(|t| Box::from(*t))
                        .zip(nodes.iter().copied())
                        .collect();
                    // By tag, for [`Tagged::member`] (the tags are distinct).
                    members.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                    tagged = Some(Box::new(Tagged {
                        key: key.into(),
                        members: members.into(),
                        tags: tags_node,
                    }));
                }
                self.nodes[id] = Node::AnyOf(UnionCheck {
                    members: nodes,
                    tagged,
                });
                return id;
            }
        };
        self.push(node, expected)
    }

    /// A union's members, in order. A run of more than [`EnumCheck::SCANNED`] literals and
    /// enums becomes one enum node with their values in order: trying thousands of literals
    /// one by one made a value's check cost the length of the union. The enum takes a value
    /// exactly when one of the run's members does, and in lax mode coerces it to the first
    /// member it coerces to, as trying them in order would.
    fn members(&mut self, members: &[Ty]) -> Box<[NodeId]> {
        let mut nodes = Vec::with_capacity(members.len());
        let mut rest = members;
        while let Some(first) = rest.first() {
            let run = rest
                .iter()
                .position(|m| !matches!(m, Ty::Const(_) | Ty::Enum(_)))
                .unwrap_or(rest.len());
            let values: usize = rest[..run]
                .iter()
                .map(|m| match m {
                    Ty::Enum(values) => values.len(),
                    _ => 1,
                })
                .sum();
            if values > EnumCheck::SCANNED {
                let folded = rest[..run]
                    .iter()
                    .flat_map(|m| match m {
                        Ty::Enum(values) => values.clone(),
                        Ty::Const(value) => vec![EnumMember {
                            value: value.clone(),
                            description: None,
                        }],
                        _ => Vec::new(),
                    })
                    .collect();
                nodes.push(self.node(&Ty::Enum(folded)));
                rest = &rest[run..];
            } else {
                nodes.push(self.node(first));
                rest = &rest[1..];
            }
        }
        nodes.into()
    }

    /// A named type's node, made once: a reference to its body, which
    /// [`Compiler::compile_pending`] compiles (a reference cycle points back at this node).
    fn named(&mut self, id: TypeId) -> NodeId {
        if let Some(&Some(node)) = self.named.get(id.0) {
            return node;
        }
        let Some(named) = self.module.types.get(id.0) else {
            return self.push(Node::Any, "any".into());
        };
        let slot = self.push(Node::Any, named.name.clone());
        if let Some(entry) = self.named.get_mut(id.0) {
            *entry = Some(slot);
        }
        self.pending.push((slot, id));
        slot
    }

    /// Points every `Ref` at a node that is not a `Ref`, and cuts cycles that consume no input
    /// (`type A = A | string`), so that validation always terminates.
    fn break_empty_cycles(&mut self) {
        let n = self.nodes.len();
        // Collapse chains of references.
        for i in 0..n {
            let mut target = i;
            let mut steps = 0;
            while let Node::Ref(next) = self.nodes[target] {
                target = next;
                steps += 1;
                if steps > n {
                    break;
                }
            }
            if steps > n {
                // `type A = B; type B = A` (the checker rejects it): no value.
                self.nodes[i] = Node::AnyOf(UnionCheck::default());
            } else if target != i {
                self.nodes[i] = Node::Ref(target);
            }
        }
        // Find cycles through nodes that do not descend into the value.
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        let mut marks = vec![Mark::New; n];
        let mut bad = vec![false; n];
        for start in 0..n {
            if marks[start] != Mark::New {
                continue;
            }
            let mut stack: Vec<(NodeId, usize)> = vec![(start, 0)];
            marks[start] = Mark::Active;
            while let Some(&(node, next)) = stack.last() {
                let child = match &self.nodes[node] {
                    Node::Nullable(c) | Node::Ref(c) => (next == 0).then_some(*c),
                    Node::AnyOf(u) => u.members.get(next).copied(),
                    _ => None,
                };
                match child {
                    Some(child) => {
                        if let Some(top) = stack.last_mut() {
                            top.1 += 1;
                        }
                        match marks[child] {
                            Mark::New => {
                                marks[child] = Mark::Active;
                                stack.push((child, 0));
                            }
                            Mark::Active => {
                                let from = stack.iter().position(|&(s, _)| s == child).unwrap_or(0);
                                for &(on_stack, _) in &stack[from..] {
                                    bad[on_stack] = true;
                                }
                            }
                            Mark::Done => {}
                        }
                    }
                    None => {
                        marks[node] = Mark::Done;
                        stack.pop();
                    }
                }
            }
        }
        // Cut the edges that close a cycle, which is what the least fixed point means:
        // `type A = A | string` is `string`, `type A = A | null` is `null`.
        for i in 0..n {
            if !bad[i] {
                continue;
            }
            match &mut self.nodes[i] {
                Node::AnyOf(u) => {
                    u.members = u.members.iter().copied().filter(|m| !bad[*m]).collect()
                }
                Node::Nullable(inner) if bad[*inner] => self.nodes[i] = Node::Null,
                _ => {}
            }
        }
        // Point every edge past the references (each now points at a node that is not one),
        // so that a run never visits a `Ref` below the root. Messages are unchanged: a
        // reference's own text is never shown.
        let target: Vec<NodeId> = (0..n)
            .map(|i| match self.nodes[i] {
                Node::Ref(t) => t,
                _ => i,
            })
            .collect();
        let resolve = |id: &mut NodeId| {
            if let Some(&t) = target.get(*id) {
                *id = t;
            }
        };
        for node in &mut self.nodes {
            match node {
                Node::Array(a) => {
                    resolve(&mut a.items);
                    a.prefix.iter_mut().for_each(resolve);
                }
                Node::Object(o) => {
                    for f in o.fields.iter_mut() {
                        let mut id = f.node();
                        resolve(&mut id);
                        f.set_node(id);
                    }
                    if let Extra::Schema(s) = &mut o.extra {
                        resolve(s);
                    }
                }
                Node::Nullable(inner) => resolve(inner),
                Node::AnyOf(u) => u.members.iter_mut().for_each(resolve),
                _ => {}
            }
        }
    }
}

/// What node `id` is, as a [`Leaf`].
fn leaf(nodes: &[Node], id: NodeId) -> Leaf {
    let plain = |c: &NumberCheck| {
        let b = &c.exact;
        b.minimum.is_none()
            && b.maximum.is_none()
            && b.exclusive_minimum.is_none()
            && b.exclusive_maximum.is_none()
            && b.multiple_of.is_none()
    };
    // A `Ref` always points at a node that is not one.
    let id = match nodes.get(id) {
        Some(Node::Ref(t)) => *t,
        _ => id,
    };
    match nodes.get(id) {
        Some(Node::String(c))
            if c.min_length.is_none()
                && c.max_length.is_none()
                && c.pattern.is_none()
                && c.format.is_none() =>
        {
            Leaf::String
        }
        Some(Node::Boolean) => Leaf::Boolean,
        Some(Node::Integer(c)) if plain(c) => Leaf::Integer,
        Some(Node::Number(c)) if plain(c) => Leaf::Number,
        _ => Leaf::Other,
    }
}

/// Records, in every object field and array, what its node is as a [`Leaf`].
fn set_leaves(nodes: &mut [Node]) {
    for i in 0..nodes.len() {
        match &nodes[i] {
            Node::Object(c) => {
                let leaves: Vec<Leaf> = c.fields.iter().map(|f| leaf(nodes, f.node())).collect();
                if let Node::Object(c) = &mut nodes[i] {
                    for (f, l) in c.fields.iter_mut().zip(leaves) {
                        f.leaf = l;
                    }
                }
            }
            Node::Array(c) => {
                let l = leaf(nodes, c.items);
                if let Node::Array(c) = &mut nodes[i] {
                    c.items_leaf = l;
                }
            }
            _ => {}
        }
    }
}

/// [`Program::fills`]: a least fixed point, raised until nothing changes (each round is one pass
/// over the nodes; cycles through named types settle because the flags only ever turn on).
fn fills(nodes: &[Node]) -> Vec<bool> {
    let mut fills = vec![false; nodes.len()];
    loop {
        let mut changed = false;
        for (i, node) in nodes.iter().enumerate() {
            if fills[i] {
                continue;
            }
            let fill = match node {
                Node::Ref(t) | Node::Nullable(t) => fills[*t],
                Node::AnyOf(u) => u.members.iter().any(|&m| fills[m]),
                Node::Array(c) => fills[c.items] || c.prefix.iter().any(|&p| fills[p]),
                Node::Object(c) => {
                    c.fields
                        .iter()
                        .any(|f| f.default.is_some() || fills[f.node()])
                        || matches!(c.extra, Extra::Schema(n) if fills[n])
                }
                _ => false,
            };
            if fill {
                fills[i] = true;
                changed = true;
            }
        }
        if !changed {
            return fills;
        }
    }
}

/// The rules across an object's keys with its fields by index (`None` without rules). The
/// checker makes sure every name is a declared field; one that is not (a model built by hand)
/// names no field, and counts as never given.
fn key_rules(rules: &KeyRules, fields: &[FieldCheck]) -> Option<KeyRulesCheck> {
    if rules.is_empty() {
        return None;
    }
    let index = |name: &str| {
        fields
            .iter()
            .position(|f| *f.name == *name)
            .unwrap_or(usize::MAX)
    };
    let all = |names: &[String]| names.iter().map(|n| index(n)).collect();
    let groups = rules
        .groups
        .iter()
        .map(|g| match &g.value {
            KeyGroup::ExactlyOneOf(names) => KeyGroupCheck::ExactlyOneOf(all(names)),
            KeyGroup::AtMostOneOf(names) => KeyGroupCheck::AtMostOneOf(all(names)),
            KeyGroup::Requires { key, needs } => KeyGroupCheck::Requires {
                key: index(key),
                needs: all(needs),
            },
        })
        .collect();
    Some(KeyRulesCheck {
        min_keys: rules.min_properties.as_ref().map_or(0, |n| n.value),
        max_keys: rules.max_properties.as_ref().map(|n| n.value),
        groups,
    })
}

#[cfg(test)]
mod tests {
    /// What the doc of [`super::Node`] promises: a node is one cache line, on a line's start.
    #[test]
    fn nodes_are_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Node>(), 64);
        assert_eq!(std::mem::align_of::<super::Node>(), 64);
    }
}

//! Compiling a tool's parameters into a flat, immutable graph of checks: numbers and lengths
//! read once, regexes built once, object keys indexed, named types shared (recursive types point
//! back into the graph).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::model::*;
use crate::pattern::Pattern;

pub(crate) use super::kind::number::NumberCheck;
pub(crate) use super::kind::string::StringCheck;
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
    AnyOf(Box<[NodeId]>),
    /// Another node (a named type); always points at a node that is not a `Ref`.
    Ref(NodeId),
}

/// An array or a tuple: items at positions `0..prefix.len()` are checked against `prefix`, the
/// others against `items` (a closed tuple's `max_items` is at most the number of its positional
/// items, so its `items` is never reached).
#[derive(Clone, Debug)]
pub(crate) struct ArrayCheck {
    pub prefix: Box<[NodeId]>,
    pub items: NodeId,
    /// 0 when there is no `@min_items`.
    pub min_items: u64,
    pub max_items: Option<u64>,
    pub unique: bool,
    /// What `items` is when it is a plain scalar (set when compiling is finished).
    pub items_leaf: Leaf,
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

#[derive(Clone, Debug)]
pub(crate) enum Extra {
    Closed,
    Open,
    Schema(NodeId),
}

/// A declared field. What every check reads is kept small (a field record fits in one cache
/// line), and what only errors and messages read is behind a box: when each call is for another
/// tool, the records are read cold, and every line they span is a miss.
#[derive(Clone, Debug)]
pub(crate) struct FieldCheck {
    pub name: Box<str>,
    /// The name's bytes when it has at most 16 (the rest zeros): a key is matched against the
    /// record alone, without reading the name, which lives in a cache line of its own.
    inline: [u8; 16],
    pub default: Option<Box<Value>>,
    /// The texts of errors and messages.
    pub texts: Box<FieldTexts>,
    /// The field's type, as a [`NodeId`] in 32 bits to keep the record in one line.
    node: u32,
    pub required: bool,
    /// What `node` is when it is a plain scalar (set when compiling is finished).
    pub leaf: Leaf,
    /// Whether `null` is a valid value of the type (nullable, `any`, `null`, or a union or enum
    /// that contains it); lax mode reads `null` as "absent" only for fields where it is not.
    pub accepts_null: bool,
}

/// The bytes of a name of at most 16 bytes, zeros after them; all zeros for a longer one.
fn inline_name(name: &str) -> [u8; 16] {
    let mut inline = [0; 16];
    if let Some(to) = inline.get_mut(..name.len()) {
        to.copy_from_slice(name.as_bytes());
    }
    inline
}

/// A node id in the 32 bits a field record keeps. A program's nodes number fewer than 2^32: each
/// takes 64 bytes (256 GiB for 2^32), and each comes from a type written in the source (named
/// types are compiled once), so the source would be longer still.
fn node_u32(id: NodeId) -> u32 {
    u32::try_from(id).unwrap_or(u32::MAX)
}

/// What errors and messages say of a field.
#[derive(Clone, Debug)]
pub(crate) struct FieldTexts {
    /// The field's name as a JSON pointer segment.
    pub pointer: String,
    /// `name?: type` for messages.
    pub type_text: String,
    pub description: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct ObjectCheck {
    pub fields: Box<[FieldCheck]>,
    /// Field indices by name, for objects of more than [`SCAN_FIELDS`] fields (smaller ones are
    /// scanned, which is faster than hashing the key).
    // Boxed: a map is six words, and the node must stay in one cache line.
    #[allow(clippy::box_collection)]
    pub index: Option<Box<HashMap<String, usize>>>,
    pub extra: Extra,
    /// How many fields are required.
    pub required: usize,
    /// Bit `i` for each field `i` (of the first 64) that has a default.
    pub defaults: u64,
}

impl FieldCheck {
    /// The field's type.
    #[inline(always)]
    pub(crate) fn node(&self) -> NodeId {
        self.node as NodeId
    }

    /// The name as an object key of a value.
    pub(crate) fn key(&self) -> String {
        String::from(&*self.name)
    }

    /// Whether the field is called `s`: a name of at most 16 bytes is compared with the copy
    /// of its bytes in the record, a longer one with the name itself.
    #[inline(always)]
    pub(crate) fn is_named(&self, s: &str) -> bool {
        let n = s.len();
        if n != self.name.len() {
            return false;
        }
        match self.inline.get(..n) {
            Some(short) => same_bytes(short, s.as_bytes()),
            None => *self.name == *s,
        }
    }
}

impl ArrayCheck {
    /// The node that checks the item at `index`.
    pub(crate) fn item(&self, index: usize) -> NodeId {
        self.prefix.get(index).copied().unwrap_or(self.items)
    }
}

/// Objects with at most this many fields look keys up by scanning their fields.
const SCAN_FIELDS: usize = 16;

impl ObjectCheck {
    /// The index of the field called `key`, trying `hint` first (keys usually come in
    /// declaration order, some left out).
    #[inline(always)]
    pub(crate) fn lookup_from(&self, key: &str, hint: usize) -> Option<usize> {
        self.field_from(key, hint).map(|(i, _)| i)
    }

    /// [`ObjectCheck::lookup_from`] with the field.
    #[inline(always)]
    pub(crate) fn field_from(&self, key: &str, hint: usize) -> Option<(usize, &FieldCheck)> {
        match self.fields.get(hint) {
            Some(f) if f.is_named(key) => Some((hint, f)),
            _ => {
                let i = self.lookup_after(key, hint)?;
                Some((i, self.fields.get(i)?))
            }
        }
    }

    /// [`ObjectCheck::lookup_from`] when the hint is not the key: small objects are scanned
    /// from the hint on (fields left out), then from the start.
    #[inline(never)]
    fn lookup_after(&self, key: &str, hint: usize) -> Option<usize> {
        if self.fields.len() > SCAN_FIELDS {
            return self.index.as_ref().and_then(|i| i.get(key)).copied();
        }
        let hint = hint.min(self.fields.len());
        let (head, tail) = self.fields.split_at(hint);
        if let Some(i) = tail.iter().position(|f| f.is_named(key)) {
            return Some(hint + i);
        }
        head.iter().position(|f| f.is_named(key))
    }

    /// The index of the field called `key`: a scan for small objects (faster than hashing the
    /// key), the hash index for large ones.
    pub(crate) fn lookup(&self, key: &str) -> Option<usize> {
        if self.fields.len() <= SCAN_FIELDS {
            self.fields.iter().position(|f| f.is_named(key))
        } else {
            self.index.as_ref().and_then(|i| i.get(key)).copied()
        }
    }
}

#[inline(always)]
fn word4(s: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[at..at + 4]);
    u32::from_ne_bytes(w)
}

#[inline(always)]
fn word8(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_ne_bytes(w)
}

/// Whether two strings are equal: short ones (most keys and enum values) compared with a few
/// word loads instead of a call to `memcmp`.
#[inline(always)]
pub(crate) fn same_str(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same_str`] on bytes.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    // The same words [`StrKey`] keeps, compared as they are read, so that a difference in the
    // first word decides without reading the second (building both keys and comparing them
    // cost 3% more on the nested benchmark).
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        // The first, middle and last bytes are all of them.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        // Two overlapping words cover every byte.
        4..=7 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        8..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// A string's length and a few words of it: two strings of at most 16 bytes are equal exactly
/// when their keys are (the first, middle and last bytes of the shortest; two overlapping words
/// of the others); longer ones also need their bytes compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StrKey {
    len: usize,
    head: u64,
    tail: u64,
}

impl StrKey {
    #[inline(always)]
    pub(super) fn new(s: &str) -> StrKey {
        let b = s.as_bytes();
        let n = b.len();
        let (head, tail) = match n {
            0 => (0, 0),
            1..=3 => (
                u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
                0,
            ),
            4..=7 => (u64::from(word4(b, 0)), u64::from(word4(b, n - 4))),
            _ => (word8(b, 0), word8(b, n - 8)),
        };
        StrKey { len: n, head, tail }
    }
}

/// An enum's members, with the keys of its string members, so that a string is matched without
/// reading any member's bytes (unless both are longer than 16 bytes).
#[derive(Clone, Debug)]
pub(crate) struct EnumCheck {
    pub values: Vec<Value>,
    /// The key of each string member, with its index in `values`.
    strings: Vec<(StrKey, usize)>,
}

impl EnumCheck {
    pub(crate) fn new(values: Vec<Value>) -> EnumCheck {
        let strings = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_str().map(|s| (StrKey::new(s), i)))
            .collect();
        EnumCheck { values, strings }
    }

    /// Whether every member is a string (the usual enum): no other value can match.
    #[inline(always)]
    pub(crate) fn only_strings(&self) -> bool {
        self.strings.len() == self.values.len()
    }

    /// The member equal to the string `s` (strings equal only strings, byte for byte).
    #[inline(always)]
    pub(crate) fn find_str(&self, s: &str) -> Option<&Value> {
        let key = StrKey::new(s);
        for &(k, i) in &self.strings {
            if k == key && (key.len <= 16 || self.values[i].as_str() == Some(s)) {
                return self.values.get(i);
            }
        }
        None
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
    /// The node of each named type compiled so far, by [`TypeId`].
    named: Vec<Option<NodeId>>,
    pub errors: Vec<PatternError>,
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
            errors: Vec::new(),
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

    pub(super) fn object(&mut self, o: &ObjectTy) -> NodeId {
        let expected = if o.is_map() { "map" } else { "object" };
        let id = self.push(Node::Any, expected.into());
        let node = self.object_node(o);
        self.nodes[id] = node;
        id
    }

    fn object_node(&mut self, o: &ObjectTy) -> Node {
        let mut fields = Vec::with_capacity(o.fields.len());
        let indexed = o.fields.len() > SCAN_FIELDS;
        let mut index = HashMap::with_capacity(if indexed { o.fields.len() } else { 0 });
        for f in &o.fields {
            let node = self.ty(&f.ty);
            // The node's own text is the field type's text, except for a named type, whose node
            // is called by its name (an enum's text lists its values).
            let type_text = match f.ty {
                Ty::Ref(_) => self.text(&f.ty),
                _ => self.expected[node].clone(),
            };
            if indexed {
                index.insert(f.name.clone(), fields.len());
            }
            fields.push(FieldCheck {
                name: f.name.as_str().into(),
                inline: inline_name(&f.name),
                node: node_u32(node),
                default: f.default.clone().map(Box::new),
                texts: Box::new(FieldTexts {
                    pointer: super::error::escape_pointer(&f.name).into_owned(),
                    type_text,
                    description: f.description.clone(),
                }),
                required: f.required,
                leaf: Leaf::Other,
                accepts_null: self.module.accepts_null(&f.ty),
            });
        }
        let extra = match &o.additional {
            Additional::Closed => Extra::Closed,
            Additional::Open => Extra::Open,
            Additional::Schema(t) => Extra::Schema(self.ty(t)),
        };
        let defaults = fields
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, f)| f.default.is_some())
            .fold(0u64, |bits, (i, _)| bits | 1 << i);
        Node::Object(ObjectCheck {
            required: fields.iter().filter(|f| f.required).count(),
            defaults,
            fields: fields.into(),
            index: indexed.then(|| Box::new(index)),
            extra,
        })
    }

    pub(super) fn ty(&mut self, ty: &Ty) -> NodeId {
        let expected = self.text(ty);
        let node = match ty {
            Ty::Any => Node::Any,
            Ty::Never => Node::Never,
            Ty::Null => Node::Null,
            Ty::Boolean => Node::Boolean,
            Ty::Integer(r) => Node::Integer(NumberCheck::new(r)),
            Ty::Number(r) => Node::Number(NumberCheck::new(r)),
            Ty::String(r) => {
                let pattern = r
                    .pattern
                    .as_ref()
                    .and_then(|p| match Pattern::new(&p.value) {
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
                let items = self.ty(&a.items);
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
                let prefix: Box<[NodeId]> = t.items.iter().map(|i| self.ty(i)).collect();
                let items = match &t.rest {
                    // `max_items` below stops extra items, with one error for all of them.
                    Additional::Closed => self.push(Node::Any, "any".into()),
                    Additional::Open => self.push(Node::Any, "any".into()),
                    Additional::Schema(r) => self.ty(r),
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
                let inner = self.ty(inner);
                self.nodes[id] = Node::Nullable(inner);
                return id;
            }
            Ty::AnyOf(members) => {
                let id = self.push(Node::Any, expected);
                let members: Box<[NodeId]> = members.iter().map(|m| self.ty(m)).collect();
                self.nodes[id] = Node::AnyOf(members);
                return id;
            }
        };
        self.push(node, expected)
    }

    /// A named type, compiled once; a reference cycle points back at the node being built.
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
        let body = self.ty(&named.ty);
        self.nodes[slot] = Node::Ref(body);
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
                self.nodes[i] = Node::AnyOf(Box::default());
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
                    Node::AnyOf(cs) => cs.get(next).copied(),
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
                Node::AnyOf(members) => {
                    *members = members.iter().copied().filter(|m| !bad[*m]).collect()
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
                        f.node = node_u32(id);
                    }
                    if let Extra::Schema(s) = &mut o.extra {
                        resolve(s);
                    }
                }
                Node::Nullable(inner) => resolve(inner),
                Node::AnyOf(members) => members.iter_mut().for_each(resolve),
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
                Node::AnyOf(members) => members.iter().any(|&m| fills[m]),
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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::{
        inline_name, same_str, EnumCheck, FieldCheck, FieldTexts, Leaf, StrKey, SCAN_FIELDS,
    };

    /// The word-wise comparison agrees with `==` on every length and every differing byte.
    #[test]
    fn same_str_agrees_with_eq() {
        let base: String = "abcdefghijklmnopqrstuvwxyz".into();
        for n in 0..=20 {
            let a = &base[..n];
            assert!(same_str(a, a));
            assert!(!same_str(a, &base[..n + 1]));
            for i in 0..n {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'-';
                let b = String::from_utf8(b).unwrap_or_default();
                assert!(!same_str(a, &b), "{a} vs {b}");
            }
        }
        assert!(same_str("é", "é"));
        assert!(!same_str("é", "è"));
    }

    fn field(name: &str) -> FieldCheck {
        FieldCheck {
            name: name.into(),
            inline: inline_name(name),
            default: None,
            texts: Box::new(FieldTexts {
                pointer: name.into(),
                type_text: String::new(),
                description: None,
            }),
            node: 0,
            required: false,
            leaf: Leaf::Other,
            accepts_null: false,
        }
    }

    /// A field matches a key exactly when its name is the key: names short enough to be kept
    /// in the record (compared there) and longer ones, on every length and differing byte, and
    /// keys that only differ from a short name by trailing zero bytes.
    #[test]
    fn fields_match_exactly_their_names() {
        let base: String = "abcdefghijklmnopqrstuvwxyz".into();
        for n in 0..=20 {
            let f = field(&base[..n]);
            assert!(f.is_named(&base[..n]));
            assert!(!f.is_named(&base[..n + 1]));
            assert!(!f.is_named(&format!("{}\0", &base[..n])));
            for i in 0..n {
                let mut b = base.as_bytes()[..n].to_vec();
                b[i] = b'-';
                let b = String::from_utf8(b).unwrap_or_default();
                assert!(!f.is_named(&b), "{} vs {b}", &base[..n]);
            }
        }
        assert!(field("été").is_named("été"));
        assert!(!field("été").is_named("étè"));
    }

    /// Lookups by hint, by scan and by the index of a large object find the same field.
    #[test]
    fn lookups_agree() {
        for count in [3, SCAN_FIELDS + 4] {
            let names: Vec<String> = (0..count).map(|i| format!("field_{i}")).collect();
            let check = super::ObjectCheck {
                fields: names.iter().map(|n| field(n)).collect(),
                index: Some(Box::new(names.iter().cloned().zip(0..).collect())),
                extra: super::Extra::Closed,
                required: 0,
                defaults: 0,
            };
            for (i, n) in names.iter().enumerate() {
                assert_eq!(check.lookup(n), Some(i));
                for hint in 0..=count {
                    assert_eq!(check.lookup_from(n, hint), Some(i), "{n} from {hint}");
                }
            }
            assert_eq!(check.lookup("field_"), None);
            assert_eq!(check.lookup_from("field_", 1), None);
        }
    }

    /// What the doc of [`super::FieldCheck`] promises: a field record fits one cache line.
    #[test]
    fn field_records_fit_a_cache_line() {
        assert!(std::mem::size_of::<super::FieldCheck>() <= 64);
    }

    /// What the doc of [`super::Node`] promises: a node is one cache line, on a line's start.
    #[test]
    fn nodes_are_one_cache_line() {
        assert_eq!(std::mem::size_of::<super::Node>(), 64);
        assert_eq!(std::mem::align_of::<super::Node>(), 64);
    }

    /// Keys of strings of at most 16 bytes are equal exactly when the strings are, on every
    /// length and every differing byte; enum lookups by key agree with `==` on longer ones too.
    #[test]
    fn str_keys_decide_short_strings() {
        let base: String = "abcdefghijklmnopqrstuvwxyz".into();
        for n in 0..=16 {
            let a = &base[..n];
            assert_eq!(StrKey::new(a), StrKey::new(a));
            assert_ne!(StrKey::new(a), StrKey::new(&base[..n + 1]));
            for i in 0..n {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'-';
                let b = String::from_utf8(b).unwrap_or_default();
                assert_ne!(StrKey::new(a), StrKey::new(&b), "{a} vs {b}");
            }
        }
        let long = "a-very-long-enum-member-name";
        // Same length, first and last eight bytes: only the comparison of the bytes tells.
        let twin = "a-very-long-XXXX-member-name";
        assert_eq!(StrKey::new(long), StrKey::new(twin));
        let e = EnumCheck::new(vec![
            Value::from(long),
            Value::from(1),
            Value::from("short"),
        ]);
        assert_eq!(e.find_str(long), Some(&Value::from(long)));
        assert_eq!(e.find_str(twin), None);
        assert_eq!(e.find_str("short"), Some(&Value::from("short")));
        assert!(!e.only_strings());
        assert!(EnumCheck::new(vec![Value::from("a")]).only_strings());
    }
}

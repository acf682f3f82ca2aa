//! Objects and maps: the declared fields (records of one cache line, matched by their names'
//! bytes), how keys are looked up (a scan for small objects, a hash index for large ones), what
//! other keys may hold, the run over an object, and how an accepted object is normalized.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::keys::same_bytes;
use crate::validate::coerce::CoercionRule;
use crate::validate::compile::{Leaf, NodeId, Program};
use crate::validate::error::{escape_pointer, Present, Problem};
use crate::validate::sink::Sink;
use crate::validate::walk::{check_child, normalize, normalized, v_null, walked_item_by_item, Run};
use crate::validate::ErrorCode;

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
    /// What only some objects need, behind one pointer (the node must stay in one cache line):
    /// `None` for small objects without rules across their keys.
    pub aside: Option<Box<Aside>>,
    pub extra: Extra,
    /// How many fields are required ([`ObjectCheck::required`]). This count and the next take
    /// 32 bits each, so that the node stays in one cache line.
    required: u32,
    /// How many keys past the required ones an object may hold, as far as counting tells: its
    /// optional fields when it is closed, `u32::MAX` (more keys than any map in memory holds)
    /// otherwise.
    key_span: u32,
    /// Bit `i` for each field `i` (of the first 64) that has a default.
    pub defaults: u64,
}

/// The parts of an object's check that most objects do without.
#[derive(Clone, Debug, Default)]
pub(crate) struct Aside {
    /// Field indices by name, for objects of more than [`ObjectCheck::SCAN_FIELDS`] fields
    /// (smaller ones are scanned, which is faster than hashing the key).
    pub index: Option<HashMap<String, usize>>,
    /// The rules across the keys.
    pub rules: Option<KeyRulesCheck>,
}

/// The rules across an object's keys (`model::KeyRules`), fields named by index. They read the
/// keys as sent: a default filled in does not count, nor (in lax mode) a `null` read as absent.
#[derive(Clone, Debug)]
pub(crate) struct KeyRulesCheck {
    /// 0 when there is no `@min_properties`.
    pub min_keys: u64,
    pub max_keys: Option<u64>,
    pub groups: Box<[KeyGroupCheck]>,
}

/// `model::KeyGroup` with fields by index.
#[derive(Clone, Debug)]
pub(crate) enum KeyGroupCheck {
    ExactlyOneOf(Box<[usize]>),
    AtMostOneOf(Box<[usize]>),
    Requires { key: usize, needs: Box<[usize]> },
}

/// A rule across keys that an object breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum KeyBreak {
    /// Fewer keys than `@min_properties`, or more than `@max_properties`.
    TooFewKeys {
        count: u64,
    },
    TooManyKeys {
        count: u64,
    },
    /// Group `group` (an `@exactly_one_of`) has none of its fields given.
    NoneOf {
        group: usize,
    },
    /// Group `group` has fields `given` (two or more) given together.
    Several {
        group: usize,
        given: Vec<usize>,
    },
    /// Group `group` (a `@requires`) has its key given without field `missing`.
    Needs {
        group: usize,
        missing: usize,
    },
}

impl KeyBreak {
    /// The error code of the break.
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            KeyBreak::TooFewKeys { .. } => ErrorCode::TooFewKeys,
            KeyBreak::TooManyKeys { .. } => ErrorCode::TooManyKeys,
            KeyBreak::NoneOf { .. } => ErrorCode::MissingOneOf,
            KeyBreak::Several { .. } => ErrorCode::ConflictingKeys,
            KeyBreak::Needs { .. } => ErrorCode::MissingDependent,
        }
    }
}

impl KeyRulesCheck {
    /// Every rule an object breaks that has `count` keys, of which `given` tells the declared
    /// fields, in the order the rules were written (the counts first).
    pub(crate) fn broken(&self, count: u64, given: impl Fn(usize) -> bool) -> Vec<KeyBreak> {
        let mut out = Vec::new();
        self.each_broken(count, given, |b| {
            out.push(b);
            true
        });
        out
    }

    /// Whether an object of `count` keys, of which `given` tells the declared fields, keeps
    /// every rule (the fast check's question: it stops at the first broken rule and allocates
    /// nothing while the rules hold).
    pub(crate) fn hold(&self, count: u64, given: impl Fn(usize) -> bool) -> bool {
        let mut holds = true;
        self.each_broken(count, given, |_| {
            holds = false;
            false
        });
        holds
    }

    /// Hands each broken rule to `on`, in [`KeyRulesCheck::broken`]'s order, while `on` says to
    /// go on.
    fn each_broken(
        &self,
        count: u64,
        given: impl Fn(usize) -> bool,
        mut on: impl FnMut(KeyBreak) -> bool,
    ) {
        if count < self.min_keys && !on(KeyBreak::TooFewKeys { count }) {
            return;
        }
        if self.max_keys.is_some_and(|m| count > m) && !on(KeyBreak::TooManyKeys { count }) {
            return;
        }
        for (group, rule) in self.groups.iter().enumerate() {
            let go_on = match rule {
                KeyGroupCheck::ExactlyOneOf(fields) | KeyGroupCheck::AtMostOneOf(fields) => {
                    match fields.iter().filter(|&&i| given(i)).count() {
                        0 if matches!(rule, KeyGroupCheck::ExactlyOneOf(_)) => {
                            on(KeyBreak::NoneOf { group })
                        }
                        0 | 1 => true,
                        _ => {
                            let given = fields.iter().copied().filter(|&i| given(i)).collect();
                            on(KeyBreak::Several { group, given })
                        }
                    }
                }
                KeyGroupCheck::Requires { key, needs } if given(*key) => needs
                    .iter()
                    .filter(|&&i| !given(i))
                    .all(|&missing| on(KeyBreak::Needs { group, missing })),
                KeyGroupCheck::Requires { .. } => true,
            };
            if !go_on {
                return;
            }
        }
    }
}

impl FieldCheck {
    /// The record of a field called `name`, of type `node`.
    pub(crate) fn new(
        name: &str,
        node: NodeId,
        texts: FieldTexts,
        default: Option<Value>,
        required: bool,
        accepts_null: bool,
    ) -> FieldCheck {
        FieldCheck {
            name: name.into(),
            inline: inline_name(name),
            default: default.map(Box::new),
            texts: Box::new(texts),
            node: node_u32(node),
            required,
            leaf: Leaf::Other,
            accepts_null,
        }
    }

    /// Whether `null` sent for this field reads as "absent" (lax mode, an optional field whose
    /// type does not take `null`).
    #[inline(always)]
    pub(crate) fn null_is_absent(&self, lax: bool) -> bool {
        lax && !self.required && !self.accepts_null
    }

    /// Whether a problem with value `v` of this field is `null` sent for an optional field that
    /// does not take it: its message then says to leave the key out.
    pub(in crate::validate) fn omits_null(&self, v: &Value) -> bool {
        v.is_null() && self.null_is_absent(true)
    }

    /// Points the field at another node (a named type's, once references are resolved).
    pub(crate) fn set_node(&mut self, id: NodeId) {
        self.node = node_u32(id);
    }

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

impl ObjectCheck {
    /// The check of an object of these fields, which takes other keys as `extra` says (the
    /// counts and the bits of defaults are worked out from the fields).
    pub(crate) fn new(
        fields: Box<[FieldCheck]>,
        aside: Option<Box<Aside>>,
        extra: Extra,
    ) -> ObjectCheck {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let required = fields.iter().filter(|f| f.required).count();
        let defaults = fields
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, f)| f.default.is_some())
            .fold(0u64, |bits, (i, _)| bits | 1 << i);
        let key_span = match extra {
            Extra::Closed => count(fields.len() - required),
            Extra::Open | Extra::Schema(_) => u32::MAX,
        };
        ObjectCheck {
            fields,
            aside,
            extra,
            required: count(required),
            key_span,
            defaults,
        }
    }

    /// How many fields are required.
    #[inline(always)]
    pub(crate) fn required(&self) -> usize {
        self.required as usize
    }

    /// Whether an object of `keys` keys can be valid as far as their count tells: it has at
    /// least one key for each required field, and (when closed) no more keys than fields. One
    /// comparison: a count short of the required ones wraps around past the span.
    #[inline(always)]
    pub(crate) fn may_hold(&self, keys: usize) -> bool {
        keys.wrapping_sub(self.required()) <= self.key_span as usize
    }

    /// Objects with at most this many fields look keys up by scanning their fields.
    pub(crate) const SCAN_FIELDS: usize = 16;

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
        if self.fields.len() > Self::SCAN_FIELDS {
            return self.index().and_then(|i| i.get(key)).copied();
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
        if self.fields.len() <= Self::SCAN_FIELDS {
            self.fields.iter().position(|f| f.is_named(key))
        } else {
            self.index().and_then(|i| i.get(key)).copied()
        }
    }

    /// The index of field names, for large objects.
    fn index(&self) -> Option<&HashMap<String, usize>> {
        self.aside.as_ref()?.index.as_ref()
    }

    /// The rules across the keys, if any.
    #[inline(always)]
    pub(crate) fn rules(&self) -> Option<&KeyRulesCheck> {
        self.aside.as_ref()?.rules.as_ref()
    }
}

/// Normalizing an accepted object: declared keys in declaration order, other keys after them as
/// they came, absent defaults filled in.
impl ObjectCheck {
    /// Objects with at most this many fields are normalized into a fresh map by
    /// [`ObjectCheck::normalized`].
    const SMALL_OBJECT: usize = 32;

    /// Fills in the default of each field that `present` does not hold (bit `i` for field `i`),
    /// each at its declared place, in a map of at most 64 fields whose declared keys come in
    /// declaration order and before any other key.
    pub(crate) fn fill_defaults(&self, map: &mut Map<String, Value>, present: u64) {
        debug_assert!(self.fields.len() <= 64);
        let mut at = 0;
        for (i, f) in self.fields.iter().enumerate() {
            if present & (1 << i) != 0 {
                at += 1;
            } else if let Some(d) = f.default.as_deref() {
                map.shift_insert(at, f.key(), d.clone());
                at += 1;
            }
        }
    }

    /// Normalizes `map` in place (see [`normalize`]), filling in absent defaults when `fill`.
    /// An object whose keys already come in declaration order is not rebuilt.
    pub(crate) fn normalize(&self, prog: &Program, map: &mut Map<String, Value>, fill: bool) {
        let mut present = 0u64;
        let mut last = None;
        let mut in_order = self.fields.len() <= 64;
        let mut extras = false;
        for (k, v) in map.iter_mut() {
            match self.lookup(k) {
                Some(i) => {
                    in_order &= !extras && last.is_none_or(|l| l < i);
                    last = Some(i);
                    if i < 64 {
                        present |= 1 << i;
                    }
                    normalize(prog, self.fields[i].node(), v, fill);
                }
                None => {
                    extras = true;
                    if let Extra::Schema(node) = &self.extra {
                        normalize(prog, *node, v, fill);
                    }
                }
            }
        }
        let defaults = fill && self.fields.iter().any(|f| f.default.is_some());
        if in_order {
            if defaults {
                self.fill_defaults(map, present);
            }
            return;
        }
        // Rebuild in declaration order, moving the entries.
        let mut slots: Vec<Option<(String, Value)>> = Vec::new();
        slots.resize_with(self.fields.len(), || None);
        let mut rest = Vec::new();
        for (k, v) in std::mem::take(map) {
            match self.lookup(&k) {
                Some(i) => slots[i] = Some((k, v)),
                None => rest.push((k, v)),
            }
        }
        for (f, slot) in self.fields.iter().zip(slots) {
            match slot {
                Some((k, v)) => {
                    map.insert(k, v);
                }
                None => {
                    if let Some(d) = f.default.as_deref().filter(|_| fill) {
                        map.insert(f.key(), d.clone());
                    }
                }
            }
        }
        map.extend(rest);
    }

    /// The normalized copy of `map`, with its defaults. An object of at most
    /// [`ObjectCheck::SMALL_OBJECT`] fields is built once in declaration order with room for the
    /// defaults (a copy normalized in place would be grown, rehashed and shifted for each default
    /// filled in); a larger one is copied, then normalized in place.
    pub(crate) fn normalized(&self, prog: &Program, map: &Map<String, Value>) -> Value {
        if self.fields.len() > Self::SMALL_OBJECT {
            let mut copy = map.clone();
            self.normalize(prog, &mut copy, true);
            return Value::Object(copy);
        }
        let mut slots: [Option<&Value>; Self::SMALL_OBJECT] = [None; Self::SMALL_OBJECT];
        let mut extras = 0;
        for (k, v) in map {
            match self.lookup(k) {
                Some(i) => slots[i] = Some(v),
                None => extras += 1,
            }
        }
        let mut out = Map::with_capacity(self.fields.len() + extras);
        for (f, slot) in self.fields.iter().zip(slots) {
            match (slot, f.default.as_deref()) {
                (Some(v), _) => {
                    out.insert(f.key(), normalized(prog, f.node(), v));
                }
                (None, Some(d)) => {
                    out.insert(f.key(), d.clone());
                }
                (None, None) => {}
            }
        }
        if extras > 0 {
            for (k, v) in map {
                if self.lookup(k).is_none() {
                    let v = match &self.extra {
                        Extra::Schema(node) => normalized(prog, *node, v),
                        _ => v.clone(),
                    };
                    out.insert(k.clone(), v);
                }
            }
        }
        Value::Object(out)
    }
}

/// The problem of required field `field` not sent (at the arguments' `root` or not); its
/// value is `null`, shown as nothing.
pub(in crate::validate) fn missing(field: usize, root: bool) -> (ErrorCode, Problem) {
    (ErrorCode::MissingField, Problem::Missing { field, root })
}

/// The problem of a key a closed object does not declare (the last segment of the error's
/// path), sent beside the fields `present` (for its suggestion).
pub(in crate::validate) fn unknown(root: bool, present: Present) -> (ErrorCode, Problem) {
    (ErrorCode::UnknownKey, Problem::Unknown { root, present })
}

impl<S: Sink> Run<'_, S> {
    /// After a field's value failed: a `null` sent for an optional field that does not take it
    /// gets a message that says to leave the key out.
    fn omit_null_hint(&mut self, f: &FieldCheck, v: &Value) {
        if f.omits_null(v) {
            if let Some(e) = self.errors.last_mut() {
                e.set_omit_null();
            }
        }
    }

    /// An `object` node's run over `value`: each declared field's value or absence, the other
    /// keys as `extra` says, and the rules across the keys.
    pub(in crate::validate) fn object(
        &mut self,
        id: NodeId,
        check: &ObjectCheck,
        value: &Value,
    ) -> Option<Value> {
        let Value::Object(map) = value else {
            self.wrong_type(id, "object", value);
            return None;
        };
        let root = self.at_root();
        let mut out = if S::BUILD {
            Map::with_capacity(check.fields.len().max(map.len()))
        } else {
            Map::new()
        };
        let mut ok = true;
        // What was sent for each field, found in one pass over the keys (small objects are
        // scanned, which is cheaper than hashing every declared name).
        let mut small: [Option<&Value>; 16] = [None; 16];
        let large: Vec<Option<&Value>>;
        let mut unknown = false;
        // Which of the first 64 keys sent are unknown, when the scan found out.
        let mut unknown_keys: Option<u64> = None;
        let slots: &[Option<&Value>] = if check.fields.len() <= 16 {
            let mut next = 0;
            let mut bits = 0u64;
            for (j, (k, v)) in map.iter().enumerate() {
                match check.lookup_from(k, next) {
                    Some(i) => {
                        small[i] = Some(v);
                        next = i + 1;
                    }
                    None => {
                        unknown = true;
                        if j < 64 {
                            bits |= 1 << j;
                        }
                    }
                }
            }
            unknown_keys = Some(bits);
            &small[..check.fields.len()]
        } else {
            large = check.fields.iter().map(|f| map.get(&*f.name)).collect();
            unknown = map.len() > large.iter().flatten().count();
            &large
        };
        // A strict run that only collects problems skips the fields the fast check accepts
        // (scalars, and the containers [`Run::walk`] checks first), without extending the path.
        let skip_valid = self.skips_valid_fields();
        let prog = self.prog();
        // Which of the first 64 fields were sent (for the suggestions of unknown keys).
        let mut present = 0u64;
        for (i, (f, &sent)) in check.fields.iter().zip(slots).enumerate() {
            if sent.is_some() && i < 64 {
                present |= 1 << i;
            }
            match sent {
                Some(Value::Null) if f.null_is_absent(S::LAX) => {
                    let to = f.default.as_deref().cloned().filter(|_| S::FILL_DEFAULTS);
                    self.with_segment(&f.texts.pointer, |r| {
                        r.record_coercion(CoercionRule::NullAsAbsent, &Value::Null, to)
                    });
                    if let Some(d) = f.default.as_deref().filter(|_| S::FILL_DEFAULTS) {
                        out.insert(f.key(), d.clone());
                    }
                }
                Some(v) if skip_valid && f.leaf.accepts(v) => {}
                Some(v) if skip_valid && !walked_item_by_item(v) => {
                    // What the strict check rejects, lax mode may still coerce.
                    if !check_child::<false>(prog, f.node(), v, usize::MAX, &mut true)
                        && self
                            .with_segment(&f.texts.pointer, |r| r.walk_node(f.node(), v))
                            .is_none()
                    {
                        ok = false;
                        self.omit_null_hint(f, v);
                    }
                }
                Some(v) => match self.with_segment(&f.texts.pointer, |r| r.walk(f.node(), v)) {
                    Some(x) => {
                        if S::BUILD {
                            out.insert(f.key(), x);
                        }
                    }
                    None => {
                        ok = false;
                        self.omit_null_hint(f, v);
                    }
                },
                None if f.required => {
                    ok = false;
                    let (code, problem) = missing(i, root);
                    self.with_segment(&f.texts.pointer, |r| r.fail(id, code, v_null(), problem));
                }
                None => {
                    if S::BUILD {
                        if let Some(d) = f.default.as_deref().filter(|_| S::FILL_DEFAULTS) {
                            out.insert(f.key(), d.clone());
                        }
                    }
                }
            }
        }
        if unknown && !self.undeclared(id, check, map, unknown_keys, present, &mut out) {
            ok = false;
        }
        if let Some(rules) = check.rules() {
            ok &= self.key_rules(id, check, rules, map.len(), slots, value);
        }
        if !ok {
            return None;
        }
        self.out(|| Value::Object(out))
    }

    /// Reports the rules across keys that an object of `len` keys breaks, `slots` holding what
    /// was sent for each field; whether it keeps them all.
    #[cold]
    #[inline(never)]
    fn key_rules(
        &mut self,
        id: NodeId,
        check: &ObjectCheck,
        rules: &KeyRulesCheck,
        len: usize,
        slots: &[Option<&Value>],
        value: &Value,
    ) -> bool {
        let lax = S::LAX;
        let absent = |i: usize| match (check.fields.get(i), slots.get(i)) {
            (Some(f), Some(Some(v))) => v.is_null() && f.null_is_absent(lax),
            _ => false,
        };
        let given = |i: usize| slots.get(i).is_some_and(Option::is_some) && !absent(i);
        let nulled = (0..slots.len()).filter(|&i| absent(i)).count();
        let broken = rules.broken((len - nulled) as u64, given);
        for b in &broken {
            match *b {
                KeyBreak::Needs { missing, .. } => {
                    let Some(f) = check.fields.get(missing) else {
                        continue;
                    };
                    let problem = Problem::Keys(b.clone());
                    self.with_segment(&f.texts.pointer, |r| {
                        r.fail(id, b.code(), v_null(), problem)
                    });
                }
                _ => self.fail(id, b.code(), value, Problem::Keys(b.clone())),
            }
        }
        broken.is_empty()
    }

    /// The keys of `map` that `check` does not declare (`unknown_keys` tells which of the first
    /// 64 they are, when known; `present` which of the first 64 fields were sent): kept, walked
    /// or reported as the object's `extra` says. Whether they are all fine.
    fn undeclared(
        &mut self,
        id: NodeId,
        check: &ObjectCheck,
        map: &Map<String, Value>,
        unknown_keys: Option<u64>,
        present: u64,
        out: &mut Map<String, Value>,
    ) -> bool {
        let root = self.at_root();
        let mut ok = true;
        // Which fields were sent, for the unknown keys' suggestions: worked out once for the
        // object and shared (once per key, it made n unknown keys cost n times the fields).
        let mut sent: Option<Present> = None;
        for (j, (k, v)) in map.iter().enumerate() {
            let is_unknown = match unknown_keys {
                Some(bits) if j < 64 => bits & (1 << j) != 0,
                _ => check.lookup(k).is_none(),
            };
            if !is_unknown {
                continue;
            }
            match &check.extra {
                Extra::Open => {
                    if S::BUILD {
                        out.insert(k.clone(), v.clone());
                    }
                }
                Extra::Schema(node) => {
                    match self.with_segment(&escape_pointer(k), |r| r.walk(*node, v)) {
                        Some(x) => {
                            if S::BUILD {
                                out.insert(k.clone(), x);
                            }
                        }
                        None => ok = false,
                    }
                }
                Extra::Closed => {
                    ok = false;
                    let present = if check.fields.len() <= 64 {
                        Present::Small(present)
                    } else {
                        let sent = sent.get_or_insert_with(|| {
                            Present::new(check.fields.len(), |i| {
                                map.contains_key(&*check.fields[i].name)
                            })
                        });
                        sent.clone()
                    };
                    let (code, problem) = unknown(root, present);
                    self.with_segment(&escape_pointer(k), |r| r.fail(id, code, v, problem));
                }
            }
        }
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for count in [3, ObjectCheck::SCAN_FIELDS + 4] {
            let names: Vec<String> = (0..count).map(|i| format!("field_{i}")).collect();
            let check = super::ObjectCheck::new(
                names.iter().map(|n| field(n)).collect(),
                Some(Box::new(super::Aside {
                    index: Some(names.iter().cloned().zip(0..).collect()),
                    rules: None,
                })),
                super::Extra::Closed,
            );
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

    /// What the doc of [`FieldCheck`] promises: a field record fits one cache line.
    #[test]
    fn field_records_fit_a_cache_line() {
        assert!(std::mem::size_of::<FieldCheck>() <= 64);
    }
}
